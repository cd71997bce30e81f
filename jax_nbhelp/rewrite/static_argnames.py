"""Fix: mark parameters of a jitted function static, where the function is jitted.

A Python flag or size passed to a jitted function is traced like an array, so
``if flag:`` or ``jnp.arange(n)`` inside it fails.  Naming the parameter in
``static_argnames`` makes jit pass the Python value through (and compile once
per distinct value).  The jit may be spelled in four ways, all handled here:

* ``@jax.jit`` / ``@jit`` on the ``def``;
* ``@jax.jit(static_argnames=...)`` (newer JAX) on the ``def``;
* ``@partial(jax.jit, ...)`` / ``@functools.partial(jax.jit, ...)`` on the ``def``;
* a call ``jax.jit(f, ...)`` anywhere, e.g. ``g = jax.jit(f)`` or ``jax.jit(f)(x)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ._cst import dotted_name
from ._lines import split_lines, unparsable_message
from .errors import CannotRewrite
from .magics import rewrite_cell
from .transforms import SIGNATURE_KEEPING

__all__ = ["add_static_argnames", "add_static_argnames_python", "is_jit_expression"]

KEYWORD = "static_argnames"


def is_jit_expression(expr: cst.BaseExpression) -> bool:
    """``jit``, ``jax.jit`` or any ``<module>.jit``."""
    name = dotted_name(expr)
    return name is not None and (name == "jit" or name.endswith(".jit"))


def _is_partial(expr: cst.BaseExpression) -> bool:
    name = dotted_name(expr)
    return name is not None and (name == "partial" or name.endswith(".partial"))


def _names_function(expr: cst.BaseExpression, function: str) -> bool:
    if isinstance(expr, cst.Call) and expr.args:
        wrapper = dotted_name(expr.func) or ""
        first = expr.args[0]
        return (wrapper.rsplit(".", 1)[-1] in SIGNATURE_KEEPING and first.keyword is None
                and not first.star and _names_function(first.value, function))
    if function == "<lambda>":  # a lambda's code is named so: the lambda jit wraps
        return isinstance(expr, cst.Lambda)
    name = dotted_name(expr)
    return name is not None and (name == function or name.endswith("." + function))


@dataclass(frozen=True)
class _Target:
    node: cst.FunctionDef | cst.Call
    first_line: int
    last_line: int
    description: str


class _TargetCollector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, function: str) -> None:
        super().__init__()
        self.function = function
        self.defs: list[_Target] = []
        self.calls: list[_Target] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value != self.function:
            return
        # The header runs from the first decorator to the `def` line: JAX names the first
        # decorator's line, tracebacks the `def` line.
        def_line = self.get_metadata(PositionProvider, node.name).start.line
        start = min([def_line, *(self.get_metadata(PositionProvider, d).start.line
                                 for d in node.decorators)])
        self.defs.append(_Target(node, start, def_line, f"def {self.function}"))

    def visit_Call(self, node: cst.Call) -> None:
        if not (is_jit_expression(node.func) and node.args):
            return
        first = node.args[0]
        if first.keyword is None and not first.star and _names_function(first.value,
                                                                        self.function):
            pos = self.get_metadata(PositionProvider, node)
            self.calls.append(_Target(node, pos.start.line, pos.end.line,
                                      f"{dotted_name(node.func)}({self.function})"))


def jit_decorator(func: cst.FunctionDef, where: str) -> tuple[list[cst.Decorator], int]:
    """``func``'s decorators and the index of its one jax.jit; refused when there is not
    exactly one (``where`` names the function for the message)."""
    index = _jit_decorator(func)
    if index is None:
        raise CannotRewrite(f"{where} is not decorated with jax.jit exactly once.")
    return list(func.decorators), index


def _jit_decorator(func: cst.FunctionDef) -> int | None:
    """Index of the one decorator that applies jit, or None."""
    found = [
        index
        for index, decorator in enumerate(func.decorators)
        if is_jit_expression(decorator.decorator)
        or (isinstance(decorator.decorator, cst.Call)
            and (is_jit_expression(decorator.decorator.func)
                 or (_is_partial(decorator.decorator.func) and decorator.decorator.args
                     and is_jit_expression(decorator.decorator.args[0].value))))
    ]
    if len(found) != 1:
        return None
    return found[0]


def _quote(existing: Sequence[cst.BaseExpression]) -> str:
    for value in existing:
        if isinstance(value, cst.SimpleString):
            return value.quote[-1]
    return '"'


def _string(name: str, quote: str) -> cst.SimpleString:
    return cst.SimpleString(f"{quote}{name}{quote}")


_Item = TypeVar("_Item", cst.Arg, cst.Element)


def _append(items: Sequence[_Item], new: _Item,
            opening: cst.BaseParenthesizableWhitespace) -> list[_Item]:
    """``items`` plus ``new`` at the end, laid out like the items already there."""
    if not items:
        return [new]
    result = list(items)
    last = result[-1]
    between: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace(" ")
    before_last = result[-2].comma if len(result) > 1 else None
    previous_gap = before_last.whitespace_after if isinstance(before_last, cst.Comma) else opening
    if isinstance(previous_gap, cst.ParenthesizedWhitespace):
        between = previous_gap  # one item per line: the new one gets its own line
    if isinstance(last.comma, cst.Comma):
        # A trailing comma stays trailing, with the whitespace that led to the bracket.
        new = new.with_changes(comma=last.comma)
    result[-1] = last.with_changes(comma=cst.Comma(whitespace_after=between))
    result.append(new)
    return result


def _with_names(value: cst.BaseExpression, names: Sequence[str], where: str) -> cst.BaseExpression:
    """The ``static_argnames=`` value ``value`` with ``names`` added."""
    if isinstance(value, cst.SimpleString):
        elements: Sequence[cst.BaseElement] = [cst.Element(value.with_changes(lpar=[], rpar=[]))]
        container: cst.Tuple | cst.List = cst.Tuple(elements=[])
    elif isinstance(value, (cst.Tuple, cst.List)):
        elements = value.elements
        container = value
        only = elements[0] if len(elements) == 1 else None
        if (isinstance(container, cst.Tuple) and only is not None
                and isinstance(only.comma, cst.Comma)
                and not any(isinstance(paren.whitespace_before, cst.ParenthesizedWhitespace)
                            for paren in container.rpar)):
            # ("n",): that comma only made it a tuple, it is not a layout choice.
            elements = [only.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    else:
        raise CannotRewrite(
            f"{where} sets static_argnames from an expression jax_nbhelp can't extend; add "
            f"{', '.join(repr(n) for n in names)} to it yourself."
        )
    present: list[str] = []
    for element in elements:
        literal = element.value
        if not isinstance(element, cst.Element) or not isinstance(literal, cst.SimpleString):
            raise CannotRewrite(
                f"{where} builds static_argnames with something other than plain strings; "
                f"add {', '.join(repr(n) for n in names)} to it yourself."
            )
        present.append(str(literal.evaluated_value))
    missing = [name for name in names if name not in present]
    if not missing:
        raise CannotRewrite(f"{where} already lists {', '.join(names)} in static_argnames.")
    quote = _quote([element.value for element in elements])
    items = [e for e in elements if isinstance(e, cst.Element)]
    opening: cst.BaseParenthesizableWhitespace = (
        container.lpar[0].whitespace_after if isinstance(container, cst.Tuple) and container.lpar
        else container.lbracket.whitespace_after if isinstance(container, cst.List)
        else cst.SimpleWhitespace("")
    )
    for name in missing:
        items = _append(items, cst.Element(_string(name, quote)), opening)
    if len(items) == 1 and isinstance(container, cst.Tuple):
        items = [items[0].with_changes(comma=cst.Comma())]
    if isinstance(container, cst.Tuple) and not container.lpar:
        container = container.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return container.with_changes(elements=items)


def _new_value(names: Sequence[str]) -> cst.Tuple:
    space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [cst.Element(_string(name, '"'), comma=space) for name in names]
    last = elements[-1].with_changes(comma=cst.Comma() if len(names) == 1
                                     else cst.MaybeSentinel.DEFAULT)
    return cst.Tuple(elements=[*elements[:-1], last])


def _with_keyword(call: cst.Call, names: Sequence[str], where: str) -> cst.Call:
    """``call`` with ``names`` added to its ``static_argnames=`` (created if absent)."""
    if any(arg.star == "**" for arg in call.args):
        raise CannotRewrite(
            f"{where} passes **options, which may already set static_argnames; add "
            f"{', '.join(repr(n) for n in names)} yourself."
        )
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == KEYWORD:
            args[index] = arg.with_changes(value=_with_names(arg.value, names, where))
            return call.with_changes(args=args)
    keyword = cst.Arg(
        value=_new_value(names),
        keyword=cst.Name(KEYWORD),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                              whitespace_after=cst.SimpleWhitespace("")),
    )
    return call.with_changes(args=_append(args, keyword, call.whitespace_before_args))


def _argnums_arg(call: cst.Call) -> int | None:
    """The index of ``static_argnums=`` among the call's arguments, or None."""
    return next((i for i, arg in enumerate(call.args)
                 if arg.keyword is not None and arg.keyword.value == "static_argnums"), None)


