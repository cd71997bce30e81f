"""Running an adaptive random-walk Metropolis sampler whose proposal scale is tuned after every batch from the batch's acceptance rate, all inside one jitted lax.scan."""

URL = "https://github.com/mlysy/pfjax/issues/3"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''TARGET_MEAN, TARGET_SD = 1.0, 0.5

def log_target(x):
    return -0.5 * ((x - TARGET_MEAN) / TARGET_SD) ** 2

def adapt_rw_sd(rw_sd, accept_rate, n_batch, targ_acc=0.44, max_delta=0.1):
    """Roberts-Rosenthal style tuning: shrink the step if accepting too rarely, grow it otherwise."""
    delta = jnp.minimum(max_delta, 1.0 / jnp.sqrt(n_batch))
    if accept_rate < targ_acc:
        return jnp.exp(jnp.log(rw_sd) - delta)
    else:
        return jnp.exp(jnp.log(rw_sd) + delta)

def rw_batch(x, rw_sd, z, log_u):
    def step(x, inp):
        z_i, log_u_i = inp
        prop = x + rw_sd * z_i
        accept = log_u_i < log_target(prop) - log_target(x)
        x = jnp.where(accept, prop, x)
        return x, (x, accept)
    x, (xs, accepts) = jax.lax.scan(step, x, (z, log_u))
    return x, xs, jnp.mean(accepts)

@jax.jit
def adaptive_rwm(x0, rw_sd0, z_all, log_u_all):
    def batch(carry, inp):
        x, rw_sd = carry
        n_batch, z, log_u = inp
        x, xs, rate = rw_batch(x, rw_sd, z, log_u)
        rw_sd = adapt_rw_sd(rw_sd, rate, n_batch)
        return (x, rw_sd), (xs, rate, rw_sd)
    n = z_all.shape[0]
    _, (xs, rates, sds) = jax.lax.scan(batch, (x0, rw_sd0), (jnp.arange(1, n + 1), z_all, log_u_all))
    return xs.reshape(-1), rates, sds

n_batches, batch_size = 40, 25
k_z, k_u = jax.random.split(jax.random.PRNGKey(3))
z_all = jax.random.normal(k_z, (n_batches, batch_size))
log_u_all = jnp.log(jax.random.uniform(k_u, (n_batches, batch_size)))''',
    "draws, accept_rates, rw_sds = adaptive_rwm(jnp.array(0.0), jnp.array(3.0), z_all, log_u_all)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''TARGET_MEAN, TARGET_SD = 1.0, 0.5

def log_target(x):
    return -0.5 * ((x - TARGET_MEAN) / TARGET_SD) ** 2

def adapt_rw_sd(rw_sd, accept_rate, n_batch, targ_acc=0.44, max_delta=0.1):
    """Roberts-Rosenthal style tuning: shrink the step if accepting too rarely, grow it otherwise."""
    delta = jnp.minimum(max_delta, 1.0 / jnp.sqrt(n_batch))
    return jnp.where(accept_rate < targ_acc,
                     jnp.exp(jnp.log(rw_sd) - delta),
                     jnp.exp(jnp.log(rw_sd) + delta))

def rw_batch(x, rw_sd, z, log_u):
    def step(x, inp):
        z_i, log_u_i = inp
        prop = x + rw_sd * z_i
        accept = log_u_i < log_target(prop) - log_target(x)
        x = jnp.where(accept, prop, x)
        return x, (x, accept)
    x, (xs, accepts) = jax.lax.scan(step, x, (z, log_u))
    return x, xs, jnp.mean(accepts)

@jax.jit
def adaptive_rwm(x0, rw_sd0, z_all, log_u_all):
    def batch(carry, inp):
        x, rw_sd = carry
        n_batch, z, log_u = inp
        x, xs, rate = rw_batch(x, rw_sd, z, log_u)
        rw_sd = adapt_rw_sd(rw_sd, rate, n_batch)
        return (x, rw_sd), (xs, rate, rw_sd)
    n = z_all.shape[0]
    _, (xs, rates, sds) = jax.lax.scan(batch, (x0, rw_sd0), (jnp.arange(1, n + 1), z_all, log_u_all))
    return xs.reshape(-1), rates, sds

n_batches, batch_size = 40, 25
k_z, k_u = jax.random.split(jax.random.PRNGKey(3))
z_all = jax.random.normal(k_z, (n_batches, batch_size))
log_u_all = jnp.log(jax.random.uniform(k_u, (n_batches, batch_size)))''',
    "draws, accept_rates, rw_sds = adaptive_rwm(jnp.array(0.0), jnp.array(3.0), z_all, log_u_all)",
)
# Reference: the same sampler replayed in float64 NumPy on the same normal / uniform draws.
CHECK = ("(lambda ref: draws.shape == (1000,) and rw_sds.shape == (40,) "
         "and np.allclose(np.asarray(draws), ref[0], rtol=1e-4, atol=1e-4) "
         "and np.allclose(np.asarray(accept_rates), ref[1], atol=1e-6) "
         "and np.allclose(np.asarray(rw_sds), ref[2], rtol=1e-4))"
         "((lambda z, lu, lt: (lambda st: [np.array(st['xs']), np.array(st['rates']), np.array(st['sds'])])("
         "__import__('functools').reduce(lambda st, b: (lambda acc_xs: dict(x=acc_xs[-1][0], "
         "sd=float(np.exp(np.log(st['sd']) + (-1 if np.mean([a for _, a in acc_xs]) < 0.44 else 1) * min(0.1, 1 / np.sqrt(b + 1)))), "
         "xs=st['xs'] + [v for v, _ in acc_xs], rates=st['rates'] + [np.mean([a for _, a in acc_xs])], "
         "sds=st['sds'] + [float(np.exp(np.log(st['sd']) + (-1 if np.mean([a for _, a in acc_xs]) < 0.44 else 1) * min(0.1, 1 / np.sqrt(b + 1))))]))("
         "list(__import__('itertools').accumulate(range(25), lambda xa, j: (lambda p: (p, True) if lu[b, j] < lt(p) - lt(xa[0]) else (xa[0], False))(xa[0] + st['sd'] * z[b, j]), "
         "initial=(st['x'], None)))[1:]), range(40), dict(x=0.0, sd=3.0, xs=[], rates=[], sds=[]))))"
         "(np.asarray(z_all, np.float64), np.asarray(log_u_all, np.float64), lambda v: -0.5 * ((v - 1.0) / 0.5) ** 2))")
