"""Python control flow (``if``, ``while``, ``and``/``or``/``not``, ``assert``) on a traced
value: ``TracerBoolConversionError``.

Under ``jax.jit`` every argument is a tracer, so ``if flag:`` fails even when the caller
passes ``True``. Two stories, told apart by what the call site passes:

* a setting (``True``, ``3``, ``"relu"``): mark the parameter static, where jit is applied;
* data (an array): the branch has to become part of the computation (``jnp.where``,
  ``lax.cond``; ``@pl.when`` in a Pallas kernel). Where the branch picks one of two values
  (``a if c else b``; an ``if``/``else`` whose sides each return, or assign one name, one
  value) and the condition is one True or False per element, ``jnp.where(c, a, b)`` is that
  choice as one operation: the fix rewrites it so and runs it. Under jit the condition is
  one True or False where JAX's message shows it converted a ``bool[]`` (``v.sum() > 0``);
  the rewrite is then offered where both sides have one shape and one kind of number, read
  from the arrays they compute with, so the result keeps the ``if``'s shape and dtype. Any
  other branch (several statements, a loop, an ``elif``, a comment inside) is explained,
  never rewritten. A ``while`` loop whose body only assigns names that have values before
  it, asking one True or False, becomes ``lax.while_loop`` carrying those names, its
  condition and body kept as written in two functions.

Reports (the statement form): jax-ml/jax#1076 (an ``if``/``else`` returning one of two
values of a vmapped scalar), mlysy/pfjax#3 (a branch on traced values rewritten without
Python's ``if``).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import (
    _chained,
    _data_size,
    _entry,
    _loops,
    _scopes,
    _static_fix,
    _tracing,
)
from jax_nbhelp.catalog._example import (
    TRACING_IMPORTS,
    Example,
    corrected,
    corrected_cell,
    made_static,
)
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite

CODE = "JNH301"
TITLE = "Python if/while on a traced value"
ERROR = "TracerBoolConversionError"
TRIGGERS = (ERROR,)

_IMPORTS = TRACING_IMPORTS
_FLAG = '''\
@jax.jit
def step(x, add_one):
    if add_one:
        return x + 1
    return x - 1'''
_RELU = '''\
@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0'''
_PARTIAL = '''\
@partial(jax.jit, static_argnames=("scale",))
def step(x, scale, add_one):
    if add_one:
        return x * scale + 1
    return x * scale'''
_CLIP = """\
def clipped(v):
    if v < 0:
        low = 0.0
    else:
        low = v
    return jnp.minimum(low, 1.0)"""

_HINGE = '''\
@jax.jit
def hinge(margin):
    return max(0.0, 1.0 - margin)'''

_GROW = """\
@jax.jit
def grow(x, pad, n):
    if pad:
        return jnp.concatenate([x, jnp.zeros(n)])
    return x"""

_EXTRACTED = ("trace = jnp.array([0.1, 2.0, -3.0])\n@jax.jit\ndef loud(signal):\n"
              "    return jnp.sum(jnp.extract(jnp.abs(signal) > 1, signal) ** 2)")

_POSITIVE = ("@jax.jit\ndef positive_sum(x):\n    total = 0.0\n    for i in range(x.shape[0]):\n"
             "        if x[i] > 0:\n            total += x[i]\n    return total")

_GREEDY = ("@jax.jit\ndef greedy(q):\n    if q.max() > 0.5:\n        return jnp.argmax(q)\n"
           "    return 0")

EXAMPLES = (
    # Python's max of a traced number: exactly jnp.where(b > a, b, a), NaN included.
    corrected(_IMPORTS, _HINGE, _HINGE.replace("max(0.0, 1.0 - margin)",
                                               "jnp.where(1.0 - margin > 0.0, 1.0 - margin, 0.0)"),
              "out = jax.vmap(hinge)(jnp.array([0.25, 2.0]))", "Use jnp.where",
              "out.tolist() == [0.75, 0.0]"),
    # Python's and/or/not of traced booleans, used as a value: jax.numpy's logical functions
    corrected_cell((_IMPORTS,),
                   "flags = jax.vmap(lambda v: v < -1 or v > 1)(jnp.array([0.0, 2.0]))",
                   "flags = jax.vmap(lambda v: jnp.logical_or(v < -1, v > 1))"
                   "(jnp.array([0.0, 2.0]))", "Use jnp.logical_or",
                   "flags.tolist() == [False, True]"),
    corrected(_IMPORTS, "@jax.jit\ndef flip(b):\n    return not b",
              "@jax.jit\ndef flip(b):\n    return jnp.logical_not(b)",
              "f = flip(jnp.array(True))", "Use jnp.logical_not", "bool(f) is False"),
    # A Python flag: static_argnames on the decorator (defined in an earlier cell).
    made_static(_FLAG, "out = step(jnp.ones(3), True)", "add_one", "bool((out == 2).all())"),
    # Already partly static: the new name is merged into static_argnames.
    Example(
        setup=(_IMPORTS, _PARTIAL),
        failing="out = step(jnp.ones(3), 2, add_one=False)",
        fix="Make add_one static",
        check="bool((out == 2).all())",
        fixed=(_IMPORTS, _PARTIAL.replace('("scale",)', '("scale", "add_one")'),
               "out = step(jnp.ones(3), 2, add_one=False)"),
    ),
    # jax.jit(f) as a call, flag from a Python variable in the namespace.
    Example(
        setup=(_IMPORTS, "def step(x, add_one):\n    return x + 1 if add_one else x - 1\n"
                         "fast_step = jax.jit(step)", "use_one = True"),
        failing="out = fast_step(jnp.ones(3), use_one)",
        fix="Make add_one static",
        check="bool((out == 2).all())",
        fixed=(_IMPORTS, "def step(x, add_one):\n    return x + 1 if add_one else x - 1\n"
                         "fast_step = jax.jit(step, static_argnames='add_one')",
               "out = fast_step(jnp.ones(3), True)"),
    ),
    # Under vmap: every element may need its own branch (explained as vmap, not jit); the
    # if picks one of two values per element, so jnp.where is its rewrite, verified.
    Example(
        setup=(_IMPORTS, "def magnitude(v):\n    if v > 0:\n        return v\n    return -v"),
        failing="out = jax.vmap(magnitude)(jnp.array([-2.0, 3.0]))",
        fix="Use jnp.where",
        check="out.tolist() == [2.0, 3.0]",
        fixed=(_IMPORTS, "def magnitude(v):\n    return jnp.where(v > 0, v, -v)",
               "out = jax.vmap(magnitude)(jnp.array([-2.0, 3.0]))"),
    ),
    # A conditional expression on a traced value: jnp.where is its rewrite, verified.
    Example(
        setup=(_IMPORTS, "def magnitude(v):\n    return v if v > 0 else -v"),
        failing="out = jax.jit(magnitude)(jnp.float32(-2.0))",
        fix="Use jnp.where(v > 0, v, -v)",
        check="float(out) == 2.0",
        fixed=(_IMPORTS, "def magnitude(v):\n    return jnp.where(v > 0, v, -v)",
               "out = jax.jit(magnitude)(jnp.float32(-2.0))"),
    ),
    # Data, one scalar: the if/else returning one of two values is rewritten as jnp.where.
    corrected(_IMPORTS, _RELU, "@jax.jit\ndef relu(x):\n    return jnp.where(x > 0, x, 0.0)",
              "out = relu(jnp.float32(2.0))", "Use jnp.where", "float(out) == 2.0"),
    # One condition about a whole array (JAX converted a bool[]), and both sides of the
    # array's shape and kind: jnp.where returns what the if returned.
    corrected(_IMPORTS, "@jax.jit\ndef boosted(v):\n    if v.sum() > 0:\n        return v * 2\n"
                        "    return v - 1.0",
              "@jax.jit\ndef boosted(v):\n    return jnp.where(v.sum() > 0, v * 2, v - 1.0)",
              "out = boosted(jnp.array([1.0, -0.5]))", "Use jnp.where",
              "out.tolist() == [2.0, -1.0]"),
    # A while loop on a traced value, its body assignments only: lax.while_loop carrying
    # the names the body assigns, the condition and body as written.
    corrected(_IMPORTS, "@jax.jit\ndef halvings(v):\n    t = v.sum()\n    count = 0\n"
                        "    while t > 1:\n        t = t / 2\n        count += 1\n"
                        "    return count",
              "@jax.jit\ndef halvings(v):\n    t = v.sum()\n    count = 0\n"
              "    def cond_fun(state):\n        t, count = state\n        return t > 1\n"
              "    def body_fun(state):\n        t, count = state\n        t = t / 2\n"
              "        count += 1\n        return t, count\n"
              "    t, count = jax.lax.while_loop(cond_fun, body_fun, (t, count))\n"
              "    return count",
              "out = halvings(jnp.array([3.0, 5.0]))", "Use jax.lax.while_loop", "int(out) == 3"),
    # `and` in the condition: the two conditions joined as one array, then jnp.where.
    corrected(_IMPORTS, "def band(v):\n    if v > 0 and v < 1:\n        return v\n"
                        "    return 0.0",
              "def band(v):\n    return jnp.where(jnp.logical_and(v > 0, v < 1), v, 0.0)",
              "out = jax.vmap(band)(jnp.array([-1.0, 0.5, 2.0]))", "Use jnp.where",
              "out.tolist() == [0.0, 0.5, 0.0]"),
    # An if/else assigning one name, under vmap: one assignment of jnp.where.
    corrected(_IMPORTS, _CLIP,
              "def clipped(v):\n    low = jnp.where(v < 0, 0.0, v)\n"
              "    return jnp.minimum(low, 1.0)",
              "out = jax.vmap(clipped)(jnp.array([-2.0, 0.5, 3.0]))", "Use jnp.where",
              "out.tolist() == [0.0, 0.5, 1.0]"),
    # Python's any of a one-dimensional traced array: jnp.any gives the same answer.
    corrected(_IMPORTS, "@jax.jit\ndef any_negative(x):\n    return any(x < 0)",
              "@jax.jit\ndef any_negative(x):\n    return jnp.any(x < 0)",
              "out = any_negative(jnp.array([2.0, -1.0]))", "Use jnp.any", "bool(out)"),
    # An if on one answer about a whole array (a method's, then Python's all), with a side
    # that is a jax.numpy function of the array: jnp.where of that one answer.
    corrected(_IMPORTS, "@jax.jit\ndef unsigned(x):\n    if (x < 0).any():\n"
                        "        return jnp.abs(x)\n    return x",
              "@jax.jit\ndef unsigned(x):\n    return jnp.where((x < 0).any(), jnp.abs(x), x)",
              "out = unsigned(jnp.array([-1.0, 2.0]))", "Use jnp.where",
              "out.tolist() == [1.0, 2.0]"),
    corrected(_IMPORTS, "@jax.jit\ndef doubled_if_positive(x):\n"
                        "    return x * 2 if all(x > 0) else x",
              "@jax.jit\ndef doubled_if_positive(x):\n"
                        "    return jnp.where(jnp.all(x > 0), x * 2, x)",
              "out = doubled_if_positive(jnp.array([1.0, 2.0]))", "Use jnp.where",
              "out.tolist() == [2.0, 4.0]"),
    # A chained comparison used as a value: each comparison per element, joined by &.
    corrected(_IMPORTS, "def in_unit(x):\n    return jnp.where(0 <= x < 1, x, 0.0)",
              "def in_unit(x):\n    return jnp.where((0 <= x) & (x < 1), x, 0.0)",
              "out = jax.vmap(in_unit)(jnp.array([-0.5, 0.5, 1.5]))", "Use (0 <= x) & (x < 1)",
              "out.tolist() == [0.0, 0.5, 0.0]"),
    # a second setting the call passes, used as a size: made static with the first, so that
    # jit does not stop at it next
    corrected(_IMPORTS, _GROW, _GROW.replace(
        "@jax.jit", "@partial(jax.jit, static_argnames=('pad', 'n'))"),
        "out = grow(jnp.ones(2), True, 3)", "Make pad and n static", "out.shape == (5,)"),
    # jnp.extract under jit, which JAX's own code turns into a Python bool: the count this
    # call's condition gives (jax-ml/jax#38603)
    corrected(_IMPORTS, _EXTRACTED, _EXTRACTED.replace("1, signal)", "1, signal, size=2)"),
              "out = loud(trace)", "Pass size=2", "float(out) == 13.0"),
    # a running sum in a Python loop, added to only where the element is positive: the
    # += kept for every element, picked by the condition
    corrected(_IMPORTS, _POSITIVE, _POSITIVE.replace(
        "        if x[i] > 0:\n            total += x[i]",
        "        total = jnp.where(x[i] > 0, total + x[i], total)"),
        "s = positive_sum(jnp.array([1.0, -2.0, 3.0]))", "Use jnp.where", "float(s) == 4.0"),
    # a branch on a whole array's maximum that returns an index or a number: one number
    # each way, picked by the condition
    corrected(_IMPORTS, _GREEDY, _GREEDY.replace(
        "    if q.max() > 0.5:\n        return jnp.argmax(q)\n    return 0",
        "    return jnp.where(q.max() > 0.5, jnp.argmax(q), 0)"),
        "a = greedy(jnp.array([0.1, 0.9]))", "Use jnp.where", "int(a) == 1"),
)

WHY = _entry.prose("""
jax.jit runs your Python function once with tracers in place of its arguments, recording the
operations to compile. A Python if, while, and/or/not or assert must choose right then, but
a tracer has no value yet: it stands for every value the argument may take when the compiled
program runs.
""")


def _next_statement(tree: ast.Module, node: ast.stmt) -> ast.stmt | None:
    for parent in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and node in block:
                index = block.index(node)
                return block[index + 1] if index + 1 < len(block) else None
    return None


_AUGMENTED = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
              ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@"}
_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call)


def _single_assign(block: list[ast.stmt], code: str) -> tuple[str, str] | None:
    """``(y, a)`` for a block that is one ``y = a``, or ``(y, y + a)`` for one ``y += a``
    (the value it assigns, as written)."""
    if len(block) == 1 and isinstance(block[0], ast.Assign) and len(block[0].targets) == 1 \
            and isinstance(block[0].targets[0], ast.Name):
        return block[0].targets[0].id, _tracing.segment(code, block[0].value)
    if len(block) == 1 and isinstance(block[0], ast.AugAssign) \
            and isinstance(block[0].target, ast.Name) and type(block[0].op) in _AUGMENTED:
        value = _tracing.segment(code, block[0].value)
        value = value if isinstance(block[0].value, _ATOMS) else f"({value})"
        target = block[0].target.id
        return target, f"{target} {_AUGMENTED[type(block[0].op)]} {value}"
    return None


def _assign_rewrite(code: str, node: ast.If, jnp: str, cond: str) -> str:
    """``y = jnp.where(cond, a, b)`` for ``if cond: y = a`` (``else: y = b``; ``y += a`` is
    ``y = y + a``), else ""."""
    then = _single_assign(node.body, code)
    if then is None:
        return ""
    target, value = then
    otherwise = _single_assign(node.orelse, code)
    if otherwise is not None and otherwise[0] == target:
        other = otherwise[1]
    elif not node.orelse:
        other = target  # no else: the variable keeps the value it had
    else:
        return ""
    return f"{target} = {jnp}.where({cond}, {value}, {other})"


def _if_advice(tree: ast.Module, code: str, node: ast.If, ctx: ErrorContext,
               in_kernel: bool) -> str:
    jnp, lax = _tracing.spellings(ctx)
    cond = _logical(code, node.test, jnp)
    if in_kernel:
        pl = ctx.alias("jax.experimental.pallas") or "pl"
        return (f"In a Pallas kernel, run the block conditionally with "
                f"`@{pl}.when({cond})` on a nested `def _():` holding the body of the if "
                f"(and a second `@{pl}.when(~({cond}))` block for an else).")
    picked = _picked(tree, code, node, jnp)
    rewrite = picked[1] if picked is not None else ""
    if rewrite:
        return (f"Write the branch as part of the computation: `{rewrite}` computes both "
                f"sides and keeps one per element; `{lax}.cond({cond}, true_fn, false_fn, "
                "*operands)` runs only one (both must return the same shapes and dtypes).")
    return (f"Write the branch as part of the computation: `{lax}.cond({cond}, true_fn, "
            f"false_fn, *operands)` runs one of two functions (both must return the same "
            f"shapes and dtypes), or `{jnp}.where({cond}, a, b)` picks per element.")


def advice(ctx: ErrorContext, location: Location | None, in_kernel: bool) -> str:
    """The idiomatic rewrite of the user's line, spelled with the user's own condition."""
    jnp, lax = _tracing.spellings(ctx)
    generic = (f"Use {jnp}.where(condition, a, b) or {lax}.cond(condition, true_fn, false_fn, "
               "*operands) instead of Python control flow on arrays.")
    parsed = _tracing.parse(location.source) if location is not None else None
    if parsed is None or location is None:
        return generic
    tree, code = parsed
    statement = _tracing.node_at(tree, location.lineno, (ast.If, ast.While, ast.Assert))
    if isinstance(statement, ast.If):
        return _if_advice(tree, code, statement, ctx, in_kernel)
    if isinstance(statement, ast.While):
        cond = _tracing.segment(code, statement.test)
        return (f"A loop whose end depends on traced values is "
                f"`{lax}.while_loop(cond_fun, body_fun, init_val)`, with cond_fun returning "
                f"`{cond}` for the loop state and body_fun the loop body.")
    if isinstance(statement, ast.Assert):
        return ("An assert on traced values cannot run while tracing: check the inputs "
                "before calling the jitted function, or use jax.experimental.checkify "
                "(checkify.check inside, checkify.checkify around the function).")
    expression = _tracing.node_at(tree, location.lineno, (ast.IfExp, ast.BoolOp, ast.UnaryOp))
    if isinstance(expression, ast.IfExp):
        rewrite = (f"{jnp}.where({_tracing.segment(code, expression.test)}, "
                   f"{_tracing.segment(code, expression.body)}, "
                   f"{_tracing.segment(code, expression.orelse)})")
        return f"Write `{_tracing.segment(code, expression)}` as `{rewrite}`."
    if isinstance(expression, ast.BoolOp):
        op = "logical_and" if isinstance(expression.op, ast.And) else "logical_or"
        parts = ", ".join(_tracing.segment(code, v) for v in expression.values)
        return (f"`and`/`or` ask for True or False: write `{jnp}.{op}({parts})` "
                "(or & and | on boolean arrays).")
    if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.Not):
        return (f"`not` asks for True or False: write "
                f"`{jnp}.logical_not({_tracing.segment(code, expression.operand)})`.")
    return generic



def _converted(ctx: ErrorContext, location: Location | None) -> tuple[str, ast.expr] | None:
    """The expression Python was converting to True or False (``x > 0`` of ``if x > 0:``),
    from where the user's frame stopped, with the line's code; None where unknown."""
    where = ctx.running_at(location)
    parsed = _tracing.parse(location.source) if location is not None else None
    if where is None or parsed is None:
        return None
    tree, code = parsed
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While) and (node.lineno, node.end_lineno,
                                                     node.col_offset,
                                                     node.end_col_offset) == where:
            return code, node.test  # Python 3.11 places `if (x < 0).any():` at the whole if
        if isinstance(node, ast.expr) and (node.lineno, node.end_lineno, node.col_offset,
                                           node.end_col_offset) == where:
            return code, node
    return None


def _same_place(a: ast.AST, b: ast.AST) -> bool:
    return all(getattr(a, f) == getattr(b, f)
               for f in ("lineno", "end_lineno", "col_offset", "end_col_offset"))


def _where_fix(ctx: ErrorContext, location: Location, test: ast.expr) -> Fix | None:
    """``a if cond else b`` as ``jnp.where(cond, a, b)``, where the condition that failed is
    a conditional expression's: both sides computed, one value picked, as one operation.
    An ``if`` statement that picks one of two values is rewritten the same way
    (``_statement_where_fix``)."""
    jnp = ctx.alias("jax.numpy")
    parsed = _tracing.parse(location.source or "")
    if jnp is None or parsed is None:
        return None  # jnp.where needs jax.numpy imported under a name
    tree, code = parsed
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) \
            and test.func.id in _PICKS:
        return _builtin_pick_fix(ctx, location, tree, code, test, jnp)
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _REDUCTIONS
           and (ctx.type_of(n.func.id) is not None or _users_own(tree, n.func.id))
           for n in ast.walk(test)):
        return None  # the notebook's own any/all
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and not any(
            isinstance(node, ast.If | ast.While | ast.IfExp)
            and any(_same_place(part, test) for part in _conditions(node.test))
            for node in ast.walk(tree)):
        return _builtin_reduction_fix(ctx, location, tree, code, test, jnp)
    loop = next((node for node in ast.walk(tree) if isinstance(node, ast.While)
                 and any(_same_place(part, test) for part in _conditions(node.test))), None)
    if loop is not None:
        return _while_loop_fix(ctx, location, tree, code, loop, jnp)
    operator = _bool_operator(tree, test)
    if operator is not None:
        return _bool_operator_fix(ctx, location, code, operator, jnp)
    if isinstance(test, ast.Compare) and len(test.ops) > 1:
        return _chained.chained_comparison_fix(ctx, location, tree, code, test)
    found = next((node for node in ast.walk(tree) if isinstance(node, ast.IfExp)
                  and _same_place(node.test, test)), None)
    if found is None:
        statement = next((node for node in ast.walk(tree) if isinstance(node, ast.If)
                          and any(_same_place(part, test) for part in _conditions(node.test))),
                         None)
        return (_statement_where_fix(ctx, location, tree, code, statement, jnp)
                if statement is not None else None)
    before = _tracing.segment(code, found)
    parts = [_logical(code, found.test, jnp) if part is found.test else
             _tracing.segment(code, part) for part in (found.test, found.body, found.orelse)]
    after = f"{jnp}.where({', '.join(parts)})"
    values = {v.text: v for v in ctx.values_at(location)}
    shapes = {(v.shape, v.dtype) for text in parts[1:] if (v := values.get(text)) is not None}

    def transform(source: str) -> str:
        lines = source.split("\n")
        end = found.end_lineno or 0
        if not 0 < found.lineno == end <= len(lines):
            raise CannotRewrite("the conditional expression spans lines")
        line = lines[found.lineno - 1].encode()
        if line[found.col_offset:found.end_col_offset].decode() != before:
            raise CannotRewrite(f"`{before}` is no longer on line {found.lineno}")
        lines[found.lineno - 1] = (line[:found.col_offset].decode() + after
                                   + line[found.end_col_offset:].decode())
        return "\n".join(lines)

    label = f"Use {after}" if len(after) <= 32 else f"Use {jnp}.where"
    return rewrite_fix(
        ctx, location, transform, label=label,
        summary=(f"Rewrite `{before}` on line {location.lineno} as `{after}`, one operation "
                 "that computes both sides and picks one by the condition; then re-run."),
        safety=(f"Same values: where `{parts[0]}` holds, the result is `{parts[1]}`, "
                f"elsewhere `{parts[2]}`. Both sides are computed: a side that is NaN or "
                "infinite where it is not picked leaves the value right, but its gradient can "
                "be NaN (guard its input with a second where)."),
        safe=len(shapes) <= 1)


_PICKS = {"max": ">", "min": "<"}
_REDUCTIONS = ("any", "all")


def _users_own(tree: ast.Module, name: str) -> bool:
    """Whether the cell assigns, defines or imports ``name`` (then it is not the builtin)."""
    return any((isinstance(node, ast.Name) and node.id == name
                and not isinstance(node.ctx, ast.Load))
               or (isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name)
               or (isinstance(node, ast.arg) and node.arg == name)
               or (isinstance(node, ast.alias) and (node.asname or node.name) == name)
               for node in ast.walk(tree))


def _builtin_reduction(ctx: ErrorContext, tree: ast.Module, call: ast.expr) -> str | None:
    """``any`` or ``all`` where ``call`` is Python's ``any(a)`` (``all(a)``) of one array
    expression (not a generator: its items would be the user's to compute); else None."""
    name = call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
        else None
    if name not in _REDUCTIONS or not isinstance(call, ast.Call) or len(call.args) != 1 \
            or call.keywords or not _reduces_array(call.args[0]) \
            or ctx.type_of(name) is not None or _users_own(tree, name):
        return None
    return name


def _one_dimensional(ctx: ErrorContext, location: Location, node: ast.expr) -> bool:
    """Whether ``node`` (an elementwise expression of arrays) is one-dimensional where the
    line runs (per element under vmap): Python's ``any``/``all`` then look at its elements
    one by one, as ``jnp.any``/``jnp.all`` do."""
    shape = _shape_of(ctx, location, node)
    return shape is not None and len(shape[0]) == 1


def _builtin_reduction_fix(ctx: ErrorContext, location: Location, tree: ast.Module, code: str,
                           call: ast.Call, jnp: str) -> Fix | None:
    """``any(x < 0)`` as ``jnp.any(x < 0)``, where the value is used as a value (not an if's
    test) and the argument is one-dimensional: Python's any asks each element for True or
    False; jnp.any computes the same answer as one operation."""
    name = _builtin_reduction(ctx, tree, call)
    if name is None or call.lineno != call.end_lineno \
            or not _one_dimensional(ctx, location, call.args[0]):
        return None
    before = _tracing.segment(code, call)
    after = f"{jnp}.{name}({_tracing.segment(code, call.args[0])})"
    word = "any element" if name == "any" else "every element"
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after), label=f"Use {jnp}.{name}",
        summary=(f"Rewrite `{before}` on line {call.lineno} as `{after}`: Python's {name} "
                 f"asks each element for True or False; {jnp}.{name} computes the answer as "
                 "one operation. Then re-run."),
        safety=(f"Same value: True where {word} of the one-dimensional "
                f"`{_tracing.segment(code, call.args[0])}` is true, as {name} answers; a JAX "
                "boolean instead of a Python one."),
        safe=True)