def _with_argnums(call: cst.Call, index: int, positions: Sequence[int],
                  where: str) -> cst.Call:
    """``call`` with ``positions`` added to its ``static_argnums=`` (an int or a tuple or
    list of ints). Where jit is given static_argnums, it reads static_argnames from the
    signature only when none are given: a name added there would be static only when passed
    by keyword, so the position is added instead."""
    value = call.args[index].value
    items = [value] if isinstance(value, cst.Integer) else (
        [e.value for e in value.elements] if isinstance(value, cst.Tuple | cst.List) else None)
    if items is None or not all(isinstance(item, cst.Integer) for item in items):
        raise CannotRewrite(f"{where} sets static_argnums to an expression; add "
                            f"{', '.join(map(str, positions))} to it yourself.")
    numbers = [int(item.value) for item in items]  # type: ignore[attr-defined]
    numbers += [p for p in positions if p not in numbers]
    text = f"({', '.join(map(str, numbers))}{',' if len(numbers) == 1 else ''})"
    args = list(call.args)
    args[index] = args[index].with_changes(value=cst.parse_expression(text))
    return call.with_changes(args=args)


class AddStaticArgnames(cst.CSTTransformer):
    """Adds ``names`` to the jit of one ``def`` or one ``jit(f)`` call (by node identity)."""

    def __init__(self, target: cst.CSTNode, names: Sequence[str], partial: str | None,
                 where: str, import_functools: bool = False) -> None:
        super().__init__()
        self._target = target
        self._names = tuple(names)
        self._partial = partial  # None: a bare @jit becomes @jit(static_argnames=...)
        self._where = where
        self._import_functools = import_functools

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef | cst.FlattenSentinel[cst.BaseStatement]:
        if original_node is not self._target:
            return updated_node
        decorators, index = jit_decorator(updated_node, self._where)
        expr = decorators[index].decorator
        argnums = _argnums_arg(expr) if isinstance(expr, cst.Call) else None
        if isinstance(expr, cst.Call) and argnums is not None:
            positional = [p.name.value for p in (*updated_node.params.posonly_params,
                                                 *updated_node.params.params)]
            if not all(name in positional for name in self._names):
                raise CannotRewrite(f"{self._where} sets static_argnums, and "
                                    f"{', '.join(self._names)} is not a positional parameter")
            new_expr = _with_argnums(expr, argnums, [positional.index(n) for n in self._names],
                                     self._where)
        elif isinstance(expr, cst.Call):
            new_expr = _with_keyword(expr, self._names, self._where)
        elif self._partial is None:
            new_expr = _with_keyword(cst.Call(func=expr), self._names, self._where)
        else:
            partial_call = cst.Call(func=cst.parse_expression(self._partial),
                                    args=[cst.Arg(expr)])
            new_expr = _with_keyword(partial_call, self._names, self._where)
        decorators[index] = decorators[index].with_changes(decorator=new_expr)
        rewritten = updated_node.with_changes(decorators=decorators)
        if not (self._import_functools and not isinstance(expr, cst.Call)):
            return rewritten
        # `import functools` right above the decorator, after the blank lines before it.
        statement = cst.SimpleStatementLine(
            body=[cst.Import(names=[cst.ImportAlias(name=cst.Name("functools"))])],
            leading_lines=updated_node.leading_lines,
        )
        return cst.FlattenSentinel([statement, rewritten.with_changes(leading_lines=[])])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node is not self._target:
            return updated_node
        if _argnums_arg(updated_node) is not None:
            raise CannotRewrite(f"{self._where} sets static_argnums, and jit then takes "
                                "static_argnames as given, by keyword only: add the "
                                "parameter's position to static_argnums.")
        return _with_keyword(updated_node, self._names, self._where)


