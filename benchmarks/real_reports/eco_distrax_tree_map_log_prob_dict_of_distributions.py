"""Scoring a dict of named samples under a matching dict of pytree-registered distribution objects with one jax.tree.map call."""

URL = "https://github.com/google-deepmind/distrax/issues/147"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom dataclasses import dataclass",
    '''@jax.tree_util.register_dataclass
@dataclass
class Normal:
    loc: jax.Array
    scale: jax.Array
    def log_prob(self, x):
        z = (x - self.loc) / self.scale
        return -0.5 * z**2 - jnp.log(self.scale) - 0.5 * jnp.log(2 * jnp.pi)

@jax.tree_util.register_dataclass
@dataclass
class Gamma:
    concentration: jax.Array
    rate: jax.Array
    def log_prob(self, x):
        a, b = self.concentration, self.rate
        return a * jnp.log(b) + (a - 1) * jnp.log(x) - b * x - jax.scipy.special.gammaln(a)

priors = {"offset": Normal(jnp.array(1.5), jnp.array(2.0)),
          "precision": Gamma(jnp.array(2.5), jnp.array(0.5))}
draws = {"offset": jnp.array(0.7), "precision": jnp.array(4.0)}''',
    "log_probs = jax.tree.map(lambda d, v: d.log_prob(v), priors, draws)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom dataclasses import dataclass",
    '''@jax.tree_util.register_dataclass
@dataclass
class Normal:
    loc: jax.Array
    scale: jax.Array
    def log_prob(self, x):
        z = (x - self.loc) / self.scale
        return -0.5 * z**2 - jnp.log(self.scale) - 0.5 * jnp.log(2 * jnp.pi)

@jax.tree_util.register_dataclass
@dataclass
class Gamma:
    concentration: jax.Array
    rate: jax.Array
    def log_prob(self, x):
        a, b = self.concentration, self.rate
        return a * jnp.log(b) + (a - 1) * jnp.log(x) - b * x - jax.scipy.special.gammaln(a)

priors = {"offset": Normal(jnp.array(1.5), jnp.array(2.0)),
          "precision": Gamma(jnp.array(2.5), jnp.array(0.5))}
draws = {"offset": jnp.array(0.7), "precision": jnp.array(4.0)}''',
    "log_probs = jax.tree.map(lambda d, v: d.log_prob(v), priors, draws,\n                         is_leaf=lambda node: isinstance(node, (Normal, Gamma)))",
)
CHECK = ("set(log_probs) == {'offset', 'precision'}"
         " and abs(float(log_probs['offset']) - (-0.5 * ((0.7 - 1.5) / 2.0) ** 2 - np.log(2.0) - 0.5 * np.log(2 * np.pi))) < 1e-5"
         " and abs(float(log_probs['precision']) - (2.5 * np.log(0.5) + 1.5 * np.log(4.0) - 0.5 * 4.0 - np.log(1.329340388179137))) < 1e-5")
