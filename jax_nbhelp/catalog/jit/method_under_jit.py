"""``@jax.jit`` on a method: jit sees ``self`` as an argument and cannot trace it
(``TypeError: Error interpreting argument to <function Layer.apply at 0x...> as an abstract
array. The problematic value is of type <class '__main__.Layer'> and was passed to the
function at path self.``).

JAX's own hint, ``static_argnums=0``, is a trap here: a static ``self`` is hashed by identity,
so arrays in it become constants of the compiled function and a later change to its fields
is not seen (the cached compilation keeps the old values). The lasting fix makes the class
a pytree: ``jax.tree_util.register_dataclass(Layer, data_fields=[...], meta_fields=[...])``,
with its array fields traced and its settings static, read from the live ``self``. It is
offered where ``__init__`` only stores its arguments (or the class is a dataclass), so JAX
can rebuild the object from its fields; it is verified by running the call, and a later
change to the object's arrays is seen by the next call.

Reports: jax-ml/jax#5595 (``@jit`` on an instance method; ``static_argnums=0`` suggested),
jax-ml/jax#15115 (a jitted method of an optimizer class), jax-ml/jax#15727 (``@jax.jit``
under ``@classmethod``), jax-ml/jax#11904 (``checkify`` on a method). JAX's docs teach it in
the "Sharp bits" notebook and the 201 jit tutorial.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _jit_arguments, _pytree_class, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH551"
TITLE = "@jax.jit on a method: self is not an array"
TRIGGERS = (_jit_arguments.JIT,)

_SCALER = ("class Scaler:\n    def __init__(self, factor, enabled):\n"
           "        self.factor = factor\n        self.enabled = enabled\n\n"
           "    @jax.jit\n    def apply(self, x):\n        if self.enabled:\n"
           "            return self.factor * x\n        return x")
_REGISTERED = _SCALER + ("\n\njax.tree_util.register_dataclass(Scaler, "
                         "data_fields=['factor'], meta_fields=['enabled'])")
_CACHE = ("class Cache:\n    def __init__(self):\n        self.table = jnp.ones(3)\n\n"
          "    @jax.jit\n    def lookup(self, i):\n        return self.table[i]")

EXAMPLES = (
    corrected(JAX_IMPORTS, _SCALER + "\n\nscaler = Scaler(jnp.float32(2.0), True)",
              _REGISTERED + "\n\nscaler = Scaler(jnp.float32(2.0), True)",
              "out = scaler.apply(jnp.arange(3.0))", "Register Scaler as a pytree",
              "out.tolist() == [0.0, 2.0, 4.0]"),
    # __init__ computes its field: JAX could not rebuild the object from it.
    corrected(JAX_IMPORTS, _CACHE + "\n\ncache = Cache()",
              _CACHE.replace("    @jax.jit\n", "") + "\n\ncache = Cache()",
              "value = cache.lookup(1)", NO_FIX, "float(value) == 1.0"),
)

WHY = _entry.prose("""
jax.jit traces its arguments: arrays, and pytrees (containers) of arrays. On a method, self
is an argument too, and an object of your class is neither, unless JAX is told how to take
it apart: register the class as a pytree (its arrays traced, its settings static). Marking
self static instead (static_argnums=0) hashes the object by identity: its arrays are baked
into the compiled function, and later changes to them are not seen.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    bad = _jit_arguments.bad_argument(ctx)
    if bad is None or not bad.is_method_self or bad.function is None:
        return None
    cls, method = bad.function.rsplit(".", 2)[-2:]
    location = ctx.call_site()
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} calls {cls}.{method}, which is decorated with @jax.jit: jit "
                   f"receives self, a {bad.short_type} object, and traces only arrays and "
                   "pytrees of arrays.")
    static = (f"JAX's message suggests static_argnums: that makes self static, hashed by "
              f"identity, so arrays in it are baked into the compiled {method} and later "
              f"changes to them are not seen. Registering {cls} as a pytree has neither "
              "problem.")
    instance = _jit_arguments.passed_object(ctx, location, method, bad.type_name)
    found = (_pytree_class.registration(ctx, location, instance, cls)
             if location is not None else
             "jax_nbhelp could not find the object on the calling line")
    return _pytree_class.registration_diagnosis(
        ctx, __name__, explanation, location, found, notes=(static,),
        summary=("After class {name}, add `{statement}`: jit then traces its arrays ({data}) "
                 "and keeps its settings ({meta}) static; then re-run."),
        safety=("Same values: the method runs as written, on the object's current fields; a "
                "new value of a setting ({meta}) compiles it again."),
        not_offered=("A pytree registration is not offered: {why}. Another way out: take "
                     "@jax.jit off the method and jit a function of arrays instead, which "
                     "the method calls with the object's arrays."),
        error=bad.link.summary.splitlines()[0])
