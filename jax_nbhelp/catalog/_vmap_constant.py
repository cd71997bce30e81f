"""A value every element of a ``jax.vmap`` batch shares, mapped anyway, where the function
needs it concrete (JNH303 under vmap): passed once, not mapped.

``jax.vmap(jax.nn.one_hot)(labels, counts)`` with ``counts = jnp.full(n, 4)``: vmap maps
every positional argument along its first axis unless ``in_axes`` says otherwise, so
``one_hot`` gets each count as a batch tracer, and a class count must be a concrete number.
Where exactly one argument of the vmapped call holds, at the call, an integer or boolean
array whose entries along the mapped axis are all the same, each element of the batch was
given that same number: ``in_axes`` gives it ``None`` and the call passes the number itself
(``int(counts[0])``), which vmap hands to the function as it is.

Read without running anything: the line's call of a ``vmap(f)`` written without ``in_axes``
(or any other keyword), its positional arguments read safely in the caller's frame (a
concrete array of at most ``_MAX_READ`` elements). Safe: every element of the batch gets
the value it got before.

Reports: jax-ml/jax#3696 (``one_hot`` under vmap; the answer maps only the labels,
``in_axes=(0, None)``), jax-ml/jax#10493 (an axis argument mapped by vmap: "The axis argument
must be known statically"), jax-ml/jax#183 (``in_axes=None`` for what is not mapped over).
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _concrete, _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix


def _vmapped_calls(tree: ast.Module, lineno: int) -> list[ast.Call]:
    """``vmap(f)(...)`` calls on the line: the outer call, its callee a call of vmap with
    one positional argument and no keyword."""
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and node.lineno == node.end_lineno == lineno
            and isinstance(node.func, ast.Call) and (dotted(node.func.func) or "")
            .split(".")[-1] == "vmap" and len(node.func.args) == 1 and not node.func.keywords
            and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)]


def _shared(value: object) -> str | None:
    """``int`` or ``bool`` where ``value`` is a concrete integer or boolean vector whose
    entries are all equal, else None."""
    held = _concrete.held(value) if type(value) not in (bool, int, float) else None
    if held is None or held.ndim != 1 or not held.size or held.dtype.kind not in ("i", "u", "b"):
        return None
    return ("bool" if held.dtype.kind == "b" else "int") if bool((held == held[0]).all()) \
        else None


def fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    parsed = _tracing.parse(location.source) if location is not None else None
    frame = ctx.live_frame(location) if location is not None else None
    if location is None or parsed is None or frame is None:
        return None
    tree, code = parsed
    calls = _vmapped_calls(tree, location.lineno)
    if len(calls) != 1:
        return None
    call = calls[0]
    evaluate = Evaluator(frame)
    shared = [(index, arg, kind) for index, arg in enumerate(call.args)
              if (value := evaluate(arg)) is not CANNOT and (kind := _shared(value)) is not None]
    if len(shared) != 1 or len(call.args) < 2:
        return None
    index, arg, kind = shared[0]
    vmap_call = call.func
    if not isinstance(vmap_call, ast.Call):
        return None
    axes = ", ".join("None" if i == index else "0" for i in range(len(call.args)))
    before_vmap = _tracing.segment(code, vmap_call)
    after_vmap = f"{before_vmap[:-1]}, in_axes=({axes}))"
    before_arg = _tracing.segment(code, arg)
    text = before_arg if isinstance(arg, ast.Name | ast.Attribute | ast.Subscript) \
        else f"({before_arg})"
    after_arg = f"{kind}({text}[0])"
    transform = _tracing.replacing_each([(vmap_call, before_vmap, after_vmap),
                                         (arg, before_arg, after_arg)])
    return rewrite_fix(
        ctx, location, transform,
        label=f"Pass {before_arg} unmapped",
        summary=(f"Write `{after_vmap}` and pass `{after_arg}` on line {location.lineno}: "
                 f"every entry of {before_arg} is the same number, and the function needs it "
                 "as a number, not as a value mapped over the batch; then re-run."),
        safety=(f"Same results: each element of the batch gets {after_arg}, the value every "
                f"entry of {before_arg} holds."),
        safe=True)
