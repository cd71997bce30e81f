"""Contract fixes for the explained view (``JNH001``) where JAX needs a scalar, or refuses
one, and the user's value holds exactly the numbers the call means.

**A one-element predicate.** ``lax.cond(x > 0, ...)`` with ``x`` of shape ``(1,)`` (``Pred
must be a scalar, got ... of shape (1,)``): a predicate of one element has one truth value,
and ``(x > 0).reshape(())`` is that value as the scalar cond takes; the same branch runs.
Only where every dimension JAX's message shows is 1. The rule follows from JAX's check alone
(``lax.cond`` tests ``pred`` for a scalar shape); no report is cited for it.

**Scalars concatenated.** ``jnp.concatenate([a, b])`` of 0-d arrays (``Zero-dimensional
arrays cannot be concatenated``): NumPy refuses them too, and ``jnp.hstack`` is NumPy's
spelling of what is meant: each 0-d array as one element, every array of one dimension as it
is, joined along axis 0. Only where every array has at most one dimension and no other
axis is asked for (jax-ml/jax#53 gave JAX NumPy's message for it; numpy/numpy#15029, a 0-d
array joined to a 1-d one; data-apis/array-api#946 on how common joining scalars and
vectors is).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _contract_call, _shapes
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    for rule in (_one_element_predicate_fix, _scalars_joined_fix):
        fix = rule(ctx, diagnosis)
        if fix is not None:
            return fix
    return None


def _argument(ctx: ErrorContext, diagnosis: Diagnosis, parameter: str
              ) -> tuple[_user_call.UserCall, ast.expr] | None:
    """The user's plain call on the card's line and what it writes for ``parameter``."""
    plain = _contract_call.plain_call(ctx, diagnosis)
    node = _contract_call.given(plain[0], parameter) if plain is not None else None
    return (plain[0], node) if plain is not None and node is not None else None


# -- a one-element predicate ---------------------------------------------------------------

_PREDICATE = re.compile(r"Pred must be a scalar, got .* of shape (?P<shape>\([\d, ]*\))")


def _one_element_predicate_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    found = _PREDICATE.search(ctx.top.message)
    shape = _shapes.shapes_in(found["shape"]) if found is not None else []
    if found is None or len(shape) != 1 or not shape[0] or any(d != 1 for d in shape[0]):
        return None
    given = _argument(ctx, diagnosis, "pred")
    if given is None:
        return None
    return _contract_call.rewritten(
        ctx, diagnosis.location, ((given[1], "{}.reshape(())"),),
        label="Pass the predicate as a scalar",
        why="cond takes one truth value, and the predicate holds exactly one",
        safety=(f"Same branch: the predicate has one element (shape {found['shape']}), and "
                "reshape(()) is that element as a scalar."))


# -- scalars concatenated --------------------------------------------------------------------

def _scalars_joined_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    jnp = ctx.alias("jax.numpy")
    if "Zero-dimensional arrays cannot be concatenated" not in ctx.top.message or jnp is None:
        return None
    call = ctx.user_call
    given = _argument(ctx, diagnosis, "arrays")
    if call is None or given is None or getattr(call.function, "__name__", "") != "concatenate" \
            or not str(getattr(call.function, "__module__", "")).startswith("jax"):
        return None
    node = call.node
    assert isinstance(node, ast.Call)
    axis = _argument(ctx, diagnosis, "axis")
    if axis is not None and not (isinstance(axis[1], ast.Constant) and axis[1].value == 0):
        return None
    if any(k.arg not in ("arrays", "axis") for k in node.keywords) or len(node.args) > 2:
        return None
    # the arrays as JAX's concatenate received them (calls on the line included)
    received = _contract_call.received(ctx, "concatenate")
    arrays = received.get("arrays") if received is not None else None
    if not isinstance(arrays, tuple | list) or not arrays:
        return None
    shapes = [_shapes.array_shape(a) if not isinstance(a, int | float) else () for a in arrays]
    if any(s is None or len(s) > 1 for s in shapes):
        return None
    func = node.func
    spelled = ast.unparse(func)
    if not spelled.endswith("concatenate"):
        return None
    return _contract_call.rewritten(
        ctx, diagnosis.location, ((func, spelled[:-len("concatenate")] + "hstack"),),
        label=f"Use {spelled[:-len('concatenate')]}hstack",
        why="hstack takes each 0-d array as one element, as NumPy's does",
        safety=("Same values: each 0-d array becomes one element and each array of one "
                "dimension stays as it is, joined along axis 0 in the same order."))


__all__ = ["fixes"]
