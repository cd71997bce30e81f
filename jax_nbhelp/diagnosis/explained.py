"""The explained view (``JNH001``): any error JAX raised, explained by JAX's own check.

No catalog entry knows the error, but JAX's code says what it checked before it raised
(``jax_check``) and the user's line says which JAX function it called with what
(``user_call``). The card puts the two together: the function as the user spelled it, the
check as JAX wrote it with the values it read, and the user's arguments bound to the
function's parameters, the ones the check read marked, with their lines from JAX's
docstring and the function's page. It states nothing it did not read from JAX's code or
frames. Its fixes are the catalog's (the fix layer builds and verifies them): the engine
hands the card to ``catalog/_contract.py``, which offers a change of the call that JAX's
contract admits and that keeps every value (a whole number held as a float where JAX
needs an integer); a keyword close to exactly one parameter's name is an entry's (JNH210).

Where neither a check nor a call can be read (an error from XLA's C++ under a line that
calls no JAX function by name), the general view (``general.py``) stays.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from jax_nbhelp.core.model import Binding, BoundArgument, Check, Diagnosis, Location
from jax_nbhelp.diagnosis import jax_check, user_call
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.general import doc_url as _message_page
from jax_nbhelp.diagnosis.general import hints, transforms
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator

CODE = "JNH001"
NAME = "explained"

WHY = (
    "jax_nbhelp read this from JAX's own source and frames: the condition JAX checked "
    "before it raised, the values that check read, and your call bound to the function's "
    "parameters. No catalog entry was written for this error, so the card claims nothing "
    "beyond what that check and your call show."
)

_MAX_SHOWN = 3  # values named in the cause sentence


@dataclass(frozen=True)
class Reading:
    """What was read for an error: the check, the user's call bound, and how to name it."""

    check: Check | None
    binding: Binding | None
    label: str  # the function as the user spelled it, in backticks: "`jax.random.bits`"
    location: Location | None
    call: user_call.UserCall | None
    # the operation of JAX's own that failed inside the function called, where one did
    inside: user_call.Inside | None = None


def read(ctx: ErrorContext) -> Reading | None:
    """The check and the binding for ``ctx``'s error; None when neither can be read."""
    exc = ctx.exception
    if exc is None:
        return None
    raised = jax_check.raised_at(exc)
    call = ctx.user_call  # read once per error: the operation entries asked for it too
    found = _binding(ctx, call, raised) if call is not None else None
    binding, inside = found if found is not None else (None, None)
    check = raised.check if raised is not None else None
    bound = binding is not None and bool(binding.signature or binding.arguments
                                         or binding.mismatch)
    if not bound and (check is None or check.kind in ("call", "raise", "except")):
        return None  # no call bound, and no condition of JAX's: nothing to explain by
    label = "JAX" if call is None else f"`{_shortened(ast.unparse(call.node))}`" if (
        call.operator is not None) else f"`{call.spelled}`"
    location = (call.location if call is not None and call.location is not None
                else ctx.deepest_user_location())
    return Reading(check, binding, label, location, call, inside)


def _binding(ctx: ErrorContext, call: user_call.UserCall, raised: jax_check.RaisedAt | None
             ) -> tuple[Binding, user_call.Inside | None]:
    """The call bound to the function's signature, and where inside it the failing
    operation ran (an operation of the function's own, on values no parameter flowed into
    by name)."""
    if call.operator is not None:
        return _operator_binding(call), None
    signature, bound, mismatch = user_call.bind(call)
    public = user_call.public_name(call, ctx.module_aliases)
    url = user_call.doc_url(public, call.function)
    if signature is None:
        return Binding(call.spelled, public, "", (), url), None
    form = user_call.call_form(call.name, signature)
    if mismatch is not None:
        return Binding(call.spelled, public, form, (), url,
                       mismatch=user_call.mismatch_sentence(call, signature, mismatch)), None
    if bound is None:
        return Binding(call.spelled, public, form, (), url), None
    read = user_call.read_parameters(call, raised, signature) if raised is not None else set()
    docs = user_call.parameter_docs(call.function)
    shapes = user_call.shapes_named(ctx.top.message)
    for part in raised.check.parts if raised is not None else ():
        shapes |= user_call.shapes_named(part.value)
    arguments = user_call.bound_arguments(call, signature, bound, read, docs, shapes)
    inside = user_call.inside(call, raised) if raised is not None and not read else None
    return (Binding(call.spelled, public, form, arguments, url,
                    inside=inside.text if inside is not None else ""), inside)


