"""The failing and fixed example every diagnosis carries as data (run by the catalog test).

Below the ``Example`` type: the stories examples share (``corrected``, ``corrected_cell``,
``edited``, ``made_static``), the imports most of them start with, and the kernel cells the
Pallas and run_scoped entries build theirs from, so that an entry spells only what is its own.
"""

from __future__ import annotations

from dataclasses import dataclass

NO_FIX = ""

# What every example runs first (a notebook's usual imports); examples assume these names.
PRELUDE = """\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu"""
# The same for a Mosaic GPU notebook.
GPU_PRELUDE = """\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu"""
# The GPU interpreter's parameters, from wherever this JAX keeps them.
GPU_PARAMS_IMPORT = """\
try:
    from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams  # jax 0.10
except ImportError:
    from jax._src.pallas.mosaic.interpret.utils import InterpretGPUParams  # jax 0.9
"""


@dataclass(frozen=True)
class Example:
    """Cells a user runs, the fix they pick, and a check that the numbers are right.

    ``setup`` cells run first and must succeed; ``failing`` raises the error; after applying the
    fix whose label is ``fix``, the expression ``check`` evaluated in the user namespace is
    true. ``fixed`` is the cell as the user would write it once fixed (it must succeed alone
    after ``setup``). ``fix=""`` (``NO_FIX``) says the diagnosis offers no fix for this
    failing cell: the test checks there is none, and ``check`` applies to ``fixed`` only.
    ``requires`` names what the example needs of the installed JAX, for releases that lack
    it: a module, ``module:attribute``, or ``!module:attribute`` for a name it must not have.
    """

    setup: tuple[str, ...]
    failing: str
    fix: str
    check: str
    fixed: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()


def unmet(example: Example) -> str | None:
    """The first of the example's ``requires`` this JAX does not meet, or None."""
    import importlib
    import importlib.util

    for requirement in example.requires:
        wanted = not requirement.startswith("!")
        module, _, attribute = requirement.lstrip("!").partition(":")
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # its package is missing too (an older JAX)
            found = False
        if found and attribute:
            from jax_nbhelp.catalog._jax_names import has

            # Read without its DeprecationWarning: a deprecated name still counts as there.
            found = has(importlib.import_module(module), attribute)
        if found is not wanted:
            return requirement
    return None


# The GPU kernel interpreter (``plgpu.kernel(interpret=...)``): jax 0.9 and newer.
GPU_INTERPRETER = "jax._src.pallas.mosaic_gpu.interpret"


# What most examples import first; the tracer entries add partial (for static_argnames).
JAX_IMPORTS = "import jax, jax.numpy as jnp"
LAX_IMPORTS = JAX_IMPORTS + "\nfrom jax import lax"
NUMPY_IMPORTS = JAX_IMPORTS + "\nimport numpy as np"
TRACING_IMPORTS = JAX_IMPORTS + "\nfrom functools import partial"


def corrected(imports: str, before: str, after: str, failing: str, fix: str,
              check: str) -> Example:
    """The usual story: the mistake is in a cell defined before the failing one (``before``,
    after ``imports``); ``fixed`` is that cell as ``after`` corrects it, then the failing cell
    again."""
    return Example(setup=(imports, before), failing=failing, fix=fix, check=check,
                   fixed=(imports, after, failing))


def made_static(function: str, failing: str, name: str, check: str) -> Example:
    """The example of a ``@jax.jit`` ``function`` that a call passes a Python setting ``name``:
    the fix marks it static, as ``fixed`` spells it by hand."""
    decorated = function.replace("@jax.jit", f"@partial(jax.jit, static_argnames={name!r})", 1)
    return corrected(TRACING_IMPORTS, function, decorated, failing, f"Make {name} static", check)


def static_from_array(function: str, held: str, failing: str, name: str, value: str,
                      fixed: str, check: str) -> Example:
    """The example of a ``@jax.jit`` ``function`` whose setting ``name`` the call passes as a
    global integer array (assigned in the cell ``held``): the fix marks it static and passes
    its Python ``value`` (``int(n)``), as the call ``fixed`` spells it."""
    decorated = function.replace("@jax.jit", f"@partial(jax.jit, static_argnames={name!r})", 1)
    return Example(setup=(TRACING_IMPORTS, function, held), failing=failing,
                   fix=f"Make {name} static, pass {value}", check=check,
                   fixed=(TRACING_IMPORTS, decorated, held, fixed))


