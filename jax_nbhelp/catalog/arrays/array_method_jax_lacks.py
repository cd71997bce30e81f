"""A method a JAX array does not have, called as PyTorch, NumPy or an older JAX spelled it
(``AttributeError: 'jaxlib._jax.ArrayImpl' object has no attribute 'unsqueeze'``; inside
jit, grad or vmap: ``DynamicJaxprTracer has no attribute unsqueeze``).

``jax.Array`` has NumPy's array methods, minus the ones that change an array in place, and
none of PyTorch's. Code ported from PyTorch calls ``x.unsqueeze(0)``, ``x.detach()``,
``x.numpy()``, ``x.exp()``; code written for an older JAX calls ``x.to_py()``, removed after
its deprecation in jax 0.3.17. Where a JAX spelling computes the same thing, the call is
written that way on the user's line:

- a table of methods with their JAX spelling (``x.unsqueeze(0)`` is
  ``jnp.expand_dims(x, 0)``, ``x.detach()`` is ``jax.lax.stop_gradient(x)``, ``x.to_py()``
  and ``x.numpy()`` are ``jax.device_get(x)``, ``x.t()`` is ``x.T``);
- otherwise a function of ``jax.numpy`` of the same name that takes the array first
  (``x.exp()`` is ``jnp.exp(x)``, ``x.log1p()`` is ``jnp.log1p(x)``), except NumPy's methods
  that work in place (``fill``, ``resize``, ``put``), whose JAX functions return a new
  array instead of changing this one.

Anything else is explained, with the array methods whose names are close.

NumPy's ``x.flat`` is an attribute JAX arrays declare and refuse (``NotImplementedError: JAX
Arrays do not implement the arr.flat property: consider arr.flatten() instead.``): read (an
index, a loop), it is the message's ``x.flatten()``, whose elements are the same in the same
order (``C.flat[::n + 1]``, NumPy's idiom for a square matrix's diagonal). Assigned through
(``x.flat[i] = v``) it is not: JAX arrays never change.

Reports: jax-ml/jax#8046 (JAX arrays lack ``.flat``; its maintainers would have it be
``ravel``), jax-ml/jax#11308 (the explicit error that names ``flatten()``), numpy/numpy#9447
(``np.asarray(a.flat)`` is ``a.ravel()``), StanfordASL/RiskAverseTrajOpt#2 (``ArrayImpl
object has no attribute to_py`` in code written for jax 0.2), AaltoML/BayesNewton#20
(``DynamicJaxprTracer has no attribute set``: an update spelled without ``.at``),
jax-ml/jax#12049 (which methods ``jax.Array`` declares, and which only concrete arrays have).
"""

from __future__ import annotations

import ast
import difflib
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell, edited
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH508"
TITLE = "A method JAX arrays do not have"
TRIGGERS = ("object has no attribute", "Tracer has no attribute",
            "do not implement the arr.flat property")

_MESSAGE = re.compile(r"^(?:'(?:[\w.]+\.)?ArrayImpl' object has no attribute '(?P<name>\w+)'"
                      r"|\w*Tracer has no attribute (?P<traced>\w+))$")

# method -> (its JAX spelling: {x} the array, {args} the call's arguments; whose it was)
_SPELLINGS: dict[str, tuple[str, str]] = {
    "to_py": ("{jax}.device_get({x})", "older JAX's (deprecated in jax 0.3.17, then removed)"),
    "numpy": ("{jax}.device_get({x})", "PyTorch's"),
    "detach": ("{jax}.lax.stop_gradient({x})", "PyTorch's"),
    "unsqueeze": ("{jnp}.expand_dims({x}, {args})", "PyTorch's"),
    "permute": ("{x}.transpose({args})", "PyTorch's"),
    "clamp": ("{x}.clip({args})", "PyTorch's"),
    "dim": ("{x}.ndim", "PyTorch's"),
    "numel": ("{x}.size", "PyTorch's"),
    "t": ("{x}.T", "PyTorch's"),
    "contiguous": ("{x}", "PyTorch's"),
    "float": ("{x}.astype({jnp}.float32)", "PyTorch's"),
    "mm": ("{jnp}.matmul({x}, {args})", "PyTorch's"),
    "matmul": ("{jnp}.matmul({x}, {args})", "PyTorch's"),
    "mul": ("{jnp}.multiply({x}, {args})", "PyTorch's"),
    "sub": ("{jnp}.subtract({x}, {args})", "PyTorch's"),
    "div": ("{jnp}.divide({x}, {args})", "PyTorch's"),
    "pow": ("{jnp}.power({x}, {args})", "PyTorch's"),
}
# an attribute JAX arrays declare and refuse, and the method JAX's message prescribes
_REFUSED = re.compile(r"do not implement the arr\.(?P<name>\w+) property: consider "
                      r"arr\.(?P<use>\w+)\(\) instead")
