"""An array passed to a ``jax.custom_jvp`` or ``jax.custom_vjp`` function in a position its
``nondiff_argnums`` marks as not differentiable, while JAX traces it (under ``jit``, ``grad``
or inside ``lax.scan``).

``nondiff_argnums`` is for values that are not arrays: a function, a string, a Python
setting. An array there is closed over by the rule, and a traced one escapes the trace. For
a custom_vjp JAX says so (``UnexpectedTracerError: Found a JAX Tracer object passed as an
argument to a custom_vjp function in a position indicated by nondiff_argnums as
non-differentiable``); for a custom_jvp it only reports an escaped tracer, created at the
column of the custom function's call (``_nondiff`` reads both). JAX's custom derivatives
tutorial: pass such an array as an ordinary argument, and let the rule give it no tangent.

Fix, for a custom_jvp whose nondiff positions all hold arrays at the call: drop
``nondiff_argnums`` (from ``@partial(jax.custom_jvp, nondiff_argnums=...)`` or
``jax.custom_jvp(f, nondiff_argnums=...)``) and give the rule the signature JAX then calls
it with, ``(primals, tangents)``: its first lines take the arrays out of ``primals`` under
their old names and leave ``primals`` and ``tangents`` as the rule knew them. The rule's
body is not touched, so it returns the same output and tangent; the arrays' own tangents
are never read, as before. For a custom_vjp the same change also threads the arrays through
the residuals and gives them ``None`` cotangents, where the forward rule returns a written
pair and the backward rule a written tuple.

Reports: jax-ml/jax#20889 (a custom_jvp mask in nondiff_argnums inside ``lax.scan``),
jax-ml/jax#23065 (custom_jvp index arrays in nondiff_argnums leaking under jit and
jacobian), jax-ml/jax#9374 (a custom_jvp with nondiff_argnums inside ``lax.cond``),
jax-ml/jax#2912 (a custom_vjp's nondiff argument traced under jit), jax-ml/jax#4008 (the
change that made JAX reject tracers in a custom_vjp's nondiff_argnums, and its migration
note); y1xiaoc/fwdlap#5 (the escaped tracer of a custom_jvp's nondiff argument, answered
with JAX's tutorial).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

from jax_nbhelp.catalog import _entry, _nondiff, _scopes, _tracing
from jax_nbhelp.catalog._example import TRACING_IMPORTS, Example
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite

CODE = "JNH528"
TITLE = "An array in a custom derivative's nondiff_argnums"

_MASKED = '''\
@partial(jax.custom_jvp, nondiff_argnums=(1,))
def masked(x, mask):
    return x * mask

@masked.defjvp
def masked_jvp(mask, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return x * mask, x_dot * mask'''
_MASKED_FIXED = '''\
@jax.custom_jvp
def masked(x, mask):
    return x * mask

@masked.defjvp
def masked_jvp(primals, tangents):
    (x, mask), (x_dot, _) = primals, tangents
    return x * mask, x_dot * mask'''
_STEP = '''\
def total(x, mask):
    def step(carry, _):
        y, m = carry
        return (masked(y, m) + 1.0, m), None
    (out, _), _ = jax.lax.scan(step, (x, mask), None, length=2)
    return out.sum()'''
_CLIP = '''\
def clip_gradient(lo, hi, x):
    return x

clip_gradient = jax.custom_vjp(clip_gradient, nondiff_argnums=(0, 1))

def clip_fwd(lo, hi, x):
    return x, None

def clip_bwd(lo, hi, res, g):
    return (jnp.clip(g, lo, hi),)

clip_gradient.defvjp(clip_fwd, clip_bwd)'''
_CLIP_FIXED = '''\
@jax.custom_vjp
def clip_gradient(lo, hi, x):
    return x

def clip_fwd(lo, hi, x):
    return x, (lo, hi)

def clip_bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))

clip_gradient.defvjp(clip_fwd, clip_bwd)'''

EXAMPLES = (
    # A mask array in nondiff_argnums, carried through lax.scan, then differentiated.
    Example(
        setup=(TRACING_IMPORTS, _MASKED, _STEP),
        failing="g = jax.grad(total)(jnp.ones(4), jnp.array([1.0, 0.0, 1.0, 0.0]))",
        fix="Pass mask as an ordinary argument",
        check="g.tolist() == [1.0, 0.0, 1.0, 0.0]",
        fixed=(TRACING_IMPORTS, _MASKED_FIXED, _STEP,
               "g = jax.grad(total)(jnp.ones(4), jnp.array([1.0, 0.0, 1.0, 0.0]))"),
    ),
    # Clipping bounds given as arrays under jit: JAX names the nondiff_argnums itself.
    Example(
        setup=(TRACING_IMPORTS, _CLIP),
        failing=("g = jax.jit(jax.grad(lambda x, lo, hi: clip_gradient(lo, hi, x).sum()))"
                 "(jnp.array([0.5, 2.0]), -1.0, 1.0)"),
        fix="Pass lo, hi as ordinary arguments",
        check="g.tolist() == [1.0, 1.0]",
        fixed=(TRACING_IMPORTS, _CLIP_FIXED,
               "g = jax.jit(jax.grad(lambda x, lo, hi: clip_gradient(lo, hi, x).sum()))"
               "(jnp.array([0.5, 2.0]), -1.0, 1.0)"),
    ),
)

WHY = _entry.prose("""
nondiff_argnums tells a custom derivative which arguments are settings rather than values:
a function, a string, a Python number that is fixed when the code is written. JAX hands
them to the rule as they are, outside the trace. An array there is traced like any value
under jit, grad or scan, and handing a traced value outside the trace lets it escape.
Arrays, even ones you never differentiate, belong among the ordinary arguments; the rule
simply gives them no tangent (a custom_vjp's backward rule returns None for them).
""")

TRIGGERS = ("UnexpectedTracerError",)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = _nondiff.array_in_nondiff(ctx)
    if found is None:
        return None
    parameters = _parameter_names(found.function, found.positions)
    names = _tracing.quoted(parameters) if parameters else "an argument"
    at = _entry.at(found.location)
    marked = (f"{found.kind}'s nondiff_argnums={found.positions} marks" if found.positions
              else f"the {found.kind}'s nondiff_argnums marks")
    explanation = (f"The call of {found.name}{at} passes a traced array as {names}, which "
                   f"{marked} as not differentiable: JAX hands such arguments to the rule "
                   "outside the trace, so a traced array there escapes it.")
    fix = _fix(ctx, found, parameters)
    notes = ("Pass arrays as ordinary arguments: a custom_jvp rule then finds them in "
             "primals (and ignores their tangents); a custom_vjp's forward rule saves them "
             "in its residuals and its backward rule returns None for them. Keep "
             "nondiff_argnums for functions, strings and Python settings.",)
    return _entry.diagnosis(ctx, __name__, explanation, location=found.location,
                            fixes=(fix,) if fix is not None else (), notes=notes)


def _parameter_names(function: Any, positions: Sequence[int] | None = None) -> list[str]:
    """The names of the custom function's parameters at ``positions`` (all without them)."""
    code = getattr(getattr(function, "fun", None), "__code__", None)
    if code is None:
        return []
    names = code.co_varnames[:code.co_argcount]
    return list(names) if positions is None else [names[p] for p in positions
                                                    if p < len(names)]


# -- the rewrite ------------------------------------------------------------------------------

Edit = tuple[int, int, int, int, str, str]  # line, col, end line, end col, text there, new


def _apply(edits: Sequence[Edit]) -> Callable[[str], str]:
    """The rewrite making every edit of one cell, last first; it refuses where a text is no
    longer where it was read."""

    def transform(source: str) -> str:
        lines = source.split("\n")
        for lineno, col, end_lineno, end_col, before, after in sorted(edits, reverse=True):
            if not 0 < lineno <= end_lineno <= len(lines):
                raise CannotRewrite(f"line {lineno} is gone")
            first, last = lines[lineno - 1].encode(), lines[end_lineno - 1].encode()
            if lineno == end_lineno:
                there = first[col:end_col].decode()
            else:
                there = "\n".join([first[col:].decode(), *lines[lineno:end_lineno - 1],
                                   last[:end_col].decode()])
            if there != before:
                raise CannotRewrite(f"`{before.splitlines()[0] if before else ''}` is no "
                                    f"longer on line {lineno}")
            lines[lineno - 1:end_lineno] = (
                first[:col].decode() + after + last[end_col:].decode()).split("\n")
        return "\n".join(lines)

    return transform


def _span(code: str, node: ast.AST, after: str) -> Edit:
    return (node.lineno, node.col_offset, node.end_lineno or node.lineno,  # type: ignore[attr-defined]
            node.end_col_offset or 0, _exact(code, node), after)  # type: ignore[attr-defined]


def _exact(code: str, node: ast.AST) -> str:
    return _tracing.segment(code, node, strip=False)


def _def_of(ctx: ErrorContext, function: Any) -> tuple[Location, ast.FunctionDef, str] | None:
    """The user's ``def`` of ``function``, its place and its cell's code."""
    place = _entry.def_location(ctx, function)
    parsed = _tracing.parse(place.source) if place is not None else None
    if place is None or parsed is None:
        return None
    tree, code = parsed
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                 and n.name == getattr(function, "__name__", None)
                 and n.lineno == place.lineno), None)
    if node is None or node.args.vararg or node.args.kwarg or node.args.kwonlyargs \
            or node.args.defaults or node.args.posonlyargs:
        return None
    return place, node, code


