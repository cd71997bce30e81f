"""A ``jax.random`` function given a batch of keys where it takes one key.

``jax.random.normal(keys, (3,))`` with ``keys = jax.random.split(key, 4)`` raises
``ValueError: normal accepts a single key, but was given a key array of shape (4,) != ().
Use jax.vmap for batching.`` (raw ``uint32[2]`` keys from ``PRNGKey`` read ``(4, 2)``). The
user meant one draw per key; ``jax.vmap`` over the keys makes exactly those draws.

The shape a sampler asks for is read from the line (a literal) or from its live values
(``state["x"].shape``); a shape jax_nbhelp cannot read leaves the per-key fix unclaimed
(one draw of that shape per key has one more axis than the shape). ``split`` of a batch
whose result is unpacked (``key, sub = jax.random.split(keys)``) is mapped with
``out_axes=1``: each name then holds one new key per key of the batch, as unpacking one
key's split gives one key per name.

Reports: jax-ml/jax#19376 (``normal(split(key, 8), shape)`` gave an inscrutable error, then
this message), google/flax#4355 (an ``nnx.vmap`` documentation example ending in "Use jax.vmap
for batching"), numpyro's vectorized chains and brax's environment reset ("split accepts a
single key, but was given a key array of shape (100, 2)").
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _scopes, _tracing
from jax_nbhelp.catalog._example import Example
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH402"
TITLE = "A batch of PRNG keys where one key is expected"
MESSAGE = "accepts a single key, but was given a key array of shape"

_MESSAGE_RE = re.compile(r"(?P<function>\w+) accepts a single key, but was given a key array "
                         r"of shape \((?P<shape>[^)]*)\)")

_KEYS = "key = jax.random.key(0)\nkeys = jax.random.split(key, 4)"
_RAW_KEYS = "keys = jax.random.split(jax.random.PRNGKey(0), 4)"

_WALK = '''\
def walk(keys, x):
    keys, step = jax.random.split(keys)
    x = x + jax.random.normal(step, shape=x.shape)
    return keys, x'''

EXAMPLES = (
    Example(
        setup=(_KEYS,),
        failing="noise = jax.random.normal(keys, (3,))",
        fix="Draw once per key with jax.vmap",
        check=("noise.shape == (4, 3) and "
               "bool((noise[2] == jax.random.normal(keys[2], (3,))).all())"),
        fixed=("import jax\n" + _KEYS,
               "noise = jax.vmap(lambda key: jax.random.normal(key, (3,)))(keys)"),
    ),
    # As many keys as the values asked for: one value per key is the shape the call asked.
    Example(
        setup=(_KEYS,),
        failing="noise = jax.random.normal(keys, shape=(4,))",
        fix="Draw one value per key",
        check=("noise.shape == (4,) and "
               "float(noise[1]) == float(jax.random.normal(keys[1]))"),
        fixed=("import jax\n" + _KEYS,
               "noise = jax.vmap(lambda key: jax.random.normal(key, shape=()))(keys)"),
    ),
    # Raw uint32[2] keys (jax.random.PRNGKey): the batch reads (4, 2).
    Example(
        setup=(_RAW_KEYS,),
        failing="u = jax.random.uniform(keys, minval=-1.0)",
        fix="Draw once per key with jax.vmap",
        check="u.shape == (4,) and float(u[0]) == float(jax.random.uniform(keys[0], minval=-1.0))",
        fixed=("import jax\n" + _RAW_KEYS,
               "u = jax.vmap(lambda key: jax.random.uniform(key, minval=-1.0))(keys)"),
    ),
    # The shape is another array's, read from the line's live values: one value per key.
    Example(
        setup=(_KEYS, "import jax.numpy as jnp\nlevels = jnp.zeros(4)"),
        failing="levels = levels + jax.random.normal(keys, levels.shape)",
        fix="Draw one value per key",
        check=("levels.shape == (4,) and "
               "float(levels[3]) == float(jax.random.normal(keys[3]))"),
        fixed=("import jax\n" + _KEYS, "import jax.numpy as jnp\nlevels = jnp.zeros(4)",
               "levels = levels + jax.vmap(lambda key: jax.random.normal(key, ()))(keys)"),
    ),
    # The shape from a variable, and from another array's shape: read where the sampler got
    # it, so one value per key is offered as for a literal.
    Example(
        setup=(_KEYS, "n = 4"),
        failing="noise = jax.random.normal(keys, (n,))",
        fix="Draw one value per key",
        check="noise.shape == (4,) and float(noise[0]) == float(jax.random.normal(keys[0]))",
        fixed=("import jax\n" + _KEYS,
               "noise = jax.vmap(lambda key: jax.random.normal(key, ()))(keys)"),
    ),
    Example(
        setup=(_KEYS, "import jax.numpy as jnp\nweights = jnp.zeros((4, 3))"),
        failing="u = jax.random.uniform(keys, weights.shape[:1])",
        fix="Draw one value per key",
        check="u.shape == (4,) and float(u[2]) == float(jax.random.uniform(keys[2]))",
        fixed=("import jax\n" + _KEYS,
               "u = jax.vmap(lambda key: jax.random.uniform(key, ()))(keys)"),
    ),
    # A batch of keys split and unpacked: each name gets one new key per key.
    Example(
        setup=(_RAW_KEYS,),
        failing="keys, subs = jax.random.split(keys)",
        fix="Split each key with jax.vmap",
        check=("keys.shape == (4, 2) and subs.shape == (4, 2) and bool((subs[1] == "
               "jax.random.split(jax.random.split(jax.random.PRNGKey(0), 4)[1])[1]).all())"),
        fixed=("import jax\n" + _RAW_KEYS,
               "keys, subs = jax.vmap(lambda key: jax.random.split(key), out_axes=1)(keys)"),
    ),
    # ... and a sampler given one of the new batches for one value per key, further down the
    # same function, draws one value per key in the same fix (its shape read in the frame).
    Example(
        setup=("import jax, jax.numpy as jnp\n" + _RAW_KEYS, _WALK),
        failing="keys, x = walk(keys, jnp.zeros(4))",
        fix="Split each key with jax.vmap",
        check="keys.shape == (4, 2) and x.shape == (4,) and len(set(x.tolist())) == 4",
        fixed=("import jax, jax.numpy as jnp\n" + _RAW_KEYS, _WALK.replace(
            "jax.random.split(keys)", "jax.vmap(lambda key: jax.random.split(key), "
            "out_axes=1)(keys)").replace("jax.random.normal(step, shape=x.shape)",
                                         "jax.vmap(lambda key: jax.random.normal(key, "
                                         "shape=()))(step)"),
               "keys, x = walk(keys, jnp.zeros(4))"),
    ),
)

WHY = _entry.prose("""
A PRNG key is the seed of one draw: every jax.random function takes exactly one key and
returns one sample of the shape you ask for. A batch of keys (from jax.random.split) stands
for several independent draws, and jax.vmap is how one function is applied to each of them.
""")


def _batch_axes(shape: str) -> int | None:
    """How many batch axes the key array has: typed keys have shape (), raw ones (2,)."""
    try:
        dims = [int(part) for part in shape.replace(" ", "").split(",") if part]
    except ValueError:
        return None
    if len(dims) == 1:
        return 1
    if len(dims) == 2 and dims[-1] == 2:
        return 1  # a batch of raw uint32[2] keys (or typed keys two deep: the re-run tells)
    return len(dims)


MATCH = Match(MESSAGE, pattern=_MESSAGE_RE)


# functions that make a key from a key: a batch in gives a batch out, which the code's next
# draw refuses (google/flax#511: a split pair passed where one dropout key goes)
_MAKES_KEYS = ("fold_in", "clone")


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    function, shape = found.group("function"), found.group("shape").strip()
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A line")
    shown = f"({shape})"
    explanation = (f"{subject} passes {function} a batch of keys (a key array of shape "
                   f"{shown}), and jax.random functions take one key and draw with it.")
    notes = [f"If you wanted a single bigger draw rather than one per key, pass one key and "
             f"the whole shape: jax.random.{function}(key, (n, ...)) (other numbers, equally "
             "random)."]
    fixes: tuple[Fix, ...] = ()
    if _batch_axes(shape) == 1 and location is not None and function == "split":
        fixes = (_split_fix(ctx, location, _batch_size(shape), _unpacked(location, function)),)
    elif function in _MAKES_KEYS:
        notes.insert(0, f"{function} makes a key from one key: mapped over the batch it would "
                        "make a batch of keys, which the code's next jax.random call would "
                        "refuse in turn. Pass the one key meant here.")
    elif _batch_axes(shape) == 1 and location is not None:
        keys = _batch_size(shape)
        asked = _asked_shape(ctx, location, function)
        if keys is not None and asked is not None and asked == (keys,):
            # The batch is as long as the shape asked for: one value per key gives it.
            fixes = (_one_value_fix(ctx, location, function, keys),
                     _per_key_fix(ctx, location, function, keys, asked))
        else:
            fixes = (_per_key_fix(ctx, location, function, keys, asked),)
    else:
        notes.append(f"The keys have several batch axes: map over each, "
                     f"jax.vmap(jax.vmap(lambda key: jax.random.{function}(key, ...)))(keys), "
                     "or reshape them to one axis first.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.splitlines()[0])


def _batch_size(shape: str) -> int | None:
    """How many keys the batch holds (its first dimension)."""
    first = shape.replace(" ", "").split(",")[0]
    return int(first) if first.isdigit() else None


# the samplers whose second positional parameter is the shape of the draw
_SHAPE_SECOND = frozenset({"bits", "cauchy", "exponential", "gumbel", "laplace", "logistic",
                           "maxwell", "normal", "rademacher", "randint", "uniform"})
_UNKNOWN = "unknown"  # the call passes a shape jax_nbhelp cannot read


def _call_on_line(location: Location, function: str) -> tuple[ast.Module, ast.Call] | None:
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    calls = [node for node in ast.walk(parsed[0])
             if isinstance(node, ast.Call) and node.lineno <= location.lineno
             <= (node.end_lineno or 0) and _tracing.names_function(node.func, function)]
    return (parsed[0], calls[0]) if len(calls) == 1 else None


def _asked_shape(ctx: ErrorContext, location: Location,
                 function: str) -> tuple[int, ...] | str | None:
    """The shape the sampler call asks for: a literal on the line, or ``x.shape`` read from
    the line's live values; None when it passes none, ``_UNKNOWN`` when it passes one that
    cannot be read."""
    found = _call_on_line(location, function)
    if found is None:
        return None
    _, node = found
    second = node.args[1] if len(node.args) > 1 and function in _SHAPE_SECOND else None
    given = next((k.value for k in node.keywords if k.arg == "shape"), second)
    if given is None:
        return None
    if isinstance(given, ast.Attribute) and given.attr == "shape":
        held = {value.text: value for value in ctx.values_at(location)}.get(
            ast.unparse(given.value))
        if held is not None and held.shape is not None:
            return held.shape
    try:
        value = ast.literal_eval(given)
    except ValueError:
        value = _received_shape(ctx, function)
    if isinstance(value, int):
        return (value,)
    if isinstance(value, tuple) and all(isinstance(d, int) for d in value):
        return value
    return _UNKNOWN


def _received_shape(ctx: ErrorContext, function: str) -> object:
    """The ``shape`` the sampler received (``(n,)`` from a variable, ``x.shape[:1]``), read
    from its frame where the user's call entered it; ``_UNKNOWN`` where that cannot be read.
    Reading a local of JAX's frame runs no code."""
    call = ctx.user_call
    if call is None or call.api is None or call.name != function:
        return _UNKNOWN
    shape = call.frames[call.api].f_locals.get("shape", _UNKNOWN)
    return tuple(shape) if type(shape) in (tuple, list) else shape


