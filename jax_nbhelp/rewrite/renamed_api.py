"""Fix: spell a JAX name or keyword the way the installed release does.

A notebook written for another JAX release asks for ``pltpu.TPUMemorySpace`` (now
``pltpu.MemorySpace``) or passes ``pl.kernel(out_shape=...)`` (now ``out_type=``). The
diagnosis decides what the new spelling is and which spellings name the JAX module or
function; this only changes the matching attribute or keyword on the failing line.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ._cst import dotted_name, innermost, locate, rewrite_calls
from ._lines import unparsable_message
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["rename_attribute", "rename_attribute_python", "rename_keyword",
           "rename_keyword_python"]

Names = Callable[[str], bool]


class _Attributes(cst.BatchableCSTVisitor):
    """``owner.old`` attributes, with their lines, their statement's lines and the call
    they are the function of (if any)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, owner: Names, old: str) -> None:
        super().__init__()
        self.owner = owner
        self.old = old
        self.found: list[tuple[cst.Attribute, range, range, cst.Call | None]] = []
        self._statements: list[range] = []
        self._calls: dict[int, cst.Call] = {}

    def _lines(self, node: cst.CSTNode) -> range:
        pos = self.get_metadata(PositionProvider, node)
        return range(pos.start.line, pos.end.line + 1)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._statements.append(self._lines(node))

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._statements.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self._calls[id(node.func)] = node

    def visit_Attribute(self, node: cst.Attribute) -> None:
        base = dotted_name(node.value)
        if node.attr.value == self.old and base is not None and self.owner(base):
            statement = self._statements[-1] if self._statements else self._lines(node)
            self.found.append((node, self._lines(node), statement, self._calls.get(id(node))))


def _check_call(call: cst.Call | None, keywords: Collection[str], spelled: str,
                lineno: int) -> None:
    """Refuse unless ``call`` passes at most one positional argument and only ``keywords``."""
    if call is None:
        raise CannotRewrite(
            f"{spelled} on line {lineno} is not called, and the replacement is a function, "
            "not a class: only a call can be rewritten."
        )
    positional = [arg for arg in call.args if arg.keyword is None]
    extra = sorted(arg.keyword.value for arg in call.args
                   if arg.keyword is not None and arg.keyword.value not in keywords)
    if len(positional) > 1 or any(arg.star for arg in call.args) or extra:
        what = f"{', '.join(extra)}=" if extra else "more than one positional argument"
        raise CannotRewrite(
            f"The {spelled}(...) call on line {lineno} passes {what}, which the replacement "
            f"takes differently; it accepts {', '.join(sorted(keywords))}= by keyword."
        )


def rename_attribute_python(source: str, lineno: int, *, owner: Names, old: str, new: str,
                            call_keywords: Collection[str] | None = None,
                            members: Mapping[str, str] | None = None,
                            added: Mapping[str, str] | None = None) -> str:
    """Like :func:`rename_attribute` for plain Python (no IPython syntax)."""
    locate(source, lineno)  # parses, and refuses a line outside the code
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError as err:
        raise CannotRewrite(unparsable_message(source, err.editor_line)) from None
    visitor = _Attributes(owner, old)
    wrapper.visit_batched([visitor])
    # The frame names the attribute's own line; a traceback that names the statement's
    # first line instead still finds it.
    chosen = ([item for item in visitor.found if lineno in item[1]]
              or [item for item in visitor.found if lineno in item[2]])
    if not chosen:
        raise CannotRewrite(f"Line {lineno} has no .{old} of the JAX module to rename.")
    if call_keywords is None:
        # The old name fails wherever the cell uses it: every use is renamed, not only the
        # one that raised first.
        chosen = visitor.found
    if call_keywords is not None:
        for _, _, _, call in chosen:
            _check_call(call, call_keywords, f".{old}", lineno)
    targets = {id(node) for node, _, _, _ in chosen}
    calls = {id(call) for _, _, _, call in chosen if call is not None}
    if added and len(calls) != len(chosen):
        raise CannotRewrite(f".{old} is used on line {lineno} without a call, and its "
                            f"replacement needs {', '.join(f'{k}=' for k in added)} in the call")
    extra = [cst.Arg(keyword=cst.Name(k), value=cst.parse_expression(v),
                     equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                           whitespace_after=cst.SimpleWhitespace("")))
             for k, v in (added or {}).items()]
    replacement = cst.parse_expression(new)
    moved = {member: cst.parse_expression(spelled) for member, spelled in (members or {}).items()}

    class Rename(cst.CSTTransformer):
        def leave_Attribute(self, original_node: cst.Attribute,
                            updated_node: cst.Attribute) -> cst.BaseExpression:
            if id(original_node) in targets:
                return replacement
            if id(original_node.value) in targets and original_node.attr.value in moved:
                return moved[original_node.attr.value]  # old.ANY -> where ANY lives now
            return updated_node

        def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
            if id(original_node) not in calls or not extra:
                return updated_node
            args = list(updated_node.args)
            if args:
                args[-1] = args[-1].with_changes(comma=cst.Comma(
                    whitespace_after=cst.SimpleWhitespace(" ")))
            return updated_node.with_changes(args=[*args, *extra])

    return wrapper.module.visit(Rename()).code


