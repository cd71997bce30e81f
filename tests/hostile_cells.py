"""Hostile failing cells, seeded: what the fuzz test and ``benchmarks/fuzz.py`` run.

Each cell is ``(source, a text its traceback must show, whether JAX raises it)``: odd
messages (huge, unicode, NUL, markup, fragments of JAX's own), user exceptions whose
``__str__``, ``__repr__`` or ``__getattr__`` raise, cause cycles, 1,000-deep chains,
exception groups, recursion errors, non-string arguments, magics, and real JAX errors the
catalog does not know. ``problems`` says what went wrong with one cell's run, by the
counts the benchmark prints.
"""

from __future__ import annotations

import random
from typing import Any

JAX_TEXTS = (
    "run_scoped lowering outside of Pallas does not support collective_axes.",
    "Only interpret mode is supported on CPU backend.",
    "Evaluation rule for 'run_scoped' not implemented",
    "run_scoped interpret rule does not support collective axes",
    "Abstract tracer value encountered where concrete value is expected",
    "Attempted boolean conversion of traced array with shape bool[].",
    "Non-hashable static arguments are not supported.",
    "Unsupported TPU device kind: cpu",
    "Loads and stores of refs in HBM are not supported in TPU interpret mode",
    "INTERNAL: CpuCallback error calling callback: Traceback (most recent call last):",
    "Shapes must be 1D sequences of concrete values of integer type",
    "Found an unbound axis name: batch. To fix this, please call psum under `jax.shard_map`.",
    "normal accepts a single key, but was given a key array of shape (4,) != (). Use jax.vmap "
    "for batching.",
    "Array has been deleted with shape=float32[3].",
    "INVALID_ARGUMENT: Invalid buffer passed: Buffer has been deleted or donated.",
    "INVALID_ARGUMENT: Invalid buffer passed: buffer has been deleted or donated.",
    "shard_map in_specs argument must refer to an axis marked as manual (frozenset({'x'})), "
    "but:\n\n  in_specs refers to 'y'\n\nCheck the in_specs values passed to shard_map.",
    "",  # JAX's bare assert inside shard_map has no message either
    "dtype=key<fry> is not a valid dtype for JAX type promotion.",
    "add does not accept dtypes key<fry>, int32.",
    "JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; got ndim=0",
    "Too many indices: array is 0-dimensional, but 1 were indexed",
    "key accepts a scalar seed, but was given a PRNG key.",
    "No module named 'jax.config'",
    "vmap got inconsistent sizes for array axes to be mapped:",
    "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
    "positional arguments passed to the function, but got len(in_axes)=3, len(args)=2",
    "jax.tree_map was removed in JAX v0.6.0: use jax.tree.map",
    "'function' object is not iterable",
    "The kernel function in the pallas_call k at <cell>:1 captures constants [f32[128]]. "
    "You should pass them as inputs.",
    "Block shape for args[0] (= (Blocked(block_size=8),)) must have the same number of "
    "dimensions as the array shape (16, 128).",
    "Invalid shape for `swap`. Ref shape: (8, 64). Expected shape: (8, 64). Value shape: "
    "(8, 128). Transforms: ().",
)
ODD_TEXTS = (
    "",
    "x" * 100_000,
    "ünïcødé ✓ 漢字 \U0001f600 \u202e",
    "nul\x00inside",
    "<script>alert(1)</script><b>bold</b>",
    "\x1b[31mred\x1b[0m",
    "line\n" * 500,
    "%(name)s {0} {missing}",
    "not UTF-8: \udcff\udc80 (bytes read with surrogateescape)",
)
USER_TYPES = ("ValueError", "KeyError", "IndexError", "TypeError", "RuntimeError",
              "NotImplementedError", "AttributeError", "AssertionError", "NameError",
              "ModuleNotFoundError")

