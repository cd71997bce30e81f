"""Branches of ``lax.cond`` or ``lax.switch`` that return different types: shapes, dtypes, or
structures (``TypeError: cond branches must have equal output types but they differ. ...
The output of true_fun has type float32[3] but the corresponding output of false_fun has
type float32[2], so the shapes do not match.``; ``cond branch outputs must have the same
pytree structure ... true_fun output is a <class 'list'> but false_fun output is a <class
'tuple'>``).

Under jit both branches are compiled and one result type must serve for either. JAX's
message names the branches by their definitions; the explanation says which branch returns
what, at its own line. A list in one branch against a tuple in the other holds the same
values in another container: the list branch is made to return a tuple, which changes no
value; where one lambda branch passes a list or tuple through as it came in (its operand,
or an argument of the function around the cond) and the other builds the other container
at the same path, the built value is put in the container that came in (``list(...)``).
A lambda branch whose one array has a dtype that promotes to the other's without losing a
value (``jnp.int32(0)`` against float32) is given the other's dtype. A lambda branch that
returns one number where the other returns an array of the operand's shape and dtype
returns ``jnp.full_like(v, number)``: the number in every element. A branch that skips the
work and returns a written placeholder of no dimensions (``jnp.zeros(())``, ``0.0``) where
the other returns an array of the same dtype, at any path (a field of a named tuple, a key,
a position), has the placeholder given that array's shape (``jnp.zeros((4, 3))``,
``jnp.full((3,), 0.0)``), in a lambda or in a function with one return. Other shapes and
dtypes are the user's to reconcile.

Reports: jax-ml/jax#2660 (branches returning aux dicts with different keys),
aesara-devs/aesara#178 (a tuple in one branch and a bare value in the other),
jax-ml/jax#36776 (branches returning pullbacks of different structure), jax-ml/jax#514 (a
constant returned by one branch), google/trax#1061 and google-deepmind/ferminet#105 (a list
passed through by one branch, a tuple built by the other), robfiras/loco-mujoco#87 (a
container of zeros of no dimensions returned where evaluation is skipped).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _key_paths, _scopes, _tracing
from jax_nbhelp.catalog._example import LAX_IMPORTS, NO_FIX, corrected, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH532"
TITLE = "Branches of cond or switch return different types"
TYPES = "branches must have equal output types"
STRUCTURE = "branch outputs must have the same pytree structure"

_BRANCH_RE = re.compile(r"^(?P<name>true_fun|false_fun|branch ?\d+) is (?P<function>\S+) at "
                        r"(?P<file>.+):(?P<line>\d+)$", re.M)
_TYPES_RE = re.compile(r"The output of (?P<a>true_fun|false_fun|branch ?\d+)"
                       r"(?: at path (?P<path>\S+))? has type "
                       r"(?P<a_type>\S+) but the corresponding output of "
                       r"(?P<b>true_fun|false_fun|branch ?\d+) has type (?P<b_type>\S+), so the "
                       r"(?P<what>[\w ]+?) do not match")
_STRUCTURE_RE = re.compile(r"(?P<a>true_fun|false_fun|branch ?\d+) output"
                           r"(?: at path (?P<path>\S+))? is "
                           r"(?P<a_kind>.+?) but (?P<b>true_fun|false_fun|branch ?\d+) output"
                           r"(?: at path \S+)? is (?P<b_kind>.+?), so")

EXAMPLES = (
    corrected_cell((LAX_IMPORTS, "x = jnp.arange(3.0)"),
                   "low, high = lax.cond(x.sum() > 1,\n"
                   "                     lambda v: [v.min(), v.max()],\n"
                   "                     lambda v: (v.max(), v.min()), x)",
                   "low, high = lax.cond(x.sum() > 1,\n"
                   "                     lambda v: (v.min(), v.max()),\n"
                   "                     lambda v: (v.max(), v.min()), x)",
                   "Return a tuple from both branches", "float(high) == 2.0"),
    # an int32 constant against a float32 branch: the constant as float32, the same number
    corrected_cell((LAX_IMPORTS, "x = jnp.float32(3.0)"),
                   "y = lax.cond(x > 0, lambda v: v * 2, lambda v: jnp.int32(0), x)",
                   "y = lax.cond(x > 0, lambda v: v * 2, lambda v: jnp.asarray(jnp.int32(0), "
                   "jnp.float32), x)",
                   "Return float32 from false_fun", "float(y) == 6.0"),
    # one number against an array of the operand's type: that number in every element
    corrected_cell((LAX_IMPORTS, "x = jnp.ones(2)"),
                   "y = lax.cond(x.sum() > 5, lambda v: v * 2, lambda v: 0.0, x)",
                   "y = lax.cond(x.sum() > 5, lambda v: v * 2, lambda v: jnp.full_like(v, 0.0), "
                   "x)", "Fill false_fun's value", "y.tolist() == [0.0, 0.0]"),
    corrected_cell((LAX_IMPORTS, "x = jnp.arange(3.0)"),
                   "y = lax.cond(x.sum() > 1, lambda v: v * 2, lambda v: v[:2], x)",
                   "y = lax.cond(x.sum() > 1, lambda v: v * 2, lambda v: v.at[2:].set(0), x)",
                   NO_FIX, "y.tolist() == [0.0, 2.0, 4.0]"),
    # a list operand passed through by one branch, a tuple built by the other: the built
    # one in the list the operand came in
    corrected_cell((LAX_IMPORTS, "rates = [jnp.zeros(2), jnp.ones(3)]"),
                   "rates = lax.cond(rates[1].sum() > 0,\n"
                   "                 lambda r: tuple(v * 0.5 for v in r),\n"
                   "                 lambda r: r, rates)",
                   "rates = lax.cond(rates[1].sum() > 0,\n"
                   "                 lambda r: list(tuple(v * 0.5 for v in r)),\n"
                   "                 lambda r: r, rates)",
                   "Return a list from true_fun",
                   "isinstance(rates, list) and rates[1].tolist() == [0.5, 0.5, 0.5]"),
    # at a path: the function's list argument kept, a tuple made from it in the other
    corrected(LAX_IMPORTS,
              "def bump(w, state):\n"
              "    new = tuple(s + 1 for s in state)\n"
              "    return lax.cond(w > 0, lambda: (w, new), lambda: (w, state))",
              "def bump(w, state):\n"
              "    new = tuple(s + 1 for s in state)\n"
              "    return lax.cond(w > 0, lambda: (w, list(new)), lambda: (w, state))",
              "w, state = bump(jnp.float32(1.0), [jnp.zeros(2)])",
              "Return a list from true_fun",
              "isinstance(state, list) and state[0].tolist() == [1.0, 1.0]"),
    # a branch that skips the work returns a placeholder of no dimensions at a field where
    # the other returns an array: the placeholder's number at the array's shape
    corrected(LAX_IMPORTS,
              "from typing import NamedTuple\n\n"
              "class Stats(NamedTuple):\n"
              "    total: jax.Array\n"
              "    per_row: jax.Array\n\n"
              "def idle():\n"
              "    return Stats(total=jnp.zeros(()), per_row=jnp.zeros(()))\n\n"
              "m = jnp.arange(6.0).reshape(2, 3)",
              "from typing import NamedTuple\n\n"
              "class Stats(NamedTuple):\n"
              "    total: jax.Array\n"
              "    per_row: jax.Array\n\n"
              "def idle():\n"
              "    return Stats(total=jnp.zeros(()), per_row=jnp.zeros((2,)))\n\n"
              "m = jnp.arange(6.0).reshape(2, 3)",
              "s = lax.cond(m.sum() > 0, lambda: Stats(total=m.sum(), per_row=m.sum(axis=1)),"
              " idle)",
              "Give false_fun's placeholder the shape (2,)",
              "s.per_row.tolist() == [3.0, 12.0] and float(s.total) == 15.0"),
    corrected_cell((LAX_IMPORTS, "x = jnp.arange(3.0)"),
                   "loss, grads = lax.cond(x.sum() > 0, lambda: (x.sum(), x * 2),\n"
                   "                       lambda: (0.0, 0.0))",
                   "loss, grads = lax.cond(x.sum() > 0, lambda: (x.sum(), x * 2),\n"
                   "                       lambda: (0.0, jnp.full((3,), 0.0)))",
                   "Give false_fun's placeholder the shape (3,)",
                   "grads.tolist() == [0.0, 2.0, 4.0]"),
    # a value computed in the other branch, not a placeholder: which shape is meant is the
    # user's to say
    corrected_cell((LAX_IMPORTS, "x = jnp.arange(3.0)"),
                   "lo, hi = lax.cond(x.sum() > 0, lambda: (x.min(), x * 2),\n"
                   "                  lambda: (x.min(), x.max()))",
                   "lo, hi = lax.cond(x.sum() > 0, lambda: (x.min(), x * 2),\n"
                   "                  lambda: (x.min(), jnp.full_like(x, x.max())))",
                   NO_FIX, "hi.tolist() == [0.0, 2.0, 4.0]"),
    # a float16 branch computed from values against a float32 one: the precision meant is
    # the user's to say
    corrected_cell((LAX_IMPORTS, "x = jnp.arange(3.0)\nh = x.astype(jnp.float16)"),
                   "y = lax.cond(x.sum() > 0,\n"
                   "             lambda: x * 2,\n"
                   "             lambda: h * 2)",
                   "y = lax.cond(x.sum() > 0,\n"
                   "             lambda: (x * 2).astype(jnp.float16),\n"
                   "             lambda: h * 2)",
                   NO_FIX, "y.dtype == jnp.float16 and y.tolist() == [0.0, 2.0, 4.0]"),
)

WHY = _entry.prose("""
Under jit, lax.cond and lax.switch compile every branch, and the result must have one type
whichever branch runs: the same structure (tuple or list, the same keys), and in it the same
shapes and dtypes. Python's if can return anything; a compiled branch cannot.
""")


def _branches(ctx: ErrorContext, message: str) -> dict[str, tuple[str, Location | None]]:
    """Each branch JAX names: its function's name and its definition's user line."""
    found = {}
    for match in _BRANCH_RE.finditer(message):
        place = ctx.place(match["file"], int(match["line"]))
        found[match["name"]] = (match["function"], place)
    return found


def _named(name: str, branches: dict[str, tuple[str, Location | None]]) -> str:
    function, place = branches.get(name, (name, None))
    shown = "the lambda" if function == "<lambda>" else function
    return f"{name} ({shown}{_entry.at(place)})"


def _kind(kind: str) -> str:
    """``a <class 'list'>`` -> ``a list``."""
    return re.sub(r"<class '(?:\w+\.)*(\w+)'>", r"\1", kind)


# JAX compares the branches' outputs in one function, whatever the wording
MATCH = Match(TYPES, "TypeError", also=(STRUCTURE,),
              sites=("lax/control_flow/conditionals.py:_check_branch_outputs",))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    branches = _branches(ctx, link.message)
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(ctx.call_site(), "Your cond")
    types = _TYPES_RE.search(link.message)
    structure = _STRUCTURE_RE.search(link.message)
    fixes: list[Fix] = []
    notes: list[str] = []
    if types is not None:
        where = f" at {types['path']}" if types["path"] else ""
        explanation = (f"{subject} has branches that return different {types['what']}"
                       f"{where}: {_named(types['a'], branches)} returns "
                       f"{types['a_type']}, {_named(types['b'], branches)} returns "
                       f"{types['b_type']}.")
        whole = types["path"] is None  # these two rewrite a branch's whole value
        fix = ((_dtype_fix(ctx, types, branches) if types["what"] == "dtypes" and whole
                else None)
               or (_scalar_fix(ctx, types, branches) if whole else None)
               or _placeholder_fix(ctx, types, branches))
        if fix is not None:
            fixes.append(fix)
        else:
            notes.append("Make every branch return the same shapes and dtypes: pad, slice or "
                         "cast in the branch that differs (jnp.where picks per element when "
                         "both values have one shape).")
    elif structure is not None:
        explanation = (f"{subject} has branches that return different structures: "
                       f"{_named(structure['a'], branches)} returns "
                       f"{_kind(structure['a_kind'])}, {_named(structure['b'], branches)} "
                       f"returns {_kind(structure['b_kind'])}.")
        kinds = {structure["a"]: structure["a_kind"], structure["b"]: structure["b_kind"]}
        listed = [name for name, kind in kinds.items() if "'list'" in kind]
        tupled = [name for name, kind in kinds.items() if "'tuple'" in kind]
        if len(listed) == 1 and len(tupled) == 1:
            passed = _container_fix(ctx, structure, branches)
            function, place = branches.get(listed[0], ("", None))
            if passed is not None:
                fixes.append(passed)
            elif place is not None and function:
                fixes.append(_fix(ctx, place, function))
        if not fixes:
            notes.append("Make every branch return the same container (a tuple, or a dict "
                         "with the same keys) holding the same number of values.")
    else:
        return None
    return _entry.diagnosis(ctx, __name__, explanation,
                            location=location if location is not None else ctx.call_site(),
                            call_site=ctx.call_site(), fixes=fixes, notes=notes,
                            error=link.summary.splitlines()[0])


_TYPE_RE = re.compile(r"(?P<dtype>[a-z]+\d*)\[(?P<shape>[^\]]*)\]")
_BRANCH_ARGS = {"true_fun": 1, "false_fun": 2}


def _dtype_fix(ctx: ErrorContext, types: re.Match[str],
               branches: dict[str, tuple[str, Location | None]]) -> Fix | None:
    """``lax.cond(p, lambda v: v * 2, lambda v: jnp.int32(0), x)``: two lambda branches
    written in the cond call, one array each, of one shape, whose dtypes differ where the
    one promotes to the other without losing a value (an integer or bool to a float, a
    narrower float written as a constant to a wider one). The narrower branch's value is
    given the wider dtype: the cond then returns what either branch computes."""
    a, b = _TYPE_RE.fullmatch(types["a_type"]), _TYPE_RE.fullmatch(types["b_type"])
    # the lambdas' line, where JAX says they are defined: the cond call holds them there
    found = _lambda_branches(branches, [types["a"], types["b"]])
    if a is None or b is None or a["shape"] != b["shape"] or found is None:
        return None
    call, code, location = found
    try:
        import jax.numpy as jnp_module  # JAX's promotion: int32 and float32 give float32

        wide = str(jnp_module.promote_types(a["dtype"], b["dtype"]))
    except (TypeError, ValueError):
        return None
    dtypes = {types["a"]: a["dtype"], types["b"]: b["dtype"]}
    narrow = [name for name, dtype in dtypes.items() if dtype != wide]
    if len(narrow) != 1 or not wide.startswith(("float", "complex")) or "64" in wide:
        return None  # a 64-bit result would change what JAX computes with x64 off
    branch = call.args[_BRANCH_ARGS[narrow[0]]]
    if not isinstance(branch, ast.Lambda) or isinstance(branch.body, ast.Tuple | ast.List
                                                         | ast.Dict) \
            or branch.body.lineno != branch.body.end_lineno:
        return None
    jnp = ctx.alias("jax.numpy") or "jnp"
    # a narrower float computed from values (a float16 model against a float32 input) may
    # be the precision meant: only a constant float is widened
    computed = {node.id for node in ast.walk(branch.body) if isinstance(node, ast.Name)}
    if not dtypes[narrow[0]].startswith(("int", "uint", "bool")) \
            and computed - {jnp.split(".")[0], "jax", "np"}:
        return None
    body = _tracing.segment(code, branch.body)
    after = f"{jnp}.asarray({body}, {jnp}.{wide})"
    lineno = branch.body.lineno
    transform = _tracing.replacing(branch.body, body, after)

    exact = (" (integers exactly up to 2**24)" if wide == "float32" and
             dtypes[narrow[0]].startswith(("int", "uint")) else "")
    return rewrite_fix(
        ctx, location, transform, label=f"Return {wide} from {narrow[0]}",
        summary=(f"Write `{after}` as {narrow[0]}'s value on line {lineno}, the dtype the "
                 "other branch returns; then re-run."),
        safety=(f"Same values: {narrow[0]}'s {dtypes[narrow[0]]} values are exact in "
                f"{wide}{exact}, the dtype the cond returns from either branch."),
        safe=True)


def _lambda_branches(branches: dict[str, tuple[str, Location | None]], names: list[str]
                     ) -> tuple[ast.Call, str, Location] | None:
    """The one cond call that holds the lambda branches ``names`` on the lines where JAX
    says they are defined, with its source's code."""
    places = [branches.get(name, ("", None)) for name in names]
    functions = {function for function, _ in places}
    locations = [location for _, location in places if location is not None]
    if functions != {"<lambda>"} or len(locations) != len(places) \
            or len({(place.filename, place.source) for place in locations}) != 1 \
            or not set(names) <= set(_BRANCH_ARGS):
        return None
    location = min(locations, key=lambda place: place.lineno)
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    tree, code = parsed
    lines = [place.lineno for place in locations]
    conds = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and node.lineno <= min(lines) and max(lines) <= (node.end_lineno or 0)
             and ast.unparse(node.func).rsplit(".", 1)[-1] == "cond" and len(node.args) >= 3]
    conds = [node for node in conds if all(
        isinstance(node.args[_BRANCH_ARGS[name]], ast.Lambda)
        and node.args[_BRANCH_ARGS[name]].lineno == place.lineno
        for name, place in zip(names, locations, strict=True))]
    return (conds[0], code, location) if len(conds) == 1 else None


