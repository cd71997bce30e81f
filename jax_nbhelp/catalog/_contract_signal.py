"""Contract fixes for the explained view (``JNH001``) where ``jax.scipy.signal``'s 2-D
convolution is asked for a boundary it does not implement.

**A boundary SciPy has and JAX does not.** ``convolve2d(x, k, mode='same',
boundary='wrap')`` (``'symm'``, or ``'fill'`` with a ``fillvalue`` other than 0):
``jax.scipy.signal.convolve2d`` and ``correlate2d`` pad with zeros only
(``NotImplementedError: convolve2d() only supports boundary='fill', fillvalue=0``). SciPy's
boundary is a padding of the input: padded as SciPy pads it (``jnp.pad`` with
``mode='wrap'``, ``'symmetric'``, or the constant), the ``'valid'`` part of the convolution
is SciPy's ``'same'`` result, element for element. The padding is split as SciPy centers
``'same'``: ``k // 2`` before each axis for a convolution, ``(k - 1) // 2`` for a
correlation, the rest after (checked against SciPy for odd and even kernels). In ``'valid'``
mode SciPy ignores the boundary, and the fix drops it. Read from the call's arguments: a 2-D
input and a 2-D kernel whose shapes are read from JAX's and NumPy's own arrays.

Only for a kernel no larger than the input along each axis (SciPy's wrapping of a larger
kernel is not a padding, scipy/scipy#8684).

Reports: jax-ml/jax#7276 (a periodic image filtered with ``boundary='wrap'``),
jax-ml/jax#37413 (wrap support written as this padding and a ``'valid'`` convolution),
jax-ml/jax#21218 (a review noting that ``'valid'`` needs no padding).
"""

from __future__ import annotations

import ast
import sys

from jax_nbhelp.catalog import _contract_call, _shapes
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator

_ONLY_FILL = "only supports boundary='fill', fillvalue=0"
_PADS = {"wrap": "'wrap'", "circular": "'wrap'", "symm": "'symmetric'",
         "symmetric": "'symmetric'"}
_KNOWN = frozenset({"in1", "in2", "mode", "boundary", "fillvalue"})


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    return _boundary_fix(ctx, diagnosis)


def _boundary_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    plain = _contract_call.plain_call(ctx, diagnosis)
    signal = sys.modules.get("jax.scipy.signal")
    jnp = ctx.alias("jax.numpy")
    if plain is None or _ONLY_FILL not in ctx.top.message or signal is None or jnp is None:
        return None
    call, location, node = plain
    name = next((n for n in ("convolve2d", "correlate2d")
                 if call.function is getattr(signal, n, None)), None)
    if name is None or {k.arg for k in node.keywords} - _KNOWN or len(node.args) > 5:
        return None
    given = {p: _contract_call.given(call, p) for p in _KNOWN}
    evaluate = Evaluator(call.frame)
    values = {p: _contract_call.value_of(call, n, evaluate) if n is not None else None
              for p, n in given.items()}
    mode = values["mode"] if given["mode"] is not None else "full"
    boundary = values["boundary"] if given["boundary"] is not None else "fill"
    fill = values["fillvalue"] if given["fillvalue"] is not None else 0
    kernel = _shapes.array_shape(values["in2"])
    data = _shapes.array_shape(values["in1"])
    if given["in1"] is None or given["in2"] is None or kernel is None or data is None \
            or len(kernel) != 2 or len(data) != 2 or type(boundary) is not str \
            or mode not in ("same", "valid") or type(fill) not in (int, float) \
            or any(k > n for k, n in zip(kernel, data, strict=True)):
        return None
    data_text = _text(given["in1"])
    kernel_text = _text(given["in2"])
    spelled = call.spelled
    if mode == "valid":
        after = f"{spelled}({data_text}, {kernel_text}, mode='valid')"
        why = "in 'valid' mode no output reaches past the input, so the boundary is not used"
        label = "Drop the boundary"
    else:
        if boundary in _PADS:
            how = f"mode={_PADS[boundary]}"
        elif boundary == "fill":
            how = f"constant_values={fill!r}"
        else:
            return None
        before_axis = [(k // 2 if name == "convolve2d" else (k - 1) // 2) for k in kernel]
        widths = ", ".join(f"({b}, {k - 1 - b})" for b, k in zip(before_axis, kernel,
                                                                   strict=True))
        padded = f"{jnp}.pad({data_text}, ({widths}), {how})"
        after = f"{spelled}({padded}, {kernel_text}, mode='valid')"
        why = (f"SciPy's boundary={boundary!r} pads the input, and the 'valid' part of the "
               f"{name.replace('2d', '')} of the padded input is its 'same' result")
        label = "Pad the input as SciPy does"
    return _contract_call.rewritten(
        ctx, location, [(node, after.replace("{", "{{").replace("}", "}}"))], label=label,
        why=why,
        safety=(f"Same values as SciPy's {name} with mode={mode!r} and boundary={boundary!r}, "
                "element for element; the padding is done by jnp.pad before the "
                f"{'convolution' if name == 'convolve2d' else 'correlation'}."))


def _text(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if isinstance(node, ast.Name | ast.Attribute | ast.Subscript | ast.Call) \
        else f"({text})"
