"""Evaluating a small image classifier with a jitted eval step on a test batch taken straight from the dataset loader, which also carries each example's string id."""

URL = "https://github.com/google/flax/issues/1492"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def apply_model(params, images):
    x = images.reshape(images.shape[0], -1)
    return x @ params["w"] + params["b"]

@jax.jit
def eval_step(params, batch):
    logits = apply_model(params, batch["image"])
    one_hot = jax.nn.one_hot(batch["label"], 3)
    loss = -jnp.mean(jnp.sum(one_hot * jax.nn.log_softmax(logits), axis=-1))
    accuracy = jnp.mean(jnp.argmax(logits, -1) == batch["label"])
    return {"loss": loss, "accuracy": accuracy}

params = {
    "w": jnp.array([[0.4, -0.2, 0.1], [0.3, 0.5, -0.6], [-0.7, 0.2, 0.4], [0.1, -0.3, 0.8]]),
    "b": jnp.array([0.05, -0.1, 0.0]),
}

# one test batch, as yielded by the dataset pipeline
test_batch = {
    "id": np.array([b"test_00017", b"test_00342", b"test_01288", b"test_00905"]),
    "image": np.array([[[0.9, 0.1], [0.0, 0.2]],
                       [[0.1, 0.8], [0.3, 0.0]],
                       [[0.0, 0.2], [0.9, 0.7]],
                       [[0.2, 0.1], [0.4, 0.9]]], dtype=np.float32),
    "label": np.array([0, 1, 2, 1]),
}''',
    "metrics = eval_step(params, test_batch)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    CELLS[1],
    'metrics = eval_step(params, {k: v for k, v in test_batch.items() if k != "id"})',
)
CHECK = (
    "(lambda logits, y: abs(float(metrics['loss']) - float(np.mean(np.log(np.exp(logits).sum(-1)) - logits[np.arange(4), y]))) < 1e-5 "
    "and abs(float(metrics['accuracy']) - float(np.mean(logits.argmax(-1) == y))) < 1e-6)("
    "np.array([[0.9, 0.1, 0.0, 0.2], [0.1, 0.8, 0.3, 0.0], [0.0, 0.2, 0.9, 0.7], [0.2, 0.1, 0.4, 0.9]]) "
    "@ np.array([[0.4, -0.2, 0.1], [0.3, 0.5, -0.6], [-0.7, 0.2, 0.4], [0.1, -0.3, 0.8]]) + np.array([0.05, -0.1, 0.0]), "
    "np.array([0, 1, 2, 1]))"
)