def _scalar_fix(ctx: ErrorContext, types: re.Match[str],
                branches: dict[str, tuple[str, Location | None]]) -> Fix | None:
    """``lax.cond(p, lambda u: u * 2, lambda u: 0.0, x)``: one lambda branch returns one
    number where the other returns an array of the operand's shape and dtype. That number
    in every element, ``jnp.full_like(u, 0.0)``, is the one value of the other's type the
    branch can mean; only where the number's dtype becomes the operand's without loss."""
    a, b = _TYPE_RE.fullmatch(types["a_type"]), _TYPE_RE.fullmatch(types["b_type"])
    found = _lambda_branches(branches, [types["a"], types["b"]])
    if a is None or b is None or found is None:
        return None
    call, code, location = found
    shapes = {types["a"]: a, types["b"]: b}
    scalar = [name for name, t in shapes.items() if not t["shape"].strip()]
    if len(scalar) != 1 or len(call.args) != 4:
        return None
    (name,) = scalar
    wide = next(t for n, t in shapes.items() if n != name)
    branch = call.args[_BRANCH_ARGS[name]]
    if not isinstance(branch, ast.Lambda) or len(branch.args.args) != 1 \
            or branch.body.lineno != branch.body.end_lineno:
        return None
    site = ctx.call_site()
    operand = {v.text: v for v in (*ctx.values_at(location),
                                   *(ctx.values_at(site) if site is not None else ()))
               }.get(ast.unparse(call.args[3]))
    shape = tuple(int(d) for d in wide["shape"].split(","))
    if operand is None or operand.shape != shape or operand.dtype != wide["dtype"]:
        return None
    try:
        import jax.numpy as jnp_module

        lossless = str(jnp_module.promote_types(shapes[name]["dtype"],
                                                wide["dtype"])) == wide["dtype"]
    except (TypeError, ValueError):
        return None
    small = shapes[name]["dtype"]
    if not lossless or (small.startswith(("int", "uint")) and wide["dtype"] == "float16"):
        return None
    jnp = ctx.alias("jax.numpy") or "jnp"
    parameter = branch.args.args[0].arg
    body = _tracing.segment(code, branch.body)
    after = f"{jnp}.full_like({parameter}, {body})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(branch.body, body, after),
        label=f"Fill {name}'s value", summary=(
            f"Write `{after}` as {name}'s value on line {branch.body.lineno}: the number in "
            f"every element of an array of {parameter}'s shape and dtype, "
            f"{wide['dtype']}[{wide['shape']}], which the other branch returns; then re-run."),
        safety=(f"Same values: where {name} is taken, every element holds the number it "
                f"returned{_exact(small, wide['dtype'])}; the cond returns one type from "
                "either branch."),
        safe=True)