def _operator_binding(call: user_call.UserCall) -> Binding:
    """An operator's operands, as written, with what they held."""
    evaluate = Evaluator(call.frame)
    node = call.node
    operands: list[tuple[str, ast.expr]] = []
    if isinstance(node, ast.BinOp):
        operands = [("left", node.left), ("right", node.right)]
    elif isinstance(node, ast.Compare):
        operands = [("left", node.left), ("right", node.comparators[0])]
    elif isinstance(node, ast.UnaryOp):
        operands = [("operand", node.operand)]
    elif isinstance(node, ast.Subscript):
        operands = [("array", node.value), ("index", node.slice)]
    arguments = []
    for name, operand in operands:
        value = evaluate(operand)
        arguments.append(BoundArgument(name, ast.unparse(operand),
                                       jax_check.summary(value) if value is not CANNOT else "?"))
    return Binding(call.spelled, "", "", tuple(arguments))


# -- the card -------------------------------------------------------------------------------

def diagnosis(ctx: ErrorContext) -> Diagnosis | None:
    """The explained view of a JAX error no entry knows, or None (the general view)."""
    reading = read(ctx)
    if reading is None:
        return None
    link = ctx.top
    check, binding = reading.check, reading.binding
    title, cause = _title_and_cause(reading, link.type_name)
    if binding is not None and binding.mismatch is not None:
        check = None  # Python's binding failed before any check of JAX's ran
    explanation = " ".join(part for part in (cause, _where(check), _bound_sentence(binding))
                           if part)
    notes = _notes(reading)
    suggested = hints(link)
    if suggested:
        notes.append("JAX's message suggests: " + " ".join(suggested))
    page = (binding.url if binding is not None and binding.url else None) or _message_page(ctx)
    if page is not None:
        notes.append(f"JAX's page for it: {page}")
    location = reading.location
    call_site = ctx.failing_cell()
    return Diagnosis(
        code=CODE, name=NAME, title=title, explanation=explanation, why=WHY,
        error=link.summary.splitlines()[0] if link.summary else link.type_name,
        location=location, call_site=call_site if call_site != location else None,
        notes=tuple(notes), transforms=tuple(transforms(link)), hints=tuple(suggested),
        doc_url=page, check=check, binding=binding, explained=True,
    )


def _title_and_cause(reading: Reading, error: str) -> tuple[str, str]:
    """The title (plain text: a card shows it as it is) and the cause's sentence."""
    title, cause = _said(reading, error)
    return title.replace("`", ""), cause


def _said(reading: Reading, error: str) -> tuple[str, str]:
    check, binding, label = reading.check, reading.binding, reading.label
    if binding is not None and binding.mismatch is not None:
        return (f"{label} does not take these arguments",
                f"Your call does not fit {label}: {binding.mismatch} Its parameters: "
                f"`{binding.signature}`.")
    read = binding.read if binding is not None else ()
    inside = reading.inside
    if inside is not None:
        title = f"{label} failed inside, in its own `{inside.operation}`"
        where = f" (in `{inside.function}`, {inside.file})" if inside.function else ""
        cause = (f"The error came from inside {label}, in its own `{inside.operation}`"
                 f"{where}, not from an operation your line wrote")
        documented = [argument for argument in read if argument.doc][:1]
        for argument in documented:  # what the function requires of the argument
            yours = (f" (your `{argument.expression}`{_value_of(argument, ', ')})"
                     if argument.expression not in (None, argument.parameter) else "")
            cause += (f": JAX documents `{argument.parameter}`{yours} as "
                      f"\u201c{requirement_of(argument.doc)}\u201d")
        if not documented:
            cause += _passed(read, "it reached there from your")
        return title, cause + "."
    passed = [argument for argument in read if not argument.default]  # the user's own
    if passed:
        noun = "argument" if len(passed) == 1 else "arguments"
        title = f"{label} rejected its {noun} " + ", ".join(
            f"`{argument.parameter}`" for argument in passed)
    else:
        title = f"{label} raised {_article(error)} {error}"
    if check is None or check.kind in ("call", "except"):
        return title, f"{label} raised this {error} from JAX's own code{_passed(read)}."
    if check.kind == "try":
        return title, (f"{label} raised this {error} where JAX tried "
                       f"`{_shortened(check.condition, 120)}` and it failed"
                       f"{_values_clause(check)}{_passed(read)}.")
    if check.kind == "raise":
        return title, (f"{label} raised this {error} whenever it reaches "
                       f"`{check.function}`{_passed(read)}.")
    values = _values_clause(check)
    if check.requirement is not None:
        return title, f"{label} requires `{check.requirement}`{values}{_passed(read)}."
    return title, (f"{label} raised it because `{_shortened(check.condition, 120)}` held"
                   f"{values}{_passed(read)}.")


