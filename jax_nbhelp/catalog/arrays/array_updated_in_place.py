"""An item assignment into a JAX array: ``x[i] = v``, ``x[i] += v`` (``TypeError: JAX arrays
are immutable and do not support in-place item assignment``).

The rewrite binds the updated array to what held the old one: ``x = x.at[i].set(v)``,
``x = x.at[i].add(v)``, ``self.w = self.w.at[0].set(1.0)``. That is exactly the assignment's
meaning where nothing else holds the old array. It is not offered where rebinding would not
reach the code that expects the change: a function that changes its parameter in place and
does not return it, or a global changed from inside a function (the explanation then says
how to return the new array instead).

The update written as an assignment into ``.at`` (``x.at[i] = v``, ``TypeError:
'_IndexUpdateHelper' object does not support item assignment``, which Python raises itself)
is the same mistake half corrected, and gets the same rewrite; no report in the tracker shows
this wording yet.

Reports: google/objax#59 (``v[2:4] += 1`` on a jnp array), jax-ml/jax#7032 (``xy[:, :2] = ...``
inside a jitted function), choderalab/pymbar#557 (``f_k_init[l] = ...`` with the JAX backend),
vincentarelbundock/marginaleffects#1587 (a masked assignment on a JAX array). JAX's docs
teach it in the "Sharp bits" notebook, Thinking in JAX and the 101 arrays tutorial.
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _scopes, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, Example, corrected, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH501"
TITLE = "Item assignment into a JAX array"
MESSAGE = "JAX arrays are immutable and do not support in-place item assignment"
_OLD_MESSAGE = "JAX arrays are immutable"  # older releases: "... perhaps you want jax.ops"

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, "grid = jnp.zeros(5)"), "grid[2] = 7.0",
                   "grid = grid.at[2].set(7.0)", "Use grid.at[2].set(7.0)",
                   "grid.tolist() == [0.0, 0.0, 7.0, 0.0, 0.0]"),
    # the update half written: an assignment into .at
    corrected_cell((JAX_IMPORTS, "grid = jnp.zeros(5)"), "grid.at[2] = 7.0",
                   "grid = grid.at[2].set(7.0)", "Use grid.at[2].set(7.0)",
                   "grid.tolist() == [0.0, 0.0, 7.0, 0.0, 0.0]"),
    # In a loop inside a function defined in an earlier cell: the local array is rebound.
    corrected(JAX_IMPORTS,
              "def doubled_steps(values):\n    out = jnp.zeros(len(values))\n"
              "    for i in range(len(values)):\n        out[i] += 2 * values[i]\n"
              "    return out",
              "def doubled_steps(values):\n    out = jnp.zeros(len(values))\n"
              "    for i in range(len(values)):\n        out = out.at[i].add(2 * values[i])\n"
              "    return out",
              "steps = doubled_steps(jnp.arange(3.0))", "Use out.at[i].add(...)",
              "steps.tolist() == [0.0, 2.0, 4.0]"),
    # Two assignments into the same array: the second would fail next, so both are
    # rewritten (jax-ml/jax#7032).
    corrected(JAX_IMPORTS,
              "@jax.jit\ndef bounded(b):\n    b[0] = b[0].clip(0, 1)\n"
              "    b[1] = b[1].clip(0, 2)\n    return b",
              "@jax.jit\ndef bounded(b):\n    b = b.at[0].set(b[0].clip(0, 1))\n"
              "    b = b.at[1].set(b[1].clip(0, 2))\n    return b",
              "r = bounded(jnp.array([5.0, 5.0, 5.0]))", "Use b.at[0].set(...)",
              "r.tolist() == [1.0, 2.0, 5.0]"),
    # An attribute of an object: the object is rebound to the new array.
    corrected(JAX_IMPORTS,
              "class Layer:\n    def __init__(self):\n        self.w = jnp.ones(3)\n"
              "    def clear_first(self):\n        self.w[0] = 0.0\n\nlayer = Layer()",
              "class Layer:\n    def __init__(self):\n        self.w = jnp.ones(3)\n"
              "    def clear_first(self):\n        self.w = self.w.at[0].set(0.0)\n\n"
              "layer = Layer()",
              "layer.clear_first()", "Use self.w.at[0].set(0.0)",
              "layer.w.tolist() == [0.0, 1.0, 1.0]"),
    # An index array that repeats a position: NumPy's `+=` adds once there, and so does the
    # rewrite (`.at[idx].add` would add twice).
    Example(setup=(JAX_IMPORTS, "counts = jnp.zeros(3)\npicked = jnp.array([0, 0, 2])"),
            failing="counts[picked] += 1", fix="Use counts.at[picked].set(...)",
            check="counts.tolist() == [1.0, 0.0, 1.0]",
            fixed=(JAX_IMPORTS, "counts = jnp.zeros(3)\npicked = jnp.array([0, 0, 2])",
                   "counts = counts.at[picked].set(counts[picked] + 1)")),
    # A function that changes its argument for the caller: no rewrite reaches the caller.
    corrected(JAX_IMPORTS, "def reset(buffer):\n    buffer[0] = 0.0",
              "def reset(buffer):\n    return buffer.at[0].set(0.0)",
              "state = jnp.ones(2)\nreset(state)", NO_FIX,
              "reset(jnp.ones(2)).tolist() == [0.0, 1.0]"),
)

WHY = _entry.prose("""
JAX arrays are immutable: no operation changes one in place, which is what lets jit, grad
and vmap treat your functions as plain math. x.at[i].set(v) (and .add, .multiply, .divide,
.power, .min, .max) returns a new array with those elements changed; binding it to the same
name has the effect the assignment meant. Under jax.jit, XLA makes such an update in place
when the old array is not used again, so it costs no copy.
""")

_AT_ASSIGNED = "'_IndexUpdateHelper' object does not support item assignment"
TRIGGERS = (_OLD_MESSAGE, _AT_ASSIGNED)

_AUGMENTED = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide",
              ast.Pow: "power"}


def _assignment(location: Location) -> tuple[ast.Assign | ast.AugAssign, ast.Subscript,
                                             ast.Module] | None:
    """The item assignment on the user's line and its target."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    tree, _ = parsed
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign | ast.AugAssign) or not (
                node.lineno <= location.lineno <= (node.end_lineno or 0)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        subscripts = [t for t in targets if isinstance(t, ast.Subscript)]
        if len(targets) == 1 and len(subscripts) == 1:
            return node, subscripts[0], tree
    return None


def _written(node: ast.Assign | ast.AugAssign, target: ast.Subscript, basic: bool,
             methods: frozenset[str]) -> tuple[str, str]:
    """The rewritten statement as the user will read it, and the method it calls."""
    holder, index = ast.unparse(target.value), ast.unparse(target.slice)
    if isinstance(index, str) and index.startswith("(") and index.endswith(")"):
        index = index[1:-1]
    value = ast.unparse(node.value)
    if isinstance(node, ast.Assign):
        return f"{holder} = {holder}.at[{index}].set({value})", "set"
    method = _AUGMENTED.get(type(node.op))
    if method is not None and basic and method in methods:
        return f"{holder} = {holder}.at[{index}].{method}({value})", method
    operator = ast.unparse(ast.BinOp(ast.Name("a"), node.op, ast.Name("b")))[2:-2]
    return (f"{holder} = {holder}.at[{index}].set({holder}[{index}] {operator} {value})",
            "set")


def _basic_names(values: tuple[Value, ...]) -> set[str]:
    return {v.text for v in values if v.summary == "Python int"}


def _is_basic(target: ast.Subscript, ints: set[str]) -> bool:
    parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    for part in parts:
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
            part = part.operand
        if isinstance(part, ast.Slice) or (isinstance(part, ast.Constant) and (
                part.value is None or part.value is Ellipsis or type(part.value) is int)):
            continue
        if isinstance(part, ast.Name) and part.id in ints:
            continue
        return False
    return True


def _why_not(ctx: ErrorContext, location: Location, scope: _scopes.Scope | None,
             name: str | None, holder: str, rewritten: str) -> str | None:
    """Why rebinding does not do what the assignment meant here, or None when it does."""
    if scope is None or name is None or holder != name:
        return None
    function = scope.function.name
    kind = scope.kind(name)
    if kind == "parameter" and not scope.returns(name):
        caller = ctx.caller_of(location)
        passed = _scopes.passed_for(caller.source, caller.lineno, scope.function, name) \
            if caller is not None else None
        use = (f"`{passed[0]} = {passed[1]}`" if passed is not None and passed[0].isidentifier()
               else "the array it returns")
        return (f"{function} changes its argument {name} for its caller, and a JAX array "
                f"cannot be changed: return the new array from {function} "
                f"(`return {rewritten.split(' = ', 1)[1]}`) and use what it returns: "
                f"{use}.")
    if kind == "global" and name not in scope.declared_global:
        return (f"{name} is a global that {function} changes: assigning to it inside the "
                f"function would make it a new local. Pass {name} in and return the new "
                f"array (`{rewritten}`, then `return {name}`), or rebind it with "
                f"`global {name}` first.")
    return None


def _at_assigned(ctx: ErrorContext) -> Diagnosis | None:
    """``x.at[i] = v``: the update written as an assignment into ``.at``. The update it
    means is ``x = x.at[i].set(v)``."""
    link = ctx.find(_AT_ASSIGNED)
    if link is None:
        return None
    location = ctx.deepest_user_location()
    found = _assignment(location) if location is not None else None
    at = found[1].value if found is not None else None
    if location is None or found is None or not isinstance(found[0], ast.Assign) \
            or not (isinstance(at, ast.Attribute) and at.attr == "at"):
        return _entry.diagnosis(
            ctx, __name__, "Your code assigns into an array's .at, which only builds an "
            "update: .at[i].set(v) returns the updated array.", location=location,
            call_site=ctx.failing_cell(),
            notes=["Write `x = x.at[i].set(v)` instead of `x.at[i] = v`."],
            error=link.summary.splitlines()[0])
    node, target, _ = found
    holder = ast.unparse(at.value)
    index = ast.unparse(target.slice)
    if index.startswith("(") and index.endswith(")"):
        index = index[1:-1]
    rewritten = f"{holder} = {holder}.at[{index}].set({ast.unparse(node.value)})"
    before = _tracing.segment(location.source or "", node)
    lineno = location.lineno
    explanation = (f"{_tracing.quoted_line(location, 'A line')} assigns into `{holder}.at`, "
                   f"which only builds an update: `{holder}.at[{index}].set(...)` returns the "
                   "updated array, and nothing holds it yet.")

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.errors import CannotRewrite

        lines = source.split("\n")
        line = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
        if node.lineno != node.end_lineno or line.strip() != before.strip():
            raise CannotRewrite(f"line {lineno} is no longer `{before}`")
        lines[lineno - 1] = line[:len(line) - len(line.lstrip())] + rewritten
        return "\n".join(lines)

    call = rewritten.split(" = ", 1)[1]
    fix = rewrite_fix(ctx, location, transform,
                      label=f"Use {call}" if len(call) <= 24 else "Use .at[...].set(...)",
                      summary=(f"Rewrite line {lineno} as `{rewritten}`: the updated array, "
                               f"bound to {holder}; then re-run."),
                      safety=("Same values: the new array holds what the assignment meant to "
                              f"store, and {holder} now names it."),
                      safe=True)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=(fix,),
                            error=link.summary.splitlines()[0])


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    if ctx.find(_AT_ASSIGNED) is not None:
        return _at_assigned(ctx)
    link = ctx.find(_OLD_MESSAGE)
    if link is None or not link.is_a("TypeError"):
        return None
    location = ctx.deepest_user_location()
    found = _assignment(location) if location is not None else None
    if location is None or found is None:
        explanation = ("Your code assigns into a JAX array, and JAX arrays cannot be changed "
                       "in place.")
        return _entry.diagnosis(ctx, __name__, explanation, location=location,
                                call_site=ctx.failing_cell(),
                                notes=["Write `x = x.at[i].set(v)` (or .add(v), .multiply(v) "
                                       "for `+=`, `*=`) instead of `x[i] = v`."])
    node, target, tree = found
    values = ctx.values_at(location)
    from jax_nbhelp.jaxapi.jax_probe import at_update_methods

    basic = _is_basic(target, _basic_names(values))
    rewritten, method = _written(node, target, basic, at_update_methods() or frozenset({"set"}))
    holder = ast.unparse(target.value)
    shown = next((v for v in values if v.text == holder), None)
    what = f" ({holder} is {shown.summary})" if shown is not None and shown.is_array else ""
    explanation = (f"{_tracing.quoted_line(location, 'A line')} assigns into a JAX "
                   f"array{what}, and JAX arrays cannot be changed in place.")
    function = _scopes.enclosing_function(tree, location.lineno)
    scope = _scopes.scope_of(function) if function is not None else None
    name = _scopes.root_name(target.value)
    refusal = _why_not(ctx, location, scope, name, holder, rewritten)
    notes: list[str] = []
    fixes: tuple[Fix, ...] = ()
    if refusal is not None:
        notes.append(refusal)
    else:
        later = _later_assignments(tree, function, location.lineno, holder)
        fixes = (_fix(ctx, location, rewritten, method, holder, scope, name, values, later),)
    if not basic and isinstance(node, ast.AugAssign):
        notes.append(f"{holder}.at[...].add adds once for every time an index array names a "
                     "position; NumPy's `+=` adds once per position, which is what the "
                     "rewrite keeps.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.split(". Instead", 1)[0] + ".")


def _later_assignments(tree: ast.Module, function: ast.AST | None, lineno: int,
                       holder: str) -> list[int]:
    """The lines after ``lineno``, in the same function (or cell), that assign into an
    item of the same array (``out[:, [1, 3]] = ...`` after ``out[:, [0, 2]] = ...``): each
    would fail in its turn (jax-ml/jax#7032)."""
    body = function if function is not None else tree
    return sorted({node.lineno for node in ast.walk(body)
                   if isinstance(node, ast.Assign | ast.AugAssign) and node.lineno > lineno
                   and node.lineno == node.end_lineno
                   and len(node.targets if isinstance(node, ast.Assign) else [node.target]) == 1
                   and isinstance(target := (node.targets[0] if isinstance(node, ast.Assign)
                                             else node.target), ast.Subscript)
                   and ast.unparse(target.value) == holder})


def _fix(ctx: ErrorContext, location: Location, rewritten: str, method: str, holder: str,
         scope: _scopes.Scope | None, name: str | None, values: tuple[Value, ...],
         later: list[int]) -> Fix:
    call = rewritten.split(" = ", 1)[1]
    short = call.split(f".{method}(", 1)[0] + f".{method}(...)"
    label = f"Use {call}" if len(call) <= 24 else f"Use {short}"
    shared = ctx.other_names_for(location, name) if (
        name is not None and holder == name and scope is None) else []
    safety = ("Same values: the new array holds what the assignment would have stored, and "
              f"{holder} now names it.")
    if shared:
        safety = (f"{', '.join(shared)} held the same array and keep the old values: a JAX "
                  "array is never shared and changed, so only "
                  f"{holder} sees the update.")

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.at_update import at_update

        basic = frozenset(_basic_names(values))
        for lineno in (*reversed(later), location.lineno):
            source = at_update(source, lineno, basic)
        return source

    also = (f" The same for {holder}'s assignment{'s' if len(later) > 1 else ''} on line"
            f"{'s' if len(later) > 1 else ''} {', '.join(map(str, later))}." if later else "")
    return rewrite_fix(ctx, location, transform, label=label,
                       summary=f"Rewrite line {location.lineno} as `{rewritten}`: a new array "
                               f"with those elements changed, bound to {holder}.{also} Then "
                               "re-run.",
                       safety=safety, safe=not shared)
