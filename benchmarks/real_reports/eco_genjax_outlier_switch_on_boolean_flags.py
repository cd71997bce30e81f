"""Scoring observations under a regular-or-outlier mixture where each point's component is chosen with lax.switch from a given outlier flag (the Bernoulli choice), for a fixed assignment of flags."""

URL = "https://github.com/genjax-community/genjax/issues/702"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def normal_logpdf(y, mu, sigma):
    return -0.5 * ((y - mu) / sigma) ** 2 - jnp.log(sigma) - 0.5 * jnp.log(2 * jnp.pi)

def regular(y, mu):
    return normal_logpdf(y, mu, 1.0)

def outlier(y, mu):
    return normal_logpdf(y, 0.0, 10.0)

def point_score(y, is_outlier, mu, p_out=0.1):
    prior = jnp.where(is_outlier, jnp.log(p_out), jnp.log1p(-p_out))
    return prior + lax.switch(is_outlier, [regular, outlier], y, mu)

@jax.jit
def joint_score(ys, flags, mu):
    return jax.vmap(point_score, in_axes=(0, 0, None))(ys, flags, mu).sum()

ys = jnp.array([1.2, 0.7, 9.5, 1.9, -6.0, 1.1])
flags = jnp.array([False, False, True, False, True, False])''',
    "score = joint_score(ys, flags, 1.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def normal_logpdf(y, mu, sigma):
    return -0.5 * ((y - mu) / sigma) ** 2 - jnp.log(sigma) - 0.5 * jnp.log(2 * jnp.pi)

def regular(y, mu):
    return normal_logpdf(y, mu, 1.0)

def outlier(y, mu):
    return normal_logpdf(y, 0.0, 10.0)

def point_score(y, is_outlier, mu, p_out=0.1):
    prior = jnp.where(is_outlier, jnp.log(p_out), jnp.log1p(-p_out))
    return prior + lax.switch(is_outlier.astype(jnp.int32), [regular, outlier], y, mu)

@jax.jit
def joint_score(ys, flags, mu):
    return jax.vmap(point_score, in_axes=(0, 0, None))(ys, flags, mu).sum()

ys = jnp.array([1.2, 0.7, 9.5, 1.9, -6.0, 1.1])
flags = jnp.array([False, False, True, False, True, False])''',
    "score = joint_score(ys, flags, 1.0)",
)
CHECK = "(lambda y, f: abs(float(score) - float(sum((np.log(0.1) - 0.5*(yi/10.0)**2 - np.log(10.0) - 0.5*np.log(2*np.pi)) if fi else (np.log(0.9) - 0.5*(yi-1.0)**2 - 0.5*np.log(2*np.pi)) for yi, fi in zip(y, f)))) < 1e-4)(np.array([1.2, 0.7, 9.5, 1.9, -6.0, 1.1]), [False, False, True, False, True, False])"
