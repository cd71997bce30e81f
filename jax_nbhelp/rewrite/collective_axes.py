"""Fix: drop ``collective_axes`` from a ``run_scoped`` call made outside a kernel.

``run_scoped(..., collective_axes=...)`` only lowers inside a Pallas kernel;
under plain ``jax.jit`` it fails with "run_scoped lowering outside of Pallas
does not support collective_axes.".  Outside a kernel there is nothing to share
across cores, so the argument can simply go.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import libcst as cst

from ._args import drop_argument
from ._cst import CallSite, Located, dotted_name, innermost, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["KEYWORD", "remove_collective_axes", "remove_collective_axes_python"]

KEYWORD = "collective_axes"


def _has_keyword(call: cst.Call) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == KEYWORD for arg in call.args)


def _has_double_star(call: cst.Call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def _last_name(expr: cst.BaseExpression) -> str:
    return (dotted_name(expr) or "").rsplit(".", 1)[-1]


def _mentions(call: cst.Call, names: frozenset[str]) -> bool:
    # Covers `pl.run_scoped(...)` and `partial(pl.run_scoped, ...)`.
    named = [call.func, *(arg.value for arg in call.args[:1] if not arg.keyword)]
    return any(_last_name(expr) in names for expr in named)


class _Aliases(cst.CSTVisitor):
    """Names the code binds to run_scoped: `import ... as rs`, `rs = pl.run_scoped`."""

    def __init__(self) -> None:
        self.names = {"run_scoped"}

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        asname = node.asname
        if asname and isinstance(asname.name, cst.Name) and _last_name(node.name) in self.names:
            self.names.add(asname.name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if _last_name(value) in self.names or (
            isinstance(value, cst.Call) and _mentions(value, frozenset(self.names))
        ):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.names.add(target.target.value)


def _run_scoped_names(module: cst.Module) -> frozenset[str]:
    aliases = _Aliases()
    module.visit(aliases)
    return frozenset(aliases.names)


def _pick(
    sites: list[CallSite], wanted: Callable[[cst.Call], bool], names: frozenset[str]
) -> list[CallSite]:
    matches = [site for site in sites if wanted(site.node)]
    # Any call with the keyword qualifies, since run_scoped may hide behind a
    # name we can't trace; but when a recognisable run_scoped is among them, a
    # nested call that merely shares the keyword (e.g. a Mosaic GPU copy) is
    # not the one to touch.
    by_name = [site for site in matches if _mentions(site.node, names)]
    return innermost(by_name or matches)


def _without_keyword(call: cst.Call) -> cst.Call:
    while True:
        index = next(
            (
                i
                for i, arg in enumerate(call.args)
                if arg.keyword is not None and arg.keyword.value == KEYWORD
            ),
            None,
        )
        if index is None:
            return call
        call = drop_argument(call, index)


def _mapping_without_keyword(value: cst.BaseExpression) -> cst.BaseExpression:
    code = cst.Module(body=[]).code_for_node(value)
    needs_parens = not (
        isinstance(value, cst.Name | cst.Attribute | cst.Call | cst.Subscript) or value.lpar
    )
    source = f"({code})" if needs_parens else code
    # `k`/`v` can't clash with names in `source`: the outermost iterable of a
    # comprehension is evaluated in the enclosing scope.
    return cst.parse_expression(f'{{k: v for k, v in {source}.items() if k != "{KEYWORD}"}}')


def _filter_double_star(call: cst.Call) -> cst.Call:
    args = [
        arg.with_changes(value=_mapping_without_keyword(arg.value)) if arg.star == "**" else arg
        for arg in call.args
    ]
    return call.with_changes(args=args)


def _choose(located: Located, lineno: int) -> tuple[list[CallSite], Callable[[cst.Call], cst.Call]]:
    at_line = located.calls_at(lineno)
    # Python 3.11 points at the decorator line for `@partial(run_scoped, ...)`;
    # other versions and tools may name the `def` line below it instead.
    decorated = located.decorator_calls_at(lineno)
    names = _run_scoped_names(located.module)
    for sites in (at_line, decorated):
        if chosen := _pick(sites, _has_keyword, names):
            return chosen, _without_keyword
    for sites in (at_line, decorated):
        if chosen := _pick(sites, _has_double_star, names):
            return chosen, _filter_double_star
    if any(arg.star == "*" for site in at_line + decorated for arg in site.node.args):
        reason = "the axes may come in through *args"
    else:
        reason = "the axes must be set somewhere else, for example in a functools.partial"
    raise CannotRewrite(
        f"Line {lineno} has no call that passes {KEYWORD}= or **kwargs, so there is "
        f"nothing to remove there; {reason}. Remove {KEYWORD} where it is set."
    )


def remove_collective_axes_python(source: str, lineno: int) -> str:
    """Like :func:`remove_collective_axes` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    targets, change = _choose(located, lineno)
    return rewrite_calls(located.module, [site.node for site in targets], change).code


@lru_cache(maxsize=64)  # pure in its arguments; the same cell fails again and again
def remove_collective_axes(source: str, lineno: int) -> str:
    """Remove ``collective_axes`` from the ``run_scoped`` call at 1-based ``lineno``.

    ``source`` is a notebook cell (IPython magics allowed) or a module.  The
    innermost call covering ``lineno`` that passes ``collective_axes=`` loses
    that keyword; failing that, its ``**mapping`` is filtered to drop the key.
    Everything else is kept byte for byte.  Raises :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: remove_collective_axes_python(code, lineno))