def _unpacked(location: Location, function: str) -> int | None:
    """How many names the call's result is unpacked into (``key, sub = split(keys)``)."""
    found = _call_on_line(location, function)
    if found is None:
        return None
    tree, call = found
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.value is call and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Tuple | ast.List):
            return len(node.targets[0].elts)
    return None


def _per_key_fix(ctx: ErrorContext, location: Location, function: str, keys: int | None,
                 asked: tuple[int, ...] | str | None) -> Fix:
    jax = ctx.alias("jax") or "jax"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.vmap_over_keys import vmap_over_keys

        return vmap_over_keys(source, location.lineno, function, jax)

    safety = ("One draw per key, stacked along a new first axis: entry i is exactly what "
              f"{function} returns for keys[i] alone.")
    changes = None
    if asked == _UNKNOWN:
        safety += (" Each draw has the shape the call asks for, so the result has one more "
                   "axis (the keys) than that shape.")
    elif keys is not None and isinstance(asked, tuple):
        result = (keys, *asked)
        safety += (f" The result has shape {result}, not the {asked} the call asks for: "
                   f"{keys} draws of shape {asked}.")
        target = _target(location, function)
        changes = (f"{f'`{target}`' if target else 'the result'} has shape {result}; the "
                   f"call asked for {asked}")
    return rewrite_fix(
        ctx, location, transform,
        label="Draw once per key with jax.vmap",
        summary=(f"Map {function} over the keys with {jax}.vmap, so each key makes its own "
                 "draw; then re-run."),
        safety=safety,
        safe=asked is None or (keys is None and asked != _UNKNOWN),
        changes=changes,
    )


