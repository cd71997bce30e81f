"""What JAX's transformations keep of the function they wrap, named once for the rewrites
and for the catalog that reads the caller's line (no libcst here: the catalog imports it
at start-up)."""

from __future__ import annotations

# Transformations whose result keeps the function's signature (functools.wraps) and passes
# the arguments it does not differentiate through as they are: jit(grad(f), static_argnames=)
# finds f's parameters by name, and a static setting reaches f unchanged.
SIGNATURE_KEEPING = ("grad", "value_and_grad")
