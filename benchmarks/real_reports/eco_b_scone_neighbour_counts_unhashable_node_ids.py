"""Counting how many neighbours the final node of each sampled walk on a small graph has, by looking node ids taken from a JAX array up in a Python adjacency dict."""

URL = "https://github.com/nglaze00/SCoNe_GCN/issues/3"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''adjacency = {0: [1, 2], 1: [0, 2, 3], 2: [0, 1], 3: [1, 4, 5, 6],
             4: [3], 5: [3, 6], 6: [3, 5]}
walks = jnp.array([[0, 1, 3], [2, 1, 0], [6, 5, 3], [1, 3, 4], [0, 2, 1]])
end_nodes = walks[:, -1]''',
    '''degree = {}
for node in end_nodes:
    degree[node] = len(adjacency[node])
end_degrees = [degree[node] for node in end_nodes]''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''degree = {}
for node in np.asarray(end_nodes).tolist():
    degree[node] = len(adjacency[node])
end_degrees = [degree[node] for node in np.asarray(end_nodes).tolist()]''',
)
CHECK = "end_degrees == [4, 2, 4, 1, 3] and degree == {3: 4, 0: 2, 4: 1, 1: 3}"
