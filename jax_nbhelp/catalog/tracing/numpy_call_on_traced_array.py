"""A NumPy function called on a traced array: ``np.asarray(x)`` or ``np.sin(x)`` inside
``jax.jit`` (``TracerArrayConversionError``).

NumPy computes right away on concrete arrays, and a tracer has no values. ``jax.numpy``
has the same functions for traced arrays. The rewrite to ``jnp.<name>`` is offered only for
functions known to mean the same thing in both libraries. It is safe where the result is
bit-for-bit the same (conversions, abs, max, stacking and reshaping, ...), and safe up to
float rounding (``Fix.rounding``, said on the card) for transcendental functions and sums,
which are XLA's own implementations whose last bits can differ from NumPy's; products
(``dot``, ``matmul``) only where JAX computes them at full float32 precision (a CPU
backend, or ``jax_default_matmul_precision`` at its highest).

Where the line makes a NumPy array that the function hands to another library computing on
the host (``x0 = np.asarray(params)`` then ``scipy.optimize.minimize(f, x0)``), jax.numpy
would hand that library a tracer: the fix runs the jitted function without ``@jax.jit``
instead, the same operations one by one (safe up to float rounding: jit's fused program can
round otherwise). Report: google/jaxopt#214 (a SciPy-backed solver run inside ``jax.jit``).

Reports: google/brax#227 and google/brax#321 (``np.stack`` of state arrays in a jitted
environment step), dpiras/cosmopower-jax#9 (``np.stack`` of sampled parameters inside a
NumPyro model).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from itertools import pairwise
from types import ModuleType

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, NUMPY_IMPORTS, corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.provenance import is_jax_file
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH305"
TITLE = "NumPy function called on a traced array"
ERROR = "TracerArrayConversionError"

_HOST = ("def host(x):\n    return np.sin(x)\n\n"
         "def wrapped(x):\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, "
         "x.dtype), x)\n\n@jax.jit\ndef twice(x):\n    return 2 * host(x)")

EXAMPLES = (
    # an array NumPy makes from a shape, indexed by a tracer: JAX's twin makes the same
    corrected(NUMPY_IMPORTS, "grid = (2, 3)\n\n@jax.jit\ndef row(k):\n"
              "    return np.indices(grid)[0][k]",
              "grid = (2, 3)\n\n@jax.jit\ndef row(k):\n    return jnp.indices(grid)[0][k]",
              "r = row(1)", "Use jnp.indices", "r.tolist() == [1, 1, 1]"),
    # a host function for pure_callback, called directly on a tracer: NumPy is its job, so
    # it is not rewritten; the direct call is the slip (jax-ml/jax#16650)
    corrected(NUMPY_IMPORTS, _HOST, _HOST.replace("2 * host(x)", "2 * wrapped(x)"),
              "out = twice(jnp.zeros(2))", NO_FIX, "out.tolist() == [0.0, 0.0]"),
    corrected(NUMPY_IMPORTS, "@jax.jit\ndef double(x):\n    return np.asarray(x) * 2",
              "@jax.jit\ndef double(x):\n    return jnp.asarray(x) * 2",
              "out = double(jnp.ones(3))", "Use jnp.asarray", "out.tolist() == [2.0, 2.0, 2.0]"),
    corrected(NUMPY_IMPORTS, "@jax.jit\ndef wave(x):\n    return np.sin(x) + 1",
              "@jax.jit\ndef wave(x):\n    return jnp.sin(x) + 1",
              "out = wave(jnp.zeros(3))", "Use jnp.sin", "out.tolist() == [1.0, 1.0, 1.0]"),
    corrected(NUMPY_IMPORTS, "@jax.jit\ndef pair(a, b):\n    return np.stack([a, b], axis=1)",
              "@jax.jit\ndef pair(a, b):\n    return jnp.stack([a, b], axis=1)",
              "out = pair(jnp.ones(2), jnp.zeros(2))", "Use jnp.stack",
              "out.tolist() == [[1.0, 0.0], [1.0, 0.0]]"),
    # a function of NumPy's linalg: jax.numpy.linalg has it
    corrected(NUMPY_IMPORTS, "@jax.jit\ndef unit(v):\n    return v / np.linalg.norm(v)",
              "@jax.jit\ndef unit(v):\n    return v / jnp.linalg.norm(v)",
              "out = unit(jnp.array([3.0, 4.0]))", "Use jnp.linalg.norm",
              "np.allclose(np.asarray(out), [0.6, 0.8])"),
    corrected(NUMPY_IMPORTS, "@jax.jit\ndef grow(x, v):\n    return np.append(x, v)",
              "@jax.jit\ndef grow(x, v):\n    return jnp.append(x, v)",
              "out = grow(jnp.ones(2), 3.0)", "Use jnp.append", "out.tolist() == [1.0, 1.0, 3.0]"),
    # np.unique has no jit-able twin without size=: explained, not rewritten.
    corrected(NUMPY_IMPORTS, "@jax.jit\ndef labels(x):\n    return np.unique(x)",
              "@jax.jit\ndef labels(x):\n    return jnp.unique(x, size=3)",
              "out = labels(jnp.array([3, 1, 3, 2]))", NO_FIX, "out.tolist() == [1, 2, 3]"),
    # NumPy's array is made for SciPy, which computes on the host: the function runs
    # without jit, and SciPy gets concrete arrays
    corrected(NUMPY_IMPORTS + "\nimport scipy.special",
              "@jax.jit\ndef logistic(x):\n    a = np.asarray(x)\n"
              "    return scipy.special.expit(a)",
              "def logistic(x):\n    a = np.asarray(x)\n    return scipy.special.expit(a)",
              "out = logistic(jnp.zeros(2))", "Run logistic without jax.jit",
              "list(out) == [0.5, 0.5]"),
)

WHY = _entry.prose("""
NumPy computes right away, on arrays whose values it can read. Under jax.jit your function
runs with tracers, which stand for arrays whose values exist only when the compiled program
runs, so NumPy has nothing to read. jax.numpy offers the same functions as operations jit
can compile.
""")
WHY_UNDER = {
    "vmap": (
        "NumPy computes right away, on one array whose values it can read. Under jax.vmap "
        "your function runs once for the whole batch, with tracers that stand for every "
        "element at once, so NumPy has no array to read. jax.numpy offers the same functions, "
        "and vmap maps them over the batch."),
    "grad": (
        "NumPy computes right away, on values. Under jax.grad your function runs with "
        "tracers that record each operation so that JAX can differentiate it; NumPy's "
        "operations would be invisible to JAX, which could not differentiate through them. "
        "jax.numpy offers the same functions, and grad differentiates them."),
}

# Same values bit for bit: conversions, sign and rounding operations, exact arithmetic, and
# reductions (np.sum(x) on a JAX array already calls x.sum(), so it never fails itself, but
# it may share a line with a call that does).
_REDUCE = ("axis", "keepdims")
_EXACT: dict[str, tuple[str, ...]] = {
    "asarray": (), "array": (), "abs": (), "absolute": (), "negative": (), "sign": (),
    "floor": (), "ceil": (), "square": (),
    **dict.fromkeys(("sum", "mean", "prod", "max", "min", "amax", "amin"), _REDUCE),
    "argmax": ("axis",), "argmin": ("axis",),
    # arrays put together or moved about: the same elements in the same places
    **dict.fromkeys(("stack", "concatenate", "vstack", "hstack", "expand_dims", "squeeze",
                     "flip"), ("axis",)),
    "transpose": ("axes",), "reshape": (), "maximum": (), "minimum": (),
    # each element computed alone, or moved: no rounding NumPy and XLA could differ in
    **dict.fromkeys(("append", "where", "clip", "diff", "tile", "roll", "pad", "outer",
                     "ravel", "atleast_1d", "atleast_2d", "broadcast_to", "sort", "split",
                     "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not",
                     "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                     "any", "all", "count_nonzero", "round", "around", "rint", "trunc",
                     "nan_to_num", "zeros_like", "ones_like", "full_like", "float32",
                     "int32"), ()),
    # arrays of zeros, ones and small integers, which every dtype holds exactly; a traced
    # index into one needs it to be JAX's (distrax#291: np.indices indexed by a tracer)
    **dict.fromkeys(("indices", "zeros", "ones", "eye", "identity"), ()),
}
# Same function, computed by XLA: float results can differ from NumPy's in the last bits.
_ROUNDED: dict[str, tuple[str, ...]] = dict.fromkeys(
    ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "exp", "exp2",
     "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "dot", "matmul", "inner",
     "vdot", "cumsum", "cumprod", "var", "std", "median", "arctan2", "hypot", "power",
     "logaddexp", "deg2rad", "rad2deg", "sinc", "cross", "trace", "einsum", "tensordot"),
    (),
) | {"linalg.norm": ("axis", "keepdims", "ord"), "linalg.det": (), "linalg.inv": (),
     "linalg.solve": (),
     "var": (*_REDUCE, "ddof"), "std": (*_REDUCE, "ddof"),
     "median": _REDUCE, "cumsum": ("axis",), "cumprod": ("axis",)}
_ALLOWED = {**_EXACT, **_ROUNDED}
# np.asarray(x, dtype=...) can mean another dtype under jnp (x64 is off): only the plain form.
_SINGLE_ARGUMENT = frozenset({"asarray", "array"})


def _numpy_fix(ctx: ErrorContext, location: Location) -> Fix | None:
    numpy = ctx.alias("numpy")
    jnp = ctx.alias("jax.numpy")
    parsed = _tracing.parse(location.source)
    if numpy is None or parsed is None:
        return None
    from jax_nbhelp.rewrite import CannotRewrite, numpy_calls_at

    try:
        found = numpy_calls_at(parsed[1], location.lineno, numpy)
    except CannotRewrite:
        return None
    if not found or any(name not in _ALLOWED for name in found):
        return None
    spell = jnp or "jnp"
    unique = list(dict.fromkeys(found))
    label = "Use " + ", ".join(f"{spell}.{name}" for name in unique)
    exact = all(name in _EXACT for name in unique)
    # a product's default precision is reduced on TPUs (and may be TF32 on GPUs): only
    # float rounding where the products run in float32 as NumPy's do
    rounding = not exact and (not _PRODUCTS.intersection(unique) or _full_precision_products())
    summary = (f"Call {', '.join(f'{spell}.{n}' for n in unique)} instead of "
               f"{', '.join(f'{numpy}.{n}' for n in unique)} on line {location.lineno}: "
               "jax.numpy works on traced arrays.")
    safety = ("Same values: the function returns exactly what NumPy would." if exact else
              "Same function, computed by XLA instead of NumPy: float results can differ "
              "from NumPy's in the last bits." if rounding else
              "Same function, computed by XLA instead of NumPy, with this backend's default "
              "precision for products, which is lower than NumPy's float32 on TPUs and "
              "some GPUs.")

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite import numpy_calls_to_jnp

        if jnp is None:
            raise CannotRewrite("jax.numpy is not imported in this notebook: run "
                                "`import jax.numpy as jnp` first")
        return numpy_calls_to_jnp(source, location.lineno, _ALLOWED, numpy, jnp)

    fix = rewrite_fix(ctx, location, transform, label=label, summary=summary, safety=safety,
                      safe=exact or rounding)
    return replace(fix, rounding=rounding)


_PRODUCTS = frozenset({"dot", "matmul", "inner", "vdot", "linalg.det", "linalg.inv",
                       "linalg.solve", "einsum", "tensordot"})


def _full_precision_products() -> bool:
    """Whether JAX computes float32 products in float32 here: on a CPU backend, or with
    ``jax_default_matmul_precision`` set to the highest."""
    from jax_nbhelp.jaxapi.jax_probe import attribute, versions

    config = attribute("jax", "config")
    try:
        precision = getattr(config, "jax_default_matmul_precision", None)
    except Exception:  # a JAX without the option: say less, never crash
        precision = None
    if str(precision or "").lower() in ("highest", "float32"):
        return True
    return versions()["backend"] == "cpu"  # read as it is: nothing is initialised


def _single_argument_only(ctx: ErrorContext, location: Location) -> bool:
    """Whether every np.asarray/np.array on the line is the plain one-argument form."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return False
    tree, _ = parsed
    numpy = ctx.alias("numpy")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == numpy
                and node.func.attr in _SINGLE_ARGUMENT
                and node.lineno <= location.lineno <= (node.end_lineno or 0)
                and (len(node.args) != 1 or node.keywords)):
            return False
    return True


