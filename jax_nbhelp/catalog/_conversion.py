"""A traced number turned into a Python one only to meet arrays: ``float(x.sum())`` or
``x.max().item()`` under ``jax.jit``, whose result is used only as an operand of ``+ - * /``
(or returned). ``.item()`` of an array of one element (shape ``(1,)``) is kept as that element,
``x.reshape(())`` (jax-ml/jax#8962).

Kept an array, the number gives the same values wherever each use of it meets an array of
its own dtype (the Python float became that dtype again there: JAX converts a Python number
to the array's dtype), or, in a ``return`` of one operation, a whole number small enough to
be exact in that dtype, where that dtype is the one jit gives a returned Python float (one
IEEE operation on a float32 value and such an int, done in float64 and then rounded to
float32, is the float32 operation). Arithmetic with other Python numbers on the way to such
an array or a return is the same arithmetic done in float32 where Python did it in float64:
the fix is offered as the same values up to float rounding (``Fix.rounding``). Any other use
(a Python ``if``, a range) needs the number itself: no fix is offered there. Read from the
line's function and its live frame, never by running the user's code. A number passed by
position to a function of the notebook whose parameter only meets arithmetic on its way into
JAX's functions (``at_least(x, 4.0, float(step))`` with ``jnp.maximum(x, steps * size)``
inside, blackjax-devs/blackjax#1029) is kept an array too, up to float rounding.

An ``int(i)`` made only to index a JAX array (``x[int(i)]``) is dropped (``x[i]``, or
``x[i.astype(int)]`` for a float ``i``): JAX indexes with a traced integer.

A conversion made only to print (``print("loss", float(loss))``, an f-string's
``{loss.item():.3f}``) is written ``jax.debug.print("loss {}", loss)``: the function computes
what it did, and the value is printed each time the compiled function runs (jax-ml/jax#196
and jax-ml/jax#4615 ask how to print a value inside jit; jax-ml/jax#23475 is a format spec
that older releases did not take there, which the fix's run would show).

Under ``jax.grad`` alone a traced value still has its number: a Python ``if`` may compare it,
and only ``float()`` refuses it. A conversion used only in such a test is dropped
(``condition_fix``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from jax_nbhelp.catalog import _scopes, _static_site, _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

_SCALAR = re.compile(r"traced array with shape (?P<dtype>float(?:16|32|64)|bfloat16)"
                     r"\[(?P<ones>1(?:, ?1)*)?\]")
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div)
# the whole numbers each dtype holds exactly: up to 2 ** (its significand's bits)
_EXACT_INT = {"bfloat16": 2 ** 8, "float16": 2 ** 11, "float32": 2 ** 24, "float64": 2 ** 53}
_SIMPLE = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)


def _conversion(node: ast.AST, message: str) -> ast.expr | None:
    """The traced expression that ``float(E)`` or ``E.item()`` converts, where ``node`` is
    the conversion JAX's message names."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    if (isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1
            and "`float` function" in message and not isinstance(node.args[0], ast.Starred)):
        return node.args[0]
    if (isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args
            and "item()" in message):
        return node.func.value
    return None


def _traced_by_jit(ctx: ErrorContext, location: Location, names: set[str]) -> bool:
    """Whether each of ``names`` that holds a tracer there holds one of jit's (not grad's:
    kept an array under grad, the number would carry a derivative the Python float did not)."""
    for name in names:
        value = ctx.value_named(location, name)
        if value is not None and value.kind == "tracer" and value.transform != "jit":
            return False
    return True


def _meets_array(ctx: ErrorContext, location: Location, scope: _scopes.Function,
                 other: ast.expr, dtype: str) -> str | None:
    """``other``'s name where it is an array of ``dtype`` the function never rebinds."""
    if not isinstance(other, ast.Name) or _scopes.stores(scope, other.id):
        return None
    value = ctx.value_named(location, other.id)
    if (value is None or not value.is_array or value.dtype != dtype
            or (value.kind == "tracer" and value.transform != "jit")):
        return None
    return other.id


