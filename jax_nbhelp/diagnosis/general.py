"""The general view (``JNH000``): what jax_nbhelp can say of any error JAX raised that no
catalog entry knows, without claiming a cause.

It says where the error came from in the user's code (the line that called into JAX, and
the user's line it was reached from), under which transformations that code ran (``jit >
vmap > grad``, read from the user's own lines: the calls and decorators that wrap the
failing code), what the failing line worked on (its names and simple expressions, with
shapes, dtypes and weak types, from the live frame: ``line_values``), and what JAX's own
message suggests (its "Tip:", "Use ...", "See https://..." parts, and the page of a
``jax.errors`` class). No fix, no guess at a cause.
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.core.protocol import is_top_level
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.line_values import parsed_source
from jax_nbhelp.diagnosis.names import dotted

CODE = "JNH000"
NAME = "general"

WHY = (
    "This is jax_nbhelp's general view: JAX raised the error, and no entry of jax_nbhelp's "
    "catalog knows its cause, so the card claims none. It shows where the error came from "
    "in your code, what that line worked on (the shapes and dtypes JAX saw), and what "
    "JAX's message itself suggests."
)

# The functions of JAX that transform the code they are given, by the names users call.
TRANSFORMS = frozenset({
    "jit", "pjit", "vmap", "pmap", "grad", "value_and_grad", "jacrev", "jacfwd", "jacobian",
    "hessian", "jvp", "vjp", "linearize", "scan", "fori_loop", "while_loop", "cond", "switch",
    "map", "associative_scan", "checkpoint", "remat", "shard_map", "pallas_call", "kernel",
    "custom_jvp", "custom_vjp", "checkify", "named_call", "eval_shape",
})
_HINT_RE = re.compile(r"((?:Tip|Hint|Note):[^\n]*|(?:^|(?<=[.!?] ))(?:Use|Try|Consider|"
                      r"Please use|Did you mean|Revise|If you)[^\n]*?(?:[.!?](?=\s|$)|$))",
                      re.M)
_URL_RE = re.compile(r"https?://[^\s)\"'<>]+[^\s)\"'<>.,;:]")
_ERRORS_PAGE = "https://docs.jax.dev/en/latest/errors.html#jax.errors."
_MAX_VALUES = 8


def _called(node: ast.AST) -> list[str]:
    """The transforms a statement calls, outermost first (``jax.jit(jax.vmap(f))(x)``:
    jit, vmap)."""
    found = []
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            name = (dotted(child.func) or "").rsplit(".", 1)[-1]
            if name in TRANSFORMS:
                found.append(name)
    return found


def _decorators(source: str, function: str, lineno: int) -> list[str]:
    """The transforms decorating ``function`` (the def whose body holds ``lineno``)."""
    found = parsed_source(source)
    if found is None:
        return []
    for node in ast.walk(found[0]):
        if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
                and node.lineno <= lineno <= (node.end_lineno or 0)):
            names = []
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = (dotted(target) or "").rsplit(".", 1)[-1]
                if name == "partial" and isinstance(decorator, ast.Call) and decorator.args:
                    name = (dotted(decorator.args[0]) or "").rsplit(".", 1)[-1]
                if name in TRANSFORMS:
                    names.append(name)
            return names
    return []


def _statement(source: str, lineno: int) -> ast.stmt | None:
    found = parsed_source(source)
    if found is None:
        return None
    best = None
    for node in ast.walk(found[0]):
        if isinstance(node, ast.stmt) and node.lineno <= lineno <= (node.end_lineno or 0) and (
                best is None or node.lineno >= best.lineno) and not isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            best = node
    return best


def transforms(link: Link) -> list[str]:
    """The transformations the failing code ran under, outermost first, read from the user's
    frames of ``link``: the transforms each line calls, and the decorators of each function
    the stack entered."""
    found: list[str] = []
    for frame in link.user_frames:
        location = frame.location
        if location is None or location.source is None:
            continue
        if not is_top_level(frame.function):
            found += _decorators(location.source, frame.function, location.lineno)
        statement = _statement(location.source, location.lineno)
        if statement is not None:
            found += _called(statement)
    return [name for index, name in enumerate(found) if index == 0 or found[index - 1] != name]


def hints(link: Link) -> list[str]:
    """What JAX's message suggests: its tips, "Use ..." sentences and links."""
    found: list[str] = []
    for match in _HINT_RE.finditer(link.message):
        text = match.group(0).strip().rstrip(")").strip()
        if text and text not in found and len(text) < 400:
            found.append(text)
    return found[:3]


def doc_url(ctx: ErrorContext) -> str | None:
    """The page of the error: a link in JAX's message, or that of a ``jax.errors`` class."""
    for link in ctx.chain:
        found = _URL_RE.search(link.message)
        if found is not None:
            return found.group(0)
    for link in ctx.chain:
        if link.module.startswith(("jax._src.errors", "jax.errors")):
            return _ERRORS_PAGE + link.type_name
    return None


def _raised(ctx: ErrorContext) -> Link:
    """The exception the user sees (JAX's stack before transformation is its cause, not it)."""
    return ctx.top


def diagnosis(ctx: ErrorContext) -> Diagnosis:
    """The general view of a JAX error no entry knows."""
    link = _raised(ctx)
    location = ctx.deepest_user_location()
    call_site = ctx.failing_cell()
    under = transforms(link)
    values = ctx.values_at(location)[:_MAX_VALUES]
    explanation = (f"JAX raised this {link.type_name}"
                   + (f" under {' > '.join(under)}" if under else "")
                   + "; no entry of jax_nbhelp's catalog knows it.")
    if location is not None:
        explanation += (f" It came from `{location.line.strip()}`{_at(location)}; the details "
                        "show what that line worked on.")
    notes = []
    if values:
        notes.append("On that line: " + "; ".join(f"`{v.text}` is {v.summary}"
                                                   for v in values) + ".")
    suggested = hints(link)
    if suggested:
        notes.append("JAX's message suggests: " + " ".join(suggested))
    page = doc_url(ctx)
    if page is not None:
        notes.append(f"JAX's page for it: {page}")
    return Diagnosis(
        code=CODE,
        name=NAME,
        title=f"{link.type_name} raised by JAX",
        explanation=explanation,
        why=WHY,
        error=link.summary.splitlines()[0] if link.summary else link.type_name,
        location=location,
        call_site=call_site if call_site != location else None,
        notes=tuple(notes),
        concerns_kernel=False,
        general=True,
        transforms=tuple(under),
        values=tuple((v.text, v.summary) for v in values),
        hints=tuple(suggested),
        doc_url=page,
    )


def _at(location: Location) -> str:
    return f" at {location.label}"
