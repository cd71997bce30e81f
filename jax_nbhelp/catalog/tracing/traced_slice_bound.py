"""A slice bound that is traced: ``x[:n]`` or ``x[start:start + 2]`` under ``jax.jit``.

``IndexError: Slice entries must be static integers. Got slice(None, JitTracer(~int32[]),
None) at position 0``. The message names neither the function nor the argument: the user's
line (the deepest user frame) holds the subscript, its frame names the function, and the
bounds the message shows as tracers are read from the slice on that line; the parameters
they use are found in the function's signature, and what the caller passed for them on the
calling line (the user frame before).

A Python int from the caller is a setting: make the parameter static (the rule of
JNH301-JNH303). Otherwise the result's size would depend on a traced value, which jit cannot
compile; when the size is fixed, ``lax.dynamic_slice`` takes a traced start (explained only:
it clamps a start that runs past the end, where Python slicing shortens the result), except
where the start is ``lax.fori_loop``'s counter and every window the loop asks for lies inside
the array (the loop's bounds and the array's length read live): then it cuts the same
elements, and is the fix.

Reports: jax-ml/jax#7222 (the message, whether jit, pmap or fori_loop traced the bound),
jax-ml/jax#3795 (JAX's message points a statically sized window at a dynamic position to
``lax.dynamic_slice``), jax-ml/jax#34225 (``dynamic_slice`` clamps its start, StableHLO's
semantics).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from jax_nbhelp.catalog import _entry, _static_fix, _tracing
from jax_nbhelp.catalog._example import NO_FIX, TRACING_IMPORTS, Example, made_static
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Frame
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH308"
TITLE = "Slice bound traced under jit"
MESSAGE = "Slice entries must be static integers"

_IMPORTS = TRACING_IMPORTS
_HEAD = '''\
@jax.jit
def head(x, n):
    return x[:n]'''
_WINDOW = '''\
@jax.jit
def window(x, start):
    return x[start:start + 2]'''

_LOOP = '''\
def sums(x):
    def body(i, out):
        return out.at[i].set(x[i:i + 2].sum())
    return jax.lax.fori_loop(0, 4, body, jnp.zeros(4))'''

EXAMPLES = (
    made_static(_HEAD, "out = head(jnp.arange(5.0), 3)", "n", "out.tolist() == [0.0, 1.0, 2.0]"),
    # A traced start with a fixed size: lax.dynamic_slice, explained (it clamps the start).
    Example(
        setup=(_IMPORTS, _WINDOW, "i = jnp.int32(1)"),
        failing="out = window(jnp.arange(5.0), i)",
        fix=NO_FIX,
        check="out.tolist() == [1.0, 2.0]",
        fixed=(_IMPORTS, _WINDOW.replace("x[start:start + 2]",
                                         "jax.lax.dynamic_slice(x, (start,), (2,))"),
               "i = jnp.int32(1)", "out = window(jnp.arange(5.0), i)"),
    ),
    # the same window at fori_loop's counter, where every window the loop asks for lies
    # inside the array: dynamic_slice_in_dim cuts the same elements
    Example(
        setup=(_IMPORTS, _LOOP),
        failing="out = sums(jnp.arange(5.0))",
        fix="Use dynamic_slice_in_dim",
        check="out.tolist() == [1.0, 3.0, 5.0, 7.0]",
        fixed=(_IMPORTS, _LOOP.replace("x[i:i + 2]", "jax.lax.dynamic_slice_in_dim(x, i, 2)"),
               "out = sums(jnp.arange(5.0))"),
    ),
    # one window runs past the end (i = 3 reads x[3:5] of four): no fix, Python would shorten
    Example(
        setup=(_IMPORTS, _LOOP),
        failing="out = sums(jnp.arange(4.0))",
        fix=NO_FIX,
        check="out.tolist() == [1.0, 3.0, 5.0, 3.0]",
        fixed=(_IMPORTS, _LOOP.replace("x[i:i + 2].sum()", "jnp.where(jnp.arange(2) + i < "
                                       "x.shape[0], jax.lax.dynamic_slice_in_dim(jnp.pad(x, "
                                       "(0, 2)), i, 2), 0).sum()"),
               "out = sums(jnp.arange(4.0))"),
    ),
)

WHY = _entry.prose("""
jax.jit compiles your function for the shapes of its arguments, running it once with tracers
that stand for any value. A slice's bounds decide the shape of its result, so they must be
Python ints when jit compiles; a traced bound has no value until the compiled program runs.
""")
WHY_UNDER = {
    "vmap": (
        "jax.vmap runs your function once for the whole batch, and every element's result "
        "must have the same shape. A slice's bounds decide its length; a bound that vmap maps "
        "differs from element to element, so the slices would have different lengths. Slice "
        "a fixed length with lax.dynamic_slice (a traced start, a Python int size) and mask "
        "what lies past each element's bound (jnp.where(jnp.arange(size) < n, x, 0))."),
}

_SLICE_RE = re.compile(r"Got slice\((?P<parts>.*)\) at position (?P<position>\d+)")
_PART_RE = re.compile(r"[^,()]*(?:\([^()]*\))?[^,()]*")


def _traced_parts(message: str) -> tuple[tuple[bool, bool, bool], int] | None:
    """Which of (lower, upper, step) the message shows as tracers, and the index position."""
    match = _SLICE_RE.search(message)
    if match is None:
        return None
    parts = [p.strip() for p in _PART_RE.findall(match.group("parts")) if p.strip()]
    if len(parts) != 3:
        return None
    traced = tuple("Tracer" in part for part in parts)
    return (traced[0], traced[1], traced[2]), int(match.group("position"))


def _slice_at(tree: ast.Module, lineno: int, position: int) -> list[ast.Slice]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or node.lineno > lineno \
                or lineno > (node.end_lineno or node.lineno):
            continue
        index = node.slice
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        item = items[position] if position < len(items) else None
        if isinstance(item, ast.Slice):
            found.append(item)
    return found


def _enclosing_def(tree: ast.Module, name: str, lineno: int) -> ast.FunctionDef | None:
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name
            and n.lineno <= lineno <= (n.end_lineno or n.lineno)]
    return max(defs, key=lambda d: d.lineno) if defs else None


def _window_width(bound: ast.Slice) -> ast.expr | None:
    """``W`` (an expression) for ``x[s:s + W]``: a slice whose upper bound is its lower one
    plus a width, with no step."""
    upper = bound.upper
    if bound.lower is None or bound.step is not None or not isinstance(upper, ast.BinOp) \
            or not isinstance(upper.op, ast.Add) \
            or ast.dump(upper.left) != ast.dump(bound.lower):
        return None
    return upper.right


def _fixed_size(bound: ast.Slice) -> int | None:
    """``k`` for ``x[s:s + k]``, ``k`` an int written in the slice."""
    width = _window_width(bound)
    if not isinstance(width, ast.Constant) or type(width.value) is not int:
        return None
    return width.value


TRIGGERS = (MESSAGE,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next((link for link in ctx.chain
                 if link.is_a("IndexError") and link.message.startswith(MESSAGE)), None)
    if link is None:
        return None
    frames = link.user_frames
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A slice")
    jnp, lax = _tracing.spellings(ctx)
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    explanation = f"{subject} slices with a bound that is traced"
    call: _tracing.JitCall | None = None
    size: int | None = None
    shown = _traced_parts(link.message)
    parsed = _tracing.parse(location.source) if location is not None else None
    inner = frames[-1] if frames else None
    params: list[str] = []
    if location is not None and parsed is not None and shown is not None and inner is not None:
        tree, _ = parsed
        traced, position = shown
        slices = _slice_at(tree, location.lineno, position)
        func = _enclosing_def(tree, inner.function, location.lineno)
        if len(slices) == 1 and func is not None:
            (bound,) = slices
            size = _fixed_size(bound)
            parameters = {a.arg for a in [*func.args.posonlyargs, *func.args.args,
                                          *func.args.kwonlyargs]}
            for part, is_traced in zip((bound.lower, bound.upper, bound.step), traced,
                                       strict=True):
                if part is None or not is_traced:
                    continue
                for name in ast.walk(part):
                    if isinstance(name, ast.Name) and name.id in parameters \
                            and name.id not in params:
                        params.append(name.id)
            if params:
                call = _call(ctx, func, params, inner)
    mapped = _tracing.transform_at(ctx, location) == "vmap"
    if params:
        explanation += f": it comes from {_tracing.quoted(params)}"
        if call is not None and call.origin.for_jit:
            explanation += f", a tracer inside {call.origin.function} (traced for jit)"
        explanation += "."
        if mapped:
            explanation += (" Under jax.vmap it differs from element to element, so each "
                            "element would get a slice of another length.")
    elif mapped:
        explanation += (": under jax.vmap it differs from element to element, so each would "
                        "get a slice of another length.")
    else:
        explanation += ", which has no value while JAX traces."
    if call is not None and _static_fix.can_be_static(call):
        explanation += _static_fix.settings_sentence(call)
        fixes = (_static_fix.static_argnames_fix(ctx, call),)
    else:
        if call is not None and call.any_array:
            explanation += _tracing.data_sentence(call)
        window = _loop_window_fix(ctx, location, frames) \
            if location is not None and shown is not None and shown[1] == 0 else None
        if window is not None:
            fixes = (window[0],)
            explanation += f" {window[1]}"
        elif size is not None:
            notes.append(f"The slice always has {size} elements: "
                         f"`{lax}.dynamic_slice(x, (start,), ({size},))` (or "
                         f"`{lax}.dynamic_slice_in_dim(x, start, {size})`) takes a traced "
                         "start. Unlike Python slicing it clamps a start that runs past the "
                         "end, so the result always has that size.")
        else:
            notes.append(f"If the size is fixed, `{lax}.dynamic_slice(x, (start,), (size,))` "
                         "takes a traced start with a Python int size. If the size is a "
                         "setting you know before the call, pass it as a Python int and mark "
                         "its parameter static (static_argnames). If it depends on the data, "
                         f"keep the full array and mask the rest: `{jnp}.where("
                         f"{jnp}.arange(len(x)) < n, x, 0)`.")
    transform = _tracing.transform_at(ctx, location)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=call.caller if call is not None else None, fixes=fixes,
                            notes=notes, why=_tracing.why_under(transform, WHY_UNDER, WHY))


def _call(ctx: ErrorContext, func: ast.FunctionDef, params: list[str],
          inner: Frame) -> _tracing.JitCall | None:
    """What the caller passed for ``params``, with the def's jit (purpose "jit" if jitted)."""
    if inner.location is None:
        return None
    first = min([func.lineno, *(d.lineno for d in func.decorator_list)])
    definition = replace(inner.location, lineno=first, line="")
    jitted = any(_tracing.jits(d) for d in func.decorator_list)
    origin = _tracing.TraceOrigin(function=func.name, filename=inner.filename, lineno=first,
                                  purpose="jit", arguments=tuple(params))
    call = _tracing.jit_call(ctx, origin, definition)
    callee = call.callee or ""
    if not jitted and not (callee.isidentifier() and callee != func.name
                           and (ctx.type_of(callee) or "").endswith(("PjitFunction",
                                                                     "JitWrapped"))) \
            and not ("(" in callee and "jit" in callee.split("(")[0]):
        origin = replace(origin, purpose="a JAX transformation")
        call = replace(call, origin=origin)
    return call


