"""Predicting a Gaussian-process mean at new inputs with a jitted helper that shifts the inputs using numpy.append."""

URL = "https://github.com/dfm/tinygp/issues/85"
KIND = "fix"
CELLS = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """def shifted(x):
    return np.append(x[0], x[:-1])

@jax.jit
def predict_mean(X_test, alpha):
    Xs = shifted(X_test)
    return jnp.exp(-jnp.abs(X_test - Xs)) * alpha.sum()

X_test = jnp.array([0.0, 1.0, 3.0])
alpha = jnp.array([0.5, 0.5])""",
    "mean = predict_mean(X_test, alpha)",
)
FIXED = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """def shifted(x):
    return jnp.append(x[0], x[:-1])

@jax.jit
def predict_mean(X_test, alpha):
    Xs = shifted(X_test)
    return jnp.exp(-jnp.abs(X_test - Xs)) * alpha.sum()

X_test = jnp.array([0.0, 1.0, 3.0])
alpha = jnp.array([0.5, 0.5])""",
    "mean = predict_mean(X_test, alpha)",
)
CHECK = ("abs(float(mean[0]) - 1.0) < 1e-6 and abs(float(mean[1]) - 0.36787944) < 1e-6 "
         "and abs(float(mean[2]) - 0.13533528) < 1e-6")
