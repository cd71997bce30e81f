"""A ``checkify.check`` that JAX stages without ``checkify.checkify`` around it
(``ValueError: Cannot abstractly evaluate a checkify.check which was not functionalized``).

``checkify.check(pred, msg)`` raises at once on concrete values. Under a transformation that
stages the code (jit, ``lax.cond``/``switch``, ``scan``, ``while_loop``) there is no value to
test, and the check can only become part of the program as an error value, which is what
``checkify.checkify(f)`` does: it returns ``(err, out)``, and ``err.throw()`` raises the
check's message where one failed. A check written in a branch of ``lax.switch``, a body of
``scan``, or a function called under ``jax.jit``, with no ``checkify.checkify`` around the
call, stops at staging with this error.

The fix, where the failing cell's statement assigns the result of one call, transforms that
call: ``out = f(x)`` becomes ``err, out = checkify.checkify(f)(x)`` followed by
``err.throw()``, so the checks run as the user wrote them and a failed one raises its own
message. Where the call already goes through a checkified function but ``jax.jit`` is
outside it (``jax.jit(checked)(x)``, ``checked = checkify.checkify(f)``), jit runs some of
the user's code outside the checkified function (a pytree class's ``__init__``, called when
jit rebuilds the argument), and the check there is staged bare: the fix moves checkify
outside jit, ``checkify.checkify(jax.jit(f))(x)``, which returns the same pair.

Reports: jax-ml/jax#12306 (a check in a pytree class's ``__init__``, jit of the checkified
function), thomaspinder/GPJax#520 (a check in a library's parameter validation reached under
jit), jax-ml/jax#23867 (checkify around jit around remat).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import FunctionType

from jax_nbhelp.catalog import _entry, _loops, _tracing
from jax_nbhelp.catalog._example import Example
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH583"
TITLE = "A checkify.check staged without checkify.checkify"
MESSAGE = "Cannot abstractly evaluate a checkify.check which was not functionalized"
TRIGGERS = (MESSAGE,)

_IMPORTS = ("import jax, jax.numpy as jnp\nfrom jax import lax\n"
            "from jax.experimental import checkify")
_BRANCHES = ("def keep(v):\n    return v\n\ndef root(v):\n"
             "    checkify.check(jnp.all(v >= 0), 'root needs non-negative values')\n"
             "    return jnp.sqrt(v)\n\ndef pick(kind, v):\n"
             "    return lax.switch(kind, [keep, root], v)\n\nx = jnp.array([4.0, 9.0])")
_JITTED = ("@jax.jit\ndef scaled(v):\n    checkify.check(jnp.all(v > 0), 'v must be positive')\n"
           "    return jnp.log(v)\n\nx = jnp.array([1.0, 2.0])")
_BOXES = ("@jax.tree_util.register_pytree_node_class\nclass Span:\n"
          "    def __init__(self, lo, hi):\n        self.lo, self.hi = lo, hi\n"
          "        checkify.check(jnp.all(lo <= hi), 'lo above hi')\n\n"
          "    def tree_flatten(self):\n        return (self.lo, self.hi), None\n\n"
          "    @classmethod\n    def tree_unflatten(cls, aux, children):\n"
          "        return cls(*children)\n\n"
          "def width(s):\n    return jnp.sum(s.hi - s.lo)\n\n"
          "checked_width = checkify.checkify(width)\n"
          "span = Span(jnp.array([0.0, 1.0]), jnp.array([2.0, 4.0]))")

EXAMPLES = (
    # a check in a branch of lax.switch, called from the cell: the call is checkified
    Example(setup=(_IMPORTS, _BRANCHES), failing="out = pick(1, x)",
            fix="Run it under checkify.checkify",
            check="out.tolist() == [2.0, 3.0] and err.get() is None",
            fixed=(_IMPORTS, _BRANCHES,
                   "err, out = checkify.checkify(pick)(1, x)\nerr.throw()")),
    # a check in a jitted function
    Example(setup=(_IMPORTS, _JITTED), failing="logs = scaled(x)",
            fix="Run it under checkify.checkify", check="err.get() is None",
            fixed=(_IMPORTS, _JITTED, "err, logs = checkify.checkify(scaled)(x)\nerr.throw()")),
    # jit outside the checkified function: jit rebuilds the Span (its __init__ checks)
    # outside it; checkify goes outside jit (jax-ml/jax#12306)
    Example(setup=(_IMPORTS, _BOXES), failing="err, w = jax.jit(checked_width)(span)",
            fix="Put checkify outside jit", check="float(w) == 5.0 and err.get() is None",
            fixed=(_IMPORTS, _BOXES, "err, w = checkify.checkify(jax.jit(width))(span)")),
)

WHY = _entry.prose("""
checkify.check tests its condition at once when the values are concrete. When JAX stages
the code (jit, lax.cond and lax.switch, scan, while_loop) there is no value yet, and a
check can only be carried as an error value: checkify.checkify(f) makes that value, returns
it with f's output, and err.throw() raises the message of a check that failed.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    if not any(link.message.startswith(MESSAGE) for link in ctx.chain):
        return None
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A checkify.check")
    explanation = (f"{subject} runs while JAX stages the code around it, with no "
                   "checkify.checkify around the call, so the check has no value to test "
                   "and no error value to become.")
    fix: Fix | None = None
    statement = _statement(ctx)
    if statement is not None:
        found = _outside_jit(ctx, statement)
        if found is not None:
            fix, inner = found
            explanation = (f"{subject} runs in {location.function if location else 'code'}"
                           f", which jax.jit runs outside the checkified {inner}: jit "
                           "rebuilds its arguments (a pytree class's __init__) and calls "
                           "the function, and only what runs inside checkify.checkify is "
                           "checked.")
        else:
            fix = _checkified(ctx, statement)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(),
                            fixes=(fix,) if fix is not None else ())


