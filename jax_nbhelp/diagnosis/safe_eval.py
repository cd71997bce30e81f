"""Evaluating an expression of a live frame without running anyone's code.

The explained card (``explained.py``) shows the check JAX made with the values it read:
``devices.ndim == len(axis_names)`` with ``devices.ndim`` 1 and ``len(axis_names)`` 2. Those
values come from JAX's frame as it raised, and reading them must not run code: no call of
a function, no property of a user's class, no ``__getattr__``, no ``__eq__`` of an unknown
type. What is evaluated:

- names (the frame's locals, its globals, the builtins) and constants;
- attributes of modules (their ``__dict__``), an object's own ``__dict__`` entries, plain
  class attributes, and the array facts of JAX's and NumPy's own types (``shape``,
  ``dtype``, ``ndim``, ``size``, ``aval``, ``weak_type``; a dtype's ``name`` and ``kind``),
  read only on those types;
- items of ``tuple``, ``list``, ``dict`` and ``str`` objects of exactly those types;
- ``len`` of those and of arrays (their first dimension), ``isinstance`` against classes;
- arithmetic, comparisons and boolean logic of plain values (numbers, strings, ``None``,
  tuples and lists of those, dtypes), tuple and list displays, conditional expressions.

Anything else is ``CANNOT``: the caller shows what the raise implies instead. This is the
model of pytest's assertion rewriting and ``pure_eval``, with JAX's array facts allowed.
"""

from __future__ import annotations

import ast
import builtins
import operator
import sys
from collections.abc import Callable, Mapping
from types import FrameType, ModuleType
from typing import Any

CANNOT: Any = type("Cannot", (), {"__repr__": lambda self: "CANNOT"})()

_LIBRARIES = ("jax", "jaxlib", "numpy", "ml_dtypes", "builtins", "opt_einsum")
# Attributes of JAX's and NumPy's own objects that are facts, not computations.
ARRAY_FACTS = frozenset({"shape", "dtype", "ndim", "size", "aval", "weak_type", "name",
                         "kind", "itemsize", "names", "axis_names", "num_devices",
                         "axis_sizes", "spec", "memory_kind", "type", "char"})
_PLAIN = (int, float, bool, complex, str, bytes, type(None))
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Div: operator.truediv,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_MAX_ITEMS = 10_000  # a container longer than this is not compared or searched


def library_type(cls: type) -> bool:
    """Whether ``cls`` is a class of JAX, NumPy or Python itself (its code is trusted not to
    have side effects when its facts are read)."""
    module = getattr(cls, "__module__", None) or ""
    return isinstance(module, str) and module.split(".", 1)[0] in _LIBRARIES


def _plain(value: object, depth: int = 0) -> bool:
    """A value whose comparison and arithmetic run no one's code but Python's and NumPy's."""
    if type(value) in _PLAIN:
        return True
    if type(value) in (tuple, list) and depth < 3:
        items: Any = value
        return len(items) <= _MAX_ITEMS and all(_plain(item, depth + 1) for item in items)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.dtype | numpy.generic):
        return True  # a dtype, a NumPy scalar
    return isinstance(value, type) and library_type(value)


def _attribute(value: object, name: str) -> object:
    if isinstance(value, ModuleType):
        return value.__dict__.get(name, CANNOT)
    cls = type(value)
    if isinstance(value, type):
        # a class's own attributes: plain data of its dict (a descriptor would run code)
        for klass in value.__mro__:
            if name in klass.__dict__:
                found = klass.__dict__[name]
                return CANNOT if hasattr(type(found), "__get__") and not isinstance(
                    found, type) else found
        return CANNOT
    if name in ARRAY_FACTS and library_type(cls):
        try:
            return getattr(value, name)
        except Exception:
            return CANNOT
    try:
        own = object.__getattribute__(value, "__dict__")
    except Exception:
        own = None
    if type(own) is dict and name in own:
        return own[name]
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            # a method, a property or another descriptor: reading it runs code
            return CANNOT if hasattr(type(found), "__get__") else found
    return CANNOT


def _length(value: object) -> object:
    if type(value) in (tuple, list, dict, str, bytes, set, frozenset):
        return len(value)  # type: ignore[arg-type]
    shape = _attribute(value, "shape") if library_type(type(value)) else CANNOT
    if type(shape) is tuple and shape and type(shape[0]) is int:
        return shape[0]
    return CANNOT


