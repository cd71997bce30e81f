"""Reading shapes out of JAX's messages, and the sentences the shape entries share."""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _operands
from jax_nbhelp.diagnosis.line_values import shape_text

_SHAPE_RE = re.compile(r"\(([\d, ]*)\)")


def shapes_in(text: str) -> list[tuple[int, ...]]:
    """Every ``(3, 4)`` in ``text``, as tuples."""
    return [tuple(int(d) for d in found.replace(" ", "").split(",") if d)
            for found in _SHAPE_RE.findall(text)]


def shown(shape: tuple[int, ...]) -> str:
    """``(3, 4)`` (``(3,)`` for one dimension), as Python writes a shape."""
    return str(tuple(shape))


MAX_LEAVES = 1 << 12  # items of a container argument that are read, at most


def builtin_leaves(value: object) -> list[object] | None:
    """The leaves of a dict, list or tuple (nested), each a Python number or an object of
    JAX's or NumPy's own (an array, a dtype's scalar); None where an item is anything else
    (a user's object) or there are more than ``MAX_LEAVES`` items."""
    stack, leaves, seen = [value], [], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_LEAVES:
            return None
        if type(item) in (list, tuple):
            stack.extend(item)  # type: ignore[arg-type]
        elif type(item) is dict:
            stack.extend(item.values())
        elif type(item) in (int, float, bool, complex) \
                or type(item).__module__.startswith(("jax", "jaxlib", "numpy")):
            leaves.append(item)
        else:
            return None
    return leaves


def array_shape(value: object) -> tuple[int, ...] | None:
    """The shape of a NumPy or JAX array (a tracer's too), read from JAX's and NumPy's own
    classes only: never a property of another class."""
    if not type(value).__module__.startswith(("jax", "jaxlib", "numpy")):
        return None
    shape = getattr(value, "shape", None)
    return shape if type(shape) is tuple and all(type(d) is int for d in shape) else None


def operands_with(operations: list[_operands.Operation],
                  shapes: list[tuple[int, ...]]) -> _operands.Operation | None:
    """The operation whose array operands have exactly these shapes (the innermost)."""
    for operation in operations:
        if _operands.with_shapes(operation, shapes):
            return operation
    for operation in operations:  # a scalar among the operands: compare the arrays only
        arrays = [o.shape for o in operation.operands if o.shape]
        if arrays == [s for s in shapes if s]:
            return operation
    return None


__all__ = ["array_shape", "operands_with", "shape_text", "shapes_in", "shown"]
