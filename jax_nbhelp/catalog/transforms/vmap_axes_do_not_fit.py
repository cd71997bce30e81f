"""``jax.vmap``'s ``in_axes`` or ``out_axes`` that do not fit the arguments or the outputs,
or arguments whose mapped axes have different sizes.

``in_axes`` has one entry per positional argument (or one int for all); each entry is a
prefix of that argument's pytree. ``vmap`` checks this before it traces, and its messages
name the counts and sizes but not the user's call: ``vmap in_axes must be an int, None, or
a tuple of entries corresponding to the positional arguments passed to the function, but
got len(in_axes)=3, len(args)=2``, ``... but got {'a': 0}.``, ``vmap got inconsistent sizes
for array axes to be mapped``, ``at vmap out_axes, got axis spec None but output was
batched on axis 0``.

Reports: jax-ml/jax#18548 (a dict ``in_axes`` for a one-argument function; the answer was
``in_axes=({'a': 0},)``), jax-ml/jax#9928 (two entries for three arguments),
jax-ml/jax#24406 and google-research/discs#63 (inconsistent sizes), jax-ml/jax#3613 and
jax-ml/jax#21766 (``out_axes`` that do not fit the outputs), jax-ml/jax#3877 and
jax-ml/jax#5201 (a Python number among mapped arguments: "rank 0"). A number, or a dict or
list of numbers, beside arrays under vmap's default ``in_axes`` is shared: the fix writes
``in_axes`` with None for it, the one reading that runs. Likewise, where ``in_axes`` names
fewer arguments than the call passes (jax-ml/jax#9928) and each argument past its entries is
a number or an array with no axis of the batch size, None is the one entry vmap can take for
it: the fix appends it, on the line or where the vmapped function was assigned. A keyword
argument is mapped along axis 0 whatever ``in_axes`` says (jax-ml/jax#5387); where each one
holds a number or an array with no axis of the batch size, the fix passes it by position
with the entry None (the unmapped analogue jax-ml/jax#5617 names; jax-ml/jax#39450 made
JAX's message suggest passing them by position).

An entry of ``in_axes`` that names an axis of another size than every other mapped axis
has, for an argument with exactly one axis of that size (``in_axes=(0, 1)`` for ``X`` of
shape (10, 4) and ``U`` of shape (10, 2)), has a fix: that axis. The user asked for the
argument to be mapped; it is the one axis of it that can be, and no other single entry can be
changed to make the sizes agree (jax-ml/jax#705, whose reporter notes that (0, 0) was
meant; jax-ml/jax#1613 gave the message the shapes and the mapped axes).

One more size mismatch has a fix: a batch of PRNG keys, split by the user's own
``jax.random.split(key, n)`` (or ``split(key)``, two keys), mapped beside data of another
size, where every other mapped axis agrees. One key per element is what the split was for,
so the fix splits as many keys as the data has elements (``data.shape[0]`` where that name
can be read at the split, else the number) and runs the cell. With JAX's partitionable
Threefry (the default) ``split(key, n)``'s first keys are those of any larger split, so the
elements keep the keys they had; the safety line says so, or says that the keys change.
Reports: PredictiveIntelligenceLab/Physics-informed-DeepONets#3 (1000 keys mapped beside 10
functions), jax-ml/jax#7708 (the idiom: ``split(key, num=xs.shape[0])`` beside ``xs``).

A Python list of objects of one class (an ensemble's members) mapped beside a batch of as
many inputs: vmap reads the list as one pytree and maps each member's own arrays, whose
first axes disagree with the batch's. The members stacked into one pytree
(``jax.tree.map(lambda *leaves: jnp.stack(leaves), *members)``) have a first axis of the
list's length, and vmap calls the function with each member and its input, as a loop over
the list would. Reports: patrick-kidger/equinox#397 (a list of MLPs combined into one
ensemble module to vmap over), patrick-kidger/equinox#359 (ensembles evaluated per member).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import replace
from types import FrameType

from jax_nbhelp.catalog import _entry, _positional, _scopes, _shapes, _static_site, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH404"
TITLE = "vmap axes that do not fit the arguments"

IN_AXES = "vmap in_axes must be an int, None, or a tuple of entries"
IN_PREFIX = "vmap in_axes specification must be a tree prefix"
SIZES = "vmap got inconsistent sizes for array axes to be mapped"
OUT_NONE = "got axis spec None but output was batched"
OUT_NONE_OLD = "vmap has mapped output but out_axes is None"
OUT_PREFIX = "vmap out_axes specification must be a tree prefix"
RANK = "vmap was requested to map its argument along axis"
TRIGGERS = (IN_AXES, IN_PREFIX, SIZES, OUT_NONE, OUT_NONE_OLD, OUT_PREFIX, RANK)

_GOT = re.compile(r"but got (?P<spec>.+?)\.?$")
_COUNTS = re.compile(r"len\(in_axes\)=(?P<axes>\d+), len\(args\)=(?P<args>\d+)")
_SIZE_LINE = re.compile(
    r"axis (?P<axis>\d+) of argument (?P<name>.+?) of type (?P<type>\S+?)[;.]?$")

_ADD = "def add(a, b):\n    return a + b"

_PARAMS = "params = {'w': jnp.arange(3.0), 'b': jnp.ones(3)}"
_SIZES = "xs = jnp.ones(3)\nys = jnp.ones(4)"
_MEMBERS = ("from typing import NamedTuple\nclass Layer(NamedTuple):\n    w: jax.Array\n"
            "    b: jax.Array\n"
            "members = [Layer(jnp.ones((2, 3)) * (i + 1), jnp.zeros(2)) for i in range(3)]\n"
            "xs = jnp.ones((3, 3))")

EXAMPLES = (
    # jax-ml/jax#18548: the dict is the one argument's spec, so it goes in a 1-tuple.
    corrected_cell(
        (JAX_IMPORTS, _PARAMS),
        "out = jax.vmap(lambda p: p['w'] * p['b'], in_axes={'w': 0, 'b': 0})(params)",
        "out = jax.vmap(lambda p: p['w'] * p['b'], in_axes=({'w': 0, 'b': 0},))(params)",
        "Put in_axes in a tuple", "out.tolist() == [0.0, 1.0, 2.0]"),
    corrected_cell(
        (JAX_IMPORTS, _ADD), "out = jax.vmap(add, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3))",
        "out = jax.vmap(add, in_axes=(0, 0))(jnp.ones(3), jnp.ones(3))",
        NO_FIX, "out.tolist() == [2.0, 2.0, 2.0]"),
    # Every pair of elements was meant: two vmaps, one per argument.
    corrected_cell(
        (JAX_IMPORTS, _ADD, _SIZES), "out = jax.vmap(add)(xs, ys)",
        "out = jax.vmap(jax.vmap(add, in_axes=(None, 0)), in_axes=(0, None))(xs, ys)",
        NO_FIX, "out.shape == (3, 4)"),
    # A key per element was meant: the split makes as many keys as xs has elements.
    corrected_cell(
        (JAX_IMPORTS, "xs = jnp.arange(4.0)"),
        "keys = jax.random.split(jax.random.key(0), 3)\n"
        "out = jax.vmap(lambda k, x: x + 0 * jax.random.uniform(k))(keys, xs)",
        "keys = jax.random.split(jax.random.key(0), xs.shape[0])\n"
        "out = jax.vmap(lambda k, x: x + 0 * jax.random.uniform(k))(keys, xs)",
        "Split a key per element", "out.tolist() == [0.0, 1.0, 2.0, 3.0]"),
    # A Python list of numbers: its numbers have no axis; one array of them has
    corrected_cell(
        (JAX_IMPORTS,), "out = jax.vmap(lambda x: x * x)([1.0, 2.0, 3.0])",
        "out = jax.vmap(lambda x: x * x)(jnp.asarray([1.0, 2.0, 3.0]))",
        "Map over jnp.asarray(...)", "out.tolist() == [1.0, 4.0, 9.0]"),
    # a number beside a batch: it has no axis, so every element shares it
    corrected_cell(
        (JAX_IMPORTS, "def scaled(x, s):\n    return x * s"),
        "out = jax.vmap(scaled)(jnp.ones((3, 2)), 2.0)",
        "out = jax.vmap(scaled, in_axes=(0, None))(jnp.ones((3, 2)), 2.0)",
        "Use in_axes=(0, None)", "out.tolist() == [[2.0, 2.0]] * 3"),
    # in_axes counts a keyword argument the call passes: by position, it is counted
    corrected_cell(
        (JAX_IMPORTS, "def scaled(x, s):\n    return x * s"),
        "out = jax.vmap(scaled, in_axes=(0, None))(jnp.ones(3), s=2.0)",
        "out = jax.vmap(scaled, in_axes=(0, None))(jnp.ones(3), 2.0)",
        "Pass the arguments by position", "out.tolist() == [2.0, 2.0, 2.0]"),
    # an axis computed as a float that holds a whole number
    corrected_cell(
        (JAX_IMPORTS,), "out = jax.vmap(jnp.sum, in_axes=2 / 2)(jnp.ones((2, 3)))",
        "out = jax.vmap(jnp.sum, in_axes=int(2 / 2))(jnp.ones((2, 3)))",
        "Use int(2 / 2)", "out.tolist() == [2.0, 2.0, 2.0]"),
    corrected_cell(
        (JAX_IMPORTS,), "out = jax.vmap(lambda x: x * 2, out_axes=None)(jnp.ones(3))",
        "out = jax.vmap(lambda x: x * 2, out_axes=0)(jnp.ones(3))",
        NO_FIX, "out.tolist() == [2.0, 2.0, 2.0]"),
    # in_axes names two of three arguments; the third has no axis of the batch size 3
    corrected_cell(
        (JAX_IMPORTS, _ADD), "out = jax.vmap(lambda a, b, c: a + b * c.sum(), in_axes=(0, 0))"
        "(jnp.ones(3), jnp.ones(3), jnp.ones(2))",
        "out = jax.vmap(lambda a, b, c: a + b * c.sum(), in_axes=(0, 0, None))"
        "(jnp.ones(3), jnp.ones(3), jnp.ones(2))",
        "Use in_axes=(0, 0, None)", "out.tolist() == [3.0, 3.0, 3.0]"),
    # a tuple of keys (each an array of no axis): stacked, one key per element
    corrected_cell(
        (JAX_IMPORTS, "keys = tuple(jax.random.split(jax.random.key(0), 3))"),
        "out = jax.vmap(lambda k: jax.random.uniform(k))(keys)",
        "out = jax.vmap(lambda k: jax.random.uniform(k))(jnp.stack(keys))",
        "Map over jnp.stack(...)", "out.shape == (3,)"),
    # a keyword argument (mapped along axis 0 whatever in_axes says) with no axis of the
    # batch size: by position, with None, each element gets it whole
    corrected_cell(
        (JAX_IMPORTS, "def scaled(x, s):\n    return x * s"),
        "out = jax.vmap(scaled)(jnp.ones((4, 3)), s=jnp.arange(3.0))",
        "out = jax.vmap(scaled, in_axes=(0, None))(jnp.ones((4, 3)), jnp.arange(3.0))",
        "Pass s whole (None)", "out.tolist() == [[0.0, 1.0, 2.0]] * 4"),
    corrected_cell(
        (JAX_IMPORTS, "def scaled(x, s):\n    return x * s"),
        "out = jax.vmap(scaled)(jnp.ones(3), s=2.0)",
        "out = jax.vmap(scaled, in_axes=(0, None))(jnp.ones(3), 2.0)",
        "Pass s whole (None)", "out.tolist() == [2.0, 2.0, 2.0]"),
    # an entry that names an axis of another size, where the argument has one axis of the
    # batch size: mapped along that axis
    corrected_cell(
        (JAX_IMPORTS, "xs = jnp.ones((4, 3))\nus = jnp.arange(8.0).reshape(4, 2)"),
        "out = jax.vmap(lambda x, u: x.sum() + u.sum(), in_axes=(0, 1))(xs, us)",
        "out = jax.vmap(lambda x, u: x.sum() + u.sum(), in_axes=(0, 0))(xs, us)",
        "Map us along axis 0", "out.tolist() == [4.0, 8.0, 12.0, 16.0]"),
    # either entry could change to make the sizes agree: which one was meant is not read
    corrected_cell(
        (JAX_IMPORTS, "xs = jnp.ones((4, 2))\nus = jnp.ones((4, 2))"),
        "out = jax.vmap(lambda x, u: x.sum() + u.sum(), in_axes=(0, 1))(xs, us)",
        "out = jax.vmap(lambda x, u: x.sum() + u.sum(), in_axes=(0, 0))(xs, us)",
        NO_FIX, "out.tolist() == [4.0, 4.0, 4.0, 4.0]"),
    # a list of members of one class beside a batch of as many inputs: stacked
    corrected_cell(
        (JAX_IMPORTS, _MEMBERS),
        "outs = jax.vmap(lambda m, x: m.w @ x + m.b)(members, xs)",
        "outs = jax.vmap(lambda m, x: m.w @ x + m.b)("
        "jax.tree.map(lambda *leaves: jnp.stack(leaves), *members), xs)",
        "Stack the members", "outs.tolist() == [[3.0, 3.0], [6.0, 6.0], [9.0, 9.0]]"),
    # parameters whose arrays have no common first axis, beside a batch: shared
    corrected_cell(
        (JAX_IMPORTS, "layer = {'w': jnp.ones((3, 2)), 'b': jnp.zeros(2)}\n"
                      "xs = jnp.ones((4, 3))"),
        "ys = jax.vmap(lambda p, x: x @ p['w'] + p['b'])(layer, xs)",
        "ys = jax.vmap(lambda p, x: x @ p['w'] + p['b'], in_axes=(None, 0))(layer, xs)",
        "Use in_axes=(None, 0)", "ys.tolist() == [[3.0, 3.0]] * 4"),
)

WHY = _entry.prose("""
jax.vmap maps a function over one axis of its arguments. in_axes says, for each positional
argument in order, which axis is mapped (None: not mapped), as an int or a pytree shaped
like that argument; out_axes says the same for the outputs. Every mapped axis must have the
same size, the batch size.
""")


def _vmap_call(location: Location | None) -> tuple[ast.Call, ast.Call | None] | None:
    """The vmap(...) call on the user's line, and the call of its result, if on the line."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return None
    calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
             and node.lineno <= location.lineno <= (node.end_lineno or 0)]
    maps = [node for node in calls if (dotted(node.func) or "").rsplit(".", 1)[-1] == "vmap"]
    if len(maps) != 1:
        return None
    applied = next((node for node in calls if node.func is maps[0]), None)
    return maps[0], applied


