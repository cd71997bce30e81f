"""A TPU or GPU asked for by name (``jax.devices("tpu")``) on a runtime that has none.

On a CPU-only runtime JAX has no TPU or GPU backend, so every call that names one fails:
``jax.devices("tpu")``, ``jax.local_devices(backend=...)``, ``jax.device_count("gpu")``,
``jax.jit(f, backend="tpu")``.
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import Example
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.jaxapi import interpret_modes

CODE = "JNH203"
TITLE = "TPU or GPU requested on a runtime that has none"

_UNKNOWN = re.compile(r"Unknown backend:? '?(?P<platform>[\w-]+)'?")
_FAILED = re.compile(r"Backend '(?P<platform>[\w-]+)' failed to initialize: (?P<reason>.*)",
                     re.DOTALL)
_PRESENT = re.compile(r"(?:Available backends are|Platforms present are:) \[?(?P<present>[^\]\n]*)")
# What JAX says when the TPU runtime library is not installed at all (measured, jax 0.10.2).
_LIBRARY_MISSING = ("Failed to open libtpu", "cannot open shared object file")

EXAMPLES = (
    Example(
        setup=(),
        failing='x = jax.device_put(jnp.arange(4.0), jax.devices("tpu")[0])',
        fix="Use the default devices",
        check="float(x.sum()) == 6.0",
        fixed=("import jax, jax.numpy as jnp\n"
               "x = jax.device_put(jnp.arange(4.0), jax.devices()[0])",),
    ),
    Example(
        setup=(),
        failing='n = jax.device_count("gpu")',
        fix="Use the default devices",
        check="n >= 1",
        fixed=("import jax\nn = jax.device_count()",),
    ),
)

WHY = _entry.prose("""
JAX has one backend per kind of device it found when it started: a CPU-only runtime has only
the CPU backend, and naming another one ("tpu", "gpu", "cuda") fails. Without a platform
argument JAX uses its default backend: the accelerator when there is one, otherwise the CPU.
""")

RUNTIME_NOTE = (
    "To get a real TPU or GPU in Colab or Kaggle, change the runtime type (Colab: Runtime > "
    "Change runtime type); the original code then runs unchanged. Pallas TPU kernels can be "
    "tested on the CPU in TPU interpret mode (interpret=pltpu.InterpretParams())."
)


def _requested(message: str) -> tuple[str, str] | None:
    """(platform, why it is missing) when the message says the backend is absent."""
    unknown = _UNKNOWN.search(message)
    if unknown is not None:
        return unknown["platform"], "JAX has no backend by that name here"
    failed = _FAILED.search(message)
    if failed is not None and any(text in failed["reason"] for text in _LIBRARY_MISSING):
        return failed["platform"], (
            "the TPU runtime library (libtpu.so) is not installed, as on machines without a TPU"
        )
    return None


TRIGGERS = ("RuntimeError",)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    top = ctx.top
    if not top.is_a("RuntimeError"):
        return None
    found = _requested(top.message)
    if found is None:
        return None
    platform, missing = found
    present_match = _PRESENT.search(top.message)
    present = (present_match["present"].replace("'", "").strip() if present_match
               else ", ".join(interpret_modes.initialized_platforms()))
    location = ctx.deepest_user_location()
    failing = ctx.failing_cell()
    where = _entry.at(location)
    asked = interpret_modes.platform_name(platform.lower())
    explanation = (
        f"The code{where} asks JAX for the {platform!r} backend, and this runtime has no "
        f"{asked}: {missing}. JAX has only: {present or 'the CPU'}."
    )

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.default_backend import drop_backend

        assert location is not None
        return drop_backend(source, location.lineno, platform)

    fix = rewrite_fix(
        ctx,
        location,
        transform,
        label="Use the default devices",
        summary=f"Stop naming {platform!r}: let JAX use its default backend, then re-run.",
        safety=(
            "The code runs on the default devices: the CPU here, the TPU or GPU on an "
            "accelerator runtime. Ordinary JAX code computes the same values (a CPU computes "
            "float32 matrix products more precisely than a TPU's default); Pallas kernels need "
            "interpret mode on a CPU."
        ),
        safe=False,
    )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=(fix,), notes=(RUNTIME_NOTE,))
