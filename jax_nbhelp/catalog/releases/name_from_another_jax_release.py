"""A JAX name or keyword that the installed release does not have.

``module 'jax.experimental.pallas.tpu' has no attribute 'TPUMemorySpace'``, or
``emit_pipeline() got an unexpected keyword argument 'delay_release'``: the code was written
for another JAX release (a JAX docs notebook, or a notebook for Colab's JAX), in which the
name or keyword exists. Where JAX renamed it, the new spelling is used and the cell re-run.

Names JAX removed long ago with a direct replacement named in its changelog reach notebooks
through old tutorials and libraries: RobertTLange/gymnax#27, google/trajax#9 and
delalamo/af2_conformations#15 (``module 'jax' has no attribute 'tree_multimap'``; the
replacement is ``tree_map``), ott-jax/ott#620, lnccbrown/HSSM#293 and rstudio/reticulate#1595
(``module 'jax.numpy' has no attribute 'product'``; ``jnp.prod``).

Code written with PyTorch's habits uses its names for jax.numpy's functions (``jnp.cat``,
``jnp.clamp``, ``jnp.unsqueeze``) and its ``dim=`` keyword for ``axis=``; where jax.numpy's
function does the same with the same positional arguments, the call is spelled JAX's way.
Code written with NumPy's random API passes ``low=``, ``high=`` and ``size=`` where
``jax.random``'s samplers take ``minval=``, ``maxval=`` and ``shape=`` (jax-ml/jax#4033
sets ``np.random.uniform(low=..., high=..., size=...)`` beside its JAX spelling).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from jax_nbhelp.catalog import _entry, _renames, _tracing
from jax_nbhelp.catalog import _jax_names as names
from jax_nbhelp.catalog._example import NO_FIX, PRELUDE, Example, add_one_through_vmem
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.provenance import is_jax_file
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.jaxapi.capabilities import jax_version

CODE = "JNH210"
TITLE = "A JAX name or keyword this JAX release does not have"

_ATTRIBUTE = re.compile(r"module '(?P<module>jax(?:\.\w+)*)' has no attribute '(?P<name>\w+)'")
_KEYWORD = re.compile(
    r"(?P<function>[\w.]+)\(\) got an unexpected keyword argument '(?P<keyword>\w+)'")
# What releases say for a name they removed on purpose (JAX's deprecation machinery):
# "jax.tree_map was removed in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer) ..."
_REMOVED = re.compile(r"(?P<module>jax(?:\.\w+)*)\.(?P<name>\w+) was removed in JAX v")
TRIGGERS = ("has no attribute", "unexpected keyword argument", "was removed in JAX")

_PRELUDE = PRELUDE + "\n"
_KERNEL = ("def add_one(x_ref, o_ref):\n"
           + add_one_through_vmem("x_ref", "o_ref", buffer="buffer") + '''
out = pl.kernel(add_one, jax.ShapeDtypeStruct((8, 128), jnp.float32), mesh=mesh,
                interpret=pltpu.InterpretParams())(jnp.ones((8, 128)))''')
_SPEC = '''\
spec = pl.BlockSpec((8, 128), lambda i: (i, 0), memory_space={space}.VMEM)

def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

out = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                     grid=(2,), in_specs=[spec], out_specs=spec,
                     interpret=True)(jnp.ones((16, 128)))'''
_LOAD_STORE = '''\
def add_two(x_ref, o_ref):
    pl.store(o_ref, (slice(None), slice(None)), pl.load(x_ref, (slice(None), slice(None))) + 1)
    pl.store(o_ref, (), pl.load(o_ref, ()) + 1)'''
_CALL_LOAD_STORE = ("out = pl.pallas_call(add_two, out_shape=jax.ShapeDtypeStruct((8, 128), "
                    "jnp.float32), interpret=True)(jnp.ones((8, 128)))")
_COPY = '''\
def copy(x_hbm, o_hbm):
    pltpu.sync_copy(x_hbm, o_hbm)

any_spec = pl.BlockSpec(memory_space={0}.ANY)
out = pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                     in_specs=[any_spec], out_specs=pl.BlockSpec(memory_space={0}.ANY),
                     interpret=pltpu.InterpretParams())(jnp.ones((8, 128)))'''
_TREE = 'doubled = jax.{0}(lambda a: a * 2, {{"w": jnp.ones(3), "b": jnp.zeros(2)}})'
_GPU = '''\
from jax.experimental.pallas import mosaic_gpu as plgpu

def body(indices, x_smem):
    pass

in_specs = [plgpu.BlockSpec((64, 64), lambda i: (i, 0){0})]
pipeline = plgpu.emit_pipeline(body, grid=(4,), in_specs=in_specs, max_concurrent_steps=2{1})'''

EXAMPLES = (
    Example(
        setup=(),
        failing=_SPEC.format(space="pltpu.TPUMemorySpace"),
        fix="Use pltpu.MemorySpace",
        check="bool((out == 2).all())",
        fixed=(_PRELUDE + _SPEC.format(space="pltpu.MemorySpace"),),
    ),
    # pl.load / pl.store, removed in 0.9.0: ref indexing, every use in the kernel's cell.
    Example(
        setup=(_LOAD_STORE,),
        failing=_CALL_LOAD_STORE,
        fix="Index the refs",
        check="bool((out == 3).all())",
        fixed=(_PRELUDE + _LOAD_STORE.replace(
            "pl.store(o_ref, (slice(None), slice(None)), pl.load(x_ref, (slice(None), "
            "slice(None))) + 1)", "o_ref[slice(None), slice(None)] = x_ref[slice(None), "
            "slice(None)] + 1").replace("pl.store(o_ref, (), pl.load(o_ref, ()) + 1)",
                                        "o_ref[()] = o_ref[()] + 1"), _CALL_LOAD_STORE),
        requires=("!jax.experimental.pallas:load",),  # 0.8 still has them
    ),
    # TPUMemorySpace.ANY is pl.ANY now (pltpu.MemorySpace has no ANY), in every use.
    Example(
        setup=(),
        failing=_COPY.format("pltpu.TPUMemorySpace"),
        fix="Use pltpu.MemorySpace",
        check="bool((out == 1).all())",
        fixed=(_PRELUDE + _COPY.format("pltpu.MemorySpace").replace("pltpu.MemorySpace.ANY",
                                                                    "pl.ANY"),),
    ),
    Example(
        setup=(),
        failing='mesh = pltpu.TensorCoreMesh(axis_name="core", num_cores=1)\n\n' + _KERNEL,
        fix="Use pltpu.create_tensorcore_mesh",
        check='dict(mesh.shape) == {"core": 1} and bool((out == 2).all())',
        fixed=(_PRELUDE + 'mesh = pltpu.create_tensorcore_mesh(axis_name="core", '
               'num_cores=1)\n\n' + _KERNEL,),
    ),
    Example(
        setup=(),
        failing=_TREE.format("tree_map"),
        fix="Use jax.tree.map",
        check='float(doubled["w"].sum()) == 6.0',
        fixed=(_PRELUDE + _TREE.format("tree.map"),),
    ),
    # removed long ago, with the direct replacement the changelog names
    Example(
        setup=(),
        failing=_TREE.format("tree_multimap"),
        fix="Use jax.tree.map",
        check='float(doubled["w"].sum()) == 6.0',
        fixed=(_PRELUDE + _TREE.format("tree.map"),),
    ),
    Example(
        setup=(),
        failing="total = jnp.product(jnp.arange(1.0, 5.0))",
        fix="Use jnp.prod",
        check="float(total) == 24.0",
        fixed=(_PRELUDE + "total = jnp.prod(jnp.arange(1.0, 5.0))",),
    ),
    # another library's habits: PyTorch's name for a jax.numpy function, and its dim=
    Example(
        setup=(),
        failing="both = jnp.cat([jnp.ones(2), jnp.zeros(1)])",
        fix="Use jnp.concatenate",
        check="both.tolist() == [1.0, 1.0, 0.0]",
        fixed=(_PRELUDE + "both = jnp.concatenate([jnp.ones(2), jnp.zeros(1)])",),
    ),
    Example(
        setup=(),
        failing="totals = jnp.sum(jnp.ones((2, 3)), dim=1)",
        fix="Pass axis= instead of dim=",
        check="totals.tolist() == [3.0, 3.0]",
        fixed=(_PRELUDE + "totals = jnp.sum(jnp.ones((2, 3)), axis=1)",),
    ),
    # NumPy's random API: low= and high= are JAX's minval= and maxval=, renamed together
    Example(
        setup=(),
        failing="u = jax.random.uniform(jax.random.PRNGKey(0), (4,), low=1.0, high=2.0)",
        fix="Pass minval=, maxval= instead of low=, high=",
        check="u.shape == (4,) and bool(((u >= 1.0) & (u < 2.0)).all())",
        fixed=(_PRELUDE + "u = jax.random.uniform(jax.random.PRNGKey(0), (4,), minval=1.0, "
               "maxval=2.0)",),
    ),
    # the same keyword on an array's method
    Example(
        setup=(),
        failing="means = jnp.arange(6.0).reshape(2, 3).mean(dim=0)",
        fix="Pass axis= instead of dim=",
        check="means.tolist() == [1.5, 2.5, 3.5]",
        fixed=(_PRELUDE + "means = jnp.arange(6.0).reshape(2, 3).mean(axis=0)",),
    ),
    # Python's sorted(reverse=True): jnp.sort says descending=
    Example(
        setup=(),
        failing="ranked = jnp.sort(jnp.array([1.0, 3.0, 2.0]), reverse=True)",
        fix="Pass descending= instead of reverse=",
        check="ranked.tolist() == [3.0, 2.0, 1.0]",
        fixed=(_PRELUDE + "ranked = jnp.sort(jnp.array([1.0, 3.0, 2.0]), descending=True)",),
    ),
    # np.float was Python's float: so is the dtype it names
    Example(
        setup=(),
        failing="halves = jnp.arange(3).astype(jnp.float) / 2",
        fix="Use float",
        check="halves.tolist() == [0.0, 0.5, 1.0]",
        fixed=(_PRELUDE + "halves = jnp.arange(3).astype(float) / 2",),
    ),
    # PyTorch's unbiased=True: its value says what ddof= says as a number
    Example(
        setup=(),
        failing="spread = jnp.std(jnp.array([1.0, 2.0, 3.0]), unbiased=True)",
        fix="Pass ddof=1",
        check="float(spread) == 1.0",
        fixed=(_PRELUDE + "spread = jnp.std(jnp.array([1.0, 2.0, 3.0]), ddof=1)",),
    ),
    # jax.ops.index_update and its siblings, removed in 0.3.2: .at, every use in the cell
    Example(
        setup=(_PRELUDE + "grid = jnp.zeros((2, 3))",),
        failing=("grid = jax.ops.index_update(grid, jax.ops.index[0, 1:], 2.0)\n"
                 "grid = jax.ops.index_add(grid, (1, 0), 5.0)"),
        fix="Use .at",
        check="grid.tolist() == [[0.0, 2.0, 2.0], [5.0, 0.0, 0.0]]",
        fixed=(_PRELUDE + "grid = jnp.zeros((2, 3))",
               "grid = grid.at[0, 1:].set(2.0)\ngrid = grid.at[1, 0].add(5.0)"),
    ),
    Example(
        setup=(),
        failing=_GPU.format("", ", delay_release=1"),
        fix=NO_FIX,
        check="callable(pipeline)",
        fixed=(_PRELUDE + _GPU.format(", delay_release=1", ""),),
        requires=("absl",),
    ),
    Example(
        setup=(),
        failing="grid = jnp.linspace(0.0, 1.0, nums=5)",
        fix="Pass num= instead of nums=",
        check="grid.shape == (5,) and float(grid[1]) == 0.25",
        fixed=(_PRELUDE + "grid = jnp.linspace(0.0, 1.0, num=5)",),
    ),
    # a removed keyword: every call of the function in the cell that passes it is renamed
    Example(
        setup=(),
        failing="a = jnp.reshape(jnp.arange(6), newshape=(2, 3))\n"
                "b = jnp.reshape(a, newshape=(3, 2))",
        fix="Pass shape= instead of newshape=",
        check="b.shape == (3, 2)",
        fixed=(_PRELUDE + "a = jnp.reshape(jnp.arange(6), shape=(2, 3))\n"
               "b = jnp.reshape(a, shape=(3, 2))",),
    ),
    # a renamed function whose replacement takes a keyword to do the same
    Example(
        setup=(),
        failing="p = jax.random.shuffle(jax.random.key(0), jnp.arange(4))",
        fix="Use jax.random.permutation",
        check="sorted(p.tolist()) == [0, 1, 2, 3]",
        fixed=(_PRELUDE + "p = jax.random.permutation(jax.random.key(0), jnp.arange(4), "
               "independent=True)",),
    ),
    # Python names the first keyword it does not take; the call's others change with it
    Example(
        setup=(),
        failing="grid = jnp.linspace(0.0, 1.0, nums=5, endpont=False)",
        fix="Pass num=, endpoint= instead of nums=, endpont=",
        check="grid.shape == (5,) and float(grid[4]) == float(jnp.float32(0.8))",
        fixed=(_PRELUDE + "grid = jnp.linspace(0.0, 1.0, num=5, endpoint=False)",),
    ),
    # two keywords close to it (step=, stop=): which one is the user's to say
    Example(
        setup=(),
        failing="ticks = jnp.arange(0, 10, steps=2)",
        fix=NO_FIX,
        check="ticks.tolist() == [0, 2, 4, 6, 8]",
        fixed=(_PRELUDE + "ticks = jnp.arange(0, 10, step=2)",),
    ),
    Example(
        setup=(),
        failing="params = pltpu.InterpretParam()",
        fix=NO_FIX,
        check="isinstance(params, pltpu.InterpretParams)",
        fixed=(_PRELUDE + "params = pltpu.InterpretParams()",),
    ),
    # a keyword close to exactly one the function takes: passed under that name
    Example(
        setup=(),
        failing='params = pltpu.CompilerParams(dimension_semantic=("parallel",))',
        fix="Pass dimension_semantics= instead of dimension_semantic=",
        check='tuple(params.dimension_semantics) == ("parallel",)',
        fixed=(_PRELUDE
               + 'params = pltpu.CompilerParams(dimension_semantics=("parallel",))',),
    ),
    # an earlier JAX's sym_pos=True: assume_a='pos', which it set (GGchen1997/BDI#2)
    Example(
        setup=(),
        failing=("x = jax.scipy.linalg.solve(2.0 * jnp.eye(2), jnp.ones(2), "
                 "sym_pos=True)"),
        fix="Pass assume_a='pos'",
        check="all(abs(v - 0.5) < 1e-6 for v in x.tolist())",
        fixed=(_PRELUDE + "x = jax.scipy.linalg.solve(2.0 * jnp.eye(2), jnp.ones(2), "
                          "assume_a='pos')",),
    ),
)

WHY = _entry.prose("""
JAX's APIs, Pallas's most of all, change between releases: names are renamed or moved (the
old one usually stays a release or two as a deprecated alias, then goes) and keywords are
renamed. A notebook keeps the names of the JAX it was written for. JAX's documentation
notebooks follow JAX's main branch, so even the docs of a release can use names that release
does not have, and Colab may preinstall another JAX than the one a notebook was written for.
""")


def _release_note() -> str:
    return (f"Installed here: jax {jax_version()}. To run the notebook unchanged instead, "
            "install the JAX release it was written for.")


def _diagnosis(ctx: ErrorContext, explanation: str, fixes: tuple[Fix, ...] = ()) -> Diagnosis:
    location = ctx.deepest_user_location()
    failing = ctx.failing_cell()
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=fixes, notes=(_release_note(),))


def _accessed_by_jax(ctx: ErrorContext) -> bool:
    """Whether JAX's own code (not the notebook's) looked the name up: the frame under the
    module's ``__getattr__`` (or the innermost, for a module without one) is JAX's."""
    frames = list(ctx.top.frames)
    while frames and frames[-1].function == "getattr" and frames[-1].filename.endswith(
            "deprecations.py"):
        frames.pop()
    return bool(frames) and is_jax_file(frames[-1].filename)


def _attribute(ctx: ErrorContext, module_name: str, name: str) -> Diagnosis | None:
    owner = names.module(module_name)
    if (owner is None or names.has(owner, name) or _accessed_by_jax(ctx)
            or names.is_submodule(module_name, name)):
        return None  # a submodule not imported yet (jax.example_libraries) is not this
    location = ctx.deepest_user_location()
    old = names.shown(ctx, module_name, name)
    version = jax_version()
    row = _renames.moved(module_name, name)
    if row is not None and names.lookup(row.target_module, row.target) is not None:
        new = row.expression(names.shown(ctx, row.target_module, row.target), in_code=False)
        explanation = (f"{old}{_entry.at(location)} is {row.library}'s name, not JAX's: "
                       f"{row.history} ({new})." if row.library is not None else
                       f"{old}{_entry.at(location)} is a name from another JAX release: "
                       f"{row.history}. This JAX ({version}) has {new}.")
        return _diagnosis(ctx, explanation, (_rename_fix(ctx, location, row, owner),))
    gone = _renames.gone(module_name, name)
    if gone is not None:
        called = location is not None and re.search(rf"\.{name}\s*\(", location.line)
        fixes: tuple[Fix, ...] = ()
        if module_name == _renames.PALLAS and name in {"load", "store"} and called:
            fixes = (_index_refs_fix(ctx, location, owner),)
        elif module_name == "jax.ops" and name.startswith("index_") and called:
            fixes = (_ops_at_fix(ctx, location, owner, name),)
        elif module_name == "jax.random" and name in _KEY_TYPES and location is not None:
            annotation = _annotation_fix(ctx, location, name)
            fixes = (annotation,) if annotation is not None else ()
        return _diagnosis(ctx, f"{old}{_entry.at(location)} is not in this JAX ({version}): "
                               f"{gone.history}. {gone.advice}", fixes)
    close = [names.shown(ctx, module_name, match)
             for match in names.close(name, names.public_names(owner))]
    elsewhere = [names.shown(ctx, other, name) for other in names.RELATED
                 if other != module_name and (found := names.module(other)) is not None
                 and names.has(found, name)]
    explanation = (f"{old}{_entry.at(location)}: {names.shown(ctx, module_name)} has no {name} in "
                   f"this JAX ({version}), and jax_nbhelp knows of no release that renamed it. "
                   "The notebook was probably written for another JAX release, or the name is "
                   "misspelled. ")
    explanation += (f"Close names this module has: {', '.join(close)}." if close
                    else "This module has no name close to it.")
    if elsewhere:
        explanation += f" This JAX has {name} as {', '.join(elsewhere)}."
    return _diagnosis(ctx, explanation)


_KEY_TYPES = ("KeyArray", "PRNGKeyArray")


def _in_annotation(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether ``node`` sits in an annotation (a parameter's, a return's, a variable's)."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.arg) and parent.annotation is child:
            return True
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and parent.returns is child:
            return True
        if isinstance(parent, ast.AnnAssign) and parent.annotation is child:
            return True
        if isinstance(parent, ast.stmt):
            return False
        child, parent = parent, parents.get(parent)
    return False


def _annotation_fix(ctx: ErrorContext, location: Location, name: str) -> Fix | None:
    """``key: jax.random.KeyArray``, or ``KeyArray = jax.random.KeyArray`` whose every use in
    the notebook is an annotation (jax-ml/jax#22990): annotations change nothing the code
    computes, and jax.Array is the type JAX names for keys there."""
    parsed = _tracing.parse(location.source)
    jax = ctx.alias("jax")
    if parsed is None or jax is None:
        return None
    tree, code = parsed
    parents = {child: parent for parent in ast.walk(tree)
               for child in ast.iter_child_nodes(parent)}
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)
             and node.attr == name and node.lineno == location.lineno == node.end_lineno]
    if len(found) != 1:
        return None
    node = found[0]
    holder = parents.get(node)
    if not _in_annotation(node, parents):
        if not (isinstance(holder, ast.Assign) and holder.value is node
                and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name)):
            return None
        alias = holder.targets[0].id
        cells = ctx.cells_mentioning(alias)
        if cells is None or len(cells) != 1:
            return None  # used in another cell (or not known): not read there
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == alias
                and isinstance(n.ctx, ast.Load)]
        if not uses or not all(_in_annotation(use, parents) for use in uses):
            return None
    before = _tracing.segment(code, node, strip=False)
    after = f"{jax}.Array"
    return rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after), label=f"Use {after}",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}: the type JAX "
                 "names for keys in annotations; then re-run."),
        safety=("Same values: it is used only in annotations, which change nothing the code "
                "computes."),
        safe=True)


def _index_refs_fix(ctx: ErrorContext, location: Location | None, owner: object) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.ref_indexing import index_refs

        assert location is not None
        return index_refs(source, location.lineno,
                          lambda dotted: names.resolve(ctx, dotted) is owner)

    return rewrite_fix(
        ctx, location, transform, label="Index the refs",
        summary=("Write each pl.load(ref, idx) as ref[idx] and each pl.store(ref, idx, v) as "
                 "ref[idx] = v in the kernel's cell, then re-run."),
        safety=("Same block: indexing a ref reads and writes exactly what an unmasked "
                "pl.load and pl.store did."),
        safe=True)


def _ops_at_fix(ctx: ErrorContext, location: Location | None, owner: object,
                name: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.ops_index_update import ops_index_to_at

        assert location is not None
        return ops_index_to_at(source, location.lineno,
                               lambda dotted: names.resolve(ctx, dotted) is owner)

    return rewrite_fix(
        ctx, location, transform, label="Use .at",
        summary=("Write each jax.ops.index_update(x, idx, y) as x.at[idx].set(y) (index_add "
                 "as .add, index_mul as .multiply, index_min as .min, index_max as .max) in "
                 "the cell, then re-run."),
        safety=(f"Same values: jax.ops.{name} computed x.at[idx] with that method, and "
                "returned a new array as .at does; x itself is not changed by either."),
        safe=True)


def _rename_fix(ctx: ErrorContext, location: Location | None, row: _renames.Moved,
                owner: object) -> Fix:
    spelled = names.spell(ctx, row.target_module, row.target)
    new = row.expression(spelled) if spelled is not None else None
    shown = row.expression(names.shown(ctx, row.target_module, row.target), in_code=False)
    label = f"Use {shown}"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite import CannotRewrite
        from jax_nbhelp.rewrite.renamed_api import rename_attribute

        assert location is not None
        if new is None:
            raise CannotRewrite(f"the notebook has not imported {row.target_module}; import it "
                                f"and use {row.target_module}.{row.target}")
        members = {member: names.spell(ctx, module, path)
                   for member, (module, path) in row.members}
        missing = [f"{module}.{path}" for member, (module, path) in row.members
                   if members[member] is None]
        if missing:
            raise CannotRewrite(f"the notebook has not imported {', '.join(missing)}")
        return rename_attribute(source, location.lineno,
                                owner=lambda dotted: names.resolve(ctx, dotted) is owner,
                                old=row.name, new=new, call_keywords=row.call_keywords,
                                members={m: s for m, s in members.items() if s is not None},
                                added=dict(row.call_added))

    return rewrite_fix(ctx, location, transform, label=label,
                       summary=f"Spell it the way this JAX does ({shown}), then re-run.",
                       safety=row.safety, safe=True)


def _function(ctx: ErrorContext, qualname: str, keyword: str) -> tuple[object, str] | None:
    """The JAX function the error is about, and how the notebook spells it; None when it is
    not (or not surely) JAX's."""
    parts = qualname.split(".")
    if len(parts) == 2 and parts[1] == "__init__":
        parts = parts[:1]  # a class: CompilerParams.__init__()
    if len(parts) != 1:
        return None  # a method or a nested function: not one a notebook calls by name
    name = parts[0]
    found = (names.call_in_source(ctx, name, keyword)
             or names.method_in_source(ctx, name, keyword))
    if found is not None:
        return found
    frames = ctx.top.frames
    if not frames or is_jax_file(frames[-1].filename):
        return None  # JAX called it: maybe the notebook's own function, passed to JAX
    # The line is not available (code run by exec): the function must be one of JAX's that
    # the notebook reaches, and not a function of its own by that name.
    candidates = [(value, spelled) for value, spelled in names.in_namespace(ctx, name)
                  if (params := names.parameters(value)) is not None and keyword not in params
                  and not names.takes_any_keyword(params)]
    return candidates[0] if candidates else None


def _keyword(ctx: ErrorContext, qualname: str, keyword: str) -> Diagnosis | None:
    found = _function(ctx, qualname, keyword)
    if found is None:
        return None
    function, spelled = found
    params = names.parameters(function)
    if params is None or keyword in params or names.takes_any_keyword(params):
        return None
    location = ctx.deepest_user_location()
    version = jax_version()
    name = getattr(function, "__name__", qualname)
    for row in _renames.keywords(name, keyword):
        if not any(vars(home).get(name) is function for home_name in row.homes
                   if (home := names.module(home_name)) is not None):
            continue
        if row.replacement is None:
            return _diagnosis(ctx, f"{spelled}(...){_entry.at(location)} passes {keyword}=, which "
                                   f"this JAX ({version}) does not take: {row.history}. "
                                   f"{row.advice}")
        if row.replacement in params:
            renamed = _also_misspelled(location, keyword, row.replacement, params, name,
                                       function)
            return _diagnosis(
                ctx, f"{spelled}(...){_entry.at(location)} passes {keyword}=, a keyword from "
                     f"another JAX release: {row.history}. This JAX ({version}) takes "
                     f"{row.replacement}= in its place.",
                (_keyword_fix(ctx, location, function, keyword, row.replacement, row.history,
                              renamed or ()),))
    public = [p for p in params if not p.startswith("_")
              and params[p].kind is not params[p].VAR_POSITIONAL]
    habit = _OTHER_LIBRARIES.get(keyword)
    if habit is not None and habit[0] in params:
        replacement, library = habit
        # the same library's other keywords on the line: renamed with it, in one run
        also = tuple((other, new) for other, (new, _) in _OTHER_LIBRARIES.items()
                     if other != keyword and new in params and location is not None
                     and re.search(rf"\b{other}\s*=", location.line))
        return _diagnosis(
            ctx, f"{spelled}(...){_entry.at(location)} passes {keyword}=, {library}'s name for "
                 f"what {spelled} calls {replacement}=.",
            (_keyword_fix(ctx, location, function, keyword, replacement,
                          f"{keyword}= is {library}'s name for {replacement}=", also),))
    valued = _OTHER_LIBRARY_VALUES.get(keyword)
    if valued is not None and valued[0] in params:
        fix = _valued_keyword_fix(ctx, location, keyword, valued)
        if fix is not None:
            return _diagnosis(
                ctx, f"{spelled}(...){_entry.at(location)} passes {keyword}=, {valued[1]} "
                     f"keyword for what {spelled} says with {valued[0]}=.", (fix,))
    close = names.close(keyword, public)
    explanation = (f"{spelled}(...){_entry.at(location)} passes {keyword}=, which {spelled} does "
                   f"not take in this JAX ({version}), and jax_nbhelp knows of no release that "
                   "renamed it. The notebook was probably written for another JAX release, or "
                   "the keyword is misspelled. ")
    explanation += (f"Close keywords it takes: {', '.join(f'{c}=' for c in close)}. " if close
                    else "")
    explanation += f"It takes: {', '.join(public)}."
    # one keyword close to it: the signature admits exactly that change of the call; the
    # call's other keywords it does not take, each with one close keyword, change with it
    # (`a_min=`, `a_max=`: Python names only the first)
    others = _also_misspelled(location, keyword, close[0], params, name, function) \
        if len(close) == 1 else None
    fixes = ((_keyword_fix(ctx, location, function, keyword, close[0],
                           f"{spelled} takes no {keyword}=, and {close[0]}= is the one "
                           "keyword close to it", others),)
             if len(close) == 1 and others is not None else ())
    return _diagnosis(ctx, explanation, fixes)


def _also_misspelled(location: Location | None, keyword: str, replacement: str,
                     params: dict[str, Any], name: str, function: object
                     ) -> tuple[tuple[str, str], ...] | None:
    """The other keywords of the call that passes ``keyword=`` (renamed ``replacement=``) on
    the line which the function does not take, each with the keyword another release
    renamed it to, else the one keyword close to it; None where one of them has none or
    several, or two would take one name (the call is then the user's to spell)."""
    public = [p for p in params if not p.startswith("_")]
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return ()
    calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
             and node.lineno <= location.lineno <= (node.end_lineno or 0)
             and any(k.arg == keyword for k in node.keywords)]
    if len(calls) != 1:
        return ()
    given = [k.arg for k in calls[0].keywords if k.arg is not None]
    others = [k for k in given if k != keyword and k not in params]
    renamed = []
    for other in others:
        rows = [row.replacement for row in _renames.keywords(name, other)
                if row.replacement in params and any(
                    vars(home).get(name) is function for home_name in row.homes
                    if (home := names.module(home_name)) is not None)]
        near = rows or names.close(other, public)
        if len(near) != 1:
            return None
        renamed.append((other, near[0]))
    wanted = [new for _, new in renamed] + [replacement]
    if len(set(wanted)) != len(wanted) or set(wanted) & set(given):
        return None
    return tuple(renamed)


