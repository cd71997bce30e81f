"""Calling a plain jax.jit-ed predict function on a model pytree that also stores its activation function."""

URL = "https://github.com/patrick-kidger/equinox/issues/1127"
KIND = "fix"
CELLS = (
    "import functools\nimport jax, jax.numpy as jnp",
    """model = {
    "w1": jnp.array([[1.0, -1.0], [0.5, 2.0]]),
    "b1": jnp.array([0.0, 0.5]),
    "w2": jnp.array([[1.0], [1.0]]),
    "activation": jax.nn.relu,
}

def forward(model, x):
    h = model["activation"](x @ model["w1"] + model["b1"])
    return h @ model["w2"]""",
    """@jax.jit
def predict(model, x):
    return forward(model, x)

y = predict(model, jnp.array([1.0, 2.0]))""",
)
FIXED = (
    "import functools\nimport jax, jax.numpy as jnp",
    """model = {
    "w1": jnp.array([[1.0, -1.0], [0.5, 2.0]]),
    "b1": jnp.array([0.0, 0.5]),
    "w2": jnp.array([[1.0], [1.0]]),
    "activation": jax.nn.relu,
}

def forward(model, x):
    h = model["activation"](x @ model["w1"] + model["b1"])
    return h @ model["w2"]""",
    """params = {k: v for k, v in model.items() if k != "activation"}

@functools.partial(jax.jit, static_argnames="activation")
def predict(params, x, activation):
    return forward(dict(params, activation=activation), x)

y = predict(params, jnp.array([1.0, 2.0]), activation=model["activation"])""",
)
CHECK = "y.shape == (1,) and abs(float(y[0]) - 5.5) < 1e-6"
