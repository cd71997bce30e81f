"""What JAX knew about a failing Pallas kernel, read from the error's frames as plain strings.

Pallas errors raised while lowering or interpreting a kernel (``Only interpret mode is
supported on CPU backend.``, an interpreter refusing a mesh or a memory space) are raised
from frames that hold the kernel itself: its mesh, its compiler parameters, the jaxpr of its
body and the ``interpret`` value it was built with. Which interpreter fits a kernel is
decided by exactly those, so they are read here, once, while the exception is still alive,
and kept as strings (never the objects: they would keep the user's arrays alive).

Nothing here imports jax; every read is guarded, so on a JAX whose frames look different the
result is simply ``None`` and the diagnoses fall back to the user's source.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any, Literal

from jax_nbhelp.jaxapi import kernel_family

Family = kernel_family.Family

# Primitive names only TPU kernels contain (DMAs and semaphores are Mosaic TPU features).
_TPU_PRIMITIVE_WORDS = ("dma", "semaphore")
_MAX_EQUATIONS = 5000


@dataclass(frozen=True)
class KernelFacts:
    """The failing kernel, as JAX saw it. Every field is a string or a tuple of strings."""

    mesh: str = ""  # type name of the kernel's mesh ("TensorCoreMesh"), "" for a grid kernel
    mesh_family: Family = ""
    compiler_params: str = ""
    compiler_family: Family = ""
    memory_spaces: tuple[str, ...] = ()  # "tpu:vmem", "gpu:gmem", "any", "default"
    primitives: tuple[str, ...] = ()  # every primitive in the kernel body, sorted
    interpret: str = ""  # "False", "True", "tpu", "gpu", "None" or a type name
    platforms: tuple[str, ...] = ()  # platforms the kernel was being lowered for
    mesh_kernel: bool = False  # built by pl.kernel / core_map / plgpu.kernel (a mesh)
    # memory space of each kernel argument, in order (inputs, outputs, scratch)
    ref_spaces: tuple[str, ...] = ()
    # the kernel's grid (one program per point), () when unknown or a mesh kernel
    grid: tuple[int, ...] = ()
    # the sizes of the blocks its BlockSpecs cut (ints only; squeezed dims left out)
    block_sizes: tuple[int, ...] = ()
    # each BlockSpec's block, in order (a squeezed dimension is 1): the work of one grid step
    block_shapes: tuple[tuple[int, ...], ...] = ()
    # the bytes of the whole arrays the BlockSpecs cut (an interpreter copies them per step)
    array_bytes: int = 0

    @property
    def tpu_evidence(self) -> tuple[str, ...]:
        """Why this is a TPU kernel, as phrases a user recognises (empty if it is not)."""
        found = []
        if self.mesh_family == "tpu":
            found.append(f"it runs over a TPU mesh ({self.mesh})")
        spaces = [s.split(":", 1)[1] for s in self.memory_spaces if s.startswith("tpu:")]
        if any(word in p for p in self.primitives for word in _TPU_PRIMITIVE_WORDS):
            found.append("it starts DMAs or uses semaphores")
        if spaces:
            found.append("it uses TPU memory (" + ", ".join(sorted(set(spaces))) + ")")
        if "any" in self.memory_spaces and not self.gpu_evidence:
            found.append("it keeps operands in place (pl.ANY) for manual copies")
        if self.compiler_family == "tpu":
            found.append(f"it has TPU compiler parameters ({self.compiler_params})")
        return tuple(found)

    @property
    def gpu_evidence(self) -> tuple[str, ...]:
        found = []
        if self.mesh_family == "gpu":
            found.append(f"it runs over a Mosaic GPU mesh ({self.mesh}, from plgpu.kernel)")
        spaces = [s.split(":", 1)[1] for s in self.memory_spaces if s.startswith("gpu:")]
        if spaces:
            found.append("it uses GPU memory (" + ", ".join(sorted(set(spaces))) + ")")
        if self.compiler_family == "gpu":
            found.append(f"it has GPU compiler parameters ({self.compiler_params})")
        return tuple(found)

    @property
    def triton(self) -> bool:
        """A Triton-style GPU kernel: plain interpret=True runs it, TPU interpret mode not."""
        return self.compiler_family == "triton"

    @property
    def family(self) -> Literal["tpu", "gpu", "mixed", "generic"]:
        """Which hardware the kernel is written for, hence which interpreter fits it."""
        tpu, gpu = bool(self.tpu_evidence), bool(self.gpu_evidence)
        if tpu and gpu:
            # A GPU mesh decides: plgpu kernels often carry pl.ANY refs too.
            if self.mesh_family == "gpu" and not any(
                s.startswith("tpu:") for s in self.memory_spaces
            ):
                return "gpu"
            if self.mesh_family == "tpu" and not any(
                s.startswith("gpu:") for s in self.memory_spaces
            ):
                return "tpu"
            return "mixed"
        if tpu:
            return "tpu"
        if gpu:
            return "gpu"
        return "generic"


_family_of = kernel_family.family_of_value


def _memory_space(value: Any) -> str:
    family = _family_of(value)
    text = str(value).lower()
    if text.startswith("memoryspace."):
        text = text.split(".", 1)[1]
    return f"{family}:{text}" if family else text


def _interpret_text(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return str(value)
    name = type(value).__name__
    if "GPU" in name or _family_of(value) == "gpu":
        return "gpu"
    if name == "InterpretParams" or _family_of(value) == "tpu":
        return "tpu"
    return name


def _sub_jaxprs(value: Any) -> Iterator[Any]:
    if isinstance(value, tuple | list):
        for item in value:
            yield from _sub_jaxprs(item)
        return
    inner = getattr(value, "jaxpr", None)  # ClosedJaxpr
    if inner is not None and hasattr(inner, "eqns"):
        yield inner
    elif hasattr(value, "eqns") and hasattr(value, "invars"):
        yield value


def _walk_jaxpr(jaxpr: Any, primitives: set[str], spaces: set[str], budget: list[int]) -> None:
    for var in getattr(jaxpr, "invars", ()):
        space = getattr(getattr(var, "aval", None), "memory_space", None)
        if space is not None:
            spaces.add(_memory_space(space))
    for eqn in getattr(jaxpr, "eqns", ()):
        budget[0] -= 1
        if budget[0] < 0:
            return
        name = getattr(getattr(eqn, "primitive", None), "name", None)
        if isinstance(name, str):
            primitives.add(name)
        params = getattr(eqn, "params", None)
        if isinstance(params, Mapping):
            for value in params.values():
                for sub in _sub_jaxprs(value):
                    _walk_jaxpr(sub, primitives, spaces, budget)


def _frames(tb: TracebackType | None) -> Iterator[FrameType]:
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next


def _is_pallas_frame(frame: FrameType) -> bool:
    path = frame.f_code.co_filename.replace(os.sep, "/")
    return "/jax/_src/pallas/" in path


def _kernel_params(frame: FrameType) -> dict[str, Any]:
    """The kernel's parameters held by one Pallas frame (locals, or its ``params`` dict)."""
    local = frame.f_locals
    found: dict[str, Any] = {}
    params = local.get("params")
    if isinstance(params, Mapping):
        found.update(params)
    for key in ("jaxpr", "mesh", "compiler_params", "interpret", "ctx", "grid_mapping"):
        if key in local and key not in found:
            found[key] = local[key]
    if "interpret" not in found and "interpret_params" in local:
        found["interpret"] = local["interpret_params"]
    # Only frames that hold a whole kernel count: inner interpreter frames hold sub-jaxprs.
    if "grid_mapping" not in found or not hasattr(found.get("jaxpr"), "eqns"):
        return {}
    return found


