"""Two pytrees whose structures differ where a JAX function needs them equal:
``jax.tree.map(f, grads, params)`` with different keys, a list against a tuple, lists of
different lengths (``ValueError: pytree structure error: different pytree metadata at key
path ...``; older releases: ``Dict key mismatch; expected keys: ['a', 'b']; present keys:
['a', 'c'].``, ``Expected list, got (1, 2).``, ``Custom node type mismatch``).

The explanation names the trees as the user's line spells them and what differs between
them: the keys only one has, the containers, the lengths. No fix: which tree is right is
the user's knowledge.

Reports: google/flax#3994 (``jax.tree_map`` over a data tree and a FrozenDict),
google-deepmind/optax#160 (a plain-dict mask for FrozenDict parameters),
ZhengYinan-AIR/FISOR#5 and philippe-eecs/IDQL#4 (optimizer state over a dict against a
FrozenDict: "Custom node type mismatch").
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH541"
TITLE = "Two pytrees of different structure"
TRIGGERS = ("pytree structure error", "Dict key mismatch", "Custom node type mismatch",
            "Tuple arity mismatch", "List arity mismatch", "Expected list, got",
            "Expected tuple, got", "Expected dict, got")

_PATH_RE = re.compile(r"at key path\s*\n\s*(?P<path>.+)")
_METADATA_RE = re.compile(r"with metadata\s*\n\s*(?P<a>.+?)\n.*?with metadata\s*\n\s*(?P<b>.+?)\n",
                          re.S)
_KEYS_RE = re.compile(r"expected keys: (?P<a>\[.*?\]); present keys: (?P<b>\[.*?\])")
_TYPES_RE = re.compile(r"subtree of type\s*\n\s*(?P<a><class '[^']+'>|\S+)\s*\n.*?subtree of "
                       r"different type\s*\n\s*(?P<b><class '[^']+'>|[^\s.]+)", re.S)
_LENGTHS_RE = re.compile(r"type (?P<kind>list|tuple) of length (?P<a>\d+), but the full pytree "
                         r"has a subtree of the same type but of length (?P<b>\d+)")

_TREES = ("grads = {'w': jnp.ones(2), 'bias': jnp.ones(1)}\n"
          "params = {'w': jnp.zeros(2), 'b': jnp.zeros(1)}")

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, _TREES),
                   "stepped = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)",
                   "grads = {'w': grads['w'], 'b': grads['bias']}\n"
                   "stepped = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)",
                   NO_FIX, "abs(float(stepped['w'][0]) + 0.1) < 1e-6"),
)

WHY = _entry.prose("""
Functions that combine pytrees (jax.tree.map with several trees, optimizers applying
updates, jit's outputs against its inputs) walk them together, so every tree must have the
same structure: the same containers, the same dict keys and the same lengths. Only the
leaves may differ.
""")


def _trees(location: Location | None) -> list[str]:
    """The trees the line's tree function is given (after the function, for tree.map)."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if parsed is None or location is None:
        return []
    for node in ast.walk(parsed[0]):
        if (isinstance(node, ast.Call) and node.lineno <= location.lineno
                <= (node.end_lineno or 0) and "tree" in ast.unparse(node.func)
                and "map" in ast.unparse(node.func)):
            return [ast.unparse(a) for a in node.args[1:]]
    return []


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
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(),
                            notes=["Make the trees match (rename or add the missing keys, "
                                   "use the same container type), or map over the tree "
                                   "whose structure is right and look the other up by key."],
                            error=link.summary.splitlines()[0])
