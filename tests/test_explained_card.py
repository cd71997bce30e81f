"""The explained view (JNH001): an error no catalog entry knows, explained by the check JAX's
own code made before it raised and by the user's call bound to the function's signature.

Every error here is raised by real JAX in a real IPython shell; the safe evaluator's rules
are tested on frames of objects that record whether any of their code ran."""

from __future__ import annotations

import ast
import sys
from typing import ClassVar

import numpy as np
import pytest
from conftest import Notebook, validate_bundle

from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator


def _card(loaded: Notebook, cell: str) -> dict:
    loaded.ok("import jax, jax.numpy as jnp, numpy as np")
    failed = loaded.run(cell)
    assert failed.error is not None
    (bundle,) = failed.diagnoses
    validate_bundle(bundle)
    return bundle


def _fixed_by_contract(loaded: Notebook, cell: str, label: str, check: str) -> None:
    """The explained card offers exactly the fix ``label``, recommends it, and it runs and
    leaves ``v`` with what ``check`` says."""
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert [fix["label"] for fix in bundle["fixes"]] == [label]
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert eval(check, {}, {"v": loaded["v"]})


def _argument(bundle: dict, parameter: str) -> dict:
    return next(a for a in bundle["binding"]["arguments"] if a["parameter"] == parameter)


def test_a_conversion_inside_jax_is_not_called_the_users_numpy_call(loaded: Notebook) -> None:
    """A traced ``jnp.tile`` count: JAX 0.8 converts it with NumPy inside ``jnp.tile``
    (TracerArrayConversionError), later releases raise another error. The line calls no
    NumPy function, so no card says it hands a tracer to NumPy."""
    bundle = _card(loaded, "f = jax.jit(lambda x, n: jnp.tile(x, n))\nt = f(jnp.ones(2), 3)")
    assert bundle["code"] != "JNH305"
    assert "NumPy" not in bundle["explanation"]


def test_the_check_and_the_argument_it_read(loaded: Notebook) -> None:
    bundle = _card(loaded, "jax.random.bits(jax.random.key(0), (4,), dtype=jnp.int8)")
    assert bundle["code"] == "JNH001"
    assert bundle["explained"] is True
    assert bundle["general"] is False
    assert bundle["title"] == "jax.random.bits rejected its argument dtype"
    check = bundle["check"]
    assert check["condition"] == "not dtypes.issubdtype(dtype, np.unsignedinteger)"
    assert check["requirement"] == "dtypes.issubdtype(dtype, np.unsignedinteger)"
    assert check["file"] in ("random/core.py", "random.py")  # moved in 0.10
    assert check["function"] == "bits"
    # a call of JAX's own is never run again: its value is the one the raise implies
    assert {"text": "dtypes.issubdtype(dtype, np.unsignedinteger)", "value": "False",
            "implied": True} in check["parts"]
    assert {"text": "dtype", "value": "int8", "implied": False} in check["parts"]
    dtype = _argument(bundle, "dtype")
    assert dtype["expression"] == "jnp.int8"
    assert dtype["read"] is True
    assert "unsigned integer dtype" in dtype["doc"]
    assert _argument(bundle, "key")["read"] is False
    assert _argument(bundle, "out_sharding")["default"] is True
    assert bundle["binding"]["public"] == "jax.random.bits"
    assert bundle["binding"]["url"] == (
        "https://docs.jax.dev/en/latest/_autosummary/jax.random.bits.html")
    assert bundle["cause"].startswith(
        "`jax.random.bits` requires `dtypes.issubdtype(dtype, np.unsignedinteger)`")
    assert "`dtype=jnp.int8`" in bundle["cause"]
    assert bundle["fixes"] == []


def test_values_of_the_check_are_read_from_jax_frame(loaded: Notebook) -> None:
    bundle = _card(loaded, "mesh = jax.sharding.Mesh(np.array(jax.devices()), ('a', 'b'))")
    assert bundle["check"]["requirement"] == "devices.ndim == len(axis_names)"
    parts = {part["text"]: part["value"] for part in bundle["check"]["parts"]}
    assert parts["devices.ndim"] == "1"
    assert parts["len(axis_names)"] == "2"
    assert {a["parameter"] for a in bundle["binding"]["arguments"] if a["read"]} == {
        "devices", "axis_names"}
    assert bundle["binding"]["url"] == (
        "https://docs.jax.dev/en/latest/jax.sharding.html#jax.sharding.Mesh")
    # the most derived values in the cause: `devices.ndim`, not the whole array
    assert "`devices.ndim` is 1 and `len(axis_names)` is 2" in bundle["cause"]


def test_a_branch_that_only_chooses_the_message_is_not_the_check(loaded: Notebook) -> None:
    """JAX's custom_jvp checks the tangents' types, then picks one wording for one output
    (``if len(...) == 1: raise ...``) and another for several (``else: raise ...``): the
    check is the type match, never "requires len(...) != 1"."""
    loaded.ok("@jax.custom_jvp\ndef first(q):\n    return q[0]\n\n@first.defjvp\n"
              "def first_jvp(primals, tangents):\n    return first(primals[0]), tangents[0]")
    from jax_nbhelp.diagnosis import jax_check

    failed = loaded.run("g = jax.grad(first)(jnp.array([2.0]))")
    raised = jax_check.raised_at(failed.error)  # the check, whichever card shows the error
    assert raised is not None
    assert raised.check is not None
    assert "typematch" in raised.check.requirement
    assert "len(" not in raised.check.requirement


def test_a_flag_set_by_an_earlier_check_is_read_back_to_that_check(loaded: Notebook) -> None:
    """``lax.fori_loop`` sets ``dtype = None`` where the bounds' dtypes differ and raises
    later on ``if dtype is None``: the check is the comparison that set the flag, with the
    bounds' dtypes, never "requires dtype is not None"."""
    bundle = _card(loaded, "v = jax.lax.fori_loop(0, 5.0, lambda i, s: s + i, 0)")
    assert bundle["code"] == "JNH001"
    check = bundle["check"]
    assert check["requirement"] == "lower_dtype == upper_dtype"
    parts = {part["text"]: part["value"] for part in check["parts"]}
    assert parts == {"lower_dtype": "int32", "upper_dtype": "float32"}
    assert "dtype is" not in bundle["cause"]


def test_a_check_of_what_a_function_returned_is_not_blamed_on_its_arguments(
        loaded: Notebook) -> None:
    """``jax.grad(f, has_aux=True)`` checks what ``f`` returned; JAX built the function it
    ran beside the arguments, which the check never read: the card names no argument."""
    loaded.ok("def f(x, y):\n    return jnp.sum(x * y)\ng = jax.grad(f, has_aux=True)")
    bundle = _card(loaded, "v = g(jnp.ones(2), jnp.ones(2))")
    assert bundle["code"] == "JNH001"
    assert not [a for a in bundle["binding"]["arguments"] if a["read"]]
    assert "rejected" not in bundle["title"]
    assert "(list, tuple)` is" not in bundle["cause"]


@pytest.mark.parametrize(("cell", "read"), [
    # a primitive's keyword parameter travels in bind's ``**params`` to its shape rule,
    # read there in a comprehension whose loop names are its own
    ("v = jax.lax.pad(jnp.ones(3), 0.0, [(1, 1)])", {"padding_config"}),
    ("v = jax.lax.squeeze(jnp.ones((2, 3)), (0,))", {"dimensions"}),
])
def test_a_keyword_of_a_primitive_is_followed_to_its_shape_rule(loaded: Notebook, cell: str,
                                                              read: set[str]) -> None:
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert {a["parameter"] for a in bundle["binding"]["arguments"] if a["read"]} == read


def test_a_0d_global_is_given_its_dimensions_where_it_is_made(loaded: Notebook) -> None:
    """``m, c = fit(x)`` in an earlier cell, ``c`` a 0-d variance made in ``fit`` and read
    nowhere else: made 2-D there, and the cell that unpacks it runs again."""
    loaded.ok("import jax, jax.numpy as jnp, numpy as np")
    loaded.ok("def fit(x):\n    c = jnp.var(x)\n    return jnp.mean(x, keepdims=True), c\n"
              "m, c = fit(jnp.array([1.0, 2.0, 4.0]))")
    failed = loaded.run("v = jax.random.multivariate_normal(jax.random.key(0), m, c)")
    (bundle,) = failed.diagnoses
    assert [fix["label"] for fix in bundle["fixes"]] == ["Make c 2-D where it is made"]
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["c"].shape == (1, 1)
    assert loaded["v"].shape == (1,)