_CONTAINERS = {"list": ast.List, "tuple": ast.Tuple}


def _container_fix(ctx: ErrorContext, structure: re.Match[str],
                   branches: dict[str, tuple[str, Location | None]]) -> Fix | None:
    """``lax.cond(p, lambda s: tuple(f(v) for v in s), lambda s: s, slots)`` with ``slots``
    a list: one lambda branch passes a value through as it is (its operand, or a name it
    closes over), a list or a tuple, where the other builds the other container at the same
    path. The built value is put in the container the passed one arrived in (``list(...)``
    or ``tuple(...)``): the cond then returns the user's own container from either branch,
    with the same elements."""
    kinds = {structure["a"]: _kind(structure["a_kind"]).removeprefix("a "),
             structure["b"]: _kind(structure["b_kind"]).removeprefix("a ")}
    found = _lambda_branches(branches, list(kinds))
    keys = _key_paths.keys(structure["path"] or "")
    if found is None or keys is None or set(kinds.values()) != set(_CONTAINERS):
        return None
    call, code, location = found
    parsed = _tracing.parse(location.source)  # parsed once, for _lambda_branches
    if parsed is None:
        return None
    tree = parsed[0]
    at = {name: _at(call.args[_BRANCH_ARGS[name]].body, keys) for name in kinds}  # type: ignore[attr-defined]
    passing = [name for name, node in at.items() if isinstance(node, ast.Name)]
    if len(passing) == 2:  # both name a value: the one the function was given passes through
        given = _parameters(tree, call)
        passing = [name for name in passing if at[name].id in given]  # type: ignore[union-attr]
    if len(passing) != 1:
        return None
    (kept,) = passing
    (built,) = (name for name in kinds if name != kept)
    node, container = at[built], kinds[kept]
    if node is None or isinstance(node, _CONTAINERS[container]) \
            or node.lineno != node.end_lineno:
        return None
    before = _tracing.segment(code, node)
    after = f"{container}({before})"
    where = f" at {structure['path']}" if structure["path"] else ""
    return rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after),
        label=f"Return a {container} from {built}",
        summary=(f"Write `{after}` as {built}'s value{where} on line {node.lineno}: "
                 f"the {container} {kept} passes through as it came in; then re-run."),
        safety=(f"Same values: the same elements, in a {container} instead of a "
                f"{kinds[built]}, the container the cond then returns from either branch."),
        safe=True)


