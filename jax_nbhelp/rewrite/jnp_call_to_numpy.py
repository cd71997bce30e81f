"""Fix: compute a static value with NumPy instead of ``jax.numpy``.

Under ``jax.jit`` every ``jnp`` operation returns a tracer, even when all its inputs are
Python numbers: ``count = jnp.add(x.size, 1)`` is traced, and ``jnp.zeros((count,))`` then
fails for want of a concrete size. ``np.add(x.size, 1)`` computes the same number and stays
concrete.
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name, locate, rewrite_calls
from .errors import CannotRewrite
from .interpret_arg import add_import
from .magics import rewrite_line

__all__ = ["jnp_call_to_numpy"]


def _python(code: str, lineno: int, jnp: str, function: str, numpy: str) -> str:
    located = locate(code, lineno)
    targets = [site.node for site in located.calls_at(lineno)
               if dotted_name(site.node.func) == f"{jnp}.{function}"]
    if len(targets) != 1:
        raise CannotRewrite(f"Line {lineno} has no single {jnp}.{function}(...) call to "
                            "compute with NumPy.")
    func = cst.parse_expression(f"{numpy}.{function}")
    return rewrite_calls(located.module, targets,
                         lambda call: call.with_changes(func=func)).code


def jnp_call_to_numpy(source: str, lineno: int, jnp: str, function: str,
                      numpy: str | None) -> str:
    """Make the ``{jnp}.{function}(...)`` call on 1-based ``lineno`` NumPy's; ``numpy`` is
    how the cell names NumPy (None: ``import numpy as np`` is added). Raises
    :class:`CannotRewrite`."""
    fixed = rewrite_line(source, lineno, lambda code: _python(code, lineno, jnp, function,
                                                      numpy or "np"))
    return fixed if numpy else add_import(fixed, "import numpy as np")