_ENTRY_PATH = re.compile(r"key path\s+vmap in_axes(?P<path>\[\d+\]\S*)")
_TUPLE_SPEC = re.compile(r"got specification (?P<spec>\(.*\)) for value tree (?P<tree>.+?)\.?$",
                         re.MULTILINE)


def _entry_mismatch(message: str) -> str | None:
    """Where an in_axes tuple's entry and its argument differ, as JAX's prefix message says
    (``at in_axes[0], the spec has keys a and the argument keys a b``); None where JAX's
    message does not show a tuple of entries (a dict or list given for the whole tuple)."""
    path = _ENTRY_PATH.search(message)
    if path is None:
        older = _TUPLE_SPEC.search(message)  # JAX 0.8: the spec and the tree, whole
        return None if older is None else (f"the spec {older['spec']} against the arguments' "
                                           f"tree {older['tree']}")
    where = f"at in_axes{path['path']}"
    keys = re.findall(r"child keys\n\s+(.*)", message)
    types = re.findall(r"subtree of (?:different )?type\s+<class '([^']+)'>", message)
    if "different numbers of pytree children" in message and len(keys) == 2:
        return (f"{where}, the spec has keys {keys[0].strip()} where the argument has "
                f"{keys[1].strip()}")
    if "different types" in message and len(types) == 2:
        return f"{where}, the spec is a {types[0]} and the argument a {types[1]}"
    return f"{where}, their structures differ"


