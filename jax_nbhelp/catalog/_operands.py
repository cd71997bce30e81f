"""The operands of the operation on the user's line, in the user's names, with the shapes and
dtypes their live values had (``line_values``): what shape and dtype entries say instead of
JAX's anonymous ``(3,), (4,)``.

An operation is a call (``lax.add(counts, weights)``, ``jnp.dot(a, b)``, ``x.reshape(3, 4)``)
or an operator (``a @ b``, ``a + b``). Python literals count as operands with the dtype JAX
gives them (a weakly typed int32 or float32).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.line_values import Value, describe, shape_text

_OPERATORS: dict[type[ast.operator], tuple[str, ...]] = {
    ast.Add: ("add",), ast.Sub: ("sub", "subtract"), ast.Mult: ("mul", "multiply"),
    ast.Div: ("div", "divide", "true_divide"), ast.MatMult: ("dot_general", "matmul", "dot"),
    ast.Pow: ("pow", "power", "integer_pow"), ast.Mod: ("rem", "remainder"),
    ast.FloorDiv: ("floor_divide", "div"),
}


@dataclass(frozen=True)
class Operand:
    """One operand as written, and what it held (None when it could not be read)."""

    text: str
    value: Value | None
    literal: bool = False
    node: ast.expr | None = None

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self.value.shape if self.value is not None else None

    @property
    def dtype(self) -> str | None:
        return self.value.dtype if self.value is not None else None

    def described(self) -> str:
        """```batch` is float32[4, 5]`` (or just the text when its value is unknown)."""
        if self.value is None:
            return f"`{self.text}`"
        return f"`{self.text}` is {self.value.summary}"


@dataclass(frozen=True)
class Operation:
    """An operation on the line: how it is spelled and its operands, in order."""

    spelled: str  # "lax.add", "@", "x.reshape"
    node: ast.expr
    operands: tuple[Operand, ...]
    code: str  # the line's code, for segments

    def text(self) -> str:
        return _tracing.segment(self.code, self.node)


def _literal_value(node: ast.expr) -> Value | None:
    """What JAX makes of a Python number literal: a weakly typed scalar."""
    value = node.operand if isinstance(node, ast.UnaryOp) else node
    if isinstance(value, ast.Constant) and type(value.value) in (int, float, bool):
        dtype = {int: "int32", float: "float32", bool: "bool"}[type(value.value)]
        return Value(ast.unparse(node), "python", f"Python {type(value.value).__name__}", (),
                     dtype, True)
    return None


def operations(ctx: ErrorContext, location: Location | None,
               names: tuple[str, ...] = ()) -> list[Operation]:
    """The operations on the user's line whose function's last name is one of ``names`` (or,
    for operators, whose primitive JAX would name so), innermost first."""
    if location is None:
        return []
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return []
    tree, code = parsed
    values = {v.text: v for v in ctx.values_at(location)}
    found: list[Operation] = []
    for node in ast.walk(tree):
        if not (getattr(node, "lineno", 0) <= location.lineno
                <= (getattr(node, "end_lineno", 0) or 0)):
            continue
        if isinstance(node, ast.Call):
            spelled = _tracing.segment(code, node.func)
            last = spelled.rsplit(".", 1)[-1]
            if names and last not in names:
                continue
            args = list(node.args)
            if isinstance(node.func, ast.Attribute) and not _is_module_call(node.func, ctx):
                args.insert(0, node.func.value)  # x.reshape(...): x is an operand
            operands = tuple(_operand(arg, code, values) for arg in args
                             if not isinstance(arg, ast.Starred))
            found.append(Operation(spelled, node, operands, code))
        elif isinstance(node, ast.BinOp):
            primitive = _OPERATORS.get(type(node.op), ())
            if names and not set(primitive) & set(names):
                continue
            symbol = ast.unparse(ast.BinOp(ast.Name("a"), node.op, ast.Name("b")))[2:-2]
            found.append(Operation(symbol, node, (_operand(node.left, code, values),
                                                  _operand(node.right, code, values)), code))
    found.sort(key=lambda op: (-getattr(op.node, "lineno", 0), -op.node.col_offset))
    return found


def _is_module_call(func: ast.Attribute, ctx: ErrorContext) -> bool:
    """``jnp.dot``/``lax.add``: a module's function (its object is not an operand)."""
    root = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    modules = ("jax.numpy", "jax.lax", "jax", "numpy", "jax.random", "jax.nn")
    aliases = {ctx.alias(module) for module in modules} | {"jnp", "np", "jax", "lax"}
    return root.id in aliases


