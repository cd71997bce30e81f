"""JNH210 beyond its catalog examples: the rename table agrees with the installed JAX, a
keyword renamed between releases is rewritten on whichever release runs the test, a user's
own names are never claimed, and the rewrites change only what they should."""

from __future__ import annotations

import importlib
import inspect

import pytest
from conftest import Notebook

from jax_nbhelp.catalog import _jax_names, _renames
from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.renamed_api import rename_attribute_python, rename_keyword_python

CODE = "JNH210"


def _codes(out) -> list[str]:
    return [d["code"] for d in out.diagnoses]


@pytest.mark.parametrize("row", _renames.MOVED, ids=lambda r: f"{r.module}.{r.name}")
def test_moved_names_exist_here_under_their_new_name(row: _renames.Moved) -> None:
    owner = importlib.import_module(row.module)
    target = _jax_names.lookup(row.target_module, row.target)
    if _jax_names.has(owner, row.name):
        # A release that still has the old name (0.9.2 has pltpu.KernelType, pltpu.ANY,
        # deprecated): for an alias, both names are one object.
        deprecated = vars(owner).get("_deprecations", {}).get(row.name, (None, None))[1]
        old = vars(owner).get(row.name, deprecated)
        checked = row.call_keywords is None and target is not None and old is not None
        if checked:
            assert old is target
        pytest.skip(f"this JAX still has {row.module}.{row.name}"
                    + (" (checked: the same object as the new name)" if checked else ""))
    assert target is not None, f"{row.target_module}.{row.target} is missing here"


@pytest.mark.parametrize("row", _renames.GONE, ids=lambda r: f"{r.module}.{r.name}")
def test_gone_names_are_gone(row: _renames.Gone) -> None:
    assert not _jax_names.has(importlib.import_module(row.module), row.name)


@pytest.mark.parametrize("row", _renames.KEYWORDS,
                         ids=lambda r: f"{r.function}-{r.keyword}-{r.homes[-1]}")
def test_keyword_rows_agree_with_the_installed_signatures(row: _renames.Keyword) -> None:
    pytest.importorskip("absl")  # Mosaic GPU Pallas imports it
    for home in row.homes:
        function = getattr(importlib.import_module(home), row.function)
        params = inspect.signature(function).parameters
        if row.keyword in params or _jax_names.takes_any_keyword(dict(params)):
            continue  # this release takes it: the row does not apply here
        if row.replacement is not None:
            assert row.replacement in params, (home, row)


def test_kernel_keyword_from_the_other_release_is_renamed(loaded: Notebook) -> None:
    """pl.kernel takes out_type= from jax 0.10.1, out_shape= before: the cell uses the one
    this JAX lacks, so the test runs the rename in whichever direction applies here."""
    from jax.experimental import pallas as pl

    params = inspect.signature(pl.kernel).parameters
    here, other = ("out_type", "out_shape") if "out_type" in params else ("out_shape", "out_type")
    failed = loaded.run(
        'mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)\n'
        "\n"
        "def add_one(x_ref, o_ref):\n"
        "    def body(buffer):\n"
        "        pltpu.sync_copy(x_ref, buffer)\n"
        "        buffer[...] += 1\n"
        "        pltpu.sync_copy(buffer, o_ref)\n"
        "    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32))\n"
        "\n"
        "run = pl.kernel(add_one,\n"
        f"                {other}=jax.ShapeDtypeStruct((8, 128), jnp.float32),\n"
        "                mesh=mesh, interpret=pltpu.InterpretParams())\n"
        "out = run(jnp.ones((8, 128)))\n"
    )
    assert _codes(failed) == [CODE]
    import jax_nbhelp

    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert f"takes {here}= in its place" in diagnosis.explanation
    (fix,) = diagnosis.fixes
    assert fix.label == f"Pass {here}= instead of {other}="
    assert f"+                {here}=jax.ShapeDtypeStruct" in fix.diff
    result = fix.apply()
    assert result.ok, result.error
    assert bool((loaded["out"] == 2).all())


def test_clips_removed_keywords_are_renamed_together(loaded: Notebook) -> None:
    """jnp.clip lost a_min= and a_max= in jax 0.10.0; Python names only the first keyword it
    does not take, and the fix renames both (on releases that still take them, the cell
    runs and there is nothing to fix)."""
    import jax.numpy as jnp

    if "a_min" in inspect.signature(jnp.clip).parameters:
        pytest.skip("this JAX's jnp.clip still takes a_min= and a_max=")
    failed = loaded.run("import jax.numpy as jnp\n"
                        "c = jnp.clip(jnp.array([-1.0, 0.5, 2.0]), a_min=0.0, a_max=1.0)")
    assert _codes(failed) == [CODE]
    import jax_nbhelp

    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert "deprecated in jax 0.4.27" in diagnosis.explanation
    (fix,) = diagnosis.fixes
    assert fix.label in ("Pass min=, max= instead of a_min=, a_max=",
                         "Pass max=, min= instead of a_max=, a_min=")
    assert fix.apply().ok
    assert loaded["c"].tolist() == [0.0, 0.5, 1.0]