def _loop_window_fix(ctx: ErrorContext, location: Location,
                     frames: tuple[Frame, ...]) -> tuple[Fix, str] | None:
    """``x[i:i + W]`` in the body of ``lax.fori_loop(lo, hi, body, init)`` (``i`` the loop
    counter, ``W`` a Python int): where every window the loop asks for lies inside ``x``
    (``lo + c >= 0`` and ``hi - 1 + c + W <= len(x)``, read live: the loop's bounds in the
    frame that called fori_loop, ``x``'s length in the body's), ``lax.dynamic_slice_in_dim``
    cuts the same elements; it clamps only a window that runs past the end, and none
    does."""
    parsed = _tracing.parse(location.source)
    inner = frames[-1] if frames else None
    lax = ctx.alias("jax.lax") or (f"{ctx.alias('jax')}.lax" if ctx.alias("jax") else None)
    if parsed is None or inner is None or lax is None or len(frames) < 2:
        return None
    tree, code = parsed
    body = _enclosing_def(tree, inner.function, location.lineno)
    subscripts = [n for n in ast.walk(tree) if isinstance(n, ast.Subscript)
                  and isinstance(n.slice, ast.Slice) and n.lineno == n.end_lineno
                  == location.lineno]
    if body is None or len(subscripts) != 1 or not body.args.args:
        return None
    (node,) = subscripts
    bound = node.slice
    assert isinstance(bound, ast.Slice)
    counter = body.args.args[0].arg
    frame = ctx.live_frame(location)
    written = _window_width(bound)
    if frame is None or written is None or bound.lower is None:
        return None
    evaluate = Evaluator(frame)
    lower, width = bound.lower, evaluate(written)
    offset: object = 0
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Add) \
            and isinstance(lower.left, ast.Name) and lower.left.id == counter:
        offset = evaluate(lower.right)
    elif not (isinstance(lower, ast.Name) and lower.id == counter):
        return None
    shape = getattr(evaluate(node.value), "shape", None)
    if type(width) is not int or type(offset) is not int or width < 0 \
            or type(shape) is not tuple or not shape or type(shape[0]) is not int:
        return None
    loop = _loop_bounds(ctx, frames[-2], inner.function)
    if loop is None:
        return None
    low, high = loop
    if high <= low or low + offset < 0 or high - 1 + offset + width > shape[0]:
        return None
    before = _tracing.segment(code, node)
    start = _tracing.segment(code, lower)
    after = (f"{lax}.dynamic_slice_in_dim({_tracing.segment(code, node.value)}, {start}, "
             f"{_tracing.segment(code, written)})")
    said = (f"The loop runs {counter} from {low} to {high - 1}, so every window "
            f"{before} lies inside the {shape[0]} elements.")
    fix = rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after),
        label="Use dynamic_slice_in_dim",
        summary=f"Write `{after}` for `{before}` on line {location.lineno}; then re-run.",
        safety=(f"Same values: {said[:-1]}, and dynamic_slice_in_dim cuts the same {width} "
                "elements (it would clamp only a window past the end)."),
        safe=True)
    return fix, said


def _loop_bounds(ctx: ErrorContext, caller: Frame, body: str) -> tuple[int, int] | None:
    """``(lo, hi)`` of the ``fori_loop(lo, hi, body, init)`` on ``caller``'s line, where
    both are Python ints in its live frame."""
    if caller.location is None:
        return None
    parsed = _tracing.parse(caller.location.source)
    frame = ctx.live_frame(caller.location)
    if parsed is None or frame is None:
        return None
    loops = [n for n in ast.walk(parsed[0]) if isinstance(n, ast.Call)
             and n.lineno <= caller.location.lineno <= (n.end_lineno or n.lineno)
             and (dotted(n.func) or "").rsplit(".", 1)[-1] == "fori_loop"
             and len(n.args) >= 3 and isinstance(n.args[2], ast.Name) and n.args[2].id == body]
    if len(loops) != 1:
        return None
    evaluate = Evaluator(frame)
    low, high = evaluate(loops[0].args[0]), evaluate(loops[0].args[1])
    return (low, high) if type(low) is int and type(high) is int else None