PRELUDE = '''\
import jax, jax.numpy as jnp

class BrokenStr(ValueError):
    def __str__(self):
        raise RuntimeError("broken __str__")

class BrokenRepr(ValueError):
    def __repr__(self):
        raise RuntimeError("broken __repr__")

class BrokenEverything(ValueError):
    def __str__(self):
        raise RuntimeError("broken")
    def __repr__(self):
        raise RuntimeError("broken")
    def __getattr__(self, name):
        raise RuntimeError(f"broken {name}")

def chain(depth, message):
    error = ValueError(message)
    for i in range(depth):
        outer = RuntimeError(f"level {i}")
        outer.__cause__ = error
        error = outer
    raise error

def cycle(message):
    a, b = ValueError(message), KeyError(message)
    a.__cause__, b.__cause__ = b, a
    raise a

def recurse(n=0):
    return recurse(n + 1)
'''

# Real JAX errors the catalog does not know: diagnosed by nothing, shown as usual.
UNKNOWN_JAX = (
    "jnp.einsum('ij,jk', jnp.ones((2, 3)), jnp.ones((4, 2)))",
    "jax.random.choice(jax.random.key(0), 3, (5,), replace=False)",
    "jnp.zeros((2, 2)).sum(axis=3)",
    "jnp.zeros((2, 2))[5, 5].block_until_ready() + jnp.einsum('i,j', jnp.ones(2))",
)


def hostile_text(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.45:
        return rng.choice(JAX_TEXTS)
    if pick < 0.8:
        return rng.choice(ODD_TEXTS)
    return rng.choice(JAX_TEXTS) + rng.choice(ODD_TEXTS)[:200]


def hostile_cell(rng: random.Random) -> tuple[str, str, bool]:
    """(source, a type name its traceback must show, whether JAX raises it)."""
    kind = rng.randrange(12)
    text = hostile_text(rng)
    error = rng.choice(USER_TYPES)
    if kind <= 3:
        return f"raise {error}({text!r})", error, False
    if kind == 4:
        broken = rng.choice(("BrokenStr", "BrokenRepr", "BrokenEverything"))
        # IPython itself cannot format BrokenEverything; it says so, and that must show.
        shown = ("Unexpected exception formatting exception" if broken == "BrokenEverything"
                 else broken)
        return f"raise {broken}({text!r})", shown, False
    if kind == 5:
        return f"cycle({text!r})", "ValueError", False
    if kind == 6:
        return f"chain({rng.choice((10, 200, 1000))}, {text!r})", "RuntimeError", False
    if kind == 7:
        return (f"raise ExceptionGroup('group', [{error}({text!r}), KeyError({text!r})])",
                "ExceptionGroup", False)
    if kind == 8:
        args = rng.choice(("123, None", "b'bytes', 4.5", "object(), [1, 2]", "{'a': 1}"))
        return f"raise {error}({args})", error, False
    if kind == 9:
        magic = rng.choice(("%env JAX_NBHELP_FUZZ=1\n", "%time ", "%%time\n"))
        return f"{magic}raise {error}({text!r})", error, False
    if kind == 10 and rng.random() < 0.05:
        return "recurse()", "RecursionError", False
    return rng.choice(UNKNOWN_JAX), "Error", True



def problems(out: Any, shown: str, handler_kept: bool, by_jax: bool = False) -> list[str]:
    """What went wrong with one hostile cell's run (``out``: conftest's CellOutput). An
    error JAX raised that the catalog does not know (``by_jax``) gets the explained view
    (JNH001) or the general view (JNH000) and nothing else; any other error gets nothing."""
    found = []
    if out.error is None:
        found.append("no error")
    if not handler_kept:
        found.append("dropped handler")
    if shown not in out.stdout + out.stderr:
        found.append("lost traceback")
    codes = [bundle.get("code") for bundle in out.diagnoses]
    # the general view claims no cause; the explained view (JNH001) only what JAX's own
    # check and the call's signature say
    if (len(codes) > 1 or set(codes) - {"JNH000", "JNH001"}) or (codes and not by_jax):
        found.append("false claim")
    if by_jax and not codes:
        found.append("no general view")
    if "jax_nbhelp" in out.stderr:
        found.append("noise line")
    return found
