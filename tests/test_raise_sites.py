"""Entries found by raise site: an entry that declares the functions of JAX's where its
error is raised is asked about every wording from there. The sites must exist in each
supported JAX release (tests/test_older_jax.py runs this file on 0.8.3 and 0.9.2)."""

from __future__ import annotations

import ast
import os

import jax
import pytest
from conftest import Notebook

from jax_nbhelp.diagnosis import catalog_index
from jax_nbhelp.diagnosis.engine import entries
from jax_nbhelp.diagnosis.jax_check import raise_site

_SRC = os.path.join(os.path.dirname(jax.__file__), "_src")


def _functions(path: str) -> set[str]:
    with open(os.path.join(_SRC, path), encoding="utf-8") as source:
        tree = ast.parse(source.read())
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def _declared() -> list[tuple[str, str]]:
    return [(entry.CODE, site) for entry in entries() for site in catalog_index.sites_of(entry)]


def test_some_entries_declare_sites() -> None:
    assert {code for code, _ in _declared()} >= {"JNH524", "JNH531", "JNH532", "JNH563"}


@pytest.mark.parametrize(("code", "site"), _declared())
def test_every_declared_site_exists_in_this_jax(code: str, site: str) -> None:
    path, _, function = site.partition(":")
    if not os.path.exists(os.path.join(_SRC, path)):
        # a module a release does not have (hijax.py before its custom_vjp): the site is
        # never met there, which is fine for one of an entry's sites, never for all
        others = [other for c, other in _declared() if c == code and other != site]
        assert any(os.path.exists(os.path.join(_SRC, other.partition(":")[0]))
                   for other in others), f"{code}: no declared site exists in jax {jax.__version__}"
        return
    assert function in _functions(path), f"{code}: {site} is not in jax {jax.__version__}"


def test_the_raise_site_is_read_from_the_frames() -> None:
    import jax.numpy as jnp

    with pytest.raises(TypeError) as caught:
        jnp.ones(3).reshape(4)
    assert raise_site(caught.value) == "numpy/array_methods.py:_compute_newshape"


def test_another_wording_of_a_site_reaches_its_entry(loaded: Notebook) -> None:
    """-1 in a reshape whose other dimensions do not divide the size: JAX words it
    differently, from the same check."""
    loaded.ok("import jax.numpy as jnp\npixels = jnp.arange(10.0)")
    failed = loaded.run("grid = pixels.reshape(-1, 3)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH563"
    assert "10 is not a multiple of 3" in bundle["explanation"]


_RULE = ("@jax.custom_vjp\ndef clipped(x):\n    return x\n\n"
         "def clipped_fwd(x):\n    return x, None\n\n"
         "def clipped_bwd(_, g):\n    return jnp.clip(g, -1.0, 1.0)\n\n"
         "clipped.defvjp(clipped_fwd, clipped_bwd)")


@pytest.mark.skipif(not hasattr(jax.config, "jax_custom_vjp3"),
                    reason="this JAX has no custom_vjp3 path")
def test_custom_vjp3_wording_reaches_the_backward_rule_entry(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp")
    previous = jax.config.jax_custom_vjp3
    jax.config.update("jax_custom_vjp3", True)
    try:
        loaded.ok(_RULE)
        failed = loaded.run("g = jax.grad(lambda x: 3.0 * clipped(x))(2.0)")
        (bundle,) = failed.diagnoses
        assert bundle["code"] == "JNH524"
        assert [fix["label"] for fix in bundle["fixes"]] == ["Return a tuple from clipped_bwd"]
        assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
        assert float(loaded["g"]) == 1.0
    finally:
        jax.config.update("jax_custom_vjp3", previous)
