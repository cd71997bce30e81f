"""A tracer that escaped its transformation: a jitted function saved a traced value to a
list, a global or an attribute, and later code used it (``UnexpectedTracerError``).

There is no mechanical fix: the function has to return the value instead, which changes
its interface. The diagnosis names the function JAX was tracing and points at the lines in
it that store values outside (``list.append``, ``global``, attribute or item assignment).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _nondiff, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, Example
from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH306"
TITLE = "Traced value used after its jit finished"
ERROR = "UnexpectedTracerError"

_LEAKED_IN = re.compile(
    r"The function being traced when the value leaked was (?P<function>\S+)"
    r"(?: at (?P<file>\S.*?):(?P<line>\d+))? traced for (?P<purpose>\w+)"
)
_STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})

_LEAKY = '''\
seen = []

@jax.jit
def scaled(x):
    seen.append(x)
    return x * 2

out = scaled(jnp.ones(3))'''

_GLOBAL_KEY = ("key = jax.random.key(0)\n\n@jax.jit\ndef noisy(x):\n    global key\n"
               "    key, sub = jax.random.split(key)\n    return x + jax.random.normal(sub)\n\n"
               "noisy_out = noisy(1.0)")

EXAMPLES = (
    Example(
        setup=(JAX_IMPORTS, _LEAKY),
        failing="total = seen[0] + 1",
        fix=NO_FIX,
        check="total.tolist() == [2.0, 2.0, 2.0]",
        fixed=(JAX_IMPORTS, "@jax.jit\ndef scaled(x):\n    return x * 2, x\n\n"
                         "out, kept = scaled(jnp.ones(3))", "total = kept + 1"),
    ),
    # A global key split inside a jitted function (the key escapes as a tracer).
    Example(
        setup=(JAX_IMPORTS, _GLOBAL_KEY),
        failing="sample = jax.random.normal(key)",
        fix=NO_FIX,
        check="noisy_out.shape == ()",
        fixed=(JAX_IMPORTS, "@jax.jit\ndef noisy(x, key):\n    key, sub = jax.random.split(key)\n"
                         "    return x + jax.random.normal(sub), key\n\n"
                         "noisy_out, key = noisy(1.0, jax.random.key(0))",
               "sample = jax.random.normal(key)"),
    ),
)

WHY = _entry.prose("""
jax.jit runs your function once with tracers, placeholders that record operations instead of
holding values. A tracer is only meaningful while that run lasts; one kept in a list, a
global or an attribute outlives it, and using it later has no value to work with. Values
must leave a jitted function through its return value.
""")
WHY_UNDER = {
    "vmap": (
        "jax.vmap runs your function once with batch tracers, each standing for a whole "
        "batch of values. A tracer is only meaningful while that run lasts; one kept in a "
        "list, a global or an attribute outlives the vmap call, and using it later has no "
        "batch to work with. Values must leave a mapped function through its return value, "
        "which vmap stacks into one array."),
    "grad": (
        "jax.grad runs your function once with tracers that record each operation for the "
        "derivative. A tracer is only meaningful while that run lasts; one kept in a list, a "
        "global or an attribute outlives it. Values must leave through the return value: "
        "jax.value_and_grad returns the function's value too, and has_aux=True returns "
        "anything else it computes."),
}
_DOING = {"vmap": "jax.vmap was mapping", "grad": "jax.grad was differentiating"}


def _locals(func: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    globals_ = {n for node in ast.walk(func) if isinstance(node, ast.Global) for n in node.names}
    return names - globals_


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def storing_lines(func: ast.FunctionDef) -> list[int]:
    """Lines of ``func`` that put a value somewhere that outlives the call."""
    local = _locals(func)
    lines: set[int] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Global):
            lines.update(
                n.lineno for n in ast.walk(func)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in node.names
            )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _STORING_METHODS:
            root = _root(node.func.value)
            if root is not None and root not in local:
                lines.add(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, (ast.Attribute, ast.Subscript)):
                    root = _root(target)
                    if root is not None and (root not in local or root == "self"):
                        lines.add(node.lineno)
    return sorted(lines)


def _suspects(ctx: ErrorContext, place: Location | None, function: str) -> list[Location]:
    parsed = _tracing.parse(place.source) if place is not None else None
    if parsed is None or place is None:
        return []
    tree, code = parsed
    func = _tracing.find_def(tree, function, place.lineno)
    if func is None:
        return []
    lines = code.splitlines()
    raw = (place.source or "").splitlines()
    found = []
    for lineno in storing_lines(func):
        text = raw[lineno - 1] if lineno <= len(raw) else lines[lineno - 1]
        found.append(Location(kind=place.kind, filename=place.filename, lineno=lineno,
                              line=text, function=function, cell=place.cell,
                              source=place.source, rewritten=place.rewritten))
    return found


TRIGGERS = (ERROR,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = _tracing.error_link(ctx, ERROR)
    if link is None or _nondiff.array_in_nondiff(ctx) is not None:
        return None  # an array in a custom rule's nondiff_argnums: JNH528's
    use = ctx.deepest_user_location()
    leaked = _LEAKED_IN.search(link.message)
    function = leaked.group("function") if leaked else None
    place = (ctx.place(leaked.group("file"), int(leaked.group("line")))
             if leaked and leaked.group("file") else None)
    suspects = _suspects(ctx, place, function) if function else []
    used = f"`{use.line.strip()}` at {use.label}" if use is not None else "This line"
    transform = _tracing.escaped_transform(link.message)
    if function is None:
        source = f"a function {_DOING.get(transform or '', 'JAX was tracing')}"
    else:
        where = f" ({place.label})" if place is not None else ""
        purpose = leaked.group("purpose") if leaked else "jit"
        source = f"{function}{where}, while it was traced for {purpose}"
    explanation = (f"{used} uses a traced value that was saved from inside {source}. The "
                   "trace is over, so that value no longer stands for anything.")
    notes = []
    if suspects:
        shown = "; ".join(f"{s.label}: `{s.line.strip()}`" for s in suspects)
        notes.append(f"{function} stores values outside itself here: {shown}. Return the "
                     "value instead (`return result, extra`) and use what the call returns.")
    else:
        notes.append("Return the value from the function instead of storing it in a list, "
                     "global or attribute, and use what the call returns.")
    if "type key<" in link.message:
        notes.insert(0, f"The escaped value is a PRNG key: {function or 'the function'} "
                        "splits a global key and stores the new one. Pass the key in and "
                        "return the new one (`def f(x, key): key, sub = "
                        "jax.random.split(key); ...; return y, key`), so every call draws "
                        "from a fresh key; a jitted function that reads a global key sees "
                        "the same key at every call.")
    notes.append("To stop at the line where a value escapes, run the call inside "
                  "`with jax.checking_leaks():`.")
    location = suspects[0] if len(suspects) == 1 else (place or use)
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=use,
                            notes=notes, why=_tracing.why_under(transform, WHY_UNDER, WHY))