def _python_float_dtype() -> str:
    """The dtype jit gives a Python float it returns: float64 where 64-bit values are on."""
    from jax_nbhelp.jaxapi.jax_probe import attribute

    config = attribute("jax", "config")
    return "float64" if getattr(config, "jax_enable_x64", False) else "float32"


def _use_is_exact(ctx: ErrorContext, location: Location, scope: _scopes.Function,
                  parents: dict[ast.AST, ast.AST], operand: ast.expr,
                  dtype: str) -> str | None:
    """What the converted number meets at ``operand``, where that use keeps the values: the
    array's name, or the whole number of a ``return`` of one operation; else None."""
    use = parents.get(operand)
    if not isinstance(use, ast.BinOp) or not isinstance(use.op, _OPERATORS):
        return None
    other = use.right if use.left is operand else use.left
    if (isinstance(other, ast.Constant) and type(other.value) is int
            and abs(other.value) <= _EXACT_INT[dtype] and isinstance(parents.get(use), ast.Return)
            and dtype == _python_float_dtype()):
        return str(other.value)
    return _meets_array(ctx, location, scope, other, dtype)


def _in_arithmetic(ctx: ErrorContext, location: Location, scope: _scopes.Function,
                   parents: dict[ast.AST, ast.AST], operand: ast.expr, dtype: str) -> bool:
    """Whether the converted number at ``operand`` only goes through ``+ - * /`` with Python
    numbers (and negation) until it meets an array of ``dtype`` or is returned: the same
    arithmetic, which a kept array does in ``dtype`` where Python did it in float64."""
    node: ast.AST = operand
    while True:
        use = parents.get(node)
        if isinstance(use, ast.UnaryOp) and isinstance(use.op, ast.USub | ast.UAdd):
            node = use
            continue
        if isinstance(use, ast.BinOp) and isinstance(use.op, _OPERATORS):
            other = use.right if use.left is node else use.left
            if isinstance(other, ast.Constant) and type(other.value) in (int, float):
                node = use
                continue
            return _meets_array(ctx, location, scope, other, dtype) is not None
        if isinstance(use, ast.Tuple) and isinstance(parents.get(use), ast.Return):
            use = parents[use]  # an item of the tuple returned
        return isinstance(use, ast.Return) and dtype == _python_float_dtype()