_NO_ARGUMENTS = frozenset({"to_py", "numpy", "detach", "dim", "numel", "t", "contiguous",
                           "float"})
_IN_PLACE = frozenset({"fill", "resize", "put", "itemset", "setflags", "sort_"})

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, "x = jnp.arange(3.0)"), "row = x.unsqueeze(0)",
                   "row = jnp.expand_dims(x, 0)", "Use jnp.expand_dims(x, 0)",
                   "row.shape == (1, 3)"),
    corrected_cell((JAX_IMPORTS, "x = jnp.arange(3.0)"), "host = x.to_py()",
                   "host = jax.device_get(x)", "Use jax.device_get(x)",
                   "host.tolist() == [0.0, 1.0, 2.0]"),
    # inside jit: the method is looked up on a tracer, and jnp's function of that name does it,
    # at each place the line calls it
    edited(JAX_IMPORTS + "\n\n@jax.jit\ndef soft(v):\n    return v.exp() / v.exp().sum()",
           "p = soft(jnp.zeros(2))", "Use JAX's spelling", "p.tolist() == [0.5, 0.5]",
           ("v.exp() / v.exp().sum()", "jnp.exp(v) / jnp.exp(v).sum()")),
    # PyTorch's clamp with a keyword bound: this JAX's clip takes min= and max= (probed)
    corrected_cell((JAX_IMPORTS, "x = jnp.array([-1.0, 2.0])"), "y = x.clamp(min=0.0)",
                   "y = x.clip(min=0.0)", "Use x.clip(min=0.0)", "y.tolist() == [0.0, 2.0]"),
    # NumPy's in-place fill has no JAX method: a new array is made with jnp.full_like
    corrected_cell((JAX_IMPORTS, "x = jnp.zeros(3)"), "x.fill(2.0)",
                   "x = jnp.full_like(x, 2.0)", NO_FIX, "x.tolist() == [2.0, 2.0, 2.0]"),
    # NumPy's flat, read: the flatten() JAX's message prescribes, the same elements in order
    corrected_cell((JAX_IMPORTS, "m = jnp.arange(9.0).reshape(3, 3)"), "d = m.flat[::4]",
                   "d = m.flatten()[::4]", "Use m.flatten()", "d.tolist() == [0.0, 4.0, 8.0]"),
)