def _sizes(message: str) -> list[str]:
    """``a: axis 0 has size 3 (float32[3])`` for each argument JAX lists."""
    found = []
    for line in message.splitlines():
        size = re.search(r"had size (?P<size>\d+)", line)
        where = _SIZE_LINE.search(line.strip())
        if size and where:
            found.append(f"{where['name']} (axis {where['axis']} of {where['type']}) has "
                         f"size {size['size']}")
    return found


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next(filter(None, map(ctx.find, TRIGGERS)), None)
    if link is None or not (link.is_a("ValueError") or link.is_a("TypeError")):
        return None
    message = link.message
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A jax.vmap call")
    found = _vmap_call(location)
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    counts = _COUNTS.search(message)
    if IN_AXES in message and counts:
        explanation = (f"{subject} gives vmap {counts['axes']} in_axes entries for "
                       f"{counts['args']} positional arguments: in_axes needs exactly one "
                       "entry per argument, in order.")
        moved = _keywords_fix(ctx, location, found, int(counts["axes"])) \
            if location is not None and found is not None else None
        short = _short_axes_fix(ctx, location, found, int(counts["axes"])) \
            if location is not None and moved is None else None
        if moved is not None:
            fixes = (moved,)
        elif short is not None:
            fixes = (short[0],)
            explanation += f" {short[1]}"
        else:
            notes.append("Use None for an argument that is not mapped, for example "
                         "in_axes=(0, None) for a batch and a shared parameter.")
    elif IN_AXES in message and (spec := _GOT.search(message)) is not None \
            and not spec["spec"].startswith(("{", "[")):
        # not a container read as the whole argument tuple: a number that is no int
        # (`in_axes=n / 2`), a string
        explanation = (f"{subject} gives vmap in_axes={spec['spec']}, and in_axes takes an "
                       "int (the axis mapped in every argument), None, or a tuple of those.")
        whole = _whole_axis_fix(ctx, location, found) \
            if location is not None and found is not None else None
        fixes = (whole,) if whole is not None else ()
    elif IN_PREFIX in message and (entry := _entry_mismatch(message)) is not None:
        # in_axes is a tuple of one entry per argument; an entry does not fit its argument
        explanation = (f"{subject} gives vmap an in_axes entry that does not fit its "
                       f"argument's pytree: {entry}. Each entry must be a prefix of its "
                       "argument: its containers, with an axis or None for a leaf or for a "
                       "whole subtree.")
    elif IN_AXES in message or IN_PREFIX in message:
        explanation = (f"{subject} gives vmap an in_axes that is not one entry per "
                       "positional argument: a dict or list is read as the spec of the whole "
                       "argument tuple, not of the one argument it describes.")
        if found is not None and found[1] is not None and len(found[1].args) == 1 \
                and location is not None:
            fixes = (_tuple_fix(ctx, location),)
        else:
            notes.append("Wrap the spec of each argument in a tuple with one entry per "
                         "positional argument: in_axes=({'w': 0, 'b': 0},) for one argument.")
    elif SIZES in message:
        sizes = _sizes(message)
        listed = "; ".join(sizes) if sizes else "their sizes differ"
        explanation = (f"{subject} maps arguments whose mapped axes have different sizes: "
                       f"{listed}. vmap needs one batch size for every mapped axis.")
        key_fix = _key_count_fix(ctx, location, found, message) \
            if location is not None and found is not None else None
        kept = _mapped_keywords_fix(ctx, location, found) \
            if location is not None and found is not None and key_fix is None else None
        axis = _fitting_axis_fix(ctx, location, found) \
            if location is not None and found is not None and key_fix is None \
            and kept is None else None
        members = _members_fix(ctx, location, found) \
            if location is not None and found is not None and key_fix is None \
            and kept is None and axis is None else None
        unmapped = _shared_arrays_fix(ctx, location, found) \
            if location is not None and found is not None and key_fix is None \
            and kept is None and axis is None and members is None else None
        if key_fix is not None:
            fixes = (key_fix,)
        elif members is not None:
            fixes = (members[0],)
            explanation += f" {members[1]}"
        elif axis is not None:
            fixes = (axis[0],)
            explanation += f" {axis[1]}"
        elif kept is not None:
            fixes = (kept[0],)
            explanation += f" {kept[1]}"
        elif unmapped is not None:
            fixes = (unmapped[0],)
            explanation += f" {unmapped[1]}"
        else:
            notes.append("Map only the batched arguments (in_axes=None for the others), map "
                         "the axis that really is the batch, or, for every pair of elements, "
                         "nest two vmaps: jax.vmap(jax.vmap(f, in_axes=(None, 0)), "
                         "in_axes=(0, None)).")
    elif OUT_NONE in message or OUT_NONE_OLD in message:
        explanation = (f"{subject} says out_axes=None (the output is the same for every "
                       "element of the batch), but the output depends on the mapped input.")
        notes.append("Use out_axes=0 to stack the per-element outputs, or compute the "
                     "unmapped output outside the vmap.")
    elif OUT_PREFIX in message:
        explanation = (f"{subject} gives out_axes a structure that does not match what the "
                       "function returns: out_axes needs one entry per output (or one int "
                       "for all).")
    else:
        explanation = (f"{subject} maps an argument along an axis it does not have: "
                       f"{message.splitlines()[0]}")
        numbers: Fix | None = None
        shared: tuple[Fix, str] | None = None
        kept = None
        if location is not None and found is not None and "is only 0" in message:
            numbers = _numbers_list_fix(ctx, location, found)
            shared = _shared_scalars_fix(ctx, location, found) if numbers is None else None
            kept = _mapped_keywords_fix(ctx, location, found) \
                if numbers is None and shared is None else None
        if numbers is not None:
            fixes = (numbers,)
        elif kept is not None:
            fixes = (kept[0],)
            explanation = (f"{subject} maps every argument along axis 0, keyword arguments "
                           f"too, whatever in_axes says. {kept[1]}")
        elif shared is not None:
            fixes = (shared[0],)
            explanation = (f"{subject} maps every argument along axis 0, vmap's default, and "
                           f"{shared[1]} no axis to map.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.splitlines()[0])


def _tuple_fix(ctx: ErrorContext, location: Location) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.in_axes_tuple import in_axes_as_tuple

        return in_axes_as_tuple(source, location.lineno)

    return rewrite_fix(
        ctx, location, transform, label="Put in_axes in a tuple",
        summary="Write in_axes as a one-element tuple holding the argument's spec, then re-run.",
        safety="Same mapping: the spec describes the one argument, as it was meant to.",
        safe=True)


# -- a batch of keys split for another count -------------------------------------------

_SIZE_ITEM = re.compile(r"\* (?P<how>one axis|(?:most|some) axes \((?P<count>\d+) of them\)) "
                        r"had size (?P<size>\d+)(?:, e\.g\.)?: axis (?P<axis>\d+) of "
                        r"argument (?P<name>.+?) of type (?P<type>\S+?)[;.]?$")


def _size_items(message: str) -> list[tuple[int, int, str]]:
    """(size, axis, type) of each group of mapped axes JAX lists."""
    return [(int(m["size"]), int(m["axis"]), m["type"])
            for line in message.splitlines() if (m := _SIZE_ITEM.search(line.strip()))]


def _scope(tree: ast.Module, lineno: int) -> _scopes.Function | ast.Module:
    """The innermost function holding ``lineno``, or the module."""
    return _scopes.enclosing_function(tree, lineno) or tree


def _is_split(ctx: ErrorContext, node: ast.AST) -> bool:
    """``jax.random.split(...)`` as the user spells it."""
    if not isinstance(node, ast.Call):
        return False
    spelled = dotted(node.func) or ""
    random = ctx.alias("jax.random")
    jax = ctx.alias("jax")
    return spelled in {f"{random}.split" if random else "", f"{jax}.random.split" if jax else ""}


def _split_of(ctx: ErrorContext, tree: ast.Module, argument: ast.expr, lineno: int
              ) -> ast.Call | None:
    """The split call that made the key argument: the argument itself, or the last
    assignment of its name in the same scope before the vmap line."""
    if _is_split(ctx, argument):
        return argument  # type: ignore[return-value]
    if not isinstance(argument, ast.Name):
        return None
    made = [node for node in _scopes.own_nodes(_scope(tree, lineno))
            if isinstance(node, ast.Assign)
            and node.lineno < lineno and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id == argument.id]
    last = max(made, key=lambda node: node.lineno, default=None)
    return last.value if last is not None and _is_split(ctx, last.value) else None  # type: ignore[return-value]


def _readable_at_split(tree: ast.Module, name: str, split: ast.Call, lineno: int) -> bool:
    """Whether ``name`` holds at the split what it holds at the vmap line: both in one
    scope that never assigns the name (a parameter of their function, or a global)."""
    scope = _scope(tree, lineno)
    return _scope(tree, split.lineno) is scope and not _scopes.stores(scope, name)


def _same_keys_sentence(old: int, new: int) -> tuple[bool, str]:
    """Whether the elements keep their keys (JAX's partitionable Threefry, read from JAX's
    config) and the sentence that says what the new count changes."""
    from jax_nbhelp.jaxapi.jax_probe import attribute

    config = attribute("jax", "config")
    partitionable = bool(getattr(config, "jax_threefry_partitionable", False))
    threefry = str(getattr(config, "jax_default_prng_impl", "threefry2x32")) == "threefry2x32"
    if not (partitionable and threefry):
        return False, (f"Each element gets a key of its own, but not the keys the {old}-way "
                       "split gave: JAX's Threefry is not partitionable here, so a split of "
                       "another count gives other keys.")
    if new < old:
        return True, (f"Same keys: the elements get the first {new} of the {old} keys, as "
                      f"JAX's partitionable Threefry (on here) splits them, so it computes "
                      f"what mapping over those {new} keys computes; the other "
                      f"{old - new} are not made.")
    return True, (f"The first {old} elements keep the keys the {old}-way split gave them "
                  f"(JAX's partitionable Threefry, on here); the other {new - old} get keys "
                  "of their own from the same split.")


def _key_count_fix(ctx: ErrorContext, location: Location,
                   found: tuple[ast.Call, ast.Call | None], message: str) -> Fix | None:
    """A batch of keys split for one count beside data of another: split as many keys as
    the data has elements. None unless one split of the user's made the odd batch."""
    applied = found[1]
    parsed = _tracing.parse(location.source)
    items = _size_items(message)
    if applied is None or parsed is None or len({size for size, _, _ in items}) != 2:
        return None
    tree, code = parsed
    keyish = [item for item in items if item[2].startswith("key<")
              or (item[2].startswith("uint32[") and item[2].endswith(",2]"))]
    if len(keyish) != 1:
        return None
    old, key_axis, _ = keyish[0]
    new = next(size for size, _, _ in items if size != old)
    values = {v.text: v for v in ctx.values_at(location)}
    key_arg = data_arg = None
    data_axis = 0
    for argument in applied.args:
        value = values.get(ast.unparse(argument))
        shape = value.shape if value is not None else None
        if value is None or shape is None:
            continue
        if key_arg is None and len(shape) > key_axis and shape[key_axis] == old \
                and ("key<" in (value.dtype or "") or value.dtype == "uint32"):
            key_arg = argument
            continue
        for size, axis, _ in items:
            if size == new and len(shape) > axis and shape[axis] == new and data_arg is None:
                data_arg, data_axis = argument, axis
    if key_arg is None:
        return None
    split = _split_of(ctx, tree, key_arg, location.lineno)
    if split is None or len(split.args) > 2 or (split.keywords and any(
            k.arg != "num" for k in split.keywords)):
        return None
    count_node = split.args[1] if len(split.args) == 2 else next(
        (k.value for k in split.keywords if k.arg == "num"), None)
    count = str(new)
    if isinstance(data_arg, ast.Name) and _readable_at_split(tree, data_arg.id, split,
                                                              location.lineno):
        count = f"{data_arg.id}.shape[{data_axis}]"
    before = _tracing.segment(code, split)
    after = (before[:count_node.col_offset - split.col_offset] + count
             + before[(count_node.end_col_offset or 0) - split.col_offset:]
             if count_node is not None and count_node.lineno == split.lineno == split.end_lineno
             else before[:-1].rstrip().rstrip(",") + f", {count})"
             if count_node is None else "")
    if not after:
        return None
    safe, safety = _same_keys_sentence(old, new)

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.errors import CannotRewrite

        lines = source.split("\n")
        line = lines[split.lineno - 1] if 0 < split.lineno <= len(lines) else ""
        if split.lineno != split.end_lineno or before not in line:
            raise CannotRewrite(f"the split on line {split.lineno} is no longer as it was")
        lines[split.lineno - 1] = line.replace(before, after, 1)
        return "\n".join(lines)

    return rewrite_fix(
        ctx, location, transform, label="Split a key per element",
        summary=(f"Write `{after}` on line {split.lineno}: {new} keys, one for each element "
                 f"vmap maps (it split {old}); then re-run."),
        safety=safety, safe=safe,
        changes=None if safe else "which key each element draws with")


# -- a Python list of numbers mapped over ---------------------------------------------------

def _numbers_list_fix(ctx: ErrorContext, location: Location,
                      found: tuple[ast.Call, ast.Call | None]) -> Fix | None:
    """``jax.vmap(f)([1.0, 2.0, 3.0])``: vmap reads a list as a pytree whose leaves, the
    numbers, have no axis to map. Mapped over the list is the one reading that runs: one
    array of the list's numbers (``jnp.asarray``), each element then a number as JAX
    converts a Python number of that type. Only for the one list or tuple of numbers of one
    type the call passes, with vmap's default in_axes. A tuple of JAX arrays of no axis (the
    keys of ``tuple(jax.random.split(key, 4))``, jax-ml/jax#17747) is stacked the same way,
    ``jnp.stack``."""
    vmap, applied = found
    jnp = ctx.alias("jax.numpy")
    parsed = _tracing.parse(location.source)
    if applied is None or jnp is None or parsed is None or vmap.keywords \
            or len(vmap.args) != 1 or applied.keywords \
            or any(isinstance(a, ast.Starred) for a in applied.args):
        return None
    frame = ctx.live_frame(location)
    if frame is None:
        return None
    evaluate = Evaluator(frame)
    lists = [(a, value) for a in applied.args
             if isinstance(value := evaluate(a), list | tuple) and type(value) in (list, tuple)
             and value and (_numbers(value) or _scalar_arrays(value))]
    if len(lists) != 1:
        return None
    argument, value = lists[0]
    code = parsed[1]
    before = _tracing.segment(code, argument)
    numbers = _numbers(value)
    after = f"{jnp}.asarray({before})" if numbers else f"{jnp}.stack({before})"
    if argument.lineno != argument.end_lineno:
        return None
    what = "numbers" if numbers else f"{len(value)} scalars"
    return rewrite_fix(
        ctx, location, _tracing.replacing(argument, before, after),
        label=f"Map over {after.split('(')[0]}(...)",
        summary=(f"Pass `{after}` on line {location.lineno}: one array of the {what}, whose "
                 "first axis vmap maps, so the function gets each in turn; then re-run."),
        safety=("Same values: the function gets each number of the list in turn, as JAX "
                "converts a Python number (float32 for floats unless x64 is on)." if numbers
                else f"Same values: the function gets each item of the "
                f"{type(value).__name__} in turn, each a {_item_kind(value[0])} as before."),
        safe=True)


def _members_fix(ctx: ErrorContext, location: Location,
                 found: tuple[ast.Call, ast.Call | None]) -> tuple[Fix, str] | None:
    """``jax.vmap(f)(models, xs)`` with ``models`` a Python list of objects of one class
    (an ensemble's members, each a pytree of arrays) and ``xs`` a batch of as many: vmap
    reads the list as one pytree and maps each member's own arrays, whose first axes
    disagree. Stacked, the members are one pytree whose leaves have a first axis of the
    list's length, which vmap maps: the function gets each member with its input, as a loop
    over the list would call it (``jax.tree.map(lambda *leaves: jnp.stack(leaves), *models)``,
    equinox's and flax's idiom for an ensemble)."""
    vmap, applied = found
    jax, jnp = ctx.alias("jax"), ctx.alias("jax.numpy")
    parsed = _tracing.parse(location.source)
    frame = ctx.live_frame(location)
    if applied is None or jax is None or jnp is None or parsed is None or frame is None \
            or vmap.keywords or len(vmap.args) != 1 or applied.keywords \
            or any(isinstance(a, ast.Starred) for a in applied.args):
        return None
    values = _applied_values(ctx, frame, applied)
    lists = [(a, v) for a, v in zip(applied.args, values, strict=True)
             if type(v) in (list, tuple) and len(v) >= 2  # type: ignore[arg-type]
             and len({type(item) for item in v}) == 1  # type: ignore[attr-defined]
             and not _numbers(v) and not _scalar_arrays(v)]  # type: ignore[arg-type]
    if len(lists) != 1:
        return None
    argument, members = lists[0]
    count = len(members)  # type: ignore[arg-type]
    others = [_shapes.array_shape(v) for v in values if v is not members]
    if not others or any(shape is None or not shape or shape[0] != count for shape in others):
        return None  # every other argument a batch of as many (read from JAX's own arrays)
    code = parsed[1]
    before = _tracing.segment(code, argument)
    if argument.lineno != argument.end_lineno:
        return None
    kind = type(members[0]).__name__  # type: ignore[index]
    after = f"{jax}.tree.map(lambda *leaves: {jnp}.stack(leaves), *{before})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(argument, before, after),
        label="Stack the members",
        summary=(f"Pass `{after}` on line {location.lineno}: one {kind} whose arrays have a "
                 f"first axis of {count}, which vmap maps with the batch of {count}; then "
                 "re-run."),
        safety=(f"Same calls: the function gets each {kind} of the {type(members).__name__} "
                "with its own input, as a loop over it would; their arrays are stacked, "
                "not changed."),
        safe=True), (f"`{before}` is a {type(members).__name__} of {count} {kind} objects: "
                     "vmap maps each one's own arrays, not the list.")


