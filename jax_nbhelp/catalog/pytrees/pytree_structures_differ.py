"""Two pytrees whose structures differ where a JAX function needs them equal:
``jax.tree.map(f, grads, params)`` with different keys, a list against a tuple, lists of
different lengths (``ValueError: pytree structure error: different pytree metadata at key
path ...``; older releases: ``Dict key mismatch; expected keys: ['a', 'b']; present keys:
['a', 'c'].``, ``Expected list, got (1, 2).``, ``Custom node type mismatch``).

The explanation names the trees as the user's line spells them and what differs between
them: the keys only one has, the containers, the lengths. No fix: which tree is right is
the user's knowledge. One exception: the first tree of a tree map holds ``None`` where
another holds a value (a frozen parameter's gradient), and the mapped function checks its
first argument for ``None`` itself. ``None`` is a pytree of no leaves, so JAX never calls
the function there; ``is_leaf=lambda node: node is None`` makes each ``None`` a leaf, which
is what the function was written for and what JAX's own message (0.8) prescribes. The fix
adds that keyword and runs the call. Another: a tuple against a list of as many items at the
root of a tree map's trees: each other tree is converted to the first one's container, so
the leaves meet as they would have and the result has the first tree's structure, as every
tree map's does (jax-ml/jax#17798: "Expected list, got (...)"; jax-ml/jax#14093 made JAX's
message name list and tuple). A third: the first tree holds objects of the user's (pytree
nodes: a distribution, a layer, a NamedTuple) where the second holds values (arrays,
numbers), as in ``jax.tree.map(lambda d, v: d.log_prob(v), priors, draws)``. A tree map walks
its first tree, and the second tree is the shallower one: walked first, it hands each of its
leaves to the function with the object at its place, which the function was written for
(``is_leaf`` naming each such class does the same). The fix swaps the two trees and the
function's two parameters; a plain dict or list where a value is gets no such fix (more
likely keys that do not match). jax-ml/jax#5311 (``is_leaf`` added so a tree map can stop at
a NamedTuple of parameters), jax-ml/jax#18049 (treating some nodes as leaves),
patrick-kidger/equinox#305 (a prefix tree mapped first, to reach the other's subtrees).

Reports: google/flax#3994 (``jax.tree_map`` over a data tree and a FrozenDict),
google-deepmind/optax#160 (a plain-dict mask for FrozenDict parameters),
ZhengYinan-AIR/FISOR#5 and philippe-eecs/IDQL#4 (optimizer state over a dict against a
FrozenDict: "Custom node type mismatch"); ``None`` in the first tree: jax-ml/jax#2348 (a
gradient of None for a frozen parameter), patrick-kidger/equinox#753 (JAX's change that
made None a tree of its own, and the is_leaf remedy).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _loops, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite

CODE = "JNH541"
TITLE = "Two pytrees of different structure"
TRIGGERS = ("pytree structure error", "Dict key mismatch", "Custom node type mismatch",
            "Tuple arity mismatch", "List arity mismatch", "Expected list, got",
            "Expected tuple, got", "Expected dict, got", "Expected None, got",
            "Expected named tuple, got")

_PATH_RE = re.compile(r"at key path\s*\n\s*(?P<path>.+)")
_EXPECTED_RE = re.compile(r"^Expected (?P<kind>list|tuple), got (?P<got>[\[(])")
_METADATA_RE = re.compile(r"with metadata\s*\n\s*(?P<a>.+?)\n.*?with metadata\s*\n\s*(?P<b>.+?)\n",
                          re.S)
_KEYS_RE = re.compile(r"expected keys: (?P<a>\[.*?\]); present keys: (?P<b>\[.*?\])")
_TYPES_RE = re.compile(r"subtree of type\s*\n\s*(?P<a><class '[^']+'>|\S+)\s*\n.*?subtree of "
                       r"different type\s*\n\s*(?P<b><class '[^']+'>|[^\s.]+)", re.S)
_LENGTHS_RE = re.compile(r"type (?P<kind>list|tuple) of length (?P<a>\d+), but the full pytree "
                         r"has a subtree of the same type but of length (?P<b>\d+)")

_TREES = ("grads = {'w': jnp.ones(2), 'bias': jnp.ones(1)}\n"
          "params = {'w': jnp.zeros(2), 'b': jnp.zeros(1)}")
_FROZEN = ("updates = {'w': jnp.full(2, 0.5), 'frozen': None}\n"
           "params = {'w': jnp.ones(2), 'frozen': jnp.asarray(2.0)}")

_PRIORS = ("from typing import NamedTuple\nclass Gauss(NamedTuple):\n    mu: jax.Array\n"
           "    sigma: jax.Array\n    def logp(self, x):\n"
           "        return -0.5 * ((x - self.mu) / self.sigma) ** 2\n"
           "priors = {'a': Gauss(jnp.array(0.0), jnp.array(1.0)),\n"
           "          'b': Gauss(jnp.array(1.0), jnp.array(2.0))}\n"
           "values = {'a': jnp.array(1.0), 'b': jnp.array(3.0)}")

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, _TREES),
                   "stepped = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)",
                   "grads = {'w': grads['w'], 'b': grads['bias']}\n"
                   "stepped = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)",
                   NO_FIX, "abs(float(stepped['w'][0]) + 0.1) < 1e-6"),
    # None for a frozen parameter's update, and a function written for it: None as a leaf.
    corrected_cell((JAX_IMPORTS, _FROZEN),
                   "stepped = jax.tree.map(lambda u, p: p if u is None else p + u, updates, "
                   "params)",
                   "stepped = jax.tree.map(lambda u, p: p if u is None else p + u, updates, "
                   "params, is_leaf=lambda node: node is None)",
                   "Treat None as a leaf",
                   "stepped['w'].tolist() == [1.5, 1.5] and float(stepped['frozen']) == 2.0"),
    # a tuple against a list of as many items: the first tree's container for both
    corrected_cell((JAX_IMPORTS, "scales = (1.0, 2.0)\nshifts = [0.5, 0.5]"),
                   "moved = jax.tree.map(lambda s, b: s + b, scales, shifts)",
                   "moved = jax.tree.map(lambda s, b: s + b, scales, tuple(shifts))",
                   "Pass tuple(...)", "moved == (1.5, 2.5)"),
    # a dict of distributions (pytree nodes) against a dict of values (leaves): the values'
    # tree walked first, each value meeting its distribution (jax-ml/jax#5311)
    corrected_cell((JAX_IMPORTS, _PRIORS),
                   "lp = jax.tree.map(lambda d, v: d.logp(v), priors, values)",
                   "lp = jax.tree.map(lambda v, d: d.logp(v), values, priors)",
                   "Map over values first", "lp == {'a': -0.5, 'b': -0.5}"),
)

WHY = _entry.prose("""
Functions that combine pytrees (jax.tree.map with several trees, optimizers applying
updates, jit's outputs against its inputs) walk them together, so every tree must have the
same structure: the same containers, the same dict keys and the same lengths. Only the
leaves may differ.
""")


def _map_call(location: Location | None) -> tuple[ast.Call, ast.Module, str] | None:
    """The tree map call on the user's line (``jax.tree.map(f, a, b)``), with its source."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if parsed is None or location is None:
        return None
    for node in ast.walk(parsed[0]):
        if (isinstance(node, ast.Call) and node.lineno <= location.lineno
                <= (node.end_lineno or 0) and "tree" in ast.unparse(node.func)
                and "map" in ast.unparse(node.func)):
            return node, parsed[0], parsed[1]
    return None


def _trees(location: Location | None) -> list[str]:
    """The trees the line's tree function is given (after the function, for tree.map)."""
    found = _map_call(location)
    return [ast.unparse(a) for a in found[0].args[1:]] if found is not None else []


def _none_in_first(message: str) -> bool:
    """Whether JAX's message says the first tree holds None where another holds a value."""
    types = _TYPES_RE.search(message)
    return ("Expected None, got" in message
            or (types is not None and _short(types["a"]) == "NoneType"))


def _checks_none(function: ast.expr, tree: ast.Module) -> str | None:
    """The test of its first parameter against None that the mapped function makes
    (``g is None``), for a lambda written in the call or a function defined in the same
    source; None where it makes none."""
    if isinstance(function, ast.Name):
        name = function.id
        function = next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                         and node.name == name), None)  # type: ignore[assignment]
    if not isinstance(function, ast.Lambda | ast.FunctionDef) or not function.args.args:
        return None
    first = function.args.args[0].arg
    for node in ast.walk(function):
        if (isinstance(node, ast.Compare) and len(node.ops) == 1
                and isinstance(node.ops[0], ast.Is | ast.IsNot)
                and isinstance(node.left, ast.Name) and node.left.id == first
                and isinstance(node.comparators[0], ast.Constant)
                and node.comparators[0].value is None):
            return ast.unparse(node)
    return None


