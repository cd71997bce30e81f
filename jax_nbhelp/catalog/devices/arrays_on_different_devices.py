"""Arrays placed on different devices or meshes used in one computation: ``a + b`` with ``a``
on one mesh and ``b`` on another (``ValueError: Received incompatible devices for jitted
computation. Got argument x of add with shape float32[] and with device ids [0] on platform
CPU and argument y of add ... device ids [1] ...``; ``ValueError: Mesh for all inputs should
be equal. Got one mesh: AbstractMesh('a': 1, ...) and another mesh: AbstractMesh('b': 1,
...)``).

JAX never moves a committed array on its own: every input of one computation must live on
the same devices (or mesh). The explanation names the arrays on the line and where each
lives, from JAX's message. No fix: which placement is right (and what moving an array
costs) is the user's choice; the note says how to move one (``jax.device_put(b,
a.sharding)``).

Reports: Physical-Intelligence/openpi#261 (inputs on one GPU, parameters on two),
marin-community/marin#1727 (a key on GPUs against a jit's mesh on CPU),
keras-team/keras#18681 (a sharding constraint on one device against sharded state),
scverse/scvi-tools#1907 (an argument on GPU against a pjit on CPU). JAX's docs teach it in
the 201 placement tutorial.
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH601"
TITLE = "Arrays on different devices or meshes in one computation"
DEVICES = "Received incompatible devices for jitted computation"
MESHES = "Mesh for all inputs should be equal"

_ARGUMENT_RE = re.compile(r"argument (?P<name>\S+) of (?P<function>\S+) with shape "
                          r"(?P<shape>\S+) and with device ids (?P<ids>\[[^\]]*\])")
_INSIDE_RE = re.compile(r"(?P<what>[\w.]+) inside jit with device ids (?P<ids>\[[^\]]*\])")
_MESH_RE = re.compile(r"AbstractMesh\((?P<axes>[^)]*?), axis_types")

_SETUP = ("import jax, jax.numpy as jnp\n"
          "from jax.sharding import NamedSharding, PartitionSpec as P, AxisType\n"
          "rows = jax.make_mesh((1,), ('rows',), axis_types=(AxisType.Explicit,))\n"
          "cols = jax.make_mesh((1,), ('cols',), axis_types=(AxisType.Explicit,))\n"
          "a = jax.device_put(jnp.ones(2), NamedSharding(rows, P()))\n"
          "b = jax.device_put(jnp.ones(2), NamedSharding(cols, P()))")

EXAMPLES = (
    corrected_cell((_SETUP,), "total = a + b", "total = a + jax.device_put(b, a.sharding)",
                   NO_FIX, "total.tolist() == [2.0, 2.0]"),
)

WHY = _entry.prose("""
A committed array (one you placed with jax.device_put, or the result of a computation on
placed arrays) stays where it is: JAX does not copy it between devices or meshes behind your
back, because a copy can be slow and a placement is a choice. All inputs of one computation
must live on the same devices, laid out on the same mesh.
""")


MATCH = Match(DEVICES, "ValueError", also=(MESHES,))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    arrays = [v.text for v in ctx.values_at(location) if v.is_array]
    named = " and ".join(f"`{a}`" for a in arrays[:2]) if len(arrays) >= 2 else "its inputs"
    inside = _INSIDE_RE.search(link.message)
    if DEVICES in link.message and inside is not None:
        argument = _ARGUMENT_RE.search(link.message)
        given = (f"{argument['name']} ({argument['shape']}) on devices {argument['ids']}"
                 if argument is not None else "an argument")
        explanation = (f"{subject} calls a jitted function with {given}, and inside it "
                       f"{inside['what']} asks for devices {inside['ids']}: one jitted "
                       "computation runs on one set of devices.")
        notes = ["Move the array before the call (`jax.device_put(x, sharding)` outside "
                 "jit), or make the placement inside the function use the devices its "
                 "inputs are on."]
        return _entry.diagnosis(ctx, __name__, explanation, location=location,
                                call_site=ctx.call_site(), notes=notes,
                                error=link.summary.splitlines()[0])
    if DEVICES in link.message:
        places = [f"{m['name']} ({m['shape']}) on devices {m['ids']}"
                  for m in _ARGUMENT_RE.finditer(link.message)][:2]
        where = "; ".join(places)
        explanation = (f"{subject} computes with {named}, which live on different devices"
                       f"{f': {where}' if where else ''}.")
    else:
        meshes = [m["axes"] for m in _MESH_RE.finditer(link.message)][:2]
        where = " and ".join(f"a mesh with axes {axes}" for axes in meshes)
        explanation = (f"{subject} computes with {named}, which are laid out on different "
                       f"meshes{f' ({where})' if where else ''}.")
    first, second = (arrays + ["a", "b"][len(arrays):])[:2] if len(arrays) < 2 else arrays[:2]
    notes = [f"Put them in one place first: `jax.device_put({second}, {first}.sharding)` "
             f"moves {second} to where {first} lives (a copy between devices), or create "
             "both on the same mesh."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