def _target(location: Location, function: str) -> str | None:
    """The name the sampler's draw is bound to (``noise = jax.random.normal(...)``)."""
    found = _call_on_line(location, function)
    if found is None:
        return None
    tree, call = found
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.value is call and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            return node.targets[0].id
    return None


def _split_fix(ctx: ErrorContext, location: Location, keys: int | None,
               names: int | None) -> Fix:
    """split mapped over the batch; unpacked, each name gets one new key per key."""
    jax = ctx.alias("jax") or "jax"
    batch = f"the {keys} keys" if keys is not None else "the keys"

    followers = _followers(ctx, location, keys) if names else []

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.vmap_over_keys import vmap_over_keys

        source = vmap_over_keys(source, location.lineno, "split", jax,
                                out_axes=1 if names else 0)
        for lineno, sampler in followers:
            source = vmap_over_keys(source, lineno, sampler, jax, one_value=True)
        return source

    if names:
        safety = (f"Each of the {names} names gets one new key per key of the batch (vmap's "
                  f"out_axes=1): entry i of each is what splitting keys[i] alone gives it.")
        summary = (f"Split each of {batch} with {jax}.vmap(..., out_axes=1), so the unpacked "
                   "names each hold a batch of new keys; then re-run.")
        if followers:
            lines = ", ".join(str(lineno) for lineno, _ in followers)
            samplers = _tracing.quoted(sorted({sampler for _, sampler in followers}))
            safety += (f" The {samplers} call{'s' if len(followers) > 1 else ''} on line"
                       f"{'s' if len(followers) > 1 else ''} {lines}, given such a batch, "
                       f"draw{'s' if len(followers) == 1 else ''} one value per key: the "
                       f"({keys},) the call asks for, value i drawn with key i alone.")
            summary = summary.replace("; then re-run.", f", and draw one value per key on "
                                      f"line{'s' if len(followers) > 1 else ''} {lines}; then "
                                      "re-run.")
    else:
        safety = ("One split per key, stacked along a new first axis: entry i holds the new "
                  "keys of keys[i]. Code that indexes the result picks a key's splits, not a "
                  "batch of new keys: check how it is used.")
        summary = f"Split each of {batch} with {jax}.vmap; then re-run."
    return rewrite_fix(ctx, location, transform, label="Split each key with jax.vmap",
                       summary=summary, safety=safety, safe=bool(names))