def _none_leaf_fix(ctx: ErrorContext, location: Location, link_message: str) -> Fix | None:
    """``is_leaf=lambda node: node is None`` added to a tree map whose first tree holds None
    where another holds a value and whose function checks its first argument for None."""
    found = _map_call(location)
    if found is None or not _none_in_first(link_message):
        return None
    call, tree, code = found
    if len(call.args) < 3 or any(k.arg in ("is_leaf", None) for k in call.keywords):
        return None
    test = _checks_none(call.args[0], tree)
    if test is None or call.end_lineno is None or call.end_col_offset is None:
        return None
    names = _trees(location)
    end_line, end_col = call.end_lineno, call.end_col_offset - 1  # the closing parenthesis
    original = _tracing.segment(code, call)

    def transform(source: str) -> str:
        lines = source.split("\n")
        line = lines[end_line - 1].encode()
        if line[end_col:end_col + 1] != b")" or original not in source:
            raise CannotRewrite(f"the tree map on line {call.lineno} is no longer as it was")
        before = line[:end_col].decode()
        comma = "" if before.rstrip().endswith(",") else ","
        lines[end_line - 1] = (f"{before}{comma} is_leaf=lambda node: node is None"
                               + line[end_col:].decode())
        return "\n".join(lines)

    return rewrite_fix(
        ctx, location, transform, label="Treat None as a leaf",
        summary=(f"Add `is_leaf=lambda node: node is None` to the tree map on line "
                 f"{call.lineno}, so each None of {names[0]} is a leaf your function is "
                 "called with; then re-run."),
        safety=(f"Same results wherever the trees both hold values; where {names[0]} holds "
                f"None your function is called with it, which it checks (`{test}`)."),
        safe=True)


