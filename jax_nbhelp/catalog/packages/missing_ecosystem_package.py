"""A library of the JAX ecosystem is not installed where the kernel runs (``ModuleNotFoundError:
No module named 'optax'``).

Course notebooks and library tutorials import Optax, Flax, Equinox, Orbax, TFDS and the rest
as if they were there; a fresh Colab runtime or a new virtual environment has only JAX. The
card names the package and the line that installs it into the kernel's own environment
(``%pip install``, not ``!pip``, which may install into another Python). It speaks only when
Python's import system raised the error (the exception names its module) and that module's
top-level package really is not installed here; a submodule missing from an installed
package (``flax.optim``, removed in a release) is a version question it does not answer.

No one-click fix: installing can upgrade JAX itself, and a kernel keeps the JAX it imported
until it restarts, so the install is the user's step.

Reports: kingoflolz/mesh-transformer-jax#162 (a Colab notebook stops at ``import optax``),
google-deepmind/dm-haiku#496 (Haiku's example notebooks fail on Colab without Optax),
bene837/af2seq#5 (Optax installed with conda, yet missing in the Python that runs the code).
"""

from __future__ import annotations

import importlib.util
import re

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import NO_FIX, Example
from jax_nbhelp.core import packages
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH611"
TITLE = "A library of the JAX ecosystem is not installed"
TRIGGERS = ("ModuleNotFoundError",)

_NO_MODULE = re.compile(r"No module named '(?P<module>[\w.]+)'")

EXAMPLES = (
    # Penzai is in none of our test environments; the example runs only where it is missing.
    # No fixed cells: what fixes it is an install, not a change to the code.
    Example(setup=("import jax",), failing="import penzai", fix=NO_FIX, check="True",
            requires=("!penzai",)),
)

WHY = _entry.prose("""
A notebook runs in its kernel's Python environment, which holds only what was installed
there: JAX does not bring the libraries built on it. The %pip magic installs into exactly
that environment (a shell's pip, or !pip, may belong to another Python). Installing can also
upgrade jax and jaxlib to what the library needs; a running kernel keeps the JAX it already
imported, so restart the kernel when pip says it changed them.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.top
    found = _NO_MODULE.search(link.message) if link.is_a("ModuleNotFoundError") else None
    raised_name = getattr(ctx.exception, "name", None)
    if found is None or not isinstance(raised_name, str) or raised_name != found["module"]:
        return None  # not the import system's own error (a user's raise names no module)
    module = found["module"]
    top = packages.top_level(module)
    if not packages.in_ecosystem(module) or _installed(top):
        return None
    install = f"%pip install {packages.pip_name(top)}"
    location = ctx.deepest_user_location()
    return _entry.diagnosis(
        ctx, __name__,
        f"{top} is not installed in this kernel's environment, so `import {module}`"
        f"{_entry.at(location)} cannot find it. Install it with `{install}` in a cell, then "
        "run this cell again.",
        location=location,
    )


def _installed(top: str) -> bool:
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False
