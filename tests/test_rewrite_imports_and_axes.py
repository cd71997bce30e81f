"""The rewrites behind JNH213's moved-name import, JNH405's axis rename and JNH406's unwrap,
on the shapes users write: aliases, parenthesised imports, other names on the line, magics,
keywords."""

from __future__ import annotations

import pytest

from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.collective_axis_rename import rename_collective_axis
from jax_nbhelp.rewrite.from_import_moved import import_moved_name
from jax_nbhelp.rewrite.unwrap_call import unwrap_call


def _move(source: str, lineno: int = 1) -> str:
    return import_moved_name(source, lineno, "jax", "tree_map", "jax.tree_util", "tree_map")


def test_a_lone_import_changes_its_module() -> None:
    assert _move("from jax import tree_map\n") == "from jax.tree_util import tree_map\n"


def test_an_alias_is_kept() -> None:
    assert _move("from jax import tree_map as tm\n") == "from jax.tree_util import tree_map as tm\n"


def test_other_names_stay_on_their_line() -> None:
    assert _move("from jax import jit, tree_map, vmap\n") == (
        "from jax import jit, vmap\nfrom jax.tree_util import tree_map\n")


def test_a_parenthesised_import_keeps_its_other_names() -> None:
    source = "x = 1\nfrom jax import (jit,\n    tree_map)\n"
    assert _move(source, 2) == "x = 1\nfrom jax import jit\nfrom jax.tree_util import tree_map\n"


def test_a_new_spelling_keeps_the_local_name() -> None:
    fixed = import_moved_name("from jax import tree_map\n", 1, "jax", "tree_map", "jax.tree",
                              "map")
    assert fixed == "from jax.tree import map as tree_map\n"


def test_a_magic_in_the_cell_survives() -> None:
    assert _move("%time x = 1\nfrom jax import tree_map\n", 2) == (
        "%time x = 1\nfrom jax.tree_util import tree_map\n")


def test_no_such_import_is_refused() -> None:
    with pytest.raises(CannotRewrite):
        _move("from jax import jit\n")


def test_the_axis_of_a_collective_is_renamed() -> None:
    source = "def f(a):\n    return jax.lax.psum(a, 'batch') + 'batch'.count('b')\n"
    assert rename_collective_axis(source, 2, "batch", "data") == (
        "def f(a):\n    return jax.lax.psum(a, 'data') + 'batch'.count('b')\n")


@pytest.mark.parametrize(("line", "fixed"), [
    ("y = lax.pmean(x, axis_name='batch')", "y = lax.pmean(x, axis_name='data')"),
    ("i = jax.lax.axis_index('batch')", "i = jax.lax.axis_index('data')"),
    ("y = psum(x, ('batch', 'model'))", "y = psum(x, ('data', 'model'))"),
])
def test_the_spellings_of_the_axis_argument(line: str, fixed: str) -> None:
    assert rename_collective_axis(line + "\n", 1, "batch", "data") == fixed + "\n"


def test_a_line_without_that_axis_is_refused() -> None:
    with pytest.raises(CannotRewrite):
        rename_collective_axis("y = lax.psum(x, 'data')\n", 1, "batch", "data")


def test_a_needless_wrap_is_unwrapped() -> None:
    source = "n = jax.random.normal(jax.random.wrap_key_data(key), (3,))\n"
    assert unwrap_call(source, 1, "wrap_key_data", "key") == "n = jax.random.normal(key, (3,))\n"


def test_a_wrap_of_another_name_is_left_alone() -> None:
    with pytest.raises(CannotRewrite):
        unwrap_call("k = jr.wrap_key_data(raw)\n", 1, "wrap_key_data", "key")
