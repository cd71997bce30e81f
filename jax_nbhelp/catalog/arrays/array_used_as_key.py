"""A JAX array used where Python needs a hashable value: a dict key, a set member, ``in`` a
set (``TypeError: unhashable type: 'jaxlib._jax.ArrayImpl'``; under jit or vmap
``unhashable type: 'DynamicJaxprTracer'``).

JAX's arrays have no hash by design (``jax/_src/array.py`` sets ``__hash__`` to None): ``==``
on two arrays compares them element by element, so no hash could agree with it. NumPy code
gets away with ``counts[x[i]]`` because indexing a NumPy array gives a NumPy scalar, which
hashes like the number; indexing or iterating a JAX array gives a JAX array of no
dimensions, which does not. Python raises the error, at the user's subscript or set; the
cause is JAX's array type, so it counts as JAX's (``provenance``).

Where the value hashed is an integer or boolean element of a concrete JAX array, the same
whole number as a Python int is what a dict holds:

- a name bound by a loop (``for node in end_nodes:``, or a comprehension's ``for``) over a
  one-dimensional integer array, used in the loop only as a key or an index: each loop of
  the cell over that array iterates ``end_nodes.tolist()`` instead (an index by a Python
  int picks the same element as one by a JAX integer);
- ``set(labels)``, ``frozenset(labels)`` of such an array: ``set(labels.tolist())``.

A float key has no fix (a float32 element as a Python float is not the decimal the dict's
keys were written as), nor has a tracer: under jit there is no number yet, so a lookup table
is an array indexed by the traced integer, or the argument is static.

Reports: nglaze00/SCoNe_GCN#3 (node ids iterated from a JAX array, looked up in a Python
adjacency dict), jax-ml/jax#884 (JAX made its arrays unhashable on purpose), jax-ml/jax#39858
(a class hashing a JAX array it holds), pyro-ppl/numpyro#948 (JAX's array, like NumPy's, has
no hash).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from jax_nbhelp.catalog import _entry, _scopes, _tracing
from jax_nbhelp.catalog._example import NO_FIX, NUMPY_IMPORTS, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH509"
TITLE = "A JAX array used as a dict key or set member"
TRIGGERS = ("unhashable type: ",)

_MESSAGE = re.compile(r"^unhashable type: '(?P<type>[\w.]+)'$")
_SETS = frozenset({"set", "frozenset"})
_WHOLE = ("int", "uint", "bool")

_GRAPH = ("adjacency = {0: [1, 2], 1: [0, 2], 2: [0, 1, 3], 3: [2]}\n"
          "ends = jnp.array([2, 0, 3, 2])")
_LABELS = "labels = jnp.array([3, 1, 3, 2])"

EXAMPLES = (
    # a loop over an integer array, its element a dict key: the loop iterates Python ints
    corrected_cell((NUMPY_IMPORTS, _GRAPH),
                   "degree = {}\nfor node in ends:\n    degree[node] = len(adjacency[node])",
                   "degree = {}\nfor node in ends.tolist():\n"
                   "    degree[node] = len(adjacency[node])",
                   "Iterate ends.tolist()", "degree == {2: 3, 0: 2, 3: 1}"),
    # every loop of the cell over that array, a comprehension too
    corrected_cell((NUMPY_IMPORTS, _GRAPH),
                   "sizes = {n: len(adjacency[n]) for n in ends}\n"
                   "order = [sizes[n] for n in ends]",
                   "sizes = {n: len(adjacency[n]) for n in ends.tolist()}\n"
                   "order = [sizes[n] for n in ends.tolist()]",
                   "Iterate ends.tolist()", "order == [3, 2, 1, 3]"),
    # a set of an integer array's elements
    corrected_cell((NUMPY_IMPORTS, _LABELS), "classes = sorted(set(labels))",
                   "classes = sorted(set(labels.tolist()))", "Use labels.tolist()",
                   "classes == [1, 2, 3]"),
    # a float key: its Python float is float32's value, not the key as written
    corrected_cell((NUMPY_IMPORTS, "rates = {0.1: 'slow', 0.5: 'fast'}\n"
                                   "chosen = jnp.array([0.1, 0.5])"),
                   "names = [rates[r] for r in chosen]",
                   "names = [rates[r] for r in [0.1, 0.5]]", NO_FIX,
                   "names == ['slow', 'fast']"),
    # under jit the key is a tracer: no number exists yet
    corrected_cell((NUMPY_IMPORTS, "scale = {0: 1.0, 1: 10.0}\n"
                                   "@jax.jit\ndef scaled(x, level):\n"
                                   "    return x * scale[level]"),
                   "out = scaled(jnp.ones(2), 1)",
                   "out = jnp.ones(2) * jnp.array([1.0, 10.0])[1]", NO_FIX,
                   "out.tolist() == [10.0, 10.0]"),
)

WHY = _entry.prose("""
JAX arrays have no hash: == on two arrays compares them element by element, so no hash
could agree with it, and JAX sets none. NumPy's indexing gives a NumPy scalar, which hashes
like its number; indexing or iterating a JAX array gives a JAX array of no dimensions, which
no dict or set can hold. Ask for the number itself (x.tolist(), x.item()) where a dict or a
set needs it.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = _MESSAGE.match(ctx.top.message) if ctx.top.is_a("TypeError") else None
    if found is None:
        return None
    traced = found["type"].endswith("Tracer")
    if not traced and not found["type"].endswith("ArrayImpl"):
        return None
    location = ctx.deepest_user_location()
    parsed = _tracing.parse(location.source) if location is not None else None
    hashed = (_hashed_array(ctx, location, parsed[0])
              if location is not None and parsed is not None else None)
    fix = None
    explanation = ("Your code uses a JAX array where Python needs a hashable value (a dict "
                   "key, a set member), and JAX arrays have no hash.")
    if hashed is not None and location is not None and parsed is not None:
        node, how, value, taken_by = hashed
        subject = _tracing.quoted_line(location, "Your code")
        explanation = (f"{subject} uses `{node.id}` {how}, and `{node.id}` is a JAX "
                       f"{'tracer' if value.kind == 'tracer' else 'array'} ({value.summary}): "
                       "JAX arrays have no hash, so no dict or set can hold one.")
        if value.kind == "array":
            fix = (_loop_fix(ctx, location, parsed[0], node) if taken_by is None
                   else _set_fix(ctx, location, taken_by, node, value))
    notes: tuple[str, ...] = ()
    if traced:
        notes = ("Under jit (or vmap) the value is a tracer, which holds no number until the "
                 "function runs: look it up in an array instead (`table = jnp.array([...])`, "
                 "then `table[i]`), or make the argument static.",)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=(fix,) if fix else (),
                            notes=notes, error=ctx.top.summary.splitlines()[0])


