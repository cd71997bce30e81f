"""How a quantity is said to a user, the same on every surface and in the kernel's messages."""

from __future__ import annotations


def duration(seconds: float) -> str:
    """Seconds as a person reads them: "40 s", "8 min", "1.5 h"."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