def _container_fix(ctx: ErrorContext, location: Location, link_message: str) -> Fix | None:
    """``jax.tree.map(f, a, b)`` where ``a`` is a tuple and ``b`` a list of as many items (or
    the other way round), differing nowhere else at the root: each other tree is converted
    to the first's container (``tuple(b)``). The leaves meet as before, in the same order,
    and the result has the first tree's structure, as a tree map's always does."""
    found = _map_call(location)
    types = _TYPES_RE.search(link_message)
    path = _PATH_RE.search(link_message)
    frame = ctx.live_frame(location)
    # JAX 0.9 and older: "Expected tuple, got [3.0, 4.0]." (no key path: the root's alone
    # is then told apart by the live trees below)
    older = _EXPECTED_RE.search(link_message)
    kinds = ({_short(types["a"]), _short(types["b"])} if types is not None else
             {older["kind"], "list" if older["got"] == "[" else "tuple"} if older is not None
             else set())
    if found is None or frame is None or (path is not None and "[" in path["path"]) \
            or kinds != {"tuple", "list"}:
        return None
    call, _, code = found
    trees = call.args[1:]
    if len(trees) < 2 or any(isinstance(t, ast.Starred) for t in trees):
        return None
    evaluate = Evaluator(frame)
    held = [evaluate(t) for t in trees]
    if any(type(h) not in (list, tuple) for h in held) \
            or len({len(h) for h in held}) != 1:  # type: ignore[arg-type]
        return None
    first = type(held[0]).__name__
    converted = [t for t, h in zip(trees, held, strict=True) if type(h) is not type(held[0])]
    if not converted or any(t.lineno != t.end_lineno for t in converted):
        return None
    transform = _tracing.replacing_each(
        [(t, _tracing.segment(code, t), f"{first}({_tracing.segment(code, t)})")
         for t in converted])
    shown = _tracing.quoted([f"`{first}({_tracing.segment(code, t)})`" for t in converted])
    return rewrite_fix(
        ctx, location, transform, label=f"Pass {first}(...)",
        summary=(f"Pass {shown} on line {location.lineno}, the container of the first tree "
                 f"`{_tracing.segment(code, trees[0])}`; then re-run."),
        safety=("Same values: the trees' leaves meet in the same order, and the result has "
                "the first tree's structure, as a tree map's always does."),
        safe=True)


