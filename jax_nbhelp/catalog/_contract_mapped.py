"""Contract fixes for the explained view (``JNH001``) where ``lax.map`` was given a Python
list or tuple of records to map over.

**Records of different lengths mapped as one tree.** ``jax.lax.map(f, xs)`` maps over the
leading axis of every array in the tree ``xs``; a tuple of records (datasets, episodes,
series kept as dicts, NamedTuples or dataclasses) is a tree too, whose arrays it would cut
along their own first axes, never along the tuple. Where the records hold arrays of
different lengths, JAX stops (``scan got values with different leading axis sizes: 3, 3,
2, 2, 5, 5``), and the sizes it lists, in the tree's order, read as one group per record:
every array of a record has its record's length, and the records' lengths differ. Calling
``f`` on each record is the one reading that runs: ``jnp.stack([f(run) for run in runs])``,
each result stacked in the tuple's order as ``lax.map`` stacks its results (a function that
returns a tuple or a dict gets each of its parts stacked, with ``jax.tree.map``). Read from
JAX's message and the length of the user's list only (no record is flattened here); a list
of bare arrays (sequences a scan would pair up) gets no fix: which was meant is the user's.

Reports: patrick-kidger/equinox#1079 (a tuple of series of different lengths mapped over),
patrick-kidger/equinox#1046 (a list of pytrees to map over, stacked by hand), jax-ml/jax#763
(``xs`` given as a tuple, read as one tree), jax-ml/jax#29538 (``lax.map(f, xs)`` is
``np.stack([f(x) for x in xs])``).
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap

from jax_nbhelp.catalog import _contract_call
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator, library_type

_SIZES = re.compile(r"scan got values with different leading axis sizes: (?P<sizes>[\d, ]+)")


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    return _records_fix(ctx, diagnosis)


def _per_record(sizes: list[int], records: int) -> bool:
    """Whether the leading sizes, in the tree's order, are one length per record, the same
    for every array of a record and not the same for every record."""
    if records < 2 or not sizes or len(sizes) % records:
        return False
    width = len(sizes) // records
    groups = [sizes[i:i + width] for i in range(0, len(sizes), width)]
    return all(len(set(group)) == 1 for group in groups) \
        and len({group[0] for group in groups}) > 1


def _returns_parts(function: object) -> bool:
    """Whether the user's function returns a tuple, list or dict written as one (its results
    are stacked part by part); True where its source cannot be read."""
    try:
        source = textwrap.dedent(inspect.getsource(function))  # type: ignore[arg-type]
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return True
    if isinstance(tree.body[0], ast.Expr | ast.Assign):  # a lambda: its body is its result
        bodies = [n.body for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
        return not bodies or isinstance(bodies[0], ast.Tuple | ast.List | ast.Dict)
    return any(isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple | ast.List | ast.Dict)
               for n in ast.walk(tree))


def _item_name(xs: str, taken: set[str]) -> str:
    base = xs.split(".")[-1]
    name = base[:-1] if base.endswith("s") and len(base) > 2 and base[:-1].isidentifier() \
        else "item"
    while name in taken:
        name += "_"
    return name


def _records_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    plain = _contract_call.plain_call(ctx, diagnosis)
    found = _SIZES.search(ctx.top.message)
    lax = sys.modules.get("jax.lax")
    jnp = ctx.alias("jax.numpy")
    if plain is None or found is None or lax is None or jnp is None:
        return None
    call, location, node = plain
    if call.function is not getattr(lax, "map", None):
        return None
    f_node, xs_node = _contract_call.given(call, "f"), _contract_call.given(call, "xs")
    if f_node is None or xs_node is None or len(node.args) + len(node.keywords) != 2:
        return None  # batch_size= and the like: what a loop would keep is not read here
    evaluate = Evaluator(call.frame)
    records = _contract_call.value_of(call, xs_node, evaluate)  # list(runs): as JAX got it
    function = evaluate(f_node)
    if not isinstance(records, list | tuple) or type(records) not in (list, tuple) \
            or not callable(function):
        return None
    if any(type(item) not in (dict, list, tuple) and library_type(type(item))
           for item in records):
        return None  # arrays or numbers side by side: sequences a scan would pair
    sizes = [int(size) for size in found.group("sizes").replace(" ", "").split(",") if size]
    if not _per_record(sizes, len(records)):
        return None
    f_text, xs_text = ast.unparse(f_node), ast.unparse(xs_node)
    item = _item_name(xs_text, {n.id for n in ast.walk(node) if isinstance(n, ast.Name)})
    f_called = f_text if isinstance(f_node, ast.Name | ast.Attribute) else f"({f_text})"
    results = f"[{f_called}({item}) for {item} in {xs_text}]"
    jax = ctx.alias("jax")
    if _returns_parts(function):
        if jax is None:
            return None
        after = f"{jax}.tree.map(lambda *parts: {jnp}.stack(parts), *{results})"
    else:
        after = f"{jnp}.stack({results})"
    count = len(records)
    return _contract_call.rewritten(
        ctx, location, [(node, after.replace("{", "{{").replace("}", "}}"))],
        label=f"Call {f_text} on each of the {count} records",
        why=(f"lax.map maps over the leading axis of every array in {xs_text}, and its "
             f"{count} records hold arrays of different lengths, which no one axis can be; "
             f"the loop calls {f_text} once per record"),
        safety=(f"Same results as mapping over the records: {f_text} runs on each of the "
                f"{count} records of {xs_text}, in order, and its results are stacked along a "
                "new first axis, as lax.map stacks them (the loop runs in Python, one call "
                "per record, not compiled as one)."))
