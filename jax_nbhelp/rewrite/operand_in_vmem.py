"""Fix: let Pallas copy an operand into VMEM instead of leaving it in HBM (``pl.ANY``).

A ``pallas_call`` operand whose spec is ``pl.BlockSpec(memory_space=pl.ANY)`` stays in HBM,
where a TPU kernel may only reach it with DMAs. When the kernel reads it directly anyway,
dropping ``memory_space`` turns the spec into ``pl.BlockSpec()``: the whole array, copied
into VMEM before the body runs (and back, for an output), which is what the direct read
meant.
"""

from __future__ import annotations

import libcst as cst

from ._args import drop_argument
from ._cst import dotted_name, locate, rewrite_calls
from .errors import CannotRewrite
from .interpret_arg import is_kernel_call
from .magics import rewrite_line

__all__ = ["operand_to_vmem", "operand_to_vmem_python"]

_HBM_NAMES = frozenset({"ANY", "HBM"})


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _elements(value: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(value, cst.List | cst.Tuple):
        if any(isinstance(e, cst.StarredElement) for e in value.elements):
            return None
        return [e.value for e in value.elements]
    return None


def _hbm_spec(spec: cst.BaseExpression) -> cst.Call | None:
    """``spec`` if it is ``<...>.BlockSpec(memory_space=<...>.ANY|HBM)`` and nothing else."""
    if not isinstance(spec, cst.Call):
        return None
    if (dotted_name(spec.func) or "").rsplit(".", 1)[-1] != "BlockSpec" or len(spec.args) != 1:
        return None
    arg = spec.args[0]
    if arg.keyword is None or arg.keyword.value != "memory_space":
        return None
    space = (dotted_name(arg.value) or "").rsplit(".", 1)[-1]
    return spec if space in _HBM_NAMES else None


def _target(call: cst.Call, operand: int) -> cst.Call:
    in_specs = _keyword(call, "in_specs")
    inputs = _elements(in_specs.value) if in_specs is not None else None
    if inputs is None:
        raise CannotRewrite(
            "The pallas_call has no in_specs=[...] list jax_nbhelp can read, so it cannot tell "
            "which spec belongs to the ref."
        )
    if operand < len(inputs):
        spec = inputs[operand]
    else:
        out_specs = _keyword(call, "out_specs")
        if out_specs is None:
            raise CannotRewrite("The ref is not an input, and the pallas_call has no out_specs=.")
        outputs = _elements(out_specs.value)
        index = operand - len(inputs)
        if outputs is None:
            outputs = [out_specs.value]
        if index >= len(outputs):
            raise CannotRewrite("The ref is neither an input nor an output (a scratch buffer?).")
        spec = outputs[index]
    found = _hbm_spec(spec)
    if found is None:
        raise CannotRewrite(
            "The ref's spec is not a plain BlockSpec(memory_space=pl.ANY), so changing it "
            "would change more than where the operand lives."
        )
    return found


def operand_to_vmem_python(source: str, lineno: int, operand: int) -> str:
    """Like :func:`operand_to_vmem` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    calls = [site.node for site in located.calls_at(lineno) if is_kernel_call(site.node)]
    calls = [call for call in calls if (dotted_name(call.func) or "").endswith("pallas_call")
             or (call.args and (dotted_name(call.args[0].value) or "").endswith("pallas_call"))]
    if len(calls) != 1:
        raise CannotRewrite(f"Line {lineno} has no single pallas_call whose specs can change.")
    spec = _target(calls[0], operand)
    return rewrite_calls(located.module, [spec], lambda call: drop_argument(call, 0)).code


def operand_to_vmem(source: str, lineno: int, operand: int) -> str:
    """Turn the HBM spec of kernel operand ``operand`` (0-based, inputs then outputs) of the
    ``pallas_call`` at 1-based ``lineno`` into ``BlockSpec()``. Raises :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: operand_to_vmem_python(code, lineno, operand))