def _pick(collector: _TargetCollector, lineno: int | None, function: str) -> _Target:
    jitted_defs = [t for t in collector.defs
                   if isinstance(t.node, cst.FunctionDef) and _jit_decorator(t.node) is not None]
    if lineno is None:
        candidates = jitted_defs + collector.calls
        if len(candidates) == 1:
            return candidates[0]
        if not candidates:
            raise CannotRewrite(f"The code neither decorates {function} with jax.jit nor "
                                f"calls jax.jit({function}).")
        raise CannotRewrite(f"The code applies jax.jit to {function} in {len(candidates)} "
                            "places, so jax_nbhelp can't tell which one to change.")
    for target in collector.defs:
        if target.first_line <= lineno <= target.last_line:
            if not any(t.node is target.node for t in jitted_defs):
                raise CannotRewrite(f"def {function} on line {target.last_line} is not "
                                    "decorated with jax.jit exactly once.")
            return target
    calls = [t for t in collector.calls if t.first_line <= lineno <= t.last_line]
    if len(calls) == 1:
        return calls[0]
    if calls:
        raise CannotRewrite(f"Line {lineno} calls jax.jit({function}) more than once.")
    raise CannotRewrite(f"Line {lineno} has neither a jitted def {function} nor a "
                        f"jax.jit({function}) call.")


