"""A kernel reads or writes past the end of a buffer, caught by a Pallas interpreter.

TPU interpret mode (``pltpu.InterpretParams()``) and GPU interpret mode check every ref
access and every block an index_map picks. The check runs inside the interpreter's host
callback, so the error reaches the user as ``JaxRuntimeError: INTERNAL: CpuCallback error
calling callback: Traceback ...`` with the interpreter's error in its text (measured on jax
0.10.2; the same texts on 0.9.2):

- ``IndexError: Out-of-bounds read of (0 0 smem 102): reading [(8,)] but buffer has shape
  (8,).`` (GPU: ``Out-of-bounds read of <allocation>: ...``);
- ``ValueError: Out-of-bounds swap of (0 0 smem 103): swapping [(8,)] but buffer has shape
  (8,) .`` (a store ``o_ref[i] = ...``; ``write`` and ``masked swap`` are alike);
- ``IndexError: Out-of-bounds block index (4, 0) for input "x_ref" in iteration (3,) on
  device 0 (core 0): reading [(slice(32, 40, 1), slice(0, 128, 1))] but input has shape
  (32, 128).`` (an index_map past the end; ``output`` for an out_spec).

The callback's text holds only the call's frames, not the kernel line that made the access:
that line is found in the user's cells (the kernel function the ``pallas_call`` builds, and
its ref subscripts or BlockSpecs).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import NO_FIX, edited
from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH211"
TITLE = "Kernel index past the end of a buffer (caught by interpret mode)"

_ACCESS_RE = re.compile(
    r"Out-of-bounds (?P<op>read|write|swap|masked swap) of (?P<buffer>\([^)]*\)|[^:]*):"
    r" (?:reading|writing|swapping) \[(?P<range>.*?)\] but buffer has shape"
    r" (?P<shape>\([^)]*\))")
_BLOCK_RE = re.compile(
    r"Out-of-bounds block index (?P<block>\([^)]*\)) for (?:[^\"]*?, )?(?P<kind>input|output)"
    r" \"(?P<name>[^\"]+)\" in iteration (?P<iteration>\([^)]*\))[^:]*:"
    r" (?:reading|writing) \[(?P<range>.*?)\] but (?:input|output) has shape"
    r" (?P<shape>\([^)]*\))")
_SLICE_RE = re.compile(r"slice\((-?\d+), (-?\d+), 1\)")
_TPU_BUFFER_RE = re.compile(r"^\((\d+) (\d+) (\w+) (\d+)\)$")
_INTERPRETERS = {"/pallas/mosaic_gpu/interpret/": "GPU", "/pallas/mosaic/interpret/": "TPU"}

_ROTATE = '''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def rotate_left(x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[i] = x_ref[i + 1]

rotate = pl.pallas_call(
    rotate_left,
    out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
    grid=(8,),
    in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM)],
    out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
    interpret=pltpu.InterpretParams(),
)
'''

_BLOCKS = '''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

add_one_blocks = pl.pallas_call(
    add_one,
    out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i + 1, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    interpret=pltpu.InterpretParams(),
)
'''

# jax 0.9.2's TPU interpreter keeps the failed kernel's state: every later interpreted kernel
# in the process then fails ("Revisited block ... of output 0"). Its 0.10 rewrite (which
# brought this params module) recovers, so the examples run from there on.
_RECOVERS = ("jax._src.pallas.mosaic.interpret.params",)

_ROTATE_CALL = "x = jnp.arange(8, dtype=jnp.float32)\nout = rotate(x)"
_BLOCKS_CALL = "out = add_one_blocks(jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128))"

EXAMPLES = (
    edited(_ROTATE, _ROTATE_CALL, NO_FIX, "bool((out == jnp.roll(x, -1)).all())",
           ("x_ref[i + 1]", "x_ref[(i + 1) % 8]"), requires=_RECOVERS),
    edited(_BLOCKS, _BLOCKS_CALL, NO_FIX,
           "bool((out == jnp.arange(32 * 128).reshape(32, 128) + 1).all())",
           ("lambda i: (i + 1, 0))]", "lambda i: (i, 0))]"), requires=_RECOVERS),
)

WHY = _entry.prose("""
Pallas does not check indices on the chip: a kernel that reads one element or one block past
the end of a buffer reads whatever memory lies there (garbage, or another buffer's data),
and a write past the end corrupts it, silently. The interpreters check every access and
every block an index_map picks, so this is a real bug in the kernel that interpret mode
caught. Usual causes: an off-by-one in an index (x_ref[i + 1] at the last program), in an
index_map (lambda i: (i + 1, 0)) or in pl.ds(start, size) (start + size must not pass the
end); a grid larger than the array needs, or one that does not divide it, so the last block
runs past the end.
""")


def _pretty_range(text: str) -> str:
    """``(slice(25, 33, 1), slice(0, 128, 1))`` -> ``[25:33, 0:128]``; ``(8,)`` -> ``[8]``."""
    text = _SLICE_RE.sub(r"\1:\2", text.strip())
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1].rstrip(",")
    return f"[{text}]"


def _past_end(range_text: str, shape_text: str) -> str:
    """Which axis the access passes, in words ("index 8 on axis 0, of size 8")."""
    parts = [p.strip() for p in _SLICE_RE.sub(r"\1:\2", range_text).strip("() ").split(",")
             if p.strip()]
    sizes = [int(n) for n in re.findall(r"-?\d+", shape_text)]
    for axis, (part, size) in enumerate(zip(parts, sizes, strict=False)):
        if ":" in part:
            start, stop = (int(n) for n in part.split(":"))
            if stop > size or start < 0:
                return f"{start}:{stop} on axis {axis}, whose size is {size}"
        elif part.lstrip("-").isdigit() and not 0 <= int(part) < size:
            return f"index {part} on axis {axis}, whose size is {size} (valid: 0 to {size - 1})"
    return f"{_pretty_range(range_text)} of a buffer of shape {shape_text}"


def _interpreter(ctx: ErrorContext) -> str:
    text = "\n".join(link.message + "\n" + "\n".join(f.filename for f in link.frames)
                     for link in ctx.chain).replace("\\", "/")
    for marker, family in _INTERPRETERS.items():
        if marker in text:
            return family
    return "The Pallas"


# --- where in the user's cells -------------------------------------------------------------


def _trivial(index: ast.expr) -> bool:
    """Whether a subscript takes the whole ref (``[...]``, ``[:]``, ``[:, :]``)."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    return all((isinstance(item, ast.Constant) and item.value is Ellipsis) or (
        isinstance(item, ast.Slice) and item.lower is None and item.upper is None
        and item.step is None) for item in items)