@dataclass(frozen=True)
class _Statement:
    """The failing cell's statement ``target = call(...)``, on one line, and the cell."""

    location: Location
    assign: ast.Assign
    call: ast.Call
    tree: ast.Module
    code: str


def _statement(ctx: ErrorContext) -> _Statement | None:
    cell = ctx.failing_cell()
    parsed = _tracing.parse(cell.source) if cell is not None else None
    if cell is None or parsed is None:
        return None
    tree, code = parsed
    found = [s for s in tree.body if isinstance(s, ast.Assign)
             and s.lineno == cell.lineno == s.end_lineno and len(s.targets) == 1
             and isinstance(s.value, ast.Call)]
    if len(found) != 1:
        return None
    assert isinstance(found[0].value, ast.Call)
    return _Statement(cell, found[0], found[0].value, tree, code)


def _checkify_module(ctx: ErrorContext) -> str | None:
    spelled = ctx.alias("jax.experimental.checkify")
    if spelled is not None:
        return spelled
    jax = ctx.alias("jax")
    return f"{jax}.experimental.checkify" if jax is not None else None


def _checkified(ctx: ErrorContext, statement: _Statement) -> Fix | None:
    """``out = f(x)`` -> ``err, out = checkify.checkify(f)(x)`` and ``err.throw()``."""
    location, call, code = statement.location, statement.call, statement.code
    module = _checkify_module(ctx)
    names = _loops.fresh_names(statement.tree, ("err", "check_error", "checked_error"))
    if module is None or names is None or _is_checkified(ctx, location, call.func):
        return None
    (err,) = names
    targets = statement.assign.targets
    target = _tracing.segment(code, targets[0])
    if isinstance(targets[0], ast.Tuple) and not target.startswith("("):
        target = f"({target})"
    function = _tracing.segment(code, call.func)
    arguments = _tracing.segment(code, call)[len(function):]
    indent = location.line[:len(location.line) - len(location.line.lstrip())]
    after = [f"{indent}{err}, {target} = {module}.checkify({function}){arguments}",
             f"{indent}{err}.throw()"]
    return rewrite_fix(
        ctx, location,
        _tracing.replacing_lines(location.lineno, location.lineno, location.line, after,
                                 "The statement"),
        label="Run it under checkify.checkify",
        summary=(f"Call {function} through {module}.checkify on line {location.lineno}, "
                 f"which returns the checks' error value `{err}` with the result, then "
                 f"`{err}.throw()` raises a check that failed; then re-run."),
        safety=("Same results where every check passes; where one fails, err.throw() "
                "raises its message, as the check does outside a transformation."),
        safe=True)


def _checkify_wrapped(value: object) -> object | None:
    """The function a ``checkify.checkify(f)`` result wraps (its closure's ``f``, read
    without calling anything, through the wrappers ``functools.wraps`` marks), or None for
    anything else."""
    for _ in range(4):  # a function's own attributes only: nothing of a user's class runs
        if not isinstance(value, FunctionType) or "__wrapped__" not in value.__dict__:
            break
        value = value.__dict__["__wrapped__"]
    if not isinstance(value, FunctionType):
        return None
    code = value.__code__
    if value.__name__ != "checked_fun" \
            or not code.co_filename.replace("\\", "/").endswith("/checkify.py") \
            or "f" not in code.co_freevars:
        return None
    closure = value.__closure__ or ()
    try:
        wrapped: object = closure[code.co_freevars.index("f")].cell_contents
    except (IndexError, ValueError):
        return None
    return wrapped


def _is_checkified(ctx: ErrorContext, location: Location, node: ast.expr) -> bool:
    frame = ctx.live_frame(location)
    return frame is not None and _checkify_wrapped(Evaluator(frame)(node)) is not None


def _outside_jit(ctx: ErrorContext, statement: _Statement) -> tuple[Fix, str] | None:
    """``jax.jit(checked)(x)``, ``checked`` a checkified ``f`` the namespace names:
    ``checkify.checkify(jax.jit(f))(x)``."""
    location, code = statement.location, statement.code
    inner = statement.call.func
    if not isinstance(inner, ast.Call) or len(inner.args) != 1 or inner.keywords \
            or not _tracing.is_jit(inner.func) or not isinstance(inner.args[0], ast.Name):
        return None
    frame = ctx.live_frame(location)
    module = _checkify_module(ctx)
    wrapped = _checkify_wrapped(Evaluator(frame)(inner.args[0])) if frame else None
    name = getattr(wrapped, "__name__", None)
    if frame is None or module is None or not isinstance(name, str) \
            or frame.f_globals.get(name) is not wrapped:
        return None
    before = _tracing.segment(code, inner)
    jit = _tracing.segment(code, inner.func)
    after = f"{module}.checkify({jit}({name}))"
    return rewrite_fix(
        ctx, location, _tracing.replacing(inner, before, after),
        label="Put checkify outside jit",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}: checkify then "
                 "sees everything jit runs, the rebuilding of the arguments included; then "
                 "re-run."),
        safety=("Same results: checkify of the jitted function returns the same pair, the "
                "checks' error value and the function's output."),
        safe=True), f"`{inner.args[0].id}`"