def test_a_0d_global_read_elsewhere_is_not_changed_where_it_is_made(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp, numpy as np")
    loaded.ok("def fit(x):\n    c = jnp.var(x)\n    return jnp.mean(x, keepdims=True), c\n"
              "m, c = fit(jnp.array([1.0, 2.0, 4.0]))")
    loaded.ok("sd = jnp.sqrt(c)")  # another cell reads the 0-d value as it is
    failed = loaded.run("v = jax.random.multivariate_normal(jax.random.key(0), m, c)")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"] == []


def test_parameters_are_followed_through_jax_frames(loaded: Notebook) -> None:
    """softmax -> max -> _reduction -> ... -> canonicalize_axis: the check's `axis` and
    `num_dims` are the user's `axis` and the rank of the user's `x`."""
    bundle = _card(loaded, "m = jnp.ones((2, 3))\njax.nn.softmax(m, axis=(0, 1, 2))")
    assert bundle["title"] == "jax.nn.softmax rejected its arguments x, axis"
    assert bundle["check"]["requirement"] == "-num_dims <= axis < num_dims"
    assert _argument(bundle, "where")["read"] is False


def test_a_method_of_an_array_the_line_computes(loaded: Notebook) -> None:
    bundle = _card(loaded, "jnp.zeros((2, 2)).sum(axis=3)")
    binding = bundle["binding"]
    assert binding["function"] == "jnp.zeros((2, 2)).sum"
    assert binding["public"] == "jax.Array.sum"
    assert _argument(bundle, "axis")["read"] is True
    assert _argument(bundle, "self")["value"] == "float32[2, 2]"


def test_an_operation_inside_a_jax_function_is_not_the_users(loaded: Notebook) -> None:
    """cholesky symmetrizes its input (a + a^H): a (2, 3) matrix fails there as an addition
    the user never wrote. No card may explain broadcasting of the user's line."""
    bundle = _card(loaded, "m = jnp.arange(6.0).reshape(2, 3)\nL = jnp.linalg.cholesky(m)")
    assert bundle["code"] == "JNH001"
    assert bundle["title"] == "jnp.linalg.cholesky failed inside, in its own add"
    assert "not from an operation your line wrote" in bundle["cause"]
    assert "combines" not in bundle["explanation"]
    # what the function requires of the argument, from its docstring, in the first sentence
    assert ("JAX documents `a` (your `m`, float32[2, 3]) as \u201cMust have shape "
            "`(..., N, N)`\u201d") in bundle["cause"]
    assert bundle["binding"]["inside"] == "add, in symmetrize (lax/linalg.py)"


@pytest.mark.parametrize("cell", [
    "x = jnp.ones(4) + jnp.ones(3)",  # the user's own operator
    "x = jnp.add(jnp.ones(4), jnp.ones(3))",  # the user's own elementwise function
    "@jax.jit\ndef f(a, b):\n    return a * b\n\nf(jnp.ones(4), jnp.ones(3))",
])
def test_the_users_own_operation_keeps_its_entry(loaded: Notebook, cell: str) -> None:
    assert _card(loaded, cell)["code"] == "JNH561"


# The audit (issue 44): JAX library functions whose shape or dtype error is raised by an
# operation inside them (an add, a sub, a concatenate, a broadcast of their arguments), not by
# one the user's line wrote. Each gets the card naming the user's call, never an operation
# entry's: broadcasting (JNH561), products (JNH562), reshape (JNH563), concatenate (JNH564),
# lax dtypes (JNH511), lax ranks (JNH565).
OPERATION_ENTRIES = {"JNH561", "JNH562", "JNH563", "JNH564", "JNH511", "JNH565"}
INSIDE = [
    ("jnp.linalg.cholesky", "jnp.linalg.cholesky(m23)"),  # a + a^H
    ("jnp.linalg.eigh", "jnp.linalg.eigh(m23)"),  # the same symmetrization
    ("jnp.clip", "jnp.clip(a3, a4)"),  # max(x, min)
    ("jax.scipy.stats.norm.pdf", "jax.scipy.stats.norm.pdf(a3, loc=a4)"),  # x - loc
    ("jax.scipy.stats.norm.logpdf", "jax.scipy.stats.norm.logpdf(a3, a4)"),
    ("jax.scipy.stats.multivariate_normal.logpdf",
     "jax.scipy.stats.multivariate_normal.logpdf(a3, a4, jnp.eye(4))"),
    ("jnp.trapezoid", "jnp.trapezoid(a3, a4)"),  # a product of differences
    ("jax.nn.logsumexp", "jax.nn.logsumexp(a3, b=a4)"),  # its arguments broadcast together
    ("jax.nn.softmax", "jax.nn.softmax(a3, where=a4 > 0)"),
    ("jnp.sum", "jnp.sum(a3, where=a4 > 0)"),
    ("jnp.nanmean", "jnp.nanmean(a3, where=a4 > 0)"),
    ("jnp.piecewise", "jnp.piecewise(a3, [a4 > 0], [1.0])"),
    ("jnp.take_along_axis", "jnp.take_along_axis(m23, jnp.zeros((2, 4), int), axis=0)"),
    ("jnp.cov", "jnp.cov(a3, a4)"),  # stacks its arguments
    ("jnp.corrcoef", "jnp.corrcoef(a3, a4)"),
    ("jnp.linalg.solve", "jnp.linalg.solve(m23, a3)"),
]


@pytest.mark.parametrize(("function", "cell"), INSIDE, ids=[f for f, _ in INSIDE])
def test_an_operation_inside_a_library_function_gets_no_operation_card(
        loaded: Notebook, function: str, cell: str) -> None:
    loaded.ok("import jax.scipy.stats\nm23 = jnp.arange(6.0).reshape(2, 3)\n"
              "a3 = jnp.ones(3)\na4 = jnp.ones(4)")
    bundle = _card(loaded, cell)
    assert bundle["code"] not in OPERATION_ENTRIES, bundle["title"]
    assert bundle["code"] in ("JNH001", "JNH000"), bundle["title"]
    if bundle["code"] == "JNH001":  # the card names the user's call
        assert function.rsplit(".", 1)[-1] in bundle["title"] + bundle["cause"], bundle


def test_a_product_inside_a_library_function(loaded: Notebook) -> None:
    """The matmul entry claims `a @ b` only: inside jnp.linalg.solve it is solve's."""
    assert _card(loaded, "jnp.ones((2, 3)) @ jnp.ones((2, 3))")["code"] == "JNH562"
    bundle = _card(loaded, "jnp.linalg.solve(jnp.ones((2, 3)), jnp.ones(3))")
    assert bundle["code"] == "JNH001"
    assert bundle["binding"]["public"] == "jax.numpy.linalg.solve"


@pytest.mark.parametrize(("cell", "said"), [
    ("jnp.zeros(2, 3, 4, 5, 6)", "it passes 5 arguments by position, and `zeros` takes "
     "`shape`, `dtype` by position; `device`, `out_sharding` only by name: `4`, `5`, `6` "
     "have no parameter."),
    ("jax.lax.fori_loop(0, 3, lambda i, c: c)",
     "`fori_loop` needs `init_val`, and the call does not give it."),
])
def test_a_call_that_does_not_fit_the_signature(loaded: Notebook, cell: str,
                                                said: str) -> None:
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert bundle["title"].endswith("does not take these arguments")
    assert bundle["binding"]["mismatch"] == said
    assert bundle["check"] is None  # Python's binding failed before JAX checked anything


def test_a_keyword_close_to_one_parameter_is_renamed(loaded: Notebook) -> None:
    loaded.ok("import jax")
    failed = loaded.run("sample = jax.random.normal(jax.random.key(0), shap=(3,))")
    (bundle,) = failed.diagnoses
    assert [fix["label"] for fix in bundle["fixes"]] == ["Pass shape= instead of shap="]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["sample"].shape == (3,)
    # two parameters close to it: which one is the user's to say
    failed = loaded.run("sample = jax.random.uniform(jax.random.key(0), (3,), val=0.5)")
    assert failed.diagnoses[0]["fixes"] == []


@pytest.mark.parametrize(("cell", "label", "name", "check"), [
    # a shape computed with `/`: the tuple as written, with the float element made an int
    ("n = 6 / 2\nz = jnp.zeros((n, 2))", "Use (int(n), 2)", "z", "z.shape == (3, 2)"),
    ("z = jnp.zeros(3.0)", "Use 3", "z", "z.shape == (3,)"),
    ("h = jax.nn.one_hot(jnp.array([0, 2]), 6 / 2)", "Use int(6 / 2)", "h",
     "h.shape == (2, 3)"),
    ("parts = jax.random.split(jax.random.key(0), 4 / 2)", "Use int(4 / 2)", "parts",
     "parts.shape == (2,)"),
    ("i = np.float32(2.0)\nv = jnp.arange(5.0)[i]", "Use int(i)", "v", "float(v) == 2.0"),
    # JAX only says it met a float ('float' object is not iterable); the parameter's
    # annotation (axis: Axis, int | Sequence[int]) says an integer was needed
    ("v = jnp.sum(jnp.ones((2, 3)), axis=1.0)", "Use 1", "v", "v.tolist() == [3.0, 3.0]"),
    ("v = jnp.expand_dims(jnp.ones(3), 1.0)", "Use 1", "v", "v.shape == (3, 1)"),
    # fori_loop's message sets two types side by side; its docstring says "an integer"
    ("x = jnp.ones(6)\nv = jax.lax.fori_loop(0, x.shape[0] / 2, lambda i, c: c + 1.0, 0.0)",
     "Use int(x.shape[0] / 2)", "v", "float(v) == 3.0"),
    # a shape of one float JAX shows as the tuple it made (got (2.0,)), beside a fraction
    ("n = 2.0\nv = jnp.full(n, 1.5)", "Use int(n)", "v", "v.tolist() == [1.5, 1.5]"),
    # a slice's bound: its own argument, made an int where it is whole
    ("x = jnp.arange(6)\nhalf = x.shape[0] / 2\nv = x[:half]", "Use int(half)", "v",
     "v.tolist() == [0, 1, 2]"),
])
def test_a_whole_float_where_jax_needs_an_integer(loaded: Notebook, cell: str, label: str,
                                                  name: str, check: str) -> None:
    """JAX's contract: an integer. The user's one float argument holds a whole number, so
    the integer is the same number: the explained card's recommended fix, rewritten into
    the cell, run, and called safe."""
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert [fix["label"] for fix in bundle["fixes"]] == [label]
    assert bundle["recommended"] == 1
    assert bundle["fixes"][0]["safe"] is True
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert eval(check, {"np": np}, {name: loaded[name]})


@pytest.mark.parametrize(("cell", "label", "name", "check"), [
    # a one-element array converted to a Python scalar: its one element
    ("loss = jnp.array([2.5])\nvalue = float(loss)", "Use loss[0]", "value", "value == 2.5"),
    ("count = jnp.array([[3]])\nn = int(count)", "Use count[0, 0]", "n", "n == 3"),
    # a list as an index: the array JAX's message prescribes, NumPy's meaning
    ("m = jnp.arange(12.0).reshape(3, 4)\nrows = m[[0, 2]]", "Index with jnp.array([0, 2])",
     "rows", "rows.shape == (2, 4) and float(rows[1, 0]) == 8.0"),
    # values where lax.cond takes functions it calls with no operands: functions of nothing
    ("x = jnp.array([1.0, -2.0])\ny = jax.lax.cond(x[0] > 0, x * 2, -x)",
     "Pass functions: lambda: ...", "y", "y.tolist() == [2.0, -4.0]"),
    # an int where the parameter's annotation takes a sequence (Python: 'int' has no len())
    ("y = jax.lax.dynamic_slice(jnp.arange(5.0), 2, (2,))", "Use (2,)", "y",
     "y.tolist() == [2.0, 3.0]"),
    # several: each int where a sequence is taken ('int' object is not iterable)
    ("y = jax.lax.slice(jnp.arange(5.0), 1, 3)", "Use sequences", "y",
     "y.tolist() == [1.0, 2.0]"),
    # two floats: the one at the parameter typed as a shape is the one JAX meant
    ("z = jnp.full((2.0,), 1.5)", "Use (2,)", "z", "z.tolist() == [1.5, 1.5]"),
    # a shape where the key goes and the key where the shape goes: they trade places
    ("key = jax.random.key(0)\nr = jax.random.normal((3,), key)", "Swap (3,) and key", "r",
     "r.shape == (3,)"),
    # Python's message shows no value: the float at the parameter annotated `int`
    ("g = jnp.linspace(0.0, 1.0, 5.0)", "Use 5", "g", "float(g[1]) == 0.25"),
    # an integer array JAX got from a call the line writes (read as jnp.take received it)
    ("t = jnp.take(jnp.arange(3.0), jnp.array([2.0, 1.0]))", "Use integers", "t",
     "t.tolist() == [2.0, 1.0]"),
    # the call JAX's message writes in its parameters' names, with the user's arguments
    ("A = jnp.stack([2.0 * jnp.eye(2)] * 3)\nb = jnp.ones((3, 2))\nu = jnp.linalg.solve(A, b)",
     "Use the call JAX suggests", "u", "u.tolist() == [[0.5, 0.5]] * 3"),
    # one value where a function's extra arguments go: the tuple of that one argument
    ("from jax.scipy.optimize import minimize\nd = jnp.array([1.0, 2.0])\n"
     "v = minimize(lambda c, t: jnp.sum((c - t) ** 2), jnp.zeros(2), d, method='BFGS').x",
     "Pass (d,)", "v", "abs(float(v[0]) - 1.0) < 1e-3 and abs(float(v[1]) - 2.0) < 1e-3"),
    # a one-item list where the tree it must match is one leaf: the item alone
    ("from jax.experimental import pallas as pl\ndef k(x_ref, o_ref):\n"
     "    o_ref[...] = x_ref[...] * 2\n"
     "v = pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(1,),\n"
     "                   in_specs=[pl.BlockSpec((8,), lambda i: (i,))],\n"
     "                   out_specs=[pl.BlockSpec((8,), lambda i: (i,))],\n"
     "                   interpret=True)(jnp.ones(8))",
     "Pass out_specs without the list", "v", "v.tolist() == [2.0] * 8"),
    # one point and one tangent where jvp takes a tuple of each: 1-tuples
    ("p = {'a': 3.0}\nt = {'a': 1.0}\nv = jax.jvp(lambda q: q['a'] ** 2, p, t)[1]",
     "Pass (p,) and (t,)", "v", "float(v) == 6.0"),
    # pad widths written for one more axis, whose leading pair pads nothing
    ("g = jnp.ones((2, 2))\nv = jnp.pad(g, ((0, 0), (1, 1), (1, 1)))",
     "Pass ((1, 1), (1, 1))", "v", "v.shape == (4, 4) and float(v.sum()) == 4.0"),
    # a tangent built as a plain tuple where its point is a NamedTuple
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    a: float\n    b: float\n"
     "p = P(1.0, 2.0)\nt = (1.0, 0.0)\nv = jax.jvp(lambda q: q.a * q.b, (p,), (t,))[1]",
     "Pass (P(*t),)", "v", "float(v) == 2.0"),
    # a boolean where lax.switch takes a branch index: False is branch 0, True branch 1
    ("v = jax.lax.switch(jnp.array(True), [lambda x: x - 1, lambda x: x + 1], 1.0)",
     "Use jnp.int32(jnp.array(True))", "v", "float(v) == 2.0"),
    # printf placeholders where jax.debug.print fills str.format's
    ("x = jnp.float32(0.5)\njax.debug.print('half: %.2f', x)\nv = x", "Use {} placeholders",
     "v", "float(v) == 0.5"),
    # a function where lax.cond takes the predicate's value
    ("def positive(x):\n    return x > 0\n"
     "v = jax.lax.cond(positive, lambda x: x, lambda x: -x, -2.0)",
     "Pass positive(-2.0)", "v", "float(v) == 2.0"),
    # integers past int32 below 2**32: uint32 holds them
    ("v = jnp.array([3000000000, 7])", "Make them uint32", "v",
     "v.tolist() == [3000000000, 7]"),
    # a Python int bound past int32 where the call asks for uint32
    ("top = 4294967295\nv = jax.random.randint(jax.random.key(0), (3,), 0, top, "
     "dtype=jnp.uint32)", "Pass jnp.uint32(top)", "v", "str(v.dtype) == 'uint32'"),
    # a real point where a holomorphic derivative takes a complex one
    ("z = jnp.ones(2)\nv = jax.jacrev(lambda u: u ** 2, holomorphic=True)(z)",
     "Pass z as complex64", "v", "v.tolist() == [[2, 0], [0, 2]]"),
    # a bin made by `//` that indexes on two lines: made an integer where it is assigned
    ("e = jnp.array([0.3, 1.7, 2.2])\ndef count(i, c):\n    h, n = c\n    b = e[i] // 1.0\n"
     "    h = h.at[b].add(0.5)\n    n = n.at[b].add(1)\n    return h, n\n"
     "h, n = jax.lax.fori_loop(0, 3, count, (jnp.zeros(3), jnp.zeros(3, int)))",
     "Make b integers", "n", "n.tolist() == [1, 1, 1]"),
    # a cotangent of another dtype than the output's: cast, where float16 holds it
    ("h = jnp.array([1.0, 2.0], jnp.float16)\n"
     "_, back = jax.vjp(lambda u: jnp.sum(u * u), h)\n(v,) = back(1.0)",
     "Pass 1.0 as float16", "v", "v.tolist() == [2.0, 4.0] and str(v.dtype) == 'float16'"),
    # NumPy int32 key data where uint32 is expected: its numbers, none negative, as uint32
    ("import numpy as np\nk = np.array([0, 7], dtype=np.int32)\n"
     "v = jax.random.uniform(k, (2,))", "Pass k as uint32", "v", "v.shape == (2,)"),
    # static_argnums past the function's parameters: the position is dropped
    ("g = jax.jit(lambda a, k: a * k, static_argnums=(1, 2))\nv = g(jnp.ones(2), 3)",
     "Drop position 2", "v", "v.tolist() == [3.0, 3.0]"),
    ("g = jax.jit(lambda a, k: a * k, donate_argnums=(4,))\nv = g(jnp.ones(2), 3)",
     "Drop position 4", "v", "v.tolist() == [3.0, 3.0]"),
    # a custom JVP rule that returns the tangent alone: the primal output goes first
    ("@jax.custom_jvp\ndef sq(x):\n    return x * x\n@sq.defjvp\ndef sq_jvp(p, t):\n"
     "    (x,), (dx,) = p, t\n    return 2 * x * dx\nv = jax.grad(sq)(3.0)",
     "Return sq(*p) and the tangent", "v", "float(v) == 6.0"),
    # positional-only parameters passed by keyword: by position, in the signature's order
    ("m = jnp.array([True, False])\nv = jnp.where(m, y=jnp.zeros(2), x=jnp.ones(2))",
     "Pass them by position", "v", "v.tolist() == [1.0, 0.0]"),
    # a keyword JAX ignored, then refused: dropped
    ("v = jnp.argsort(jnp.array([2, 1, 2]), kind='stable')", "Drop kind=", "v",
     "v.tolist() == [1, 0, 2]"),
    # norm over three axes: the vector norm of their elements together
    ("v = jnp.linalg.norm(jnp.ones((2, 2, 2, 4)), axis=(1, 2, 3))", "Use jnp.linalg.vector_norm",
     "v", "v.tolist() == [4.0, 4.0]"),
    # one array passed twice where the call donates it: the later one a copy
    ("g = jax.jit(lambda a, b: a + b, donate_argnums=(0,))\nt = jnp.ones(2)\nv = g(t, t)",
     "Pass a copy of t", "v", "v.tolist() == [2.0, 2.0]"),
    # mode='raise' where every index is in range: nothing would raise
    ("t = jnp.arange(4.0)\ni = jnp.array([3, 0])\nv = jnp.take(t, i, mode='raise')",
     "Drop mode='raise'", "v", "v.tolist() == [3.0, 0.0]"),
    # NumPy's out=: the result assigned to the array it names
    ("v = jnp.zeros((2, 2))\njnp.fill_diagonal(v, 1.0)", "Assign the result to v", "v",
     "v.tolist() == [[1.0, 0.0], [0.0, 1.0]]"),
    ("v = jnp.ones(3)\nv = jnp.cumsum(v, out=v)", "Assign the result to v", "v",
     "v.tolist() == [1.0, 2.0, 3.0]"),
    # checkpoint's static_argnums count positions: keywords by position, at every such call
    ("from functools import partial\n"
     "@partial(jax.checkpoint, static_argnums=(1,))\ndef step(h, twice):\n"
     "    return h * 4 if twice else h * 2\n"
     "def total(h):\n    return step(h, twice=True).sum() + step(h, twice=False).sum()\n"
     "v = jax.grad(total)(jnp.ones(2))", "Pass them by position", "v",
     "v.tolist() == [6.0, 6.0]"),
    # array bounds for a draw whose shape was left at (): one draw per bound, as NumPy's
    ("lo = jnp.zeros(4)\nv = jax.random.uniform(jax.random.key(0), minval=lo, maxval=lo + 1)",
     "Pass shape=lo.shape", "v", "v.shape == (4,) and bool(((v >= 0) & (v < 1)).all())"),
    # a static_argnames name no parameter has, none close: the one parameter used as a size
    ("from functools import partial\n"
     "@partial(jax.jit, static_argnames=('count',))\ndef first(x, n):\n    return x[:n]\n"
     "v = first(jnp.arange(5.0), 2)", "Name n", "v", "v.tolist() == [0.0, 1.0]"),
    # an integer to a negative power: the base as a float, the reciprocal NumPy gives
    ("n = jnp.array([1, 2, 4])\nv = n ** -1", "Raise it as a float", "v",
     "v.tolist() == [1.0, 0.5, 0.25]"),
    # bitwise operators on float flags of 0 and 1: the logical operation, as booleans
    ("a = jnp.array([1.0, 0.0, 0.0])\nb = jnp.array([0.0, 0.0, 1.0])\nv = a | b",
     "Use jnp.logical_or", "v", "v.tolist() == [True, False, True]"),
    ("a = jnp.array([1.0, 0.0])\nv = ~a", "Use jnp.logical_not", "v",
     "v.tolist() == [False, True]"),
    # an aux output spread over the return: the rest grouped as one tuple
    ("def f(w):\n    return (w ** 2).sum(), w, 2 * w\n"
     "(v, (p, q)), g = jax.value_and_grad(f, has_aux=True)(jnp.ones(2))",
     "Return the aux as one tuple", "g", "g.tolist() == [2.0, 2.0]"),
    # a predicate of one element: that element as the scalar cond takes
    ("x = jnp.array([2.0])\nv = jax.lax.cond(x > 1, lambda: 1.0, lambda: 0.0)",
     "Pass the predicate as a scalar", "v", "float(v) == 1.0"),
    # 0-d arrays joined: hstack, NumPy's spelling of one element each
    ("v = jnp.concatenate([jnp.float32(1), jnp.arange(2.0)])", "Use jnp.hstack", "v",
     "v.tolist() == [1.0, 0.0, 1.0]"),
    # a callback's float64 result type while 64-bit values are off: JAX's canonical float32
    ("import numpy as np\ndef host(m):\n    return np.asarray(m, np.float64) * 0.5\n"
     "v = jax.jit(lambda m: jax.pure_callback(host, jax.ShapeDtypeStruct((2,), 'float64'), m))"
     "(jnp.ones(2))", "Ask for 32-bit floats", "v",
     "v.tolist() == [0.5, 0.5] and str(v.dtype) == 'float32'"),
    # a state whose leaf is the very array the parameters hold, both donated: a copy of it
    ("from functools import partial\n@partial(jax.jit, donate_argnums=(0, 1))\n"
     "def step(p, s):\n    return jax.tree.map(lambda a, b: a + b, p, s['z']), s['n'] + 1\n"
     "p = {'w': jnp.ones(2)}\ns = {'n': jnp.zeros(()), 'z': p}\nv, n = step(p, s)",
     "Pass a copy of s", "v", "v['w'].tolist() == [2.0, 2.0]"),
    # the derivative of a complex output at a real point: jacfwd's df/dx
    ("def r(w):\n    return 1.0 / (1.0 + 1j * w)\nv = jax.grad(r)(0.5)", "Use jax.jacfwd", "v",
     "abs(complex(v) - (-1j / (1 + 0.5j) ** 2)) < 1e-5"),
    # a float16 matrix LAPACK has no routine for: the same matrix in float32
    ("a = jnp.array([[4.0, 1.0], [1.0, 3.0]], jnp.float16)\nv = jnp.linalg.inv(a)",
     "Compute in float32", "v",
     "str(v.dtype) == 'float32' and abs(float(v[0, 0]) - 3 / 11) < 1e-6"),
    # both arguments of a solve, bfloat16; a float32 right-hand side is left as it is
    ("a = jnp.eye(2, dtype=jnp.bfloat16) * 2\nb = jnp.ones(2, jnp.bfloat16)\n"
     "v = jnp.linalg.solve(a, b)", "Compute in float32", "v",
     "str(v.dtype) == 'float32' and v.tolist() == [0.5, 0.5]"),
    ("a = jnp.eye(2, dtype=jnp.float16) * 4\nv = jax.scipy.linalg.cholesky(a, lower=True)",
     "Compute in float32", "v", "v.tolist() == [[2.0, 0.0], [0.0, 2.0]]"),
    # inside a jitted function: the traced argument is cast where the routine is called
    ("@jax.jit\ndef whiten(c, x):\n    return x @ jnp.linalg.inv(c)\n"
     "v = whiten(jnp.eye(2, dtype=jnp.float16) * 2, jnp.ones((1, 2), jnp.float16))",
     "Compute in float32", "v", "v.tolist() == [[0.5, 0.5]]"),
    # channels-last images given to a channels-first convolution: the one axis of the
    # kernel's channel count read as the channels, the others in their order
    ("x = jnp.arange(2 * 5 * 4 * 3.0).reshape(2, 5, 4, 3)\nk = jnp.ones((4, 3, 2, 2))\n"
     "v = jax.lax.conv(x, k, (1, 1), 'VALID')", "Read the channels at axis 3", "v",
     "v.shape == (2, 4, 4, 3) and float(v[0, 0, 0, 0]) == 102.0"),
    # a 0-d leaf among batches summed over axis 0: the one number as a batch of one
    ("def per_batch(t):\n    return jnp.sum(t, axis=0)\n"
     "v = jax.tree.map(per_batch, {'a': jnp.ones((3, 2)), 'n': jnp.float32(4.0)})",
     "Pass it through jnp.atleast_1d", "v",
     "v['a'].tolist() == [3.0, 3.0] and float(v['n']) == 4.0"),
    # a 0-d variance computed on the line: the 1x1 covariance of one variable
    ("r = jnp.array([1.0, 2.0, 4.0])\n"
     "v = jax.random.multivariate_normal(jax.random.key(0), r.mean(keepdims=True), r.var())",
     "Pass it through jnp.atleast_2d", "v", "v.shape == (1,)"),
    # an aux output the function never returns, computed in it under the name the line
    # unpacks it as: returned beside the value, for grad, value_and_grad and vjp
    ("def f(x):\n    pred = x * 2\n    return jnp.sum(pred ** 2)\n"
     "g, pred = jax.grad(f, has_aux=True)(jnp.ones(2))",
     "Return pred as the aux output", "g", "g.tolist() == [8.0, 8.0]"),
    ("def f(x):\n    pred = x * 2\n    return jnp.sum(pred ** 2)\n"
     "(v, pred), g = jax.value_and_grad(f, has_aux=True)(jnp.ones(2))",
     "Return pred as the aux output", "v", "float(v) == 8.0"),
    ("def f(x):\n    pred = x * 2\n    return jnp.sum(pred ** 2)\n"
     "v, f_vjp, pred = jax.vjp(f, jnp.ones(2), has_aux=True)",
     "Return pred as the aux output", "pred", "pred.tolist() == [2.0, 2.0]"),
    # ... and a line that keeps the gradient alone wants no aux: has_aux=True dropped
    ("def f(x):\n    return jnp.sum(x ** 2)\nv = jax.grad(f, has_aux=True)(jnp.ones(2))",
     "Drop has_aux=True", "v", "v.tolist() == [2.0, 2.0]"),
])
def test_contract_fixes_that_keep_every_value(loaded: Notebook, cell: str, label: str,
                                             name: str, check: str) -> None:
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert [fix["label"] for fix in bundle["fixes"]] == [label]
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert eval(check, {}, {name: loaded[name]})