def _the_conversion(location: Location | None, message: str
                    ) -> tuple[str, _scopes.Function, ast.Call, ast.expr] | None:
    """The one conversion JAX's message names on ``location``'s line, in a function: the
    cell's code, the function, the conversion's call and what it converts."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if parsed is None or location is None:
        return None
    tree, code = parsed
    scope = _scopes.enclosing_function(tree, location.lineno)
    if scope is None:
        return None
    found = [(node, converted) for node in _scopes.own_nodes(scope)
             if isinstance(node, ast.Call) and node.lineno == location.lineno
             and node.end_lineno == location.lineno
             and (converted := _conversion(node, message)) is not None]
    if len(found) != 1:
        return None
    return code, scope, found[0][0], found[0][1]


def keep_array_fix(ctx: ErrorContext, location: Location | None, message: str) -> Fix | None:
    """The fix that drops the conversion on ``location``'s line, where every use of the
    number keeps its values (see the module's docstring); None elsewhere."""
    scalar = _SCALAR.search(message)
    found = _the_conversion(location, message) if scalar is not None else None
    if scalar is None or found is None or location is None:
        return None
    code, scope, node, converted = found
    if scalar["ones"] and not (isinstance(node.func, ast.Attribute) and node.func.attr == "item"):
        return None  # float() of an array of one element: kept, its shape would differ
    parents = _scopes.parents(scope)
    holder = parents.get(node)
    passed = _passed_into(ctx, location, holder, node) if not scalar["ones"] else None
    if passed is not None:
        return _kept_fix(ctx, location, code, node, converted, scalar["dtype"], passed)
    if (isinstance(holder, ast.Assign) and holder.value is node and len(holder.targets) == 1
            and isinstance(holder.targets[0], ast.Name)):
        name = holder.targets[0].id
        if len(_scopes.stores(scope, name)) != 1 or name in _scopes.scope_of(scope).parameters:
            return None
        if _scopes.read_elsewhere(scope, name):
            return None  # read in a nested function or a lambda too: not followed
        operands: list[ast.expr] = list(_scopes.loads(scope, name))
    else:
        operands = [node]
    met = [_use_is_exact(ctx, location, scope, parents, operand, scalar["dtype"])
           for operand in operands]
    rounding = None in met
    if not operands or (rounding and not all(
            _in_arithmetic(ctx, location, scope, parents, operand, scalar["dtype"])
            for operand in operands)):
        return None
    read = {n.id for n in ast.walk(converted) if isinstance(n, ast.Name)}
    if not _traced_by_jit(ctx, location, read):
        return None
    before = _tracing.segment(code, node)
    kept = _tracing.segment(code, converted)
    after = kept if isinstance(converted, _SIMPLE) else f"({kept})"
    if scalar["ones"]:
        after = f"{after}.reshape(())"  # its one element, as .item() gave it
    conversion = "float(...)" if isinstance(node.func, ast.Name) else ".item()"
    dtype = scalar["dtype"]
    if rounding:
        safety = (f"The same arithmetic on the same {dtype} value, done in {dtype} where "
                  "Python did it in float64 before JAX turned the result into an array: the "
                  "last bits can differ.")
    else:
        arrays = sorted({m for m in met if m is not None and not m.lstrip("-").isdigit()})
        numbers = sorted({m for m in met if m is not None and m.lstrip("-").isdigit()})
        parts = ([f"the {dtype} array{'s' if len(arrays) > 1 else ''} "
                  f"{_tracing.quoted(arrays)}"] if arrays else [])
        parts += ([f"the whole number{'s' if len(numbers) > 1 else ''} "
                   f"{_tracing.quoted(numbers)} in a return"] if numbers else [])
        safety = (f"Same values: {kept} is {dtype}, and it only meets {' and '.join(parts)}, "
                  f"where JAX would have turned the Python number from {conversion} back "
                  f"into {dtype}.")
    fix = rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after),
        label=f"Keep {kept} an array",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}, so the number "
                 "stays a traced array that jit can compile; then re-run."),
        safety=safety, safe=True)
    return replace(fix, rounding=rounding)


def _passed_into(ctx: ErrorContext, location: Location, holder: ast.AST | None,
                 node: ast.Call) -> str | None:
    """``apply_floor(length, 4.0, float(step))``: the number passed by position to a
    function of the notebook's (a top-level ``def`` of its cells, or one of the same cell),
    whose parameter is never rebound and is only met by arithmetic and JAX's functions on
    its way into a JAX call or a ``return`` (never a Python ``if``, a loop, a format or a
    call of other code). The function's name, or None."""
    if not isinstance(holder, ast.Call) or node not in holder.args \
            or not isinstance(holder.func, ast.Name) \
            or any(isinstance(a, ast.Starred) for a in holder.args):
        return None
    index = holder.args.index(node)
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, holder.func.id)
    if found is None:
        return None
    function = found[1]
    arguments = function.args
    if arguments.posonlyargs or arguments.vararg or index >= len(arguments.args):
        return None
    parameter = arguments.args[index].arg
    if _scopes.stores(function, parameter) or _scopes.read_elsewhere(function, parameter):
        return None
    loads = _scopes.loads(function, parameter)
    parents = _scopes.parents(function)
    jax_names = {name for name in (ctx.alias("jax.numpy"), ctx.alias("jax.lax"),
                                   ctx.alias("jax"), "jnp", "lax") if name}
    if not loads or not all(_into_jax(parents, load, jax_names) for load in loads):
        return None
    return function.name


