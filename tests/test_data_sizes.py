"""A length that depends on the data under jax.jit (``jnp.unique``, ``jnp.nonzero``,
``segment_sum``, ``jnp.extract``, ``x[mask]``), in a real IPython shell with real JAX: the
fix gives the call the length the caller's concrete values give, computed by the same JAX
function on those values, never by running the user's code."""

from __future__ import annotations

from typing import Any

from conftest import Notebook

_SETUP = "import jax, jax.numpy as jnp\nimport numpy as np"


def _fixed(loaded: Notebook, failing: str, code: str, label: str) -> dict[str, Any]:
    failed = loaded.run(failing)
    (bundle,) = failed.diagnoses
    assert bundle["code"] == code
    assert bundle["recommended"] == 1, bundle["fixes"]
    fix = bundle["fixes"][0]
    assert fix["label"] == label
    assert fix["safe"]
    applied = loaded.run("%jax_nbhelp fix 1").stdout
    assert "\nFixed:" in applied, applied
    return fix


def test_unique_under_jit_gets_the_size_its_data_gives(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\ncodes = jnp.array([3, 1, 3, 7, 1, 5, 7, 7])\n"
              "@jax.jit\ndef groups_of(codes):\n    groups = jnp.unique(codes)\n"
              "    return groups * 2")
    fix = _fixed(loaded, "doubled = groups_of(codes)", "JNH303", "Pass size=4")
    assert "jnp.unique(codes, size=4)" in fix["diff"]
    assert "cut to 4" in fix["safety"]
    assert loaded["doubled"].tolist() == [2, 6, 10, 14]


def test_segment_sum_through_a_jitted_name_gets_num_segments(loaded: Notebook) -> None:
    """The jitted function is a name bound to jax.jit(f), its traced data both arguments
    (JAX's message names only the ids), the values globals of another cell."""
    loaded.ok(_SETUP + "\nenergies = jnp.array([-1.5, -0.25, -2.0, -0.5, -3.0])\n"
              "ids = jnp.array([0, 0, 1, 1, 2])")
    loaded.ok("def readout(e, molecule_ids):\n"
              "    return jax.ops.segment_sum(e * 2, molecule_ids)\n"
              "fast = jax.jit(readout)")
    _fixed(loaded, "per_molecule = fast(energies, ids)", "JNH303", "Pass num_segments=3")
    assert loaded["per_molecule"].tolist() == [-3.5, -5.0, -6.0]


def test_extract_with_a_global_threshold_gets_its_count(loaded: Notebook) -> None:
    """jnp.extract's condition is an expression of the parameter and a global: computed
    by JAX on the concrete values (jax 0.10 raises a TracerBoolConversionError here)."""
    loaded.ok(_SETUP + "\ntrace = jnp.array([0.05, 0.8, -1.3, 0.02, 0.6, 2.1])\nfloor = 0.25\n"
              "@jax.jit\ndef loud_energy(signal):\n"
              "    loud = jnp.extract(jnp.abs(signal) > floor, signal)\n"
              "    return jnp.sum(loud ** 2)")
    failed = loaded.run("energy = loud_energy(trace)")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"][0]["label"] == "Pass size=4"
    assert loaded.run("%jax_nbhelp fix 1").stdout.count("Fixed:") == 1
    assert np_close(loaded["energy"], 0.64 + 1.69 + 0.36 + 4.41)


def np_close(a: Any, b: float) -> bool:
    return abs(float(a) - b) < 1e-4


def test_a_mask_selection_is_indexed_by_nonzero_with_its_count(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nx = jnp.array([0.5, -1.0, 2.0, 3.0, -0.5])\n"
              "@jax.jit\ndef positives(v):\n    kept = v[v > 0]\n    return kept * 2")
    fix = _fixed(loaded, "out = positives(x)", "JNH304",
                 "Select with jnp.nonzero(..., size=3)")
    assert "v[jnp.nonzero(v > 0, size=3)]" in fix["diff"]
    assert loaded["out"].tolist() == [1.0, 4.0, 6.0]


