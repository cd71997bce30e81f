"""Every tracer entry explains the transformation that made the tracer: the same mistake under
``jax.vmap`` (a batch of values, one per element) and ``jax.grad`` (tracers that record the
derivative) reads differently from one under ``jax.jit`` (a value not known yet)."""

from __future__ import annotations

import pytest
from conftest import Notebook

SETUP = ("import jax, jax.numpy as jnp, numpy as np\n"
         "xs = jnp.arange(6.0).reshape(3, 2) - 2.0\n"
         "ns = jnp.array([1, 2, 1])")

# (code, cell, transform): the cell fails under that transformation
CASES = [
    ("JNH301", "def mag(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
               "out = jax.vmap(mag)(xs)", "vmap"),
    ("JNH302", "def pick(x, n):\n    return x * [1.0, 2.0, 3.0][n]\n"
               "out = jax.vmap(pick)(xs, ns)", "vmap"),
    ("JNH303", "def first(x, n):\n    return x[0] * int(n)\nout = jax.vmap(first)(xs, ns)",
     "vmap"),
    ("JNH304", "def pos(x):\n    return x[x > 0].sum()\nout = jax.vmap(pos)(xs)", "vmap"),
    ("JNH305", "def f(x):\n    return np.sin(x)\nout = jax.vmap(f)(xs)", "vmap"),
    ("JNH305", "def g(x):\n    return np.sin(x).sum()\nout = jax.grad(g)(xs)", "grad"),
    ("JNH308", "def head(x, n):\n    return x[:n].sum()\nout = jax.vmap(head)(xs, ns)", "vmap"),
    ("JNH306", "saved = []\ndef keep(x):\n    saved.append(x)\n    return x\n"
               "out = jax.vmap(keep)(xs)\njnp.sin(saved[0])", "vmap"),
    ("JNH306", "kept = []\ndef loss(x):\n    kept.append(x)\n    return (x ** 2).sum()\n"
               "g = jax.grad(loss)(xs)\njnp.sin(kept[0])", "grad"),
]


@pytest.mark.parametrize(("code", "cell", "transform"), CASES,
                         ids=[f"{code}-{transform}" for code, _, transform in CASES])
def test_the_why_is_the_transformations(loaded: Notebook, code: str, cell: str,
                                        transform: str) -> None:
    loaded.ok(SETUP)
    failed = loaded.run(cell)
    assert failed.error is not None
    (bundle,) = failed.diagnoses
    assert bundle["code"] == code
    assert bundle["why"].startswith(f"jax.{transform} ") or f"Under jax.{transform}" in \
        bundle["why"], bundle["why"]
    assert "jax.jit" not in bundle["why"], bundle["why"]
    if transform == "vmap":
        assert "vmap" in bundle["explanation"], bundle["explanation"]


def test_under_jit_the_why_stays_jits(loaded: Notebook) -> None:
    loaded.ok(SETUP)
    failed = loaded.run("@jax.jit\ndef f(x):\n    return np.sin(x)\nout = f(xs)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH305"
    assert "jax.jit" in bundle["why"]