def _into_jax(parents: dict[ast.AST, ast.AST], node: ast.AST, jax_names: set[str]) -> bool:
    """Whether ``node`` goes only through ``+ - * /`` and negation into an argument of a
    JAX function (``jnp.maximum(...)``, ``lax.clamp(...)``) or a ``return``."""
    while True:
        use = parents.get(node)
        if (isinstance(use, ast.UnaryOp) and isinstance(use.op, ast.USub | ast.UAdd)) \
                or (isinstance(use, ast.BinOp) and isinstance(use.op, _OPERATORS)):
            node = use
            continue
        if isinstance(use, ast.Call) and node in use.args:
            root = use.func
            while isinstance(root, ast.Attribute):
                root = root.value
            return isinstance(use.func, ast.Attribute) and isinstance(root, ast.Name) \
                and root.id in jax_names
        return isinstance(use, ast.Return)


def _kept_fix(ctx: ErrorContext, location: Location, code: str, node: ast.Call,
              converted: ast.expr, dtype: str, function: str) -> Fix | None:
    """The conversion dropped where the number is passed into ``function``, which only does
    arithmetic with it on its way into JAX's functions: the same value as a ``dtype`` array,
    with that arithmetic done in ``dtype`` where Python did it in float64."""
    read = {n.id for n in ast.walk(converted) if isinstance(n, ast.Name)}
    if not _traced_by_jit(ctx, location, read):
        return None
    return _dropped(
        ctx, location, code, node, converted, "Keep {} an array",
        f", so the number passed to {function} stays a traced array that jit can compile; "
        "then re-run.",
        f"The same {dtype} value, passed as an array: {function} only does arithmetic with "
        f"it on its way into JAX's functions, now in {dtype} where Python did it in float64, "
        "so the last bits can differ.")


def _dropped(ctx: ErrorContext, location: Location, code: str, node: ast.Call,
             converted: ast.expr, label: str, why: str, safety: str) -> Fix:
    """The fix that writes the converted expression for its conversion (``x`` for
    ``float(x)``), the same value up to float rounding; ``label`` has ``{}`` for the kept
    expression, ``why`` follows the summary's "Write `x` for `float(x)` on line N"."""
    before = _tracing.segment(code, node)
    kept = _tracing.segment(code, converted)
    after = kept if isinstance(converted, _SIMPLE) else f"({kept})"
    fix = rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after), label=label.format(kept),
        summary=f"Write `{after}` for `{before}` on line {location.lineno}{why}",
        safety=safety.format(kept), safe=True)
    return replace(fix, rounding=True)


# -- a conversion only to test a condition under grad ----------------------------------------

def _in_condition(parents: dict[ast.AST, ast.AST], node: ast.AST) -> bool:
    """Whether ``node`` only goes through ``abs``, negation and arithmetic into a comparison
    that is an ``if``'s or ``while``'s test (or one of its ``and``/``or``/``not`` parts)."""
    while True:
        use = parents.get(node)
        if (isinstance(use, ast.Call) and isinstance(use.func, ast.Name)
                and use.func.id == "abs" and use.args == [node]) \
                or isinstance(use, ast.UnaryOp | ast.BinOp):
            node = use
        elif isinstance(use, ast.Compare):
            node = use
            while isinstance(parents.get(node), ast.BoolOp) or (
                    isinstance(parents.get(node), ast.UnaryOp)
                    and isinstance(parents[node].op, ast.Not)):  # type: ignore[attr-defined]
                node = parents[node]
            holder = parents.get(node)
            return isinstance(holder, ast.If | ast.While) and holder.test is node
        else:
            return False


