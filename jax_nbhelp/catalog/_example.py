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
    """

    setup: tuple[str, ...]
    failing: str
    fix: str
    check: str
    fixed: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
