"""Arrays concatenated (or stacked) whose other dimensions differ: ``jnp.concatenate([a, b])``
with shapes ``(2, 3)`` and ``(2, 4)`` (``TypeError: Cannot concatenate arrays with shapes
that differ in dimensions other than the one being concatenated: concatenating along
dimension 0 for shapes (2, 3), (2, 4).``), or of different numbers of dimensions.

The explanation names the arrays as the line lists them, with their shapes, the dimension
that differs, and the axis along which they would fit, when there is one. No fix there: the
axis is the user's choice. Two cases have a fix: single numbers (shape ``()``) joined to 1-D
arrays, ``jnp.concatenate([x, 5.0])``; each number is one element, so
``jnp.atleast_1d(5.0)`` joins the same values, as ``jnp.append`` would. And a block of one
constant built for the join (``jnp.zeros((n_pad, 2))``, ``ones``, ``full``, ``empty``, its
shape a tuple written on the line) whose other dimensions differ from those every other
array agrees on: the block takes theirs (``(n_pad, vg.shape[1])``), the only ones that join.
And an array with one dimension fewer than the others, its shape theirs without the joined
axis (a row ``(4,)`` appended to a ``(3, 4)`` matrix along axis 0): it is one slice along
that axis, ``jnp.expand_dims(row, 0)``, the only way it joins.

Reports: b-vanstraaten/QArray#1 (padding with the wrong number of columns before a
concatenate), jax-ml/jax#9934 (shapes (2, 2, 2) and (3, 2, 1), and a request for clearer
messages), jax-ml/jax#53 (JAX's own message for zero-dimensional arrays in a concatenate),
data-apis/array-api#946 (a 1-D array joined with a number, the common case, needs
``atleast_1d``).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _shapes, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH564"
TITLE = "Arrays concatenated whose other dimensions differ"
# What concatenates on a user's line (``engine.ask``).
OPERATIONS = frozenset({"concatenate", "concat", "stack", "hstack", "vstack", "dstack",
                        "column_stack", "row_stack", "append", "block"})
OTHER_DIMENSIONS = "Cannot concatenate arrays with shapes that differ"
RANKS = "Cannot concatenate arrays with different numbers of dimensions"

_AXIS_RE = re.compile(r"along dimension (?P<axis>\d+) for shapes (?P<shapes>.+?)\.?$", re.M)

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp",
                    "left = jnp.ones((2, 3))\nright = jnp.zeros((2, 4))"),
                   "both = jnp.concatenate([left, right])",
                   "both = jnp.concatenate([left, right], axis=1)", NO_FIX,
                   "both.shape == (2, 7)"),
    # a number joined to a vector: one element, as jnp.append would add it
    corrected_cell(("import jax, jax.numpy as jnp", "xs = jnp.ones(3)\nlast = xs.sum()"),
                   "both = jnp.concatenate([xs, last])",
                   "both = jnp.concatenate([xs, jnp.atleast_1d(last)])",
                   "Make last one element", "both.tolist() == [1.0, 1.0, 1.0, 3.0]"),
    # a padding block written for two columns where the data has three: the data's width
    corrected_cell(("import jax, jax.numpy as jnp", "pts = jnp.ones((5, 3))\nn_pad = 3"),
                   "padded = jnp.concatenate([pts, jnp.zeros((n_pad, 2))], axis=0)",
                   "padded = jnp.concatenate([pts, jnp.zeros((n_pad, pts.shape[1]))], axis=0)",
                   "Use (n_pad, pts.shape[1])",
                   "padded.shape == (8, 3) and float(padded.sum()) == 15.0"),
    # a row appended to a matrix: one slice along the joined axis
    corrected_cell(("import jax, jax.numpy as jnp", "m = jnp.ones((3, 4))\nrow = jnp.arange(4.0)"),
                   "m2 = jnp.concatenate([m, row])",
                   "m2 = jnp.concatenate([m, jnp.expand_dims(row, 0)])",
                   "Join row as one slice",
                   "m2.shape == (4, 4) and m2[3].tolist() == [0.0, 1.0, 2.0, 3.0]"),
    # a column joined along axis 1
    corrected_cell(("import jax, jax.numpy as jnp", "m = jnp.ones((3, 2))\ncol = jnp.zeros(3)"),
                   "m2 = jnp.concatenate([m, col], axis=1)",
                   "m2 = jnp.concatenate([m, jnp.expand_dims(col, 1)], axis=1)",
                   "Join col as one slice", "m2.shape == (3, 3) and float(m2.sum()) == 6.0"),
)

WHY = _entry.prose("""
Concatenating joins arrays end to end along one axis, so every other dimension must have the
same size in all of them (and they must have the same number of dimensions); only the sizes
along the joined axis may differ.
""")


def _fitting_axes(shapes: list[tuple[int, ...]]) -> list[int]:
    """The axes along which these shapes could be concatenated."""
    if len({len(s) for s in shapes}) != 1:
        return []
    rank = len(shapes[0])
    return [axis for axis in range(rank)
            if len({tuple(d for i, d in enumerate(s) if i != axis) for s in shapes}) == 1]


MATCH = Match(OTHER_DIMENSIONS, "TypeError", also=(RANKS,))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    axis_found = _AXIS_RE.search(link.message)
    shapes = _shapes.shapes_in(axis_found["shapes"] if axis_found else link.message)
    values = [v for v in ctx.values_at(location) if v.shape is not None]
    named: list[Value] = []
    for shape in shapes:
        match = next((v for v in values if v.shape == shape and v not in named), None)
        if match is not None:
            named.append(match)
    subject = _tracing.quoted_line(location, "Your code")
    listed = (", ".join(f"`{v.text}` is {v.summary}" for v in named)
              if len(named) == len(shapes) else
              "shapes " + ", ".join(_shapes.shown(s) for s in shapes))
    if axis_found is not None:
        axis = int(axis_found["axis"])
        explanation = (f"{subject} joins arrays along axis {axis} whose other dimensions "
                       f"differ: {listed}.")
    else:
        explanation = (f"{subject} joins arrays with different numbers of dimensions: "
                       f"{listed}.")
    notes: list[str] = []
    axes = _fitting_axes(shapes)
    if axes:
        notes.append(f"They would fit along axis {axes[0]} (axis={axes[0]}), if that is the "
                     "axis you meant.")
    elif axis_found is None:
        notes.append("Add the missing axis to the smaller array first (`x[None]`, "
                     "`x[:, None]`), or use jnp.stack for arrays of one shape.")
    fix = (_scalar_fix(ctx, location, shapes) or _slice_fix(ctx, location, shapes)) \
        if axis_found is None else _block_fix(ctx, location, shapes, int(axis_found["axis"]))
    if fix is not None:
        notes = []
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            fixes=(fix,) if fix is not None else (),
                            error=link.summary.splitlines()[0])


_BLOCKS = ("zeros", "ones", "full", "empty")  # jax.numpy's constant blocks, shape first


def _written_list(location: Location, count: int) -> tuple[ast.Call, list[ast.expr], str] | None:
    """The one concatenate call on the line whose arrays are a list or tuple written there,
    one element per shape JAX lists, with the line's code."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    tree, code = parsed
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and node.lineno == location.lineno == node.end_lineno
             and (ast.unparse(node.func).rsplit(".", 1)[-1] in ("concatenate", "concat"))
             and node.args and isinstance(node.args[0], ast.List | ast.Tuple)
             and len(node.args[0].elts) == count]
    if len(calls) != 1:
        return None
    return calls[0], list(calls[0].args[0].elts), code  # type: ignore[attr-defined]