TRIGGERS = (ERROR,)


def _calls_numpy(ctx: ErrorContext, location: Location | None) -> bool:
    """Whether the line calls a NumPy function (``np.sin(x)``)."""
    numpy = ctx.alias("numpy")
    parsed = _tracing.parse(location.source) if location is not None else None
    if numpy is None or parsed is None or location is None:
        return False
    return any(isinstance(node, ast.Call) and (dotted(node.func) or "").startswith(numpy + ".")
               and node.lineno <= location.lineno <= (node.end_lineno or 0)
               for node in ast.walk(parsed[0]))


def _converted_by_jax(found: _tracing.Traced) -> bool:
    """Whether JAX's own code, called from the line, made the conversion (JAX 0.8's
    ``jnp.tile(x, n)`` asks ``np.ndim`` of a traced count), rather than a NumPy call of the
    user's: the frame after the line's is JAX's."""
    after = [inner for outer, inner in pairwise(found.link.frames)
             if outer.location is not None and outer.location == found.location]
    return bool(after) and not after[-1].is_user and is_jax_file(after[-1].filename)


_CALLBACKS = ("pure_callback", "io_callback", "callback")


def _host_function(location: Location | None) -> str | None:
    """The callback (``jax.pure_callback``) that the function holding the line is handed
    to in the same source, by name; None where it is not."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None or not location.function.isidentifier():
        return None
    for node in ast.walk(parsed[0]):
        func = dotted(node.func) if isinstance(node, ast.Call) else None
        if func is not None and func.rsplit(".", 1)[-1] in _CALLBACKS \
                and isinstance(node, ast.Call) and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == location.function:
            return func
    return None


_OWN = ("jax", "jaxlib", "numpy", "math", "builtins", "functools", "operator", "itertools")


def _host_library(ctx: ErrorContext, location: Location | None) -> str | None:
    """The module of another library (``scipy.optimize``) whose function, called in the
    function holding the line, is handed the array the line assigns with ``np.asarray`` or
    ``np.array``: the NumPy array is made for that library, which computes on the host; None
    otherwise."""
    parsed = _tracing.parse(location.source) if location is not None else None
    numpy = ctx.alias("numpy")
    if location is None or parsed is None or numpy is None:
        return None
    tree, _ = parsed
    function = next((node for node in ast.walk(tree)
                     if isinstance(node, ast.FunctionDef) and node.name == location.function
                     and node.lineno <= location.lineno <= (node.end_lineno or 0)), None)
    line_calls = [dotted(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)
                  and n.lineno == location.lineno]
    if function is None or not any(c in (f"{numpy}.asarray", f"{numpy}.array")
                                   for c in line_calls):
        return None
    frame = ctx.live_frame(location)
    assigned = next((node.targets[0].id for node in ast.walk(function)
                     if isinstance(node, ast.Assign) and node.lineno == location.lineno
                     and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)),
                    None)
    if frame is None or assigned is None:
        return None
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or not any(
                isinstance(a, ast.Name) and a.id == assigned
                for a in (*node.args, *(k.value for k in node.keywords))):
            continue  # a call that is handed the array the line made
        name = dotted(node.func)
        module = frame.f_globals.get(name.split(".", 1)[0]) if name and "." in name else None
        if isinstance(module, ModuleType) and module.__name__.split(".", 1)[0] not in _OWN:
            return name.rsplit(".", 1)[0]  # type: ignore[union-attr]  # a dotted name
    return None


def _without_jit_fix(ctx: ErrorContext, call: _tracing.JitCall, library: str) -> Fix | None:
    """The jitted function run without its ``@jax.jit``: each JAX operation computes as it
    comes, and the host library gets concrete arrays."""
    origin, definition = call.origin, call.definition
    parsed = _tracing.parse(definition.source) if definition is not None else None
    func = _tracing.find_def(parsed[0], origin.function, origin.lineno) \
        if parsed is not None else None
    if definition is None or func is None or not origin.for_jit \
            or not any(_tracing.jits(d) for d in func.decorator_list):
        return None
    name = origin.function

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.drop_jit_decorator import remove_jit_decorator

        return remove_jit_decorator(source, name)

    fix = rewrite_fix(
        ctx, replace(definition, lineno=func.lineno), transform,
        label=f"Run {name} without jax.jit",
        summary=(f"Remove the jax.jit decorator from {name}, so that {library} gets concrete "
                 "arrays; JAX functions it calls that are jitted themselves stay so. Then "
                 "re-run."),
        safety=(f"Same values up to float rounding: {name} runs as written, each JAX operation "
                "as it comes instead of one compiled program, whose fused operations can "
                "round the last bits otherwise. It runs slower."),
        safe=True)
    return replace(fix, rounding=True)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = _tracing.traced(ctx, _tracing.error_link(ctx, ERROR))
    if found is None:
        return None
    if _converted_by_jax(found) and not _calls_numpy(ctx, found.location):
        return None  # a JAX function needed a concrete value: JNH303's
    from jax_nbhelp.catalog.arrays.numpy_array_indexed_by_tracer import indexed_numpy

    if indexed_numpy(ctx, found.location) and not _calls_numpy(ctx, found.location):
        return None  # a NumPy array indexed by a tracer: JNH505's
    location, origin = found.location, found.origin
    subject = found.subject("A line")
    inside = f" inside {_tracing.traced_in(origin)}" if origin is not None else ""
    explanation = (f"{subject} hands a traced array to NumPy{inside}. NumPy needs the "
                   "array's values, which a tracer does not have.")
    jnp = ctx.alias("jax.numpy") or "jnp"
    fixes: tuple[Fix, ...] = ()
    host = _host_function(location)
    if host is not None:  # NumPy is its job: the call that hands it a tracer is the slip
        explanation += (f" {location.function} is the host function the code hands to "  # type: ignore[union-attr]
                        f"{host}, which calls it with NumPy arrays; here it was called "
                        "directly, with a traced array.")
    library = _host_library(ctx, location) if host is None else None
    unjitted = _without_jit_fix(ctx, found.call, library) \
        if library is not None and found.call is not None else None
    if unjitted is not None:  # jax.numpy would hand the library a tracer: no rewrite to it
        fixes = (unjitted,)
        explanation += (f" The code hands NumPy's array to {library}, which runs on the "
                        "host and needs the values: it cannot run inside a compiled program.")
    elif location is not None and host is None and _single_argument_only(ctx, location):
        fix = _numpy_fix(ctx, location)
        fixes = (fix,) if fix is not None else ()
    notes = [
        f"Use {jnp}.<function> on traced arrays. If you really need NumPy (or SciPy) there, "
        "call it outside the jitted function, or through jax.pure_callback."
    ]
    if not fixes:
        notes.insert(0, "jax_nbhelp only rewrites NumPy calls whose jax.numpy twin is known "
                        "to compute the same thing; check the jax.numpy docs for this one "
                        "(some need size= under jit, e.g. jnp.unique, jnp.nonzero).")
    transform = _tracing.transform_of(ctx, found)
    return _entry.diagnosis(ctx, __name__, explanation + _tracing.batch_sentence(ctx, found),
                            location=location, call_site=found.caller, fixes=fixes,
                            notes=notes, why=_tracing.why_under(transform, WHY_UNDER, WHY))
