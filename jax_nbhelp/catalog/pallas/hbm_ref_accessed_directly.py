"""A TPU kernel reads or writes a ref that lives in HBM (``pl.ANY``) as if it were in VMEM.

A TPU core computes on VMEM and SMEM only; refs in HBM (``memory_space=pl.ANY`` or ``HBM``,
and every operand of ``pl.kernel``/``core_map`` over a TPU mesh) are reached with DMAs
(``pltpu.sync_copy``/``async_copy``). TPU interpret mode checks this the way the TPU does;
plain ``interpret=True`` does not check memory spaces and runs such code anyway.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import edited
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix import interpret_fixes
from jax_nbhelp.fix.fix_builders import refused_fix
from jax_nbhelp.fix.kernel_cells import Site

CODE = "JNH204"
TITLE = "Kernel reads or writes an HBM (pl.ANY) ref directly"
MESSAGE = "cannot be referenced directly"

_KERNEL = '''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

add_one_kernel = pl.pallas_call(
    add_one,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    interpret=pltpu.InterpretParams(),
)
'''

EXAMPLES = (
    edited(_KERNEL, "out = add_one_kernel(jnp.ones((8, 128)))", "Copy x_ref into VMEM",
           "bool((out == 2).all())", ("pl.BlockSpec(memory_space=pl.ANY)", "pl.BlockSpec()")),
)

WHY = _entry.prose("""
On a TPU, HBM is the chip's main memory and VMEM the core's working memory: vector loads and
stores only reach VMEM (and SMEM). An operand left in HBM (memory_space=pl.ANY or HBM; every
operand of pl.kernel and core_map over a TPU mesh) is moved with DMAs, pltpu.sync_copy(src,
dst) or pltpu.async_copy(...). TPU interpret mode enforces this like the TPU compiler does.
""")


def _copy_snippet(ref: str, reading: bool) -> str:
    if reading:
        steps = f"pltpu.sync_copy({ref}, buf), then compute with buf[...]"
    else:
        steps = f"write buf[...], then pltpu.sync_copy(buf, {ref})"
    return (
        f"To keep {ref} in HBM, copy through a VMEM buffer inside the kernel: define "
        f"body(buf) that does {steps}, and call pl.run_scoped(body, "
        f"pltpu.VMEM({ref}.shape, {ref}.dtype)). For a pallas_call operand, a BlockSpec "
        "without memory_space=pl.ANY makes Pallas do the copy."
    )


def _kernel_params(location: Location) -> list[str] | None:
    """The positional parameters of the kernel function that holds ``location``."""
    if location.source is None:
        return None
    try:
        from jax_nbhelp.rewrite.magics import escape_magics

        tree = ast.parse(escape_magics(location.source)[0])
    except Exception:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == location.function:
            end = getattr(node, "end_lineno", None) or node.lineno
            if node.lineno <= location.lineno <= end:
                return [arg.arg for arg in [*node.args.posonlyargs, *node.args.args]]
    return None


def _refs_on_line(line: str, reading: bool) -> list[str]:
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return []
    wanted = ast.Load if reading else ast.Store
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, wanted)
                and isinstance(node.value, ast.Name)):
            found.append(node.value.id)
        # `ref[...] += x` reads and writes the same ref.
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript) and (
            isinstance(node.target.value, ast.Name)
        ):
            found.append(node.target.value.id)
    return list(dict.fromkeys(found))


def _the_ref(ctx: ErrorContext, location: Location, reading: bool,
             params: list[str] | None) -> tuple[str | None, int | None]:
    """The ref the line accesses in HBM, and its position among the kernel's arguments."""
    candidates = _refs_on_line(location.line, reading)
    spaces = ctx.kernel.ref_spaces if ctx.kernel is not None else ()
    if params is not None and spaces and len(spaces) == len(params):
        in_hbm = [name for name in candidates if name in params
                  and spaces[params.index(name)] in ("any", "tpu:hbm")]
        if len(in_hbm) == 1:
            return in_hbm[0], params.index(in_hbm[0])
    if len(candidates) == 1:
        name = candidates[0]
        return name, params.index(name) if params and name in params else None
    return None, None