def test_a_removed_key_type_used_only_in_annotations_becomes_jax_array(
        loaded: Notebook) -> None:
    """jax.random.KeyArray (removed in jax 0.4.24) through an alias every use of which is an
    annotation: annotations change nothing the code computes, so jax.Array goes there."""
    failed = loaded.run("import jax\nKeyArray = jax.random.KeyArray\n\n"
                        "def draw(key: KeyArray):\n    return jax.random.normal(key)\n\n"
                        "v = draw(jax.random.key(0))")
    assert _codes(failed) == [CODE]
    import jax_nbhelp

    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    (fix,) = diagnosis.fixes
    assert fix.label == "Use jax.Array"
    assert fix.apply().ok
    assert loaded["v"].shape == ()


def test_removed_pallas_name_is_explained(loaded: Notebook) -> None:
    # Raised by pl's module __getattr__ (0.10), or by Python's lookup where pl has none
    # (0.9.2): a fact about the installed JAX either way.
    failed = loaded.run("read = pl.load")
    assert _codes(failed) == [CODE]
    (diagnosis,) = failed.diagnoses
    assert "removed in 0.9.0" in diagnosis["explanation"]
    assert "Index the ref instead" in diagnosis["explanation"]
    assert diagnosis["fixes"] == []


def test_the_removal_message_of_older_releases_is_read(loaded: Notebook) -> None:
    """Releases that removed a name on purpose said so ("jax.tree_map was removed in JAX
    v0.6.0: use jax.tree.map ..."), from JAX's deprecation machinery; that message is read as
    the name, like "has no attribute" is."""
    deprecations = pytest.importorskip("jax._src.deprecations")
    if not hasattr(deprecations, "deprecation_getattr"):
        pytest.skip("no deprecation machinery in this JAX")
    loaded.ok("from jax._src.deprecations import deprecation_getattr\n"
              "removed = deprecation_getattr('jax', {'tree_map': ('jax.tree_map was removed "
              "in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer) or "
              "jax.tree_util.tree_map (any JAX version).', None)})")
    failed = loaded.run("tree_map = removed('tree_map')")
    assert _codes(failed) == [CODE]
    (diagnosis,) = failed.diagnoses
    assert "jax.tree.map" in diagnosis["explanation"]
    # A user's own text of the same words is not JAX's.
    own = loaded.run("raise AttributeError('jax.tree_map was removed in JAX v0.6.0')")
    assert own.error is not None
    assert own.diagnoses == []


