"""A Python list or tuple passed to a ``jax.numpy`` function that takes arrays:
``jnp.mean([0.5, 0.25])`` (``TypeError: mean requires ndarray or scalar arguments, got
<class 'list'> at position 0.``).

JAX refuses sequences on purpose: turning a list into an array element by element would
trace every element separately under jit. ``jnp.asarray(...)`` makes the one array the
list stands for. The rewrite wraps the argument where it is written: on the failing line,
or, when the line passes a parameter of its function, at the caller that passed the
sequence.

Reports: jax-ml/jax#365 (``jnp.sin([0.2, 0.4])``: the maintainers chose to refuse lists),
google/nerfies#53 and naruya/VaxNeRF#6 (``jnp.broadcast_to([1e10], ...)`` in NeRF code).
JAX's docs teach it in the "Sharp bits" notebook and the 101 arrays tutorial.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from jax_nbhelp.catalog import _contract, _entry, _scopes, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH502"
TITLE = "A Python list or tuple where a JAX function takes an array"
MESSAGE = "requires ndarray or scalar arguments, got <class '"

_MESSAGE_RE = re.compile(r"(?P<function>\w+) requires ndarray or scalar arguments, got "
                         r"<class '(?P<kind>list|tuple)'> at position (?P<position>\d+)")

_SPREAD = "def spread(points):\n    return jnp.max(points) - jnp.min(points)"

EXAMPLES = (
    corrected_cell((JAX_IMPORTS,), "average = jnp.mean([0.5, 0.25])",
                   "average = jnp.mean(jnp.asarray([0.5, 0.25]))",
                   "Wrap the list in jnp.asarray", "float(average) == 0.375"),
    # the tuple is the shape, and the array is where the shape goes: they trade places
    corrected_cell((JAX_IMPORTS, "x = jnp.arange(6.0)"), "y = jnp.reshape((2, 3), x)",
                   "y = jnp.reshape(x, (2, 3))", "Swap (2, 3) and x", "y.shape == (2, 3)"),
    # a list comprehension makes a list too; only the outer call's argument is wrapped
    corrected_cell((JAX_IMPORTS, "parts = [jnp.ones(3), 2 * jnp.ones(4)]"),
                   "top = jnp.max([jnp.max(p) for p in parts])",
                   "top = jnp.max(jnp.asarray([jnp.max(p) for p in parts]))",
                   "Wrap the list in jnp.asarray", "float(top) == 2.0"),
    # jnp.full leaves its shape unannotated: a parameter named shape takes one
    corrected_cell((JAX_IMPORTS,), "z = jnp.full(7.0, (2, 3))", "z = jnp.full((2, 3), 7.0)",
                   "Swap 7.0 and (2, 3)", "z.shape == (2, 3) and float(z[1, 2]) == 7.0"),
    # The sequence is a parameter: it is wrapped where the caller passes it.
    corrected_cell((JAX_IMPORTS, _SPREAD), "width = spread((3.0, 1.0, 2.0))",
                   "width = spread(jnp.asarray((3.0, 1.0, 2.0)))",
                   "Wrap the tuple in jnp.asarray", "float(width) == 2.0"),
    # JAX names the first list; the second would fail next, so both are wrapped
    corrected_cell((JAX_IMPORTS,), "d = jnp.dot([1.0, 2.0], [3.0, 4.0])",
                   "d = jnp.dot(jnp.asarray([1.0, 2.0]), jnp.asarray([3.0, 4.0]))",
                   "Wrap the lists in jnp.asarray", "float(d) == 11.0"),
    # JAX's message names the function inside (maximum, of clip): the call's lists, each
    # where the signature takes an array, are all wrapped
    corrected_cell((JAX_IMPORTS, "x = jnp.array([-1.0, 5.0])"),
                   "c = jnp.clip(x, [0.0, 0.0], [1.0, 1.0])",
                   "c = jnp.clip(x, jnp.asarray([0.0, 0.0]), jnp.asarray([1.0, 1.0]))",
                   "Wrap the lists in jnp.asarray", "c.tolist() == [0.0, 1.0]"),
    # JAX's message names the function inside (max, of softmax): the call's one list
    corrected_cell((JAX_IMPORTS,), "p = jax.nn.softmax([0.0, 0.0])",
                   "p = jax.nn.softmax(jnp.asarray([0.0, 0.0]))",
                   "Wrap the list in jnp.asarray", "p.tolist() == [0.5, 0.5]"),
    # a list passed by name; JAX's message names `choice` (its own call, at its position 0,
    # not the user's key): the call's one list is the one wrapped
    corrected_cell((JAX_IMPORTS,), "c = jax.random.choice(jax.random.key(0), 3, "
                                   "p=[0.0, 0.0, 1.0])",
                   "c = jax.random.choice(jax.random.key(0), 3, "
                   "p=jnp.asarray([0.0, 0.0, 1.0]))",
                   "Wrap the list in jnp.asarray", "int(c) == 2"),
)

WHY = _entry.prose("""
jax.numpy functions take arrays (or single numbers), not Python lists or tuples. NumPy
converts a list for you; JAX refuses on purpose, because converting a list element by
element would make jit trace every element as a separate value, which is slow for long
lists. jnp.asarray(...) makes one array from the whole list.
""")


def _argument(tree: ast.Module, lineno: int, function: str, position: int) -> ast.expr | None:
    """The ``position``-th positional argument of the ``function(...)`` call on the line."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and node.lineno <= lineno <= (node.end_lineno or 0)
                and _tracing.names_function(node.func, function)
                and len(node.args) > position
                and not any(isinstance(a, ast.Starred) for a in node.args[:position + 1])):
            return node.args[position]
    return None