def _hashed_array(ctx: ErrorContext, location: Location, tree: ast.Module
                  ) -> tuple[ast.Name, str, Value, ast.Call | None] | None:
    """The name on the failing line that Python hashed and that holds a JAX array: a key or
    member of no dimensions, or the array whose elements ``set(...)`` takes (with that
    call)."""
    for node, how, taken_by in _hashed_names(tree, location.lineno):
        value = ctx.value_named(location, node.id)
        if value is None or value.kind not in ("array", "tracer") or value.shape is None:
            continue
        if len(value.shape) == (0 if taken_by is None else 1):
            return node, how, value, taken_by
    return None


def _hashed(root: ast.AST) -> Iterator[tuple[ast.AST, ast.expr, str]]:
    """What Python hashes (or uses as an index) in ``root``, with the node that does it and
    how: a subscript's key, a dict's key (displayed or comprehended), a set's member, the
    left of ``in``."""
    for node in ast.walk(root):
        if isinstance(node, ast.Subscript):
            yield node, node.slice, "as a key"
        elif isinstance(node, ast.Dict):
            yield from ((node, k, "as a dict key") for k in node.keys if k is not None)
        elif isinstance(node, ast.DictComp):
            yield node, node.key, "as a dict key"
        elif isinstance(node, ast.Set):
            yield from ((node, e, "as a set member") for e in node.elts)
        elif isinstance(node, ast.SetComp):
            yield node, node.elt, "as a set member"
        elif isinstance(node, ast.Compare) and all(
                isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            yield node, node.left, "as a member asked for with `in`"


def _hashed_names(tree: ast.Module, lineno: int
                  ) -> Iterator[tuple[ast.Name, str, ast.Call | None]]:
    """Names at ``lineno`` that Python hashes there, with how, and the ``set(...)`` call
    whose elements they are (None for a key or member itself)."""
    for holder, hashed, how in _hashed(tree):
        if holder.lineno == lineno and isinstance(hashed, ast.Name):  # type: ignore[attr-defined]
            yield hashed, how, None
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and node.lineno == lineno
                and isinstance(node.func, ast.Name) and node.func.id in _SETS
                and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Name)):
            yield node.args[0], f"as the elements of a {node.func.id}", node


