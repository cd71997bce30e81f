"""Finishing a ChEES-style HMC warmup inside jax.jit: turning the averaged log step size and trajectory length into final settings, with a trajectory-length floor helper that is handed the step size through float()."""

URL = "https://github.com/blackjax-devs/blackjax/issues/1029"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def apply_length_floor(trajectory_length, lambda_max, min_steps, step_size):
    # trajectory must span at least `min_steps` leapfrog steps and a quarter period
    # of the stiffest direction (largest eigenvalue lambda_max of the precision)
    floor = jnp.maximum(min_steps * step_size, 0.5 * jnp.pi / jnp.sqrt(lambda_max))
    return jnp.maximum(trajectory_length, floor)

@jax.jit
def finalize_warmup(warmup_state):
    step_size = jnp.exp(warmup_state["log_step_size_avg"])
    length = apply_length_floor(
        warmup_state["trajectory_length_avg"],
        warmup_state["lambda_max"],
        4.0,
        float(step_size),
    )
    n_leapfrog = jnp.ceil(length / step_size).astype(jnp.int32)
    return step_size, length, n_leapfrog

warmup_state = {
    "log_step_size_avg": jnp.log(0.25),
    "trajectory_length_avg": jnp.array(0.4),
    "lambda_max": jnp.array(4.0),
}''',
    "step_size, length, n_leapfrog = finalize_warmup(warmup_state)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def apply_length_floor(trajectory_length, lambda_max, min_steps, step_size):
    # trajectory must span at least `min_steps` leapfrog steps and a quarter period
    # of the stiffest direction (largest eigenvalue lambda_max of the precision)
    floor = jnp.maximum(min_steps * step_size, 0.5 * jnp.pi / jnp.sqrt(lambda_max))
    return jnp.maximum(trajectory_length, floor)

@jax.jit
def finalize_warmup(warmup_state):
    step_size = jnp.exp(warmup_state["log_step_size_avg"])
    length = apply_length_floor(
        warmup_state["trajectory_length_avg"],
        warmup_state["lambda_max"],
        4.0,
        step_size,
    )
    n_leapfrog = jnp.ceil(length / step_size).astype(jnp.int32)
    return step_size, length, n_leapfrog

warmup_state = {
    "log_step_size_avg": jnp.log(0.25),
    "trajectory_length_avg": jnp.array(0.4),
    "lambda_max": jnp.array(4.0),
}''',
    "step_size, length, n_leapfrog = finalize_warmup(warmup_state)",
)
CHECK = "abs(float(step_size) - 0.25) < 1e-6 and abs(float(length) - 1.0) < 1e-6 and int(n_leapfrog) == 4"