def _builtin_pick_fix(ctx: ErrorContext, location: Location, tree: ast.Module, code: str,
                      call: ast.Call, jnp: str) -> Fix | None:
    """Python's ``max(a, b)`` (``min``) of one traced number per element: ``b`` if ``b > a``
    else ``a``, which is ``jnp.where(b > a, b, a)`` exactly (NaN included: ``jnp.maximum``
    would pass a NaN on where ``max`` keeps ``a``). None for any other call, and where the
    name is the user's own (assigned, defined or imported anywhere in the cell)."""
    name = call.func.id if isinstance(call.func, ast.Name) else None
    if name not in _PICKS or len(call.args) != 2 or call.keywords \
            or any(isinstance(a, ast.Starred) for a in call.args) \
            or ctx.type_of(name) is not None or call.lineno != call.end_lineno:
        return None
    if (name is not None and _users_own(tree, name)) \
            or not _scalar_condition(ctx, location, call):
        return None
    a, b = (_tracing.segment(code, arg) for arg in call.args)
    if "\n" in a + b:
        return None
    before = _tracing.segment(code, call)
    after = f"{jnp}.where({b} {_PICKS[name]} {a}, {b}, {a})"
    lineno = call.lineno
    transform = _tracing.replacing(call, before, after)

    larger = "larger" if name == "max" else "smaller"
    return rewrite_fix(
        ctx, location, transform, label=f"Use {jnp}.where",
        summary=(f"Rewrite `{before}` on line {lineno} as `{after}`: Python's {name} asks "
                 f"True or False of `{b} {_PICKS[name]} {a}`; jnp.where picks by it as one "
                 "operation. Then re-run."),
        safety=(f"Same values: `{after}` picks what {name} picks, `{b}` where it is {larger}, "
                f"else `{a}` (NaN included; {jnp}.{'maximum' if name == 'max' else 'minimum'}"
                f" would pass a NaN on where {name} keeps `{a}`)."),
        safe=True)


