"""Shrink the literal array shapes of a cell, to check a long interpreted kernel quickly.

A tutorial's kernel is sized for a chip: ``x = jnp.ones((4096, 4096))`` with 128-wide
blocks is 32,768 grid steps, minutes in TPU interpret mode. The same kernel on two blocks per
dimension runs every code path of it (the first and the last block, the accumulation over
the reduction axis) in seconds. Only literal shape tuples of array constructors are
changed, and only dimensions that are a whole number of more than two blocks.
"""

from __future__ import annotations

import ast

from jax_nbhelp.rewrite import CannotRewrite

# Constructors whose shape is a literal tuple: jnp.ones((m, n)), jax.random.normal(key, (m, n)).
_MAKERS = frozenset({"ones", "zeros", "full", "empty", "normal", "uniform", "randint",
                     "bernoulli", "truncated_normal"})


def _shape_tuples(tree: ast.AST) -> list[ast.Tuple]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else (
            node.func.id if isinstance(node.func, ast.Name) else "")
        if name not in _MAKERS:
            continue
        for arg in [*node.args, *(k.value for k in node.keywords if k.arg == "shape")]:
            if isinstance(arg, ast.Tuple) and arg.elts and all(
                    isinstance(e, ast.Constant) and type(e.value) is int for e in arg.elts):
                found.append(arg)
    return found


def smaller(dim: int, blocks: tuple[int, ...]) -> int:
    """``dim`` cut to two blocks of the largest block size that divides it (else ``dim``)."""
    for block in sorted(blocks, reverse=True):
        if dim % block == 0 and dim // block > 2:
            return 2 * block
    return dim


def shrink_shapes(source: str, blocks: tuple[int, ...]) -> str:
    """``source`` with its literal array shapes cut to two blocks per dimension."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise CannotRewrite("the cell is not plain Python jax_nbhelp can edit") from exc
    lines = source.splitlines(keepends=True)
    changed = False
    # Right to left, so earlier offsets on a line stay valid.
    for node in sorted(_shape_tuples(tree), key=lambda n: (n.lineno, n.col_offset),
                       reverse=True):
        if node.end_lineno != node.lineno:
            continue
        dims = [e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, int)]
        new = [smaller(d, blocks) for d in dims]
        if new == dims:
            continue
        raw = lines[node.lineno - 1].encode()
        start, end = node.col_offset, node.end_col_offset or node.col_offset
        text = "(" + ", ".join(map(str, new)) + ("," if len(new) == 1 else "") + ")"
        lines[node.lineno - 1] = (raw[:start] + text.encode() + raw[end:]).decode()
        changed = True
    if not changed:
        raise CannotRewrite("the cell has no literal array shape of more than two blocks "
                            "to make smaller")
    return "".join(lines)