def _parameters(tree: ast.Module, call: ast.Call) -> set[str]:
    """The names the cond's branches and the function around the call were given."""
    given = {arg.arg for branch in call.args[1:3] if isinstance(branch, ast.Lambda)
             for arg in branch.args.args}
    around = _scopes.enclosing_function(tree, call.lineno)
    if around is not None:
        arguments = around.args
        given |= {arg.arg for arg in (*arguments.posonlyargs, *arguments.args,
                                      *arguments.kwonlyargs)}
    return given


def _at(node: ast.expr, keys: tuple[int | str, ...]) -> ast.expr | None:
    """The expression a branch's written value holds at ``keys``: through tuple, list and
    dict displays, and a constructor's keyword for a field; None where the path goes into
    something else."""
    for key in keys:
        if isinstance(key, _key_paths.Field):
            given = [k.value for k in node.keywords if k.arg == key] \
                if isinstance(node, ast.Call) else []
            if len(given) != 1:
                return None
            node = given[0]
        elif isinstance(node, ast.Tuple | ast.List) and isinstance(key, int) \
                and not any(isinstance(elt, ast.Starred) for elt in node.elts) \
                and -len(node.elts) <= key < len(node.elts):
            node = node.elts[key]
        elif isinstance(node, ast.Dict) and isinstance(key, str) and key in [
                k.value for k in node.keys if isinstance(k, ast.Constant)]:
            node = next(v for k, v in zip(node.keys, node.values, strict=True)
                        if isinstance(k, ast.Constant) and k.value == key)
        else:
            return None
    return node