def rename_attribute(source: str, lineno: int, *, owner: Names, old: str, new: str,
                     call_keywords: Collection[str] | None = None,
                     members: Mapping[str, str] | None = None,
                     added: Mapping[str, str] | None = None) -> str:
    """Replace ``<module>.old`` with the expression ``new``, on 1-based ``lineno`` and
    everywhere else the cell uses it; ``<module>.old.member`` for a member in ``members``
    becomes that member's expression instead.

    ``owner`` says whether a dotted name (``pltpu``, ``jax.experimental.pallas.tpu``) names
    the module. With ``call_keywords``, only calls on that line passing at most one
    positional argument and only those keywords are rewritten. With ``added``, each call
    of it gets those keywords too (``shuffle(k, x)`` -> ``permutation(k, x,
    independent=True)``). Raises :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: rename_attribute_python(
        code, lineno, owner=owner, old=old, new=new, call_keywords=call_keywords,
        members=members, added=added))


def _called(call: cst.Call, function: Names) -> bool:
    """Whether ``call`` calls ``function``, directly or as ``functools.partial(function, ...)``."""
    name = dotted_name(call.func)
    if name is None:
        return False
    if function(name):
        return True
    first = call.args[0] if call.args else None
    return (name.rsplit(".", 1)[-1] == "partial" and first is not None
            and first.keyword is None and not first.star
            and function(dotted_name(first.value) or ""))


def _passes(call: cst.Call, keyword: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == keyword for arg in call.args)


def rename_keyword_python(source: str, lineno: int, *, function: Names, old: str,
                          new: str, method: str | None = None) -> str:
    """Like :func:`rename_keyword` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    sites = innermost([site for site in located.calls_at(lineno)
                       if (_called(site.node, function) or _method(site.node, method))
                       and _passes(site.node, old)])
    if not sites:
        raise CannotRewrite(f"Line {lineno} has no call of the JAX function passing {old}=.")
    if any(_passes(site.node, new) for site in sites):
        raise CannotRewrite(f"The call on line {lineno} passes both {old}= and {new}=.")

    def change(call: cst.Call) -> cst.Call:
        args = [arg.with_changes(keyword=cst.Name(new))
                if arg.keyword is not None and arg.keyword.value == old else arg
                for arg in call.args]
        return call.with_changes(args=args)

    return rewrite_calls(located.module, [site.node for site in sites], change).code


def rename_keyword(source: str, lineno: int, *, function: Names, old: str, new: str,
                   method: str | None = None) -> str:
    """Pass ``new=`` instead of ``old=`` in the calls of ``function`` covering ``lineno``.

    ``function`` says whether a dotted name (``pl.kernel``) names the JAX function; a
    ``functools.partial(pl.kernel, old=...)`` counts as its call. With ``method``, a call of
    an array's method by that name counts too, whatever the array's expression
    (``(a - b).sum(dim=1)``). Raises :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: rename_keyword_python(
        code, lineno, function=function, old=old, new=new, method=method))


def _method(call: cst.Call, method: str | None) -> bool:
    return (method is not None and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == method)
