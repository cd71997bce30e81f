"""An attribute of a JAX array called as a method, as PyTorch spells it
(``TypeError: 'int' object is not callable`` from ``x.size()``; ``'tuple' object is not
callable`` from ``x.shape(0)``; ``'ArrayImpl' object is not callable`` from ``x.T()``).

PyTorch's tensors have methods ``size()`` and ``dim()`` and a ``size(d)`` for one
dimension; JAX's arrays, like NumPy's, have attributes: ``x.shape`` (the tuple of
dimensions), ``x.size`` (the number of elements), ``x.ndim``, ``x.T``. Calling one calls
the int, tuple or array it holds, and Python refuses. Python raises it in the user's own
call; the object called through is one of JAX's arrays or tracers, so it counts as JAX's
(``provenance``).

The fix writes the attribute JAX has for what the call asked: ``x.size(d)`` and
``x.shape(d)`` are ``x.shape[d]``; ``x.shape()`` is ``x.shape``; ``x.size()`` is PyTorch's
shape, ``x.shape`` (the number of elements, JAX's ``x.size``, is offered too); ``x.T()``,
``x.ndim()``, ``x.dtype()`` are the attribute itself. A call with other arguments is
explained only.

Reports: samuela/torch2jax#34 (``x.size(2)`` in PyTorch code run on JAX arrays),
luochuyao/PFST-LSTM#3 (``input.size()[1]`` on an array that is not a tensor),
numenta/nupic-legacy#1512 (``size`` is an integer, not a method).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.provenance import ARRAY_ATTRIBUTES, is_jax_array
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH515"
TITLE = "A JAX array's attribute called as a method"
TRIGGERS = ("object is not callable",)

_MESSAGE = re.compile(r"^'(?P<type>[\w.]+)' object is not callable$")
_BATCH = "batch = jnp.ones((8, 3))"

EXAMPLES = (
    # PyTorch's size(d): one dimension
    corrected_cell((JAX_IMPORTS, _BATCH), "n = batch.size(0)", "n = batch.shape[0]",
                   "Use batch.shape[0]", "n == 8"),
    # PyTorch's size(): the shape, then indexed
    corrected_cell((JAX_IMPORTS, _BATCH), "features = batch.size()[1]",
                   "features = batch.shape[1]", "Use batch.shape", "features == 3"),
    # .T is an attribute
    corrected_cell((JAX_IMPORTS, _BATCH), "gram = batch.T() @ batch",
                   "gram = batch.T @ batch", "Use batch.T", "gram.shape == (3, 3)"),
)

WHY = _entry.prose("""
JAX arrays, like NumPy's, hold their facts as attributes: x.shape is the tuple of
dimensions, x.size the number of elements, x.ndim the number of dimensions, x.T the
transpose. PyTorch's tensors have methods for them (x.size(), x.size(0), x.dim()), and
calling a JAX array's attribute calls the int, tuple or array it holds.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = _MESSAGE.match(ctx.top.message) if ctx.top.is_a("TypeError") else None
    location = ctx.deepest_user_location()
    if found is None or location is None:
        return None
    calls = _attribute_calls(ctx, location)
    if len(calls) != 1:
        return None
    call, code = calls[0]
    attribute = call.func.attr  # type: ignore[attr-defined]
    receiver = _tracing.segment(code, call.func.value)  # type: ignore[attr-defined]
    if not isinstance(call.func.value, ast.Name | ast.Attribute | ast.Subscript | ast.Call):  # type: ignore[attr-defined]
        receiver = f"({receiver})"
    held = {"size": "the number of elements (an int)", "shape": "the tuple of dimensions",
            "ndim": "the number of dimensions (an int)"}.get(attribute, f"its {attribute}")
    explanation = (f"`{_tracing.segment(code, call)}`{_entry.at(location)} calls "
                   f"`{receiver}.{attribute}`, which on a JAX array is an attribute holding "
                   f"{held}, not a method: Python cannot call the {found['type']} it holds.")
    fixes = _fixes(ctx, location, call, code, receiver, attribute)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes)


def _attribute_calls(ctx: ErrorContext, location: Location) -> list[tuple[ast.Call, str]]:
    """The line's calls of an array attribute whose receiver, read safely in the live frame,
    is one of JAX's arrays or tracers."""
    calls, code = _tracing.calls_on(location)
    frame = ctx.live_frame(location)
    if frame is None:
        return []
    evaluate = Evaluator(frame)
    found = []
    for call in calls:
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in ARRAY_ATTRIBUTES:
            continue
        if is_jax_array(evaluate(func.value)):
            found.append((call, code))
    return found


def _fixes(ctx: ErrorContext, location: Location, call: ast.Call, code: str, receiver: str,
           attribute: str) -> tuple[Fix, ...]:
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return ()  # (calls_on gave a call on one line)
    before = _tracing.segment(code, call)
    if len(call.args) == 1 and attribute in ("size", "shape"):
        index = _tracing.segment(code, call.args[0])
        return (_fix(ctx, location, call, before, f"{receiver}.shape[{index}]",
                     f"PyTorch's {attribute}({index}) is the length of dimension {index}, "
                     f"which JAX's {receiver}.shape[{index}] is"),)
    if call.args:
        return ()
    if attribute == "size":
        return (_fix(ctx, location, call, before, f"{receiver}.shape",
                     "PyTorch's size() is the tuple of dimensions, which JAX's shape is"),
                _fix(ctx, location, call, before, f"{receiver}.size",
                     "JAX's size is the number of elements (NumPy's meaning), not PyTorch's "
                     "tuple of dimensions"))
    return (_fix(ctx, location, call, before, f"{receiver}.{attribute}",
                 "the attribute itself is what the call asked for"),)


def _fix(ctx: ErrorContext, location: Location, call: ast.Call, before: str, after: str,
         why: str) -> Fix:
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after),
        label=f"Use {after}" if len(after) <= 30 else "Use the attribute",
        summary=f"Write `{after}` for `{before}` on line {location.lineno}; then re-run.",
        safety=f"Same values: {why}.", safe=True)