def _accesses(function: ast.FunctionDef, reading: bool) -> list[ast.Subscript]:
    found = []
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            wanted = ast.Load if reading else ast.Store
            if isinstance(node.ctx, wanted) and not _trivial(node.slice):
                found.append(node)
        if isinstance(node, ast.AugAssign):  # `ref[i] += x` reads and writes
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and not _trivial(target.slice):
                found.append(target)
    unique = {(n.lineno, n.col_offset): n for n in found}
    return [unique[key] for key in sorted(unique)]


def _has_arithmetic(node: ast.Subscript) -> bool:
    return any(isinstance(sub, ast.BinOp) for sub in ast.walk(node.slice))


def _parse(source: str) -> ast.Module | None:
    try:
        from jax_nbhelp.rewrite.magics import escape_magics

        return ast.parse(escape_magics(source)[0])
    except Exception:
        return None


def _kernel_call(tree: ast.Module, lineno: int) -> ast.Call | None:
    from jax_nbhelp.fix.kernel_cells import constructor_of

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno == lineno and constructor_of(node):
            return node
    return None


def _kernel_name(call: ast.Call, tree: ast.Module) -> str | None:
    if call.args and isinstance(call.args[0], ast.Name):
        return call.args[0].id
    # @functools.partial(pl.pallas_call, ...) on a def
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
                dec is call for dec in node.decorator_list):
            return node.name
    return None


def _function(cells: dict[int, str], name: str) -> tuple[int, ast.FunctionDef] | None:
    for number in sorted(cells, reverse=True):
        tree = _parse(cells[number])
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return number, node
    return None


def _spec_line(call: ast.Call, position: int, params: list[str], output: bool) -> int | None:
    """The line of the BlockSpec of the kernel's ``position``-th parameter."""
    specs = {k.arg: k.value for k in call.keywords if k.arg in ("in_specs", "out_specs")}
    inputs = specs.get("in_specs")
    count = len(inputs.elts) if isinstance(inputs, ast.List | ast.Tuple) else None
    if not output:
        if isinstance(inputs, ast.List | ast.Tuple) and position < len(inputs.elts):
            return inputs.elts[position].lineno
        return inputs.lineno if inputs is not None else None
    outputs = specs.get("out_specs")
    if outputs is None:
        return None
    if isinstance(outputs, ast.List | ast.Tuple) and count is not None:
        index = position - count
        if 0 <= index < len(outputs.elts):
            return outputs.elts[index].lineno
    return outputs.lineno


