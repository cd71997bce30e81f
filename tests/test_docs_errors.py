"""The errors JAX's own documentation teaches (its cells tagged ``raises-exception``), each
rebuilt in this project's own words, get the right card: in a real IPython shell with
jax_nbhelp loaded, on every supported release (``tests/test_older_jax.py`` runs this file
too).

Each lesson names the docs page that teaches it and the code its card must carry. The
docs themselves are measured by ``benchmarks/jax_docs_errors.py`` (run on a jax checkout's
``docs/``); this test keeps the lessons from regressing without one.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from conftest import Notebook

from jax_nbhelp.catalog._example import unmet


@dataclass(frozen=True)
class Lesson:
    taught_in: str  # the docs page(s)
    setup: tuple[str, ...]
    failing: str
    code: str
    requires: tuple[str, ...] = ()


_JNP = "import jax, jax.numpy as jnp\nfrom jax import lax\nimport numpy as np"
_MESHES = ("from jax.sharding import NamedSharding, PartitionSpec as P, AxisType\n"
           "left = jax.make_mesh((1,), ('l',), axis_types=(AxisType.Explicit,))\n"
           "right = jax.make_mesh((1,), ('r',), axis_types=(AxisType.Explicit,))")
_SHARDED = ("from jax.sharding import PartitionSpec as P, AxisType\n"
            "mesh = jax.make_mesh((1,), ('d',), axis_types=(AxisType.Explicit,))\n"
            "with jax.set_mesh(mesh):\n"
            "    u = jax.device_put(jnp.ones((2, 2)), P(None, 'd'))\n"
            "    v = jax.device_put(jnp.ones((2, 2)), P('d', None))")

LESSONS = {
    "branch-on-traced": Lesson(
        "control-flow, 201/control-flow, jit-compilation, 201/jit, tracing",
        (_JNP, "@jax.jit\ndef clipped(t):\n    if t < 1:\n        return t\n    return 1.0"),
        "clipped(0.5)", "JNH301"),
    "and-on-traced": Lesson(
        "control-flow, 201/control-flow",
        (_JNP, "@jax.jit\ndef inside(t):\n    return (t > 0) and (t < 1)"),
        "inside(0.5)", "JNH301"),
    "while-on-traced": Lesson(
        "jit-compilation, 201/jit",
        (_JNP, "def count_up(x, n):\n    k = 0\n    while k < n:\n        k += 1\n"
               "    return x + k"),
        "jax.jit(count_up)(1, 4)", "JNH301"),
    "if-under-vmap": Lesson(
        "101/transformations",
        (_JNP, "def magnitude(t):\n    return t if t > 0 else -t"),
        "jax.vmap(magnitude)(jnp.arange(-1.0, 2.0))", "JNH301"),
    "shape-from-traced": Lesson(
        "control-flow, 201/control-flow, tracing",
        (_JNP, "@jax.jit\ndef flat(x):\n    return x.reshape(jnp.array(x.shape).prod())"),
        "flat(jnp.ones((2, 2)))", "JNH303"),
    "mask-under-jit": Lesson(
        "Sharp bits, Thinking in JAX",
        (_JNP, "@jax.jit\ndef positives(x):\n    return x[x > 0]"),
        "positives(jnp.arange(-2.0, 2.0))", "JNH304"),
    "truth-value-eager": Lesson(
        "control-flow, 201/control-flow",
        (_JNP, "def all_small(x):\n    return 'yes' if x < 3 else 'no'"),
        "all_small(jnp.arange(4))", "JNH504"),
    "item-assignment": Lesson(
        "Sharp bits, Thinking in JAX, 101/arrays",
        (_JNP, "board = jnp.zeros((2, 2))"), "board[0, :] = 1.0", "JNH501"),
    "list-to-reduction": Lesson(
        "Sharp bits, 101/arrays", (_JNP,), "jnp.prod([2, 3])", "JNH502"),
    "lax-promotes-nothing": Lesson(
        "key-concepts, 101/arrays", (_JNP,), "lax.mul(2, 0.5)", "JNH511"),
    "string-leaf-to-jit": Lesson(
        "custom_pytrees",
        (_JNP, "from typing import NamedTuple\n\nclass Tagged(NamedTuple):\n    tag: str\n"
               "    value: float\n\n@jax.jit\ndef value_of(t):\n    return t.value * 2"),
        "value_of(Tagged('t', 1.0))", "JNH552"),
    "unflatten-with-placeholders": Lesson(
        "custom_pytrees",
        (_JNP, "class Holder:\n    def __init__(self, v):\n        self.v = jnp.asarray(v)\n\n"
               "jax.tree_util.register_pytree_node(Holder, lambda h: ((h.v,), None),\n"
               "                                   lambda _, leaves: Holder(*leaves))"),
        "jax.jacobian(lambda h: h)(Holder(jnp.ones(2)))", "JNH503"),
    "unsortable-keys": Lesson(
        "101/pytrees, pytrees", (_JNP,),
        "jax.tree.map(lambda v: v, {2: 1.0, 'two': 2.0})", "JNH543"),
    "method-under-jit": Lesson(
        "Sharp bits, 201/jit",
        (_JNP, "class Gain:\n    def __init__(self, g, on):\n        self.g = g\n"
               "        self.on = on\n\n    @jax.jit\n    def apply(self, y):\n"
               "        return self.g * y if self.on else y"),
        "Gain(3, True).apply(2)", "JNH551"),
    "debug-nans": Lesson(
        "debugging/flags, 201/debugging",
        (_JNP, "def entropy(p):\n    return -(p * jnp.log(p)).sum()"),
        "with jax.debug_nans(True):\n    jax.jit(entropy)(jnp.array([-0.5, 1.5]))", "JNH581"),
    "grad-pure-callback": Lesson(
        "external-callbacks, 201/callbacks",
        (_JNP, "def host_exp(x):\n    return jax.pure_callback(np.exp, jax.ShapeDtypeStruct("
               "x.shape, x.dtype), x)"),
        "jax.grad(host_exp)(jnp.array(1.0))", "JNH591"),
    "grad-io-callback": Lesson(
        "external-callbacks, 201/callbacks",
        (_JNP, "from jax.experimental import io_callback\n\ndef host_twice(x):\n"
               "    return io_callback(lambda v: v * 2, jax.ShapeDtypeStruct((), jnp.float32),"
               " x)"),
        "jax.grad(host_twice)(jnp.array(1.0))", "JNH591"),
    "vmap-ordered-io": Lesson(
        "external-callbacks, 201/callbacks",
        (_JNP, "from jax.experimental import io_callback\n\ndef noted(x):\n"
               "    return io_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), x,"
               " ordered=True)"),
        "jax.vmap(noted)(jnp.ones(2))", "JNH592"),
    "math-on-ref": Lesson(
        "101/state", (_JNP, "level = jax.new_ref(2.0)"), "jnp.exp(level)", "JNH506"),
    "ref-under-vmap": Lesson(
        "101/state",
        (_JNP, "seen = jax.new_ref(0.0)\n\ndef note(x):\n    seen[...] = x\n    return x"),
        "jax.vmap(note)(jnp.ones(3))", "JNH507"),
    "different-meshes": Lesson(
        "201/placement",
        (_JNP, _MESHES + "\np = jax.device_put(1.0, NamedSharding(left, P()))\n"
                         "q = jax.device_put(2.0, NamedSharding(right, P()))"),
        "p * q", "JNH601"),
    "jvp-of-custom-vjp": Lesson(
        "301/custom-jvp-vjp",
        (_JNP, "@jax.custom_vjp\ndef bounded(x):\n    return x\n\n"
               "bounded.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))"),
        "jax.jvp(bounded, (2.0,), (1.0,))", "JNH525"),
    "sharded-contraction": Lesson(
        "301/sharding-ad", (_JNP, _SHARDED), "with jax.set_mesh(mesh):\n    u @ v", "JNH602"),
    "unreduced-cos": Lesson(
        "301/sharding-ad",
        (_JNP, _SHARDED + "\n    w = jnp.einsum('ij,jk->ik', u, v, "
                          "out_sharding=P(None, None, unreduced={'d'}))"),
        "with jax.set_mesh(mesh):\n    jnp.sin(w)", "JNH603",
        requires=("jax.sharding:ManualAxisType",)),
}


@pytest.mark.parametrize("name", sorted(LESSONS))
def test_a_lesson_of_the_docs_gets_its_card(loaded: Notebook, name: str) -> None:
    lesson = LESSONS[name]
    missing = unmet(lesson)  # type: ignore[arg-type]
    if missing is not None:
        pytest.skip(f"needs {missing}")
    for cell in lesson.setup:
        loaded.ok(cell)
    failed = loaded.run(lesson.failing)
    assert failed.error is not None, "the lesson's cell did not fail"
    assert [d["code"] for d in failed.diagnoses] == [lesson.code], failed.stdout