MATCH = Match(MESSAGE, pattern=_MESSAGE_RE)


# a list or tuple written on the line: a display, or a list comprehension
_WRITTEN = (ast.List, ast.Tuple, ast.ListComp)


def _one_sequence_passed(ctx: ErrorContext, location: Location
                         ) -> tuple[str, int, ast.expr, str | None] | None:
    """(the function's name, the position, the argument, its keyword) of the one list or
    tuple the user's call on the line passes (written there, or a name holding one, read
    without running anything); None where it passes none or several."""
    call = ctx.user_call
    if call is None or call.location != location or not isinstance(call.node, ast.Call) \
            or call.function is None or call.method_of is not None \
            or any(isinstance(a, ast.Starred) for a in call.node.args) \
            or any(k.arg is None for k in call.node.keywords):
        return None
    evaluate = Evaluator(call.frame)

    def sequence(node: ast.expr) -> bool:
        return isinstance(node, _WRITTEN) or type(evaluate(node)) in (list, tuple)

    found: list[tuple[int, ast.expr, str | None]] = [
        (i, a, None) for i, a in enumerate(call.node.args) if sequence(a)]
    found += [(len(call.node.args), k.value, k.arg) for k in call.node.keywords
              if sequence(k.value)]
    if len(found) > 1 and all(keyword is None and isinstance(a, ast.List | ast.Tuple)
                              for _, a, keyword in found) \
            and _all_take_arrays(call, [i for i, _, _ in found]):
        # `jnp.clip(x, [0.0, 0.0], [1.0, 1.0])`: list literals where arrays go, each
        # wrapped (the fix wraps the first and every literal after it)
        found = found[:1]
    if len(found) != 1:
        return None
    position, argument, keyword = found[0]
    return call.name, position, argument, keyword


def _all_take_arrays(call: _user_call.UserCall, positions: list[int]) -> bool:
    """Whether each positional argument at ``positions`` goes to a parameter annotated to
    take an array (``ArrayLike``), by the function's signature."""
    signature = _user_call.signature_of(call.function)
    if signature is None:
        return False
    parameters = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return all(i < len(parameters) and "ArrayLike" in _contract.annotation(parameters[i])
               for i in positions)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    function, kind = found.group("function"), found.group("kind")
    position = int(found.group("position"))
    jnp = ctx.alias("jax.numpy") or "jnp"
    location = ctx.deepest_user_location()
    parsed = _tracing.parse(location.source) if location is not None else None
    argument = (_argument(parsed[0], location.lineno, function, position)
                if parsed is not None and location is not None else None)
    frame = ctx.live_frame(location) if location is not None else None
    if argument is not None and frame is not None \
            and not isinstance(argument, _WRITTEN) \
            and type(Evaluator(frame)(argument)) not in (list, tuple):
        argument = None  # a call of the same name inside (`choice`'s own): not this one
    keyword = None
    if argument is None and parsed is not None and location is not None:
        # JAX's message names the function inside that met it (`max` of jax.nn.softmax):
        # the user's call on the line, where it passes one list or tuple, passed that one
        passed = _one_sequence_passed(ctx, location)
        if passed is not None:
            function, position, argument, keyword = passed
    written = f"`{ast.unparse(argument)}`" if argument is not None else f"a {kind}"
    which = (f"as {keyword}=" if keyword is not None else f"argument {position + 1}") \
        if argument is not None else f"argument {position + 1}"
    explanation = (f"{_tracing.quoted_line(location, 'Your code')} passes {written}, a "
                   f"Python {kind}, to {function} ({which}), and jax.numpy "
                   "functions take arrays.")
    fixes: tuple[Fix, ...] = ()
    if location is not None and argument is not None and parsed is not None:
        fixes = (_fix(ctx, location, parsed[0], argument, function, position, kind, jnp,
                      keyword),)
    diagnosis = _entry.diagnosis(
        ctx, __name__, explanation, location=location, call_site=ctx.failing_cell(),
        fixes=fixes, notes=[f"Make the array once, where the {kind} is made "
                            f"(`{jnp}.asarray(...)` or `{jnp}.array(...)`), when a "
                            "function is called with it many times."])
    swap = _contract.swapped_arguments(ctx, diagnosis)
    if swap is None:
        return diagnosis
    # the sequence is a shape where an array goes, and an array (or number) is where the
    # shape goes (`jnp.reshape((2, 3), x)`): they trade places
    return replace(diagnosis, explanation=explanation[:-1] + f"; the {kind} is a shape, and "
                   "the call's other argument is where a shape goes: the two are in each "
                   "other's place.", fixes=(swap,), notes=())


