"""Contract fixes for the explained view (``JNH001``) where JAX's message names the function
to call instead, one that does the same with what the user's call gives it.

**pmap's placement helpers.** ``jax.device_put_replicated(x, devices)`` and
``jax.device_put_sharded(shards, devices)`` (``AttributeError: jax.device_put_replicated is
deprecated; use jax.device_put instead. See .../migrate_pmap.html#drop-in-replacements``):
what they returned is each array stacked along a new leading axis, one slice per device,
placed one slice on each device. ``jax.device_put`` with a ``NamedSharding`` over a
one-axis ``Mesh`` of those devices does that: for the replicated form, ``len(devices)``
copies of each leaf stacked; for the sharded form, the shards' leaves stacked. Written on
the user's line, with the notebook's names for jax, jax.numpy and NumPy (a ``Mesh`` takes a
NumPy array of devices), the same values in the same placement, for ``jax.pmap`` or anything
else (google/brax#671, a policy's parameters put on every local device for pmap;
genomicsxai/alphagenome_ft#11, the helper gone from a training script; jax-ml/jax#5105,
which added device_put_replicated and tested it against ``np.stack`` of one copy per
device).

**A sharding constraint on Explicit axes.** ``jax.lax.with_sharding_constraint(x, s)`` where
``s`` names axes of a mesh made with Explicit axis types (``jax.make_mesh``'s default in
newer releases): JAX's message says it takes only Auto axes and asks "You probably meant to
use `reshard` API?". ``jax.sharding.reshard(x, s)`` places ``x`` as ``s`` says under
Explicit sharding; neither changes a value (patrick-kidger/equinox#1171, a model's leaves
constrained by a library helper under an Explicit mesh).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

_DEPRECATED = re.compile(r"^jax\.(?P<name>device_put_replicated|device_put_sharded) is "
                         r"deprecated; use jax\.device_put instead")


_RESHARD = re.compile(r"passed to with_sharding_constraint can only refer to Auto axes .*"
                      r"You probably meant to use `reshard` API")


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    return _placement_fix(ctx, diagnosis) or _reshard_fix(ctx, diagnosis)


def _reshard_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    location = diagnosis.location
    jax = ctx.alias("jax")
    if _RESHARD.search(ctx.top.message) is None or location is None or jax is None:
        return None
    import jax as jax_module

    if not callable(getattr(jax_module.sharding, "reshard", None)):
        return None  # a JAX without it: no fix offered
    calls, code = _tracing.calls_named(location, "with_sharding_constraint")
    if len(calls) != 1 or len(calls[0].args) != 2 or calls[0].keywords:
        return None
    return callee_written(
        ctx, location, code, calls[0], f"{jax}.sharding.reshard",
        label="Use jax.sharding.reshard",
        why="the call JAX's message names for a mesh's Explicit axes",
        safety=("Same values: reshard places the array as the sharding says, as the "
                "constraint would on Auto axes; neither changes a value."))


def callee_written(ctx: ErrorContext, location: Location, code: str, call: ast.Call,
                   after: str, *, label: str, why: str, safety: str) -> Fix:
    """The safe fix that calls ``after`` where the line calls ``call``'s function, with the
    same arguments."""
    before = _tracing.segment(code, call.func)
    return rewrite_fix(
        ctx, location, _tracing.replacing(call.func, before, after), label=label,
        summary=f"Write `{after}` for `{before}` on line {location.lineno}, {why}; then re-run.",
        safety=safety, safe=True)


def _placement_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    found = _DEPRECATED.search(ctx.top.message) if ctx.top.is_a("AttributeError") else None
    location = diagnosis.location
    jax, jnp, np = ctx.alias("jax"), ctx.alias("jax.numpy"), ctx.alias("numpy")
    if found is None or location is None or None in (jax, jnp, np):
        return None
    name = found["name"]
    calls, code = _tracing.calls_named(location, name)
    calls = [n for n in calls if dotted(n.func) == f"{jax}.{name}"]
    if len(calls) != 1:
        return None
    call = calls[0]
    if len(call.args) != 2 or call.keywords or any(isinstance(a, ast.Starred)
                                                   for a in call.args):
        return None
    values, devices = (_tracing.segment(code, a) for a in call.args)
    if not isinstance(call.args[1], ast.Name | ast.Attribute | ast.Call):
        devices = f"({devices})"
    placed = (f"{jax}.sharding.NamedSharding({jax}.sharding.Mesh({np}.array({devices}), "
              f"('devices',)), {jax}.sharding.PartitionSpec('devices'))")
    if name == "device_put_replicated":
        after = (f"{jax}.tree.map(lambda leaf: {jax}.device_put({jnp}.stack([leaf] * "
                 f"len({devices})), {placed}), {values})")
        what = "one copy of each array per device"
    else:
        after = (f"{jax}.tree.map(lambda *leaves: {jax}.device_put({jnp}.stack(leaves), "
                 f"{placed}), *{values})")
        what = "each array's shards, one per device"
    before = _tracing.segment(code, call)
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after),
        label="Use jax.device_put",
        summary=(f"Write `{jax}.device_put` with a sharding over the devices for "
                 f"`{jax}.{name}` on line {location.lineno}, the replacement JAX's message "
                 "points to; then re-run."),
        safety=(f"Same values, placed the same way: {what}, stacked along a new leading axis "
                f"and put one slice on each device, as {name} did."),
        safe=True)
