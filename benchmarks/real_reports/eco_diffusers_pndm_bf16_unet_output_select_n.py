"""Taking one linear-multistep (PLMS/PNDM-style) scheduler step whose noise estimate blends the denoiser's current output with the stored history chosen by lax.select_n on the step counter, with the denoiser run in bfloat16 and the scheduler history kept in float32."""

URL = "https://github.com/huggingface/diffusers/issues/3039"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''hist_np = np.array([[[0.10, -0.20, 0.30], [0.05, 0.00, -0.15]],
                    [[0.20, -0.10, 0.25], [0.10, 0.05, -0.10]],
                    [[0.30, 0.00, 0.20], [0.15, 0.10, -0.05]],
                    [[0.40, 0.10, 0.15], [0.20, 0.15, 0.00]]], dtype=np.float32)
sched_state = {"history": jnp.asarray(hist_np), "step": jnp.array(1)}   # float32 scheduler buffers

def toy_denoiser(latents):
    # stand-in for a UNet whose parameters were loaded in bfloat16
    w = jnp.asarray(0.5, jnp.bfloat16)
    return w * latents.astype(jnp.bfloat16)

latents = jnp.array([[0.8, -0.4, 0.2], [0.6, 0.0, -0.6]])

@jax.jit
def plms_noise_estimate(state, model_out):
    h = state["history"]
    order = jnp.clip(state["step"], 0, 3)
    eps = lax.select_n(
        order,
        model_out,                                               # first step
        (model_out + h[-1]) / 2,                                 # second step
        (3 * h[-1] - h[-2]) / 2,                                 # third step
        (23 * h[-1] - 16 * h[-2] + 5 * h[-3]) / 12,              # later steps
    )
    new_history = jnp.concatenate([h[1:], model_out[None]], axis=0)
    return eps, {"history": new_history, "step": state["step"] + 1}''',
    "eps_hat, sched_state = plms_noise_estimate(sched_state, toy_denoiser(latents))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''hist_np = np.array([[[0.10, -0.20, 0.30], [0.05, 0.00, -0.15]],
                    [[0.20, -0.10, 0.25], [0.10, 0.05, -0.10]],
                    [[0.30, 0.00, 0.20], [0.15, 0.10, -0.05]],
                    [[0.40, 0.10, 0.15], [0.20, 0.15, 0.00]]], dtype=np.float32)
sched_state = {"history": jnp.asarray(hist_np), "step": jnp.array(1)}   # float32 scheduler buffers

def toy_denoiser(latents):
    # stand-in for a UNet whose parameters were loaded in bfloat16
    w = jnp.asarray(0.5, jnp.bfloat16)
    return w * latents.astype(jnp.bfloat16)

latents = jnp.array([[0.8, -0.4, 0.2], [0.6, 0.0, -0.6]])

@jax.jit
def plms_noise_estimate(state, model_out):
    h = state["history"]
    model_out = model_out.astype(h.dtype)     # scheduler math stays in float32
    order = jnp.clip(state["step"], 0, 3)
    eps = lax.select_n(
        order,
        model_out,                                               # first step
        (model_out + h[-1]) / 2,                                 # second step
        (3 * h[-1] - h[-2]) / 2,                                 # third step
        (23 * h[-1] - 16 * h[-2] + 5 * h[-3]) / 12,              # later steps
    )
    new_history = jnp.concatenate([h[1:], model_out[None]], axis=0)
    return eps, {"history": new_history, "step": state["step"] + 1}''',
    "eps_hat, sched_state = plms_noise_estimate(sched_state, toy_denoiser(latents))",
)
CHECK = "eps_hat.dtype == jnp.float32 and np.allclose(np.asarray(eps_hat), (0.5 * np.array([[0.8, -0.4, 0.2], [0.6, 0.0, -0.6]]) + hist_np[-1]) / 2, atol=3e-3) and int(sched_state['step']) == 2 and np.allclose(np.asarray(sched_state['history'][-1]), 0.5 * np.array([[0.8, -0.4, 0.2], [0.6, 0.0, -0.6]]), atol=4e-3) and np.allclose(np.asarray(sched_state['history'][0]), hist_np[1])"
