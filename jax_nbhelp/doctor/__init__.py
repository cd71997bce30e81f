"""``jax_nbhelp doctor``: run whole notebooks headless, report what breaks, and repair it.

Each notebook runs top to bottom in a fresh kernel (its own kernelspec, or ``--kernel``) with
jax_nbhelp loaded. A failing cell's diagnosis is printed as the terminal shows it; with
``--fix`` the recommended fix runs when it is marked safe (verified by running, as the
card's button does), and the run goes on. ``--write``/``--in-place`` save the repaired
notebook: rewritten cells, a kept interpret mode as the first cell, a ``jax_nbhelp`` record in
each changed cell's metadata, and the outputs of the repaired run.

Exit codes: 0 every cell ends right, 1 a failure remains, 2 bad input (an unreadable file,
not a notebook, no such kernel, a kernel that dies, options that do not fit).
"""

from __future__ import annotations

from jax_nbhelp.doctor.cli import main

__all__ = ["main"]
