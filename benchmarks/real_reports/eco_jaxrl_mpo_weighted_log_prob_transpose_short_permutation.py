"""Computing the weighted maximum-likelihood policy loss of an MPO agent, where E-step weights over sampled actions multiply the actor's log-probabilities of those actions."""

URL = "https://github.com/henry-prior/jax-rl/issues/10"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''batch, n_actions = 4, 5
q_values = jnp.arange(batch * n_actions, dtype=jnp.float32).reshape(batch, n_actions, 1) % 7 / 3.0
actor_log_prob = -jnp.linspace(0.5, 2.4, batch * n_actions).reshape(batch, n_actions, 1)
temperature = 0.8

def mpo_policy_loss(q_values, actor_log_prob, temperature):
    # E-step: non-parametric action weights for every state
    weights = jax.nn.softmax(q_values / temperature, axis=1)
    weights = jax.lax.stop_gradient(weights)
    # M-step: weighted maximum likelihood
    return -jnp.mean(jnp.sum(weights * actor_log_prob.transpose((0, 1)), axis=1))''',
    "loss = mpo_policy_loss(q_values, actor_log_prob, temperature)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''batch, n_actions = 4, 5
q_values = jnp.arange(batch * n_actions, dtype=jnp.float32).reshape(batch, n_actions, 1) % 7 / 3.0
actor_log_prob = -jnp.linspace(0.5, 2.4, batch * n_actions).reshape(batch, n_actions, 1)
temperature = 0.8

def mpo_policy_loss(q_values, actor_log_prob, temperature):
    # E-step: non-parametric action weights for every state
    weights = jax.nn.softmax(q_values / temperature, axis=1)
    weights = jax.lax.stop_gradient(weights)
    # M-step: weighted maximum likelihood
    return -jnp.mean(jnp.sum(weights * actor_log_prob, axis=1))''',
    "loss = mpo_policy_loss(q_values, actor_log_prob, temperature)",
)
CHECK = ("(lambda q, lp: abs(float(loss) - float(-np.mean(np.sum("
         "np.exp(q / 0.8) / np.exp(q / 0.8).sum(axis=1, keepdims=True) * lp, axis=1)))) < 1e-5)"
         "(np.arange(20, dtype=np.float64).reshape(4, 5, 1) % 7 / 3.0, -np.linspace(0.5, 2.4, 20).reshape(4, 5, 1))")