_LOGICAL = {ast.And: "logical_and", ast.Or: "logical_or"}


def _bool_operator(tree: ast.Module, test: ast.expr) -> ast.BoolOp | ast.UnaryOp | None:
    """The ``a and b``, ``a or b`` or ``not a`` used as a value (not an if's, while's or
    conditional expression's test, whose fixes read it themselves) of which ``test`` is an
    operand, or which ``test`` is."""
    tests = [part for node in ast.walk(tree) if isinstance(node, ast.If | ast.While | ast.IfExp)
             for part in (node.test, *_conditions(node.test))]
    for node in ast.walk(tree):
        if isinstance(node, ast.BoolOp):
            operands: list[ast.expr] = node.values
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operands = [node.operand]
        else:
            continue
        if not any(_same_place(o, test) for o in (node, *operands)):
            continue
        if any(_same_place(node, part) or any(_same_place(o, part) for o in operands)
               for part in tests):
            return None
        return node
    return None


def _boolean(node: ast.expr) -> bool:
    """Whether ``node`` is a boolean by its form: a comparison, or and/or/not of such."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    return isinstance(node, ast.BoolOp) and all(_boolean(v) for v in node.values)


def _bool_operator_fix(ctx: ErrorContext, location: Location, code: str,
                       node: ast.BoolOp | ast.UnaryOp, jnp: str) -> Fix | None:
    """``(x > 0) and (x < 1)`` as ``jnp.logical_and(x > 0, x < 1)`` (``or``:
    ``logical_or``), where each operand is a comparison (a boolean per element) and the
    values are one per element; ``not v`` as ``jnp.logical_not(v)``, true where v is zero
    or False, as Python's ``not`` answers (NaN counts as true in both)."""
    if node.lineno != node.end_lineno or not _scalar_condition(ctx, location, node):
        return None
    before = _tracing.segment(code, node)
    if isinstance(node, ast.UnaryOp):
        after = f"{jnp}.logical_not({_tracing.segment(code, node.operand)})"
        same = "true where the value is zero or False, as `not` answers (NaN is true in both)"
    else:
        if len(node.values) != 2 or not all(_boolean(v) for v in node.values):
            return None
        name = _LOGICAL[type(node.op)]
        after = (f"{jnp}.{name}({_tracing.segment(code, node.values[0])}, "
                 f"{_tracing.segment(code, node.values[1])})")
        word = "and" if name == "logical_and" else "or"
        same = (f"the same boolean `{word}` gives for two booleans (both sides are computed; "
                "a comparison has no other effect)")
    return rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after),
        label=f"Use {after.split('(')[0]}",
        summary=(f"Rewrite `{before}` on line {node.lineno} as `{after}`: Python's "
                 f"{'not' if isinstance(node, ast.UnaryOp) else word} asks True or False of a "
                 "traced value; jax.numpy computes it as one operation. Then re-run."),
        safety=f"Same value: {same}; a JAX boolean instead of a Python one.",
        safe=True)