def _numbers(value: list[object] | tuple[object, ...]) -> bool:
    """Python numbers of one type."""
    return len({type(item) for item in value}) == 1 and type(value[0]) in (int, float)


def _scalar_arrays(value: list[object] | tuple[object, ...]) -> bool:
    """JAX arrays of no axis, one dtype (typed PRNG keys included): stacked, the same
    items along a new first axis."""
    kinds = set()
    for item in value:
        if not type(item).__module__.startswith(("jax", "jaxlib")) \
                or _shapes.array_shape(item) != ():
            return False
        kinds.add(str(getattr(item, "dtype", "")))
    return len(kinds) == 1


def _item_kind(item: object) -> str:
    return f"{getattr(item, 'dtype', '')}[] array"


def _leaf_shapes(value: object) -> list[tuple[int, ...]] | None:
    """The shapes of the leaves of an argument: a Python number (``()``), a NumPy or JAX
    array, or a dict, list or tuple of those (never a user's object); None for anything
    else."""
    leaves = _shapes.builtin_leaves(value)
    if leaves is None:
        return None
    shapes: list[tuple[int, ...]] = []
    for item in leaves:
        if type(item) in (int, float, bool, complex):
            shapes.append(())
        elif isinstance(getattr(type(item), "ndim", None), property | type(None)) \
                and (shape := _shapes.array_shape(item)) is not None:
            shapes.append(shape)
        else:
            return None
    return shapes