def _followers(ctx: ErrorContext, location: Location,
               keys: int | None) -> list[tuple[int, str]]:
    """The sampler calls after the split, in its function, that a name the split unpacks
    into (and that is bound nowhere else) passes as the key, each asking for the shape
    ``(keys,)`` (read from the split's live frame): with a batch of keys, each draws one
    value per key. Any such call asking for another shape, or one that cannot be read:
    none (each is left to its own card)."""
    call = ctx.user_call
    parsed = _tracing.parse(location.source)
    found = _call_on_line(location, "split")
    if call is None or call.location != location or parsed is None or found is None \
            or keys is None:
        return []
    scope = _scopes.enclosing_function(parsed[0], location.lineno)
    if scope is None:
        return []
    holder = _scopes.parents(scope).get(found[1])
    if not isinstance(holder, ast.Assign) or not isinstance(holder.targets[0], ast.Tuple):
        return []
    # a name bound again elsewhere may hold another key where a sampler reads it: not followed
    unpacked = {n.id for n in holder.targets[0].elts if isinstance(n, ast.Name)
                and len(_scopes.stores(scope, n.id)) == 1}
    evaluate = Evaluator(call.frame)
    followers: list[tuple[int, str]] = []
    for node in _scopes.own_nodes(scope):
        if not isinstance(node, ast.Call) or node.lineno <= location.lineno:
            continue
        sampler = next((name for name in _SHAPE_SECOND
                        if _tracing.names_function(node.func, f"random.{name}")), None)
        key = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "key"), None)
        if sampler is None or not (isinstance(key, ast.Name) and key.id in unpacked):
            continue
        given = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == "shape"), None)
        asked = evaluate(given) if given is not None else None
        if type(asked) is int:
            asked = (asked,)
        if asked != (keys,) or node.lineno != node.end_lineno:
            return []
        followers.append((node.lineno, sampler))
    return sorted(followers)


def _one_value_fix(ctx: ErrorContext, location: Location, function: str, keys: int) -> Fix:
    jax = ctx.alias("jax") or "jax"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.vmap_over_keys import vmap_over_keys

        return vmap_over_keys(source, location.lineno, function, jax, one_value=True)

    return rewrite_fix(
        ctx, location, transform,
        label="Draw one value per key",
        summary=(f"Map {function} over the keys with {jax}.vmap, each key drawing one value "
                 f"(shape ()), so the {keys} keys give the {keys} values the call asks for; "
                 "then re-run."),
        safety=(f"The shape the call asks for, ({keys},): value i is what {function} draws "
                "for keys[i] alone."),
        safe=True,
    )