def _conditions(test: ast.expr) -> list[ast.expr]:
    """``test`` and the conditions ``and``, ``or`` and ``not`` make it of: Python asks each
    for True or False, so any of them may be the one that failed."""
    found = [test]
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            found += _conditions(value)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        found += _conditions(test.operand)
    return found


def _logical(code: str, test: ast.expr, jnp: str) -> str:
    """The condition as one array: ``and``, ``or`` and ``not`` as ``jnp.logical_and``,
    ``logical_or`` and ``logical_not`` (both sides computed; no side has effects to skip)."""
    if isinstance(test, ast.BoolOp):
        op = "logical_and" if isinstance(test.op, ast.And) else "logical_or"
        parts = [_logical(code, value, jnp) for value in test.values]
        joined = parts[0]
        for part in parts[1:]:
            joined = f"{jnp}.{op}({joined}, {part})"
        return joined
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return f"{jnp}.logical_not({_logical(code, test.operand, jnp)})"
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) \
            and test.func.id in _REDUCTIONS and len(test.args) == 1 and not test.keywords \
            and _reduces_array(test.args[0]):
        return f"{jnp}.{test.func.id}({_tracing.segment(code, test.args[0])})"
    return _tracing.segment(code, test)


def _reduces_array(node: ast.expr) -> bool:
    """Whether ``any``/``all`` is given one array expression, not items of the user's."""
    return not isinstance(node, ast.Starred | ast.GeneratorExp | ast.ListComp | ast.List
                          | ast.Tuple)