def test_a_removed_constant_is_written_as_its_expression(loaded: Notebook) -> None:
    """jnp.NINF was -jnp.inf: written in parentheses, so a power of it keeps its sign."""
    loaded.ok("import jax.numpy as jnp")
    failed = loaded.run("m = jnp.full(2, jnp.NINF ** 3)")
    assert _codes(failed) == [CODE]
    (diagnosis,) = failed.diagnoses
    assert [fix["label"] for fix in diagnosis["fixes"]] == ["Use -jnp.inf"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["m"].tolist() == [float("-inf")] * 2


def test_unknown_name_names_close_ones_and_the_version(loaded: Notebook) -> None:
    import jax

    (diagnosis,) = loaded.run("params = pltpu.InterpretParam()").diagnoses
    assert "Close names this module has: pltpu.InterpretParams." in diagnosis["explanation"]
    assert "probably written for another JAX release" in diagnosis["explanation"]
    assert any(f"jax {jax.__version__}" in note for note in diagnosis["notes"])


def test_name_found_in_another_module_is_named(loaded: Notebook) -> None:
    (diagnosis,) = loaded.run("space = pltpu.BlockSpec").diagnoses
    assert "This JAX has BlockSpec as pl.BlockSpec" in diagnosis["explanation"]


@pytest.mark.parametrize("cell", [
    "def emit_pipeline(body, *, grid):\n    return body\n\n"
    "emit_pipeline(print, grid=(1,), delay_release=1)",
    "def helper(x):\n    return x\n\nhelper(1, out_shape=2)",
    "import json\njson.not_there",
    # JAX's own module, but a submodule not imported yet: not a name from another release
    # (stax: no example of the catalog imports it into this process)
    "stax = jax.example_libraries.stax",
])
def test_a_users_own_names_are_not_claimed(loaded: Notebook, cell: str) -> None:
    failed = loaded.run(cell)
    assert failed.error is not None
    # No entry claims it; a missing attribute of JAX's own module is JAX's to report, in the
    # general view (which claims no cause).
    expected = ["JNH000"] if cell.startswith("stax") else []
    assert [d["code"] for d in failed.diagnoses] == expected


def test_a_users_own_function_is_not_claimed_even_inside_jax_context(loaded: Notebook) -> None:
    """Under JAX's user_context every error counts as JAX's (its cause is JAX's type); the
    diagnosis itself must still see that the function is the notebook's."""
    loaded.shell.user_ns["_code"] = (
        "def emit_pipeline(body, *, grid):\n    return body\n"
        "emit_pipeline(print, grid=(1,), delay_release=1)\n")
    failed = loaded.run(
        "from jax._src import source_info_util\n"
        "with source_info_util.user_context(source_info_util.current().traceback):\n"
        "    exec(_code)\n")
    assert type(failed.error).__name__ == "TypeError"
    assert failed.diagnoses == []


def _is(name: str):
    return lambda dotted: dotted == name


def test_rename_attribute_changes_every_use_of_the_module_name_and_nothing_else() -> None:
    source = ("a = pltpu.TPUMemorySpace.VMEM\n"
              "b = (pltpu\n"
              "     .TPUMemorySpace.SMEM)\n"
              "c = other.TPUMemorySpace\n")
    # The old name fails wherever the cell uses it, so every use of it is renamed (issue 16:
    # renaming only the first left the cell failing on the next one).
    renamed = rename_attribute_python(source, 1, owner=_is("pltpu"), old="TPUMemorySpace",
                                      new="pltpu.MemorySpace")
    assert renamed == ("a = pltpu.MemorySpace.VMEM\n"
                       "b = (pltpu.MemorySpace.SMEM)\n"
                       "c = other.TPUMemorySpace\n")
    # A name split over lines is found from any of them.
    assert "b = (pltpu.MemorySpace.SMEM)" in rename_attribute_python(
        source, 2, owner=_is("pltpu"), old="TPUMemorySpace", new="pltpu.MemorySpace")
    # A member that lives elsewhere now becomes its new spelling, the others follow the name.
    two = "x = pltpu.TPUMemorySpace.ANY\ny = pltpu.TPUMemorySpace.VMEM\n"
    moved = rename_attribute_python(two, 1, owner=_is("pltpu"), old="TPUMemorySpace",
                                    new="pltpu.MemorySpace", members={"ANY": "pl.ANY"})
    assert moved == "x = pl.ANY\ny = pltpu.MemorySpace.VMEM\n"
    # A traceback that names a statement's first line still finds the name on a later one.
    split = "x = f(1,\n      pltpu.TPUMemorySpace)\n"
    assert rename_attribute_python(split, 1, owner=_is("pltpu"), old="TPUMemorySpace",
                                   new="pltpu.MemorySpace") == split.replace("TPUM", "M")
    with pytest.raises(CannotRewrite):
        rename_attribute_python(source, 4, owner=_is("pltpu"), old="TPUMemorySpace",
                                new="pltpu.MemorySpace")


def test_rename_attribute_of_a_call_checks_the_call() -> None:
    keywords = frozenset({"axis_name", "num_cores"})

    def rename(source: str) -> str:
        return rename_attribute_python(source, 1, owner=_is("jax.experimental.pallas.tpu"),
                                       old="TensorCoreMesh", new="tpu.create_tensorcore_mesh",
                                       call_keywords=keywords)

    assert rename('m = jax.experimental.pallas.tpu.TensorCoreMesh("x", num_cores=2)\n') == (
        'm = tpu.create_tensorcore_mesh("x", num_cores=2)\n')
    for refused in ("ok = isinstance(m, jax.experimental.pallas.tpu.TensorCoreMesh)\n",
                    'm = jax.experimental.pallas.tpu.TensorCoreMesh("x", 2)\n',
                    'm = jax.experimental.pallas.tpu.TensorCoreMesh("x", devices=d)\n'):
        with pytest.raises(CannotRewrite):
            rename(refused)


def test_rename_keyword_in_a_call_and_a_partial() -> None:
    source = ("k = pl.kernel(body,\n"
              "              out_shape=shape, mesh=mesh)\n"
              "p = functools.partial(pl.kernel, out_shape=shape)\n"
              "q = other(out_shape=shape)\n")
    renamed = rename_keyword_python(source, 1, function=_is("pl.kernel"), old="out_shape",
                                    new="out_type")
    assert renamed == source.replace("              out_shape=", "              out_type=")
    assert "functools.partial(pl.kernel, out_type=shape)" in rename_keyword_python(
        source, 3, function=_is("pl.kernel"), old="out_shape", new="out_type")
    with pytest.raises(CannotRewrite):
        rename_keyword_python(source, 4, function=_is("pl.kernel"), old="out_shape",
                              new="out_type")
    with pytest.raises(CannotRewrite):
        rename_keyword_python("pl.kernel(b, out_shape=s, out_type=s)\n", 1,
                              function=_is("pl.kernel"), old="out_shape", new="out_type")
