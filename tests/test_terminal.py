"""The user's story in terminal IPython: a real `ipython` process reading typed input."""

from __future__ import annotations

import subprocess
import sys

SESSION = '''\
%load_ext jax_nbhelp
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")

out = jax.jit(scaled)(jnp.ones((8, 128)))
%jax_nbhelp fix 1
print("numbers:", float(out.sum()))
exit
'''


def test_terminal_ipython_shows_text_diagnosis_and_fixes() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "IPython", "--simple-prompt", "--no-banner", "--colors=nocolor",
         "--HistoryManager.enabled=False"],
        input=SESSION,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = proc.stdout
    assert "ValueError: run_scoped lowering outside of Pallas" in out, out + proc.stderr
    assert "jax_nbhelp [JNH101]" in out
    assert out.index("ValueError: run_scoped lowering") < out.index("jax_nbhelp [JNH101]")
    assert "Where: In [5], line 5, in scaled" in out
    assert "Reached from: In [6], line 1" in out
    assert "Fixed: 'Run as one program'" in out
    assert "numbers: 3072.0" in out
