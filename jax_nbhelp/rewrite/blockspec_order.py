"""Fix: ``pl.BlockSpec(index_map, block_shape)`` in the older order becomes
``pl.BlockSpec(block_shape, index_map)``, in every such call of a cell.

Pallas swapped BlockSpec's first two parameters (block_shape first since mid-2024, the old
order deprecated, then removed). Code written for the old order passes the index map where
the block shape goes; JAX then iterates over the function: ``TypeError: 'function' object is
not iterable``. Only calls whose first argument is a ``lambda`` are swapped: that one is an
index map for certain.
"""

from __future__ import annotations

import libcst as cst

from ._cst import CountingTransformer, dotted_name, transform
from .magics import rewrite_cell

__all__ = ["is_old_order", "swap_block_spec_arguments"]


def is_old_order(call: cst.Call) -> bool:
    name = (dotted_name(call.func) or "").rsplit(".", 1)[-1]
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return (name == "BlockSpec" and len(positional) >= 2
            and call.args[0] is positional[0] and call.args[1] is positional[1]
            and isinstance(positional[0].value, cst.Lambda)
            and not isinstance(positional[1].value, cst.Lambda))


class _Swap(CountingTransformer):
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not is_old_order(updated_node):
            return updated_node
        self.changed += 1
        first, second, *rest = updated_node.args
        swapped = [first.with_changes(value=second.value),
                   second.with_changes(value=first.value), *rest]
        return updated_node.with_changes(args=swapped)


def _python(code: str) -> str:
    return transform(code, _Swap(),
                     "The cell has no BlockSpec(lambda ..., shape) call to reorder.").code


def swap_block_spec_arguments(source: str) -> str:
    """Every ``BlockSpec(lambda ..., block_shape)`` of the cell in the current order. Raises
    :class:`CannotRewrite`."""
    return rewrite_cell(source, _python)
