"""Matching one query face descriptor against a small gallery (several stored descriptors per person) inside a jitted function, keeping each person's closest cosine distance by indexing a Python list of distances with jnp.argmin."""

URL = "https://github.com/jax-ml/jax/issues/5839"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''gallery = {
    "ana":  jnp.array([[1.0, 0.0, 0.0], [0.8, 0.6, 0.0]]),
    "ben":  jnp.array([[0.0, 1.0, 0.0], [0.0, 0.6, 0.8], [0.0, 0.0, 1.0]]),
}

def cosine_distance(a, b):
    return 1.0 - jnp.dot(a, b) / (jnp.linalg.norm(a) * jnp.linalg.norm(b))

@jax.jit
def best_distance_per_person(query):
    best = []
    for name, stored in gallery.items():
        dist = []
        for desc in stored:
            dist.append(cosine_distance(query, desc))
        best.append(dist[jnp.argmin(jnp.asarray(dist))])
    return jnp.stack(best)

query = jnp.array([0.6, 0.8, 0.0])''',
    "scores = best_distance_per_person(query)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''gallery = {
    "ana":  jnp.array([[1.0, 0.0, 0.0], [0.8, 0.6, 0.0]]),
    "ben":  jnp.array([[0.0, 1.0, 0.0], [0.0, 0.6, 0.8], [0.0, 0.0, 1.0]]),
}

def cosine_distance(a, b):
    return 1.0 - jnp.dot(a, b) / (jnp.linalg.norm(a) * jnp.linalg.norm(b))

@jax.jit
def best_distance_per_person(query):
    best = []
    for name, stored in gallery.items():
        dist = []
        for desc in stored:
            dist.append(cosine_distance(query, desc))
        dist = jnp.asarray(dist)
        best.append(dist[jnp.argmin(dist)])
    return jnp.stack(best)

query = jnp.array([0.6, 0.8, 0.0])''',
    "scores = best_distance_per_person(query)",
)
CHECK = "np.allclose(np.asarray(scores), [1 - max(0.6, 0.48 + 0.48), 1 - max(0.8, 0.48, 0.0)], atol=1e-5)"