def _block_fix(ctx: ErrorContext, location: Location | None, shapes: list[tuple[int, ...]],
               axis: int) -> Fix | None:
    """``jnp.concatenate([vg, jnp.zeros((n_pad, 2))])`` where every other array agrees on
    the dimensions besides the joined axis and one constant block written with a shape tuple
    does not: the block is built to be joined, so its other dimensions are theirs
    (``(n_pad, vg.shape[1])``), its values the same constant."""
    jnp = ctx.alias("jax.numpy")
    found = _written_list(location, len(shapes)) if location is not None and jnp else None
    if location is None or found is None or len({len(s) for s in shapes}) != 1:
        return None
    _, elements, code = found
    blocks = [i for i, e in enumerate(elements) if isinstance(e, ast.Call) and e.args
              and ast.unparse(e.func) in {f"{jnp}.{b}" for b in _BLOCKS}
              and isinstance(e.args[0], ast.Tuple) and len(e.args[0].elts) == len(shapes[i])]
    others = [i for i in range(len(shapes)) if i not in blocks]
    fitting = {tuple(d for a, d in enumerate(shapes[i]) if a != axis) for i in others}
    if len(blocks) != 1 or len(fitting) != 1 or not others:
        return None
    block = elements[blocks[0]]
    if not isinstance(block, ast.Call) or not isinstance(block.args[0], ast.Tuple):
        return None
    model = elements[others[0]]
    named = isinstance(model, ast.Name | ast.Attribute)
    model_text = _tracing.segment(code, model)
    dims = []
    for a, node in enumerate(block.args[0].elts):
        wanted = shapes[others[0]][a]
        if a == axis or shapes[blocks[0]][a] == wanted:
            dims.append(_tracing.segment(code, node))
        else:
            dims.append(f"{model_text}.shape[{a}]" if named else str(wanted))
    before = _tracing.segment(code, block.args[0])
    after = f"({', '.join(dims)}{',' if len(dims) == 1 else ''})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(block.args[0], before, after),
        label=f"Use {after}" if len(after) <= 24 else "Give the block their dimensions",
        summary=(f"Write {after} for the shape {before} of the block on line "
                 f"{location.lineno}, so that it has the dimensions of the arrays it is "
                 "joined to besides the joined axis; then re-run."),
        safety=(f"The block is the same constant, built to be joined along axis {axis}: its "
                f"other dimensions are the ones {model_text} has, the only ones that join."),
        safe=True)