# Keywords of another library's functions, and what JAX's functions that take the same
# thing call it: the value means the same under either name.
_OTHER_LIBRARIES = {"dim": ("axis", "PyTorch"), "keepdim": ("keepdims", "PyTorch"),
                    # NumPy's random API: np.random.uniform(low, high, size)
                    "low": ("minval", "NumPy"), "high": ("maxval", "NumPy"),
                    "size": ("shape", "NumPy"),
                    # Python's sorted(..., reverse=True); PyTorch's sort says descending=
                    "reverse": ("descending", "Python's sorted")}


# Keywords of another library whose value JAX's functions take under another name and in
# another form: PyTorch's std(unbiased=True) divides by n - 1, which is ddof=1.
# keyword: (this JAX's keyword, whose keyword it was (possessive), its values as this JAX
# writes them, what each means)
_OTHER_LIBRARY_VALUES = {
    "unbiased": ("ddof", "PyTorch's", {True: "1", False: "0"},
                 {True: "divides by n - 1", False: "divides by n"}),
    # jax-ml/jax 9090dd1 (deprecated, following SciPy 1.9) and 340e655 (removed, jax 0.4.21):
    # sym_pos=True set assume_a='pos'
    "sym_pos": ("assume_a", "an earlier JAX's (as SciPy's before 1.9)",
                {True: "'pos'", False: "'gen'"},
                {True: "solves as for a symmetric positive definite matrix (JAX set "
                       "assume_a='pos' for it until it removed sym_pos in jax 0.4.21)",
                 False: "solves as for a general matrix"}),
}