def _fix(ctx: ErrorContext, location: Location, tree: ast.Module, argument: ast.expr,
         function: str, position: int, kind: str, jnp: str, keyword: str | None = None
         ) -> Fix:
    label = f"Wrap the {kind} in {jnp}.asarray"
    safety = (f"Same values: {jnp}.asarray makes the array the {kind} stands for, in JAX's "
              "default precision (float32 for Python floats, unless jax_enable_x64 is on).")
    enclosing = _scopes.enclosing_function(tree, location.lineno)
    name = argument.id if isinstance(argument, ast.Name) else None
    if enclosing is not None and name is not None and \
            _scopes.scope_of(enclosing).kind(name) == "parameter":
        caller = ctx.caller_of(location)
        passed = _scopes.passed_for(caller.source, caller.lineno, enclosing, name) \
            if caller is not None else None
        if caller is not None and passed is not None:
            callee = enclosing.name
            index = [a.arg for a in (*enclosing.args.posonlyargs, *enclosing.args.args)]
            if name in index:

                def at_caller(source: str) -> str:
                    from jax_nbhelp.rewrite.wrap_in_call import wrap_argument

                    return wrap_argument(source, caller.lineno, callee, index.index(name),
                                         f"{jnp}.asarray", keyword=name)

                return rewrite_fix(
                    ctx, caller, at_caller, label=label,
                    summary=(f"Pass {jnp}.asarray({passed[0]}) to {callee} on line "
                             f"{caller.lineno}, so {name} is an array inside it; then "
                             "re-run."),
                    safety=safety, safe=True)

    if keyword is not None:  # passed by name: wrapped there

        def by_name(source: str) -> str:
            from jax_nbhelp.rewrite.wrap_in_call import wrap_argument

            return wrap_argument(source, location.lineno, function, position,
                                 f"{jnp}.asarray", keyword=keyword)

        return rewrite_fix(ctx, location, by_name, label=label,
                           summary=(f"Pass {keyword}={jnp}.asarray({ast.unparse(argument)}) "
                                    f"to {function} on line {location.lineno}; then re-run."),
                           safety=safety, safe=True)
    # JAX names the first sequence it met; the call's other list and tuple literals would
    # fail next (`jnp.dot([1, 2], [3, 4])`), so each is wrapped.
    shape = ast.dump(argument)  # the user's call may have been read from another parse
    call = next((node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and len(node.args) > position and ast.dump(node.args[position]) == shape
                 and node.lineno <= location.lineno <= (node.end_lineno or 0)), None)
    positions = [index for index, arg in enumerate(call.args if call is not None else ())
                 if index == position or (isinstance(arg, ast.List | ast.Tuple)
                                          and index > position)]
    if len(positions) > 1:
        label = f"Wrap the {kind}s in {jnp}.asarray"
    wrapped = ", ".join(f"{jnp}.asarray({ast.unparse(call.args[i])})"
                        for i in positions) if call is not None else \
        f"{jnp}.asarray({ast.unparse(argument)})"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import wrap_argument

        for index in positions or [position]:
            written = call.args[index] if call is not None else argument
            source = wrap_argument(source, location.lineno, function, index, f"{jnp}.asarray",
                                   only=ast.dump(written))
        return source

    return rewrite_fix(ctx, location, transform, label=label,
                       summary=(f"Pass {wrapped} to {function} on line {location.lineno}; "
                                "then re-run."),
                       safety=safety, safe=True)