def _scalar_fix(ctx: ErrorContext, location: Location | None,
                shapes: list[tuple[int, ...]]) -> Fix | None:
    """``jnp.concatenate([x, n])`` of 1-D arrays and single numbers: each number written
    as ``jnp.atleast_1d(n)``, one element. The list must be written on the line, one element
    per shape JAX lists, in order."""
    if location is None or not shapes or {len(s) for s in shapes} != {0, 1}:
        return None
    found = _written_list(location, len(shapes))
    if found is None:
        return None
    _, elements, code = found
    jnp = ctx.alias("jax.numpy") or "jnp"
    numbers = [e for e, shape in zip(elements, shapes, strict=True) if shape == ()]
    edits = sorted(((e.col_offset, e.end_col_offset or 0, _tracing.segment(code, e))
                    for e in numbers), reverse=True)
    lineno = location.lineno
    before = (location.source or "").split("\n")[lineno - 1]

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.errors import CannotRewrite

        lines = source.split("\n")
        if not 0 < lineno <= len(lines) or lines[lineno - 1] != before:
            raise CannotRewrite(f"line {lineno} is no longer as it was")
        line = lines[lineno - 1].encode()
        for start, end, text in edits:
            line = line[:start] + f"{jnp}.atleast_1d({text})".encode() + line[end:]
        lines[lineno - 1] = line.decode()
        return "\n".join(lines)

    names = ", ".join(text for _, _, text in reversed(edits))
    return rewrite_fix(
        ctx, location, transform,
        label=f"Make {names} one element" if len(names) <= 20 else "Make each number one element",
        summary=(f"Write {', '.join(f'{jnp}.atleast_1d({t})' for _, _, t in reversed(edits))} "
                 f"in the concatenate on line {lineno}: each number becomes an array of one "
                 "element; then re-run."),
        safety=("Same values: each number joins as one element, after the elements before "
                "it, as jnp.append would add it."),
        safe=True)


def _slice_fix(ctx: ErrorContext, location: Location | None,
               shapes: list[tuple[int, ...]]) -> Fix | None:
    """``jnp.concatenate([m, row])`` of a ``(3, 4)`` matrix and a ``(4,)`` row (along the
    call's axis, 0 unless a literal says another): every array of the higher rank agrees
    on its dimensions besides that axis, and each array of one rank fewer has exactly those
    dimensions. Each such array is one slice along the axis: ``jnp.expand_dims(row, 0)``."""
    ranks = sorted({len(s) for s in shapes})
    found = _written_list(location, len(shapes)) if location is not None else None
    if location is None or found is None or len(ranks) != 2 or ranks[0] + 1 != ranks[1] \
            or ranks[0] < 1:
        return None
    call, elements, code = found
    given = [k.value for k in call.keywords if k.arg == "axis"] + list(call.args[1:2])
    if len(given) > 1 or (given and not (isinstance(given[0], ast.Constant)
                                         and type(given[0].value) is int)):
        return None
    rank = ranks[1]
    axis = given[0].value if given else 0  # type: ignore[attr-defined]
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        return None
    others = {shape[:axis] + shape[axis + 1:] for shape in shapes if len(shape) == rank}
    thin = [e for e, shape in zip(elements, shapes, strict=True) if len(shape) == rank - 1]
    if len(others) != 1 or any(shape not in others for shape in shapes if len(shape) < rank):
        return None
    jnp = ctx.alias("jax.numpy") or "jnp"
    edits = [(e, _tracing.segment(code, e), f"{jnp}.expand_dims({_tracing.segment(code, e)}, "
                                            f"{axis})") for e in thin]
    names = ", ".join(before for _, before, _ in edits)
    return rewrite_fix(
        ctx, location, _tracing.replacing_each(edits),
        label=f"Join {names} as one slice" if len(names) <= 16 else "Join each as one slice",
        summary=(f"Write {', '.join(after for _, _, after in edits)} in the concatenate on "
                 f"line {location.lineno}: {names} has the other arrays' dimensions besides "
                 f"axis {axis}, and joins as one slice along it; then re-run."),
        safety=(f"Same values: {names} joins as one slice along axis {axis}, after the "
                "arrays before it, the only way its shape joins theirs."),
        safe=True)
