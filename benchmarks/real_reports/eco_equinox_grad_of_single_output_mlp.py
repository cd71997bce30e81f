"""Taking the input gradient of a small MLP whose output layer has a single unit (out_size=1)."""

URL = "https://github.com/patrick-kidger/equinox/issues/213"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''class TinyMLP:
    """Stand-in for an MLP with in_size=2, one hidden tanh layer of width 4, out_size=1."""
    def __init__(self):
        self.w1 = jnp.array([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1], [0.4, 0.4]])
        self.b1 = jnp.array([0.1, -0.2, 0.05, 0.0])
        self.w2 = jnp.array([[0.7, -0.5, 0.3, 0.9]])
        self.b2 = jnp.array([0.25])

    def __call__(self, x):
        h = jnp.tanh(self.w1 @ x + self.b1)
        return self.w2 @ h + self.b2

net = TinyMLP()
point = jnp.array([0.4, -1.1])
print(net(point))''',
    "slope = jax.grad(net)(point)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''class TinyMLP:
    """Stand-in for an MLP with in_size=2, one hidden tanh layer of width 4, out_size=1."""
    def __init__(self):
        self.w1 = jnp.array([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1], [0.4, 0.4]])
        self.b1 = jnp.array([0.1, -0.2, 0.05, 0.0])
        self.w2 = jnp.array([[0.7, -0.5, 0.3, 0.9]])
        self.b2 = jnp.array([0.25])

    def __call__(self, x):
        h = jnp.tanh(self.w1 @ x + self.b1)
        return self.w2 @ h + self.b2

net = TinyMLP()
point = jnp.array([0.4, -1.1])
print(net(point))''',
    "slope = jax.grad(lambda x: net(x).reshape(()))(point)",
)
CHECK = ("slope.shape == (2,) and np.allclose(np.asarray(slope), "
         "np.array([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1], [0.4, 0.4]]).T @ "
         "((1 - np.tanh(np.array([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.1], [0.4, 0.4]]) @ np.array([0.4, -1.1]) "
         "+ np.array([0.1, -0.2, 0.05, 0.0])) ** 2) * np.array([0.7, -0.5, 0.3, 0.9])), atol=1e-5)")
