"""Contract fixes for the explained view (``JNH001``) where the routine JAX calls has no
version for the precision of the user's array.

**A half-precision matrix given to LAPACK.** On CPU, JAX's linear algebra (``jnp.linalg``'s
``inv``, ``solve``, ``cholesky``, ``eigh``, ``svd``, ``qr``, ``pinv``, ``lstsq``, and
``jax.scipy.linalg``'s) calls LAPACK, which has routines for float32, float64, complex64
and complex128 only. A float16 or bfloat16 matrix fails where JAX looks the routine up
(``Unsupported dtype float16``; newer releases add "Please cast the input to a supported
type"), and ``expm`` checks it itself (``A.dtype=float16 is not supported``). JAX does not
cast on its own, on purpose: an explicit cast is the user's to write. The cast is to float32:
every value of a float type narrower than 32 bits is a float32 value exactly, so the routine
gets the same matrix and computes it in float32. Each argument of the user's call that holds
an array of the dtype JAX's message names is cast; the call then returns float32, not the
narrow type, and what the line computes from it is float32 too: the card says so.
Inside a jitted function the routine is looked up once the function is traced, and the
traceback keeps only the line that called it (no values): there the one call of
``jnp.linalg`` or ``jax.scipy.linalg`` that line writes gets its matrix, its first
argument, cast. Every one of these functions computes in the type its arguments promote to,
and an argument wider than the narrow type would have made that type wider: cast, the matrix
makes it float32.

Reports: jax-ml/jax#38825 (``inv`` of float16 and ``cholesky`` of bfloat16 stopped by that
lookup), jax-ml/jax#30176 (QR of bfloat16: "there are no 16 bit kernels available for these
operations"), jax-ml/jax#31294 (where JAX declined to cast 16-bit input silently: "If casting
to float32 is truly what the user wants, they can do that explicitly").
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from jax_nbhelp.catalog import _contract_call, _entry, _tracing
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator

# JAX's words for the dtype a routine has no version for: jaxlib's lookup of the LAPACK
# routine ("Unsupported dtype float16."), a lowering's own check ("Unsupported dtype:
# float16"), and expm's ("A.dtype=float16 is not supported")
_UNSUPPORTED = re.compile(r"Unsupported dtype:? (?P<dtype>\w+)|"
                          r"\.dtype=(?P<named>\w+) is not supported")


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    return _widened_fix(ctx, diagnosis)


def _narrow_float(name: str) -> bool:
    """Whether ``name`` is a float type narrower than float32 (float16, bfloat16, float8s),
    whose every value float32 holds exactly."""
    import jax.numpy as jnp

    try:
        dtype = jnp.dtype(name)
    except TypeError:
        return False
    # bfloat16 and the float8s are NumPy dtypes of kind "V"; JAX counts them as floating
    return bool(jnp.issubdtype(dtype, jnp.floating)) and dtype.itemsize < 4


def _widened_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    found = _UNSUPPORTED.search(ctx.top.message)
    name = (found["dtype"] or found["named"]) if found is not None else None
    if name is None or not _narrow_float(name):
        return None
    located = _narrow_arguments(ctx, diagnosis, name) or _traced_matrix(ctx, diagnosis)
    if located is None:
        return None
    location, narrow = located
    jnp = ctx.alias("jax.numpy")
    wide = f"{jnp}.float32" if jnp is not None else '"float32"'
    fix = _contract_call.rewritten(
        ctx, location, [(argument, "{}.astype(" + wide + ")") for argument in narrow],
        label="Compute in float32",
        why=(f"the routine JAX calls has no {name} version, and JAX casts only where the code "
             "asks"),
        safety=(f"Same values, computed in float32: every {name} value is a float32 value "
                f"exactly. The call returns float32, not {name}, and what is computed from "
                "it is float32 too."))
    return replace(fix, rounding=True) if fix is not None else None


def _narrow_arguments(ctx: ErrorContext, diagnosis: Diagnosis, name: str
                      ) -> tuple[Location, list[ast.expr]] | None:
    """The arguments of the user's call on the card's line that hold arrays of ``name``."""
    plain = _contract_call.plain_call(ctx, diagnosis)
    if plain is None:
        return None
    call, location, node = plain
    evaluate = Evaluator(call.frame)
    narrow: list[ast.expr] = []
    for argument in (*node.args, *(k.value for k in node.keywords if k.arg is not None)):
        if isinstance(argument, ast.Starred):
            continue
        dtype = _contract_call.array_dtype(_contract_call.value_of(call, argument, evaluate))
        if dtype is not None and str(dtype) == name:
            narrow.append(argument)
    return (location, narrow) if narrow else None


def _traced_matrix(ctx: ErrorContext, diagnosis: Diagnosis
                   ) -> tuple[Location, list[ast.expr]] | None:
    """The first argument of the one linear-algebra call where a jitted function traced
    the failed routine: on the line the traceback keeps, else (JAX's own jitted functions,
    ``jnp.linalg.inv`` among them, keep no line of the user's) in the body of the jitted
    function the card's line called."""
    modules = {f"{alias}.linalg" for alias in (ctx.alias("jax.numpy"), ctx.alias("jax.scipy"))
               if alias is not None}
    modules |= {f"{alias}.{path}" for alias in (ctx.alias("jax"),) if alias is not None
                for path in ("numpy.linalg", "scipy.linalg", "lax.linalg")}
    modules |= {alias for module in ("jax.numpy.linalg", "jax.scipy.linalg", "jax.lax.linalg")
                if (alias := ctx.alias(module)) is not None}

    def matrices(calls: list[ast.Call]) -> list[ast.expr]:
        return [c.args[0] for c in calls if (dotted(c.func) or "").rpartition(".")[0] in modules
                and c.args and not isinstance(c.args[0], ast.Starred)]

    traced = ctx.deepest_user_location()
    if traced is not None and traced != diagnosis.location:
        found = matrices(_tracing.calls_on(traced)[0])
        return (traced, found) if len(found) == 1 else None
    call = ctx.user_call
    function = (getattr(call.function, "__wrapped__", None)
                if call is not None and call.location == diagnosis.location else None)
    place = _entry.def_location(ctx, function) if function is not None else None
    parsed = _tracing.parse(place.source) if place is not None else None
    if place is None or parsed is None:
        return None
    body = _tracing.find_def(parsed[0], getattr(function, "__name__", ""), place.lineno)
    found = matrices([n for n in ast.walk(body) if isinstance(n, ast.Call)
                      and n.lineno == n.end_lineno]) if body is not None else []
    if len(found) != 1:
        return None
    lines = (place.source or "").split("\n")
    return replace(place, lineno=found[0].lineno, line=lines[found[0].lineno - 1]), found


__all__ = ["fixes"]
