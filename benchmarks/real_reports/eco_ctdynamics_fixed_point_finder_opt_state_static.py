"""Finding the fixed points of a small RNN's update map by optimising candidate hidden states with Adam, running the optimiser in jitted chunks of a lax.fori_loop."""

URL = "https://github.com/google-research/computation-thru-dynamics/issues/15"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# vanilla RNN under a constant input: h -> tanh(W h + b)   (contractive, so one fixed point)
W = jnp.array([[0.30, -0.20, 0.10, 0.00],
               [0.25,  0.20, -0.15, 0.05],
               [-0.10, 0.30, 0.20, -0.20],
               [0.05, -0.10, 0.25, 0.30]])
b = jnp.array([0.5, -0.3, 0.8, 0.1])

def rnn_step(h):
    return jnp.tanh(W @ h + b)

def total_fp_loss(hs):
    return jnp.mean(jnp.sum((hs - jax.vmap(rnn_step)(hs)) ** 2, axis=1))

def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Minimal stand-in for jax.example_libraries.optimizers.adam."""
    def init(x):
        return (x, jnp.zeros_like(x), jnp.zeros_like(x))
    def update(i, g, state):
        x, m, v = state
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        mhat = m / (1 - b1 ** (i + 1))
        vhat = v / (1 - b2 ** (i + 1))
        return (x - step_size * mhat / (jnp.sqrt(vhat) + eps), m, v)
    def get_params(state):
        return state[0]
    return init, update, get_params

opt_init, opt_update, get_params = adam(0.01)

def update_fun(i, opt_state):
    grads = jax.grad(total_fp_loss)(get_params(opt_state))
    return opt_update(i, grads, opt_state)

def optimize_fp_core(batch_idx_start, num_batches, update_fun, opt_state):
    return jax.lax.fori_loop(batch_idx_start, batch_idx_start + num_batches, update_fun, opt_state)

optimize_fp_core_jit = jax.jit(optimize_fp_core, static_argnums=(1, 2, 3))

candidates = jnp.array([[0.9, -0.9, 0.2, 0.0],
                        [-0.5, 0.5, 0.9, -0.8],
                        [0.0, 0.0, 0.0, 0.0],
                        [0.7, 0.3, -0.6, 0.4],
                        [-0.9, -0.2, 0.5, 0.9]])
opt_state = opt_init(candidates)
print_every = 400''',
    '''for k in range(5):
    opt_state = optimize_fp_core_jit(k * print_every, print_every, update_fun, opt_state)
    print(k, total_fp_loss(get_params(opt_state)))
fps = get_params(opt_state)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# vanilla RNN under a constant input: h -> tanh(W h + b)   (contractive, so one fixed point)
W = jnp.array([[0.30, -0.20, 0.10, 0.00],
               [0.25,  0.20, -0.15, 0.05],
               [-0.10, 0.30, 0.20, -0.20],
               [0.05, -0.10, 0.25, 0.30]])
b = jnp.array([0.5, -0.3, 0.8, 0.1])

def rnn_step(h):
    return jnp.tanh(W @ h + b)

def total_fp_loss(hs):
    return jnp.mean(jnp.sum((hs - jax.vmap(rnn_step)(hs)) ** 2, axis=1))

def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Minimal stand-in for jax.example_libraries.optimizers.adam."""
    def init(x):
        return (x, jnp.zeros_like(x), jnp.zeros_like(x))
    def update(i, g, state):
        x, m, v = state
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        mhat = m / (1 - b1 ** (i + 1))
        vhat = v / (1 - b2 ** (i + 1))
        return (x - step_size * mhat / (jnp.sqrt(vhat) + eps), m, v)
    def get_params(state):
        return state[0]
    return init, update, get_params

opt_init, opt_update, get_params = adam(0.01)

def update_fun(i, opt_state):
    grads = jax.grad(total_fp_loss)(get_params(opt_state))
    return opt_update(i, grads, opt_state)

def optimize_fp_core(batch_idx_start, num_batches, update_fun, opt_state):
    return jax.lax.fori_loop(batch_idx_start, batch_idx_start + num_batches, update_fun, opt_state)

optimize_fp_core_jit = jax.jit(optimize_fp_core, static_argnums=(1, 2))

candidates = jnp.array([[0.9, -0.9, 0.2, 0.0],
                        [-0.5, 0.5, 0.9, -0.8],
                        [0.0, 0.0, 0.0, 0.0],
                        [0.7, 0.3, -0.6, 0.4],
                        [-0.9, -0.2, 0.5, 0.9]])
opt_state = opt_init(candidates)
print_every = 400''',
    '''for k in range(5):
    opt_state = optimize_fp_core_jit(k * print_every, print_every, update_fun, opt_state)
    print(k, total_fp_loss(get_params(opt_state)))
fps = get_params(opt_state)''',
)
# Reference fixed point: iterate the contraction h <- tanh(W h + b) in float64 NumPy.
CHECK = ("(lambda h_star: fps.shape == (5, 4) "
         "and np.allclose(np.asarray(fps), np.tile(h_star, (5, 1)), atol=1e-4))"
         "(__import__('functools').reduce(lambda h, _: np.tanh(np.array([[0.30, -0.20, 0.10, 0.00], [0.25, 0.20, -0.15, 0.05], "
         "[-0.10, 0.30, 0.20, -0.20], [0.05, -0.10, 0.25, 0.30]]) @ h + np.array([0.5, -0.3, 0.8, 0.1])), range(200), np.zeros(4)))")