def _where(ctx: ErrorContext, block: re.Match[str] | None,
           reading: bool) -> tuple[Location | None, tuple[int, ...]]:
    """The kernel line that made the access (or the BlockSpec), and other candidate lines."""
    from jax_nbhelp.core.session import current_shell
    from jax_nbhelp.fix import interpret_fixes

    situation = interpret_fixes.analyse(ctx)
    shell = current_shell()
    for site in situation.plan.sites:
        source = situation.cells.get(site.cell)
        tree = _parse(source) if source else None
        call = _kernel_call(tree, site.lineno) if tree is not None else None
        name = _kernel_name(call, tree) if call is not None and tree is not None else None
        if call is None or name is None:
            continue
        found = _function({n: s for n, s in situation.cells.items() if n <= site.cell}, name)
        if block is not None:
            params = ([a.arg for a in found[1].args.args] if found is not None else [])
            if block["name"] not in params:
                continue
            line = _spec_line(call, params.index(block["name"]), params,
                              block["kind"] == "output")
            if line is None:
                continue
            return interpret_fixes.cell_location(shell, situation.cells, site.cell, line), ()
        if found is None:
            continue
        cell, function = found
        accesses = _accesses(function, reading)
        if len(accesses) > 1:
            accesses = [n for n in accesses if _has_arithmetic(n)] or accesses
        lines = tuple(dict.fromkeys(n.lineno for n in accesses))
        if not lines:
            continue
        location = interpret_fixes.cell_location(shell, situation.cells, cell, lines[0])
        return location, lines[1:]
    return None, ()


TRIGGERS = ("Out-of-bounds read of", "Out-of-bounds write of", "Out-of-bounds swap of",
            "Out-of-bounds masked swap of", "Out-of-bounds block index")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    access = block = None
    for link in ctx.chain:
        access = _ACCESS_RE.search(link.message)
        block = _BLOCK_RE.search(link.message)
        if access or block:
            break
    else:
        return None
    family = _interpreter(ctx)
    interpreter = f"{family} interpret mode" if family != "The Pallas" else "interpret mode"
    reading = block["kind"] == "input" if block else access is not None and access["op"] == "read"
    location, others = _where(ctx, block, reading)
    call_site = ctx.call_site()
    if block is not None:
        what = (f"The index_map of {block['kind']} {block['name']} picked block "
                f"{block['block']} at grid point {block['iteration']}: that block covers "
                f"{_pretty_range(block['range'])}, but the {block['kind']} has shape "
                f"{block['shape']} ({_past_end(block['range'], block['shape'])}).")
        at = f" The BlockSpec is at {location.label}." if location is not None else ""
    else:
        assert access is not None
        op = access["op"]
        verb = {"read": "reads", "write": "writes", "swap": "writes",
                "masked swap": "writes"}[op]
        buffer = access["buffer"]
        tpu = _TPU_BUFFER_RE.match(buffer)
        space = tpu[3].upper() if tpu else ""
        article = "an" if space[:1] in ("S", "H") else "a"
        named = (f"{article} {space} buffer of shape {access['shape']} (core {tpu[2]})"
                 if tpu else f"the buffer {buffer} of shape {access['shape']}")
        what = (f"The kernel {verb} {_pretty_range(access['range'])} of {named}: "
                f"{_past_end(access['range'], access['shape'])}.")
        if location is not None:
            more = (f" (or line {', '.join(str(n) for n in others)} of that cell, which also "
                    f"index refs)" if others else "")
            at = f" The access is at {location.label}{more}: {location.line.strip()}"
        else:
            at = ""
    explanation = (f"{what}{at} {interpreter} checks every access and stopped the kernel "
                   "there. This is a bug in the kernel, not in the interpreter: on a real "
                   "chip the same kernel would silently read garbage (or overwrite other "
                   "data).")
    return _entry.diagnosis(
        ctx,
        __name__,
        explanation,
        location=location or ctx.deepest_user_location(),
        call_site=call_site if call_site != location else None,
        fixes=(),
        notes=("Fix the index so it stays inside the buffer: check the last program "
               "(pl.program_id(...) == grid size - 1), the index_map of every BlockSpec, "
               "and each pl.ds(start, size) against the array's shape.",),
        error=(ctx.top.summary.split("Traceback (most recent call last):")[0].strip()
               + " ... " + (block or access).group(0)),  # type: ignore[union-attr]
    )