def _ranks(value: object) -> set[int] | None:
    """The ranks of the leaves of an argument (``_leaf_shapes``)."""
    shapes = _leaf_shapes(value)
    return {len(shape) for shape in shapes} if shapes is not None else None


def _shared_arrays_fix(ctx: ErrorContext, location: Location,
                       found: tuple[ast.Call, ast.Call | None]) -> tuple[Fix, str] | None:
    """``jax.vmap(predict)(params, xs)``: vmap maps every argument along axis 0 by default,
    and ``params``' arrays have no common first axis. Where exactly one size B is such that
    every argument either has B as the first axis of each of its arrays (mapped) or has no
    array whose first axis is B (shared), and both kinds are there, ``in_axes`` with None for
    the shared ones is the one reading that runs."""
    called = _default_axes_call(ctx, location, found)
    if called is None or len(called[1].args) < 2:
        return None
    vmap, applied, code, values = called
    shapes = [_leaf_shapes(value) for value in values]
    if any(not leaves for leaves in shapes):
        return None
    fits = []
    for size in {leaf[0] for leaves in shapes for leaf in leaves or () if leaf}:
        entries = ["0" if all(leaf and leaf[0] == size for leaf in leaves or ())
                   else "None" if not any(leaf and leaf[0] == size for leaf in leaves or ())
                   else "" for leaves in shapes]
        if "" not in entries and "0" in entries and "None" in entries:
            fits.append((size, entries))
    if len(fits) != 1:
        return None
    size, entries = fits[0]
    shared = [ast.unparse(a) for a, e in zip(applied.args, entries, strict=True) if e == "None"]
    named = _tracing.quoted([f"`{n}`" for n in shared])
    fix = _in_axes_fix(
        ctx, location, vmap, code, entries,
        f"so that every element of the batch of {size} gets {named} whole",
        safety=(f"Each element of the batch gets its slice of the mapped arguments and "
                f"{named} whole: the one reading that runs, as no array of {named} has a "
                f"first axis of the batch size {size}."))
    if fix is None:
        return None
    verb = "has" if len(shared) == 1 else "have"
    return fix, (f"{named} {verb} no array whose first axis is the batch size {size}: "
                 f"{'it is' if len(shared) == 1 else 'they are'} shared by every element.")


