"""The user's call as the explained card's contract rules read it: the call on the card's
line, and what it writes for a parameter of the JAX function it calls (bound by that
function's signature). Shared by ``_contract`` and the rule modules it asks."""

from __future__ import annotations

import ast

from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext


def plain_call(ctx: ErrorContext, diagnosis: Diagnosis
               ) -> tuple[_user_call.UserCall, Location, ast.Call] | None:
    """The user's call on the card's line, where it is a plain call of a function (not a
    method, not an operator) whose callee is known."""
    call = ctx.user_call
    location = diagnosis.location
    if call is None or location is None or call.location != location \
            or not isinstance(call.node, ast.Call) or call.function is None \
            or call.method_of is not None:
        return None
    return call, location, call.node


def given(call: _user_call.UserCall, parameter: str) -> ast.expr | None:
    """What the user's call writes for ``parameter`` (bound by JAX's signature); None where
    it passes nothing written there (a default, an item of ``*args``)."""
    bound = _user_call.bind(call)[1]
    argument = bound.arguments.get(parameter) if bound is not None else None
    return argument.node if isinstance(argument, _user_call.Argument) else None


def received(ctx: ErrorContext, function: str) -> dict[str, object] | None:
    """The locals of JAX's own frame of ``function`` (the outermost one in the traceback):
    the arguments as JAX received them, expressions on the user's line evaluated. None
    where the traceback has no such frame or its frame is gone."""
    entry = next((f for f in ctx.top.frames if f.function == function and not f.is_user),
                 None)
    live = ctx.live_frame_of(entry) if entry is not None else None
    return dict(live.f_locals) if live is not None else None