def _placeholder_fix(ctx: ErrorContext, types: re.Match[str],
                     branches: dict[str, tuple[str, Location | None]]) -> Fix | None:
    """``lambda: Summary(score=jnp.zeros(()), ...)`` or ``return 0.0, {"m": 0.0}`` from a
    branch that skips the work, where the other branch returns, at that path, an array of
    some shape of the same dtype: the skipping branch's constant, written as a placeholder
    (a number, ``jnp.zeros(())``, ``jnp.ones(())``, ``jnp.array(0.0)``), is given the other
    branch's shape, the same number in every element (``jnp.zeros((4, 3))``,
    ``jnp.full((3,), 0.0)``). The branch is a lambda or a function with one return."""
    a, b = _TYPE_RE.fullmatch(types["a_type"]), _TYPE_RE.fullmatch(types["b_type"])
    keys = _key_paths.keys(types["path"] or "")
    if a is None or b is None or keys is None or types["what"] != "shapes" \
            or a["dtype"] != b["dtype"]:
        return None
    shapes = {types["a"]: a["shape"].strip(), types["b"]: b["shape"].strip()}
    scalar = [name for name, shape in shapes.items() if not shape]
    if len(scalar) != 1:
        return None
    (name,) = scalar
    wide = next(shape for n, shape in shapes.items() if n != name)
    if not re.fullmatch(r"\d+(,\d+)*", wide):
        return None
    dims = wide.split(",")
    shape = f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"
    found = _branch_value(branches, name, [types["a"], types["b"]])
    if found is None:
        return None
    value, code, location = found
    node = _at(value, keys)
    if node is None or node.lineno != node.end_lineno:
        return None
    jnp = ctx.alias("jax.numpy") or "jnp"
    before = _tracing.segment(code, node)
    after = _filled(node, before, shape, jnp)
    if after is None:
        return None
    where = f" at {types['path']}" if types["path"] else ""
    return rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after),
        label=f"Give {name}'s placeholder the shape {shape}",
        summary=(f"Write `{after}` as {name}'s value{where} on line {node.lineno}: the "
                 f"same number in an array of the shape the other branch returns there, "
                 f"{a['dtype']}[{wide}]; then re-run."),
        safety=(f"Same values: where {name} is taken, every element{where} holds the number "
                f"its placeholder `{before}` held; the cond returns one type from either "
                "branch."),
        safe=True)