def _vmap_frame(ctx: ErrorContext) -> dict[str, object] | None:
    """The locals of JAX's vmapped function (``vmap_f``, api.py) the user's call ran."""
    call = ctx.user_call
    for frame in (call.frames[call.index + 1:] if call is not None else ()):
        if frame.f_code.co_name == "vmap_f" and frame.f_code.co_filename.endswith("api.py"):
            return frame.f_locals
    return None


def _mapped_keywords_fix(ctx: ErrorContext, location: Location,
                         found: tuple[ast.Call, ast.Call | None]) -> tuple[Fix, str] | None:
    """``jax.vmap(score)(batch, weights=w)``: vmap maps every keyword argument along axis 0,
    whatever in_axes says. Where each keyword holds a number or an array with no axis of
    the batch size (the one size of the positional arguments' mapped axes), vmap could only
    pass it whole: by position (the function's next parameters, in order) with the in_axes
    entry None, each element of the batch gets it whole."""
    vmap, applied = found
    received = _vmap_frame(ctx)
    parsed = _tracing.parse(location.source)
    if received is None or applied is None or parsed is None or not applied.keywords \
            or applied.lineno != applied.end_lineno:
        return None
    args, kwargs, in_axes = (received.get("args"), received.get("kwargs"),
                             received.get("in_axes"))
    if type(args) is not tuple or type(kwargs) is not dict or not kwargs:
        return None
    axes = [in_axes] * len(args) if in_axes is None or type(in_axes) is int else in_axes
    if not isinstance(axes, tuple | list) or len(axes) != len(args):
        return None
    size = _batch_size(axes, args)
    if size is None or not all(_unmappable(value, size) for value in kwargs.values()):
        return None
    code = parsed[1]
    moved = _positional.keywords_by_position(ctx, location, applied, code)
    given = next((k for k in vmap.keywords if k.arg == "in_axes"), None)
    if moved is None or len(vmap.args) > 1 or any(k.arg is None for k in vmap.keywords) \
            or not vmap.args:
        return None
    before, after, names = moved
    entries = [repr(a) for a in axes] + ["None"] * len(names)
    options = [f"{k.arg}={_tracing.segment(code, k.value)}" for k in vmap.keywords
               if k is not given]
    spec = f"in_axes=({', '.join(entries)}{',' if len(entries) == 1 else ''})"
    mapped = (f"{_tracing.segment(code, vmap.func)}("
              f"{', '.join([_tracing.segment(code, vmap.args[0]), spec, *options])})")
    after = mapped + after[len(_tracing.segment(code, applied.func)):]
    shown = ", ".join(f"{name} {_summary_shape(kwargs[name])}" for name in names)
    fix = rewrite_fix(
        ctx, location, _tracing.replacing(applied, before, after),
        label="Pass them whole (None)" if len(names) > 1 else f"Pass {names[0]} whole (None)",
        summary=(f"Write `{after}` on line {location.lineno}: {_tracing.quoted(names)} by "
                 "position, in the function's order, with in_axes None, so every element of "
                 "the batch gets them whole; then re-run."),
        safety=(f"Same values: the keyword arguments ({shown}) have no axis of the batch "
                f"size {size}, so passing each whole to every element is the one way vmap "
                "can take them."),
        safe=True)
    return fix, (f"The keyword arguments ({shown}) have no axis of the batch size {size}: "
                 "vmap can only pass them whole (None).")