def test_a_64_bit_integer_result_type_is_not_narrowed(loaded: Notebook) -> None:
    """int64 to int32 would change a number past int32, not round it: no fix."""
    bundle = _card(loaded, "import numpy as np\ndef host(m):\n    return np.asarray(m, np.int64)\n"
                           "v = jax.pure_callback(host, jax.ShapeDtypeStruct((2,), np.int64), "
                           "jnp.ones(2, int))")
    assert bundle["code"] == "JNH001"
    assert bundle["fixes"] == []


def test_a_removed_keyword_that_reached_the_callback_is_its_replacement(
        loaded: Notebook) -> None:
    """``pure_callback(..., vectorized=True)`` where this JAX no longer takes ``vectorized``
    (removed in 0.10.0; earlier releases take it, with a warning, and raise nothing)."""
    import inspect

    import jax

    if "vectorized" in inspect.signature(jax.pure_callback).parameters:
        pytest.skip("this JAX's pure_callback still takes vectorized=")
    _fixed_by_contract(
        loaded, "def host(m):\n    return np.asarray(m).sum(-1).astype(np.float32)\n"
        "def f(m):\n    out = jax.ShapeDtypeStruct(m.shape[:-1], jnp.float32)\n"
        "    return jax.pure_callback(host, out, m, vectorized=True)\n"
        "v = jax.vmap(f)(jnp.ones((3, 2)))",
        'Use vmap_method="legacy_vectorized"', "v.tolist() == [2.0, 2.0, 2.0]")