def _facts(params: Mapping[str, Any], mesh_kernel: bool) -> KernelFacts:
    mesh = params.get("mesh")
    compiler_params = params.get("compiler_params")
    primitives: set[str] = set()
    spaces: set[str] = set()
    _walk_jaxpr(params["jaxpr"], primitives, spaces, [_MAX_EQUATIONS])
    platforms: tuple[str, ...] = ()
    ref_spaces = tuple(
        _memory_space(space) if (space := getattr(getattr(var, "aval", None), "memory_space",
                                                  None)) is not None else ""
        for var in getattr(params["jaxpr"], "invars", ())
    )
    module_context = getattr(params.get("ctx"), "module_context", None)
    found = getattr(module_context, "platforms", None)
    if isinstance(found, tuple | list):
        platforms = tuple(str(p) for p in found)
    grid = getattr(params.get("grid_mapping"), "grid", ())
    return KernelFacts(
        block_sizes=_block_sizes(params.get("grid_mapping")),
        block_shapes=_block_shapes(params.get("grid_mapping")),
        array_bytes=_array_bytes(params.get("grid_mapping")),
        grid=tuple(grid) if isinstance(grid, tuple) and all(
            isinstance(n, int) for n in grid) else (),
        mesh=type(mesh).__name__ if mesh is not None else "",
        mesh_family=_family_of(mesh) if mesh is not None else "",
        compiler_params=type(compiler_params).__name__ if compiler_params is not None else "",
        compiler_family=_family_of(compiler_params) if compiler_params is not None else "",
        memory_spaces=tuple(sorted(spaces)),
        primitives=tuple(sorted(primitives)),
        interpret=_interpret_text(params.get("interpret")) if "interpret" in params else "",
        platforms=platforms,
        mesh_kernel=mesh_kernel or mesh is not None,
        ref_spaces=ref_spaces,
    )


