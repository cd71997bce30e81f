"""The failing and fixed example every diagnosis carries as data (run by the catalog test)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    """Cells a user runs, the fix they pick, and a check that the numbers are right.

    ``setup`` cells run first and must succeed; ``failing`` raises the error; after applying the
    fix whose label is ``fix``, the expression ``check`` evaluated in the user namespace is
    true. ``fixed`` is the cell as the user would write it once fixed (it must succeed alone
    after ``setup``).
    """

    setup: tuple[str, ...]
    failing: str
    fix: str
    check: str
    fixed: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