def _nondiff_keyword(tree: ast.Module, name: str, kind: str
                     ) -> tuple[ast.Call, ast.keyword] | None:
    """The call that gives ``nondiff_argnums`` to the custom function ``name``: on the
    ``def``'s decorator, or ``name = jax.custom_jvp(name, nondiff_argnums=...)``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        keyword = next((k for k in node.keywords if k.arg == "nondiff_argnums"), None)
        spelled = dotted(node.func) or ""
        if keyword is None:
            continue
        if spelled.split(".")[-1] == kind and node.args and isinstance(node.args[0], ast.Name) \
                and node.args[0].id == name:
            found.append((node, keyword))
        elif spelled.split(".")[-1] == "partial" and node.args \
                and (dotted(node.args[0]) or "").split(".")[-1] == kind:
            decorated = [d for d in ast.walk(tree) if isinstance(d, ast.FunctionDef)
                         and d.name == name and node in d.decorator_list]
            if decorated:
                found.append((node, keyword))
    return found[0] if len(found) == 1 else None


def _without_keyword(code: str, call: ast.Call, keyword: ast.keyword) -> Edit:
    """The edit dropping ``nondiff_argnums=...``: a ``partial(jax.custom_jvp, ...)`` with
    nothing else becomes ``jax.custom_jvp``."""
    spelled = dotted(call.func) or ""
    if spelled.split(".")[-1] == "partial" and len(call.args) == 1 and len(call.keywords) == 1:
        return _span(code, call, _exact(code, call.args[0]))
    kept = [_exact(code, a) for a in call.args] + [
        _exact(code, k) for k in call.keywords if k is not keyword]
    return _span(code, call, f"{_exact(code, call.func)}({', '.join(kept)})")


def _indent(code: str, node: ast.stmt) -> str:
    line = code.split("\n")[node.lineno - 1]
    return line[:len(line) - len(line.lstrip())]


def _fix(ctx: ErrorContext, found: _nondiff.NondiffCall, parameters: list[str]) -> Fix | None:
    if len(parameters) != len(found.positions) or not found.positions or not found.all_arrays:
        return None  # a setting among them stays in nondiff_argnums: not rewritten here
    try:
        edits = _jvp_edits(ctx, found) if found.kind == "custom_jvp" else _vjp_edits(ctx, found)
    except CannotRewrite:
        return None
    if edits is None:
        return None
    by_cell: dict[str, tuple[Location, list[Edit]]] = {}
    for place, edit in edits:
        key = f"{place.kind}:{place.cell}:{place.filename}"
        by_cell.setdefault(key, (place, []))[1].append(edit)
    (first, first_edits), *rest = by_cell.values()
    names = ", ".join(parameters)
    plural = len(parameters) > 1
    what = ("its rule finds them in primals" if found.kind == "custom_jvp" else
            "the forward rule saves them in its residuals and the backward rule returns None "
            "for them")
    return rewrite_fix(
        ctx, first, _apply(first_edits),
        also=tuple((place, _apply(more)) for place, more in rest),
        label=f"Pass {names} as {'ordinary arguments' if plural else 'an ordinary argument'}",
        summary=(f"Drop nondiff_argnums from {found.name}'s {found.kind} so {names} "
                 f"{'are' if plural else 'is'} traced like the other arguments, and {what}; "
                 "then re-run."),
        safety=(f"Same values: the rules compute what they computed, with {names} read where "
                f"{'they were' if plural else 'it was'} handed before; "
                f"{'their' if plural else 'its'} tangents are never used, as nondiff_argnums "
                "said."),
        safe=True)


def _jvp_edits(ctx: ErrorContext, found: _nondiff.NondiffCall
               ) -> list[tuple[Location, Edit]] | None:
    rule = getattr(found.function, "jvp", None)
    fun = getattr(found.function, "fun", None)
    where = _def_of(ctx, rule) if rule is not None else None
    defined = _def_of(ctx, fun) if fun is not None else None
    if where is None or defined is None:
        return None
    place, node, code = where
    k = len(found.positions)
    params = node.args.args
    if len(params) != k + 2 or node.body[0].lineno == node.lineno:
        return None
    moved = [p.arg for p in params[:k]]
    primals, tangents = params[k].arg, params[k + 1].arg
    if any(_scopes.stores(node, name) for name in (*moved, primals, tangents)):
        return None  # the rule rebinds them: the prologue below would not stand for them
    positions = tuple(sorted(found.positions))
    indent = _indent(code, node.body[0])
    taken = [f"{indent}{name} = {primals}[{index}]\n" for name, index in zip(
        moved, found.positions, strict=True)]
    kept = (f"i not in {positions}" if len(positions) > 1 else f"i != {positions[0]}")
    prologue = "".join(taken) + (
        f"{indent}{primals} = tuple(p for i, p in enumerate({primals}) if {kept})\n"
        f"{indent}{tangents} = tuple(t for i, t in enumerate({tangents}) if {kept})\n")
    header = (params[0].lineno, params[0].col_offset, params[k].lineno, params[k].col_offset,
              _between(code, params[0], params[k]), "")
    body = (node.body[0].lineno, 0, node.body[0].lineno, 0, "", prologue)
    edits: list[tuple[Location, Edit]] = [(place, header), (place, body)]
    return _with_keyword_dropped(ctx, found, defined, edits)


def _vjp_edits(ctx: ErrorContext, found: _nondiff.NondiffCall
               ) -> list[tuple[Location, Edit]] | None:
    forward = _def_of(ctx, getattr(found.function, "fwd", None))
    backward = _def_of(ctx, getattr(found.function, "bwd", None))
    defined = _def_of(ctx, getattr(found.function, "fun", None))
    if forward is None or backward is None or defined is None:
        return None
    k = len(found.positions)
    positions = sorted(found.positions)
    f_place, f_node, f_code = forward
    b_place, b_node, b_code = backward
    b_params = b_node.args.args
    if len(b_params) != k + 2 or b_node.body[0].lineno == b_node.lineno \
            or len(f_node.args.args) <= max(positions):
        return None
    saved = [f_node.args.args[p].arg for p in found.positions]  # in the order JAX passes them
    moved = [p.arg for p in b_params[:k]]
    residual = b_params[k].arg
    if any(_scopes.stores(f_node, name) for name in saved) or any(
            _scopes.stores(b_node, name) for name in (*moved, residual)):
        return None
    edits: list[tuple[Location, Edit]] = []
    f_returns = [n for n in _scopes.own_nodes(f_node) if isinstance(n, ast.Return)]
    b_returns = [n for n in _scopes.own_nodes(b_node) if isinstance(n, ast.Return)]
    if not f_returns or not b_returns:
        return None
    extra = saved[0] if k == 1 else f"({', '.join(saved)})"
    for node in f_returns:
        if not isinstance(node.value, ast.Tuple) or len(node.value.elts) != 2:
            return None
        out, res = node.value.elts
        edits.append((f_place, _span(f_code, node.value,
                                     f"{_exact(f_code, out)}, ({_exact(f_code, res)}, {extra})")))
    count = len(_parameter_names(found.function))
    for node in b_returns:
        if not isinstance(node.value, ast.Tuple) or len(node.value.elts) != count - k or any(
                isinstance(e, ast.Starred) for e in node.value.elts):
            return None
        items = [_exact(b_code, e) for e in node.value.elts]
        for position in positions:
            items.insert(position, "None")
        edits.append((b_place, _span(b_code, node.value, f"({', '.join(items)})")))
    indent = _indent(b_code, b_node.body[0])
    unpacked = moved[0] if k == 1 else ", ".join(moved)
    header = (b_params[0].lineno, b_params[0].col_offset, b_params[k].lineno,
              b_params[k].col_offset, _between(b_code, b_params[0], b_params[k]), "")
    body = (b_node.body[0].lineno, 0, b_node.body[0].lineno, 0, "",
            f"{indent}{residual}, {'(' + unpacked + ')' if k > 1 else unpacked} = {residual}\n")
    edits += [(b_place, header), (b_place, body)]
    return _with_keyword_dropped(ctx, found, defined, edits)


def _between(code: str, first: ast.arg, last: ast.arg) -> str:
    lines = code.split("\n")
    if first.lineno != last.lineno:
        raise CannotRewrite("the rule's parameters span several lines")
    return lines[first.lineno - 1].encode()[first.col_offset:last.col_offset].decode()


def _with_keyword_dropped(ctx: ErrorContext, found: _nondiff.NondiffCall,
                          defined: tuple[Location, ast.FunctionDef, str],
                          edits: list[tuple[Location, Edit]]
                          ) -> list[tuple[Location, Edit]] | None:
    place, node, code = defined
    parsed = _tracing.parse(place.source)
    if parsed is None:
        return None
    keyword = _nondiff_keyword(parsed[0], node.name, found.kind)
    if keyword is None:
        return None
    return [(place, _without_keyword(code, *keyword)), *edits]
