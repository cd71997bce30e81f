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

**A scalar where dimensions are required.** ``jax.random.multivariate_normal(key, mu, cov)``
with ``cov`` a 0-d variance (``requires cov.ndim >= 2``), ``jnp.sum(x, axis=0)`` over a
pytree whose leaves include a 0-d entry (``axis 0 is out of bounds for array of dimension
0``): JAX's check read the number of dimensions of an argument the user's call gave as a
0-d array. A 0-d array is one number, and ``jnp.atleast_2d(cov)`` is that number as the
1x1 matrix the function takes (``atleast_1d`` for the one axis ``axis=0`` names): the same
number, with the dimensions the check asks for; an array that already has them passes
through ``atleast_nd`` unchanged. Only for a 0-d argument (a vector where a matrix is asked
for could be a row or a column). A notebook's global name is given its dimensions where it is
made, the lasting fix (later cells would meet the 0-d value again): in its cell, or in the
function of the user's whose ``return`` gave it (``mu, cov = fit(x)``, ``cov =
jnp.cov(obs)`` in ``fit``), and only where nothing else reads it (``_static_site.made_where``).
(jax-ml/jax#25951,
``jnp.cov`` of one variable is 0-d and ``multivariate_normal`` refuses it; numpy/numpy#5734,
a one-dimensional multivariate normal needs its covariance as a 1x1 matrix;
jax-ml/jax#14625, JAX's reductions refuse ``axis=0`` of a scalar, which NumPy allowed.)
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _contract_call, _shapes, _static_site, _tracing
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    for rule in (_one_element_predicate_fix, _scalars_joined_fix, _scalar_given_dimensions_fix):
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


# -- a scalar where dimensions are required -------------------------------------------------

_NDIM_AT_LEAST = re.compile(r"\bndim\b[^<>=]*>=\s*(?P<k>[123])\b")
_SHOWN_ZERO_D = re.compile(r"^(?:traced )?[a-z]+\d*\[\]$")  # "traced float32[]"
_AXIS_OF_SCALAR = re.compile(r"axis (?P<axis>-?\d+) is out of bounds for array of dimension 0")


def _zero_d(value: object) -> bool:
    """A Python float or a 0-d NumPy or JAX array (read from their own types); a Python int
    is an axis or a size as often as a number, and is left alone."""
    if type(value) is float:
        return True
    return _contract_call.array_dtype(value) is not None \
        and getattr(value, "shape", None) == ()


def _scalar_given_dimensions_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    jnp = ctx.alias("jax.numpy")
    check, binding = diagnosis.check, diagnosis.binding
    if jnp is None or check is None or binding is None:
        return None
    axis = _AXIS_OF_SCALAR.search(ctx.top.message)
    wanted = _NDIM_AT_LEAST.search(check.requirement or "")
    if axis is not None:
        number = int(axis["axis"])
        dimensions = number + 1 if number >= 0 else -number
    elif wanted is not None:
        dimensions = int(wanted["k"])
    else:
        return None
    # the check's own view of a parameter where JAX's frame shows it ("cov": "traced
    # float32[]"), else what the user's argument held
    shown = {part.text: part.value for part in check.parts}
    read = [a.parameter for a in binding.arguments if a.read and a.expression is not None]
    given = [(p, found) for p, found in ((p, _argument(ctx, diagnosis, p)) for p in read)
             if found is not None and (_SHOWN_ZERO_D.match(shown.get(p, ""))
                                       or _zero_d(_contract_call.value_of(*found)))]
    if not 1 <= dimensions <= 3 or len(given) != 1:
        return None
    parameter, (call, node) = given[0]
    helper = f"{jnp}.atleast_{dimensions}d"
    if isinstance(node, ast.Name) and call.frame.f_code.co_name == "<module>":
        # a notebook's global holding the 0-d value: later cells would meet it as it is,
        # so the lasting fix is where it is made
        return _made_fix(ctx, node.id, parameter, binding.function, helper, dimensions)
    return _contract_call.rewritten(
        ctx, diagnosis.location, ((node, helper + "({})"),),
        label=f"Pass it through {helper}",
        why=(f"{binding.function} needs {parameter} with at least {dimensions} "
             f"dimension{'s' if dimensions > 1 else ''}, and it is one number"),
        safety=(f"Same number: {parameter} is a 0-d array, one number, and "
                f"{helper} gives that number with the dimensions the check asks for; an "
                "array that already has them passes through unchanged."))


def _made_fix(ctx: ErrorContext, name: str, parameter: str, function: str, helper: str,
              dimensions: int) -> Fix | None:
    """The 0-d value of the global ``name`` made with ``dimensions`` where it is made (in
    its cell, or in the function of the user's whose return gave it), where nothing else
    reads it (``_static_site.made_where``)."""
    made = _static_site.made_where(ctx, name)
    if made is None:
        return None
    place, expression = made
    code = _tracing.parse(place.source)
    if code is None:
        return None
    before = _tracing.segment(code[1], expression)
    after = f"{helper}({before})"
    return rewrite_fix(
        ctx, place, _tracing.replacing(expression, before, after),
        label=f"Make {name} {dimensions}-D where it is made",
        summary=(f"Write `{after}` where {name} is made ({place.label}): {function} needs "
                 f"{parameter} with at least {dimensions} dimensions, and it is one number; "
                 "then re-run what uses it."),
        safety=(f"Same number: {name} is a 0-d array, one number, and {helper} gives that "
                f"number with the dimensions the check asks for; nothing else reads {name}."),
        safe=True)
