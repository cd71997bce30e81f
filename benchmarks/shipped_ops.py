"""Do JAX's own shipped Pallas ops run, with the right numbers, on a CPU after one click?

Each scenario is one fresh Jupyter kernel, driven cell by cell as a notebook runs: a setup
cell (``%load_ext jax_nbhelp`` and imports), then one cell per op under
``jax.experimental.pallas.ops`` on small inputs, each comparing the op's output with the
op's own reference function (or a plain jnp computation) and printing ``OK <op>`` or
``WRONG <op>``. The first op cell fails (a Pallas kernel does not compile for a CPU) and
jax_nbhelp shows its diagnosis; the script applies the fix labelled "Interpret mode from
now on" (fix 1 where there is none) with ``%jax_nbhelp fix N``, the one click, and then
runs every other op cell with no further click.

Scenarios: ``tpu`` starts with the TPU flash attention cell, ``gpu`` with the Triton-style
GPU layer norm cell. The kernels start with ``--xla_force_host_platform_device_count=2``
in XLA_FLAGS, so the TPU all-gather op has a mesh of two CPU devices to gather over.

It prints a table (scenario, op, outcome, seconds) and, for every cell that raised, the
error and the innermost frame inside jax. It is a measurement, not a test: it exits 0
whatever the ops do.

    python benchmarks/shipped_ops.py [--scenario tpu|gpu|both] [--ops name,name]
                                     [--timeout 600]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jax_nbhelp.doctor.kernel import Kernel, KernelGone, Outcome  # noqa: E402

DEVICES = 2  # CPU devices the kernel gets (all_gather's mesh)
FIX_LABEL = "Interpret mode from now on"

SETUP = '''\
%load_ext jax_nbhelp
import functools
import numpy as np
import jax
import jax.numpy as jnp

def check(name, got, want, tol):
    """Print OK or WRONG for one op: the largest absolute difference from the reference."""
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    if got.shape != want.shape:
        print(f"WRONG {name} shape {got.shape} != {want.shape}")
        return
    err = float(np.max(np.abs(got - want)))
    print(f"{'OK' if err <= tol else 'WRONG'} {name} maxerr={err:.3g} tol={tol:g}")

def normals(seed, *shapes):
    keys = jax.random.split(jax.random.key(seed), len(shapes))
    return [jax.random.normal(key, shape, jnp.float32) for key, shape in zip(keys, shapes)]
'''

# One cell per op, keyed by the name the table and --ops use ("tpu_" or "gpu_" first: the
# kernel family). Tiny shapes: every kernel runs in an interpreter on the CPU.
OP_CELLS: dict[str, str] = {
    "tpu_flash_attention": '''\
from jax.experimental.pallas.ops.tpu import flash_attention as tpu_fa

q, k, v = normals(0, *[(1, 2, 256, 128)] * 3)  # batch, heads, seq, head dim
out = tpu_fa.flash_attention(q, k, v, causal=True, sm_scale=0.125)
want = tpu_fa.mha_reference(q, k, v, None, causal=True, sm_scale=0.125)
check("tpu_flash_attention", out, want, 2e-2)
''',
    "tpu_matmul": '''\
from jax.experimental.pallas.ops.tpu.matmul import matmul as tpu_matmul

x, y = normals(1, (256, 256), (256, 256))
out = tpu_matmul(x, y, block_shape=(128, 128), block_k=128)
check("tpu_matmul", out, jnp.dot(x, y, precision="highest"), 1e-3)
''',
    "tpu_megablox_gmm": '''\
from jax.experimental.pallas.ops.tpu.megablox import gmm

lhs, rhs = normals(2, (256, 128), (2, 128, 128))  # [m, k], [groups, k, n]
group_sizes = jnp.array([100, 156], jnp.int32)     # rows of lhs per group
out = gmm(lhs, rhs, group_sizes, jnp.float32, (128, 128, 128))
group = np.repeat(np.arange(2), np.asarray(group_sizes))
want = jnp.einsum("mk,mkn->mn", lhs, rhs[group], precision="highest")
check("tpu_megablox_gmm", out, want, 1e-3)
''',
    "tpu_paged_attention": '''\
from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention as tpu_paged

batch, q_heads, kv_heads, head_dim, page_size, pages_per_seq = 2, 4, 2, 128, 16, 4
q, k_pages, v_pages = normals(3, (batch, q_heads, head_dim),
                              *[(kv_heads, batch * pages_per_seq, page_size, head_dim)] * 2)
# the kernel reads K and V as bfloat16, so the cache holds bfloat16
k_pages, v_pages = k_pages.astype(jnp.bfloat16), v_pages.astype(jnp.bfloat16)
page_indices = jnp.arange(batch * pages_per_seq, dtype=jnp.int32).reshape(batch, -1)[::-1]
lengths = jnp.array([40, 64], jnp.int32)
out = tpu_paged(q, k_pages, v_pages, lengths, page_indices, pages_per_compute_block=2)

def paged_reference(q, k_pages, v_pages, lengths, page_indices):
    # [kv_heads, batch, seq, head_dim]: each sequence's pages, in order
    k = k_pages[:, page_indices].reshape(kv_heads, batch, -1, head_dim).astype(q.dtype)
    v = v_pages[:, page_indices].reshape(kv_heads, batch, -1, head_dim).astype(q.dtype)
    qg = q.reshape(batch, kv_heads, q_heads // kv_heads, head_dim)
    logits = jnp.einsum("bhgd,hbtd->bhgt", qg, k, precision="highest")
    valid = jnp.arange(k.shape[2])[None, :] < lengths[:, None]
    logits = jnp.where(valid[:, None, None, :], logits, -jnp.inf)
    weights = jax.nn.softmax(logits, axis=-1)
    return jnp.einsum("bhgt,hbtd->bhgd", weights, v,
                      precision="highest").reshape(q.shape)

check("tpu_paged_attention", out,
      paged_reference(q, k_pages, v_pages, lengths, page_indices), 1e-3)
''',
    "tpu_splash_attention": '''\
from jax.experimental.pallas.ops.tpu import splash_attention as splash

heads, seq, head_dim = 2, 256, 128
q, k, v = normals(4, *[(heads, seq, head_dim)] * 3)  # splash works on one example
mask = splash.MultiHeadMask([splash.CausalMask((seq, seq))] * heads)
blocks = splash.BlockSizes(block_q=128, block_kv=128, block_kv_compute=128)
splash_kernel = splash.make_splash_mha_single_device(mask, block_sizes=blocks)
out = splash_kernel(q, k, v)
want = splash.make_masked_mha_reference(mask)(q, k, v)
check("tpu_splash_attention", out, want, 1e-3)
''',
    "tpu_all_gather": '''\
from jax.experimental.pallas.ops.tpu.all_gather import all_gather
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2,), ("x",))  # needs 2 devices: the kernel's XLA_FLAGS give them
(x,) = normals(5, (2 * 8, 128))
x_sharded = jax.device_put(x, NamedSharding(mesh, P("x")))  # 8 rows per device
out = all_gather(x_sharded, mesh=mesh, axis_name="x")
check("tpu_all_gather", out, x, 0.0)  # every device ends with all of x
''',
    "tpu_ragged_paged_attention": '''\
from jax.experimental.pallas.ops.tpu import ragged_paged_attention as rpa

q_heads, kv_heads, head_dim, page_size, pages_per_seq = 4, 2, 128, 16, 4
q, kv_pages = normals(6, (16, q_heads, head_dim),  # 16 query tokens of 2 sequences
                      (2 * pages_per_seq, page_size, 2 * kv_heads, head_dim))
kv_lens = jnp.array([32, 48], jnp.int32)
page_indices = jnp.arange(2 * pages_per_seq, dtype=jnp.int32).reshape(2, -1)
cu_q_lens = jnp.array([0, 8, 16], jnp.int32)
num_seqs = jnp.array([2], jnp.int32)
args = (q, kv_pages, kv_lens, page_indices, cu_q_lens, num_seqs)
out = rpa.ragged_paged_attention(*args, sm_scale=0.125)
want = rpa.ref_ragged_paged_attention(*args, sm_scale=0.125)
check("tpu_ragged_paged_attention", out, want, 1e-3)
''',
    "gpu_attention": '''\
from jax.experimental.pallas.ops.gpu import attention as gpu_attention

q, k, v = normals(7, *[(1, 128, 2, 64)] * 3)  # batch, seq, heads, head dim
out = gpu_attention.mha(q, k, v, None, sm_scale=0.125, causal=True)
want = gpu_attention.mha_reference(q, k, v, None, sm_scale=0.125, causal=True)
check("gpu_attention", out, want, 1e-3)
''',
    "gpu_layer_norm": '''\
from jax.experimental.pallas.ops.gpu import layer_norm as gpu_ln

x, weight, bias = normals(8, (2, 4, 256), (256,), (256,))  # [batch, seq, features]
out = gpu_ln.layer_norm(x, weight, bias)
check("gpu_layer_norm", out, gpu_ln.layer_norm_reference(x, weight, bias), 1e-4)
''',
    "gpu_rms_norm": '''\
from jax.experimental.pallas.ops.gpu import rms_norm as gpu_rms

x, weight, bias = normals(9, (2, 4, 256), (256,), (256,))
out = gpu_rms.rms_norm(x, weight, bias)
check("gpu_rms_norm", out, gpu_rms.rms_norm_reference(x, weight, bias), 1e-4)
''',
    "gpu_softmax": '''\
from jax.experimental.pallas.ops.gpu.softmax import softmax as gpu_softmax

(x,) = normals(10, (8, 256))
out = gpu_softmax(x)
check("gpu_softmax", out, jax.nn.softmax(x, axis=-1), 1e-5)
''',
    "gpu_decode_attention": '''\
from jax.experimental.pallas.ops.gpu import decode_attention as gpu_decode

q, k, v = normals(11, (2, 16, 64), (2, 256, 64), (2, 256, 64))  # one query token
kv_seq_len = jnp.array([200, 256], jnp.int32)
out = gpu_decode.mqa(q, k, v, kv_seq_len=kv_seq_len, block_k=64, k_splits=2)
want = gpu_decode.mqa_reference(q, k, v, kv_seq_len=kv_seq_len)
check("gpu_decode_attention", out, want, 1e-3)
''',
    "gpu_paged_attention": '''\
from jax.experimental.pallas.ops.gpu import paged_attention as gpu_paged

batch, q_heads, kv_heads, head_dim, page_size, pages_per_seq = 2, 16, 2, 64, 16, 8
q, k_pages, v_pages = normals(12, (batch, q_heads, head_dim),
                              *[(kv_heads, batch * pages_per_seq, page_size, head_dim)] * 2)
block_tables = jnp.arange(batch * pages_per_seq, dtype=jnp.int32).reshape(batch, -1)[::-1]
lengths = jnp.array([100, 128], jnp.int32)
out = gpu_paged.paged_attention(q, k_pages, v_pages, block_tables, lengths,
                                pages_per_compute_block=4, k_splits=2)
# the reference takes whole sequences: [batch, seq, kv_heads, head_dim]
k = jnp.moveaxis(k_pages[:, block_tables].reshape(kv_heads, batch, -1, head_dim), 0, 2)
v = jnp.moveaxis(v_pages[:, block_tables].reshape(kv_heads, batch, -1, head_dim), 0, 2)
want = gpu_paged.paged_attention_reference(q, k, v, lengths)
check("gpu_paged_attention", out, want, 1e-3)
''',
}

FIRST = {"tpu": "tpu_flash_attention", "gpu": "gpu_layer_norm"}  # each scenario's opener

# Failures JAX itself has on a CPU, whatever jax_nbhelp does.
EXPECTED = {"tpu_ragged_paged_attention": "TPU version must be 4 or higher"}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# A frame, as IPython prints it (File PATH:LINE, in f) or Python does (File "PATH", line N).
_FRAME = re.compile(r'File "?([^",\n]+?)"?(?::|, line )(\d+)')


@dataclass
class Row:
    scenario: str
    op: str
    outcome: str
    seconds: float
    code: str = ""  # the diagnosis bundle's code, when one appeared
    error: str = ""  # "Type: first line of the message"
    where: str = ""  # the innermost frame of the traceback inside jax
    note: str = ""


def _verdict(name: str, text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith((f"OK {name} ", f"WRONG {name} ")):
            return line.strip()
    return None


def _jax_frame(outcome: Outcome) -> str:
    """The innermost traceback frame in a file of jax, as ``jax/...py:LINE``."""
    found = ""
    for output in outcome.outputs:
        if output.get("output_type") != "error":
            continue
        text = _ANSI.sub("", "\n".join(output.get("traceback", [])))
        for path, line in _FRAME.findall(text):
            parts = Path(path).parts
            if "jax" in parts:
                found = "/".join(parts[len(parts) - parts[::-1].index("jax") - 1:]) + f":{line}"
    return found


def _error(outcome: Outcome) -> str:
    if outcome.error is None:
        return ""
    ename, evalue = outcome.error
    first = next((line for line in evalue.splitlines() if line.strip()), "")
    return f"{ename}: {first}"[:300]


def _row(scenario: str, name: str, outcome: Outcome) -> Row:
    verdict = _verdict(name, outcome.text)
    code = ",".join(str(b.get("code", "?")) for b in outcome.bundles)
    if outcome.timed_out:
        result = "timeout"
    elif verdict is not None:
        result = "ok" if verdict.startswith("OK") else "wrong"
    elif outcome.error is not None:
        result = "error"
    else:
        result = "no verdict"
    row = Row(scenario, name, result, outcome.seconds, code=code, error=_error(outcome),
              where=_jax_frame(outcome))
    if verdict is not None:
        row.note = verdict
    return row


def _pick_fix(bundle: dict[str, object]) -> tuple[int, str]:
    fixes = bundle.get("fixes")
    labels = [str(fix.get("label", "")) for fix in fixes if isinstance(fix, dict)] \
        if isinstance(fixes, list) else []
    number = labels.index(FIX_LABEL) + 1 if FIX_LABEL in labels else 1
    return number, labels[number - 1] if labels else ""


def _order(scenario: str, ops: list[str]) -> list[str]:
    first = FIRST[scenario] if FIRST[scenario] in ops else next(
        (op for op in ops if op.startswith(scenario + "_")), ops[0])
    return [first, *(op for op in ops if op != first)]


def run_scenario(scenario: str, ops: list[str], timeout: float) -> list[Row]:
    print(f"\n== scenario {scenario}: {len(ops)} op cells, fresh kernel", flush=True)
    rows: list[Row] = []
    kernel = Kernel("python3", ROOT)
    try:
        setup = kernel.run(SETUP, timeout)
        if setup.error is not None:
            rows.append(Row(scenario, "(setup)", "error", setup.seconds, error=_error(setup)))
            return rows
        clicked = False
        for name in _order(scenario, ops):
            outcome = kernel.run(OP_CELLS[name], timeout)
            row = _row(scenario, name, outcome)
            rows.append(row)
            _report(row)
            with_fixes = [b for b in outcome.bundles if b.get("fixes")]
            if clicked or outcome.error is None or not with_fixes:
                continue
            # The one click: the fix re-runs this cell, so its verdict comes in the fix's
            # output.
            clicked = True
            number, label = _pick_fix(with_fixes[-1])
            fixed = kernel.run(f"%jax_nbhelp fix {number}", timeout)
            after = _row(scenario, name, fixed)
            after.op = f"{name} (fix {number}: {label})"
            if after.outcome == "no verdict":
                after.outcome = "fix: no verdict"
            said = _fix_said(fixed.text)
            after.note = " ".join(part for part in (said, after.note) if part) \
                or _tail(fixed.text)
            rows.append(after)
            _report(after)
    except KernelGone as exc:
        rows.append(Row(scenario, "(kernel)", "kernel gone", 0.0, error=str(exc)))
    finally:
        try:
            kernel.close()
        except Exception as exc:  # a dead kernel's channels: the rows say what happened
            print(f"closing the kernel: {exc}", file=sys.stderr)
    return rows


def _fix_said(text: str) -> str:
    """The fix's own verdict: its "Fixed:" / "Not fixed:" / "Stopped:" line."""
    return next((line.strip() for line in text.splitlines()
                 if line.startswith(("Fixed:", "Not fixed:", "Stopped:"))), "")[:200]


