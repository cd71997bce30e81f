"""Reading the numbers of a concrete value a user's line holds, never a tracer's and never a
large array's, and never through a property of a user's class: what the rules that keep
every value compare before they offer a fix."""

from __future__ import annotations

import sys
from typing import Any

MAX_READ = 1 << 16  # elements of a concrete array whose values are compared


def held(value: object) -> Any | None:
    """``value`` as a NumPy array, where it is a Python number or a concrete NumPy or JAX
    array of at most ``MAX_READ`` elements; None where it cannot be read so (a tracer, a
    large array, another type)."""
    numpy = sys.modules.get("numpy")
    if numpy is None or "Tracer" in type(value).__name__:
        return None
    if type(value) not in (bool, int, float) and (
            type(value).__module__.split(".", 1)[0] not in ("numpy", "jax", "jaxlib")
            or not isinstance(size := getattr(value, "size", None), int) or size > MAX_READ):
        return None
    try:
        return numpy.asarray(value)
    except Exception:
        return None


__all__ = ["MAX_READ", "held"]
