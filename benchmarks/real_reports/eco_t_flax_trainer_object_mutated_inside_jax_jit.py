"""Training a small linear model with a trainer object whose jitted update step (a closure made in __init__) writes the new parameters and momentum back onto the object, nnx.Optimizer-style, then evaluating the loss after a few steps."""

URL = "https://github.com/google/flax/issues/4695"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''X = jnp.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0]])
y = jnp.array([1.0, 2.0, 3.0, 5.0])

def loss(params, xb, yb):
    pred = xb @ params["w"] + params["b"]
    return jnp.mean((pred - yb) ** 2)

class Trainer:
    def __init__(self, params, lr=0.05, beta=0.9):
        self.params = params
        self.momentum = jax.tree.map(jnp.zeros_like, params)

        @jax.jit
        def update(xb, yb):
            grads = jax.grad(loss)(self.params, xb, yb)
            self.momentum = jax.tree.map(lambda m, g: beta * m + g, self.momentum, grads)
            self.params = jax.tree.map(lambda p, m: p - lr * m, self.params, self.momentum)

        self.update = update

    def step(self, xb, yb):
        self.update(xb, yb)

trainer = Trainer({"w": jnp.zeros(2), "b": jnp.array(0.0)})''',
    '''for _ in range(3):
    trainer.step(X, y)
final_loss = loss(trainer.params, X, y)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''X = jnp.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0]])
y = jnp.array([1.0, 2.0, 3.0, 5.0])

def loss(params, xb, yb):
    pred = xb @ params["w"] + params["b"]
    return jnp.mean((pred - yb) ** 2)

class Trainer:
    def __init__(self, params, lr=0.05, beta=0.9):
        self.params = params
        self.momentum = jax.tree.map(jnp.zeros_like, params)

        @jax.jit
        def update(params, momentum, xb, yb):
            grads = jax.grad(loss)(params, xb, yb)
            momentum = jax.tree.map(lambda m, g: beta * m + g, momentum, grads)
            params = jax.tree.map(lambda p, m: p - lr * m, params, momentum)
            return params, momentum

        self.update = update

    def step(self, xb, yb):
        self.params, self.momentum = self.update(self.params, self.momentum, xb, yb)

trainer = Trainer({"w": jnp.zeros(2), "b": jnp.array(0.0)})''',
    '''for _ in range(3):
    trainer.step(X, y)
final_loss = loss(trainer.params, X, y)''',
)
CHECK = """(lambda Xn, yn: (lambda run: abs(float(final_loss) - run()) < 1e-4)(
    lambda: (lambda st: float(np.mean((Xn @ st[0] + st[1] - yn) ** 2)))(
        __import__('functools').reduce(
            lambda s, _: (lambda r: (lambda mw, mb: (s[0] - 0.05 * mw, s[1] - 0.05 * mb, mw, mb))(
                0.9 * s[2] + 2 * Xn.T @ r / len(yn), 0.9 * s[3] + 2 * r.mean()))(Xn @ s[0] + s[1] - yn),
            range(3), (np.zeros(2), 0.0, np.zeros(2), 0.0)))))(
    np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0]]), np.array([1.0, 2.0, 3.0, 5.0]))"""
