"""What jax_nbhelp and its frontends say to each other, named once: the mime types of the
kernel's displays (``docs/diagnosis.schema.json`` describes their data; the TypeScript twins
are in ``labextension/src/bundle.ts``), how a cell is named to a user, and which frames are
a cell's own top level."""

from __future__ import annotations

# a diagnosis: the card's data (show/bundle.py)
DIAGNOSIS_MIME = "application/vnd.jax-nbhelp.diagnosis+json"
# the answer to a frontend's request (shell/frontend.py): a fix's outcome, a card's status
RESULT_MIME = "application/vnd.jax-nbhelp.result+json"
# while a long fix runs: how far it is (FixProgress, the schema's "progress"), one display
# made at the first report and updated in place after it, so the card can draw a bar
PROGRESS_MIME = "application/vnd.jax-nbhelp.progress+json"


def cell_label(number: int) -> str:
    """A cell as IPython names it: ``In [3]``."""
    return f"In [{number}]"


def is_top_level(function: str) -> bool:
    """Whether a frame's function name is a cell's or module's top level, not a function.

    Python names it ``<module>``; IPython 7 names a cell's code ``<cell line: N>``.
    """
    return function == "<module>" or function.startswith("<cell line")