def _whole(value: Value | None) -> bool:
    return (value is not None and value.kind == "array" and value.shape is not None
            and len(value.shape) == 1 and (value.dtype or "").startswith(_WHOLE))


def _loops(tree: ast.Module) -> Iterator[tuple[ast.expr, ast.expr, list[ast.AST], set[int]]]:
    """Every loop of the cell: its target, what it iterates, the code that runs in it, and
    what of that code a comprehension hashes itself (a dict comprehension's key)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            yield node.target, node.iter, list(node.body), set()
        elif isinstance(node, ast.DictComp):
            for generator in node.generators:
                yield (generator.target, generator.iter,
                       [node.key, node.value, *generator.ifs], {id(node.key)})
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            hashed = {id(node.elt)} if isinstance(node, ast.SetComp) else set()
            for generator in node.generators:
                yield generator.target, generator.iter, [node.elt, *generator.ifs], hashed


def _only_keys(name: str, body: list[ast.AST], hashed: set[int]) -> bool:
    """Whether every read of ``name`` in ``body`` is a key, a member or an index (where a
    Python int and a JAX integer of no dimensions pick the same entry), and nothing binds it
    again."""
    places = hashed.union(id(key) for part in body for _, key, _ in _hashed(part))
    for part in body:
        for node in ast.walk(part):
            if isinstance(node, ast.Name) and node.id == name and (
                    not isinstance(node.ctx, ast.Load) or id(node) not in places):
                return False
    return True


def _always_evaluated(tree: ast.Module, node: ast.AST) -> bool:
    """Whether ``node`` is evaluated whenever its statement runs: not in a branch of a
    conditional expression, a later operand of ``and``/``or``, a lambda or a
    comprehension."""
    parents = _scopes.parents(tree)
    current: ast.AST = node
    while not isinstance(current, ast.stmt):
        parent = parents.get(current)
        if parent is None:
            return False
        if isinstance(parent, ast.IfExp) and current is not parent.test:
            return False
        if isinstance(parent, ast.BoolOp) and current is not parent.values[0]:
            return False
        if isinstance(parent, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp
                      | ast.GeneratorExp | ast.comprehension):
            return False
        current = parent
    return True


def _loop_fix(ctx: ErrorContext, location: Location, tree: ast.Module,
              key: ast.Name) -> Fix | None:
    """Each loop of the cell over the array the key came from iterates its ``tolist()``."""
    over = next((it for target, it, body, _ in _loops(tree) if isinstance(target, ast.Name)
                 and target.id == key.id and isinstance(it, ast.Name)
                 and any(n is key for part in body for n in ast.walk(part))), None)
    if over is None or not _whole(ctx.value_named(location, over.id)):
        return None
    loops = [loop for loop in _loops(tree)
             if isinstance(loop[1], ast.Name) and loop[1].id == over.id]
    if not all(isinstance(target, ast.Name) and _only_keys(target.id, body, hashed)
               for target, _, body, hashed in loops):
        return None
    edits = [(it, over.id, f"{over.id}.tolist()") for _, it, _, _ in loops]
    count = "" if len(edits) == 1 else f" (each of the cell's {len(edits)} loops over it)"
    return rewrite_fix(
        ctx, location, _tracing.replacing_each(edits),
        # hashing fails for every element alike (a JAX array's elements are all arrays), so
        # where the line hashes the key whenever it runs, a loop whose first statement raised
        # raised in its first iteration
        every_item_raises=_always_evaluated(tree, key),
        label=f"Iterate {over.id}.tolist()",
        summary=f"Iterate `{over.id}.tolist()` for `{over.id}`{count}; then re-run.",
        safety=(f"Same values: `{over.id}.tolist()` holds the same whole numbers as Python ints, "
                "which a dict or set can hold, and the loop uses each only as a key or an "
                "index, where an int picks the same entry as a JAX integer."),
        safe=True)


def _set_fix(ctx: ErrorContext, location: Location, call: ast.Call, array: ast.Name,
             value: Value) -> Fix | None:
    """``set(labels)`` of a one-dimensional integer array: ``set(labels.tolist())``."""
    if not _whole(value):
        return None
    after = f"{array.id}.tolist()"
    kind = call.func.id  # type: ignore[attr-defined]  # a name of _SETS
    return rewrite_fix(
        ctx, location, _tracing.replacing(array, array.id, after),
        label=f"Use {after}",
        summary=f"Pass `{after}` to {kind}() (line {location.lineno}); then re-run.",
        safety=(f"Same values: the {kind} holds the same whole numbers, as Python "
                "ints, where a JAX array's elements (arrays themselves) have no hash."),
        safe=True)