def _picked(tree: ast.Module, code: str, node: ast.If, jnp: str
            ) -> tuple[int, str, str, str, str] | None:
    """For an ``if`` that picks one of two values, the last line of what the rewrite
    replaces, the statement that replaces it, and the condition and the two sides as
    written; None for any other ``if``."""
    cond = _logical(code, node.test, jnp)
    then = node.body[0] if len(node.body) == 1 else None
    if isinstance(then, ast.Return) and then.value is not None:
        other = (node.orelse[0] if len(node.orelse) == 1 else
                 _next_statement(tree, node) if not node.orelse else None)
        if not isinstance(other, ast.Return) or other.value is None:
            return None
        sides = (_tracing.segment(code, then.value), _tracing.segment(code, other.value))
        return (other.end_lineno or 0, f"return {jnp}.where({cond}, {sides[0]}, {sides[1]})",
                cond, *sides)
    statement = _assign_rewrite(code, node, jnp, cond)
    if not statement:
        return None
    value = _single_assign(node.body, code)
    otherwise = _single_assign(node.orelse, code)
    assert value is not None
    kept = otherwise[1] if otherwise is not None else value[0]
    return node.end_lineno or 0, statement, cond, value[1], kept


def _scalar_condition(ctx: ErrorContext, location: Location, cond: ast.expr) -> bool:
    """Whether every array the condition names holds one value per element (shape ``()``,
    a vmapped array's per-element shape): then the condition is one True or False, as the
    ``if`` asked, and ``jnp.where`` picks exactly what the ``if`` would have."""
    named = {ast.unparse(node) for node in ast.walk(cond) if isinstance(node, ast.expr)}
    arrays = [v for v in ctx.values_at(location) if v.text in named and v.shape is not None]
    return bool(arrays) and all(v.shape == () for v in arrays)