def test_out_in_a_loop_assigns_the_result_once(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nv = jnp.zeros(2)\n"
              "rows = [jnp.ones(2), jnp.ones(2), jnp.ones(2)]")
    bundle = _card(loaded, "for row in rows:\n    jnp.add(v, row, out=v)")
    assert [fix["label"] for fix in bundle["fixes"]] == ["Assign the result to v"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["v"].tolist() == [3.0, 3.0]


@pytest.mark.parametrize("cell", [
    "value = float(jnp.array([1.0, 2.0]))",  # two elements: which one is the user's choice
    "m = jnp.arange(12.0).reshape(3, 4)\nrows = m[[0, slice(None)]]",  # not indices
    # a cotangent float16 cannot hold exactly: the cast would change it
    "h = jnp.array([1.0, 2.0], jnp.float16)\n_, back = jax.vjp(lambda u: jnp.sum(u * u), h)\n"
    "(v,) = back(1.0001)",
    # an index out of range: mode='raise' would have raised there
    "t = jnp.arange(4.0)\ni = jnp.array([4, 0])\nv = jnp.take(t, i, mode='raise')",
    # negative key data: uint32 would wrap it
    "import numpy as np\nk = np.array([-1, 7], dtype=np.int32)\nv = jax.random.uniform(k, (2,))",
    # float flags that are not 0 and 1: what `|` of them would mean is not read
    "a = jnp.array([0.5, 0.0])\nv = a | jnp.ones(2)",
    # aux values unpacked flat: how to group them is the user's to say
    "def f(w):\n    return (w ** 2).sum(), w, 2 * w\n"
    "(v, p, q), g = jax.value_and_grad(f, has_aux=True)(jnp.ones(2))",
    # an aux output the function never returns and holds under no name the line gives it
    "def f(x):\n    y = x * 2\n    return jnp.sum(y)\n"
    "g, aux = jax.grad(f, has_aux=True)(jnp.ones(2))",
    # ... or holds as its parameter: handing the input back is not what an aux is for
    "def f(x):\n    return jnp.sum(x)\ng, x = jax.grad(f, has_aux=True)(jnp.ones(2))",
    # a predicate of two elements: which truth value was meant is the user's to say
    "v = jax.lax.cond(jnp.ones(2) > 0, lambda: 1.0, lambda: 0.0)",
    # a 0-d array joined to a matrix: where its element goes is not read
    "v = jnp.concatenate([jnp.float32(1), jnp.ones((1, 2))])",
    # two axes of the kernel's channel count: which holds the channels is not read
    "v = jax.lax.conv(jnp.ones((2, 10, 3, 3)), jnp.ones((4, 3, 2, 2)), (1, 1), 'VALID')",
    # a vector where a matrix is asked for: a row or a column is not read
    "v = jax.random.multivariate_normal(jax.random.key(0), jnp.zeros(2), jnp.ones(2))",
    # a notebook's global holding the 0-d value: the lasting fix is where it is made
    "c = jnp.float32(2.0)\nv = jax.random.multivariate_normal(jax.random.key(0), jnp.zeros(1), c)",
])
def test_no_contract_fix_where_values_would_change(loaded: Notebook, cell: str) -> None:
    bundle = _card(loaded, cell)
    assert bundle["fixes"] == [] or bundle["code"] != "JNH001"


@pytest.mark.parametrize("cell", [
    "z = jnp.zeros(2.5)",  # a fraction: which integer was meant is the user's choice
    # two floats at two parameters typed int: which one Python's message meant is not read
    "z = jnp.linspace(0.0, 1.0, 5.0, axis=0.0)",
    "v = jnp.sum(jnp.ones((2, 3)), axis=1.5)",  # a fraction where the axis goes
    "s = jax.ops.segment_sum(jnp.ones(3), jnp.array([0.0, 1.0, 1.0]), 2)",  # arrays: data
    # two dtypes set against each other: an int for the float would change the arithmetic
    "q = jax.lax.div(jnp.arange(4), 2.0)",
])
def test_no_integer_fix_without_one_whole_float(loaded: Notebook, cell: str) -> None:
    bundle = _card(loaded, cell)
    assert bundle["fixes"] == [] or bundle["code"] != "JNH001"


def test_a_traced_float_index_is_offered_with_what_it_changes(loaded: Notebook) -> None:
    """Inside jit the index's values cannot be read where the jitted function's argument is
    computed by a call on the calling line: the conversion is offered with the fraction it
    drops, never recommended."""
    loaded.ok("import jax, jax.numpy as jnp")
    loaded.ok("w = jnp.array([0.5, 2.0])\nrows = jnp.array([[0.0, 1.5], [1.0, 3.0]])")
    bundle = _card(loaded, "t = jax.jit(lambda r: w[r[0]] * r[1])(jnp.flip(rows)[0])")
    assert bundle["code"] == "JNH001"
    (fix,) = bundle["fixes"]
    assert fix["label"] == 'Use r[0].astype("int32")'
    assert fix["safe"] is False
    assert bundle["recommended"] is None


def test_a_traced_float_index_passed_as_a_row_of_a_global_is_read(loaded: Notebook) -> None:
    """The jitted lambda's argument is a row of a concrete array the calling line names:
    its values are read there, and a whole number is the same integer."""
    loaded.ok("import jax, jax.numpy as jnp")
    loaded.ok("w = jnp.array([0.5, 2.0])\nrows = jnp.array([[0.0, 1.5], [1.0, 3.0]])")
    bundle = _card(loaded, "t = jax.jit(lambda r: w[r[0]] * r[1])(rows[1])")
    assert bundle["recommended"] == 1
    assert bundle["fixes"][0]["safe"]
    assert "come from `rows[1]`" in bundle["fixes"][0]["safety"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["t"]) == 6.0


@pytest.mark.parametrize(("cell", "label", "check"), [
    # a name assigned from jnp.floor in the traced function, used as an index under jit
    ("@jax.jit\ndef look(x):\n    i = jnp.floor(x / 0.5)\n    return jnp.arange(8.0)[i]\n"
     "v = look(1.2)", 'Use i.astype("int32")', "float(v) == 2.0"),
    # floor division of floats, under vmap
    ("v = jax.vmap(lambda t: jnp.arange(8.0)[t // 2.0])(jnp.array([1.0, 5.0]))",
     'Use (t // 2.0).astype("int32")', "v.tolist() == [0.0, 2.0]"),
    # the index of an update, not the update's value
    ("@jax.jit\ndef deposit(g, x):\n    return g.at[jnp.round(x)].add(1.0)\n"
     "v = deposit(jnp.zeros(4), 2.2)", 'Use jnp.round(x).astype("int32")',
     "v.tolist() == [0.0, 0.0, 1.0, 0.0]"),
    # a call's argument: JAX's message says only "integer type"
    ("v = jnp.take(jnp.arange(4.0), jnp.ceil(jnp.array([0.5, 1.5])))", "Use integers",
     "v.tolist() == [1.0, 2.0]"),
])
def test_a_rounded_float_index_is_whole_by_construction(loaded: Notebook, cell: str,
                                                        label: str, check: str) -> None:
    """jnp.floor, ceil, round, trunc and ``//`` make whole numbers whatever they are given:
    a traced index computed by one of them converts to the same integers, so the fix is
    called safe and recommended."""
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert [fix["label"] for fix in bundle["fixes"]] == [label]
    assert bundle["fixes"][0]["safe"] is True
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert eval(check, {}, {"v": loaded["v"]})


@pytest.mark.parametrize("cell", [
    # a product of a rounded number is not rounded; a name assigned in a loop is not read
    "@jax.jit\ndef look(x):\n    i = jnp.floor(x) * 0.5\n    return jnp.arange(8.0)[i]\n"
    "v = look(3.0)",
    "@jax.jit\ndef look(x):\n    i = jnp.floor(x)\n    for _ in range(2):\n        i = i / 2\n"
    "    return jnp.arange(8.0)[i]\nv = look(3.0)",
])
def test_a_float_index_not_rounded_is_never_called_safe(loaded: Notebook, cell: str) -> None:
    bundle = _card(loaded, cell)
    assert bundle["recommended"] is None


@pytest.mark.parametrize(("cell", "label", "check"), [
    ("v = jnp.zeros(2, 3)", "Pass (2, 3) as shape", "v.shape == (2, 3)"),
    ("v = jnp.reshape(jnp.arange(6.0), 3, 2)", "Pass (3, 2) as shape",
     "v.shape == (3, 2) and float(v[2, 1]) == 5.0"),
    ("v = jnp.transpose(jnp.ones((2, 3, 4)), 2, 0, 1)", "Pass (2, 0, 1) as axes",
     "v.shape == (4, 2, 3)"),
])
def test_dimensions_spread_over_arguments_become_one_tuple(loaded: Notebook, cell: str,
                                                           label: str, check: str) -> None:
    """The function takes one shape (or axes) tuple; the ints the call lists, in order, are
    that tuple."""
    _fixed_by_contract(loaded, cell, label, check)


def test_values_spread_over_arguments_become_one_list(loaded: Notebook) -> None:
    """jnp.array takes its values as one sequence; the numbers the call lists are it."""
    _fixed_by_contract(loaded, "v = jnp.array(1.0, 2.0, 3.0)", "Pass [1.0, 2.0, 3.0]",
                       "v.tolist() == [1.0, 2.0, 3.0]")
    # numbers of different types are left alone: which dtype was meant is not read
    assert _card(loaded, "w = jnp.array(1, 2.0)")["recommended"] is None


@pytest.mark.parametrize(("cell", "label", "check"), [
    ("a = jnp.ones((2, 3))\nb = jnp.zeros((1, 3))\nv = jnp.concatenate(a, b)",
     "Pass (a, b) as arrays", "v.shape == (3, 3) and float(v[2, 0]) == 0.0"),
    ("a = jnp.ones(3)\nb = 2 * a\nv = jnp.stack(a, b, a)", "Pass (a, b, a) as arrays",
     "v.shape == (3, 3) and float(v[1, 0]) == 2.0"),
    ("a = jnp.ones((2, 3))\nv = jnp.vstack(a, a)", "Pass (a, a) as tup", "v.shape == (4, 3)"),
    # more arrays than the function has positional parameters: Python's own binding error
    ("a = jnp.ones(2)\nv = jnp.hstack(a, a, a)", "Pass (a, a, a) as tup", "v.shape == (6,)"),
    # an array the line makes: read as JAX's frame received it
    ("a = jnp.ones((2, 3))\nv = jnp.concatenate(a, jnp.zeros((1, 3)))",
     "Pass (a, jnp.zeros((1, 3))) as arrays", "v.shape == (3, 3)"),
])
def test_arrays_passed_apart_become_the_one_sequence(loaded: Notebook, cell: str, label: str,
                                                      check: str) -> None:
    """The function takes its arrays as one sequence; the second array landed in its axis
    (or dtype) parameter. The arrays the call lists, in order, are that sequence."""
    _fixed_by_contract(loaded, cell, label, check)


@pytest.mark.parametrize("cell", [
    # arrays of different ranks: one of them may be meant as something else
    "a = jnp.ones((2, 3))\nv = jnp.concatenate(a, jnp.ones(3))",
    # a rank-0 float where the axis goes: not an array of the sequence
    "a = jnp.ones((2, 3))\nv = jnp.concatenate([a, a], jnp.float32(1.0))",
])
def test_no_sequence_fix_where_the_arrays_are_not_alike(loaded: Notebook, cell: str) -> None:
    assert _card(loaded, cell)["recommended"] is None


@pytest.mark.parametrize(("cell", "label", "check"), [
    ("v = jax.tree_util.tree_map({'a': jnp.ones(2)}, lambda t: t * 3)",
     "Pass lambda t: t * 3 as f", "float(v['a'][1]) == 3.0"),
    ("def step(c, x):\n    return c + x, c\nv, _ = jax.lax.scan(0.0, step, jnp.arange(4.0))",
     "Pass step as f", "float(v) == 6.0"),
])
def test_a_function_given_in_another_place_goes_where_it_is_taken(
        loaded: Notebook, cell: str, label: str, check: str) -> None:
    """The parameter that takes the function got data, and one other argument is the one
    function of the call: swapped, each goes where the signature takes it."""
    _fixed_by_contract(loaded, cell, label, check)


def test_a_function_is_not_swapped_into_an_axis(loaded: Notebook) -> None:
    bundle = _card(loaded, "v = jax.vmap(jnp.ones(3), lambda t: t)")
    assert bundle["fixes"] == []


@pytest.mark.parametrize(("cell", "label", "check"), [
    # JAX's message names the parameter: `pad_width` must be of integral type
    ("v = jnp.pad(jnp.ones(2), 1.0)", "Use 1", "v.shape == (4,)"),
    # "indices must have an integer type": the array bound to `indices` holds whole floats
    ("i = jnp.array([2.0, 0.0])\nv = jnp.take(jnp.arange(3.0) * 10, i)", 'Use i.astype("int32")',
     "v.tolist() == [20.0, 0.0]"),
])
def test_the_argument_jax_names_is_made_an_integer(loaded: Notebook, cell: str, label: str,
                                                   check: str) -> None:
    _fixed_by_contract(loaded, cell, label, check)


def test_a_dtype_after_the_shape_is_not_a_spread_dimension(loaded: Notebook) -> None:
    bundle = _card(loaded, "v = jnp.zeros(2, 'not a dtype')")
    assert bundle["recommended"] is None


def test_a_whole_float_literal_passed_as_an_index_becomes_an_int(loaded: Notebook) -> None:
    """The jitted function uses its parameters only as indices, and the call writes 2.0 and
    0.0: written 2 and 0, the same elements are picked (the calling line is rewritten, both
    literals at once)."""
    cell = ("t = jnp.array([10.0, 20.0, 30.0])\n@jax.jit\ndef pick(i, j):\n"
            "    return t[i] + t.at[j].get()\nv = pick(2.0, j=0.0)")
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert [fix["label"] for fix in bundle["fixes"]] == ["Pass 2 for 2.0, 0 for 0.0"]
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["v"]) == 40.0