def find_jit_target(source: str, lineno: int | None,
                    function: str) -> tuple[MetadataWrapper, _Target, str]:
    """Parse ``source`` and find where it applies jit to ``function`` (see ``_pick``).

    Returns the parsed module, the target and how to name it in a refusal. Shared by the
    rewrites that add and remove static arguments, so both find the same place.
    """
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError as err:
        raise CannotRewrite(unparsable_message(source, err.editor_line)) from None
    line_count = len(split_lines(source)) or 1
    if lineno is not None and not 1 <= lineno <= line_count:
        raise CannotRewrite(f"Line {lineno} is outside the code, which has {line_count} lines.")
    collector = _TargetCollector(function)
    wrapper.visit(collector)
    target = _pick(collector, lineno, function)
    where = (f"The jax.jit decorator of {function} (line {target.first_line})"
             if isinstance(target.node, cst.FunctionDef)
             else f"{target.description} on line {target.first_line}")
    return wrapper, target, where


def add_static_argnames_python(source: str, lineno: int | None, function: str,
                               names: Sequence[str], partial: str | None = None,
                               jit_takes_options: bool = True) -> str:
    """Like :func:`add_static_argnames` for plain Python (no IPython syntax)."""
    if not names:
        raise ValueError("names must not be empty")
    wrapper, target, where = find_jit_target(source, lineno, function)
    # Older JAX has no jax.jit(static_argnames=...) form: a bare decorator becomes
    # functools.partial(jax.jit, ...), importing functools when the caller has no name for it.
    import_functools = partial is None and not jit_takes_options
    if import_functools:
        partial = "functools.partial"
    transformer = AddStaticArgnames(target.node, names, partial, where, import_functools)
    return wrapper.module.visit(transformer).code


def add_static_argnames(source: str, lineno: int | None, function: str,
                        names: Sequence[str], partial: str | None = None,
                        jit_takes_options: bool = True) -> str:
    """Add ``names`` to ``static_argnames`` where ``source`` applies jit to ``function``.

    ``lineno`` (1-based) is any line of the jitted ``def``'s header (decorators included)
    or of the ``jax.jit(function, ...)`` call; None means the one place in ``source`` that
    jits ``function``.  A bare ``@jit`` decorator becomes ``@jit(static_argnames=...)``,
    or ``@<partial>(jit, static_argnames=...)`` when ``partial`` (such as
    ``"functools.partial"``) is given.  ``jit_takes_options=False`` says the installed JAX
    has no ``jax.jit(static_argnames=...)`` form (older releases): a bare decorator then
    becomes ``@<partial>(jit, ...)``, or ``@functools.partial(jit, ...)`` after an added
    ``import functools`` line.  ``source`` may be a notebook cell with IPython syntax.
    Raises :class:`CannotRewrite`.
    """
    return rewrite_cell(
        source,
        lambda code: add_static_argnames_python(code, lineno, function, names, partial,
                                                jit_takes_options),
    )