def condition_fix(ctx: ErrorContext, location: Location | None, message: str) -> Fix | None:
    """``if abs(float(r)) <= delta:`` in a function differentiated by ``jax.grad``
    (jax-ml/jax#2783): under grad alone a traced value still has its number, and Python's
    ``if`` may ask a comparison of it; only ``float()`` refuses (the Python float would
    lose the derivative). Where the number is used only in such a test, the conversion is
    dropped: the test compares the same number (in its own dtype, where Python compared a
    float64: the same branch up to float rounding), and the derivative flows through the
    branch as written."""
    found = _the_conversion(location, message)
    if found is None or location is None:
        return None
    code, scope, node, converted = found
    parents = _scopes.parents(scope)
    read = {n.id for n in ast.walk(converted) if isinstance(n, ast.Name)}
    values = [ctx.value_named(location, name) for name in read]
    tracers = [v for v in values if v is not None and v.kind == "tracer"]
    if not tracers or any(v.transform != "grad" for v in tracers) \
            or not _in_condition(parents, node):
        return None
    kept = _tracing.segment(code, converted)
    return _dropped(
        ctx, location, code, node, converted, "Test {} itself",
        f": under jax.grad alone {kept} still has its number, so the if can compare it; only "
        "the conversion to a Python float is refused. Then re-run.",
        "Same branches up to float rounding: the test compares the same number, in {}'s own "
        "dtype where Python compared a float64, and the derivative flows through the branch "
        "as written.")


# -- a conversion only to index ---------------------------------------------------------------

_INDEX_SCALAR = re.compile(r"traced array with shape (?P<dtype>u?int\d*|float\d*|bfloat16)\[\]")


def index_fix(ctx: ErrorContext, location: Location | None, message: str) -> Fix | None:
    """``x[int(i)]`` with a traced ``i`` of one value (per element) indexing a JAX array:
    the index kept an array, ``x[i]`` for an integer ``i`` and ``x[i.astype(int)]`` for a
    float one. JAX indexes with a traced integer as Python indexes with the int: a negative
    index counts from the end, and ``astype(int)`` truncates toward zero as ``int()``
    does."""
    scalar = _INDEX_SCALAR.search(message)
    parsed = _tracing.parse(location.source) if location is not None else None
    if scalar is None or "`int` function" not in message or parsed is None or location is None:
        return None
    tree, code = parsed
    values = {value.text: value for value in ctx.values_at(location)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or node.lineno != location.lineno \
                or node.end_lineno != location.lineno:
            continue
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        base = values.get(ast.unparse(node.value))
        for part in parts:
            if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) \
                    and part.func.id == "int" and len(part.args) == 1 and not part.keywords \
                    and not isinstance(part.args[0], ast.Starred) \
                    and base is not None and base.is_array:
                found.append(part)
    if len(found) != 1 or ctx.type_of("int") is not None:
        return None
    call = found[0]
    inner = _tracing.segment(code, call.args[0])
    held = values.get(ast.unparse(call.args[0]))
    if held is None or held.shape != () or held.dtype != scalar["dtype"]:
        return None
    integer = scalar["dtype"].startswith(("int", "uint"))
    wrapped = inner if isinstance(call.args[0], _SIMPLE) else f"({inner})"
    after = inner if integer else f"{wrapped}.astype(int)"
    before = _tracing.segment(code, call)
    how = ("JAX indexes with a traced integer as Python does with the int: a negative index "
           "counts from the end" if integer else
           "`.astype(int)` truncates toward zero as `int()` does, and JAX indexes with the "
           "traced integer as Python does with the int")
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after),
        label=f"Index with {after}" if len(after) <= 24 else "Index with a traced int",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}: the index stays "
                 "a traced array, which JAX indexes with; then re-run."),
        safety=(f"Same values: {how}. Only an index out of bounds differs: JAX clamps a "
                "traced one, where a Python int raises IndexError."), safe=True)