class Evaluator:
    """Evaluates expressions in one frame's names (or a mapping), each node once."""

    def __init__(self, names: Mapping[str, Any] | FrameType) -> None:
        if isinstance(names, FrameType):
            self.scopes: tuple[Mapping[str, Any], ...] = (names.f_locals, names.f_globals)
        else:
            self.scopes = (names,)
        self.values: dict[int, object] = {}

    def lookup(self, name: str) -> object:
        for scope in self.scopes:
            if name in scope:
                return scope[name]
        return builtins.__dict__.get(name, CANNOT)

    def __call__(self, node: ast.AST) -> object:
        key = id(node)
        if key not in self.values:
            try:
                self.values[key] = self._evaluate(node)
            except Exception:  # an odd value: no value, never an error of ours
                self.values[key] = CANNOT
        return self.values[key]

    def _evaluate(self, node: ast.AST) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
            base = self(node.value)
            return CANNOT if base is CANNOT else _attribute(base, node.attr)
        if isinstance(node, ast.Subscript):
            return self._item(node)
        if isinstance(node, ast.Tuple | ast.List):
            items = [self(element) for element in node.elts]
            if any(item is CANNOT or isinstance(element, ast.Starred)
                   for item, element in zip(items, node.elts, strict=True)):
                return CANNOT
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.BoolOp):
            return self._boolean(node)
        if isinstance(node, ast.UnaryOp):
            operand = self(node.operand)
            if operand is CANNOT:
                return CANNOT
            if isinstance(node.op, ast.Not):
                return not operand if type(operand) is bool or operand is None or type(
                    operand) in (int, tuple, list, str, dict) else CANNOT
            if isinstance(node.op, ast.USub) and type(operand) in (int, float):
                return -operand  # type: ignore[operator]
            return CANNOT
        if isinstance(node, ast.BinOp):
            left, right = self(node.left), self(node.right)
            apply = _BINARY.get(type(node.op))
            if apply is None or not (_plain(left) and _plain(right)):
                return CANNOT
            if isinstance(node.op, ast.Mult) and (type(left) in (tuple, list, str)
                                                  or type(right) in (tuple, list, str)):
                return CANNOT  # a repetition could be huge
            return apply(left, right)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.IfExp):
            test = self(node.test)
            if type(test) is not bool:
                return CANNOT
            return self(node.body if test else node.orelse)
        if isinstance(node, ast.Call):
            return self._call(node)
        return CANNOT

    def _item(self, node: ast.Subscript) -> object:
        base, key = self(node.value), self(node.slice) if not isinstance(
            node.slice, ast.Slice) else self._slice(node.slice)
        if base is CANNOT or key is CANNOT:
            return CANNOT
        if type(base) is dict:
            return base.get(key, CANNOT) if type(key) in _PLAIN else CANNOT
        if type(base) in (tuple, list, str) and type(key) in (int, slice):
            try:
                return base[key]  # type: ignore[index]
            except IndexError:
                return CANNOT
        return CANNOT

    def _slice(self, node: ast.Slice) -> object:
        parts = [self(part) if part is not None else None
                 for part in (node.lower, node.upper, node.step)]
        if any(part is CANNOT or (part is not None and type(part) is not int)
               for part in parts):
            return CANNOT
        return slice(*parts)

    def _boolean(self, node: ast.BoolOp) -> object:
        last: object = CANNOT
        for value_node in node.values:
            value = self(value_node)
            if value is CANNOT or not _plain(value):
                return CANNOT
            truth = bool(value)
            if isinstance(node.op, ast.And) and not truth:
                return value
            if isinstance(node.op, ast.Or) and truth:
                return value
            last = value
        return last

    def _compare(self, node: ast.Compare) -> object:
        left = self(node.left)
        if left is CANNOT:
            return CANNOT
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self(right_node)
            if right is CANNOT:
                return CANNOT
            if isinstance(op, ast.Is | ast.IsNot):
                result = _COMPARE[type(op)](left, right)
            elif isinstance(op, ast.In | ast.NotIn):
                if not (_plain(left) and (type(right) in (tuple, list, str, set, frozenset)
                                          or type(right) is dict)):
                    return CANNOT
                if type(right) is not str and len(right) > _MAX_ITEMS:  # type: ignore[arg-type]
                    return CANNOT
                if type(right) in (set, frozenset, dict) and not all(
                        _plain(item) for item in right):  # type: ignore[attr-defined]
                    return CANNOT
                result = _COMPARE[type(op)](left, right)
            else:
                if not (_plain(left) and _plain(right)):
                    return CANNOT
                result = _COMPARE[type(op)](left, right)
            if type(result) is not bool:
                try:
                    result = bool(result)  # a NumPy bool
                except Exception:
                    return CANNOT
            if not result:
                return False
            left = right
        return True

    def _call(self, node: ast.Call) -> object:
        function = self(node.func)
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
            return CANNOT
        if function is len and len(node.args) == 1:
            value = self(node.args[0])
            return CANNOT if value is CANNOT else _length(value)
        if function is isinstance and len(node.args) == 2:
            value, kinds = self(node.args[0]), self(node.args[1])
            if value is CANNOT or kinds is CANNOT:
                return CANNOT
            classes: Any = kinds if type(kinds) is tuple else (kinds,)
            if not all(isinstance(kind, type) and library_type(kind) for kind in classes):
                return CANNOT  # a user's metaclass could run code in __instancecheck__
            try:
                return issubclass(type(value), classes)
            except TypeError:
                return CANNOT
        if function is type and len(node.args) == 1:
            value = self(node.args[0])
            return CANNOT if value is CANNOT else type(value)
        return CANNOT
