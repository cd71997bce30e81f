"""``pl.run_scoped`` executed eagerly, outside ``jax.jit`` and outside a kernel.

run_scoped only exists inside traced code: it has no eager implementation. The usual cause
is calling a kernel helper directly in a cell to try it out.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import Example, scoped_helper
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH102"
TITLE = "run_scoped called outside jax.jit"
MESSAGE = "Evaluation rule for 'run_scoped' not implemented"

_HELPER = scoped_helper("doubled", plus_one=False)

EXAMPLES = (
    Example(setup=(_HELPER,), failing="out = doubled(jnp.ones((8, 128)))",
            fix="Call it under jax.jit", check="bool((out == 2).all())",
            fixed=(_HELPER, "out = jax.jit(doubled)(jnp.ones((8, 128)))")),
)

WHY = _entry.prose("""
run_scoped allocates scratch memory for the duration of a traced computation; it has no
eager (op-by-op) implementation. It runs inside a Pallas kernel, or under jax.jit, where XLA
allocates the scratch buffer for you.
""")


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    failing = ctx.failing_cell()
    helper = ctx.frame_after(failing) if failing is not None else None
    where = _entry.at(location)
    explanation = (
        f"The pl.run_scoped(...) call{where} ran eagerly, one operation at a time, "
        "outside jax.jit and outside any kernel."
    )
    fixes: tuple[Fix, ...] = ()
    notes: tuple[str, ...] = ()
    if helper is not None and failing is not None:
        jit = f"{ctx.alias('jax')}.jit" if ctx.alias("jax") else None
        callee = helper.function

        def transform(source: str) -> str:
            from jax_nbhelp.rewrite import CannotRewrite, wrap_call_in_jit

            if jit is None:
                raise CannotRewrite("jax is not imported in this notebook: run `import jax` first")
            assert failing is not None
            return wrap_call_in_jit(source, failing.lineno, callee, jit)

        fixes = (
            rewrite_fix(
                ctx,
                failing,
                transform,
                label="Call it under jax.jit",
                summary=f"Call {callee} through jax.jit in {failing.label.split(',')[0]}.",
                safety=(
                    "Same values: jit traces the helper and compiles it. Python side effects "
                    "in it (print, appending to a list) run once, while tracing."
                ),
                safe=True,
            ),
        )
    else:
        notes = (
            "Put the code that calls pl.run_scoped in a function and call "
            "jax.jit(that_function)(...), or call it from inside a Pallas kernel.",
        )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=fixes, notes=notes)
