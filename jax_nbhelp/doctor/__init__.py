"""``jax_nbhelp doctor``: run whole notebooks headless, report what breaks, and repair it.

Each notebook runs top to bottom in a fresh kernel (its own kernelspec, or ``--kernel``) with
jax_nbhelp loaded. A failing cell's diagnosis is printed as the terminal shows it; with
``--fix`` the recommended fix runs when it is marked safe (verified by running, as the
card's button does), and the run goes on. ``--write``/``--in-place`` save the repaired
notebook: rewritten cells, a kept interpret mode as the first cell, a ``jax_nbhelp`` record in
each changed cell's metadata, and the outputs of the repaired run.

Paths are notebooks, folders and globs; ``-j N`` checks N at once. The report is one table
for them all, the errors by diagnosis code, and what the machine lacks (``needs.py``).

Exit codes: 0 every cell ends right, 1 a failure remains, 2 bad input (a path with no
notebooks, an unreadable file, not a notebook, no such kernel, a kernel that dies, options
that do not fit), 130 Ctrl-C; over several notebooks, the worst one's. ``pytest --nbhelp``
(``pytest_plugin.py``) runs the same checkup as pytest tests.
"""

from __future__ import annotations

from jax_nbhelp.doctor.cli import main

__all__ = ["main"]
