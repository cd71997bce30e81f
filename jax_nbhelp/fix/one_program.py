"""Run code with run_scoped's collective axes ignored by XLA, for one run only.

Outside a Pallas kernel there is exactly one program, so "share this allocation with every
program along the axis" means "allocate it": lowering with no collective axes computes the
same result. The XLA lowering rule for run_scoped is swapped for one that drops the axes,
then the original rule is put back and JAX's caches are cleared, so nothing compiled during
the run outlives it (later runs fail exactly as before until the code is fixed).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from jax_nbhelp.jaxapi import jax_probe


def unavailable_reason() -> str | None:
    """Why this JAX cannot run code as one program, or None when it can."""
    primitive = jax_probe.run_scoped_primitive()
    table = jax_probe.xla_lowering_table()
    if primitive is None or table is None or primitive not in table:
        return "this JAX has no XLA lowering rule for run_scoped that jax_nbhelp can wrap"
    if jax_probe.clear_caches() is None:
        return "this JAX has no jax.clear_caches(), so the run could leak into later runs"
    return None


def _rule_of(entry: Any) -> Any:
    # Newer JAX stores LoweringRuleEntry(rule, inline); older stores the rule itself.
    return getattr(entry, "rule", entry)


@contextmanager
def collective_axes_ignored() -> Iterator[None]:
    """Within the block, XLA lowers run_scoped as if ``collective_axes`` were ``()``."""
    reason = unavailable_reason()
    if reason is not None:
        raise RuntimeError(reason)
    from jax._src.interpreters import mlir

    primitive = jax_probe.run_scoped_primitive()
    table = jax_probe.xla_lowering_table()
    assert table is not None
    saved = table[primitive]
    original_rule = _rule_of(saved)

    def one_program_rule(ctx: Any, *args: Any, **params: Any) -> Any:
        if "collective_axes" in params:
            params["collective_axes"] = ()
        return original_rule(ctx, *args, **params)

    mlir.register_lowering(primitive, one_program_rule)
    try:
        yield
    finally:
        table[primitive] = saved
        clear = jax_probe.clear_caches()
        if clear is not None:
            clear()
