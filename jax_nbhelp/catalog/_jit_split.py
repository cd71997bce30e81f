"""A statement of a jitted function that needs its inputs' values (a length that depends on
the data, with no keyword to fix it, or a Python number taken from the data): the function
split there, the statements up to it run as plain Python, the rest compiled.

``jnp.trim_zeros(x)``, a ``float(x.max())`` that sizes an array, a boolean mask: under
``jax.jit`` each needs values that do not exist while JAX traces. Where the call's values
give no static length (``_data_size``), the values are known one step earlier, at the call:
the statements of the jitted function up to the failing one run op by op on the concrete
arguments, and the statements after it are compiled as a function of what those computed.
The function keeps its name and signature (every caller is served the same): it becomes
the plain Python part, which calls a jitted helper holding the rest.

Read without running anything, from the def's AST:

- the def is a cell's top-level ``def`` whose one decorator is jit itself (``@jax.jit``,
  ``@jit``; not ``partial(jax.jit, ...)``, whose settings the split would have to share);
- the failing line is an assignment to names in the function's own body (not a loop's or a
  branch's), with statements after it; nothing before it returns or yields, and nothing in
  the function declares a name global or nonlocal;
- the helper takes, in their order, the names the rest reads that the part before binds
  (parameters included); a name the failing statement made a Python number (``int(...)``,
  ``float(...)``, ``len(...)``, ``.item()``) is static for it, as such a number must be.

The fix is safe: the same statements run on the same values, the part before on the call's
arrays as they are, the rest compiled as before (once per length the data gives, which jit
cannot avoid). Verified by running, like every fix.

Reports: jax-ml/jax#38601 (``jnp.trim_zeros`` under jit), jax-ml/jax#4027 (a value-dependent
output shape needs a program per input value) and jax-ml/jax#2250 (``roots`` cannot be
jitted whole because of its trimming step).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Fix
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite

# what makes a Python number of a traced value: such a name is static for the compiled rest
_NUMBERS = frozenset({"int", "float", "bool", "len", "round", "complex"})
_NUMBER_METHODS = frozenset({"item", "tolist"})


@dataclass(frozen=True)
class Split:
    function: str  # the jitted function's name
    helper: str  # the jitted helper's name
    targets: tuple[str, ...]  # what the failing statement assigns
    passed: tuple[str, ...]  # what the helper takes, in order
    static: tuple[str, ...]  # of those, the Python numbers
    first: int  # the def's first line (its decorator)
    before_end: int  # the last line of the failing statement
    last: int  # the def's last line
    func: ast.FunctionDef = field(compare=False, repr=False)  # the def, as its cell parses
    code: str = field(compare=False, repr=False)  # that cell's code


def _names_stored(nodes: list[ast.stmt]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _read_in_order(nodes: list[ast.stmt]) -> list[str]:
    seen: dict[str, None] = {}
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                seen.setdefault(n.id, None)
    return list(seen)


def _makes_number(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    return ((isinstance(func, ast.Name) and func.id in _NUMBERS)
            or (isinstance(func, ast.Attribute) and func.attr in _NUMBER_METHODS))


def _free_name(base: str, taken: set[str]) -> str:
    name, number = base, 2
    while name in taken:
        name, number = f"{base}{number}", number + 1
    return name


def find(ctx: ErrorContext, found: _tracing.Traced | None) -> Split | None:
    """Where the jitted function of ``found`` can be split at its failing statement."""
    if found is None or found.location is None or found.origin is None \
            or not found.origin.for_jit or found.call is None \
            or found.call.definition is None \
            or found.call.definition.source != found.location.source:
        return None
    location = found.location
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    tree, code = parsed
    func = _tracing.find_def(tree, found.origin.function, found.call.definition.lineno)
    if func is None or func not in tree.body or len(func.decorator_list) != 1 \
            or not _tracing.is_jit(func.decorator_list[0]):
        return None
    body = func.body
    statement = next((s for s in body if s.lineno <= location.lineno <= (s.end_lineno or 0)),
                     None)
    if not isinstance(statement, ast.Assign) or statement is body[-1] \
            or not all(isinstance(n, ast.Name) for target in statement.targets
                       for n in ([*target.elts] if isinstance(target, ast.Tuple) else [target])):
        return None
    k = body.index(statement)
    before, rest = body[:k + 1], body[k + 1:]
    if any(isinstance(n, ast.Global | ast.Nonlocal | ast.Yield | ast.YieldFrom | ast.Await)
           for n in ast.walk(func)) \
            or any(isinstance(n, ast.Return) for node in before for n in ast.walk(node)):
        return None
    parameters = [a.arg for a in (*func.args.posonlyargs, *func.args.args,
                                  *func.args.kwonlyargs)]
    parameters += [a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None]
    bound = set(parameters) | _names_stored(before)
    passed = tuple(name for name in _read_in_order(rest) if name in bound)
    targets = tuple(n.id for target in statement.targets for n in ast.walk(target)
                    if isinstance(n, ast.Name))
    static = tuple(name for name in passed
                   if name in targets and _makes_number(statement.value))
    frame = ctx.live_frame(location)
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} \
        | {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)} \
        | (set(frame.f_globals) if frame is not None else set())
    helper = _free_name(f"_{func.name}_compiled", taken)
    first = min([func.lineno, *(d.lineno for d in func.decorator_list)])
    return Split(func.name, helper, targets, passed, static, first,
                 statement.end_lineno or statement.lineno, func.end_lineno or func.lineno,
                 func, code)


def _helper_lines(split: Split, jit: str, rest: list[str], indent: str) -> list[str]:
    header = f"def {split.helper}({', '.join(split.passed)}):"
    if not split.static:
        return [f"@{jit}", header, *rest]
    static = ", ".join(f'"{name}"' for name in split.static)
    static = f"({static},)" if len(split.static) == 1 else f"({static})"
    return [header, *rest, f"{split.helper} = {jit}({split.helper}, static_argnames={static})"]


def fix(ctx: ErrorContext, found: _tracing.Traced | None) -> Fix | None:
    """Split the jitted function at its failing statement (``find``)."""
    split = find(ctx, found)
    if split is None or found is None or found.location is None:
        return None
    location = found.location
    func, code = split.func, split.code
    jit = _tracing.segment(code, func.decorator_list[0])
    lines = code.split("\n")
    original = "\n".join(lines[split.first - 1:split.last])
    header_end = func.body[0].lineno - 1  # the def's own lines (a signature may be long)
    header = lines[func.lineno - 1:header_end]
    before = lines[header_end:split.before_end]
    rest = lines[split.before_end:split.last]
    while rest and not rest[0].strip():
        rest = rest[1:]
    indent = before[0][:len(before[0]) - len(before[0].lstrip())]
    call = f"{split.helper}({', '.join(split.passed)})"
    wrapper = [*header, *before, f"{indent}return {call}"]
    written = [*_helper_lines(split, jit, rest, indent), "", "", *wrapper]

    def transform(source: str) -> str:
        now = source.split("\n")
        if "\n".join(now[split.first - 1:split.last]) != original:
            raise CannotRewrite(f"the def of {split.function} on line {split.first} is no "
                                "longer as it was")
        return "\n".join([*now[:split.first - 1], *written, *now[split.last:]])

    targets = _tracing.quoted(list(split.targets))
    lines_before = (f"line {split.before_end}" if func.body[0].lineno == split.before_end
                    else f"lines {func.body[0].lineno} to {split.before_end}")
    static = (f" ({_tracing.quoted(list(split.static))} static: a Python number)"
              if split.static else "")
    return rewrite_fix(
        ctx, location, transform,
        label=f"Compute {targets} before jit",
        summary=(f"Run {lines_before} of {split.function} as plain Python, on the values "
                 f"its caller passes, so that {targets} can be computed; the rest of "
                 f"{split.function} becomes `{split.helper}`, jitted{static}, which "
                 f"{split.function} calls with {_tracing.quoted(list(split.passed))}; then "
                 "re-run."),
        safety=(f"Same results: the same statements run on the same values; those up to "
                f"{targets} run before compilation, op by op, and the rest is compiled as "
                f"before (once for each shape {targets} takes)."),
        safe=True)
