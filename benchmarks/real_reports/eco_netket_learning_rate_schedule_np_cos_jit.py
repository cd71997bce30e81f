"""Minimising a variational energy with a small VMC-style driver whose SGD optimiser takes a cosine learning-rate schedule with warm restarts."""

URL = "https://github.com/netket/netket/issues/908"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom math import pi",
    '''# Gaussian trial state psi(x) ~ exp(-a x^2) for the harmonic oscillator (hbar = m = omega = 1):
# <H>(a) = a/2 + 1/(8a), minimum 0.5 at a = 0.5
def variational_energy(params):
    a = params["a"]
    return a / 2 + 1 / (8 * a)

class Sgd:
    """Plain gradient descent; learning_rate is a number or a function of the step count."""
    def __init__(self, learning_rate):
        self.learning_rate = learning_rate
    def update(self, step, grads, params):
        lr = self.learning_rate(step) if callable(self.learning_rate) else self.learning_rate
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)

class VMC:
    def __init__(self, energy_fn, optimizer, params):
        self.energy_fn, self.optimizer, self.params = energy_fn, optimizer, params
        self.energies = []
        self._step = jax.jit(self._update)
    def _update(self, step, params):
        energy, grads = jax.value_and_grad(self.energy_fn)(params)
        return self.optimizer.update(step, grads, params), energy
    def run(self, n_iter):
        for i in range(n_iter):
            self.params, energy = self._step(jnp.asarray(i), self.params)
            self.energies.append(float(energy))

ETA, RESTART = 0.2, 25
def schedule(n):
    # cosine annealing that restarts every RESTART steps
    return (1 + np.cos(pi * (n % RESTART) / RESTART)) * ETA

gs = VMC(variational_energy, Sgd(schedule), {"a": jnp.array(1.5)})''',
    "gs.run(n_iter=100)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom math import pi",
    '''# Gaussian trial state psi(x) ~ exp(-a x^2) for the harmonic oscillator (hbar = m = omega = 1):
# <H>(a) = a/2 + 1/(8a), minimum 0.5 at a = 0.5
def variational_energy(params):
    a = params["a"]
    return a / 2 + 1 / (8 * a)

class Sgd:
    """Plain gradient descent; learning_rate is a number or a function of the step count."""
    def __init__(self, learning_rate):
        self.learning_rate = learning_rate
    def update(self, step, grads, params):
        lr = self.learning_rate(step) if callable(self.learning_rate) else self.learning_rate
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)

class VMC:
    def __init__(self, energy_fn, optimizer, params):
        self.energy_fn, self.optimizer, self.params = energy_fn, optimizer, params
        self.energies = []
        self._step = jax.jit(self._update)
    def _update(self, step, params):
        energy, grads = jax.value_and_grad(self.energy_fn)(params)
        return self.optimizer.update(step, grads, params), energy
    def run(self, n_iter):
        for i in range(n_iter):
            self.params, energy = self._step(jnp.asarray(i), self.params)
            self.energies.append(float(energy))

ETA, RESTART = 0.2, 25
def schedule(n):
    # cosine annealing that restarts every RESTART steps
    return (1 + jnp.cos(pi * (n % RESTART) / RESTART)) * ETA

gs = VMC(variational_energy, Sgd(schedule), {"a": jnp.array(1.5)})''',
    "gs.run(n_iter=100)",
)
CHECK = ("(lambda a_ref: len(gs.energies) == 100 "
         "and abs(float(gs.params['a']) - a_ref) < 1e-4 "
         "and abs(gs.energies[-1] - 0.5) < 1e-4)"
         "(__import__('functools').reduce(lambda a, i: a - (1 + np.cos(np.pi * (i % 25) / 25)) * 0.2 * (0.5 - 1 / (8 * a * a)), range(100), 1.5))")
