"""Running several Langevin sampling chains at once by vmapping a blackjax-style inference loop that reports progress from inside its scan every few steps."""

URL = "https://github.com/blackjax-devs/blackjax/issues/927"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.experimental import io_callback",
    '''def logdensity(x):
    return -0.5 * jnp.sum(x ** 2)

def ula_step(x, noise, step_size=0.1):
    return x + step_size * jax.grad(logdensity)(x) + jnp.sqrt(2 * step_size) * noise

def report(i):
    print(f"sampling step {int(i)}")

def run_inference_loop(x0, noise, progress_bar=True, print_every=25):
    def body(x, inp):
        i, n = inp
        if progress_bar:
            jax.lax.cond(i % print_every == 0, lambda: io_callback(report, None, i), lambda: None)
        x = ula_step(x, n)
        return x, x
    return jax.lax.scan(body, x0, (jnp.arange(noise.shape[0]), noise))

n_chains, n_steps = 4, 100
noise = jax.random.normal(jax.random.key(0), (n_chains, n_steps))
x0 = jnp.linspace(-2.0, 2.0, n_chains)''',
    "final, trace = jax.vmap(run_inference_loop)(x0, noise)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.experimental import io_callback",
    '''def logdensity(x):
    return -0.5 * jnp.sum(x ** 2)

def ula_step(x, noise, step_size=0.1):
    return x + step_size * jax.grad(logdensity)(x) + jnp.sqrt(2 * step_size) * noise

def report(i):
    print(f"sampling step {int(i)}")

def run_inference_loop(x0, noise, progress_bar=True, print_every=25):
    def body(x, inp):
        i, n = inp
        if progress_bar:
            jax.lax.cond(i % print_every == 0, lambda: io_callback(report, None, i), lambda: None)
        x = ula_step(x, n)
        return x, x
    return jax.lax.scan(body, x0, (jnp.arange(noise.shape[0]), noise))

n_chains, n_steps = 4, 100
noise = jax.random.normal(jax.random.key(0), (n_chains, n_steps))
x0 = jnp.linspace(-2.0, 2.0, n_chains)''',
    "final, trace = jax.vmap(lambda x, n: run_inference_loop(x, n, progress_bar=False))(x0, noise)",
)
CHECK = ("trace.shape == (4, 100)"
         " and np.allclose(np.asarray(final), 0.9 ** 100 * np.linspace(-2.0, 2.0, 4)"
         " + (np.asarray(noise) * np.sqrt(0.2) * 0.9 ** (99 - np.arange(100))).sum(axis=1), atol=1e-4)"
         " and np.allclose(np.asarray(trace[:, 0]), 0.9 * np.linspace(-2.0, 2.0, 4) + np.sqrt(0.2) * np.asarray(noise[:, 0]), atol=1e-5)")
