"""The failing and fixed example every diagnosis carries as data (run by the catalog test)."""

from __future__ import annotations

from dataclasses import dataclass

NO_FIX = ""

# What every example runs first (a notebook's usual imports); examples assume these names.
PRELUDE = """\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu"""


@dataclass(frozen=True)
class Example:
    """Cells a user runs, the fix they pick, and a check that the numbers are right.

    ``setup`` cells run first and must succeed; ``failing`` raises the error; after applying the
    fix whose label is ``fix``, the expression ``check`` evaluated in the user namespace is
    true. ``fixed`` is the cell as the user would write it once fixed (it must succeed alone
    after ``setup``). ``fix=""`` (``NO_FIX``) says the diagnosis offers no fix for this
    failing cell: the test checks there is none, and ``check`` applies to ``fixed`` only.
    ``requires`` names what the example needs of the installed JAX, for releases that lack
    it: a module, ``module:attribute``, or ``!module:attribute`` for a name it must not have.
    """

    setup: tuple[str, ...]
    failing: str
    fix: str
    check: str
    fixed: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()


def unmet(example: Example) -> str | None:
    """The first of the example's ``requires`` this JAX does not meet, or None."""
    import importlib
    import importlib.util

    for requirement in example.requires:
        wanted = not requirement.startswith("!")
        module, _, attribute = requirement.lstrip("!").partition(":")
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # its package is missing too (an older JAX)
            found = False
        if found and attribute:
            from jax_nbhelp.catalog._jax_names import has

            # Read without its DeprecationWarning: a deprecated name still counts as there.
            found = has(importlib.import_module(module), attribute)
        if found is not wanted:
            return requirement
    return None


# The GPU kernel interpreter (``plgpu.kernel(interpret=...)``): jax 0.9 and newer.
GPU_INTERPRETER = "jax._src.pallas.mosaic_gpu.interpret"


# What most examples import first; the tracer entries add partial (for static_argnames).
JAX_IMPORTS = "import jax, jax.numpy as jnp"
LAX_IMPORTS = JAX_IMPORTS + "\nfrom jax import lax"
NUMPY_IMPORTS = JAX_IMPORTS + "\nimport numpy as np"
TRACING_IMPORTS = JAX_IMPORTS + "\nfrom functools import partial"


def corrected(imports: str, before: str, after: str, failing: str, fix: str,
              check: str) -> Example:
    """The usual story: the mistake is in a cell defined before the failing one (``before``,
    after ``imports``); ``fixed`` is that cell as ``after`` corrects it, then the failing cell
    again."""
    return Example(setup=(imports, before), failing=failing, fix=fix, check=check,
                   fixed=(imports, after, failing))


def made_static(function: str, failing: str, name: str, check: str) -> Example:
    """The example of a ``@jax.jit`` ``function`` that a call passes a Python setting ``name``:
    the fix marks it static, as ``fixed`` spells it by hand."""
    decorated = function.replace("@jax.jit", f"@partial(jax.jit, static_argnames={name!r})", 1)
    return corrected(TRACING_IMPORTS, function, decorated, failing, f"Make {name} static", check)


def corrected_cell(setup: tuple[str, ...], failing: str, fixed: str, fix: str,
                   check: str) -> Example:
    """The other usual story: the mistake is in the failing cell itself; ``fixed`` is that
    cell corrected, after the same ``setup``."""
    return Example(setup=setup, failing=failing, fix=fix, check=check, fixed=(*setup, fixed))