def test_a_float_parameter_used_as_a_number_too_is_not_rewritten(loaded: Notebook) -> None:
    """``i`` is a number in ``t[i] * i`` too: the call keeps its float, and only the index,
    whose value 2.0 the call passes in, is written as an integer."""
    cell = ("t = jnp.array([10.0, 20.0, 30.0])\n@jax.jit\ndef pick(i):\n"
            "    return t[i] * i\nv = pick(2.0)")
    bundle = _card(loaded, cell)
    assert [fix["label"] for fix in bundle["fixes"]] == ['Use i.astype("int32")']
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["v"]) == 60.0


@pytest.mark.parametrize(("cell", "check"), [
    ("def step(c, x):\n    return c + x, c\nv, seen = jax.lax.scan(step, 0.0, [1.5, 2.0, 3.0])",
     "float(v) == 6.5 and seen.tolist() == [0.0, 1.5, 3.5]"),
    ("v, _ = jax.lax.scan(lambda c, k: (c * k, None), 1, xs=(2, 3, 4))", "int(v) == 24"),
])
def test_a_list_of_numbers_is_scanned_along_the_list(loaded: Notebook, cell: str,
                                                     check: str) -> None:
    """scan reads a list as a tree of leaves, each scanned along its own leading axis, which
    a number lacks; an array of the list is scanned element by element."""
    bundle = _card(loaded, cell)
    assert bundle["code"] == "JNH001"
    assert [fix["label"] for fix in bundle["fixes"]] == ["Scan over an array of the list"]
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert eval(check, {}, {name: loaded[name] for name in ("v", "seen") if name in check})


