"""A chained comparison of arrays used as a value (``0 <= x < 1``), rewritten as the
comparisons it chains joined by ``&`` (``(0 <= x) & (x < 1)``): Python's chain asks whether
the first comparison is true before it makes the next, which an array of several elements or
a tracer cannot answer; ``&`` joins them element by element, as the chain reads. Shared by
JNH301 (a tracer) and JNH504 (an array of several elements).
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
            ast.NotEq: "!="}
_PLAIN = (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.BinOp, ast.UnaryOp,
          ast.Slice, ast.Tuple, ast.operator, ast.unaryop, ast.expr_context)


def _plain(node: ast.expr) -> bool:
    """Reads values and computes nothing that could differ when written twice: names,
    attributes, subscripts, constants and arithmetic of those."""
    return all(isinstance(n, _PLAIN) for n in ast.walk(node))


def _in_test(tree: ast.Module, node: ast.expr) -> bool:
    """Whether ``node`` is part of an if's, while's, assert's or conditional expression's
    test (there the chain's one True or False is what was asked)."""
    for parent in ast.walk(tree):
        if isinstance(parent, ast.If | ast.While | ast.IfExp | ast.Assert) and any(
                inner is node for inner in ast.walk(parent.test)):
            return True
    return False


def chains_on_line(tree: ast.Module, lineno: int) -> list[ast.Compare]:
    """The chained comparisons on line ``lineno`` used as values."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Compare)
            and len(node.ops) > 1 and node.lineno == lineno == node.end_lineno
            and not _in_test(tree, node)]


def chained_comparison_fix(ctx: ErrorContext, location: Location, tree: ast.Module,
                           code: str, test: ast.Compare) -> Fix | None:
    """``a < b < c`` as ``(a < b) & (b < c)``, where the chain is a value on one line and
    the operands written twice compute nothing."""
    if test.lineno != test.end_lineno or not all(_plain(n) for n in test.comparators) \
            or _in_test(tree, test):
        return None
    operands = [test.left, *test.comparators]
    pieces = []
    for i, op in enumerate(test.ops):
        symbol = _SYMBOLS.get(type(op))
        if symbol is None:
            return None
        pieces.append(f"({_tracing.segment(code, operands[i])} {symbol} "
                      f"{_tracing.segment(code, operands[i + 1])})")
    before = _tracing.segment(code, test)
    after = " & ".join(pieces)
    return rewrite_fix(
        ctx, location, _tracing.replacing(test, before, after),
        label=f"Use {after}" if len(after) <= 32 else "Join the comparisons with &",
        summary=(f"Rewrite `{before}` on line {test.lineno} as `{after}`: Python's chained "
                 "comparison asks True or False of the first comparison before it makes the "
                 "next; `&` joins the comparisons element by element. Then re-run."),
        safety=("Same values: true where every comparison of the chain holds, per element, "
                "as the chain reads; a JAX boolean instead of a Python one."),
        safe=True)
