"""``argnums`` that names a position past the arguments the call passes positionally
(``TypeError: differentiating with respect to argnums=2 requires at least 3 positional
arguments to be passed by the caller, but got only 2 positional arguments.``).

Positions count from 0, and only positional arguments count: an argument passed by keyword
cannot be differentiated with ``argnums``. The explanation lists what the call passes at
each position, in the user's names, and says which one a keyword argument would have been.
Where the keyword arguments are the function's next parameters, in any order (``grad(f)(x=3.0)``
for ``def f(x)``), passing them by position gives the function the same arguments, and
``argnums`` then counts them: the fix does that. Otherwise which argument was meant is the
user's, and there is no fix.

The call may be of the transformation's result on the line (``jax.grad(f)(x=3.0)``) or of a
name that holds it, or a ``functools.partial`` of it, called by keyword only
(``slope = partial(jax.grad(f), k=3.0)`` then ``slope(x=1.5)``): the signature is read from
the live function or partial, which runs no code.

Reports: jax-ml/jax#1696 (every argument passed by keyword through ``partial(grad(f))``,
which led to this message in jax-ml/jax#1697), jax-ml/jax#10630 (``argnums=-1``).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _positional, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH526"
TITLE = "argnums names a position past the positional arguments"
MESSAGE = "requires at least"
_MESSAGE_RE = re.compile(r"differentiating with respect to argnums=(?P<argnums>.+?) requires "
                         r"at least (?P<need>\d+) positional arguments")
TRIGGERS = ("differentiating with respect to argnums",)

_LOSS = "def loss(w, b, x):\n    return jnp.sum((w * x + b) ** 2)"

EXAMPLES = (
    # the keywords are loss's next parameters: passed by position, argnums=1 counts b
    corrected_cell((JAX_IMPORTS, _LOSS),
                   "g = jax.grad(loss, argnums=1)(jnp.ones(2), x=jnp.ones(2), b=0.5)",
                   "g = jax.grad(loss, argnums=1)(jnp.ones(2), 0.5, jnp.ones(2))",
                   "Pass the arguments by position", "float(g) == 6.0"),
    # w by keyword after nothing: the keyword is not the next parameter (b is missing)
    corrected_cell((JAX_IMPORTS, _LOSS),
                   "g = jax.grad(loss, argnums=2)(jnp.ones(2), x=jnp.ones(2))",
                   "g = jax.grad(loss, argnums=2)(jnp.ones(2), 0.5, jnp.ones(2))", NO_FIX,
                   "g.shape == (2,)"),
    # a partial of the gradient, held in a name and called by keyword only
    corrected_cell((JAX_IMPORTS, _LOSS, "from functools import partial\n"
                    "dw = partial(jax.grad(loss), b=0.5, x=jnp.ones(2))"),
                   "g = dw(w=jnp.ones(2))", "g = dw(jnp.ones(2))",
                   "Pass the arguments by position", "g.tolist() == [3.0, 3.0]"),
)

WHY = _entry.prose("""
argnums says which positional arguments jax.grad differentiates, counting from 0. An
argument passed by keyword is not positional, so argnums cannot name it: pass the arguments
you differentiate by position.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.find("differentiating with respect to argnums")
    found = _MESSAGE_RE.search(link.message) if link is not None else None
    if link is None or found is None:
        return None
    location = ctx.call_site()
    subject = _tracing.quoted_line(location, "Your code")
    passed: list[str] = []
    keywords: list[str] = []
    applied: ast.Call | None = None
    parsed = _tracing.parse(location.source) if location is not None else None
    if parsed is not None and location is not None:
        calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
                 and node.lineno <= location.lineno <= (node.end_lineno or 0)]
        # jax.grad(f)(...) on the line, else a call by keyword of a name that holds one
        applied = next((c for c in calls if isinstance(c.func, ast.Call)), None) or next(
            (c for c in calls if c.keywords and isinstance(c.func, ast.Name | ast.Attribute)
             and not c.args), None)
        if applied is not None:
            passed = [ast.unparse(a) for a in applied.args]
            keywords = [k.arg for k in applied.keywords if k.arg]
    argnums = found["argnums"]
    listed = ", ".join(f"{i}: `{text}`" for i, text in enumerate(passed)) or "none"
    explanation = (f"{subject} differentiates with respect to argnums={argnums}, but the call "
                   f"passes {len(passed)} positional argument{'s' if len(passed) != 1 else ''} "
                   f"({listed}).")
    notes = []
    fix = _positional_fix(ctx, location, applied, parsed[1]) \
        if applied is not None and location is not None and parsed is not None else None
    if keywords and fix is None:
        notes.append(f"{', '.join(keywords)} {'is' if len(keywords) == 1 else 'are'} passed "
                     "by keyword, which argnums cannot name: pass the arguments to "
                     "differentiate by position.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            fixes=(fix,) if fix is not None else (),
                            error=link.summary.splitlines()[0])


def _positional_fix(ctx: ErrorContext, location: Location, applied: ast.Call,
                    code: str) -> Fix | None:
    """The call with its keyword arguments passed by position (``_positional``), where
    they are exactly the function's parameters after the positional ones."""
    return _positional.keywords_fix(
        ctx, location, applied, code,
        safety=("Same values: the function gets the same arguments, now by position, where "
                "argnums counts them."))