def test_a_list_of_mixed_numbers_is_not_scanned(loaded: Notebook) -> None:
    bundle = _card(loaded, "v, _ = jax.lax.scan(lambda c, x: (c + x, None), 0.0, [1, 2.5])")
    assert bundle["recommended"] is None


def test_every_form_of_the_card_shows_it(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp")
    failed = loaded.run("jax.random.bits(jax.random.key(0), (4,), dtype=jnp.int8)")
    text = next(b["text/plain"] for b in failed.bundles if "text/plain" in b)
    html = next(b["text/html"] for b in failed.bundles if "text/html" in b)
    for shown in (text, html):
        assert "rejected its argument" in shown
        assert "issubdtype" in shown
        assert "No fix offered" in shown
    assert "JNH001" in text
    view = failed.diagnoses[0]["view"]
    assert view["banner_kind"] == "no-fix"
    assert view["banner"].startswith("No fix offered")
    assert "rejected its argument" in view["markdown"]


def test_a_bug_in_the_explained_view_leaves_the_general_view(loaded: Notebook,
                                                             monkeypatch) -> None:
    from jax_nbhelp.diagnosis import explained

    def broken(ctx):
        raise RuntimeError("bug in the explained view")

    monkeypatch.setattr(explained, "read", broken)
    loaded.ok("import jax, jax.numpy as jnp")
    failed = loaded.run("jax.random.bits(jax.random.key(0), (4,), dtype=jnp.int8)")
    assert "must be an unsigned int dtype" in failed.stdout
    assert [bundle["code"] for bundle in failed.diagnoses] == ["JNH000"]
    assert "a diagnosis failed" in failed.stderr


# -- the safe evaluator: each rule on objects that record whether their code ran ----------

class _Spy:
    ran: ClassVar[list[str]] = []

    def __init__(self) -> None:
        self.plain = 3

    @property
    def size(self) -> int:
        _Spy.ran.append("property")
        return 1

    def __getattr__(self, name: str) -> int:
        _Spy.ran.append("__getattr__")
        return 2

    def __eq__(self, other: object) -> bool:
        _Spy.ran.append("__eq__")
        return True

    __hash__ = object.__hash__

    def __len__(self) -> int:
        _Spy.ran.append("__len__")
        return 5

    def __lt__(self, other: object) -> bool:
        _Spy.ran.append("__lt__")
        return True


class _Meta(type):
    def __instancecheck__(cls, instance: object) -> bool:
        _Spy.ran.append("__instancecheck__")
        return True


class _Checked(metaclass=_Meta):
    pass


def _evaluate(expression: str, **names: object) -> object:
    return Evaluator(names)(ast.parse(expression, mode="eval").body)


@pytest.mark.parametrize("expression", [
    "spy.size",  # a property of a user's class
    "spy.missing",  # __getattr__
    "spy == 1",  # __eq__ of an unknown type
    "spy < 1",
    "len(spy)",  # __len__ of a user's class
    "isinstance(spy, Checked)",  # a user's metaclass
    "spy.method()",  # any call
    "sum([1, 2])",  # a call of a builtin that is not read as a fact
])
def test_user_code_never_runs(expression: str) -> None:
    _Spy.ran = []
    assert _evaluate(expression, spy=_Spy(), Checked=_Checked) is CANNOT
    assert _Spy.ran == []


def test_plain_data_and_jax_facts_are_read() -> None:
    import jax.numpy as jnp

    spy = _Spy()
    _Spy.ran = []
    assert _evaluate("spy.plain + 1", spy=spy) == 4  # an instance's own attribute
    assert _evaluate("x.shape[0] == len(y)", x=jnp.ones((2, 3)), y=(1, 2)) is True
    assert _evaluate("x.ndim != 2 or d['k'] in names", x=np.ones(3), d={"k": "a"},
                     names=("a",)) is True
    assert _evaluate("isinstance(t, tuple) and not t", t=()) is True
    assert _Spy.ran == []


def test_a_huge_array_is_summarised_never_printed() -> None:
    from jax_nbhelp.diagnosis.jax_check import summary

    big = np.zeros((4000, 3000), np.float32)
    assert summary(big) == "NumPy float32[4000, 3000]"
    assert len(summary(tuple(range(10_000)))) <= 80
    assert "..." not in summary(big)
    assert sys.getsizeof(summary(list(range(100_000)))) < 400


def test_a_64_bit_table_is_asked_only_whether_32_bits_hold_it() -> None:
    """The one value fact a line's reading takes: whether a NumPy array of 64-bit numbers
    keeps its values in the 32-bit type JAX makes of it. Small arrays of NumPy's own class
    only: a subclass (which may run code) and a huge array are not asked."""
    from jax_nbhelp.diagnosis.line_values import describe

    assert describe("t", np.arange(10.0)).narrows_exactly is True
    assert describe("t", np.array([0.1, 0.2])).narrows_exactly is False
    assert describe("t", np.array([2**40])).narrows_exactly is False
    assert describe("t", np.array([np.nan, 1.5])).narrows_exactly is True
    assert describe("t", np.arange(3, dtype=np.float32)).narrows_exactly is None
    assert describe("t", np.zeros(1 << 20)).narrows_exactly is None
    assert describe("t", np.arange(3.0).view(np.matrix)).narrows_exactly is None


def test_an_integer_complaint_about_another_value_gets_no_float_fix(loaded: Notebook) -> None:
    """lax.switch given a string index: JAX's message names the string; the one float of the
    call is an operand, and converting it would be a fix of the wrong argument."""
    bundle = _card(loaded, "out = jax.lax.switch('first', [lambda v: v, lambda v: -v], 1.0)")
    assert not any(fix["label"].startswith("Use ") for fix in bundle["fixes"])


def test_one_int_where_jax_takes_a_sequence_is_a_one_dimensional_shape(
        loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp")
    bundle = _card(loaded, "v = jax.random.choice(jax.random.PRNGKey(0), 5, shape=3)")
    assert bundle["code"] == "JNH001"
    assert [fix["label"] for fix in bundle["fixes"]] == ["Use (3,)"]
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["v"].shape == (3,)


def test_a_static_argname_close_to_one_parameter_is_that_parameter(loaded: Notebook) -> None:
    """The names the function takes are read in JAX's frame that checked them."""
    loaded.ok("import jax, jax.numpy as jnp\nfrom functools import partial")
    bundle = _card(loaded, "@partial(jax.jit, static_argnames=('n_steps',))\n"
                           "def run(x, nsteps):\n    for _ in range(nsteps):\n"
                           "        x = x + 1\n    return x\n\ny = run(0.0, nsteps=3)")
    assert [fix["label"] for fix in bundle["fixes"]] == ["Name nsteps"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["y"]) == 3.0


def test_an_array_argument_the_message_names_is_made_integer(loaded: Notebook) -> None:
    """``take_along_axis indices must be of integer type``: the message's subject is the
    ``indices`` parameter, bound to a float array of whole numbers."""
    loaded.ok("import jax, jax.numpy as jnp")
    loaded.ok("x = jnp.arange(6.0).reshape(2, 3)\nidx = jnp.array([[0.0], [2.0]])")
    bundle = _card(loaded, "y = jnp.take_along_axis(x, idx, axis=1)")
    assert [fix["label"] for fix in bundle["fixes"]] == ['Use idx.astype("int32")']
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["y"].tolist() == [[0.0], [5.0]]


def test_a_float_array_for_a_parameter_documented_as_integers_is_made_integer(
        loaded: Notebook) -> None:
    """The message names no argument; segment_sum's docstring says segment_ids holds
    integers, and the data beside it is a float array the docstring does not."""
    loaded.ok("import jax, jax.numpy as jnp")
    loaded.ok("data = jnp.arange(4.0)\nids = jnp.array([0.0, 0.0, 1.0, 1.0])")
    bundle = _card(loaded, "s = jax.ops.segment_sum(data, ids, num_segments=2)")
    assert [fix["label"] for fix in bundle["fixes"]] == ['Use ids.astype("int32")']
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["s"].tolist() == [1.0, 5.0]


def test_of_two_floats_the_one_the_message_shows_is_made_integer(loaded: Notebook) -> None:
    """``lax.switch(1.0, branches, 3.0)``: both are floats, and JAX's message shows the
    index it got (``got 1.0``); the operand 3.0 stays a float."""
    loaded.ok("import jax, jax.numpy as jnp")
    bundle = _card(loaded, "y = jax.lax.switch(1.0, [lambda x: x + 1, lambda x: x * 2], 3.0)")
    assert [fix["label"] for fix in bundle["fixes"]] == ["Use 1"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["y"]) == 6.0


@pytest.mark.parametrize(("cell", "check"), [
    ("import numpy as np\np = {'w': jnp.arange(2.0)}\n"
     "v = jax.device_put_replicated(p, jax.local_devices())",
     "v['w'].shape == (1, 2) and v['w'].tolist() == [[0.0, 1.0]]"),
    ("import numpy as np\nshards = [{'w': jnp.arange(2.0)}]\n"
     "v = jax.device_put_sharded(shards, jax.local_devices())",
     "v['w'].shape == (1, 2) and v['w'].tolist() == [[0.0, 1.0]]"),
])
def test_pmaps_placement_helpers_become_device_put(loaded: Notebook, cell: str,
                                                    check: str) -> None:
    """JAX's message names jax.device_put for the deprecated helpers: the same stacked
    values, one slice per device (releases that still serve the helpers raise nothing)."""
    import warnings

    import jax

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            jax.device_put_replicated  # noqa: B018
            pytest.skip("this JAX still serves the placement helpers")
        except AttributeError:
            pass
    _fixed_by_contract(loaded, cell, "Use jax.device_put", check)


def test_a_sharding_constraint_on_explicit_axes_becomes_reshard(loaded: Notebook) -> None:
    """JAX's message asks whether reshard was meant: the same values, placed as asked."""
    import jax

    if not hasattr(jax.sharding, "AxisType") or not hasattr(jax.sharding, "reshard"):
        pytest.skip("this JAX has no Explicit axes")
    _fixed_by_contract(
        loaded,
        "from jax.sharding import NamedSharding, PartitionSpec as P\n"
        "mesh = jax.make_mesh((1,), ('x',), axis_types=(jax.sharding.AxisType.Explicit,))\n"
        "rows = NamedSharding(mesh, P('x'))\n"
        "@jax.jit\ndef f(a):\n    return jax.lax.with_sharding_constraint(a * 2, rows)\n"
        "v = f(jnp.arange(3.0))",
        "Use jax.sharding.reshard", "v.tolist() == [0.0, 2.0, 4.0]")


def test_a_call_written_over_several_lines_is_edited_in_place(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nlabels = jnp.array([0, 2])")
    failed = loaded.run("encoded = jax.nn.one_hot(labels,\n                         3.0)")
    (bundle,) = failed.diagnoses
    fix = bundle["fixes"][0]
    assert fix["available"]
    assert "                         3)" in fix["diff"]
    assert "\nFixed:" in loaded.run(f"%jax_nbhelp fix {bundle['recommended']}").stdout
    assert loaded["encoded"].shape == (2, 3)