_FILLS = ("zeros", "ones")
_NUMBER_MAKERS = ("array", "asarray", "float16", "bfloat16", "float32", "int32", "int8",
                  "int16", "uint8", "uint32")


def _number(node: ast.expr) -> bool:
    """A number written out: ``0.0``, ``-1``, ``float("nan")`` is not one."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _filled(node: ast.expr, before: str, shape: str, jnp: str) -> str | None:
    """The placeholder ``node`` (text ``before``) with every element at ``shape``; None for
    anything but a written constant of no dimensions."""
    if _number(node):
        return f"{jnp}.full({shape}, {before})"
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute | ast.Name):
        return None
    function = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
    if function in _FILLS:
        given = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "shape"), None)
        if not isinstance(given, ast.Tuple | ast.List) or given.elts:
            return None
        start = given.col_offset - node.col_offset
        end = given.end_col_offset - node.col_offset  # type: ignore[operator]
        return before[:start] + shape + before[end:]
    if function in _NUMBER_MAKERS and len(node.args) == 1 and _number(node.args[0]):
        return f"{jnp}.full({shape}, {before})"
    return None


def _branch_value(branches: dict[str, tuple[str, Location | None]], name: str,
                  names: list[str]) -> tuple[ast.expr, str, Location] | None:
    """What the branch ``name`` returns, as written: a lambda's body, or the value of the
    one return of the function JAX names; with its source's code and place."""
    function, place = branches.get(name, ("", None))
    parsed = _tracing.parse(place.source) if place is not None else None
    if place is None or parsed is None:
        return None
    tree, code = parsed
    if function == "<lambda>":
        lambdas = [node for node in ast.walk(tree)
                   if isinstance(node, ast.Lambda) and node.lineno == place.lineno]
        if len(lambdas) == 1:
            return lambdas[0].body, code, place
        found = _lambda_branches(branches, names)
        if found is None or name not in _BRANCH_ARGS:
            return None
        branch = found[0].args[_BRANCH_ARGS[name]]
        return (branch.body, code, place) if isinstance(branch, ast.Lambda) else None
    defs = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and node.name == function.rsplit(".", 1)[-1]
            and min([node.lineno, *(d.lineno for d in node.decorator_list)])
            <= place.lineno <= node.lineno]
    if len(defs) != 1:
        return None
    value = _scopes.one_return(defs[0])
    return (value, code, place) if value is not None else None


def _exact(small: str, wide: str) -> str:
    """How the number keeps its value in the wider dtype, said after it."""
    if small == wide:
        return ""
    if small.startswith(("int", "uint")) and wide == "float32":
        return f" (an {small} number is exact in float32 up to 2**24)"
    return f" ({small} is exact in {wide})"


def _fix(ctx: ErrorContext, place: Location, function: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.tuple_returns import list_returns_as_tuples

        return list_returns_as_tuples(source, place.lineno, function)

    return rewrite_fix(
        ctx, place, transform, label="Return a tuple from both branches",
        summary=(f"Make the branch on line {place.lineno} return a tuple, like the other "
                 "branch, instead of a list; then re-run."),
        safety="Same values: the same elements, in a tuple instead of a list.",
        safe=True)