def corrected_cell(setup: tuple[str, ...], failing: str, fixed: str, fix: str,
                   check: str) -> Example:
    """The other usual story: the mistake is in the failing cell itself; ``fixed`` is that
    cell corrected, after the same ``setup``."""
    return Example(setup=setup, failing=failing, fix=fix, check=check, fixed=(*setup, fixed))


def edited(cell: str, failing: str, fix: str, check: str, *edits: tuple[str, str],
           requires: tuple[str, ...] = ()) -> Example:
    """The mistake is in the one cell run before the failing one: ``fixed`` is that cell with
    each ``(old, new)`` edit made, then the failing cell again. An edit whose ``old`` text is
    not in the cell is an error, so a fixed cell never silently stays the failing one."""
    return Example(setup=(cell,), failing=failing, fix=fix, check=check,
                   fixed=(edit(cell, *edits), failing), requires=requires)


def edit(cell: str, *edits: tuple[str, str]) -> str:
    """``cell`` with each ``(old, new)`` edit made in turn; each ``old`` must be there."""
    for old, new in edits:
        if old not in cell:
            raise ValueError(f"an example's edit does not apply: {old!r} is not in the cell")
        cell = cell.replace(old, new)
    return cell


# The edit that takes a run_scoped call's collective_axes="core" away.
NO_CORE_AXES = (', collective_axes="core"', "")
# What an example run in GPU interpret mode needs (absl: the interpreter imports it).
NEEDS_GPU_INTERPRETER = ("absl", GPU_INTERPRETER)


def scoped_helper(name: str, space: str = "pltpu.VMEM", axes: str | None = None, *,
                  prelude: str = PRELUDE, plus_one: bool = True, jit: bool = False) -> str:
    """The run_scoped entries' kernel helper, a cell: ``name(x)`` allocates scratch of x's
    shape in ``space`` (shared along ``axes`` when given), writes ``x * 2`` into it and
    returns it, plus one unless ``plus_one`` is false; ``jit`` decorates it with jax.jit."""
    decorator = "@jax.jit\n" if jit else ""
    added = " + 1" if plus_one else ""
    shared = "" if axes is None else f', collective_axes="{axes}"'
    return (f"{prelude}\n\n{decorator}def {name}(x):\n"
            "    def body(ref):\n"
            "        ref[...] = x * 2\n"
            f"        return ref[...]{added}\n"
            f"    return pl.run_scoped(body, {space}(x.shape, x.dtype){shared})\n")


def add_one_through_vmem(source: str, out: str, *, buffer: str = "buf",
                         scratch: str = "pltpu.VMEM((8, 128), jnp.float32)",
                         indent: int = 1) -> str:
    """Lines of a TPU kernel's body, ``indent`` levels in: copy ``source`` into VMEM scratch,
    add one, copy the scratch to ``out``."""
    lines = (f"def body({buffer}):", f"    pltpu.sync_copy({source}, {buffer})",
             f"    {buffer}[...] += 1", f"    pltpu.sync_copy({buffer}, {out})",
             f"pl.run_scoped(body, {scratch})")
    return "".join(f"{'    ' * indent}{line}\n" for line in lines)


def per_core_kernel(interpret: str, prelude: str = PRELUDE) -> str:
    """The run_scoped entries' two-core TPU kernel, a cell: each core doubles its slice of x
    and adds one, through VMEM scratch that run_scoped shares along "core"; built with
    ``interpret=``."""
    return f'''{prelude}

mesh = pltpu.create_tensorcore_mesh("core", num_cores=2)

def per_core(x_hbm, o_hbm):
    core = jax.lax.axis_index("core")
    def body(buf):
        pltpu.sync_copy(x_hbm.at[core], buf)
        buf[...] = buf[...] * 2 + 1
        pltpu.sync_copy(buf, o_hbm.at[core])
    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32), collective_axes="core")

kernel = pl.kernel(per_core, jax.ShapeDtypeStruct((2, 8, 128), jnp.float32), mesh=mesh,
                   interpret={interpret})
'''


def scratch_kernel(name: str, space: str, axes: str) -> str:
    """Lines defining the run_scoped entries' kernel body ``name(x_ref, o_ref)``: it writes
    ``x * 2`` into scratch in ``space`` shared along ``axes``, and the output is that plus
    one."""
    return (f"def {name}(x_ref, o_ref):\n"
            "    def body(scratch):\n"
            "        scratch[...] = x_ref[...] * 2\n"
            "        o_ref[...] = scratch[...] + 1\n"
            f'    pl.run_scoped(body, {space}((8, 128), jnp.float32), collective_axes="{axes}")\n')