_SCALAR_BOOL = "traced array with shape bool[]"
_KINDS = "bifc"  # NumPy's kind letters, in the order JAX promotes them


def _one_condition_same_sides(ctx: ErrorContext, location: Location, test: ast.expr,
                              then: str, other: str) -> bool:
    """Whether the ``if`` asked one True or False (JAX's message shows the condition it
    converted as ``bool[]``, and the test is that one condition, not an ``and``/``or`` of
    several) and both sides have one shape and one kind of number, read from the names they
    compute with: then ``jnp.where`` returns what the ``if`` returned, its shape and dtype
    included (``v * 2`` or ``v`` for an array ``v``, never ``v`` or ``0.0``)."""
    if _SCALAR_BOOL not in ctx.top.message or isinstance(test, ast.BoolOp):
        return False
    try:
        sides = [_shape_of(ctx, location, ast.parse(text, mode="eval").body)
                 for text in (then, other)]
    except SyntaxError:
        return False
    # one shape and one kind: a weakly typed side (a Python 0.0) takes the other's dtype
    return sides[0] is not None and sides[1] is not None and sides[0][:2] == sides[1][:2]


def _shape_of(ctx: ErrorContext, location: Location,
              node: ast.expr) -> tuple[tuple[int, ...], str, bool] | None:
    """(shape, kind, weak) of an elementwise expression of names and number literals, as
    JAX computes it (a literal is weakly typed: it takes the array's type); None for
    anything else."""
    if isinstance(node, ast.Constant) and type(node.value) in (bool, int, float):
        return (), {bool: "b", int: "i", float: "f"}[type(node.value)], True
    if isinstance(node, ast.Name):
        value = ctx.value_named(location, node.id)
        if value is None or value.shape is None or not value.dtype \
                or value.dtype[0] not in "bifuc":
            held = _python_number(ctx, location, node)
            # a Python number the function holds (a sum started at 0.0): weakly typed
            return ((), {bool: "b", int: "i", float: "f"}[type(held)], True) \
                if held is not None else None
        kind = "i" if value.dtype[0] == "u" else value.dtype[0]
        return value.shape, kind, value.weak
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
            and isinstance(node.slice, ast.Name | ast.Constant) \
            and type(_python_number(ctx, location, node.slice)) is int:
        whole = _shape_of(ctx, location, node.value)  # x[i] of an array x, i an int
        return (whole[0][1:], *whole[1:]) if whole is not None and whole[0] else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _shape_of(ctx, location, node.operand)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 \
            and not isinstance(node.ops[0], ast.Is | ast.IsNot | ast.In | ast.NotIn):
        sides = (_shape_of(ctx, location, node.left),
                 _shape_of(ctx, location, node.comparators[0]))
        if sides[0] is None or sides[1] is None:
            return None
        shape = _broadcast(sides[0][0], sides[1][0])
        return (shape, "b", False) if shape is not None else None
    reduced = _whole_reduction(ctx, node)
    if reduced is not None:  # x.max(), jnp.argmax(x): one number of x's kind (or an index)
        inner = _shape_of(ctx, location, reduced[1])
        if inner is None:
            return None
        kind = "i" if reduced[0] in ("argmax", "argmin") else \
            "f" if reduced[0] == "mean" and inner[1] in "bi" else inner[1]
        return (), kind, False
    elementwise = _elementwise_call(ctx, node)
    if elementwise is not None:
        inner = _shape_of(ctx, location, elementwise[1])
        if inner is None:
            return None
        shape, kind, weak = inner
        return shape, ("f" if elementwise[0] in _TO_FLOAT and kind in "bi" else kind), weak
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult
                                                  | ast.Div):
        left, right = (_shape_of(ctx, location, node.left),
                       _shape_of(ctx, location, node.right))
        if left is None or right is None:
            return None
        shape = _broadcast(left[0], right[0])
        if shape is None:
            return None
        strong = [side for side in (left, right) if not side[2]]
        if len(strong) == 1:  # a literal takes the array's kind, unless it is a higher one
            kind = max(left[1], right[1], key=_KINDS.index) if strong[0][1] in "bi" and \
                (left if strong[0] is right else right)[1] in "fc" else strong[0][1]
        else:
            kind = max(left[1], right[1], key=_KINDS.index)
        if isinstance(node.op, ast.Div) and kind in "bi":
            kind = "f"
        return shape, kind, not strong
    return None


