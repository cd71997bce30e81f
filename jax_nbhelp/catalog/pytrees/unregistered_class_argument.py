"""An object of the user's own class passed to ``jax.jit``, ``jax.grad`` or ``jax.vmap``,
which JAX does not know how to take apart (``TypeError: Argument '<__main__.Params object at
0x...>' of type <class '__main__.Params'> is not a valid JAX type``; under jit: ``Error
interpreting argument to <function loss at 0x...> as an abstract array. The problematic
value is of type <class '__main__.Params'> ...``).

JAX transforms arrays and pytrees of arrays. Registering the class as a pytree
(``jax.tree_util.register_dataclass`` with its array fields as data and its settings as
meta fields, read from the live object, or for an object the line builds,
``Params(jnp.ones(2), 0.5)``, from what the line passes to it) lets every transformation see
through it; the fix is offered where ``__init__`` only stores its arguments (or the class is
a dataclass) and verified by running the call. Objects of libraries' classes are explained.

Reports: google/objax#260 (a ``TrainVar`` passed to the differentiated function),
BirkhoffG/jax-dataloader#2 (a DataLoader object passed to a jitted function),
jax-ml/jax#17753 (a function passed through ``custom_vjp``). JAX's docs teach it in
"Custom pytrees". An attribute bag (``__init__(self, **fields)`` that only stores its
keywords) is registered the same way: ``Cls(**fields)`` rebuilds it (jax-ml/jax#25760, on
registering classes from their instance's ``__dict__``).
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _jit_arguments, _pytree_class, _static_fix, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH542"
TITLE = "An object of a class JAX cannot take apart"
TRIGGERS = _jit_arguments.TRIGGERS

_PARAMS = ("class Params:\n    def __init__(self, w, b):\n        self.w = w\n"
           "        self.b = b\n\n"
           "def loss(p, x):\n    return jnp.sum((p.w * x + p.b) ** 2)\n\n"
           "params = Params(jnp.ones(2), jnp.float32(0.5))")
_REGISTERED = _PARAMS.replace(
    "\n\ndef loss", "\n\njax.tree_util.register_dataclass(Params, data_fields=['w', 'b'], "
    "meta_fields=[])\n\ndef loss")

_BUILT = "v = jax.jit(loss)(Params(jnp.ones(2), 0.5), jnp.ones(2))"
_DATACLASS = ("from dataclasses import dataclass\n\n@dataclass\nclass Affine:\n"
              "    w: jax.Array\n    b: jax.Array\n\n"
              "@jax.jit\ndef apply(p, x):\n    return p.w * x + p.b")

_MODEL = ("class Model:\n    def apply(self, x):\n        return jnp.tanh(x)\n\n"
          "def run(m, x):\n    return m.apply(x)\n\nfast = jax.jit(run)\nmodel = Model()")

_BAG = ("class State:\n    def __init__(self, **fields):\n        self.__dict__.update(fields)\n"
        "\n\n@jax.jit\ndef step(s):\n    return State(pos=s.pos + s.vel, vel=s.vel)\n\n"
        "start = State(pos=jnp.array([1.0]), vel=jnp.array([0.5]))")

EXAMPLES = (
    corrected(JAX_IMPORTS, _PARAMS, _REGISTERED, "g = jax.grad(loss)(params, jnp.ones(2))",
              "Register Params as a pytree", "g.w.tolist() == [3.0, 3.0] and float(g.b) == 6.0"),
    # built in the call: its fields are what the line passes to Params(...)
    corrected(JAX_IMPORTS, _PARAMS, _REGISTERED, _BUILT, "Register Params as a pytree",
              "float(v) == 4.5"),
    # a dataclass built in the call: its fields are its annotated ones, in order
    corrected(JAX_IMPORTS, _DATACLASS, _DATACLASS.replace(
        "\n\n@jax.jit", "\n\njax.tree_util.register_dataclass(Affine, data_fields=['w', 'b'], "
        "meta_fields=[])\n\n@jax.jit"),
        "y = apply(Affine(jnp.ones(2), jnp.zeros(2)), jnp.ones(2))",
        "Register Affine as a pytree", "y.tolist() == [1.0, 1.0]"),
    # an object with code and no arrays: a setting, made static where the function is jitted
    corrected(JAX_IMPORTS, _MODEL, _MODEL.replace("jax.jit(run)",
                                                  "jax.jit(run, static_argnames=(\"m\",))"),
              "y = fast(model, jnp.zeros(2))", "Make m static", "y.tolist() == [0.0, 0.0]"),
    # an attribute bag that stores whatever keywords it is given: rebuilt with Cls(**fields)
    corrected(JAX_IMPORTS, _BAG, _BAG.replace(
        "\n\n@jax.jit", "\njax.tree_util.register_dataclass(State, data_fields=['pos', 'vel'], "
        "meta_fields=[])\n\n@jax.jit"),
        "moved = step(start)", "Register State as a pytree", "moved.pos.tolist() == [1.5]"),
)

WHY = _entry.prose("""
jit, grad and vmap work on arrays and on pytrees of arrays: containers JAX knows how to take
apart into arrays and put back together (tuples, lists, dicts, and classes registered with
jax.tree_util). An object of your own class is opaque to JAX until its class is registered:
which fields are arrays to trace, which are settings.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    bad = _jit_arguments.bad_argument(ctx)
    if bad is None or bad.builtin or bad.is_method_self or \
            bad.type_name.startswith(("numpy.", "jax", "builtins.")):
        return None
    if bad.jit and bad.parameter is None:
        return None  # a leaf inside a pytree: JNH552 explains it
    location = ctx.call_site()
    subject = _tracing.quoted_line(location, "Your code")
    cls = bad.short_type
    line = location.line if location is not None else ""
    transform = "jax.jit" if bad.jit else next(
        (f"jax.{name}" for name in ("value_and_grad", "grad", "vmap", "jacrev", "jacfwd",
                                    "hessian", "pmap") if f"{name}(" in line),
        "the transformation")
    explanation = (f"{subject} passes a {cls} object to {transform}, and JAX does not know "
                   f"how to take a {cls} apart into arrays.")
    instance = _jit_arguments.passed_object(ctx, location, None, bad.type_name)
    user_class = bad.type_name.split(".", 1)[0] == "__main__"
    found = (_pytree_class.registration(ctx, location, instance, cls)
             if location is not None and user_class else
             f"{cls} is not a class of this notebook")
    static = _settings_object_fix(ctx, bad, location, instance) \
        if isinstance(found, str) else None
    if static is not None:  # nothing to trace in it: a setting, compared by hash
        return _entry.diagnosis(
            ctx, __name__, explanation + f" {instance} holds no arrays, so it is a setting "
            f"of {bad.function}, which jit can take as it is (static).", location=location,
            call_site=ctx.failing_cell(), fixes=(static,),
            error=bad.link.summary.splitlines()[0])
    return _pytree_class.registration_diagnosis(
        ctx, __name__, explanation, location, found,
        summary=("After class {name}, add `{statement}`, so JAX takes its objects apart into "
                 "arrays; then re-run."),
        safety=("Same values: the function runs as written; JAX now traces the object's "
                "arrays and rebuilds it from them (a gradient comes back as a {name})."),
        not_offered=(f"Register {cls} as a pytree (jax.tree_util.register_dataclass, or "
                     "register_pytree_node with your own flatten and unflatten), or pass its "
                     "arrays rather than the object ({why})."),
        error=bad.link.summary.splitlines()[0])


_SETTINGS = ("python", "none")  # field kinds that hold no array


def _settings_object_fix(ctx: ErrorContext, bad: _jit_arguments.BadArgument,
                         location: Location | None, instance: str | None) -> Fix | None:
    """static_argnames for an object that holds no arrays (a model's code, a config): its
    own ``__dict__`` holds only Python settings, and its class hashes (jit compares static
    values by hash). Read from the object's dict, never through its class's code
    (putting-nerf-on-a-diet PR 11)."""
    if not bad.jit or bad.parameter is None or bad.function is None or location is None \
            or instance is None:
        return None
    fields = ctx.fields_at(location, instance)
    frame = ctx.live_frame(location)
    value = frame.f_locals.get(instance, frame.f_globals.get(instance)) \
        if frame is not None else None
    if fields is None or any(v.kind not in _SETTINGS for v in fields.values()) \
            or getattr(type(value), "__hash__", None) is None:
        return None
    function = bad.function.rsplit(".", 1)[-1]
    if not function.isidentifier():
        return None
    return _static_fix.parameter_static_fix(ctx, function, bad.parameter, location)
