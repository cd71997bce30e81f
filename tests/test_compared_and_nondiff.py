"""Arrays where JAX does not trace them: in what jit compares (a static argument, a pytree's aux
data: JNH553) and in a custom derivative's nondiff_argnums (JNH528); and a function where jit
traces (inside a pytree argument: JNH552). Each error is raised by
real JAX in a real IPython shell; the edges are where the cards must stay silent or explain
without a fix."""

from __future__ import annotations

from conftest import Notebook

_IMPORTS = "import dataclasses\nfrom functools import partial\nimport jax, jax.numpy as jnp"


def _code(loaded: Notebook, *cells: str) -> tuple[str | None, list[str]]:
    loaded.ok(_IMPORTS)
    for cell in cells[:-1]:
        loaded.ok(cell)
    failed = loaded.run(cells[-1])
    assert failed.error is not None
    if not failed.diagnoses:
        return None, []
    bundle = failed.diagnoses[0]
    return bundle["code"], [fix["label"] for fix in bundle["fixes"]]


def test_a_static_argument_whose_eq_fails_otherwise_is_not_about_arrays(
        loaded: Notebook) -> None:
    """JAX's comparison failed, but not on an array's ==: the user's own __eq__ raised."""
    code, _ = _code(
        loaded,
        "class Opts:\n    def __hash__(self):\n        return 1\n"
        "    def __eq__(self, other):\n        raise RuntimeError('no')\n\n"
        "@partial(jax.jit, static_argnames='opts')\ndef f(x, opts):\n    return x\n\n"
        "a = f(1.0, Opts())",
        "b = f(1.0, Opts())")
    assert code != "JNH553"


