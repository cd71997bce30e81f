"""The fixes that switch an interpreter on for a failing kernel.

Shared by the diagnoses of a kernel compiled for the CPU (JNH201) and of a kernel given the
wrong interpreter (JNH205), which choose the interpreter (``catalog/_interpreter_choice.py``).
The fixes re-run exactly the cells that build the kernel (see ``kernel_cells``), and each is
verified by running it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace

from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.core.protocol import cell_label
from jax_nbhelp.core.session import current_shell
from jax_nbhelp.core.units import duration
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import (
    NOT_A_CELL,
    chain_sources,
    failing_cell,
    new_fix,
    plan,
    refused_fix,
    rerun_fix,
)
from jax_nbhelp.fix.kernel_cells import KernelPlan, Site, history, plan_for, sites_at
from jax_nbhelp.jaxapi import interpret_cost, interpret_modes
from jax_nbhelp.jaxapi.interpret_modes import Mode

TPU_MODULE = "jax.experimental.pallas.tpu"
GPU_MODULE = "jax.experimental.pallas.mosaic_gpu"
SAME_KERNEL = ("The kernel runs as written, simulated on the CPU (slowly): the same operations, "
               "so the same results, up to the chip's floating-point details.")


@dataclass(frozen=True)
class Situation:
    """The failing kernel: the cells that build it, and where."""

    plan: KernelPlan
    failing: Location | None
    cells: dict[int, str] = field(default_factory=dict)
    where: Location | None = None  # the kernel-building call, when found


def _gpu_alias(ctx: ErrorContext) -> str:
    return ctx.alias(GPU_MODULE) or "plgpu"


def is_gpu_site(site: Site, ctx: ErrorContext) -> bool:
    """Whether ``site`` builds a Mosaic GPU kernel (``plgpu.kernel``)."""
    prefix = site.constructor.rsplit(".", 1)[0]
    return prefix == _gpu_alias(ctx) or prefix.endswith("mosaic_gpu")


def _cell_filename(shell: object, number: int) -> str:
    mapping = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(mapping, dict):
        for filename, count in mapping.items():
            if count == number:
                return str(filename)
    return f"<In [{number}]>"


def cell_location(shell: object, cells: dict[int, str], number: int, lineno: int) -> Location:
    source = cells.get(number, "")
    lines = source.splitlines()
    return Location(
        kind="cell",
        filename=_cell_filename(shell, number),
        lineno=lineno,
        line=lines[lineno - 1] if 0 < lineno <= len(lines) else "",
        cell=number,
        source=source or None,
    )


def analyse(ctx: ErrorContext) -> Situation:
    """The failing kernel: which cells build it (which interpreter fits it is the catalog's
    choice, ``catalog/_interpreter_choice.py``)."""
    failing = ctx.failing_cell()
    shell = current_shell()
    raising = failing_cell(ctx)
    if failing is None or failing.cell is None or failing.source is None or isinstance(
            raising, str):
        plan = KernelPlan()
        cells: dict[int, str] = {}
    else:
        cells = history(shell, failing.cell)
        plan = plan_for(failing.cell, failing.source, cells,
                        raising.restart_line or raising.lineno)
        cells[failing.cell] = failing.source
    deepest = ctx.deepest_user_location()
    traced: tuple[Site, ...] = ()
    if deepest is not None and deepest.kind == "cell" and deepest.cell is not None and (
        deepest.source is not None
    ):
        cells.setdefault(deepest.cell, deepest.source)
        traced = sites_at(deepest.cell, deepest.source, deepest.lineno)
    known = {(s.cell, s.lineno) for s in plan.sites}
    plan = KernelPlan(plan.reruns, plan.sites + tuple(s for s in traced if (s.cell, s.lineno)
                                                      not in known), plan.imported,
                      plan.statements)
    where = None
    best = traced or tuple(s for s in plan.sites if s.eager and s.cell in plan.reruns) or (
        plan.sites
    )
    if best:
        where = cell_location(shell, cells, best[0].cell, best[0].lineno)
    elif deepest is not None and deepest != failing:
        where = deepest
    return Situation(plan, failing, cells, where)


def mode_code(mode: Mode, ctx: ErrorContext) -> tuple[str, str | None]:
    """The interpret= value for ``mode`` as code, and an import line it needs (or None)."""
    if mode == "hlo":
        return "True", None
    if mode == "tpu":
        alias = ctx.alias(TPU_MODULE)
        if alias:
            return f"{alias}.InterpretParams()", None
        return "pltpu.InterpretParams()", "from jax.experimental.pallas import tpu as pltpu"
    home = interpret_modes.gpu_params_home() or interpret_modes.GPU_PARAMS_HOMES[0]
    return "InterpretGPUParams()", f"from {home} import InterpretGPUParams"


def site_mode(site: Site, mode: Mode, ctx: ErrorContext) -> Mode:
    """The interpreter for one kernel-building call (a mesh kernel never gets "hlo")."""
    if is_gpu_site(site, ctx) or mode == "gpu":
        return "gpu"
    if site.is_mesh_kernel:
        return "tpu"
    return mode


def _labels(cells: list[int]) -> str:
    return ", ".join(cell_label(n) for n in cells)


def with_estimate(fix: Fix, ctx: ErrorContext, mode: Mode, *, switched: bool = False) -> Fix:
    """``fix`` with the interpreted kernel's cost attached, said in its summary when long.
    ``switched``: the fix sets the interpreter through the switch, with jax_nbhelp's own
    params (in TPU interpret mode those count the grid steps as the fix runs)."""
    found = interpret_cost.estimate(ctx.kernel, mode, ctx.session.speed,
                                    counted=switched and mode == "tpu")
    summary = fix.summary + (f" {interpret_cost.sentence(found)}"
                             if found is not None and found.long else "")
    return replace(fix, estimate=found, summary=summary)


@dataclass(frozen=True)
class _SwitchWords:
    """What a runtime fix says of the switch: its label, how it switches, how safe it is,
    and what happens after the run."""

    label: str
    switching: str
    safety: str
    after: str


def _switch_words(mode: Mode, from_now_on: bool) -> _SwitchWords:
    if from_now_on:
        return _SwitchWords(
            label="Interpret mode from now on",
            switching=("and leave Pallas's interpret switch on for the rest of this kernel "
                       "(each later kernel in the interpreter of its family), set for this "
                       "one to"),
            safety=(
                f"{SAME_KERNEL} Your code is not changed. From now on every kernel built in "
                "this kernel process is interpreted, each in the interpreter of its family "
                "(TPU kernels in TPU interpret mode, Triton-style GPU kernels with "
                "interpret=True, Mosaic GPU kernels in GPU interpret mode), until `%jax_nbhelp "
                "interpret off` or a kernel restart. Kernels built earlier and not re-run "
                "here still fail, and their diagnosis re-runs their cells."
            ),
            after=("and leaves it set for the rest of this kernel (`%jax_nbhelp interpret "
                   "off` restores it)."),
        )
    return _SwitchWords(
        label=f"Re-run in {interpret_modes.describe(mode).name.removeprefix('plain ')}",
        switching="with Pallas's interpret switch set to",
        safety=(
            f"{SAME_KERNEL} Your code is not changed: kernels built during the re-run keep the "
            "mode for this session, but a fresh run of the notebook fails again until "
            "interpret= is in the code."
        ),
        after="then restores it.",
    )


def runtime_fix(ctx: ErrorContext, situation: Situation, mode: Mode, *,
                from_now_on: bool = False) -> Fix:
    """Re-run the cells that build the kernel, then the failing cell, with the switch on.

    ``from_now_on``: the switch stays on for the rest of this kernel when the re-run works,
    one decision for a notebook whose every cell builds a kernel (a tutorial's).
    """
    info = interpret_modes.describe(mode)
    words = _switch_words(mode, from_now_on)
    rebuilt = ""
    if situation.plan.statements:
        rebuilt = (" The statements that built the kernel (or captured it) before it ran "
                   "run again first; nothing else of their cells does.")
    summary = (f"Re-run the failing cell from the statement that raised, {words.switching} "
               f"{info.code}.{rebuilt}")
    unavailable = interpret_modes.switch_unavailable() or interpret_modes.params_unavailable(mode)
    forcing = ("force_gpu_interpret_mode()" if mode == "gpu"
               else "pltpu.force_tpu_interpret_mode()")

    def switch() -> AbstractContextManager[None]:
        if from_now_on:
            return interpret_modes.interpret_switch_from_now_on(mode)
        return interpret_modes.interpret_switch(mode)

    fix = rerun_fix(ctx, label=words.label, summary=summary, safety=words.safety, safe=True,
                    runtime=switch, runtime_description="", unavailable=unavailable,
                    touch=situation.plan.touch())
    ran = (", then ".join(run.where for run in fix.runs)
           + (" run" if len(fix.runs) > 1 else " runs") if fix.runs else "the failing cell runs")
    fix = replace(
        fix,
        setup_line=f"%jax_nbhelp interpret {mode}" if from_now_on else None,
        runtime_description=(
            f"Sets jax._src.config.pallas_tpu_interpret_mode_context_manager to {info.code} "
            f"(what {forcing} does) while {ran}, {words.after}"),
    )
    return with_estimate(fix, ctx, mode, switched=True)


def smaller_input_fix(ctx: ErrorContext, situation: Situation, mode: Mode) -> Fix | None:
    """For a long interpreted kernel: the failing cell with its literal array shapes cut to
    two blocks per dimension, run once in the interpreter. None when it does not apply (the
    kernel is quick, or the cell has no such shape)."""
    from jax_nbhelp.rewrite import CannotRewrite, unified_diff
    from jax_nbhelp.rewrite.magics import rewrite_cell
    from jax_nbhelp.rewrite.smaller_input import shrink_shapes

    cost = interpret_cost.estimate(ctx.kernel, mode, ctx.session.speed)
    failing = situation.failing
    if (cost is None or not cost.long or ctx.kernel is None or not ctx.kernel.block_sizes
            or failing is None or failing.cell is None or failing.source is None):
        return None
    blocks = ctx.kernel.block_sizes
    try:
        smaller = rewrite_cell(failing.source, lambda code: shrink_shapes(code, blocks))
    except CannotRewrite:
        return None
    planned = plan(ctx, edits={failing.cell: (failing.source, smaller)},
                   touch=situation.plan.touch())
    if isinstance(planned, str):
        return None
    info = interpret_modes.describe(mode)

    def switch() -> AbstractContextManager[None]:
        return interpret_modes.interpret_switch(mode)

    ran = ", then ".join(run.where for run in planned.runs)
    return new_fix(
        label="Check on a smaller input",
        summary=(f"Run the kernel once in {info.name} on arrays cut to two blocks per "
                 "dimension, to check it in seconds rather than "
                 f"{duration(cost.seconds)}."),
        safety=("Changes the numbers: the result is the smaller problem's (check it against "
                "plain JAX on the same input), and the names the cell sets hold the smaller "
                "arrays. Your cell is not changed; run it as written on a TPU or GPU."),
        safe=False,
        kind="runtime",
        runs=planned.runs,
        runtime=switch,
        runtime_description=(
            f"Sets Pallas's interpret switch to {info.code} while {ran} "
            f"{'run' if len(planned.runs) > 1 else 'runs'}, then restores it; the failing "
            "cell runs with smaller array shapes:"),
        diff=unified_diff(failing.source, smaller, cell_label(failing.cell)),
        not_rerun=planned.not_rerun,
    )


def cells_fix(
    ctx: ErrorContext,
    situation: Situation,
    edits: dict[int, Callable[[str], str]],
    *,
    label: str,
    summary: str,
    safety: str,
    safe: bool,
) -> Fix:
    """Rewrite some cells, then re-run them, the cells that depend on them, and the failing
    cell, in execution order. A transform that raises CannotRewrite refuses the fix."""
    from jax_nbhelp.rewrite import CannotRewrite, unified_diff

    def refused(reason: str) -> Fix:
        return refused_fix(label, summary, safety, reason, safe=safe)

    failing = situation.failing
    if failing is None or failing.cell is None or failing.source is None:
        return refused(NOT_A_CELL)
    if not edits:
        return refused("jax_nbhelp found nothing to change in your cells")
    edited: dict[int, str] = {}
    # an earlier fix of the chain rewrote some cells: start from them as it left them
    chained = chain_sources(ctx)
    bases = {n: chained.get(n, situation.cells[n]) for n in edits}
    try:
        for number, transform in edits.items():
            edited[number] = transform(bases[number])
    except CannotRewrite as exc:
        return refused(str(exc))
    diff = "".join(
        unified_diff(situation.cells[n], edited[n], cell_label(n)) for n in sorted(edited)
    )
    # compared with what ran last (the typed cells: an earlier fix of the chain was undone)
    sources = {n: (situation.cells[n], edited[n]) for n in edited}
    planned = plan(ctx, edits=sources, touch=situation.plan.touch())
    if isinstance(planned, str):
        return refused_fix(label, summary, safety, planned, safe=safe, diff=diff)
    return new_fix(label=label,
                   summary=summary.format(runs=", then ".join(r.where for r in planned.runs)),
                   safety=safety, safe=safe, runs=planned.runs, diff=diff, edits=planned.edits,
                   not_rerun=planned.not_rerun)


def _library_fix(ctx: ErrorContext, situation: Situation, mode: Mode, label: str,
                 safety: str) -> Fix | None:
    """``interpret=`` at the user's own call of a JAX function that builds the kernel inside
    and takes ``interpret`` itself (JAX's shipped ops: ``layer_norm(x, w, b)``), or a refusal
    that says the library builds it; None when the line calls no JAX function."""
    from jax_nbhelp.diagnosis.library_call import calls_on
    from jax_nbhelp.rewrite.call_keywords import set_call_keywords
    from jax_nbhelp.rewrite.interpret_arg import add_import

    failing = situation.failing
    shell = current_shell()
    namespace = getattr(shell, "user_ns", None)
    if failing is None or failing.cell is None or not isinstance(namespace, dict):
        return None
    calls = calls_on(failing.line, namespace)
    taking = [call for call in calls if "interpret" in call.parameters and not call.starred]
    value, needs = mode_code(mode, ctx)
    if not taking:
        if not calls:
            return None
        names = ", ".join(dict.fromkeys(f"{c.spelled}()" for c in calls))
        return refused_fix(label, "Give the call that builds the kernel interpret=.", safety,
                           f"the kernel is built inside {names}, a library call that takes no "
                           "interpret=: the fixes that switch interpret mode on are the way")
    call = taking[-1]  # the innermost: the op itself, not what wraps its result
    number = failing.cell

    def transform(source: str) -> str:
        source = set_call_keywords(source, failing.lineno, call.spelled, {"interpret": value})
        return add_import(source, needs) if needs is not None else source

    return cells_fix(
        ctx, situation, {number: transform}, label=label,
        summary=(f"Pass interpret={value} to {call.spelled}(), which builds the kernel "
                 "inside and takes interpret= itself, then re-run {runs}."),
        safety=safety, safe=True,
    )


def rewrite_fix(ctx: ErrorContext, situation: Situation, mode: Mode) -> Fix:
    """Pass the right interpret= at every call that builds the kernel, then re-run; where a
    library call builds it, at the user's call of the library when it takes interpret=."""
    from jax_nbhelp.rewrite.interpret_arg import add_import, set_interpret

    value, _ = mode_code(mode, ctx)
    label = f"Pass interpret={value}"
    safety = f"{SAME_KERNEL} Remove interpret= again to run on a TPU or GPU."
    reason = interpret_modes.params_unavailable(mode)
    sites = [s for s in situation.plan.sites if s.cell in situation.cells]
    if reason is None and not sites:
        library = _library_fix(ctx, situation, mode, label, safety)
        if library is not None:
            return with_estimate(library, ctx, mode)
        reason = ("jax_nbhelp found no pallas_call, pl.kernel, core_map or plgpu.kernel call in "
                  "your cells to change (the kernel may be built in an imported module)")
    if reason is not None:
        return refused_fix(label, "Give the call that builds the kernel interpret=.", safety,
                           reason)
    by_cell: dict[int, list[Site]] = {}
    for site in sites:
        by_cell.setdefault(site.cell, []).append(site)

    def editor(cell_sites: list[Site]) -> Callable[[str], str]:
        def transform(source: str) -> str:
            imports: list[str] = []
            for site in cell_sites:
                code, needs = mode_code(site_mode(site, mode, ctx), ctx)
                source = set_interpret(source, site.lineno, code)
                if needs is not None and needs not in imports:
                    imports.append(needs)
            # Imports go in last: they shift the lines the sites were found on.
            for needs in imports:
                source = add_import(source, needs)
            return source
        return transform

    edits = {number: editor(cell_sites) for number, cell_sites in by_cell.items()}
    return with_estimate(cells_fix(
        ctx, situation, edits, label=label,
        summary=(f"Pass interpret={value} where {_labels(sorted(by_cell))} builds the kernel, "
                 "then re-run {runs}."),
        safety=safety, safe=True,
    ), ctx, mode)