def _python_number(ctx: ErrorContext, location: Location, node: ast.expr
                   ) -> bool | int | float | None:
    """The Python number a literal is, or a name holds in the line's live frame; None for
    anything else."""
    if isinstance(node, ast.Constant):
        held: object = node.value
    elif isinstance(node, ast.Name) and (frame := ctx.live_frame(location)) is not None:
        held = frame.f_locals.get(node.id, frame.f_globals.get(node.id))
    else:
        return None
    return held if type(held) in (bool, int, float) else None  # type: ignore[return-value]


# jax.numpy functions of one array that keep its shape, one element at a time: the first
# keep its kind of number, the others make floats of integers.
_KEEP_KIND = frozenset({"abs", "absolute", "negative", "positive", "square", "sign", "conj"})
_TO_FLOAT = frozenset({"exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "cbrt",
                       "sin", "cos", "tan", "tanh", "sinh", "cosh", "arctan", "reciprocal"})


def _elementwise_call(ctx: ErrorContext, node: ast.expr) -> tuple[str, ast.expr] | None:
    """(name, argument) of ``jnp.abs(x)`` and the like: one positional argument, no
    keywords, the function one of jax.numpy's elementwise ones under the notebook's alias."""
    jnp = ctx.alias("jax.numpy")
    func = node.func if isinstance(node, ast.Call) else None
    if not isinstance(node, ast.Call) or not isinstance(func, ast.Attribute) \
            or not isinstance(func.value, ast.Name) or func.value.id != jnp \
            or func.attr not in _KEEP_KIND | _TO_FLOAT or len(node.args) != 1 \
            or node.keywords or isinstance(node.args[0], ast.Starred):
        return None
    return func.attr, node.args[0]


_REDUCTIONS_WHOLE = frozenset({"max", "min", "sum", "mean", "prod", "argmax", "argmin"})


def _whole_reduction(ctx: ErrorContext, node: ast.expr) -> tuple[str, ast.expr] | None:
    """(name, array) of a reduction of a whole array to one number: ``x.max()`` or
    ``jnp.argmax(x)`` with no axis and no keyword."""
    if not isinstance(node, ast.Call) or node.keywords or not isinstance(node.func,
                                                                         ast.Attribute) \
            or node.func.attr not in _REDUCTIONS_WHOLE:
        return None
    func = node.func
    if isinstance(func.value, ast.Name) and func.value.id == ctx.alias("jax.numpy"):
        return (func.attr, node.args[0]) if len(node.args) == 1 \
            and not isinstance(node.args[0], ast.Starred) else None
    return (func.attr, func.value) if not node.args and isinstance(func.value, ast.Name) \
        else None


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    padded = (1,) * (len(longer) - len(shorter)) + shorter
    shape = []
    for x, y in zip(longer, padded, strict=True):
        if x != y and 1 not in (x, y):
            return None
        shape.append(max(x, y))
    return tuple(shape)


