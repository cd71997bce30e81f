"""A value that was static until a JAX operation made it a tracer (JNH303's special case).

Under ``jax.jit``, ``x.size``, ``x.shape[0]`` and ``len(xs)`` are Python ints, but
``jnp.add(x.size, 1)`` is a JAX operation and returns a tracer. A size computed that way
cannot shape an array. The same arithmetic in Python or NumPy stays static.

Reports: jax-ml/jax#4449 (``count = jnp.add(arr.size, 1)``, then ``jnp.ones((count,))``;
the maintainers' answer was to use Python or NumPy on static values), jax-ml/jax#4798
(``jnp.minimum`` of concrete values feeding ``jnp.arange``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted

_STATIC_ATTRIBUTES = frozenset({"size", "ndim", "shape"})


@dataclass(frozen=True)
class MadeTraced:
    name: str  # the variable that became a tracer
    function: str  # the jnp function that made it one ("add")
    call: str  # the call as written
    location: Location  # the assignment's line


def _static(node: ast.expr, known: set[str]) -> bool:
    """Whether ``node`` is a Python value while JAX traces: literals, shapes and sizes,
    ``len(...)``, and arithmetic of those."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float)
    if isinstance(node, ast.Name):
        return node.id in known
    if isinstance(node, ast.Attribute):
        return node.attr in _STATIC_ATTRIBUTES
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Call):
        return dotted(node.func) == "len"
    if isinstance(node, ast.BinOp):
        return _static(node.left, known) and _static(node.right, known)
    if isinstance(node, ast.UnaryOp):
        return _static(node.operand, known)
    if isinstance(node, ast.Tuple):
        return all(_static(item, known) for item in node.elts)
    return False


def find(ctx: ErrorContext, location: Location | None) -> MadeTraced | None:
    """The variable on the failing line that a ``jnp`` call on static inputs made traced."""
    import numpy  # loaded with jax already; not at import, like every entry

    jnp = ctx.alias("jax.numpy") or "jnp"
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None or location.cell is None:
        return None
    tree, code = parsed
    definition = next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                       and node.name == location.function
                       and node.lineno <= location.lineno <= (node.end_lineno or 0)), None)
    if definition is None:
        return None
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
            and getattr(node, "lineno", 0) == location.lineno}
    known: set[str] = set()
    found: dict[str, MadeTraced] = {}
    for statement in ast.walk(definition):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and statement.lineno < location.lineno):
            continue
        name, value = statement.targets[0].id, statement.value
        if _static(value, known):
            known.add(name)
            continue
        func = dotted(value.func) if isinstance(value, ast.Call) else None
        if (func is not None and func.startswith(f"{jnp}.") and isinstance(value, ast.Call)
                and value.args and not value.keywords
                and all(_static(arg, known) for arg in value.args)):
            function = func[len(jnp) + 1:]
            line = ctx.cell(location.cell, statement.lineno)
            if "." not in function and hasattr(numpy, function) and line is not None:
                found[name] = MadeTraced(name, function, _tracing.segment(code, value), line)
    return next((found[name] for name in found if name in read), None)