def _received_by_vmap(ctx: ErrorContext) -> tuple[object, ...] | None:
    """The positional arguments JAX's vmapped function (``vmap_f``, api.py) received, read
    from its frame; None where the traceback holds no such frame."""
    call = ctx.user_call
    for frame in (call.frames[call.index + 1:] if call is not None else ()):
        if frame.f_code.co_name == "vmap_f" and frame.f_code.co_filename.endswith("api.py"):
            args = frame.f_locals.get("args")
            return args if type(args) is tuple else None
    return None


def _applied_values(ctx: ErrorContext, frame: FrameType, applied: ast.Call) -> list[object]:
    """The positional arguments of the vmapped call as the line holds them, or as vmap got
    them (``jnp.ones((3, 2))`` is a call) where it got as many; CANNOT where neither."""
    received = _received_by_vmap(ctx)
    if received is not None and len(received) != len(applied.args):
        received = None
    evaluate = Evaluator(frame)
    values = [evaluate(argument) for argument in applied.args]
    return [received[i] if value is CANNOT and received is not None else value
            for i, value in enumerate(values)]


def _shared_scalars_fix(ctx: ErrorContext, location: Location,
                        found: tuple[ast.Call, ast.Call | None]) -> tuple[Fix, str] | None:
    """``jax.vmap(scale)(xs, 2.0)``: vmap maps every argument along axis 0 by default, and a
    number (or a dict of numbers) has no axis. Shared by every element is the one reading
    that runs: ``in_axes=(0, None)``, None for each argument whose every leaf is a number,
    0 for those whose every leaf has an axis."""
    called = _default_axes_call(ctx, location, found)
    if called is None or not called[1].args:
        return None
    vmap, applied, code, values = called
    entries = []
    for value in values:
        ranks = _ranks(value)
        if not ranks:
            return None
        if ranks == {0}:
            entries.append("None")
        elif 0 not in ranks:
            entries.append("0")
        else:
            return None  # numbers beside arrays in one argument: a spec per leaf is a choice
    if "None" not in entries or "0" not in entries:
        return None
    shared = [ast.unparse(a) for a, e in zip(applied.args, entries, strict=True) if e == "None"]
    named = _tracing.quoted([f"`{n}`" for n in shared])
    fix = _in_axes_fix(
        ctx, location, vmap, code, entries, f"so that every element of the batch gets {named} "
        "as it is",
        safety=(f"Same values: each element of the batch gets its slice of the mapped "
                f"arguments and {named} whole, the one reading of a number under vmap."))
    return (fix, f"{named} {'has' if len(shared) == 1 else 'have'}") if fix is not None \
        else None


def _default_axes_call(ctx: ErrorContext, location: Location,
                       found: tuple[ast.Call, ast.Call | None]
                       ) -> tuple[ast.Call, ast.Call, str, list[object]] | None:
    """``jax.vmap(f)(args...)`` written on the line with vmap's default in_axes and the
    arguments by position: the vmap call, the applied call, the code, and the arguments'
    values (as the line holds them or as vmap got them)."""
    vmap, applied = found
    parsed = _tracing.parse(location.source)
    frame = ctx.live_frame(location)
    if applied is None or parsed is None or frame is None or vmap.keywords \
            or len(vmap.args) != 1 or applied.keywords \
            or any(isinstance(a, ast.Starred) for a in applied.args) \
            or vmap.lineno != vmap.end_lineno:
        return None
    received = _received_by_vmap(ctx)
    if received is not None and len(received) != len(applied.args):
        return None
    return vmap, applied, parsed[1], _applied_values(ctx, frame, applied)


def _in_axes_fix(ctx: ErrorContext, location: Location, vmap: ast.Call, code: str,
                 entries: list[str], purpose: str, safety: str) -> Fix | None:
    """The fix that writes ``in_axes`` with ``entries`` into the vmap call."""
    before = _tracing.segment(code, vmap)
    if not before.endswith(")"):
        return None
    axes = f"({', '.join(entries)}{',' if len(entries) == 1 else ''})"
    after = f"{before[:-1]}, in_axes={axes})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(vmap, before, after),
        label=f"Use in_axes={axes}",
        summary=f"Pass in_axes={axes} on line {location.lineno}, {purpose}; then re-run.",
        safety=safety, safe=True)


def _fitting_axis_fix(ctx: ErrorContext, location: Location,
                      found: tuple[ast.Call, ast.Call | None]) -> tuple[Fix, str] | None:
    """``jax.vmap(h, in_axes=(0, 1))(X, U)`` with X float32[10, 4] and U float32[10, 2]:
    every mapped argument but one agrees on the batch size, and that one has exactly one
    axis of that size. Mapped, as its int entry asks, along that axis is the one reading
    that runs; no other single entry can be changed to make the sizes agree."""
    vmap, applied = found
    given = next((k.value for k in vmap.keywords if k.arg == "in_axes"), None)
    if given is None and len(vmap.args) > 1:
        given = vmap.args[1]
    frame = ctx.live_frame(location)
    parsed = _tracing.parse(location.source)
    if applied is None or parsed is None or frame is None or not isinstance(given, ast.Tuple) \
            or applied.keywords or len(given.elts) != len(applied.args) \
            or any(isinstance(a, ast.Starred) for a in applied.args) \
            or given.lineno != given.end_lineno:
        return None
    axes: list[int | None] = []
    for entry in given.elts:
        if not isinstance(entry, ast.Constant) or not (entry.value is None
                                                       or type(entry.value) is int):
            return None
        axes.append(entry.value)
    shapes = [_shapes.array_shape(value) if value is not CANNOT else None
              for value in _applied_values(ctx, frame, applied)]
    mapped = [i for i, axis in enumerate(axes) if axis is not None]
    if any(shapes[i] is None or not -len(shapes[i] or ()) <= (axes[i] or 0)
           < len(shapes[i] or ()) for i in mapped):
        return None
    candidates = []
    for odd in mapped:
        others = {(shapes[i] or ())[axes[i] or 0] for i in mapped if i != odd}
        if len(others) != 1:
            continue
        size = others.pop()
        shape = shapes[odd] or ()
        fitting = [a for a in range(len(shape)) if shape[a] == size]
        if shape[axes[odd] or 0] != size and len(fitting) == 1:
            candidates.append((odd, fitting[0], size))
    if len(candidates) != 1:
        return None
    odd, axis, size = candidates[0]
    entry = given.elts[odd]
    code = parsed[1]
    before = _tracing.segment(code, entry)
    name = _tracing.segment(code, applied.args[odd])
    fix = rewrite_fix(
        ctx, location, _tracing.replacing(entry, before, str(axis)),
        label=f"Map {name} along axis {axis}",
        summary=(f"Write {axis} for in_axes' entry {before} of {name} on line "
                 f"{location.lineno}: axis {axis} is its one axis of the batch size "
                 f"{size}; then re-run."),
        safety=(f"Maps {name} along axis {axis}, not {before}: its only axis of size {size}, "
                "the size every other mapped argument has, so each element of the batch "
                f"gets its slice of {name}, the one mapping of it that runs."),
        safe=True)
    return fix, (f"Axis {axis} of `{name}` is its only axis of size {size}, the batch size "
                 "of the other mapped arguments.")


