"""Tallying a reward over a sequence of measured integer outcomes inside a jitted lax.scan, where a lax.cond adds 10 // outcome only for nonzero outcomes and the condition is written as a small predicate function of the state."""

URL = "https://github.com/eclipse-qrisp/Qrisp/issues/203"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''outcomes = jax.random.randint(jax.random.key(7), (8,), 0, 6)   # stand-in for measured register values

def pred_fun(state):
    a, b = state
    return a > 0

def true_fun(state):
    a, b = state
    return a, b + 10 // a

def false_fun(state):
    a, b = state
    return a, b

@jax.jit
def tally(outcomes):
    def step(total, a):
        _, total = lax.cond(pred_fun, true_fun, false_fun, (a, total))
        return total, total
    return lax.scan(step, jnp.int32(0), outcomes)''',
    "final, running = tally(outcomes)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''outcomes = jax.random.randint(jax.random.key(7), (8,), 0, 6)   # stand-in for measured register values

def pred_fun(state):
    a, b = state
    return a > 0

def true_fun(state):
    a, b = state
    return a, b + 10 // a

def false_fun(state):
    a, b = state
    return a, b

@jax.jit
def tally(outcomes):
    def step(total, a):
        _, total = lax.cond(pred_fun((a, total)), true_fun, false_fun, (a, total))
        return total, total
    return lax.scan(step, jnp.int32(0), outcomes)''',
    "final, running = tally(outcomes)",
)
CHECK = "(lambda o: int(final) == sum(10 // v for v in o if v > 0) and np.array_equal(np.asarray(running), np.cumsum([10 // v if v > 0 else 0 for v in o])))([int(v) for v in np.asarray(outcomes)])"
