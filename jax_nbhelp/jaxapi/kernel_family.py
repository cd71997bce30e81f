"""Which chip family a Pallas kernel is written for, from the objects it is built with.

Pallas keeps each family's types in its own package: Mosaic TPU in ``jax._src.pallas.mosaic``,
Mosaic GPU in ``jax._src.pallas.mosaic_gpu``, Triton in ``jax._src.pallas.triton``. A
kernel's compiler parameters, mesh, memory spaces and grid spec are instances of those types,
so the module of their class names the family. Which interpreter runs a kernel on a CPU
follows from it (measured on jax 0.10.2):

- TPU kernels: TPU interpret mode (``pltpu.InterpretParams()``). Plain ``interpret=True``
  runs ``core_map`` over a TPU mesh and returns zeros, and cannot do remote copies.
- Triton-style GPU kernels (``compiler_params=plgpu.CompilerParams`` of the Triton
  backend): ``interpret=True``. The TPU interpreter asserts that the compiler parameters
  are its own, with a bare ``AssertionError``.
- Mosaic GPU kernels: GPU interpret mode (``InterpretGPUParams()``).

Nothing here imports jax: values are classified by their type's module name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

Family = Literal["tpu", "gpu", "triton", ""]

_HOMES: tuple[tuple[str, Family], ...] = (
    ("jax._src.pallas.mosaic_gpu.", "gpu"),
    ("jax._src.pallas.mosaic.", "tpu"),
    ("jax._src.pallas.triton.", "triton"),
)
# Older releases took compiler parameters as a dict keyed by backend.
_DICT_KEYS: dict[str, Family] = {"mosaic": "tpu", "mosaic_tpu": "tpu", "mosaic_gpu": "gpu",
                                 "triton": "triton"}
# The interpreter that runs each family on a CPU ("hlo" is plain interpret=True).
INTERPRETER: dict[str, str] = {"tpu": "tpu", "gpu": "gpu", "triton": "hlo"}
NAMES: dict[str, str] = {"tpu": "TPU (Mosaic) kernels", "gpu": "Mosaic GPU kernels",
                         "triton": "Triton-style GPU kernels"}


def family_of_value(value: Any) -> Family:
    """The family whose package defines ``value``'s type, or ""."""
    module = type(value).__module__ + "."
    for home, family in _HOMES:
        if module.startswith(home):
            return family
    return ""


def _spec_families(spec: Any, found: set[Family], depth: int = 0) -> None:
    """Families of a BlockSpec, a scratch shape, or a (nested) list or dict of them."""
    if spec is None or depth > 4:
        return
    if isinstance(spec, Mapping):
        spec = list(spec.values())
    if isinstance(spec, list | tuple):
        for item in spec[:64]:
            _spec_families(item, found, depth + 1)
        return
    found.add(family_of_value(spec))
    space = getattr(spec, "memory_space", None)
    if space is not None:
        found.add(family_of_value(space))


def _compiler_family(params: Any) -> Family:
    if isinstance(params, Mapping):
        for key in params:
            family = _DICT_KEYS.get(str(key), "")
            if family:
                return family
        return ""
    return family_of_value(params) if params is not None else ""


def family_of_build(names: Mapping[str, Any]) -> Family:
    """The family of a kernel being built, from the builder's arguments (``names``: the
    locals of ``pallas_call``, ``core_map``, ``pl.kernel``, ``plgpu.kernel``...). "" when
    nothing in them belongs to a family: a plain grid kernel."""
    compiler = _compiler_family(names.get("compiler_params"))
    if compiler:
        return compiler  # the strongest evidence: it is what the compiler is told
    found: set[Family] = set()
    meshes: list[Any] = [names.get("mesh")]
    pairs = names.get("meshes_and_fns")
    if isinstance(pairs, Iterable) and not isinstance(pairs, str | bytes):
        meshes += [pair[0] for pair in list(pairs)[:16] if isinstance(pair, tuple) and pair]
    for mesh in meshes:
        if mesh is not None:
            found.add(family_of_value(mesh))
    grid_spec = names.get("grid_spec")
    if grid_spec is not None:
        found.add(family_of_value(grid_spec))  # pltpu.PrefetchScalarGridSpec
        for part in ("in_specs", "out_specs", "scratch_shapes"):
            _spec_families(getattr(grid_spec, part, None), found)
    for part in ("in_specs", "out_specs", "scratch_shapes", "scratch_types", "out_type"):
        _spec_families(names.get(part), found)
    found.discard("")
    if len(found) == 1:
        return found.pop()
    if "gpu" in found and "tpu" not in found:
        return "gpu"
    return ""  # none, or both: the session's default decides
