"""Fix: a ``jax.random`` sampler given a batch of keys draws once per key under ``jax.vmap``.

``jax.random.normal(keys, (3,))`` with ``keys`` of shape ``(4,)`` fails: samplers take one
key. ``jax.vmap(lambda key: jax.random.normal(key, (3,)))(keys)`` calls the sampler once per
key and stacks the draws along a new leading axis, which is what passing four keys asks for.
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name, innermost, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["vmap_over_keys", "vmap_over_keys_python"]


def _key_argument(call: cst.Call) -> int | None:
    """The index of the argument that passes the key (the first positional, or key=)."""
    for index, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == "key":
            return index
    if call.args and call.args[0].keyword is None and not call.args[0].star:
        return 0
    return None


def _names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    node.visit(Names())
    return found


def _without_shape(call: cst.Call) -> cst.Call:
    """The call asking for one value: its shape (the second positional argument, or
    ``shape=``) becomes ``()``."""
    args = list(call.args)
    positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
    named = [i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == "shape"]
    index = named[0] if named else (positional[1] if len(positional) > 1 else None)
    if index is None:
        raise CannotRewrite("the call passes no shape to make one value of")
    args[index] = args[index].with_changes(value=cst.Tuple([]))
    return call.with_changes(args=args)


def vmap_over_keys_python(source: str, lineno: int, sampler: str, jax: str = "jax",
                          one_value: bool = False, out_axes: int = 0) -> str:
    """Like :func:`vmap_over_keys` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    targets = [site for site in innermost(located.calls_at(lineno))
               if (dotted_name(site.node.func) or "").rsplit(".", 1)[-1] == sampler
               and _key_argument(site.node) is not None]
    if len(targets) != 1:
        raise CannotRewrite(f"Line {lineno} has no single {sampler}(key, ...) call to map "
                            "over the keys.")
    call = targets[0].node
    index = _key_argument(call)
    assert index is not None
    keys = call.args[index].value
    taken = _names(call)
    parameter = next(name for name in ("key", "k", "one_key", "key_") if name not in taken)
    args = list(call.args)
    args[index] = args[index].with_changes(value=cst.Name(parameter))
    body = call.with_changes(args=args)
    if one_value:
        body = _without_shape(body)

    def change(_: cst.Call) -> cst.BaseExpression:
        lam = cst.Lambda(
            params=cst.Parameters(params=[cst.Param(cst.Name(parameter))]),
            body=body,
        )
        options = [cst.Arg(cst.Integer(str(out_axes)), keyword=cst.Name("out_axes"),
                           equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                 whitespace_after=cst.SimpleWhitespace("")))
                   ] if out_axes else []
        mapped = cst.Call(func=cst.parse_expression(f"{jax}.vmap"),
                          args=[cst.Arg(lam), *options])
        return cst.Call(func=mapped, args=[cst.Arg(keys)])

    return rewrite_calls(located.module, [call], change).code


def vmap_over_keys(source: str, lineno: int, sampler: str, jax: str = "jax",
                   one_value: bool = False, out_axes: int = 0) -> str:
    """Map the ``sampler`` call at 1-based ``lineno`` over its batch of keys with
    ``jax.vmap`` (``jax`` is how the cell names the module); ``one_value`` leaves the
    call's shape out, so each key draws one value (the batch is the shape asked for);
    ``out_axes`` is where the batch axis goes in the result (``split`` unpacked: 1).

    ``source`` is a notebook cell (IPython syntax allowed) or a module. Raises
    :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno,
                        lambda code: vmap_over_keys_python(code, lineno, sampler, jax,
                                                           one_value, out_axes))