def _block_sizes(grid_mapping: Any) -> tuple[int, ...]:
    sizes: set[int] = set()
    for mapping in getattr(grid_mapping, "block_mappings", ()) or ():
        for dim in getattr(mapping, "block_shape", ()) or ():
            size = dim if isinstance(dim, int) else getattr(dim, "block_size", None)
            if isinstance(size, int) and size > 1:
                sizes.add(size)
    return tuple(sorted(sizes))


def _block_shapes(grid_mapping: Any) -> tuple[tuple[int, ...], ...]:
    shapes = []
    for mapping in getattr(grid_mapping, "block_mappings", ()) or ():
        dims = []
        for dim in getattr(mapping, "block_shape", ()) or ():
            size = dim if isinstance(dim, int) else getattr(dim, "block_size", 1)
            dims.append(size if isinstance(size, int) and size > 0 else 1)
        shapes.append(tuple(dims))
    return tuple(shapes)


def _array_bytes(grid_mapping: Any) -> int:
    total = 0
    for mapping in getattr(grid_mapping, "block_mappings", ()) or ():
        aval = getattr(mapping, "array_aval", None)
        size, dtype = getattr(aval, "size", None), getattr(aval, "dtype", None)
        itemsize = getattr(dtype, "itemsize", None)
        if isinstance(size, int) and isinstance(itemsize, int):
            total += size * itemsize
    return total


def from_exception(exc: BaseException) -> KernelFacts | None:
    """The innermost Pallas kernel in ``exc``'s traceback (or its causes'), else None.

    Never raises: this runs for every error the hook sees.
    """
    try:
        current: BaseException | None = exc
        seen = 0
        while current is not None and seen < 8:
            seen += 1
            merged: dict[str, Any] = {}
            mesh_kernel = False
            for frame in _frames(current.__traceback__):
                if not _is_pallas_frame(frame):
                    continue
                if "mpmd" in frame.f_code.co_filename or frame.f_code.co_name == "core_map":
                    mesh_kernel = True
                # Outer frames first: inner ones refine, and never erase, what outer ones held.
                merged.update(_kernel_params(frame))
            if merged:
                return _facts(merged, mesh_kernel)
            current = current.__cause__ or current.__context__
    except Exception:
        return None
    return None