def _builds(site: Site, kernel: str, situation: interpret_fixes.Situation) -> bool:
    """Whether ``site`` is a pallas_call that builds the kernel function ``kernel``."""
    if site.is_mesh_kernel:
        return False
    try:
        call = ast.parse(site.text.strip()).body[0]
    except (SyntaxError, IndexError):
        return False
    if isinstance(call, ast.Expr) and isinstance(call.value, ast.Call):
        first = call.value.args[0] if call.value.args else None
        if isinstance(first, ast.Name) and first.id == kernel:
            return True
    # @functools.partial(pl.pallas_call, ...) right above `def kernel`.
    source = situation.cells.get(site.cell, "")
    lines = source.splitlines()
    following = lines[site.end_lineno:site.end_lineno + 3]
    return any(line.lstrip().startswith(f"def {kernel}(") for line in following)


def _fix(ctx: ErrorContext, location: Location, ref: str | None, operand: int | None) -> Fix:
    label = f"Copy {ref or 'the ref'} into VMEM"
    summary = (f"Drop memory_space=pl.ANY from {ref}'s BlockSpec, so Pallas copies it into VMEM "
               "for the kernel; then re-run {runs}.")
    safety = ("Same numbers: the kernel reads (or writes) the whole array, now through VMEM, "
              "which Pallas fills before the body runs and writes back after it.")
    situation = interpret_fixes.analyse(ctx)
    refused_summary = summary.format(runs="the cells that use it")

    def refused(reason: str) -> Fix:
        return refused_fix(label, refused_summary, safety, reason)

    if ref is None or operand is None:
        return refused("jax_nbhelp could not tell which ref of the kernel is in HBM")
    if ctx.kernel is not None and ctx.kernel.mesh_kernel:
        return refused("pl.kernel and core_map have no BlockSpecs: their operands "
                       "always stay in HBM, so copy them with pltpu.sync_copy")
    sites = [s for s in situation.plan.sites if _builds(s, location.function, situation)]
    if len(sites) != 1:
        return refused(f"jax_nbhelp found no single pallas_call({location.function}, "
                       "...) in your cells")
    site = sites[0]

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.operand_in_vmem import operand_to_vmem

        assert operand is not None
        return operand_to_vmem(source, site.lineno, operand)

    edits: dict[int, Callable[[str], str]] = {site.cell: transform}
    return interpret_fixes.cells_fix(ctx, situation, edits, label=label, summary=summary,
                                     safety=safety, safe=True)


TRIGGERS = (MESSAGE,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.find(MESSAGE)
    if link is None or "HBM" not in link.message:
        return None
    primitive = link.message.split(":", 1)[0].strip()
    reading = primitive != "swap_p"
    location = ctx.deepest_user_location()
    call_site = ctx.call_site()
    params = _kernel_params(location) if location is not None else None
    ref, operand = _the_ref(ctx, location, reading, params) if location else (None, None)
    verb = "reads" if reading else "writes"
    what = f"{ref}[...]" if ref else "a ref"
    where = f"The kernel line at {location.label}" if location else "A line of the kernel"
    explanation = (
        f"{where} {verb} {what} directly, but {ref or 'that ref'} lives in HBM "
        "(memory_space=pl.ANY), which a TPU core reaches only with DMA copies. TPU interpret "
        "mode refuses every direct load or store of such a ref. (Plain interpret=True does "
        "not check memory spaces and runs this line, so code tested that way can still fail "
        "here.)"
    )
    fixes: tuple[Fix, ...] = ()
    if location is not None and location.kind == "cell":
        fixes = (_fix(ctx, location, ref, operand),)
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=call_site,
                            fixes=fixes, notes=(_copy_snippet(ref or "x_hbm", reading),))