def test_no_length_where_the_data_is_not_readable(loaded: Notebook) -> None:
    """A user's function in the argument, a parameter the body rebinds, a call in a nested
    function, a user's property: no fix, and the user's code never runs."""
    loaded.ok(_SETUP + "\ncalls = []\ndef tidy(v):\n    calls.append(1)\n    return v\n"
              "class Box:\n    @property\n    def codes(self):\n        calls.append(2)\n"
              "        return jnp.array([1, 2, 2])\nbox = Box()\n"
              "codes = jnp.array([3, 1, 3, 7])")
    cells = (
        "@jax.jit\ndef a(c):\n    return jnp.unique(tidy(c))\nout = a(codes)",
        "@jax.jit\ndef b(c):\n    c = c + 1\n    return jnp.unique(c)\nout = b(codes)",
        "@jax.jit\ndef d(c):\n    inner = lambda: jnp.unique(c)\n    return inner()\n"
        "out = d(codes)",
        "@jax.jit\ndef e(c):\n    return jnp.unique(box.codes + c[0])\nout = e(codes)",
    )
    for cell in cells:
        failed = loaded.run(cell)
        assert failed.error is not None, cell
        for bundle in failed.diagnoses:
            assert not any("size=" in f["label"] for f in bundle["fixes"]), cell
    # each ran once, as the failing cell traced it: never again for the diagnosis
    assert loaded["calls"] == [1, 2]


def test_a_mask_computed_on_an_earlier_line_is_followed(loaded: Notebook) -> None:
    """``mask = ...`` assigned once in the body, before the line: its expression is
    computed with the caller's values as well."""
    loaded.ok(_SETUP + "\nreadings = jnp.array([0.2, 1.5, -0.1, 2.5, 3.0])\nlimit = 1.0\n"
              "@jax.jit\ndef over(v):\n    mask = v > limit\n    idx = jnp.nonzero(mask)[0]\n"
              "    return v[idx] - limit")
    _fixed(loaded, "excess = over(readings)", "JNH303", "Pass size=3")
    assert [round(float(e), 4) for e in loaded["excess"]] == [0.5, 1.5, 2.0]


def test_a_local_assigned_twice_is_not_followed(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nreadings = jnp.array([0.2, 1.5, -0.1])\n"
              "@jax.jit\ndef over(v):\n    mask = v > 0\n    mask = mask & (v < 1)\n"
              "    return jnp.nonzero(mask)[0]")
    failed = loaded.run("idx = over(readings)")
    (bundle,) = failed.diagnoses
    assert not any("size=" in f["label"] for f in bundle["fixes"])


def test_nothing_large_is_computed_for_the_length(loaded: Notebook) -> None:
    """An argument whose evaluation would make a huge array (an outer comparison of two
    long vectors, an array of a size it is told) is not computed: no length, no fix."""
    loaded.ok(_SETUP + "\nlong = jnp.arange(20_000.0)\n"
              "@jax.jit\ndef pairs(v):\n    return jnp.nonzero(v[:, None] > v[None, :])\n"
              "@jax.jit\ndef ones_of(v):\n    return jnp.unique(jnp.ones(10**9) + v[0])")
    for cell in ("out = pairs(long)", "out = ones_of(long)"):
        failed = loaded.run(cell)
        for bundle in failed.diagnoses:
            assert not any("size=" in f["label"] for f in bundle["fixes"]), cell


def test_a_size_from_an_array_written_in_the_call(loaded: Notebook) -> None:
    # the argument is built on the calling line: its values are read as jit received them
    loaded.ok("import jax, jax.numpy as jnp\n@jax.jit\ndef positive(x):\n"
              "    return jnp.nonzero(x > 0)[0]")
    failed = loaded.run("idx = positive(jnp.array([1.0, -1.0, 2.0]))")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"][0]["label"] == "Pass size=2"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["idx"].tolist() == [0, 2]


def test_a_call_written_over_several_lines_gets_its_size(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\ncodes = jnp.array([3, 1, 3, 2])\n@jax.jit\n"
              "def distinct(c):\n    return jnp.unique(\n        c)")
    failed = loaded.run("u = distinct(codes)")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"][0]["label"] == "Pass size=3"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["u"].tolist() == [1, 2, 3]