def _tail(text: str, lines: int = 3) -> str:
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(kept[-lines:])[:300]


def _report(row: Row) -> None:
    extra = row.note or row.error
    print(f"  {row.op}: {row.outcome} ({row.seconds:.1f} s)"
          + (f" [{row.code}]" if row.code else "") + (f" {extra}" if extra else ""),
          flush=True)


def _table(rows: list[Row]) -> None:
    print("\n| scenario | op | outcome | seconds | diagnosis |")
    print("|---|---|---|---|---|")
    for row in rows:
        outcome = row.outcome
        if row.outcome == "error":
            expected = EXPECTED.get(row.op)
            outcome += " (expected)" if expected and expected in row.error else ""
        print(f"| {row.scenario} | {row.op} | {outcome} | {row.seconds:.1f} | "
              f"{row.code or '-'} |")
    details = [row for row in rows if row.error]
    if details:
        print("\nErrors (the cell's error; the innermost frame inside jax):")
        for row in details:
            print(f"- {row.scenario} {row.op}" + (f" [{row.code}]" if row.code else "")
                  + f": {row.error}" + (f"\n    at {row.where}" if row.where else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=("tpu", "gpu", "both"), default="both")
    parser.add_argument("--ops", default="", help="comma-separated op names (default: all)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per cell")
    args = parser.parse_args()
    ops = [op.strip() for op in args.ops.split(",") if op.strip()] or list(OP_CELLS)
    unknown = [op for op in ops if op not in OP_CELLS]
    if unknown:
        parser.error(f"unknown ops {unknown}; known: {', '.join(OP_CELLS)}")
    # The kernels see this environment: two CPU devices, and this checkout first on the path
    # (so they import this jax_nbhelp).
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={DEVICES}"
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    rows: list[Row] = []
    for scenario in ("tpu", "gpu") if args.scenario == "both" else (args.scenario,):
        rows += run_scenario(scenario, ops, args.timeout)
    _table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