def _operand(node: ast.expr, code: str, values: dict[str, Value]) -> Operand:
    text = _tracing.segment(code, node) or ast.unparse(node)
    literal = _literal_value(node)
    if literal is not None:
        return Operand(text, literal, literal=True, node=node)
    value = values.get(ast.unparse(node))
    if value is None and isinstance(node, ast.BinOp):
        # ``0.5 * a``: a number times an array has the array's shape and dtype
        sides = [(node.left, node.right), (node.right, node.left)]
        for number, array in sides:
            inner = values.get(ast.unparse(array))
            if _literal_value(number) is not None and inner is not None and inner.is_array:
                value = Value(text, inner.kind, inner.summary, inner.shape, inner.dtype,
                              inner.weak)
    return Operand(text, value, node=node)


def entered_values(ctx: ErrorContext, operation: Operation) -> Operation:
    """``operation`` with the values JAX's function received for the operands it could not
    read from the line (``jnp.ones((2, 3)) @ w``: a call's result has no name to read): the
    function the user's line entered (``ctx.user_call``) got them as its first parameters
    (``self``/``other`` of an operator, ``a``/``b`` of ``jnp.dot``). Only where that call
    is this operation and every operand is accounted for; the values are read, never
    computed again."""
    if all(o.value is not None for o in operation.operands):
        return operation
    call = ctx.user_call
    if call is None or not _same_node(call.node, operation.node):
        return operation
    # an operator's method (``_operator_matmul``) is the frame right after the user's
    entered = call.api if call.api is not None else call.index + 1
    if call.api is None and (call.operator is None or entered >= len(call.frames)):
        return operation
    frame = call.frames[entered]
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount]
    if len(names) < len(operation.operands):
        return operation
    operands = []
    for operand, name in zip(operation.operands, names, strict=False):
        if operand.value is None and name in frame.f_locals:
            value = describe(operand.text, frame.f_locals[name])
            if not value.is_array:
                return operation
            if value.kind == "tracer" and value.shape is not None:  # traced by JAX's own
                # jit of the function: the user's value had this shape and dtype, concretely
                value = Value(value.text, "array", f"{value.dtype}{shape_text(value.shape)}",
                              value.shape, value.dtype, value.weak)
            operand = Operand(operand.text, value, node=operand.node)
        operands.append(operand)
    return Operation(operation.spelled, operation.node, tuple(operands), operation.code)


def _same_node(a: ast.AST, b: ast.AST) -> bool:
    """The same expression of the line: each side parsed the source on its own (the user's
    call from its own positions, the operation from the whole cell), so their positions
    differ and their structure is compared."""
    return ast.dump(a) == ast.dump(b)


def with_shapes(operation: Operation, shapes: list[tuple[int, ...]]) -> bool:
    """Whether the operation's array operands have exactly ``shapes``, in order."""
    arrays = [o.shape for o in operation.operands if o.shape is not None]
    return arrays == shapes


def listed(operands: tuple[Operand, ...] | list[Operand]) -> str:
    """```a` is float32[3] and `b` is float32[4]``."""
    parts = [o.described() for o in operands]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


__all__ = ["Operand", "Operation", "entered_values", "listed", "operations", "shape_text",
           "with_shapes"]
