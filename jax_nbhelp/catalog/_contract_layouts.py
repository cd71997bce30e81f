"""Contract fixes for the explained view (``JNH001``) where an array's axes are laid out
otherwise than the call's dimension numbers say.

**Channels-last images given to a channels-first convolution.** ``lax.conv_general_dilated``
(``lax.conv``, ``lax.conv_with_general_padding``) reads its input's axes as its
``dimension_numbers`` say: ``NCHW`` unless told otherwise, the layout of PyTorch's models,
while image loaders and Flax give ``NHWC``. JAX checks that the input's feature axis holds
as many channels as the kernel takes (``lhs feature dimension size divided by
feature_group_count must equal the rhs input feature dimension size, but 10 // 1 != 3``).
Where the input has exactly one other axis (not its batch) of the kernel's channel count,
its channels are there: ``jnp.moveaxis(images, 3, 1)`` puts that axis where the dimension
numbers read the channels and keeps every other axis in its order (``transpose(images, (0,
3, 1, 2))`` for NHWC to NCHW). The dimension numbers are read by JAX's own
``lax.conv_dimension_numbers`` from the shapes and the call's argument. Only without feature
groups (a grouped convolution's channel count is the user's to say).

Reports: jax-ml/jax#3289 (a ResNet written for NCHW fed images with their color channels
last; the answer: transpose the images by ``[0, 3, 1, 2]``).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _contract_call, _shapes
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import CANNOT

_FEATURES = re.compile(r"lhs feature dimension size divided by feature_group_count must equal "
                       r"the rhs input feature dimension size, but (?P<lhs>\d+) // "
                       r"(?P<groups>\d+) != (?P<rhs>\d+)")
_CONVOLUTIONS = ("conv_general_dilated", "conv", "conv_with_general_padding")


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    return _channels_fix(ctx, diagnosis)


def _channels_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    found = _FEATURES.search(ctx.top.message)
    plain = _contract_call.plain_call(ctx, diagnosis) if found is not None else None
    jnp = ctx.alias("jax.numpy")
    if found is None or plain is None or found["groups"] != "1" or jnp is None:
        return None
    call = plain[0]
    function = call.function
    if getattr(function, "__name__", "") not in _CONVOLUTIONS \
            or not str(getattr(function, "__module__", "")).startswith("jax"):
        return None
    lhs = _contract_call.given(call, "lhs")
    rhs = _contract_call.given(call, "rhs")
    given = _contract_call.given(call, "dimension_numbers")
    # no dimension numbers written: the parameter's default, None
    numbers = _contract_call.value_of(call, given) if given is not None else None
    if lhs is None or rhs is None or numbers is CANNOT:
        return None
    data = _shapes.array_shape(_contract_call.value_of(call, lhs))
    kernel = _shapes.array_shape(_contract_call.value_of(call, rhs))
    if data is None or kernel is None:
        return None
    from jax import lax

    try:
        specs = lax.conv_dimension_numbers(data, kernel, numbers)
    except Exception:  # dimension numbers JAX itself cannot read: nothing to say
        return None
    batch, feature = specs.lhs_spec[0], specs.lhs_spec[1]
    channels = kernel[specs.rhs_spec[1]]
    if data[feature] == channels:
        return None
    axes = [a for a in range(len(data)) if a not in (batch, feature) and data[a] == channels]
    if len(axes) != 1:
        return None
    axis = axes[0]
    text = ast.unparse(lhs)
    return _contract_call.rewritten(
        ctx, diagnosis.location, [(lhs, f"{jnp}.moveaxis({{}}, {axis}, {feature})")],
        label=f"Read the channels at axis {axis}",
        why=(f"its axis {axis} holds the kernel's {channels} input channels, and the "
             f"dimension numbers read the channels at axis {feature}"),
        safety=(f"Reads {text}'s axis {axis}, its only axis of the kernel's {channels} input "
                f"channels, as its channels, where the dimension numbers put them (axis "
                f"{feature}); every other axis keeps its order, so each pixel keeps its "
                "channels and its place."))


__all__ = ["fixes"]
