"""Running Holt's additive (level + trend) exponential smoothing over a monthly price series with lax.scan, producing the one-step-ahead forecasts."""

URL = "https://github.com/jax-ml/jax/issues/8605"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''prices = jnp.array([412.0, 431.5, 428.0, 445.2, 451.0, 463.8, 470.1, 468.4, 482.9, 490.3])

def holt_forecasts(params, ys):
    level0, trend0, alpha_logit, beta_logit = params
    a = jax.nn.sigmoid(alpha_logit)
    b = jax.nn.sigmoid(beta_logit)

    def step(state, y):
        level, trend = state
        forecast = level + trend
        err = y - forecast
        return (forecast + a * err, trend + b * err), forecast

    return lax.scan(step, level0, ys)

params = (prices[0], 5.0, -0.5, -2.0)''',
    "(last_level, last_trend), forecasts = holt_forecasts(params, prices)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''prices = jnp.array([412.0, 431.5, 428.0, 445.2, 451.0, 463.8, 470.1, 468.4, 482.9, 490.3])

def holt_forecasts(params, ys):
    level0, trend0, alpha_logit, beta_logit = params
    a = jax.nn.sigmoid(alpha_logit)
    b = jax.nn.sigmoid(beta_logit)

    def step(state, y):
        level, trend = state
        forecast = level + trend
        err = y - forecast
        return (forecast + a * err, trend + b * err), forecast

    return lax.scan(step, (level0, trend0), ys)

params = (prices[0], 5.0, -0.5, -2.0)''',
    "(last_level, last_trend), forecasts = holt_forecasts(params, prices)",
)
CHECK = "(lambda ys, a, b: (lambda out: np.allclose(np.asarray(forecasts), out[0], rtol=1e-5) and abs(float(last_level) - out[1]) < 1e-2 and abs(float(last_trend) - out[2]) < 1e-3)(__import__('functools').reduce(lambda acc, y: (acc[0] + [acc[1] + acc[2]], acc[1] + acc[2] + a * (y - acc[1] - acc[2]), acc[2] + b * (y - acc[1] - acc[2])), ys, ([], ys[0], 5.0))))(np.array([412.0, 431.5, 428.0, 445.2, 451.0, 463.8, 470.1, 468.4, 482.9, 490.3]), 1 / (1 + np.exp(0.5)), 1 / (1 + np.exp(2.0)))"