# -- a conversion only to print ---------------------------------------------------------------

def debug_print_fix(ctx: ErrorContext, location: Location | None, message: str,
                    formatted: bool = False) -> Fix | None:
    """``print("loss", float(loss))`` (an f-string's ``{loss.item():.3f}`` too) under jit:
    the conversion is there only to print, and ``jax.debug.print("loss {}", loss)`` prints
    the value each time the compiled function runs. The function computes what it did; only
    the printing changes (each call, not once while tracing, in the array's own precision).
    Only for a statement that is one ``print(...)`` of strings, conversions and values.
    ``formatted``: JAX's tracer refused a format spec (``f"{loss:.3f}"``), so a name
    formatted with one is what needed the value, as a conversion does."""
    parsed = _tracing.parse(location.source) if location is not None else None
    jax = ctx.alias("jax")
    if parsed is None or location is None or jax is None:
        return None
    tree, code = parsed
    statement = next((n for n in ast.walk(tree) if isinstance(n, ast.Expr)
                      and n.lineno == location.lineno == n.end_lineno), None)
    call = statement.value if statement is not None else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) \
            or call.func.id != "print" or call.keywords or not call.args:
        return None
    pieces: list[str] = []
    values: list[str] = []
    converted: set[str] = set()
    shown_as_is: set[str] = set()
    for argument in call.args:
        piece = _printed(argument, message, code, values, converted, shown_as_is, formatted)
        if piece is None:
            return None
        pieces.append(piece)
    if not converted or not _traced_by_jit(ctx, location, converted) or any(
            (value := ctx.value_named(location, name)) is None or value.kind != "tracer"
            for name in shown_as_is):
        return None  # a Python value printed beside: debug.print would show it as an array
    after = f"{jax}.debug.print({' '.join(pieces)!r}{''.join(', ' + v for v in values)})"
    before = _tracing.segment(code, call)
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after),
        label="Print with jax.debug.print",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}: it prints the "
                 "values each time the compiled function runs; then re-run."),
        safety=("Same values: the function computes what it did, and the line only prints. "
                "It now prints on every call rather than once while jit traces, "
                + ("each value formatted as the f-string says." if formatted else
                   "each value in its array's own precision (a float32 shows fewer digits "
                   "than float() did).")),
        safe=True)


def _printed(node: ast.expr, message: str, code: str, values: list[str],
             converted: set[str], shown_as_is: set[str], formatted: bool = False
             ) -> str | None:
    """The format piece ``print`` would show for ``node`` (adding its value to
    ``values``), or None for an argument that is not a string, a conversion or a name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value.replace("{", "{{").replace("}", "}}"))
            elif isinstance(part, ast.FormattedValue) and part.conversion == -1:
                spec = part.format_spec
                if spec is not None and not (isinstance(spec, ast.JoinedStr) and all(
                        isinstance(v, ast.Constant) for v in spec.values)):
                    return None
                shown = _printed(part.value, message, code, values, converted, shown_as_is)
                if shown != "{}":
                    return None
                text = "".join(v.value for v in spec.values) if spec is not None else ""  # type: ignore[attr-defined]
                if formatted and text and isinstance(part.value, ast.Name):
                    converted.add(part.value.id)  # the format spec asked the tracer for it
                    shown_as_is.discard(part.value.id)
                parts.append("{:" + text + "}" if text else "{}")
            else:
                return None
        return "".join(parts)
    inner = _conversion(node, message) or (node if isinstance(node, ast.Name) else None)
    if inner is None:
        return None
    text = _tracing.segment(code, inner)
    values.append(text if isinstance(inner, _SIMPLE) else f"({text})")
    if inner is not node:
        converted |= {n.id for n in ast.walk(inner) if isinstance(n, ast.Name)}
    elif isinstance(node, ast.Name):
        shown_as_is.add(node.id)  # printed as it is: only a tracer prints the same way
    return "{}"
