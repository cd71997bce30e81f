"""``jax.vmap`` or ``jax.grad`` reaching a ``pl.run_scoped`` call.

run_scoped has neither a batching rule nor a differentiation rule: a scratch allocation has
one fixed shape and its body works by side effects on references, so JAX can neither add a
batch dimension to it nor differentiate through it. There is no mechanical fix that keeps
the code's meaning, so this diagnosis explains the ways out and offers none.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import NO_FIX, Example, scoped_helper
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH107"
TITLE = "jax.vmap or jax.grad through run_scoped"
BATCHING = "Batching rule for 'run_scoped' not implemented"
DIFFERENTIATION = "Differentiation rule for 'run_scoped' not implemented"

_HELPER = scoped_helper("scaled")

_CUSTOM_VJP = '''\
@jax.custom_vjp
def scaled_with_vjp(x):
    return scaled(x)

def scaled_fwd(x):
    return scaled(x), None

def scaled_bwd(_, g):
    return (2 * g,)  # d(2x + 1)/dx, written by hand

scaled_with_vjp.defvjp(scaled_fwd, scaled_bwd)
'''

_MAPPED = "out = jax.jit(lambda xs: jax.lax.map(scaled, xs))(jnp.ones((4, 8, 128)))"
_GRAD = "g = jax.jit(jax.grad(lambda x: scaled_with_vjp(x).sum()))(jnp.ones((8, 128)))"

EXAMPLES = (
    Example(setup=(_HELPER,), failing="out = jax.jit(jax.vmap(scaled))(jnp.ones((4, 8, 128)))",
            fix=NO_FIX, check="bool((out == 3).all()) and out.shape == (4, 8, 128)",
            fixed=(_HELPER, _MAPPED)),
    Example(setup=(_HELPER,),
            failing="g = jax.jit(jax.grad(lambda x: scaled(x).sum()))(jnp.ones((8, 128)))",
            fix=NO_FIX, check="bool((g == 2).all())", fixed=(_HELPER, _CUSTOM_VJP, _GRAD)),
)

WHY_BATCHING = (
    "jax.vmap adds a batch dimension to every value it touches. run_scoped allocates scratch "
    "of one fixed shape and its body writes to it by side effect, so JAX has no rule to "
    "batch it."
)
WHY_DIFFERENTIATION = (
    "jax.grad needs a derivative rule for every operation on the path. run_scoped allocates "
    "scratch and its body works by side effects on references, so JAX has no rule to "
    "differentiate through it; kernels get their derivatives from you, through "
    "jax.custom_vjp."
)


TRIGGERS = (BATCHING, DIFFERENTIATION)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    batching = ctx.find(BATCHING) is not None
    if not batching and ctx.find(DIFFERENTIATION) is None:
        return None
    location = ctx.deepest_user_location()
    failing = ctx.failing_cell()
    where = _entry.at(location)
    if batching:
        explanation = (
            f"jax.vmap reached the pl.run_scoped(...) call{where} with a batched value. "
            "run_scoped cannot be vectorised."
        )
        notes = (
            "To get the same values one element at a time, map the helper in a loop: "
            "jax.lax.map(helper, xs) instead of jax.vmap(helper)(xs) (sequential, slower).",
            "To batch a Pallas kernel, vmap the pallas_call itself (it batches by adding a "
            "grid dimension; plgpu.kernel batches too), not a helper that allocates scratch, "
            "or write the helper for the whole batch with scratch that has the batch "
            "dimension.",
        )
        why = WHY_BATCHING
    else:
        explanation = (
            f"jax.grad (or jax.jvp / jax.vjp) reached the pl.run_scoped(...) call{where}. "
            "run_scoped cannot be differentiated automatically."
        )
        notes = (
            "Wrap the function that calls the kernel or helper in jax.custom_vjp and write "
            "its backward pass yourself (with plain jax.numpy or another kernel).",
            "To check the derivative, differentiate a plain jax.numpy reference version of "
            "the computation and compare.",
        )
        why = WHY_DIFFERENTIATION
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            notes=notes, why=why)