def _while_loop_fix(ctx: ErrorContext, location: Location, tree: ast.Module, code: str,
                    loop: ast.While, jnp: str) -> Fix | None:
    """``while t > 1: t = t / 2`` under jit as ``lax.while_loop``: the names the body
    carries are the loop's state (``_loops.carried``), the condition and the body become its
    two functions, as written. Only with one True or False asked (JAX converted a
    ``bool[]``), and nothing differentiating it in reverse; anything else is explained."""
    _, lax = _tracing.spellings(ctx)
    function = _scopes.enclosing_function(tree, loop.lineno)
    if function is None or _SCALAR_BOOL not in ctx.top.message or _loops.reversed_through(ctx):
        return None
    state = _loops.carried(function, loop)
    if state is None:
        return None
    fresh = _loops.fresh_names(tree, ("cond_fun", "loop_cond", "keep_going"),
                               ("body_fun", "loop_body", "step_once"),
                               ("state", "loop_state", "while_state"))
    if fresh is None:
        return None
    cond_name, body_name, packed_name = fresh
    lines = code.split("\n")
    span = lines[loop.lineno - 1:loop.end_lineno]
    indent = " " * loop.col_offset
    step = indent + "    "
    body = _loops.body_lines(code, loop, step)
    if body is None:
        return None
    one = len(state) == 1
    packed = state[0] if one else ", ".join(state)
    argument = state[0] if one else packed_name
    unpack = [] if one else [f"{step}{packed} = {packed_name}"]
    block = [f"{indent}def {cond_name}({argument}):", *unpack,
             f"{step}return {_logical(code, loop.test, jnp)}",
             f"{indent}def {body_name}({argument}):", *unpack, *body,
             f"{step}return {packed}",
             f"{indent}{packed} = {lax}.while_loop({cond_name}, {body_name}, "
             f"{packed if one else '(' + packed + ')'})"]
    start, end = loop.lineno, loop.end_lineno or loop.lineno
    transform = _tracing.replacing_lines(start, end, "\n".join(span), block, "the while loop")

    names = _tracing.quoted(state)
    return rewrite_fix(
        ctx, location, transform, label=f"Use {lax}.while_loop",
        summary=(f"Rewrite the while loop on line {start} as `{lax}.while_loop`, carrying "
                 f"{names}: its condition and body become two functions, as written; then "
                 "re-run."),
        safety=(f"Same values: the loop runs its body while `{_tracing.segment(code, loop.test)}`"
                f" holds, as the Python loop would, inside the compiled program. "
                f"{names} must keep {'its' if one else 'their'} shape and dtype from one "
                "step to the next; reverse-mode grad through it is not supported."),
        safe=True)


def _statement_where_fix(ctx: ErrorContext, location: Location, tree: ast.Module, code: str,
                         node: ast.If, jnp: str) -> Fix | None:
    """``if c: return a`` / ``else: return b`` (or ``y = a`` / ``y = b``) as one
    ``return jnp.where(c, a, b)`` (``y = jnp.where(c, a, b)``), where the condition is one
    True or False per element; None for any other ``if``."""
    picked = _picked(tree, code, node, jnp)
    if picked is None:
        return None
    last, statement, cond, then, other = picked
    if not _scalar_condition(ctx, location, node.test) \
            and not _one_condition_same_sides(ctx, location, node.test, then, other):
        return None
    first = node.lineno
    span = code.splitlines()[first - 1:last]
    if any("#" in line for line in span):
        return None  # a comment would be lost: explained only
    before = "\n".join(span)
    indent = span[0][:len(span[0]) - len(span[0].lstrip())]
    transform = _tracing.replacing_lines(first, last, before, [indent + statement], "the if")

    where = f"lines {first}-{last}" if last > first else f"line {first}"
    return rewrite_fix(
        ctx, location, transform, label=f"Use {jnp}.where",
        summary=(f"Rewrite the if on {where} as `{statement}`: one operation that computes "
                 "both sides and picks one by the condition; then re-run."),
        safety=(f"Same values: where `{cond}` holds, the result is `{then}`, elsewhere "
                f"`{other}`, as the if picked. Both sides are computed: a side that is NaN or "
                "infinite where it is not picked leaves the value right, but its gradient can "
                "be NaN (guard its input with a second where)."),
        safe=True)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = _tracing.traced(ctx, _tracing.error_link(ctx, ERROR))
    if found is None:
        return None
    location, origin, call = found.location, found.origin, found.call
    in_kernel = origin is not None and origin.in_kernel
    subject = found.subject("A Python if or while")
    converted = _converted(ctx, location)
    if converted is not None and location is not None:
        text = _tracing.segment(converted[0], converted[1])
        statement = re.match(r"(el)?if |while ", location.line.strip())
        if text and text != location.line.strip() and not (
                statement and location.line.strip() == f"{statement[0]}{text}:"):
            subject = f"`{text}`{_entry.at(location)}"  # the condition, not the whole line
    transform = _tracing.transform_of(ctx, found)
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    if transform == "vmap" and (origin is None or not origin.for_jit):
        batched = [v for v in ctx.values_at(location) if v.transform == "vmap"]
        which = f"`{batched[0].text}`, which" if batched else "a value that"
        explanation = (f"{subject} asks Python for True or False about {which} under "
                       "jax.vmap stands for a whole batch of values; each element may need "
                       "a different answer.")
        notes.append(advice(ctx, location, in_kernel).replace(
            "runs only one", "under vmap computes both and selects per element"))
    elif origin is None:
        explanation = (f"{subject} asks Python for True or False about a traced value, "
                       "which has no value while JAX traces the function.")
        notes.append(advice(ctx, location, in_kernel))
    else:
        assert call is not None
        said, fixes = _static_fix.inside(ctx, origin, call)
        explanation = f"{subject} asks Python for True or False{said}"
        if fixes:
            pass  # the settings are made static: nothing to advise
        elif (sized := _data_size.explain(ctx, found)) is not None:
            # jnp.extract(cond, x) under jit: JAX's own code asks for the count (older
            # releases raise this error for it, newer a ConcretizationTypeError)
            explanation += _tracing.data_sentence(call) + sized[0]
            fixes = (sized[1],)
        elif call.any_array or any(a.kind == "scalar" for a in call.arguments):
            explanation += _tracing.data_sentence(call)
            notes.append(advice(ctx, location, in_kernel))
        else:
            notes.append(advice(ctx, location, in_kernel))
            if origin.for_jit:
                names = ", ".join(repr(n) for n in origin.arguments if n.isidentifier())
                notes.append(
                    "If it is a setting rather than data (a Python bool, int or str), mark it "
                    f"static instead: jax.jit(..., static_argnames=({names},))."
                    if names else
                    "If it is a setting held inside a dict or tuple argument, pass it as a "
                    "separate argument and mark that static (static_argnames)."
                )
    if not fixes and converted is not None and location is not None and not in_kernel:
        where = _where_fix(ctx, location, converted[1])
        if where is not None:
            fixes = (where,)
            notes = [note for note in notes if ".where(" not in note]  # the fix says it
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=found.caller or ctx.failing_cell(), fixes=fixes,
                            notes=notes, why=_tracing.transform_why(transform, WHY))