# what a leaf of a pytree is shown as in JAX's message: an array or a Python number
_LEAF_TYPES = frozenset({"ArrayImpl", "ndarray", "float", "int", "bool", "complex", "float32",
                         "float64", "int32", "int64"})


_CONTAINERS = frozenset({"dict", "list", "tuple", "nonetype", "ordereddict", "defaultdict"})
# JAX 0.9 and older: the first tree's node, and the other tree's leaf shown as its value
_OLDER_NODE = re.compile(r"^(?:Expected (?P<kind>named tuple), got|Custom node type "
                         r"mismatch; expected type: <class '(?:[\w.]+\.)?(?P<cls>\w+)'>; "
                         r"value:) (?:Array\(|-?[\d.]+\b)")


def _node_over_leaf(message: str) -> str | None:
    """The type of the first tree's subtree where another tree has a leaf (an array, a
    number), as JAX's message tells it; None for any other difference."""
    types = _TYPES_RE.search(message)
    if types is not None:
        a, b = _short(types["a"]), _short(types["b"])
        node = a if b in _LEAF_TYPES and a not in _LEAF_TYPES else None
    else:
        older = _OLDER_NODE.search(message)
        node = (older["kind"] or older["cls"]) if older is not None else None
    # an object of the user's (a distribution, a layer), which a function can be handed
    # whole; a plain container where a number is would more likely be a mistake of keys
    return None if node is None or node.lower() in _CONTAINERS or "dict" in node.lower() \
        else node


