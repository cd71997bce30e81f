"""JNH407 in a real shell: ragged paged attention asks the device for its TPU generation."""

from __future__ import annotations

import pytest
from conftest import Notebook

import jax_nbhelp

RPA = "jax.experimental.pallas.ops.tpu.ragged_paged_attention"
SETUP = """\
from jax.experimental.pallas.ops.tpu import ragged_paged_attention as rpa
q = jnp.ones((16, 4, 128))
kv_pages = jnp.ones((8, 16, 4, 128))
kv_lens = jnp.array([32, 48], jnp.int32)
page_indices = jnp.arange(8, dtype=jnp.int32).reshape(2, 4)
cu_q_lens = jnp.array([0, 8, 16], jnp.int32)
num_seqs = jnp.array([2], jnp.int32)
args = (q, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs)"""


def test_the_lookup_is_explained_with_the_sizes_to_pass(loaded: Notebook) -> None:
    pytest.importorskip(RPA)
    loaded.ok(SETUP)
    failed = loaded.run("out = rpa.ragged_paged_attention(*args, sm_scale=0.125)")
    assert [d["code"] for d in failed.diagnoses] == ["JNH407"]
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert "does not mean an old TPU" in diagnosis.explanation
    notes = " ".join(diagnosis.notes)
    # Capped by the call's own arrays: 4 pages per sequence, 16 query tokens.
    assert "add num_kv_pages_per_block=4, num_queries_per_block=16 to the call" in notes
    # The sizes named are what the op accepts: with them the lookup is gone (the error, if
    # any, is no longer JNH407's).
    again = loaded.run("out = rpa.ragged_paged_attention(*args, sm_scale=0.125, "
                       "num_kv_pages_per_block=4, num_queries_per_block=16)")
    assert "JNH407" not in [d["code"] for d in again.diagnoses]


def test_interpreted_with_the_sizes_the_interpreter_gap_is_diagnosed(loaded: Notebook) -> None:
    pytest.importorskip(RPA)
    loaded.ok(SETUP)
    loaded.ok("%jax_nbhelp interpret on")
    out = loaded.run("out = rpa.ragged_paged_attention(*args, sm_scale=0.125, "
                     "num_kv_pages_per_block=4, num_queries_per_block=16)")
    if out.error is None:
        pytest.skip("this JAX's TPU interpreter runs ragged paged attention")
    assert [d["code"] for d in out.diagnoses] == ["JNH212"]
    assert "transformed ref" in out.diagnoses[0]["explanation"]