def _valued_keyword_fix(ctx: ErrorContext, location: Location | None, old: str,
                        valued: tuple[str, str, dict[bool, str], dict[bool, str]]
                        ) -> Fix | None:
    """``unbiased=True`` written as ``ddof=1`` in the call on the line, where the value is
    written as a literal the table maps (one such keyword on the line)."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return None
    tree, code = parsed
    found = [k for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg == old
             and k.lineno == location.lineno == k.end_lineno
             and isinstance(k.value, ast.Constant) and type(k.value.value) is bool]
    if len(found) != 1:
        return None
    new, library, values, meanings = valued
    constant = found[0].value
    assert isinstance(constant, ast.Constant)
    written = values[bool(constant.value)]
    before = _tracing.segment(code, found[0])
    after = f"{new}={written}"
    meaning = meanings[bool(constant.value)]
    return rewrite_fix(
        ctx, location, _tracing.replacing(found[0], before, after), label=f"Pass {after}",
        summary=f"Write `{after}` for `{before}` (line {location.lineno}), then re-run.",
        safety=(f"Same values: {library} {before} {meaning}, and so does {after}."),
        safe=True)


def _keyword_fix(ctx: ErrorContext, location: Location | None, function: object, old: str,
                 new: str, history: str, also: tuple[tuple[str, str], ...] = ()) -> Fix:
    """Pass ``new=`` for ``old=`` in the call (and each of ``also``'s pairs with it)."""
    renames = ((old, new), *also)

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite import CannotRewrite
        from jax_nbhelp.rewrite.renamed_api import rename_keyword

        assert location is not None
        for before, after in renames:
            # the cell's other calls of the function with the old keyword fail next: they
            # are renamed too (a line holding none is left as it is)
            lines = [n for n, text in enumerate(source.split("\n"), 1)
                     if re.search(rf"\b{before}\s*=", text) and n != location.lineno]
            for lineno in [location.lineno, *lines]:
                try:
                    source = rename_keyword(
                        source, lineno,
                        function=lambda dotted: names.resolve(ctx, dotted) is function,
                        old=before, new=after, method=names.array_method(function))
                except CannotRewrite:
                    if lineno == location.lineno:
                        raise
        return source

    news = ", ".join(f"{after}=" for _, after in renames)
    olds = ", ".join(f"{before}=" for before, _ in renames)
    return rewrite_fix(
        ctx, location, transform, label=f"Pass {news} instead of {olds}",
        summary=f"Spell the keyword{'s' if also else ''} the way this JAX does ({news}), then "
                "re-run.",
        safety=(f"Only the keyword's name changed ({history}); its value means the same."
                if not also else f"Only the keywords' names changed ({history}, and "
                f"{', '.join(f'{a}= for {b}=' for b, a in also)}); their values mean the "
                "same."),
        safe=True,
    )


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    top = ctx.top
    if top.is_a("AttributeError"):
        attribute = _ATTRIBUTE.fullmatch(top.message) or _REMOVED.match(top.message)
        return _attribute(ctx, attribute["module"], attribute["name"]) if attribute else None
    if top.is_a("TypeError"):
        keyword = _KEYWORD.match(top.message)
        return _keyword(ctx, keyword["function"], keyword["keyword"]) if keyword else None
    return None