def _prefix_first_fix(ctx: ErrorContext, location: Location, link_message: str
                      ) -> Fix | None:
    """``jax.tree.map(f, a, b)`` where ``a`` has a subtree (a distribution object, a layer)
    where ``b`` has a leaf: ``b`` is the prefix, and a tree map walks its first tree, so
    ``jax.tree.map(lambda y, x: ..., b, a)`` calls ``f`` with each leaf of ``b`` and the part
    of ``a`` at its place, as ``is_leaf`` naming those subtrees' classes would."""
    found = _map_call(location)
    node = _node_over_leaf(link_message)
    if found is None or node is None:
        return None
    call, tree, code = found
    if len(call.args) != 3 or call.keywords or call.lineno != call.end_lineno \
            or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    function, first, second = call.args
    a, b = _tracing.segment(code, first), _tracing.segment(code, second)
    if isinstance(function, ast.Lambda) and len(function.args.args) == 2 \
            and not (function.args.defaults or function.args.vararg or function.args.kwarg
                     or function.args.kwonlyargs or function.args.posonlyargs):
        x, y = (arg.arg for arg in function.args.args)
        swapped = f"lambda {y}, {x}: {_tracing.segment(code, function.body)}"
    else:
        fresh = _loops.fresh_names(tree, ("y", "leaf", "leaf_b"), ("x", "part", "part_a"))
        if fresh is None:
            return None
        y, x = fresh
        swapped = f"lambda {y}, {x}: {_tracing.segment(code, function)}({x}, {y})"
    before = _tracing.segment(code, call)
    after = f"{_tracing.segment(code, call.func)}({swapped}, {b}, {a})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after),
        label=f"Map over {b} first" if len(b) <= 20 else "Map over the shallower tree",
        summary=(f"Write `{after}` on line {location.lineno}: a tree map walks its first "
                 f"tree, and {b} stops at a leaf where {a} has a {node}; then re-run."),
        safety=(f"Same calls of the function: each leaf of {b} meets the part of {a} at its "
                f"place (the {node}), in the same order, with the arguments in "
                f"the order the function takes them; the result has {b}'s structure."),
        safe=True)


def _difference(message: str, names: list[str]) -> str:
    a, b = (names + ["the first tree", "the second tree"][len(names):])[:2]
    for pattern in (_METADATA_RE, _KEYS_RE):
        found = pattern.search(message)
        if found is None:
            continue
        try:
            keys_a, keys_b = set(ast.literal_eval(found["a"])), set(ast.literal_eval(found["b"]))
        except (ValueError, SyntaxError, TypeError):
            return f"{a} has {found['a']} where {b} has {found['b']}"
        only_a = ", ".join(repr(k) for k in sorted(keys_a - keys_b, key=str)) or "none"
        only_b = ", ".join(repr(k) for k in sorted(keys_b - keys_a, key=str)) or "none"
        return f"keys only in {a}: {only_a}; keys only in {b}: {only_b}"
    types = _TYPES_RE.search(message)
    if types is not None:
        return (f"{a} has a {_short(types['a'])} where {b} has a {_short(types['b'])}")
    lengths = _LENGTHS_RE.search(message)
    if lengths is not None:
        return (f"{a} has a {lengths['kind']} of {lengths['a']} where {b} has one of "
                f"{lengths['b']}")
    expected = re.search(r"Expected (?P<kind>\w+), got (?P<got>.{0,60})", message)
    if expected is not None:
        return f"one tree has a {expected['kind']} where the other has {expected['got']}"
    return "their structures differ"


def _short(kind: str) -> str:
    return re.sub(r"<class '(?:[\w.]+\.)?(\w+)'>", r"\1", kind)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next((ctx.find(t) for t in TRIGGERS if ctx.find(t) is not None), None)
    if link is None or (not link.is_a("ValueError") and not link.is_a("TypeError")):
        return None
    location = ctx.deepest_user_location()
    names = _trees(location)
    subject = _tracing.quoted_line(location, "Your code")
    path = _PATH_RE.search(link.message)
    where = ""
    if path is not None and "[" in path["path"]:
        where = f" at {path['path'].split(' ', 2)[-1].removeprefix('tree')}"
    shown = " and ".join(f"`{n}`" for n in names) if names else "two pytrees"
    explanation = (f"{subject} combines {shown}, whose structures differ{where}: "
                   f"{_difference(link.message, names)}.")
    fix = (_none_leaf_fix(ctx, location, link.message)
           or _container_fix(ctx, location, link.message)
           or _prefix_first_fix(ctx, location, link.message)) if location is not None else None
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=(fix,) if fix else (),
                            notes=[] if fix else [
                                "Make the trees match (rename or add the missing keys, use "
                                "the same container type), or map over the tree whose "
                                "structure is right and look the other up by key."],
                            error=link.summary.splitlines()[0])
