"""A Pallas op that looks up block sizes tuned for the TPU generation, on a runtime without one.

JAX's ragged paged attention (``jax.experimental.pallas.ops.tpu.ragged_paged_attention``)
chooses its block sizes from a table tuned per TPU generation when the call does not pass
them. On a CPU there is no generation to look up, and it raises (jax 0.8.3 to 0.10.2)::

    NotImplementedError: TPU version must be 4 or higher.

The message reads like an old TPU; the runtime has none at all. The op takes the values it
would have looked up (``num_kv_pages_per_block``, ``num_queries_per_block``), so the card
gives the user's call with them, sized from the call's own arrays as JAX's table does for a
generation it has no tuned entry for. Measured on jax 0.10.2: with them the op gets past the
lookup, and TPU interpret mode then stops inside the kernel at a reshaped ref (JNH212), so on
a CPU it does not run in this release; on a TPU v4 or later it runs either way.

Reports: of 14 of JAX's shipped Pallas ops called on a CPU runtime, it is the one that
fails before interpret mode can help. Projects built on JAX meet the same lookup:
marin-community/levanter#1047 gates the TPU op and falls back to a reference off TPU;
marin-community/marin#7085 (vLLM's TPU port of the op) fails on a generation its table of
default block sizes lacks, and the fix asked for is block sizes that fit it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import NO_FIX, Example
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.core.session import current_shell
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.library_call import LibraryCall, calls_on
from jax_nbhelp.jaxapi import interpret_modes

CODE = "JNH407"
TITLE = "Op looks up block sizes for a TPU generation, and there is no TPU"
MESSAGE = "TPU version must be"

_RPA = "jax.experimental.pallas.ops.tpu.ragged_paged_attention"
_SETUP = f"""\
from {_RPA} import ragged_paged_attention
q = jnp.ones((16, 4, 128))  # 16 query tokens, 4 heads
kv_pages = jnp.ones((8, 16, 4, 128))  # 8 pages of 16 tokens, 2 K and 2 V heads
kv_lens = jnp.array([32, 48], jnp.int32)
page_indices = jnp.arange(8, dtype=jnp.int32).reshape(2, 4)
cu_q_lens = jnp.array([0, 8, 16], jnp.int32)
num_seqs = jnp.array([2], jnp.int32)"""

EXAMPLES = (
    Example(
        setup=(_SETUP,),
        failing=("out = ragged_paged_attention(q, kv_pages, kv_lens, page_indices, cu_q_lens, "
                 "num_seqs)"),
        fix=NO_FIX,
        check="True",
        requires=(_RPA,),
    ),
)

WHY = _entry.prose("""
Some of JAX's Pallas ops choose how to cut the work into blocks from a table of sizes tuned
for each TPU generation, and ask the device which TPU it is. A CPU device is no TPU
generation at all, so the lookup fails before any kernel is built, and interpret mode cannot
help: it simulates a kernel, not a chip to ask. The op accepts the block sizes as arguments;
passed, it asks nothing.
""")


@dataclass(frozen=True)
class _Op:
    """What an op looks up, and the values JAX's table gives a generation it has not tuned."""

    parameters: tuple[str, ...]
    values: Callable[[LibraryCall], tuple[int, ...] | None]


def _rpa_values(call: LibraryCall) -> tuple[int, ...] | None:
    pages, tokens = call.shape("page_indices"), call.shape("q")
    if not pages or not tokens:
        return None
    return min(pages[-1], 128), min(tokens[0], 32)


_OPS = {"ragged_paged_attention": _Op(("num_kv_pages_per_block", "num_queries_per_block"),
                                      _rpa_values)}


def _own_link(ctx: ErrorContext) -> Link | None:
    for link in ctx.chain:
        if link.message.startswith(MESSAGE) and any(
                "tuned" in frame.function or "tuned" in frame.filename for frame in link.frames):
            return link
    return None


TRIGGERS = (MESSAGE,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = _own_link(ctx)
    if link is None:
        return None
    location = ctx.deepest_user_location()
    namespace = getattr(current_shell(), "user_ns", None)
    calls = calls_on(location.line, namespace) if (
        location is not None and isinstance(namespace, dict)) else []
    call = next((c for c in calls if c.name in _OPS), None)
    platform = interpret_modes.default_platform() or "cpu"
    device = f"a {interpret_modes.platform_name(platform)} device"
    line = f"`{location.line.strip()}`" if location is not None and location.line else "Code"
    op = f"{call.spelled}()" if call is not None else "a Pallas op"
    explanation = (
        f"{line}{_entry.at(location)} calls {op}, which looks up block sizes tuned for the "
        f"TPU generation it runs on. This runtime's default device is {device}, not a TPU of "
        f"any generation, so the lookup fails: '{link.summary}' does not mean an old TPU."
    )
    notes = ["On a TPU runtime (v4 or later) the call runs unchanged, with the tuned sizes."]
    if call is not None:
        known = _OPS[call.name]
        values = known.values(call)
        missing = [p for p in known.parameters if p not in call.passed]
        if values is not None and missing:
            given = ", ".join(f"{p}={v}" for p, v in zip(known.parameters, values, strict=True)
                              if p in missing)
            notes.append(
                f"It asks nothing when the call passes the sizes: add {given} to the call "
                "(JAX's own choice for a TPU generation it has no tuned sizes for, capped by "
                "this call's sequence pages and query tokens). Block sizes decide how the work "
                "is cut, not what is computed.")
        notes.append(
            "On a CPU it then needs interpret mode (`%jax_nbhelp interpret on`). Measured on "
            "jax 0.10.2: TPU interpret mode then stops inside the op's kernel at a reshaped "
            "ref (JNH212, a gap in the interpreter), so there the op runs only on a TPU.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=(), notes=notes,
                            error=link.summary)
