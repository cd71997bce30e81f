"""Wrapping a factored-second-moment (Adafactor-like) optimiser in an inject_hyperparams-style helper so its learning rate can be changed later, then jitting its init."""

URL = "https://github.com/google-deepmind/optax/issues/412"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple, Callable",
    '''class Transform(NamedTuple):
    init: Callable
    update: Callable

def factored_rms_sgd(learning_rate, min_dim_size_to_factor, decay=0.8, eps=1e-30):
    def factored(p):
        return p.ndim == 2 and min(p.shape) >= min_dim_size_to_factor
    def init(params):
        return jax.tree.map(lambda p: (jnp.zeros(p.shape[0]), jnp.zeros(p.shape[1])) if factored(p)
                            else jnp.zeros_like(p), params)
    def update(grads, state):
        def one(g, v):
            if factored(g):
                row = decay * v[0] + (1 - decay) * jnp.mean(g**2, axis=1)
                col = decay * v[1] + (1 - decay) * jnp.mean(g**2, axis=0)
                v_hat = jnp.outer(row, col) / jnp.mean(row)
                return -learning_rate * g / jnp.sqrt(v_hat + eps), (row, col)
            v = decay * v + (1 - decay) * g**2
            return -learning_rate * g / jnp.sqrt(v + eps), v
        out = {k: one(grads[k], state[k]) for k in grads}
        return {k: o[0] for k, o in out.items()}, {k: o[1] for k, o in out.items()}
    return Transform(init, update)

def inject_hyperparams(make_opt, static_args=()):
    def build(**hps):
        static = {k: v for k, v in hps.items() if k in static_args}
        def init(params):
            numeric = {k: jnp.asarray(v) for k, v in hps.items() if k not in static_args}
            return {"hyperparams": numeric, "inner": make_opt(**numeric, **static).init(params)}
        def update(grads, state):
            updates, inner = make_opt(**state["hyperparams"], **static).update(grads, state["inner"])
            return updates, {"hyperparams": state["hyperparams"], "inner": inner}
        return Transform(init, update)
    return build

params = {"w": jnp.arange(12.0).reshape(4, 3) / 10.0, "b": jnp.array([0.5, -0.5, 1.0])}
grads = {"w": jnp.linspace(-1.0, 1.0, 12).reshape(4, 3), "b": jnp.array([0.2, -0.4, 0.1])}
opt = inject_hyperparams(factored_rms_sgd)(learning_rate=0.1, min_dim_size_to_factor=3)''',
    '''opt_state = jax.jit(opt.init)(params)
updates, opt_state = jax.jit(opt.update)(grads, opt_state)''',
)
FIXED = (
    '''import jax, jax.numpy as jnp
import numpy as np
from typing import NamedTuple, Callable''',
    '''class Transform(NamedTuple):
    init: Callable
    update: Callable

def factored_rms_sgd(learning_rate, min_dim_size_to_factor, decay=0.8, eps=1e-30):
    def factored(p):
        return p.ndim == 2 and min(p.shape) >= min_dim_size_to_factor
    def init(params):
        return jax.tree.map(lambda p: (jnp.zeros(p.shape[0]), jnp.zeros(p.shape[1])) if factored(p)
                            else jnp.zeros_like(p), params)
    def update(grads, state):
        def one(g, v):
            if factored(g):
                row = decay * v[0] + (1 - decay) * jnp.mean(g**2, axis=1)
                col = decay * v[1] + (1 - decay) * jnp.mean(g**2, axis=0)
                v_hat = jnp.outer(row, col) / jnp.mean(row)
                return -learning_rate * g / jnp.sqrt(v_hat + eps), (row, col)
            v = decay * v + (1 - decay) * g**2
            return -learning_rate * g / jnp.sqrt(v + eps), v
        out = {k: one(grads[k], state[k]) for k in grads}
        return {k: o[0] for k, o in out.items()}, {k: o[1] for k, o in out.items()}
    return Transform(init, update)

def inject_hyperparams(make_opt, static_args=()):
    def build(**hps):
        static = {k: v for k, v in hps.items() if k in static_args}
        def init(params):
            numeric = {k: jnp.asarray(v) for k, v in hps.items() if k not in static_args}
            return {"hyperparams": numeric, "inner": make_opt(**numeric, **static).init(params)}
        def update(grads, state):
            updates, inner = make_opt(**state["hyperparams"], **static).update(grads, state["inner"])
            return updates, {"hyperparams": state["hyperparams"], "inner": inner}
        return Transform(init, update)
    return build

params = {"w": jnp.arange(12.0).reshape(4, 3) / 10.0, "b": jnp.array([0.5, -0.5, 1.0])}
grads = {"w": jnp.linspace(-1.0, 1.0, 12).reshape(4, 3), "b": jnp.array([0.2, -0.4, 0.1])}
opt = inject_hyperparams(factored_rms_sgd, static_args=("min_dim_size_to_factor",))(learning_rate=0.1, min_dim_size_to_factor=3)''',
    '''opt_state = jax.jit(opt.init)(params)
updates, opt_state = jax.jit(opt.update)(grads, opt_state)''',
)
CHECK = ("(lambda g, gb: np.allclose(np.asarray(updates['w']), -0.1 * g / np.sqrt(np.outer(0.2 * (g**2).mean(1), 0.2 * ("
         "g**2).mean(0)) / (0.2 * (g**2).mean(1)).mean() + 1e-30), atol=1e-5) and np.allclose(np.asarray(updates['b']), "
         '-0.1 * gb / np.sqrt(0.2 * gb**2 + 1e-30), atol=1e-5))(np.linspace(-1.0, 1.0, 12).reshape(4, 3), np.array([0.2,'
         " -0.4, 0.1])) and float(opt_state['hyperparams']['learning_rate']) == np.float32(0.1)")
