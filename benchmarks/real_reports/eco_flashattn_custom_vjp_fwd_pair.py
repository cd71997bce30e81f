"""Differentiating a hand-written attention with custom_vjp whose primal returns softmax statistics the forward rule does not."""

URL = "https://github.com/lucidrains/flash-attention-jax/issues/7"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """@jax.custom_vjp
def attention(q, k, v):
    s = q @ k.T
    m = s.max(axis=-1, keepdims=True)
    p = jnp.exp(s - m)
    l = p.sum(axis=-1, keepdims=True)
    return (p / l) @ v, l, m

def attention_fwd(q, k, v):
    out, l, m = attention(q, k, v)
    return out, (q, k, v, l, m)

def attention_bwd(res, g):
    q, k, v, l, m = res
    p = jnp.exp(q @ k.T - m) / l
    dv = p.T @ g
    dp = g @ v.T
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    return ds @ k, ds.T @ q, dv

attention.defvjp(attention_fwd, attention_bwd)

q = jnp.array([[0.1, 0.2], [0.3, -0.1]])
k = jnp.array([[0.5, -0.2], [0.1, 0.4]])
v = jnp.array([[1.0, 2.0], [-1.0, 0.5]])

def loss(q, k, v):
    out, _, _ = attention(q, k, v)
    return out.sum()""",
    "dq, dk, dv = jax.grad(loss, argnums=(0, 1, 2))(q, k, v)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def attention_with_stats(q, k, v):
    s = q @ k.T
    m = s.max(axis=-1, keepdims=True)
    p = jnp.exp(s - m)
    l = p.sum(axis=-1, keepdims=True)
    return (p / l) @ v, l, m

@jax.custom_vjp
def attention(q, k, v):
    out, _, _ = attention_with_stats(q, k, v)
    return out

def attention_fwd(q, k, v):
    out, l, m = attention_with_stats(q, k, v)
    return out, (q, k, v, l, m)

def attention_bwd(res, g):
    q, k, v, l, m = res
    p = jnp.exp(q @ k.T - m) / l
    dv = p.T @ g
    dp = g @ v.T
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    return ds @ k, ds.T @ q, dv

attention.defvjp(attention_fwd, attention_bwd)

q = jnp.array([[0.1, 0.2], [0.3, -0.1]])
k = jnp.array([[0.5, -0.2], [0.1, 0.4]])
v = jnp.array([[1.0, 2.0], [-1.0, 0.5]])

def loss(q, k, v):
    out = attention(q, k, v)
    return out.sum()""",
    "dq, dk, dv = jax.grad(loss, argnums=(0, 1, 2))(q, k, v)",
)
CHECK = ("bool(jnp.allclose(dq, jnp.array([[0.3494406, -0.5241609], [0.3471802, -0.5207704]]), atol=1e-5)) "
         "and bool(jnp.allclose(dk, jnp.array([[0.3477453, 0.0879252], [-0.3477453, -0.0879252]]), atol=1e-5)) "
         "and bool(jnp.allclose(dv, jnp.array([[1.0248896, 1.0248896], [0.9751104, 0.9751104]]), atol=1e-5))")