def test_a_static_dataclass_named_in_a_global_is_registered(loaded: Notebook) -> None:
    """The instance is a global: its fields are read from its __dict__ (an array, a float),
    and the fix registers the class with the array as data, the float as metadata."""
    loaded.ok(_IMPORTS)
    loaded.ok("@dataclasses.dataclass(frozen=True)\nclass Grid:\n    points: jax.Array\n"
              "    step: float\n    def __hash__(self):\n        return 0\n\n"
              "@partial(jax.jit, static_argnums=1)\ndef walk(x, grid):\n"
              "    return x + grid.points * grid.step\n\n"
              "g1 = Grid(jnp.arange(3.0), 0.5)\ng2 = Grid(jnp.ones(3), 0.5)\nr1 = walk(1.0, g1)")
    failed = loaded.run("r2 = walk(1.0, g2)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH553"
    assert "points holds an array" in bundle["explanation"]
    assert [fix["label"] for fix in bundle["fixes"]] == ["Trace grid's arrays"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["r2"].tolist() == [1.5, 1.5, 1.5]
    assert loaded["r1"].tolist() == [1.0, 1.5, 2.0]


def test_a_plain_class_held_static_is_explained_without_a_fix(loaded: Notebook) -> None:
    code, fixes = _code(
        loaded,
        "class Table:\n    def __init__(self, t):\n        self.t = t\n"
        "    def __hash__(self):\n        return 0\n"
        "    def __eq__(self, other):\n        return self.t == other.t\n\n"
        "@partial(jax.jit, static_argnames='table')\ndef look(i, table):\n"
        "    return table.t[i]\n\nv = look(0, Table(jnp.arange(3.0)))",
        "w = look(0, Table(jnp.arange(3.0)))")
    assert code == "JNH553"
    assert fixes == []


def test_a_function_in_nondiff_argnums_is_left_alone(loaded: Notebook) -> None:
    """nondiff_argnums holding a function is what it is for: a tracer that escapes from
    elsewhere keeps the escaped-tracer card."""
    code, _ = _code(
        loaded,
        "@partial(jax.custom_jvp, nondiff_argnums=(0,))\ndef apply(fn, x):\n    return fn(x)\n\n"
        "@apply.defjvp\ndef apply_jvp(fn, primals, tangents):\n"
        "    return jax.jvp(fn, primals, tangents)\n\n"
        "kept = []\n@jax.jit\ndef g(x):\n    kept.append(x)\n    return apply(jnp.sin, x)\n\n"
        "out = g(1.0)",
        "bad = kept[0] + 1")
    assert code == "JNH306"


def test_a_nondiff_array_with_a_setting_beside_it_gets_no_fix(loaded: Notebook) -> None:
    """nondiff_argnums also names a Python setting: moving only some of them would change
    the rule's parameters in a way not read here, so the card explains."""
    code, fixes = _code(
        loaded,
        "@partial(jax.custom_vjp, nondiff_argnums=(0, 1))\ndef scale(mode, s, x):\n"
        "    return x * s\n\ndef scale_fwd(mode, s, x):\n    return x * s, None\n\n"
        "def scale_bwd(mode, s, res, g):\n    return (g * s,)\n\n"
        "scale.defvjp(scale_fwd, scale_bwd)",
        "g = jax.jit(jax.grad(lambda x, s: scale('a', s, x)))(1.0, 2.0)")
    assert code == "JNH528"
    assert fixes == []


def test_no_where_rewrite_where_the_sides_differ_in_shape(loaded: Notebook) -> None:
    """An if on a whole array's sum that returns the array or a number: jnp.where would
    return the array's shape on both sides, so the if is explained, not rewritten."""
    code, fixes = _code(
        loaded,
        "@jax.jit\ndef f(v):\n    if v.sum() > 0:\n        return v\n    return 0.0",
        "out = f(jnp.ones(3))")
    assert code == "JNH301"
    assert "Use jnp.where" not in fixes


def test_a_while_loop_with_a_call_in_its_body_is_not_rewritten(loaded: Notebook) -> None:
    """A statement other than an assignment (a print, an append) runs once per step in
    Python and once in all under lax.while_loop: the loop is explained, not rewritten."""
    code, fixes = _code(
        loaded,
        "@jax.jit\ndef f(v):\n    t = v.sum()\n    while t > 1:\n        print(t)\n"
        "        t = t / 2\n    return t",
        "out = f(jnp.ones(3))")
    assert code == "JNH301"
    assert not any("while_loop" in label for label in fixes)


_UNPACKED = ("@jax.tree_util.register_pytree_node_class\nclass Pair:\n"
             "    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n\n"
             "    def tree_flatten(self):\n        return (self.y,), (self.x,)\n\n"
             "    @classmethod\n    def tree_unflatten(cls, aux, children):\n"
             "        x, = children\n        y, = aux\n        return cls(x, y)")


def test_an_aux_array_becomes_a_child_and_the_objects_are_made_again(
        loaded: Notebook) -> None:
    """The objects were made in a middle cell, under the old class: the fix re-runs the class
    and the statements that made them, and each statement of the failing cell runs once."""
    loaded.ok(_IMPORTS)
    loaded.ok(_UNPACKED)
    loaded.ok("a = Pair(jnp.array([1, 2]), jnp.array([2.5, 3.5]))\n"
              "b = Pair(jnp.array([1, 2]), jnp.array([0.5, 1.5]))\n"
              "total = jax.jit(lambda p: jnp.sum(p.x) + jnp.sum(p.y))\nra = total(a)")
    failed = loaded.run("rb = total(b)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH553"
    (fix,) = bundle["fixes"]
    assert fix["label"] == "Make the arrays children"
    assert fix["safe"]
    assert "return (self.y, self.x), None" in fix["diff"]
    assert "x, y = children" in fix["diff"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["ra"]) == 9.0
    assert float(loaded["rb"]) == 5.0
    # the class is a pytree of two children now: y as before, then the x that moved
    leaves = loaded.shell.ev("jax.tree_util.tree_leaves(b)")
    assert [leaf.tolist() for leaf in leaves] == [[0.5, 1.5], [1, 2]]


def test_children_spread_whole_leave_the_aux_explained(loaded: Notebook) -> None:
    """``cls(*children, *aux)``: an item added to the children would shift what the spread
    passes, so no rewrite is offered."""
    code, fixes = _code(
        loaded,
        "@jax.tree_util.register_pytree_node_class\nclass Pair:\n"
        "    def __init__(self, x, y):\n        self.x, self.y = x, y\n\n"
        "    def tree_flatten(self):\n        return (self.x,), (self.y,)\n\n"
        "    @classmethod\n    def tree_unflatten(cls, aux, children):\n"
        "        return cls(*children, *aux)\n\n"
        "p, q = Pair(jnp.ones(2), jnp.ones(2)), Pair(jnp.ones(2), jnp.ones(2))\n"
        "f = jax.jit(lambda p: p.x + p.y)\nr = f(p)",
        "s = f(q)")
    assert code == "JNH553"
    assert fixes == []


def test_a_function_in_a_nested_dict_argument_is_held_in_a_partial(loaded: Notebook) -> None:
    """JNH552: jit cannot trace ``cfg['layer']['act']``; the dict display that built ``cfg``
    holds it in a Partial, and the call computes what it would have."""
    loaded.ok(_IMPORTS)
    loaded.ok("cfg = {'layer': {'w': jnp.ones(2), 'act': jnp.tanh}}\n\n@jax.jit\n"
              "def run(cfg, x):\n    return cfg['layer']['act'](cfg['layer']['w'] * x)")
    failed = loaded.run("y = run(cfg, 1.0)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH552"
    (fix,) = bundle["fixes"]
    assert fix["label"] == "Hold it in a Partial"
    assert "'act': jax.tree_util.Partial(jnp.tanh)" in fix["diff"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert abs(float(loaded["y"][0]) - 0.7615942) < 1e-6


def test_a_function_the_display_no_longer_holds_is_explained(loaded: Notebook) -> None:
    """The dict was changed after its display ran: the display does not write what was
    passed, so no rewrite of it is offered."""
    code, fixes = _code(
        loaded,
        "cfg = {'w': jnp.ones(2), 'act': jnp.tanh}\ncfg['act'] = jnp.sin\n\n@jax.jit\n"
        "def run(cfg, x):\n    return cfg['act'](cfg['w'] * x)",
        "y = run(cfg, 1.0)")
    assert code == "JNH552"
    assert fixes == []