WHY = _entry.prose("""
A JAX array (jax.Array) has NumPy's array methods, except those that change an array in
place, since JAX arrays never change. It has none of PyTorch's tensor methods, and a few
methods of older JAX releases are gone. What they did is a jax.numpy function or an array
attribute: x.unsqueeze(0) is jnp.expand_dims(x, 0), x.detach() is jax.lax.stop_gradient(x),
x.numpy() and x.to_py() are jax.device_get(x).
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    refused = _REFUSED.search(ctx.top.message) if ctx.top.is_a("NotImplementedError") \
        else None
    if refused is not None:
        return _refused(ctx, refused["name"], refused["use"])
    found = _MESSAGE.match(ctx.top.message) if ctx.top.is_a("AttributeError") else None
    if found is None:
        return None
    name = found["name"] or found["traced"]
    location = ctx.deepest_user_location()
    parsed = _tracing.parse(location.source) if location is not None else None
    read = sorted((n for n in ast.walk(parsed[0]) if isinstance(n, ast.Attribute)
                   and n.attr == name and n.lineno == location.lineno),  # type: ignore[union-attr]
                  key=lambda n: n.col_offset) if parsed is not None else []
    spelled = _SPELLINGS.get(name)
    whose = f", {spelled[1]} method," if spelled is not None else ""
    fix = None
    if read and location is not None and parsed is not None:
        node = read[0]
        receiver = _tracing.segment(location.source or "", node.value)
        if not isinstance(node.value, ast.Name | ast.Attribute | ast.Subscript | ast.Call):
            receiver = f"({receiver})"
        subject = _tracing.quoted_line(location, "Your code")
        explanation = (f"{subject} calls `{receiver}.{name}`{whose} on a JAX array, and JAX "
                       f"arrays have no {name}.")
        fix = _fix(ctx, location, parsed[0], read, name)
    else:  # the line is not shown (code run by exec): what the message says
        explanation = f"Your code asks a JAX array for `{name}`{whose} and JAX arrays have none."
    notes: tuple[str, ...] = ()
    if fix is None:
        close = difflib.get_close_matches(name, _array_methods(), n=3, cutoff=0.6)
        notes = ((f"Close methods JAX arrays have: {', '.join(close)}."
                  if close else "No method of a JAX array has a close name.")
                 + (f" NumPy's {name} changes an array in place; JAX arrays never change: "
                    "make a new array (x = ...)." if name in _IN_PLACE else ""),)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=(fix,) if fix else (),
                            notes=notes, error=ctx.top.summary.splitlines()[0])


def _refused(ctx: ErrorContext, name: str, use: str) -> Diagnosis:
    """``x.flat``: JAX declares it, raises, and names the method to use; where the line
    only reads it, each ``x.flat`` on the line is written ``x.flatten()``."""
    location = ctx.deepest_user_location()
    parsed = _tracing.parse(location.source) if location is not None else None
    fix = None
    explanation = (f"Your code reads `{name}` of a JAX array, NumPy's attribute that JAX "
                   f"arrays do not implement; JAX's message says to use `{use}()`.")
    if location is not None and parsed is not None:
        tree, code = parsed
        read = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == name
                and n.lineno == n.end_lineno == location.lineno]
        stored = {id(n) for node in ast.walk(tree) if isinstance(node, ast.Subscript)
                  and isinstance(node.ctx, ast.Store | ast.Del) for n in [node.value]}
        if read:
            receiver = _tracing.segment(code, read[0].value)
            explanation = (f"{_tracing.quoted_line(location, 'Your code')} reads "
                           f"`{receiver}.{name}`, NumPy's attribute that JAX arrays do not "
                           f"implement; JAX's message says to use `{receiver}.{use}()`.")
        if read and not any(id(n) in stored for n in read):
            edits = [(n, _tracing.segment(code, n), f"{_tracing.segment(code, n.value)}.{use}()")
                     for n in read]
            after = edits[0][2]
            fix = rewrite_fix(
                ctx, location, _tracing.replacing_each(edits),
                label=f"Use {after}" if len(edits) == 1 and len(after) <= 30
                else f"Use .{use}()",
                summary=(f"Write `{after}` for `{edits[0][1]}`"
                         + ("" if len(edits) == 1 else f", and the same at each of the "
                            f"{len(edits)} reads of .{name} on the line")
                         + f" (line {location.lineno}); then re-run."),
                safety=(f"Same values: what JAX's own message prescribes; {use}() holds the "
                        f"elements NumPy's .{name} goes through, in the same order."),
                safe=True)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=(fix,) if fix else (),
                            error=ctx.top.summary.splitlines()[0])


def _array_methods() -> list[str]:
    import jax

    return sorted(n for n in dir(jax.Array) if not n.startswith("_"))


def _fix(ctx: ErrorContext, location: Location, tree: ast.Module,
         read: list[ast.Attribute], name: str) -> Fix | None:
    """JAX's spelling written for every call of the method on the line (right to left)."""
    jax, jnp = ctx.alias("jax"), ctx.alias("jax.numpy")
    if jax is None or jnp is None or name in _IN_PLACE:
        return None
    parents = {child: parent for parent in ast.walk(tree)
               for child in ast.iter_child_nodes(parent)}
    code = location.source or ""
    edits: list[tuple[ast.Call, str, str]] = []
    history = ""
    for node in read:
        call = parents.get(node)
        if not isinstance(call, ast.Call) or call.func is not node \
                or call.end_lineno != call.lineno:
            return None
        spelled = _spelling(call, name, jax, jnp, code)
        if spelled is None:
            return None
        after, history = spelled
        edits.append((call, _tracing.segment(code, call, strip=False), after))
    spans = [(c.col_offset, c.end_col_offset or 0) for c, _, _ in edits]
    if any(a[0] < b[0] < a[1] or b[0] < a[0] < b[1] for a in spans for b in spans if a != b):
        return None  # one call inside another's receiver: x.exp().exp()

    def transform(source: str) -> str:
        for call, before, after in sorted(edits, key=lambda e: e[0].col_offset, reverse=True):
            source = _tracing.replacing(call, before, after)(source)
        return source

    first_before, first_after = edits[0][1], edits[0][2]
    one = len(edits) == 1
    return rewrite_fix(
        ctx, location, transform,
        label=f"Use {first_after}" if one and len(first_after) <= 30 else "Use JAX's spelling",
        summary=(f"Write `{first_after}` for `{first_before}`"
                 + ("" if one else f", and the same at each of the {len(edits)} calls of "
                    f"{name} on the line") + f" (line {location.lineno}); then re-run."),
        safety=f"Same values: {history}.",
        safe=True)


_ARRAY_FIRST = frozenset({"x", "a", "x1", "arr", "array", "ary", "m", "v", "input"})


def _clip_takes(call: ast.Call) -> bool:
    """Whether this JAX's ``clip`` takes the keywords of PyTorch's ``x.clamp(min=, max=)``
    (jnp.clip has had ``min`` and ``max`` since jax 0.4.27: probed, not assumed)."""
    if not call.keywords:
        return True
    import inspect

    import jax.numpy as numpy_of_jax

    try:
        taken = inspect.signature(numpy_of_jax.clip).parameters
    except (TypeError, ValueError):
        return False
    return all(k.arg in ("min", "max") and k.arg in taken for k in call.keywords)


def _spelling(call: ast.Call, name: str, jax: str, jnp: str, code: str
              ) -> tuple[str, str] | None:
    """The call written JAX's way, and why that is the same; None where no spelling is."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    func = call.func
    assert isinstance(func, ast.Attribute)
    receiver = _tracing.segment(code, func.value)
    arguments = [_tracing.segment(code, a) for a in [*call.args, *call.keywords]]
    spelled = _SPELLINGS.get(name)
    if spelled is not None:
        if (name in _NO_ARGUMENTS) == bool(arguments) or (call.keywords and name in (
                "permute", "unsqueeze")) or (name == "clamp" and not _clip_takes(call)):
            return None  # arguments the JAX spelling does not take the same way
        template, whose = spelled
        history = f"`{{after}}` does what {whose} {name} does"
    else:
        import inspect

        import jax.numpy as numpy_of_jax

        function = getattr(numpy_of_jax, name, None)
        try:
            first = next(iter(inspect.signature(function).parameters))  # type: ignore[arg-type]
        except (TypeError, ValueError, StopIteration):
            return None
        if isinstance(function, type) or first not in _ARRAY_FIRST:
            return None
        template = "{jnp}." + name + "({x}{comma}{args})"
        history = (f"`{{after}}` is jax.numpy's {name} of the array the method was called "
                   "on")
    simple = isinstance(func.value, ast.Name | ast.Attribute | ast.Subscript | ast.Call)
    x = receiver if simple or template.startswith(("{jnp}", "{jax}")) else f"({receiver})"
    after = template.format(jax=jax, jnp=jnp, x=x, args=", ".join(arguments),
                            comma=", " if arguments else "")
    return after, history.format(after=after)