_REQUIRES = re.compile(r"\b(?:[Mm]ust|[Ss]hould|[Rr]equired?)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])")


def requirement_of(doc: str) -> str:
    """The sentence of a parameter's docstring line that says what it must be (``Must have
    shape `(..., N, N)`.``), else the line itself."""
    found = next((sentence for sentence in _SENTENCE_END.split(doc)
                  if _REQUIRES.search(sentence)), doc)
    return found.strip().rstrip(".")


def _shortened(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _values_clause(check: Check) -> str:
    """``; here `devices.ndim` is 1 and `len(axis_names)` is 2``."""
    read = [part for part in check.parts if not part.implied]
    # the most derived values: `devices.ndim` says more than `devices`
    parts = [part for part in read if not any(
        other is not part and _derived_from(other.text, part.text) for other in read)]
    parts = parts[:_MAX_SHOWN]
    implied = [part for part in check.parts if part.implied]
    said = [f"`{part.text}` is {part.value}" for part in parts]
    if not said and implied:
        said = [f"`{part.text}` is {part.value}" for part in implied[:1]]
    if not said:
        return ""
    joined = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f", and here {joined}"


def _derived_from(text: str, base: str) -> bool:
    return text.startswith((f"{base}.", f"{base}[")) or f"({base})" in text


def _passed(read: tuple[BoundArgument, ...], lead: str = "from your") -> str:
    given = [argument for argument in read if argument.expression is not None]
    if not given:
        return ""
    shown = ", ".join((f"`{argument.parameter}={argument.expression}`"
                       if argument.expression != argument.parameter
                       else f"`{argument.parameter}`") + _value_of(argument)
                      for argument in given)
    return f" ({lead} {shown})" if lead == "from your" else f"; {lead} {shown}"


def _value_of(argument: BoundArgument, form: str = " (") -> str:
    """An array argument's summary: `` (float32[2, 3])``, or ``, float32[2, 3]``."""
    if argument.value in ("?", argument.expression) or "[" not in argument.value:
        return ""
    return f"{form}{argument.value})" if form == " (" else f"{form}{argument.value}"


def _where(check: Check | None) -> str:
    if check is None or (check.kind == "call" and not check.condition):
        return ""
    asked = ""
    if check.asked_by:
        asker = check.asked_by.split(":", 1)[0]
        asked = f", asked by `{asker}`"
    return f"JAX checked it in `{check.function}` ({check.file}, line {check.line}){asked}."


def _bound_sentence(binding: Binding | None) -> str:
    if binding is None or not binding.arguments or binding.mismatch is not None:
        return ""
    given = [argument for argument in binding.arguments if argument.expression is not None]
    if not given:
        return ""
    if not binding.signature:  # an operator
        known = [a for a in given if a.value not in ("?", a.expression)]
        shown = " and ".join(f"`{a.expression}` is {a.value}" for a in known)
        return f"The operands: {shown}." if shown else ""
    shown = "; ".join(f"`{a.parameter}` = `{a.expression}`" + (
        f" ({a.value})" if a.value not in ("?", a.expression) else "") for a in given[:4])
    return f"Your call gives {shown}."


def _notes(reading: Reading) -> list[str]:
    notes: list[str] = []
    check, binding = reading.check, reading.binding
    if check is not None and check.kind not in ("call", "raise") and check.parts:
        values = "; ".join(f"`{part.text}` is {part.value}" +
                           (" (as the raise implies)" if part.implied else "")
                           for part in check.parts)
        notes.append(f"JAX's check: `{check.condition}`, in `{check.function}` "
                     f"({check.file}, line {check.line}). Its values: {values}.")
    if binding is not None and binding.signature and binding.mismatch is None:
        defaults = [a for a in binding.arguments if a.expression is None]
        line = f"Your call, bound to `{binding.signature}`"
        if defaults:
            line += "; left at their defaults: " + ", ".join(
                f"`{a.parameter}` ({a.value})" for a in defaults[:6])
        notes.append(line + ".")
    if binding is not None and reading.inside is None:  # (inside: the cause quotes it)
        documented = [a for a in binding.read if a.doc]
        for argument in documented[:2]:
            notes.append(f"JAX documents `{argument.parameter}` as: {argument.doc}")
    return notes
