"""Initialising the per-feature linear embedders of a small graph network whose edge features are integer edge-type codes."""

URL = "https://github.com/google-deepmind/jraph/issues/27"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def linear_init(key, x, out_size):
    """Stand-in for a lazily initialised Linear layer: its weights take the dtype of the features it first sees."""
    in_size = x.shape[-1]
    w = jax.random.truncated_normal(key, -2.0, 2.0, (in_size, out_size), dtype=x.dtype) / np.sqrt(in_size)
    return {"w": w, "b": jnp.zeros((out_size,), dtype=x.dtype)}

def linear_apply(p, x):
    return x @ p["w"] + p["b"]

def init_embedder(key, graph, latent=4):
    """Stand-in for GraphMapFeatures(embed_node_fn=Linear, embed_edge_fn=Linear)."""
    k_node, k_edge = jax.random.split(key)
    return {"node": linear_init(k_node, graph["nodes"], latent),
            "edge": linear_init(k_edge, graph["edges"], latent)}

def message_passing(params, graph):
    nodes = linear_apply(params["node"], graph["nodes"])
    edges = linear_apply(params["edge"], graph["edges"])
    msgs = edges + nodes[graph["senders"]]
    agg = jax.ops.segment_sum(msgs, graph["receivers"], num_segments=nodes.shape[0])
    return jax.nn.relu(nodes + agg)

graph = {
    "nodes": jnp.array([[0.0, 1.5, 6.0], [1.0, 0.2, 2.0], [2.0, 1.5, 2.0],
                        [3.0, 0.7, 3.0], [4.0, 0.0, 1.0]], dtype=jnp.float32),
    "edges": jnp.array([[1], [1], [2], [1], [2], [3]]),      # edge-type codes
    "senders": jnp.array([4, 3, 3, 0, 2, 1]),
    "receivers": jnp.array([2, 1, 0, 3, 4, 0]),
}''',
    '''params = init_embedder(jax.random.PRNGKey(42), graph)
out = message_passing(params, graph)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def linear_init(key, x, out_size):
    """Stand-in for a lazily initialised Linear layer: its weights take the dtype of the features it first sees."""
    in_size = x.shape[-1]
    w = jax.random.truncated_normal(key, -2.0, 2.0, (in_size, out_size), dtype=x.dtype) / np.sqrt(in_size)
    return {"w": w, "b": jnp.zeros((out_size,), dtype=x.dtype)}

def linear_apply(p, x):
    return x @ p["w"] + p["b"]

def init_embedder(key, graph, latent=4):
    """Stand-in for GraphMapFeatures(embed_node_fn=Linear, embed_edge_fn=Linear)."""
    k_node, k_edge = jax.random.split(key)
    return {"node": linear_init(k_node, graph["nodes"], latent),
            "edge": linear_init(k_edge, graph["edges"], latent)}

def message_passing(params, graph):
    nodes = linear_apply(params["node"], graph["nodes"])
    edges = linear_apply(params["edge"], graph["edges"])
    msgs = edges + nodes[graph["senders"]]
    agg = jax.ops.segment_sum(msgs, graph["receivers"], num_segments=nodes.shape[0])
    return jax.nn.relu(nodes + agg)

graph = {
    "nodes": jnp.array([[0.0, 1.5, 6.0], [1.0, 0.2, 2.0], [2.0, 1.5, 2.0],
                        [3.0, 0.7, 3.0], [4.0, 0.0, 1.0]], dtype=jnp.float32),
    "edges": jnp.array([[1], [1], [2], [1], [2], [3]], dtype=jnp.float32),      # edge-type codes
    "senders": jnp.array([4, 3, 3, 0, 2, 1]),
    "receivers": jnp.array([2, 1, 0, 3, 4, 0]),
}''',
    '''params = init_embedder(jax.random.PRNGKey(42), graph)
out = message_passing(params, graph)''',
)
CHECK = (
    "params['edge']['w'].dtype == jnp.float32 and out.shape == (5, 4) and "
    "(lambda P: (lambda n, e: (lambda agg: np.allclose(np.asarray(out), np.maximum(n + agg, 0.0), atol=1e-5))("
    "np.stack([(e + n[[4, 3, 3, 0, 2, 1]])[np.array([2, 1, 0, 3, 4, 0]) == r].sum(axis=0) for r in range(5)])))("
    "np.array([[0.0, 1.5, 6.0], [1.0, 0.2, 2.0], [2.0, 1.5, 2.0], [3.0, 0.7, 3.0], [4.0, 0.0, 1.0]]) @ P['node']['w'] + P['node']['b'], "
    "np.array([[1.0], [1.0], [2.0], [1.0], [2.0], [3.0]]) @ P['edge']['w'] + P['edge']['b']))("
    "jax.tree.map(lambda a: np.asarray(a, dtype=np.float64), params))"
)