def _whole_axis_fix(ctx: ErrorContext, location: Location,
                    found: tuple[ast.Call, ast.Call | None]) -> Fix | None:
    """``jax.vmap(f, in_axes=n / 2)`` where that float holds a whole number: the axis it
    names, as an int."""
    vmap, _ = found
    given = next((k.value for k in vmap.keywords if k.arg == "in_axes"),
                 vmap.args[1] if len(vmap.args) > 1 else None)
    frame = ctx.live_frame(location)
    parsed = _tracing.parse(location.source)
    if given is None or frame is None or parsed is None or given.lineno != given.end_lineno:
        return None
    value = Evaluator(frame)(given)
    if type(value) is not float or not value.is_integer():
        return None
    before = _tracing.segment(parsed[1], given)
    after = repr(int(value)) if isinstance(given, ast.Constant) else f"int({before})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(given, before, after), label=f"Use {after}",
        summary=f"Pass in_axes={after} on line {location.lineno}, the axis as an int; then "
                "re-run.",
        safety=f"Same mapping: `{before}` is {value}, a whole number, so `{after}` names the "
               "same axis.",
        safe=True)


def _keywords_fix(ctx: ErrorContext, location: Location,
                  found: tuple[ast.Call, ast.Call | None], entries: int) -> Fix | None:
    """``jax.vmap(f, in_axes=(0, None))(xs, scale=2.0)``: in_axes has an entry for each
    argument, counting the keywords, and the keywords are f's next parameters. vmap maps
    keywords along axis 0 and gives in_axes the positional ones only; by position, each
    argument is mapped as its entry says."""
    _, applied = found
    parsed = _tracing.parse(location.source)
    if applied is None or parsed is None or len(applied.args) + len(applied.keywords) != entries:
        return None
    return _positional.keywords_fix(
        ctx, location, applied, parsed[1],
        purpose="so that in_axes has one entry for each argument",
        safety=("Same values: the function gets the same arguments, each mapped as its "
                "in_axes entry says (vmap maps a keyword argument along axis 0 whatever "
                "in_axes says)."))


def _short_axes_fix(ctx: ErrorContext, location: Location,
                    found: tuple[ast.Call, ast.Call | None] | None,
                    entries: int) -> tuple[Fix, str] | None:
    """``jax.vmap(f, in_axes=(0, 0))(origins, directions, t_vals)`` (jax-ml/jax#9928): in_axes
    names fewer arguments than the call passes. Where each argument past its entries is a
    number or an array with no axis of the batch size (the size of every mapped axis), None
    is the one entry vmap can take for it: it is passed whole to every element. The vmap is
    on the line or where the name called was assigned ``jax.vmap(...)`` (an earlier cell)."""
    received = _received_by_vmap(ctx)
    if received is None or len(received) <= entries:
        return None
    if found is None:  # `sample_fn(...)` of `sample_fn = jax.vmap(...)` in an earlier cell
        call = ctx.user_call
        node = call.node if call is not None else None
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        assigned = _static_site.latest_assignment(ctx, node.func.id)
        if assigned is None or not isinstance(assigned[1], ast.Call) or (
                dotted(assigned[1].func) or "").rsplit(".", 1)[-1] != "vmap":
            return None
        place, vmap = assigned[0], assigned[1]
        place = replace(place, lineno=vmap.lineno, line="")
    else:
        place, vmap = location, found[0]
    given = next((k.value for k in vmap.keywords if k.arg == "in_axes"),
                 vmap.args[1] if len(vmap.args) > 1 else None)
    parsed = _tracing.parse(place.source)
    if not isinstance(given, ast.Tuple) or len(given.elts) != entries or parsed is None \
            or given.lineno != given.end_lineno:
        return None
    try:
        axes = [ast.literal_eval(e) for e in given.elts]
    except ValueError:
        return None
    size = _batch_size(axes, received)
    if size is None or not all(_unmappable(value, size) for value in received[entries:]):
        return None
    before = _tracing.segment(parsed[1], given)
    extra = len(received) - entries
    written = [_tracing.segment(parsed[1], e) for e in given.elts]
    after = f"({', '.join([*written, *['None'] * extra])})"
    node = ctx.user_call.node if ctx.user_call is not None else None
    names = [ast.unparse(a) for a in node.args] if isinstance(node, ast.Call) \
        and len(node.args) == len(received) else []
    shown = ", ".join(f"{names[entries + i]} {_summary_shape(v)}" if names
                      else _summary_shape(v) for i, v in enumerate(received[entries:]))
    fix = rewrite_fix(
        ctx, place, _tracing.replacing(given, before, after), label=f"Use in_axes={after}",
        summary=(f"Write in_axes={after} on line {place.lineno}, None for each argument past "
                 "the entries, so every element of the batch gets it whole; then re-run."),
        safety=(f"Same values: the arguments past the entries ({shown}) have no axis of the "
                f"batch size {size}, so None, passing each whole to every element, is the "
                "one entry vmap can take for them."),
        safe=True)
    return fix, (f"The arguments past the entries ({shown}) have no axis of the batch size "
                 f"{size}: vmap can only pass them whole (None).")


def _batch_size(axes: Sequence[object], values: Sequence[object]) -> int | None:
    """The one size of the mapped axes (``axes``: an int or None per value, for the values
    they are paired with); None where they differ or an entry cannot be read."""
    sizes = set()
    for axis, value in zip(axes, values, strict=False):
        if axis is None:
            continue
        shape = _shapes.array_shape(value)
        if type(axis) is not int or shape is None or not -len(shape) <= axis < len(shape):
            return None
        sizes.add(shape[axis])
    return sizes.pop() if len(sizes) == 1 else None


def _unmappable(value: object, size: int) -> bool:
    """Whether ``value`` has no axis of the batch ``size`` (a number has none): vmap can
    only pass it whole. One that has such an axis is the user's choice to map or not."""
    if _ranks(value) == {0}:
        return True
    shape = _shapes.array_shape(value)
    return shape is not None and size not in shape


def _summary_shape(value: object) -> str:
    shape = _shapes.array_shape(value)
    if shape is None:
        return type(value).__name__
    return f"{getattr(value, 'dtype', '')}[{', '.join(map(str, shape))}]"
