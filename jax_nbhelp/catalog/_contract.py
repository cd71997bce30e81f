"""Fixes that follow from the contract of the JAX function a user's line called, for the
explained view (``JNH001``): no entry knows the error, but JAX's check and message say what
the call must satisfy, and the user's call says what it gave. Where exactly one change of
the call satisfies it and keeps every value, the change is offered as an edit of the line,
run, and kept only if it runs.

The rules, each of which keeps every value:

**A whole number held as a float where JAX needs an integer.** JAX says it
needs an integer and that what it got is a float (``Shapes must be 1D sequences of concrete
values of integer type, got (3.0,)``, ``'float' object cannot be interpreted as an
integer``, ``Indexer must have integer or boolean type, got indexer with type float32``),
and exactly one argument of the user's call (or the index of a subscript) holds floats.
Where JAX only says it met a float (``'float' object is not iterable`` from
``jnp.sum(x, axis=1.0)``), the argument counts when the parameter it is bound to is annotated
to take an integer (``axis: int | None``, ``Axis``, ``Shape``).
A message that names another value (``Index type must be an integer, got foo``) is about
that value, never the call's one float. Where its values are whole numbers (``n / 2`` that came out
``3.0``), the integer is the same number: ``int(n)``, ``(int(n), 3)`` in a written tuple,
``idx.astype("int32")`` for an array, ``3`` for a written ``3.0``. Where the values are traced
(inside ``jit`` or ``scan``), whether they are whole cannot be read: the change is offered
with what it changes (a fraction is dropped), never as the recommended fix, except where the
traced value is a parameter of the jitted function that it uses only as an index, and the
call writes a whole float literal for it (``pick(2.0)``): the call is written with the int
(``pick(2)``), which indexes the same element; and except where the traced values can be
followed to the concrete array they came from (``_provenance``: ``row[0]`` of a step that
``lax.scan`` runs over ``data``, which the calling line passes to the jitted function): where
every one of them is whole, the integers are the same numbers. A fraction that is there
(``2.5``) gets no fix: which integer was meant is the user's choice.

**A one-element array where JAX needs a scalar.** ``float(loss)`` of a ``float32[1]``
(``Only scalar arrays can be converted to Python scalars; got arr.ndim=1``): its one
element, ``float(loss[0])``, is the value NumPy's conversion used to give. Read from a
concrete array only.

**A list used as an index.** ``x[[0, 2]]`` (``Using a non-tuple sequence for
multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]```):
JAX's message prescribes the change, and ``x[jnp.array([0, 2])]`` picks what NumPy picks
for the list. Only for a list of ints.

**Dimensions spread over several arguments.** ``jnp.zeros(2, 3)``, ``jnp.reshape(x, 2, 3)``,
``jnp.transpose(x, 2, 0, 1)``: the function takes its ``shape`` (``newshape``, ``axes``) as one
tuple, and the call lists the dimensions as separate ints, the way PyTorch's functions and
NumPy's methods take them; the second one lands in another parameter (``Cannot interpret '3'
as a data type``). ``(2, 3)`` is those ints, in order. Only Python ints, passed positionally,
with nothing after them.

**Arrays passed apart where the function takes one sequence.** ``jnp.concatenate(x, y)``,
``jnp.stack(a, b, c)``, ``jnp.vstack(x, y)``: the first parameter's annotation says it takes
a sequence, the call lists arrays of one rank as separate arguments, and the second landed
in a parameter that takes no array (``Only integer scalar arrays can be converted to a
scalar index`` for the axis, ``Passing an array as a dtype argument`` for the dtype).
``(x, y)`` is those arrays, in order.

**A function given where data goes.** ``tree_map(tree, fn)``, ``lax.scan(init, step, xs)``:
the parameter that takes a function (``Callable`` in its annotation, or named ``f``,
``fun``, ...) got something that cannot be called, and exactly one other positional
argument is a function. Swapped, each argument goes where the signature takes it. Never
into an axis or an argument number (``jax.vmap(x, f)``: what was meant is not read).

**An argument JAX's message names.** Where the message's subject is a parameter
(```pad_width` must be of integral type``, ``indices must have an integer type``), the
argument bound to it is the one the whole-number rule makes an integer, an array of floats
included (``idx.astype("int32")`` where every element is whole). Where the message says JAX
needs an integer and names no argument (``Indexer must have integer or boolean type`` from
inside ``jax.ops.segment_sum``), a float array bound to a parameter whose docstring describes
integers (``segment_ids``: "an array with integer dtype") counts as named.

**One int where JAX takes a sequence.** ``jax.random.choice(key, 5, shape=3)`` (``shape
argument of jax.random.choice must be a sequence, got 3``): the argument the message names
holds that int, and a shape of one number is the one-dimensional shape ``(3,)``, as NumPy
reads it.

**A static argument's name the function does not have.** ``static_argnames=('n_steps',)``
for ``def run(x, nsteps)`` (``Jitted function has invalid argnames {'n_steps'}``): the
names the function takes are read in JAX's frame that checked them, and where exactly one
is close to the name written, the string is that name.

**A list of numbers scanned over.** ``lax.scan(step, init, [1.0, 2.0, 3.0])`` (``scan got
value with no leading axis to scan over``): scan reads the list as a tree of three leaves,
each to be scanned along its own leading axis, and a number has none. Scanned along the list
is the only reading that runs: ``jnp.array([1.0, 2.0, 3.0])``. Only Python numbers of one
type.

Reports: MarkusAI/rA9#5 (``Shapes must be 1D sequences of concrete values of integer type``
from a shape computed as a float), jax-ml/jax#2495 (a float used as an index, the report
that gave JAX its "Indexer must have integer or boolean type" message), mlech26l/gigastep#13
(that message from a float index inside ``vmap``), jax-ml/jax#2486 (a slot id read from
the rows ``scan`` runs over, which a float array holds as floats); jax-ml/jax#4564 (the list
index JAX stopped reading as a tuple, and the message that prescribes an array);
numpy/numpy#13034 and
numpy/numpy#12046 (``zeros(2, 3)``, the dimensions read as a dtype; NumPy declined to guess in
its message), sebastian-hofstaetter/teaching#89 (a dimension passed as an extra argument,
read as the dtype); numpy/numpy#9549 (``concatenate(x, zrs)``, the second array read as
the axis) and numpy/numpy#4926 (the same mistake, ``concatenate([1], [2])``, given a better
message); r-xla/anvl#358 (a tree map whose function and tree were given in each other's
places).
"""

from __future__ import annotations

import ast
import copy
import difflib
import inspect
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from types import FunctionType
from typing import Any, TypeGuard

from jax_nbhelp.catalog import (
    _concrete,
    _contract_call,
    _contract_dropins,
    _contract_inputs,
    _contract_layouts,
    _contract_mapped,
    _contract_operators,
    _contract_precision,
    _contract_scalars,
    _contract_signal,
    _positional,
    _provenance,
    _scopes,
    _shapes,
    _static_fix,
    _static_site,
    _tracing,
)
from jax_nbhelp.catalog._contract_call import given as _given
from jax_nbhelp.catalog._contract_call import plain_call as _plain_call
from jax_nbhelp.catalog._contract_call import received as _received
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite

_INTEGER_WORDS = ("integer", "integral")  # what JAX's messages say when it needs an integer
_MAX_READ = _concrete.MAX_READ


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> tuple[Fix, ...]:
    """The contract's fixes for an explained error (empty where none applies): the first
    rule that applies gives its one fix."""
    for rule in (_prescribed_fix, _extra_arguments_fix, _lone_item_fix, _point_tuple_fix,
                 _tangent_container_fix, _leading_pads_fix, _bool_index_fix,
                 _printf_format_fix, _predicate_function_fix, _unsigned_fix,
                 _complex_point_fix, _expected_dtype_fix, _out_argument_fix,
                 _argnums_past_fix, _jvp_pair_fix, _positional_only_fix, _static_positions_fix,
                 _no_effect_keyword_fix, _removed_keyword_fix, _bounds_shape_fix, _raise_mode_fix,
                 _vector_norm_fix, _contract_operators.fixes, _contract_scalars.fixes,
                 _contract_dropins.fixes, _contract_precision.fixes, _contract_layouts.fixes,
                 _contract_mapped.fixes, _contract_inputs.fixes, _contract_signal.fixes,
                 _donated_twice_fix, _aliased_donation_fix, _canonical_dtype_fix,
                 _complex_output_fix,
                 _whole_float_fix,
                 _one_element_fix,
                 _list_index_fix, _spread_shape_fix, _spread_values_fix, _joined_arrays_fix,
                 _swapped_function_fix, swapped_arguments, _values_as_functions_fix,
                 _index_ignored_fix, _scanned_list_fix, _one_dimension_fix, _argname_fix):
        fix = rule(ctx, diagnosis)
        if fix is not None:
            return (fix,)
    return ()


# -- a whole number held as a float -------------------------------------------------------

class _PartOfFloats:
    """An item of a float array (``r[0]``), which the safe evaluator does not index."""

    dtype = "float"


_PART_OF_FLOATS = _PartOfFloats()


def _is_float_scalar(value: object) -> bool:
    numpy = sys.modules.get("numpy")
    return type(value) is float or (numpy is not None and isinstance(value, numpy.floating))


def _array_dtype_kind(value: object) -> str | None:
    """``"f"`` for a NumPy or JAX array of floats (a tracer included), else its kind."""
    kind = getattr(_contract_call.array_dtype(value), "kind", None)
    return str(kind) if kind is not None else None


def _traced(value: object) -> bool:
    return "Tracer" in type(value).__name__


def _whole(value: object) -> bool | None:
    """Whether every number ``value`` holds is a whole number (None: it cannot be read, a
    traced array or a large one)."""
    if type(value) in (int, bool):
        return True
    if _is_float_scalar(value):
        return float(value).is_integer()  # type: ignore[arg-type]
    if type(value) in (tuple, list):
        found = [_whole(item) for item in value]  # type: ignore[attr-defined]
        return None if None in found else all(found)
    if value is _PART_OF_FLOATS:
        return None
    kind = _array_dtype_kind(value)
    if kind in ("i", "u", "b"):
        return True
    held = _concrete.held(value) if kind == "f" else None
    if held is None:
        return None
    numpy = sys.modules["numpy"]  # held read it with NumPy
    return bool(numpy.isfinite(held).all() and (numpy.mod(held, 1) == 0).all())


def _whole_within_int32(values: Any) -> bool | None:
    """Whether every one of ``values`` (a NumPy array) is a whole number int32 holds."""
    whole = _whole(values)
    if not whole:
        return whole
    numpy = sys.modules.get("numpy")
    return numpy is not None and bool((numpy.abs(values) < 2 ** 31).all())


def _holds_float(value: object, arrays: bool = False) -> bool:
    """Whether ``value`` is a float number, or a tuple or list holding one (with
    ``arrays``: or an array of floats, or an item of one)."""
    if _is_float_scalar(value) or (arrays and (_array_dtype_kind(value) == "f"
                                               or value is _PART_OF_FLOATS)):
        return True
    return type(value) in (tuple, list) and any(
        _holds_float(item) for item in value)  # type: ignore[attr-defined]


def _arguments(node: ast.expr) -> Iterator[ast.expr]:
    """The arguments of the user's call, or the index of a subscript (a slice's bounds and
    step, each on its own: ``x[:half]`` has ``half``)."""
    if isinstance(node, ast.Call):
        yield from (a for a in node.args if not isinstance(a, ast.Starred))
        yield from (k.value for k in node.keywords if k.arg is not None)
    elif isinstance(node, ast.Subscript):
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) \
            and any(isinstance(e, ast.Slice) for e in index.elts) else [index]
        for part in parts:
            if isinstance(part, ast.Slice):
                yield from (p for p in (part.lower, part.upper, part.step) if p is not None)
            else:
                yield part


def _as_integer(node: ast.expr, value: object, text: str) -> str | None:
    """The argument written as integers: ``3`` for ``3.0``, ``int(n)``, ``(int(n), 3)``,
    ``tuple(int(d) for d in shape)``, ``idx.astype("int32")``; None where no spelling keeps
    the user's expression."""
    if isinstance(node, ast.Constant) and type(node.value) is float:
        return repr(int(node.value))
    if _is_float_scalar(value) or (_array_dtype_kind(value) == "f"
                                   and getattr(value, "ndim", None) == 0 and not _traced(value)):
        return f"int({text})"
    if _array_dtype_kind(value) == "f" or value is _PART_OF_FLOATS:
        simple = isinstance(node, ast.Name | ast.Attribute | ast.Subscript | ast.Call)
        return f"{text if simple else f'({text})'}.astype(\"int32\")"
    if isinstance(node, ast.Tuple | ast.List) and type(value) in (tuple, list) \
            and len(node.elts) == len(value):  # type: ignore[arg-type]
        parts = [_as_integer(element, item, ast.unparse(element)) if _holds_float(item)
                 else ast.unparse(element) for element, item in zip(node.elts, value,  # type: ignore[call-overload]
                                                                   strict=True)]
        if None in parts:
            return None
        inside = ", ".join(p for p in parts if p is not None)
        return (f"({inside},)" if len(parts) == 1 else f"({inside})") \
            if isinstance(node, ast.Tuple) else f"[{inside}]"
    if type(value) in (tuple, list) and all(
            type(item) in (int, bool) or _is_float_scalar(item) for item in value):  # type: ignore[attr-defined]
        return f"{type(value).__name__}(int(d) for d in {text})"
    return None


def _shown(value: object) -> str:
    """How JAX's message would show a number or a tuple of numbers (``(3.0, 2)``)."""
    try:
        return repr(value) if type(value) in (float, tuple, list) else "\0"
    except Exception:
        return "\0"


def _needs_integer(ctx: ErrorContext) -> bool:
    """Whether JAX's message says, in words, that it needs an integer. Two types set
    against each other (``lax.add requires arguments to have the same dtypes, got int32,
    float32``) are not that: making the float an int would change the arithmetic."""
    link = ctx.top
    return (link.is_a("TypeError") or link.is_a("ValueError")) and any(
        word in link.message for word in _INTEGER_WORDS)


_INDEXER = "Indexer must have integer"


def _at_index(node: ast.expr) -> ast.expr | None:
    """``i`` of ``x.at[i].set(v)`` (any method of ``.at``), else None."""
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript) \
            and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at":
        return func.value.slice
    return None


def _whole_float_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    call = ctx.user_call
    location = diagnosis.location
    if call is None or location is None or call.location != location:
        return None
    said = _needs_integer(ctx)
    # JAX's message only says it met a float (`'float' object is not iterable`, `must have
    # equal types, got int32 and float32`): the parameter's annotation or its docstring
    # (fori_loop's "upper: an integer representing the loop index upper bound") says an
    # integer was needed there
    typed = _annotated_integer(call) | _documented_integer(call) \
        if not said and "float" in ctx.top.message else set()
    if not said and not typed:
        return None
    evaluate = Evaluator(call.frame)
    # A call's arguments count when they are numbers (a float, or a tuple of numbers holding
    # one): an array of floats is a call's data. A subscript's index counts as an array too,
    # and so does the index of `x.at[i].add(v)`, which is the only argument an "Indexer"
    # message can be about.
    target = _at_index(call.node) if _INDEXER in ctx.top.message else None
    arrays = isinstance(call.node, ast.Subscript) or target is not None
    # a float array bound to a parameter documented as integers counts as named
    named = _named_in_message(ctx, call) | {
        node for node in (_documented_integer(call) if said else ())
        if _array_dtype_kind(evaluate(node)) == "f"}
    held: list[tuple[ast.expr, Any]] = []
    for node in (target,) if target is not None else _arguments(call.node):
        if not said and node not in typed:
            continue  # only JAX's type complaint about a float, at a parameter typed int
        value = evaluate(node)
        if value is CANNOT and node in named:
            value = _user_call.received(call, node)  # `jnp.array([2.0, 1.0])`: as JAX got it
        if node in named and _array_dtype_kind(value) == "f":
            held.append((node, value))  # `indices must have an integer type`: this array
            continue
        if value is CANNOT and arrays and isinstance(node, ast.Subscript) \
                and _array_dtype_kind(evaluate(node.value)) == "f":
            value = _PART_OF_FLOATS  # `r[0]` of a float array: floats, not read here
        elif value is CANNOT and _rounding_call(ctx, node) is not None:
            value = _PART_OF_FLOATS  # `jnp.floor(t)`, `t // 2.0`: whole, not run here
        if value is not CANNOT and _holds_float(value, arrays or value is _PART_OF_FLOATS):
            held.append((node, value))
    if len(held) > 1:  # several: the one whose value JAX's message shows (`got 1.0`), or
        # shows as the shape it made of it (`got (2.0,)`)
        shown = [(node, value) for node, value in held if re.search(
            rf"\bgot (\(?{re.escape(_shown(value))},\)|{re.escape(_shown(value))}(\b|$))",
            ctx.top.message)]
        # else the one the signature types as an integer (`jnp.linspace(0.0, 1.0, 5.0)`:
        # `num: int`), where Python's message shows no value
        integers = typed or _annotated_integer(call) | _documented_integer(call)
        held = shown or [(node, value) for node, value in held if node in integers]
    if len(held) != 1:
        return None  # none, or several: which one JAX meant is not read
    node, value = held[0]
    message = ctx.top.message
    rounded = _rounded_by(ctx, location, node)
    if "float" not in message and _shown(value) not in message and rounded is None \
            and node not in named:
        return None  # JAX's complaint is about another value (`got foo`): not this float
    whole = _whole(value)
    if whole is False:
        return None  # a fraction is there: which integer was meant is the user's choice
    text = ast.unparse(node)
    behind = None
    if whole is None and rounded is None:
        passed = _whole_literal_passed(ctx, location, node)
        if passed is not None:
            return passed
        behind = _provenance.values_behind(ctx, location, node)
        whole = _whole_within_int32(behind.values) if behind is not None else None
        if whole is False:
            return None  # a fraction is there (or a number int32 cannot hold)
    after = _as_integer(node, value, text)
    if after is None:
        return None
    if rounded is not None and whole is None:
        made = _made_integer_fix(ctx, location, node, rounded, after)
        if made is not None:
            return made
        whole = True
        safety = (f"Same values: `{text}` comes from `{rounded}`, which makes whole numbers, "
                  f"so `{after}` holds the same numbers as integers (within int32's range).")
    elif behind is not None:
        safety = (f"Same values: `{text}` is traced here, but its values come from "
                  f"`{behind.source}`, which {behind.location.label} passes in, and every one "
                  f"of them is a whole number, so `{after}` holds the same numbers as "
                  "integers.")
    else:
        safety = (f"Same values: `{text}` holds whole numbers, so `{after}` holds the same "
                  "numbers as integers." if whole else
                  f"`{text}` is traced here, so whether it holds whole numbers cannot be "
                  f"read: `{after}` drops any fraction it holds.")
    return _rewrite(ctx, location, call.node, text, after, whole is True,
                    label=f"Use {after}" if len(after) <= 28 else "Use integers",
                    need="the integer JAX needs there", safety=safety,
                    changes=None if whole else "drops the fraction of any value that has one")


_INTEGER_ANNOTATION = re.compile(r"^(Axis|Shape|DimSize|int)\b|^int \|")


def annotation(parameter: inspect.Parameter) -> str:
    """A parameter's annotation as its source writes it: ``int`` for the class ``int``
    (``str(int)`` is ``<class 'int'>``), the text of a string or typing annotation."""
    annotation = parameter.annotation
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)


def _annotated_integer(call: _user_call.UserCall) -> set[ast.expr]:
    """The arguments of the user's call bound to a parameter whose annotation takes an
    integer first (``axis: int | None``, ``axis: Axis``, ``shape: Shape``): where JAX's
    message only says it met a float there (``'float' object is not iterable``), the
    signature says what was needed."""
    if not isinstance(call.node, ast.Call) or call.function is None:
        return set()
    signature, bound, _ = _user_call.bind(call)
    if signature is None or bound is None:
        return set()
    return {given.node for name, given in bound.arguments.items()
            if getattr(given, "node", None) is not None and name in signature.parameters
            and _INTEGER_ANNOTATION.search(annotation(signature.parameters[name]))}


def _named_in_message(ctx: ErrorContext, call: _user_call.UserCall) -> set[ast.expr]:
    """The arguments of the user's call bound to a parameter JAX's message names as its
    subject: quoted, or as the word before "must" (``indices must have an integer type``
    names ``jnp.take``'s ``indices``)."""
    if not isinstance(call.node, ast.Call) or call.function is None:
        return set()
    _, bound, _ = _user_call.bind(call)
    if bound is None:
        return set()
    message = ctx.top.message
    return {given.node for name, given in bound.arguments.items()
            if getattr(given, "node", None) is not None and re.search(
                rf"(^|[`'\"]){re.escape(name)}[`'\"]|(^|[\s`'\"]){re.escape(name)}\s+"
                rf"(must|should)\b", message)}


_DOCUMENTED_INTEGER = re.compile(r"\binteger\b|\bint\b")


def _documented_integer(call: _user_call.UserCall) -> set[ast.expr]:
    """The arguments bound to a parameter whose docstring describes integers first
    (``segment_ids``: "an array with integer dtype that indicates the segments"), for a
    message that says JAX needs an integer but names no argument."""
    if not isinstance(call.node, ast.Call) or call.function is None:
        return set()
    _, bound, _ = _user_call.bind(call)
    if bound is None:
        return set()
    docs = _user_call.parameter_docs(call.function)
    return {given.node for name, given in bound.arguments.items()
            if getattr(given, "node", None) is not None
            and _DOCUMENTED_INTEGER.search(docs.get(name, "").split(".")[0])}


def _whole_literal_passed(ctx: ErrorContext, location: Location, node: ast.expr) -> Fix | None:
    """``pick(2.0)`` of a jitted ``def pick(i)`` that uses ``i`` only as an index: the
    literal the caller wrote is whole, and the int it stands for indexes the same element;
    written as that int, ``i`` is traced as an integer. Every other parameter the call
    passes such a literal for, used only as an index too, is written as its int at once.
    Read from the def and the calling line (the frame before the def's), never by running
    them."""
    parsed = _tracing.parse(location.source)
    frames = ctx.top.user_frames
    if parsed is None or not isinstance(node, ast.Name) or len(frames) < 2:
        return None
    func = _scopes.enclosing_function(parsed[0], location.lineno)
    if not isinstance(func, ast.FunctionDef) or frames[-1].function != func.name \
            or not any(_tracing.jits(d) for d in func.decorator_list):
        return None
    caller = frames[-2].location
    called = _tracing.parse(caller.source) if caller is not None else None
    if caller is None or called is None:
        return None
    calls = [c for c in ast.walk(called[0]) if isinstance(c, ast.Call)
             and c.lineno <= caller.lineno <= (c.end_lineno or c.lineno)
             and _tracing.names_function(c.func, func.name)]
    if len(calls) != 1:
        return None
    literals: dict[str, ast.Constant] = {}
    for name in _scopes.scope_of(func).parameters:
        argument = _tracing.bind_argument(calls[0], func, name)
        if _only_an_index(func, name) and isinstance(argument, ast.Constant) \
                and _whole_literal(argument):
            literals[name] = argument
    if node.id not in literals:
        return None
    edits = sorted(((argument, _tracing.segment(called[1], argument), str(int(argument.value)))  # type: ignore[arg-type]
                    for argument in literals.values()),
                   key=lambda edit: (edit[0].lineno, edit[0].col_offset), reverse=True)

    def transform(source: str) -> str:
        for argument, before, after in edits:  # right to left: columns stay true
            source = _tracing.replacing(argument, before, after)(source)
        return source

    pairs = ", ".join(f"{after} for {before}" for _, before, after in reversed(edits))
    names = _tracing.quoted(sorted(literals))
    return rewrite_fix(
        ctx, caller, transform,
        label=f"Pass {pairs}" if len(pairs) <= 24 else "Pass whole numbers as ints",
        summary=(f"Write {pairs} in the call on {caller.label}: {func.name} uses {names} only "
                 "as an index, and an index must be an integer; then re-run."),
        safety=(f"Same values: each literal is a whole number, {names} "
                f"{'is' if len(literals) == 1 else 'are'} used only as an index, and the int "
                "indexes the same element."),
        safe=True)


def _only_an_index(func: ast.FunctionDef, name: str) -> bool:
    """Whether ``func`` reads its parameter ``name`` only as a subscript's whole index
    (``t[i]``, ``t.at[i]``), never rebinding it nor reading it in a nested function."""
    uses = _scopes.loads(func, name)
    parents = _scopes.parents(func)
    return (bool(uses) and not _scopes.stores(func, name)
            and not _scopes.read_elsewhere(func, name)
            and all(isinstance(parent := parents.get(use), ast.Subscript)
                    and parent.slice is use for use in uses))


def _whole_literal(node: ast.Constant) -> bool:
    return type(node.value) is float and node.value.is_integer() and abs(node.value) < 2 ** 31


_ROUNDING = frozenset({"floor", "ceil", "round", "rint", "trunc", "fix", "around"})


def _rounding_call(ctx: ErrorContext, node: ast.expr) -> str | None:
    """``jnp.floor(t)`` (a jax.numpy or NumPy rounding function, as the user spells it,
    with no decimals), or ``a // b``: an expression whose values are whole numbers whatever
    its operands hold. Its text, else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
        return ast.unparse(node)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in _ROUNDING and len(node.args) == 1 and not node.keywords):
        return None
    owner = ast.unparse(node.func.value)
    modules = {ctx.alias(name) for name in ("jax.numpy", "numpy")} - {None}
    return ast.unparse(node) if owner in modules | {"jax.numpy", "numpy"} else None


def _rounded_by(ctx: ErrorContext, location: Location, node: ast.expr) -> str | None:
    """The rounding expression ``node`` is, or that a plain name on the line was last
    assigned before it in the same function (``i = jnp.floor(x / dx)``); None where it
    cannot be read that way (a name assigned twice, in a loop or a branch)."""
    found = _rounding_call(ctx, node)
    if found is not None or not isinstance(node, ast.Name):
        return found
    made = _made_by(location, node)
    return _rounding_call(ctx, made[0].value) if made is not None else None


def _made_by(location: Location, node: ast.Name
             ) -> tuple[ast.Assign, list[ast.Name], dict[ast.AST, ast.AST]] | None:
    """The one assignment of ``node``'s name before the line, in the body of the function
    holding the line (not in a loop or a branch), the name's loads in that function, and
    the function's map of parents."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    tree = parsed[0]
    scope = _scopes.enclosing_function(tree, location.lineno) or tree
    stored = _scopes.stores(scope, node.id)
    parents = _scopes.parents(scope)
    holder = parents.get(stored[0]) if len(stored) == 1 else None
    if not isinstance(holder, ast.Assign) or holder.lineno >= location.lineno \
            or holder.targets != [stored[0]] or holder not in scope.body:
        return None
    return holder, _scopes.loads(scope, node.id), parents


def _made_integer_fix(ctx: ErrorContext, location: Location, node: ast.expr, rounded: str,
                      after: str) -> Fix | None:
    """``b = (e - lo) // width`` and then ``h.at[b].add(1)`` and ``n.at[b].add(1)``: a
    name made by rounding that indexes on more than one line, and does nothing else, is
    made an integer where it is assigned, so every index is."""
    made = _made_by(location, node) if isinstance(node, ast.Name) else None
    if made is None or "astype" not in after:
        return None
    holder, uses, parents = made
    indexes = [parents.get(use) for use in uses]
    if len({use.lineno for use in uses}) < 2 or not all(
            isinstance(index, ast.Subscript) and index.slice is use
            for index, use in zip(indexes, uses, strict=True)):
        return None
    lines = (location.source or "").split("\n")
    written = _written(lines[holder.lineno - 1].strip(), holder.value)
    if written is None or holder.lineno != holder.value.lineno:
        return None
    cast = after.removeprefix(ast.unparse(node))
    name = ast.unparse(node)
    return rewrite_fix(
        ctx, location, _call_replaced(holder.lineno, written, written,
                                      lambda: f"({written}){cast}"),
        label=f"Make {name} integers", safe=True,
        summary=(f"Write `{name} = ({written}){cast}` on line {holder.lineno}, so that each "
                 f"index `{name}` is the integer JAX needs there; then re-run."),
        safety=(f"Same values: `{name}` comes from `{rounded}`, which makes whole numbers, so "
                f"as integers it holds the same numbers (within int32's range), and every "
                f"use of `{name}` is an index."))


# -- a one-element array where JAX needs a scalar ------------------------------------------

_SCALAR = "Only scalar arrays can be converted to Python scalars"
_CONVERSIONS = ("float", "int", "complex", "bool")


def _one_element_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``float(loss)`` of a one-element array (``float32[1]``): its one element,
    ``float(loss[0])``, the value NumPy's old conversion gave. JAX's message: only scalar
    arrays convert."""
    call = ctx.user_call
    location = diagnosis.location
    if call is None or location is None or call.location != location:
        return None
    node = call.node
    if _SCALAR in ctx.top.message:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _CONVERSIONS and len(node.args) == 1 and not node.keywords):
            return None
        argument = node.args[0]
        value = Evaluator(call.frame)(argument)
        if _traced(value):
            return None
    else:
        found = _one_element_argument(ctx, call)
        if found is None:
            return None
        argument, value = found
    shape = getattr(value, "shape", None) if _array_dtype_kind(value) is not None else None
    if not isinstance(shape, tuple) or not shape or any(d != 1 for d in shape):
        return None
    text = ast.unparse(argument)
    simple = isinstance(argument, ast.Name | ast.Attribute | ast.Subscript | ast.Call)
    after = f"{text if simple else f'({text})'}[{', '.join('0' * len(shape))}]"
    return _rewrite(ctx, location, node, text, after, True,
                    label=f"Use {after}" if len(after) <= 28 else "Use its one element",
                    need="its one element, a scalar", changes=None,
                    safety=(f"Same value: `{text}` holds one value ({_summary(value)}), and "
                            f"`{after}` is that value."))


_MUST_BE_SCALAR = re.compile(r"must be (a )?scalar, got .* of shape \((1, ?)+\)")


def _one_element_argument(ctx: ErrorContext, call: _user_call.UserCall
                          ) -> tuple[ast.expr, object] | None:
    """``lax.cond(flag, ...)`` of a ``bool[1]`` flag (``Pred must be a scalar, got [ True] of
    shape (1,)``): the one argument of the user's call whose value has that one-element
    shape (traced or not: its shape is known either way)."""
    if not _MUST_BE_SCALAR.search(ctx.top.message) or not isinstance(call.node, ast.Call):
        return None
    evaluate = Evaluator(call.frame)
    held = [(node, value) for node in _arguments(call.node)
            if (value := evaluate(node)) is not CANNOT and _array_dtype_kind(value) is not None
            and isinstance(shape := getattr(value, "shape", None), tuple) and shape
            and all(d == 1 for d in shape)]
    return held[0] if len(held) == 1 else None


def _summary(value: object) -> str:
    try:
        return f"{value.dtype}{list(value.shape)}"  # type: ignore[attr-defined]
    except Exception:
        return "one element"


# -- a list used as an index ----------------------------------------------------------------

_LIST_INDEX = "use `arr[array(seq)]` instead of `arr[seq]`"


def _list_index_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``x[[0, 2]]``: JAX's message prescribes ``x[array(seq)]``, the indices NumPy reads a
    list index as. Only for a list of ints (an index of slices or None is another thing)."""
    call = ctx.user_call
    location = diagnosis.location
    jnp = ctx.alias("jax.numpy")
    if call is None or location is None or call.location != location or jnp is None \
            or _LIST_INDEX not in ctx.top.message or not isinstance(call.node, ast.Subscript):
        return None
    index = call.node.slice
    value = Evaluator(call.frame)(index)
    if type(value) is not list or not value or not all(
            type(item) in (int, bool) for item in value):
        return None
    text = ast.unparse(index)
    after = f"{jnp}.array({text})"
    return _rewrite(ctx, location, call.node, text, after, True,
                    label=f"Index with {after}" if len(after) <= 24 else "Index with an array",
                    need="the array of indices JAX's message prescribes", changes=None,
                    safety=(f"Same values as NumPy gives for a list index: `{text}` is read as "
                            "an array of indices, as JAX's message prescribes."))


# -- a static_argnames entry the function does not have ----------------------------------------

_ARGNAMES = re.compile(r"invalid argnames \{(?P<names>[^}]*)\} in (?P<option>\w+)\. Function "
                       r"does not take these args")


def _argname_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``static_argnames=('n_steps',)`` for a function whose parameter is ``nsteps``
    (``Jitted function has invalid argnames {'n_steps'} in static_argnames``): the names the
    function takes are read in JAX's frame that checked them (its ``valid_kwargs``), and
    where exactly one is close to the name written, the string is that name. Where none is
    close (a parameter renamed: ``degree`` for ``n_terms``), and exactly one parameter the
    option does not name is used where a Python number is needed (a ``range``, a shape, a
    slice bound: ``_static_fix.needs_value``), the string is that one: the name named
    nothing, and a static parameter computes the same values."""
    found = _ARGNAMES.search(ctx.top.message)
    location = diagnosis.location or ctx.deepest_user_location()
    if found is None or location is None:
        return None
    names = re.findall(r"'([^']*)'", found["names"])
    checker = next((f for f in reversed(ctx.top.frames)
                    if f.function == "_validate_argnames" and not f.is_user), None)
    live = ctx.live_frame_of(checker) if checker is not None else None
    valid = live.f_locals.get("valid_kwargs") if live is not None else None
    parsed = _tracing.parse(location.source)
    if len(names) != 1 or not isinstance(valid, set | frozenset) or parsed is None:
        return None
    close = difflib.get_close_matches(names[0], sorted(str(v) for v in valid), n=2,
                                      cutoff=0.6)
    options = [k for k in ast.walk(parsed[0]) if isinstance(k, ast.keyword)
               and k.arg == found["option"]]
    written = [n for k in options for n in ast.walk(k.value)
               if isinstance(n, ast.Constant) and n.value == names[0]]
    if len(written) != 1:
        return None
    needed = ""
    if not close:
        close = _needed_static(ctx, parsed[0], options[0], sorted(str(v) for v in valid))
        needed = (f"{close[0]} is the one parameter the function uses where a Python "
                  "value is needed, and no parameter's name is close to "
                  f"{names[0]!r}; a static parameter computes the same values"
                  if len(close) == 1 else "")
    if len(close) != 1:
        return None
    node = written[0]
    place = replace(location, lineno=node.lineno, line=location.source.splitlines()[  # type: ignore[union-attr]
        node.lineno - 1])
    before = _tracing.segment(location.source or "", node)
    after = repr(close[0])
    return rewrite_fix(
        ctx, place, _tracing.replacing(node, before, after), label=f"Name {close[0]}",
        summary=(f"Write {after} for {before} in {found['option']} on {place.label}: "
                 + (f"{before} names no parameter, and {close[0]} is the one the function "
                    "needs as a Python value" if needed else
                    f"the function's parameter is {close[0]}") + "; then re-run."),
        safety=(f"Same values: {found['option']} names the parameter jit treats that way, "
                + (f"and {needed}." if needed else
                   f"and {close[0]} is the one parameter whose name is close to {before}.")),
        safe=True)


def _needed_static(ctx: ErrorContext, tree: ast.Module, option: ast.keyword,
                   valid: list[str]) -> list[str]:
    """The parameters of the function ``option`` (``static_argnames=...``) jits that it
    uses where a Python value is needed and the option does not name already: the function
    is the one the option's decorator sits on, or the one ``jax.jit(f, ...)`` names."""
    func: ast.FunctionDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
                option in ast.walk(d) for d in node.decorator_list):
            func = node
        elif isinstance(node, ast.Call) and option in node.keywords and node.args \
                and isinstance(node.args[0], ast.Name):
            defined = _static_site.latest_top_level(ctx, ast.FunctionDef, node.args[0].id)
            func = defined[1] if defined is not None else None
    if func is None or func.args.vararg or func.args.kwarg:
        return []
    named = {n.value for n in ast.walk(option.value) if isinstance(n, ast.Constant)}
    return [a.arg for a in func.args.args + func.args.kwonlyargs
            if a.arg in valid and a.arg not in named
            and _static_fix.needs_value(ctx, func, a.arg)]


# -- one int where JAX takes a sequence -------------------------------------------------------

_SEQUENCE_WORDS = re.compile(r"\bmust be a (sequence|tuple)\b.*\bgot (?P<got>-?\d+)\b")


_NOT_A_SEQUENCE = re.compile(r"^object of type 'int' has no len\(\)|^'int' object is not "
                             r"(iterable|subscriptable)")


def _one_dimension_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.random.choice(key, 5, shape=3)`` (``shape argument of jax.random.choice must be
    a sequence, got 3``): the argument JAX's message names is an int where it takes a
    sequence, and a shape of one int is the one-dimensional shape ``(3,)``, what NumPy reads
    it as. Only where the message names the argument and the user's value is that int.
    Where Python's message only says an int is no sequence (``object of type 'int' has no
    len()``), the one int argument bound to a parameter annotated as a sequence
    (``start_indices: Array | Sequence[ArrayLike]``) is the one: ``(1,)`` for ``1``."""
    found = _SEQUENCE_WORDS.search(ctx.top.message)
    plain = _plain_call(ctx, diagnosis)
    if plain is None or (found is None and not _NOT_A_SEQUENCE.match(ctx.top.message)):
        return None
    call, location, node = plain
    signature, bound, _ = _user_call.bind(call)
    evaluate = Evaluator(call.frame)
    if found is not None:
        subject = ctx.top.message[:found.start()]  # "shape argument of jax.random.choice "
        named = {given.node for name, given in (bound.arguments.items() if bound else ())
                 if getattr(given, "node", None) is not None
                 and re.search(rf"(^|[\s`']){re.escape(name)}\b", subject)}
        held = [a for a in named
                if type(evaluate(a)) is int and evaluate(a) == int(found["got"])]
    else:
        held = [given.node for name, given in (bound.arguments.items() if bound else ())
                if getattr(given, "node", None) is not None and signature is not None
                and name in signature.parameters
                and _SEQUENCE_ANNOTATION.search(annotation(signature.parameters[name]))
                and type(evaluate(given.node)) is int]
    if len(held) != 1 and (found is not None or not held):
        return None
    # Python's message names no argument: every int where the signature takes a sequence
    # (`lax.slice(x, 1, 3)`: start and limit) is one, each the sequence of its one number
    edits = tuple((ast.unparse(argument), f"({ast.unparse(argument)},)") for argument in held)
    text, after = edits[0]
    shown = " and ".join(f"`{new}`" for _, new in edits)
    safety = (f"Same values: a shape of one number {text} is the shape of one dimension, "
              f"`{after}`, as NumPy reads it." if found is not None else
              f"Same values: {shown} is the sequence of the one number {text}."
              if len(edits) == 1 else
              f"Same values: {shown} hold the numbers {' and '.join(o for o, _ in edits)}, "
              "each as a sequence of one number.")
    return _rewrite(ctx, location, node, text, after, True,
                    label=f"Use {after}" if len(edits) == 1 else "Use sequences",
                    need="the sequence JAX takes there", changes=None, safety=safety,
                    more=edits[1:])


# an annotation that takes a sequence and not a bare int (`int | Sequence[int]` takes both)
_SEQUENCE_ANNOTATION = re.compile(r"^(?!int\b)(?!.*\bint \|)(?!.*\| int\b).*\b(Sequence|tuple)\[")


# -- dimensions spread over several arguments ---------------------------------------------------

_SHAPE_PARAMETERS = ("shape", "newshape", "axes")


def _spread_shape_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.zeros(2, 3)``, ``jnp.reshape(x, 2, 3)``, ``jnp.transpose(x, 2, 0, 1)``: the
    function takes the dimensions as one tuple (its ``shape``, ``newshape`` or ``axes``
    parameter), the call lists them as separate ints, and the ints after the first landed in
    other parameters (a dtype, an order) or past the last. Read as one tuple, they are the
    dimensions the call lists, in order. Only Python ints, only positional, nothing after."""
    plain = _plain_call(ctx, diagnosis)
    if plain is None:
        return None
    call, location, node = plain
    try:
        parameters = list(inspect.signature(call.function).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    start = next((i for i, p in enumerate(positional) if p.name in _SHAPE_PARAMETERS), None)
    args = node.args
    if start is None or len(args) < start + 2 or any(isinstance(a, ast.Starred) for a in args) \
            or any(k.arg == positional[start].name for k in node.keywords):
        return None
    evaluate = Evaluator(call.frame)
    spread = args[start:]
    if not all(type(evaluate(a)) is int for a in spread):
        return None
    grouped = _grouped(location, node, start)
    if grouped is None:
        return None
    written, inside, after_call = grouped
    lineno = location.lineno
    name = positional[start].name

    transform = _call_replaced(lineno, written, written, lambda: after_call)
    return rewrite_fix(
        ctx, location, transform, label=f"Pass ({inside}) as {name}" if len(inside) <= 20
        else f"Pass {name} as one tuple",
        summary=(f"Write `{after_call}` on line {lineno}: {call.spelled} takes its {name} as "
                 "one tuple; then re-run."),
        safety=(f"Same dimensions: ({inside}) lists the ints the call gave, in their order, "
                f"as the one {name} {call.spelled} takes."),
        safe=True)


_ARRAY_MAKERS = ("array", "asarray")


def _spread_values_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.array(1.0, 2.0, 3.0)``: jax.numpy's array takes its values as one sequence, and
    the numbers after the first landed in its ``dtype`` and later parameters. Read as one
    list, they are the values the call lists, in order. Only Python numbers of one type,
    only positional, nothing else passed."""
    plain = _plain_call(ctx, diagnosis)
    if plain is None:
        return None
    call, location, node = plain
    module = getattr(call.function, "__module__", "") or ""
    if getattr(call.function, "__name__", None) not in _ARRAY_MAKERS \
            or not module.startswith("jax") or node.keywords or len(node.args) < 2 \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    evaluate = Evaluator(call.frame)
    kinds = {type(evaluate(a)) for a in node.args}
    if len(kinds) != 1 or not kinds <= {int, float, complex}:
        return None
    grouped = _grouped(location, node, 0)
    if grouped is None:
        return None
    written, inside, _ = grouped
    after_call = written.replace(inside, f"[{inside}]", 1)
    transform = _call_replaced(location.lineno, written, written, lambda: after_call)
    return rewrite_fix(
        ctx, location, transform, label=f"Pass [{inside}]" if len(inside) <= 20
        else "Pass the values as one list",
        summary=(f"Write `{after_call}` on line {location.lineno}: {call.spelled} takes its "
                 "values as one sequence; then re-run."),
        safety=(f"Same values: [{inside}] lists the numbers the call gave, in their order, "
                f"as the one sequence {call.spelled} makes an array of."),
        safe=True)


def _grouped(location: Location, call: ast.Call,
             start: int) -> tuple[str, str, str] | None:
    """The call as its line writes it, the text of its positional arguments from ``start``
    on, and the call with those arguments written as one tuple; None where the line does not
    write the call once."""
    found = _written_call(location, call)
    if found is None:
        return None
    written, tree = found
    raw = written.encode()
    first, last = tree.args[start], tree.args[-1]
    inside = raw[first.col_offset:last.end_col_offset].decode()
    return written, inside, (raw[:first.col_offset].decode() + f"({inside})"
                             + raw[last.end_col_offset:].decode())


# -- several arrays where the function takes one sequence of them ------------------------------

def _joined_arrays_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.concatenate(x, y)``, ``jnp.stack(a, b, c)``, ``jnp.vstack(x, y)``: the function
    takes its arrays as one sequence (its first parameter's annotation says ``Sequence``),
    the call passes them as separate arguments, and the second landed in a parameter that
    takes no array (an axis, a dtype). Read as one tuple, they are the arrays the call lists,
    in order. Only arrays of one number of dimensions, only positional, nothing after."""
    plain = _plain_call(ctx, diagnosis)
    if plain is None:
        return None
    call, location, node = plain
    signature = _user_call.signature_of(call.function)
    if signature is None:
        return None
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    args = node.args
    if not positional or "Sequence" not in str(positional[0].annotation) or len(args) < 2 \
            or any(isinstance(a, ast.Starred) for a in args) \
            or any(k.arg in {p.name for p in positional[:len(args)]}
                   for k in node.keywords):
        return None
    if any("Array" in str(p.annotation) for p in positional[1:len(args)]) or any(
            p.default is p.empty for p in positional[1:]):
        return None  # a later parameter takes an array too, or must be given: not this
    evaluate = Evaluator(call.frame)
    # an argument the line computes (jnp.ones((2, 3))) is read as JAX's frame received it
    got = _received(ctx, getattr(call.function, "__name__", "")) or {}
    values = [got.get(positional[index].name, CANNOT)
              if (value := evaluate(arg)) is CANNOT and index < len(positional) else value
              for index, arg in enumerate(args)]
    dimensions = {getattr(value, "ndim", None) if _array_dtype_kind(value) is not None else None
                  for value in values}
    if len(dimensions) != 1 or None in dimensions or dimensions == {0}:
        return None
    grouped = _grouped(location, node, 0)
    if grouped is None:
        return None
    written, inside, after_call = grouped
    name = positional[0].name
    transform = _call_replaced(location.lineno, written, written, lambda: after_call)
    return rewrite_fix(
        ctx, location, transform,
        label=f"Pass ({inside}) as {name}" if len(inside) <= 20 else f"Pass {name} as one tuple",
        summary=(f"Write `{after_call}` on line {location.lineno}: {call.spelled} takes its "
                 f"{name} as one sequence, and `{ast.unparse(args[1])}` went to its "
                 f"{positional[1].name}; then re-run."),
        safety=(f"Same arrays: ({inside}) lists the arrays the call gave, in their order, as "
                f"the one {name} {call.spelled} takes; its other parameters keep their "
                "defaults."),
        safe=True)


# -- the call JAX's message prescribes -------------------------------------------------------

_USE = re.compile(r"\b[Uu]se `?(?P<code>[A-Za-z_][\w.]*\(.*)$", re.MULTILINE)
_ATOMIC = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)


def _prescribed(message: str, name: str) -> tuple[ast.expr, str] | None:
    """The call JAX's message tells the user to write (``To recover this behavior, use
    solve(a, b[..., None]).squeeze(-1).``), parsed, and the sentence saying so: the longest
    text after "use" that is an expression, calling the function the user called."""
    for found in _USE.finditer(message):
        code = found["code"]
        for end in range(len(code), 0, -1):
            if code[end - 1] != ")":
                continue
            try:
                tree = ast.parse(code[:end], mode="eval").body
            except SyntaxError:
                continue
            calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and isinstance(n.func, ast.Name) and n.func.id == name]
            if len(calls) == 1:  # the sentence, and the one before it (what it recovers)
                before = message[:found.start("code")].rsplit("\n", 1)[-1].split(". ")[-2:]
                return tree, (". ".join(before) + code[:end]).strip()
            break
    return None


def _prescribed_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.linalg.solve(A, b)`` for a batch of vectors (``Invalid shapes for solve ... To
    recover this behavior, use solve(a, b[..., None]).squeeze(-1)``): JAX's message writes
    the call, in its parameters' names. Each name is the user's argument for it, the
    function is spelled as the user spells it, and the call passes nothing else."""
    plain = _plain_call(ctx, diagnosis)
    if plain is None:
        return None
    call, location, node = plain
    found = _prescribed(ctx.top.message, call.name)
    if found is None:
        return None
    signature, bound, _ = _user_call.bind(call)
    if signature is None or bound is None:
        return None
    template, sentence = found
    given = {name: value.text for name, value in bound.arguments.items()
             if isinstance(value, _user_call.Argument)}
    used = {n.id for n in ast.walk(template) if isinstance(n, ast.Name)} - {call.name}
    if not used or not used <= set(given) or set(given) - used:
        return None  # a name the call does not pass, or an argument the template drops
    nodes = {name: value.node for name, value in bound.arguments.items()
             if isinstance(value, _user_call.Argument)}

    class _Bind(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.expr:
            if name.id == call.name:
                return ast.parse(ast.unparse(node.func), mode="eval").body
            text = given[name.id]
            return ast.parse(text if isinstance(nodes[name.id], _ATOMIC) else f"({text})",
                             mode="eval").body

    after = ast.unparse(_Bind().visit(template))
    written = _written(_statement_text(location), node)
    if written is None:
        return None
    return rewrite_fix(
        ctx, location, _call_replaced(location.lineno, written, written, lambda: after),
        label="Use the call JAX suggests" if len(after) > 40 else f"Use {after}",
        summary=f"Write `{after}` for `{written}` on line {location.lineno}; then re-run.",
        safety=(f"What JAX's own message prescribes for this call, with your arguments: "
                f"\"{sentence}\"."),
        safe=True)


# -- one value where the extra arguments for a function go -----------------------------------

_EXTRA = re.compile(r"\b(?P<name>args) argument to [\w.]+ must be a tuple, got ")


def _extra_arguments_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``minimize(loss, x0, obs)`` (``args argument to jax.scipy.optimize.minimize must be a
    tuple``): ``args`` holds the extra arguments the function is called with, so one value
    there is the tuple of that one argument (jax-ml/jax#5732)."""
    found = _EXTRA.search(ctx.top.message)
    plain = _plain_call(ctx, diagnosis) if found is not None else None
    if found is None or plain is None:
        return None
    call, location, node = plain
    argument = _given(call, found["name"])
    if argument is None:
        return None
    text = ast.unparse(argument)
    return _rewrite(ctx, location, node, text, f"({text},)", True,
                    label=f"Pass ({text},)" if len(text) <= 20 else "Pass a 1-tuple",
                    need=f"the tuple of extra arguments {call.spelled} passes on",
                    safety=(f"Same call: {call.spelled} calls the function with the items of "
                            f"{found['name']} after its first argument, and `({text},)` "
                            f"holds the one argument `{text}`."),
                    changes=None)


# -- one point where jvp takes a tuple of them ----------------------------------------------

_POINTS = re.compile(r"primal and tangent arguments to [\w.]+ must be tuples or lists; found "
                     r"(?P<primal>\w+) and (?P<tangent>\w+)")


def _point_tuple_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.jvp(f, params, v)`` (``must be tuples or lists; found dict and dict``): jvp takes
    a tuple with one point per argument of ``f``, and a tuple of tangents; a function of one
    argument gets 1-tuples (google/flax#580)."""
    found = _POINTS.search(ctx.top.message)
    plain = _plain_call(ctx, diagnosis) if found is not None else None
    if found is None or plain is None or found["primal"] in ("tuple", "list"):
        return None
    call, location, node = plain
    points, directions = _given(call, "primals"), _given(call, "tangents")
    if points is None or directions is None:
        return None
    primals, tangents = ast.unparse(points), ast.unparse(directions)
    return _rewrite(ctx, location, node, primals, f"({primals},)", True,
                    label=f"Pass ({primals},) and ({tangents},)"
                    if len(primals) + len(tangents) <= 16 else "Pass 1-tuples",
                    need=f"the tuples {call.spelled} takes, one item per argument of the function",
                    safety=(f"Same derivative: {call.spelled} differentiates the function at "
                            f"`{primals}` along `{tangents}`, its one argument and that "
                            "argument's tangent."),
                    changes=None, more=((tangents, f"({tangents},)"),))


# -- a boolean where lax.switch takes a branch index ------------------------------------------

_BOOL_INDEX = re.compile(r"Index type must be an integer, got .* as bool")


def _bool_index_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``lax.switch(is_outlier, [regular, outlier], ...)`` (``Index type must be an integer,
    got ... as bool``; genjax-community/genjax#702): False picks branch 0 and True branch 1,
    as they count in Python, so the boolean as an int32 is the same choice."""
    plain = _plain_call(ctx, diagnosis) if _BOOL_INDEX.search(ctx.top.message) else None
    jnp = ctx.alias("jax.numpy")
    if plain is None or jnp is None:
        return None
    call, location, node = plain
    index = _given(call, "index")
    if index is None:
        return None
    text = ast.unparse(index)
    after = f"{jnp}.int32({text})"
    return _rewrite(ctx, location, node, text, after, True, label=f"Use {after}",
                    need="the branch index as an integer",
                    safety=(f"Same branch: False picks branch 0 and True branch 1, and "
                            f"`{after}` is 0 or 1 the same way."),
                    changes=None)


# -- printf-style placeholders where jax.debug.print formats with str.format -------------------

_UNUSED_ARGS = "Unused positional arguments to `jax.debug.print`"
_PRINTF = re.compile(r"%(?P<flags>[-+ 0#]*)(?P<width>\d*)(?:\.(?P<precision>\d+))?"
                     r"(?P<kind>[dfiegsx])")


def _printf_format_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.debug.print("step %d: %.3f", i, r)`` (google-deepmind/torax PR 1502):
    jax.debug.print formats with str.format, so its ``%d`` placeholders take nothing; the
    same placeholders in str.format's spelling print the same text."""
    plain = _plain_call(ctx, diagnosis) if _UNUSED_ARGS in ctx.top.message else None
    parsed = _tracing.parse(plain[1].source) if plain is not None else None
    if plain is None or parsed is None:
        return None
    location = plain[1]
    # the call as the source writes it (it may run over several lines)
    calls = [n for n in ast.walk(parsed[0]) if isinstance(n, ast.Call)
             and n.lineno <= location.lineno <= (n.end_lineno or 0) and n.args
             and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
             and (dotted(n.func) or "").endswith("print")]
    if len(calls) != 1 or calls[0].args[0].lineno != calls[0].args[0].end_lineno:
        return None
    node = calls[0]
    text = str(node.args[0].value)  # type: ignore[attr-defined]
    found = list(_PRINTF.finditer(text))
    if not found or len(found) != len(node.args) - 1 or "%%" in text or "{" in text:
        return None

    def spelled(match: re.Match[str]) -> str:
        kind = "d" if match["kind"] == "i" else match["kind"]
        precision = f".{match['precision']}" if match["precision"] is not None else ""
        spec = f"{match['flags']}{match['width']}{precision}{kind}"
        return "{" + (":" + spec if spec != "s" else "") + "}"

    before = _tracing.segment(location.source or "", node.args[0], strip=False)
    quote = before[0] if before[:1] in ("'", '"') and before[-1:] == before[:1] else None
    body = _PRINTF.sub(spelled, text)
    after = f"{quote}{body}{quote}" if quote is not None and quote not in body \
        and "\\" not in before else repr(body)
    return rewrite_fix(
        ctx, location, _tracing.replacing(node.args[0], before, after),
        label="Use {} placeholders",
        summary=(f"Write {after} for {before} (line {node.args[0].lineno}): jax.debug.print "
                 "fills str.format's placeholders; then re-run."),
        safety=("Same text: each %-placeholder becomes the str.format placeholder that "
                "formats its value the same way."),
        safe=True)


# -- a function given where lax.cond takes its predicate ---------------------------------------

_PREDICATE_TYPE = re.compile(r"Pred type must be either boolean or number, got <function ")


def _predicate_function_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``lax.cond(pred_fun, on_true, on_false, operand)`` (eclipse-qrisp/Qrisp#203): the
    predicate is a function of the same operands the branches take, and cond takes its
    value; calling it with those operands gives that value."""
    plain = _plain_call(ctx, diagnosis) if _PREDICATE_TYPE.search(ctx.top.message) else None
    if plain is None:
        return None
    call, location, node = plain
    pred = _given(call, "pred")
    bound = _user_call.bind(call)[1]
    operands = bound.arguments.get("operands") if bound is not None else None
    if not isinstance(pred, ast.Name | ast.Attribute) \
            or type(operands) is not tuple or not operands \
            or not all(isinstance(o, _user_call.Argument) and o.node is not None
                       for o in operands):
        return None
    text = ast.unparse(pred)
    after = f"{text}({', '.join(o.text for o in operands)})"
    return _rewrite(ctx, location, node, text, after, True, label=f"Pass {after}"
                    if len(after) <= 28 else "Call the predicate",
                    need="the predicate's value, which cond takes",
                    safety=(f"Same choice: cond picks a branch by the predicate's value, and "
                            f"`{after}` is {text}'s value on the operands the branches get."),
                    changes=None)


# -- integers past int32 that an unsigned dtype holds ----------------------------------------

_OUT_OF_INT32 = re.compile(r"Python integer (?P<value>\d+) out of bounds for int32")
# JAX 0.9 and later add "Got <class 'int'> with value N"; the value is read from the call
_PARSED_INT = re.compile(r"An overflow was encountered while parsing an argument to a jitted "
                         r"computation, whose argument path is (?P<name>\w+)")
_UINT32 = 1 << 32


def _unsigned_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.array([2166136261, 16777619])`` (jax-ml/jax#12375): integers past int32 and
    below 2**32, none negative, made an array of uint32, which holds them; or the Python int
    ``maxval=4294967295`` of a call asking ``dtype=jnp.uint32`` (jax-ml/jax#18766) given in
    that dtype."""
    message = ctx.top.message
    literal, passed = _OUT_OF_INT32.search(message), _PARSED_INT.search(message)
    plain = _plain_call(ctx, diagnosis) if literal or passed else None
    jnp = ctx.alias("jax.numpy")
    if plain is None or jnp is None:
        return None
    call, location, node = plain
    if literal is not None:
        values = node.args[0] if len(node.args) == 1 and not node.keywords else None
        try:
            numbers = ast.literal_eval(values) if values is not None else None
        except ValueError:
            return None
        if call.name not in ("array", "asarray") or type(numbers) not in (list, tuple) \
                or not numbers or not all(type(n) is int and 0 <= n < _UINT32
                                          for n in numbers):
            return None
        text = ast.unparse(values)  # type: ignore[arg-type]  # read above
        return _rewrite(ctx, location, node, text, f"{text}, dtype={jnp}.uint32", True,
                        label="Make them uint32", need="the unsigned type that holds them",
                        safety=("Same numbers: each is a whole number from 0 below 2**32, "
                                "which uint32 holds exactly."),
                        changes=None)
    if passed is None:
        return None
    argument, dtype = _given(call, passed["name"]), _given(call, "dtype")
    if argument is None or dtype is None or ast.unparse(dtype).rsplit(".", 1)[-1] != "uint32":
        return None
    value = Evaluator(call.frame)(argument)
    if type(value) is not int or not 0 <= value < _UINT32:
        return None
    text = ast.unparse(argument)
    after = f"{jnp}.uint32({text})"
    return _rewrite(ctx, location, node, text, after, True, label=f"Pass {after}",
                    need=f"{passed['name']} in the dtype the call asks for",
                    safety=(f"Same number: {value} is below 2**32, so uint32, the dtype the "
                            "call asks for, holds it exactly."),
                    changes=None)


# -- a 64-bit dtype where JAX computes in 32 bits ------------------------------------------

# the float types a 64-bit one is canonicalized to while ``jax_enable_x64`` is off (integers
# are not: a number past int32 would change, not round)
_NARROWED = {"float64": "float32", "complex128": "complex64"}


class _Narrowed(ast.NodeTransformer):
    """Each 64-bit float dtype written as ``module.float64`` or ``"float64"``, narrowed."""

    def __init__(self, modules: set[str]) -> None:
        self.modules = modules
        self.count = 0

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if node.attr in _NARROWED and dotted(node.value) in self.modules:
            self.count += 1
            return ast.copy_location(ast.Attribute(value=node.value, attr=_NARROWED[node.attr],
                                                   ctx=node.ctx), node)
        return self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and node.value in _NARROWED:
            self.count += 1
            return ast.copy_location(ast.Constant(_NARROWED[node.value]), node)
        return node


def _canonical_dtype_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.ShapeDtypeStruct((), np.float64)`` as a callback's result type while 64-bit
    values are off (AMICI-dev/AMICI#2529): JAX's check compares the dtype with its canonical
    form (``dtypes.canonicalize_dtype(dt) != dt``), the 32-bit type JAX computes in for
    every other request of a 64-bit float while ``jax_enable_x64`` is off. The one argument
    of the call that writes 64-bit float dtypes gets their canonical forms; what the callback
    returns is then cast to them, as JAX casts every other 64-bit float."""
    check = diagnosis.check
    plain = (_plain_call(ctx, diagnosis)
             if check is not None and "canonicalize_dtype(" in check.condition else None)
    if plain is None:
        return None
    _, location, node = plain
    modules = {name for module in ("numpy", "jax.numpy")
               for name in (module, ctx.alias(module)) if name is not None}
    written: list[tuple[ast.expr, ast.expr, int]] = []
    for argument in _arguments(node):
        narrowed = _Narrowed(modules)
        after = narrowed.visit(copy.deepcopy(argument))
        if narrowed.count:
            written.append((argument, after, narrowed.count))
    if len(written) != 1:
        return None
    argument, after, count = written[0]
    text, new = ast.unparse(argument), ast.unparse(after)
    fix = _rewrite(ctx, location, node, text, new, True,
                   label="Ask for 32-bit floats",
                   need="the float type JAX computes in while 64-bit values are off",
                   safety=("Same values up to rounding: while jax_enable_x64 is off, JAX "
                           "computes every 64-bit float in 32 bits, and casts what the call "
                           "returns to the type asked for, as it casts every other float64."
                           + ("" if count == 1 else f" ({count} dtypes)")),
                   changes=None)
    return replace(fix, rounding=True)


# -- a real point where a holomorphic derivative takes a complex one ---------------------------

_HOLOMORPHIC = re.compile(r"holomorphic=True requires inputs with complex dtype, but got "
                          r"(?P<dtype>float\d+)")


def _complex_point_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.jacrev(f, holomorphic=True)(v0)`` with a float ``v0`` (jax-ml/jax#3121): the
    same point as a complex number, the input a holomorphic derivative takes."""
    found = _HOLOMORPHIC.search(ctx.top.message)
    plain = _plain_call(ctx, diagnosis) if found is not None else None
    jnp = ctx.alias("jax.numpy")
    if found is None or plain is None or jnp is None:
        return None
    location, node = plain[1], plain[2]
    if not isinstance(node.func, ast.Call) or len(node.args) != 1 or node.keywords:
        return None  # `jax.jacrev(f, holomorphic=True)(v0)`: one point, on the line
    text = ast.unparse(node.args[0])
    kind = "complex128" if found["dtype"] == "float64" else "complex64"
    after = f"{jnp}.asarray({text}, {jnp}.{kind})"
    return _rewrite(ctx, location, node, text, after, True, label=f"Pass {text} as {kind}",
                    need="the point as a complex number",
                    safety=(f"Same point: {text}'s real values as complex numbers with no "
                            "imaginary part, where a holomorphic derivative is taken."),
                    changes=None)


# -- a value of another dtype than the one JAX's message says it expects -------------------

# JAX's words for the dtype it expected and the one it got: a PRNG key's data ("expected
# key_data.dtype = uint32; got dtype=int32"), a VJP's cotangent ("got float32[], but expected
# float16[]"), a JVP's tangent ("expected tangent dtype float64, but got tangent dtype
# float32")
_EXPECTED_DTYPE = (
    re.compile(r"expected [\w.]*dtype ?= ?(?P<want>[a-z]+\d*); got dtype ?= ?(?P<got>[a-z]+\d*)"),
    re.compile(r"got (?P<got>[a-z]+\d*)\[(?P<shape>[\d, ]*)\], but expected "
               r"(?P<want>[a-z]+\d*)\[(?P=shape)\]"),
    re.compile(r"expected (?:\w+ )?dtype (?P<want>[a-z]+\d*), but got (?:\w+ )?dtype "
               r"(?P<got>[a-z]+\d*)"),
)


def _dtype_of(value: object) -> str | None:
    """The dtype a value of the call has (a tracer's too), or the kind of a Python number
    (``"f"``, ``"i"``, ``"b"``), which JAX gives the default width of its kind."""
    if type(value) is bool:
        return "b"
    if type(value) is int:
        return "i"
    if type(value) is float:
        return "f"
    if _array_dtype_kind(value) is None:
        return None
    return str(value.dtype)  # type: ignore[attr-defined]  # NumPy's or JAX's own array


def _exactly_as(value: object, got: str, want: str) -> bool:
    """Whether ``value`` (of dtype ``got``) holds the same numbers in dtype ``want``: a wider
    type of its kind always does; otherwise its numbers, read (never a tracer's), are
    compared with themselves cast."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return False
    try:
        before, after = numpy.dtype(got), numpy.dtype(want)
    except TypeError:
        return False
    if before.kind == after.kind and after.itemsize >= before.itemsize:
        return True
    if before.kind == "b" or after.kind not in "iuf" or _traced(value) \
            or getattr(value, "size", 1) > _MAX_READ:
        return False
    try:
        held = numpy.asarray(value)
        cast = held.astype(after)
        # a value the cast overflows (to inf, or wrapped around) compares unequal
        return bool(numpy.array_equal(cast, held, equal_nan=after.kind == "f"))
    except (TypeError, ValueError, OverflowError):
        return False


def _expected_dtype_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """A value of the user's call whose dtype is the one JAX's message says it got, where
    it expected another that holds the same numbers: ``pullback(1.0)`` for a float16 output
    (jax-ml/jax#9994), a float32 tangent for a float64 point (mfschubert/sparsejac#11), int32
    key data where uint32 is expected (mlcommons/algorithmic-efficiency#801): the value cast
    to the expected dtype, where it is the one argument (or the one item of a tuple or list
    argument) of that dtype."""
    found = next((m for pattern in _EXPECTED_DTYPE
                  if (m := pattern.search(ctx.top.message)) is not None), None)
    plain = _plain_call(ctx, diagnosis) if found is not None else None
    jnp = ctx.alias("jax.numpy")
    if found is None or plain is None or jnp is None or found["want"] == found["got"]:
        return None
    call, location, node = plain
    want, got = found["want"], found["got"]
    evaluate = Evaluator(call.frame)
    exact: list[tuple[ast.expr, ast.expr, object]] = []
    kind: list[tuple[ast.expr, ast.expr, object]] = []  # Python numbers of got's kind
    for argument in _arguments(node):
        items = argument.elts if isinstance(argument, ast.Tuple | ast.List) else [argument]
        for item in items:
            value = evaluate(item)
            dtype = _dtype_of(value) if value is not CANNOT else None
            if dtype == got:
                exact.append((argument, item, value))
            elif dtype is not None and len(dtype) == 1 and got[:1] == dtype:
                kind.append((argument, item, value))
    matches = exact or kind  # an array of that very dtype, else the one Python number
    if len(matches) != 1 or not _exactly_as(matches[0][2], got, want):
        return None
    argument, item, value = matches[0]
    text = ast.unparse(item)
    cast = (f"{text}.astype({jnp}.{want})" if _array_dtype_kind(value) is not None
            else f"{jnp}.asarray({text}, {jnp}.{want})")
    before, after = text, cast
    if isinstance(argument, ast.Tuple | ast.List):
        texts = [cast if element is item else ast.unparse(element)
                 for element in argument.elts]
        before = ast.unparse(argument)
        after = ("[{}]" if isinstance(argument, ast.List) else
                 "({},)" if len(texts) == 1 else "({})").format(", ".join(texts))
    return _rewrite(ctx, location, node, before, after, True, label=f"Pass {text} as {want}",
                    need=f"{text} in the dtype JAX expects there",
                    safety=(f"Same numbers: {text} is "
                            + (f"{got}" if _array_dtype_kind(value) is not None else
                               f"a Python {type(value).__name__}, which JAX reads as {got}")
                            + f", and {want}, the dtype JAX expects there, holds "
                            + ("each of its numbers" if _array_dtype_kind(value) is not None
                               else "it") + " exactly."),
                    changes=None)


# -- NumPy's out= argument ----------------------------------------------------------------

# JAX's refusals of NumPy's out= (a ufunc's, a reduction's), and Python's where the function
# has no such parameter
_OUT_REFUSED = re.compile(r"^out argument of |The 'out' argument to [\w.]+ is not supported|"
                          r"unexpected keyword argument 'out'")
# jnp.fill_diagonal's refusal of NumPy's in-place default
_INPLACE = "JAX arrays are immutable, must use inplace=False"


def _out_argument_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.add(total, row, out=total)`` as a statement (jax-ml/jax#1328): NumPy writes the
    result into ``total``; a JAX array cannot be written in place, so the statement assigns
    the result to ``total`` instead (``total = jnp.add(total, row)``), and ``y =
    jnp.add(a, b, out=y)`` drops out=. ``jnp.fill_diagonal(d, v)`` as a statement
    (jax-ml/jax#2680), which NumPy does in place: ``d = jnp.fill_diagonal(d, v,
    inplace=False)``, as JAX's message asks."""
    inplace = _INPLACE in ctx.top.message
    plain = _plain_call(ctx, diagnosis) \
        if inplace or _OUT_REFUSED.search(ctx.top.message) else None
    parsed = _tracing.parse(plain[1].source) if plain is not None else None
    if plain is None or parsed is None:
        return None
    location = plain[1]
    tree, code = parsed
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.Expr | ast.Assign) \
                or statement.lineno != location.lineno or statement.end_lineno != location.lineno \
                or not isinstance(statement.value, ast.Call):
            continue
        node = statement.value
        out = next((k for k in node.keywords if k.arg == ("inplace" if inplace else "out")),
                   None)
        written = node.args[0] if inplace and node.args else out.value if out else None
        if not isinstance(written, ast.Name) or any(k.arg is None for k in node.keywords) \
                or (inplace and isinstance(statement, ast.Assign)):
            return None  # an array written in place, by name; a statement that drops it
        target = written.id
        if isinstance(statement, ast.Assign) and [ast.unparse(t) for t in statement.targets] \
                != [target]:
            return None
        rest = [_tracing.segment(code, a) for a in node.args] + [
            f"{k.arg}={_tracing.segment(code, k.value)}" for k in node.keywords if k is not out]
        before = _tracing.segment(code, statement)
        after = (f"{target} = {_tracing.segment(code, node.func)}({', '.join(rest)}"
                 + (", inplace=False)" if inplace else ")"))
        return rewrite_fix(
            ctx, location, _tracing.replacing(statement, before, after),
            label=f"Assign the result to {target}",
            summary=(f"Write `{after}` on line {location.lineno}: NumPy "
                     + ("fills the array in place" if inplace else "'s out= writes the result "
                        f"into {target}")
                     + f"; a JAX array is never written in place, so the result is assigned "
                     f"to {target} instead. Then re-run."),
            safety=(f"Same values: {target} holds the result, as "
                    + ("filling it in place" if inplace else "out=") + " would have made it."),
            safe=True)
    return None


# -- static_argnums or donate_argnums past the function's positional parameters -------------

_ARGNUMS_PAST = re.compile(r"Jitted function has (?P<keyword>static_argnums|donate_argnums)="
                           r"(?P<nums>\([^)]*\)), but only accepts (?P<n>\d+) positional "
                           r"argument")


def _argnums_past_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``@partial(jax.jit, static_argnums=(0, 6))`` on a function of six positional
    parameters (google/trajax#17): position 6 names no parameter; jit warned of such a
    position and ignored it before it made it an error, and the rest mean what they meant.
    The position is dropped (the keyword, where none is left)."""
    found = _ARGNUMS_PAST.search(ctx.top.message)
    location = diagnosis.location
    parsed = _tracing.parse(location.source) if found and location is not None else None
    if found is None or location is None or parsed is None:
        return None
    try:
        listed = ast.literal_eval(found["nums"])
    except (ValueError, SyntaxError):
        return None
    count, keyword = int(found["n"]), found["keyword"]
    tree, code = parsed
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or call.lineno != location.lineno:
            continue
        given = next((k for k in call.keywords if k.arg == keyword), None)
        if given is None or given.value.lineno != given.value.end_lineno:
            continue
        try:
            written = ast.literal_eval(given.value)
        except ValueError:
            return None
        numbers = (written,) if type(written) is int else written
        if type(numbers) not in (tuple, list) or tuple(numbers) != tuple(listed):
            return None
        kept = [n for n in numbers if -count <= n < count]
        past = [n for n in numbers if n not in kept]
        line = location.line
        if kept:
            text = _tracing.segment(code, given.value)
            after = repr(kept[0]) if len(kept) == 1 and type(written) is int else \
                ("(" + ", ".join(map(str, kept)) + ("," if len(kept) == 1 else "") + ")")
            transform = _tracing.replacing(given.value, text, after)
            shown = f"{keyword}={after}"
        else:
            before = _tracing.segment(code, call)
            others = [_tracing.segment(code, a) for a in call.args] + [
                _tracing.segment(code, k) if k.arg is None else
                f"{k.arg}={_tracing.segment(code, k.value)}"
                for k in call.keywords if k is not given]
            after = f"{_tracing.segment(code, call.func)}({', '.join(others)})"
            if call.lineno != call.end_lineno or before not in line:
                return None
            transform = _tracing.replacing(call, before, after)
            shown = after
        where = "position" if len(past) == 1 else "positions"
        return rewrite_fix(
            ctx, location, transform,
            label=f"Drop {where} {', '.join(map(str, past))}",
            summary=(f"Write `{shown}` on line {location.lineno}: the function takes "
                     f"{count} positional arguments, so {keyword} {', '.join(map(str, past))} "
                     "names none of them. Then re-run."),
            safety=(f"Same values: {where} {', '.join(map(str, past))} named no parameter "
                    "(jit warned of such positions and ignored them before it made them an "
                    "error); the others are as they were."),
            safe=True)
    return None


# -- positional-only parameters passed by keyword ------------------------------------------

_POSITIONAL_ONLY = re.compile(r"(?P<function>\w+)\(\) got some positional-only arguments "
                              r"passed as keyword arguments: '(?P<names>[\w, ]+)'")


def _positional_only_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.where(mask, x=new, y=old)`` (adaptive-intelligent-robotics/QDax#178): Python
    refuses keywords for positional-only parameters. Where the keywords it names are the
    parameters right after the positional arguments, passing them by position, in the
    signature's order, gives the function the same arguments. Read at the line that made
    the call (the deepest of the user's), with the callee's signature from its live value;
    every call of the function in the same scope that does the same is rewritten too."""
    found = _POSITIONAL_ONLY.search(ctx.top.message)
    if found is None:
        return None
    names = {n.strip() for n in found["names"].split(",")}

    return _by_position_in_scope(
        ctx, names, lambda node: (dotted(node.func) or "").rsplit(".", 1)[-1]
        == found["function"], lambda f: _owned(f, ("jax", "numpy")),
        label="Pass them by position",
        why=f"{found['function']} takes them by position only")


def _by_position_in_scope(ctx: ErrorContext, names: set[str],
                          callee: Callable[[ast.Call], bool],
                          readable: Callable[[object], bool], *, label: str,
                          why: str) -> Fix | None:
    """Every call in the failing line's scope (``callee`` tells which) that passes the
    keywords ``names``, written with them by position in the callee's order
    (``_positional.by_position``): the calls on the failing line (the deepest of the
    user's), all of one function, give the function, read live where ``readable`` says its
    signature can be read without running code; every such call must be the same function,
    or no fix."""
    live = _tracing.live_line(ctx)
    if live is None:
        return None
    location, frame, tree, code = live
    scope = _scopes.enclosing_function(tree, location.lineno)
    nodes = _scopes.own_nodes(scope) if scope is not None else list(ast.walk(tree))
    calls = [node for node in nodes if isinstance(node, ast.Call)
             and node.lineno == node.end_lineno and callee(node)
             and names <= {k.arg for k in node.keywords}
             and not any(isinstance(a, ast.Starred) for a in node.args)]
    failing = [node for node in calls if node.lineno == location.lineno]
    if not failing or len({ast.unparse(node.func) for node in failing}) != 1:
        return None
    function = Evaluator(frame)(failing[0].func)
    if not readable(function):
        return None
    try:
        parameters = list(inspect.signature(function).parameters.values())  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    edits = []
    for node in calls:
        after = _positional.by_position(code, node, parameters, names)
        if ast.unparse(node.func) != ast.unparse(failing[0].func) or after is None:
            return None
        edits.append((node, _tracing.segment(code, node), after))
    shown = _tracing.quoted(sorted(names))
    lines = sorted({node.lineno for node, _, _ in edits})
    name = _tracing.segment(code, failing[0].func)
    return rewrite_fix(
        ctx, location, _tracing.replacing_each(edits), label=label,
        summary=(f"Pass {shown} by position, in {name}'s order, on line"
                 f"{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}: "
                 f"{why}. Then re-run."),
        safety=("Same values: the function gets the same arguments, by position, in its "
                "signature's order."),
        safe=True)


# -- static_argnums of jax.checkpoint, counted over the call's positional arguments ---------

_REMAT_POSITIONS = re.compile(r"the `static_argnums` argument to `jax\.checkpoint`.*"
                              r"`len\(args\)` = (?P<given>\d+)", re.DOTALL)


def _static_positions_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``block(h, use_skip=True)`` for ``@partial(jax.checkpoint, static_argnums=(1,))``
    (``the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can only take integer
    values ... less than `len(args)```): checkpoint counts its static positions over the
    positional arguments only, and a keyword is none. Where the call's keywords are the
    parameters right after its positional ones, passing them by position gives the function
    the same arguments, and the static one is then where static_argnums says; every call
    of the function in the scope that passes them by keyword is rewritten too."""
    found = _REMAT_POSITIONS.search(ctx.top.message)
    location = ctx.deepest_user_location() if found is not None else None
    parsed = _tracing.parse(location.source) if location is not None else None
    if found is None or location is None or parsed is None:
        return None
    given = int(found["given"])
    keyworded = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
                 and node.lineno == location.lineno and len(node.args) == given
                 and node.keywords and all(k.arg is not None for k in node.keywords)
                 and isinstance(node.func, ast.Name | ast.Attribute)]
    if not keyworded or len({ast.unparse(node.func) for node in keyworded}) != 1:
        return None
    names = {k.arg for k in keyworded[0].keywords if k.arg is not None}
    text = ast.unparse(keyworded[0].func)
    return _by_position_in_scope(
        ctx, names, lambda node: ast.unparse(node.func) == text,
        lambda function: isinstance(function, FunctionType)
        and hasattr(function, "__wrapped__"),
        label="Pass them by position",
        why="jax.checkpoint counts static_argnums over positional arguments only")


def _without(location: Location, node: ast.Call, keyword: ast.keyword
             ) -> tuple[str, str] | None:
    """The call as the line writes it, and the call without ``keyword``."""
    kept = [ast.unparse(a) for a in node.args] + [
        ast.unparse(k) if k.arg is None else f"{k.arg}={ast.unparse(k.value)}"
        for k in node.keywords if k is not keyword]
    written = _written(_statement_text(location), node)
    return None if written is None else (written, f"{ast.unparse(node.func)}({', '.join(kept)})")


# -- a keyword JAX took and ignored, then refused -----------------------------------------------

# (function, keyword, what the release history says): JAX accepted the keyword and ignored
# it (with a warning), then refused it; dropping it keeps what JAX computed
_NO_EFFECT = (
    # jax-ml/jax 9b79f65 (jax 0.4.28): "The 'kind' argument to sort has no effect"
    ("sort", "kind", "jnp.sort's kind= had no effect in JAX (deprecated with a warning), and "
     "was refused from jax 0.4.28; JAX's sort is stable unless stable=False"),
    ("argsort", "kind", "jnp.argsort's kind= had no effect in JAX (deprecated with a "
     "warning), and was refused from jax 0.4.28; JAX's sort is stable unless stable=False"),
)


def _no_effect_keyword_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.argsort(scores, kind="mergesort")`` (jax-ml/jax#19220): a keyword JAX ignored,
    then refused. Dropping it computes what JAX computed with it."""
    plain = _plain_call(ctx, diagnosis)
    if plain is None:
        return None
    call, location, node = plain
    row = next(((k, why) for f, k, why in _NO_EFFECT
                if f == call.name and f"'{k}' argument to {f} is not supported"
                in ctx.top.message), None)
    keyword = next((k for k in node.keywords if row is not None and k.arg == row[0]), None)
    if row is None or keyword is None:
        return None
    text = f"{keyword.arg}={ast.unparse(keyword.value)}"
    dropped = _without(location, node, keyword)
    if dropped is None:
        return None
    written, after = dropped
    return rewrite_fix(
        ctx, location, _call_replaced(location.lineno, written, written, lambda: after),
        label=f"Drop {keyword.arg}=",
        summary=f"Write `{after}` for `{written}` on line {location.lineno}; then re-run.",
        safety=f"Same values: {row[1]}. Without `{text}` it computes what it did.",
        safe=True)


# -- a keyword an earlier JAX took, which this one hands on to the callback -----------------

# (function, keyword, its value, what replaces it, what the release history says): JAX
# removed the keyword, and the function's **kwargs now hand it to the user's callback
_REMOVED_INTO_KWARGS = (
    # jax-ml/jax 1d27d420 (jax 0.4.35) deprecated it; a9e0f0b3 (jax 0.10.0) removed it
    ("pure_callback", "vectorized", True, 'vmap_method="legacy_vectorized"',
     "JAX kept vmap_method='legacy_vectorized' for what vectorized=True did (deprecated in "
     "jax 0.4.35, removed in 0.10.0)"),
    ("pure_callback", "vectorized", False, 'vmap_method="sequential"',
     "vmap_method='sequential' is what vectorized=False did, a loop over the batch "
     "(deprecated in jax 0.4.35, removed in 0.10.0)"),
)


def _removed_keyword_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.pure_callback(f, out, m, vectorized=True)`` under vmap (``requires vmap_method
    == 'legacy_vectorized' or ...``, fmmax-style code written for an older JAX): the keyword
    is gone, so **kwargs took it for the callback, and vmap found no vmap_method. The
    keyword that replaced it, with the value that does what the old one did, is written
    instead; only where this JAX's function takes that keyword (probed)."""
    live = _tracing.live_line(ctx)
    if live is None:
        return None
    location, frame, tree, code = live
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno != location.lineno:
            continue
        name = (dotted(node.func) or "").rsplit(".", 1)[-1]
        for function, keyword, value, after, why in _REMOVED_INTO_KWARGS:
            given = next((k for k in node.keywords if k.arg == keyword), None)
            if name != function or given is None or not isinstance(given.value, ast.Constant) \
                    or given.value.value is not value or not (
                        after.split("=")[0] in ctx.top.message
                        or f"'{keyword}'" in ctx.top.message):
                continue  # the error is not about the keyword's work, nor the keyword
            taken = _signature(Evaluator(frame)(node.func))
            if taken is None or keyword in taken or after.split("=")[0] not in taken:
                return None
            code = location.source or ""
            before = _tracing.segment(code, given)
            return rewrite_fix(
                ctx, location, _tracing.replacing(given, before, after),
                label=f"Use {after}",
                summary=(f"Write `{after}` for `{before}` on line {given.lineno}: this JAX's "
                         f"{function} no longer takes {keyword}=, and hands it on to your "
                         "callback. Then re-run."),
                safety=f"Same values: {why}.", safe=True)
    return None


def _owned(function: object, packages: tuple[str, ...]) -> TypeGuard[Callable[..., Any]]:
    """Whether ``function`` is a callable of one of ``packages`` (JAX's, NumPy's own), whose
    signature can be read without running the user's code."""
    module = getattr(function, "__module__", None)
    return callable(function) and isinstance(module, str) and module.startswith(packages)


def _signature(function: object) -> set[str] | None:
    """The parameter names of JAX's own ``function``, read without calling it."""
    if not _owned(function, ("jax",)):
        return None
    try:
        return set(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


# -- array bounds for a draw whose shape was left at () ------------------------------------

def _bounds_shape_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.random.uniform(key, minval=lo, maxval=hi)`` with ``lo`` and ``hi`` arrays of
    shape (5,) (glass-dev/glass#1117: per-bin bounds): ``shape`` defaults to ``()``, one
    draw, and JAX fails to fit five bounds to it (``reshape total size must be unchanged``;
    in 0.10 a lowering error). NumPy's ``uniform(low, high)`` draws one number per element
    of the bounds (jax-ml/jax#4033 asked JAX to broadcast them as NumPy does); ``shape=``
    the bounds' shape is that draw: written as the bound array's ``.shape`` where the other
    is a number or of the same shape."""
    plain = _plain_call(ctx, diagnosis)
    if plain is None or not any(word in ctx.top.message
                                for word in ("elements", "reshape", "broadcast", "shape")):
        return None
    call, location, node = plain
    function = call.function
    if getattr(function, "__name__", None) != "uniform" \
            or not str(getattr(function, "__module__", "")).startswith("jax"):
        return None
    signature, bound, _ = _user_call.bind(call)
    if signature is None or bound is None or "shape" in bound.arguments \
            or "shape" not in signature.parameters:
        return None
    # the bounds as JAX's uniform received them (an expression such as `lo + 1` included)
    received = _received(ctx, "uniform")
    if received is None:
        return None
    shapes: dict[str, tuple[int, ...]] = {}
    for name in ("minval", "maxval"):
        value = received.get(name)
        if isinstance(value, int | float):
            continue
        shape = _shapes.array_shape(value)
        if shape is None:
            return None
        if shape:
            shapes[name] = shape
    if not shapes or len(set(shapes.values())) != 1:
        return None  # no array bound, or bounds whose broadcast shape is another
    name = "minval" if "minval" in shapes else "maxval"
    argument = bound.arguments[name]
    text = argument.text if isinstance(argument, _user_call.Argument) \
        and isinstance(argument.node, ast.Name | ast.Attribute) else None
    written = _written(_statement_text(location), node)
    if written is None:
        return None
    shape_text = f"{text}.shape" if text is not None else repr(shapes[name])
    after = written[:-1].rstrip() + f", shape={shape_text})"
    return rewrite_fix(
        ctx, location, _call_replaced(location.lineno, written, written, lambda: after),
        label=f"Pass shape={shape_text}",
        summary=(f"Write `{after}` for `{written}` on line {location.lineno}: one draw for "
                 f"each of the {shapes[name]} bounds; then re-run."),
        safety=(f"What NumPy's uniform(low, high) draws for array bounds: one number per "
                f"element, shape {shapes[name]} (JAX's shape= defaults to (), one number)."),
        safe=True)


# -- mode='raise' where every index is in range -------------------------------------------------

def _raise_mode_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.take(table, codes, axis=0, mode='raise')`` (jax-ml/jax#10333): JAX cannot raise
    from inside a compiled program. Where the indices are concrete and each is in range
    (read from the line's live values), mode='raise' would not have raised, and JAX's
    default gives the same items: the keyword is dropped."""
    plain = _plain_call(ctx, diagnosis) \
        if "The 'raise' mode to jnp.take" in ctx.top.message else None
    numpy = sys.modules.get("numpy")
    if plain is None or numpy is None:
        return None
    call, location, node = plain
    mode = next((k for k in node.keywords if k.arg == "mode"), None)
    table, indices, axis = _given(call, "a"), _given(call, "indices"), _given(call, "axis")
    if mode is None or table is None or indices is None:
        return None
    evaluate = Evaluator(call.frame)
    held, picks = evaluate(table), evaluate(indices)
    where = evaluate(axis) if axis is not None else None
    shape = getattr(held, "shape", None) if _array_dtype_kind(held) else None
    if shape is None or _array_dtype_kind(picks) not in ("i", "u") or _traced(picks) \
            or getattr(picks, "size", _MAX_READ + 1) > _MAX_READ \
            or (axis is not None and type(where) is not int):
        return None
    size = int(numpy.prod(shape)) if axis is None else shape[where]
    values = numpy.asarray(picks)
    if not bool(((values >= 0) & (values < size)).all()):
        return None
    dropped = _without(location, node, mode)
    if dropped is None:
        return None
    written, after = dropped
    return rewrite_fix(
        ctx, location, _call_replaced(location.lineno, written, written, lambda: after),
        label="Drop mode='raise'",
        summary=(f"Write `{after}` for `{written}` on line {location.lineno}: every index is "
                 f"in range (0 to {size - 1}), so nothing would raise; then re-run."),
        safety=(f"Same values: each index {ast.unparse(indices)} holds is from 0 to "
                f"{size - 1}, where every mode of take picks the same items."),
        safe=True)


# -- norm over more than two axes ---------------------------------------------------------------

def _vector_norm_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.linalg.norm(a, axis=(1, 2, 3))`` (jax-ml/jax#26112): norm takes one axis (a
    vector norm) or two (a matrix norm). Over more, the vector norm of all their elements
    together is ``jnp.linalg.vector_norm``'s, the formula norm applies along one axis; with
    the same ord."""
    plain = _plain_call(ctx, diagnosis) \
        if "Improper number of axes for norm" in ctx.top.message else None
    if plain is None:
        return None
    call, location, node = plain
    axis, order = _given(call, "axis"), _given(call, "ord")
    module = ast.unparse(node.func).rsplit(".", 1)[0] if isinstance(node.func, ast.Attribute) \
        else None
    linalg = sys.modules.get("jax.numpy.linalg")
    try:
        axes = ast.literal_eval(axis) if axis is not None else None
        kind = ast.literal_eval(order) if order is not None else 2
    except ValueError:
        return None
    if call.name != "norm" or module is None or not hasattr(linalg, "vector_norm") \
            or type(axes) is not tuple or len(axes) < 3 \
            or type(kind) not in (int, float) or type(kind) is bool:
        return None
    before = ast.unparse(node.func)
    after = f"{module}.vector_norm"
    written = _written(_statement_text(location), node)
    if written is None or not written.startswith(before):
        return None
    return rewrite_fix(
        ctx, location, _call_replaced(location.lineno, written, written,
                                      lambda: after + written[len(before):]),
        label=f"Use {after}",
        summary=(f"Call {after} instead of {before} on line {location.lineno}: the vector "
                 f"norm over the {len(axes)} axes together; then re-run."),
        safety=(f"Same values: the {kind}-norm of the elements along axes {axes} taken "
                "together, the formula norm applies along one axis."),
        safe=True)


# -- one array passed twice to a call that donates it ---------------------------------------------

_DONATED_TWICE = "Attempt to use a buffer that was previously donated in the same call"


def _donated_twice_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``step(totals, totals)`` of a function jitted with ``donate_argnums=(0,)``
    (jax-ml/jax#9635): the donated buffer is also passed as another argument, which then
    reads a buffer already given away. Each later occurrence passes a copy: the same values
    in a buffer of its own."""
    plain = _plain_call(ctx, diagnosis) if _DONATED_TWICE in ctx.top.message else None
    if plain is None:
        return None
    _, location, node = plain
    names = [a.id for a in node.args if isinstance(a, ast.Name)] + [
        k.value.id for k in node.keywords if isinstance(k.value, ast.Name)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if len(twice) != 1:
        return None
    name = twice[0]
    occurrences = [a for a in (*node.args, *(k.value for k in node.keywords))
                   if isinstance(a, ast.Name) and a.id == name]
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    line = [n for n in ast.walk(parsed[0]) if isinstance(n, ast.Call)
            and n.lineno == location.lineno == n.end_lineno
            and ast.dump(n) == ast.dump(node)]
    if len(line) != 1:
        return None
    later = [a for a in (*line[0].args, *(k.value for k in line[0].keywords))
             if isinstance(a, ast.Name) and a.id == name][1:]
    if len(later) != len(occurrences) - 1:
        return None
    return rewrite_fix(
        ctx, location, _tracing.replacing_each([(a, name, f"{name}.copy()") for a in later]),
        label=f"Pass a copy of {name}",
        summary=(f"Pass `{name}.copy()` for the later `{name}` on line {location.lineno}: the "
                 f"call donates {name}'s buffer, so another argument cannot read it; then "
                 "re-run."),
        safety=(f"Same values: `{name}.copy()` holds {name}'s numbers in a buffer of its own, "
                "which the call reads while it takes the donated one."),
        safe=True)


# XLA's two words for it: the buffer donated twice, or donated and also read
_DONATE_SAME = re.compile(r"Attempt to (?:donate the same buffer twice|use a buffer that was "
                          r"previously donated in the same call).*?\(flattened argument "
                          r"(?P<later>\d+),.*first use: (?P<first>\d+)\)")


def _leaves(value: object, out: list[object]) -> bool:
    """``value``'s leaves in the order JAX flattens them (a dict by its sorted keys, a list
    or tuple in order, None as no leaf, anything else one leaf), appended to ``out``; False
    where a container is another kind (a NamedTuple, a dataclass, a registered class, whose
    flattening is the user's code, never run here)."""
    if value is None:
        return True
    if type(value) is dict:
        try:
            keys = sorted(value)
        except TypeError:
            return False
        return all(_leaves(value[k], out) for k in keys)
    if type(value) in (list, tuple):
        return all(_leaves(item, out) for item in value)  # type: ignore[attr-defined]
    if isinstance(value, tuple | list | dict):
        return False
    out.append(value)
    return True


def _aliased_donation_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``train_step(params, state)`` jitted with ``donate_argnums=(0, 1)`` where a leaf of
    ``state`` is the very array a leaf of ``params`` is (an optimizer state that starts at
    the parameters: google-deepmind/optax#1059): XLA's message names the two flattened
    arguments that are one buffer. Read from the call's arguments as JAX flattens them
    (dicts, lists, tuples; the two leaves must be the same object), the later argument is
    passed as a copy of each of its arrays: the same values in buffers of their own."""
    found = _DONATE_SAME.search(ctx.top.message)
    plain = _plain_call(ctx, diagnosis) if found is not None else None
    jax, jnp = ctx.alias("jax"), ctx.alias("jax.numpy")
    if found is None or plain is None or jax is None or jnp is None:
        return None
    call, location, node = plain
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    evaluate = Evaluator(call.frame)
    values = [evaluate(argument) for argument in node.args]
    leaves: list[object] = []
    owner: list[int] = []  # the argument each leaf belongs to
    for position, value in enumerate(values):
        if value is CANNOT or not _leaves(value, leaves):
            return None
        owner += [position] * (len(leaves) - len(owner))
    first, later = int(found["first"]), int(found["later"])
    if not first < later < len(leaves) or leaves[first] is not leaves[later] \
            or owner[first] == owner[later]:
        return None
    argument = node.args[owner[later]]
    text = ast.unparse(argument)
    after = (f"{jax}.tree.map({jnp}.copy, {text})"
             if isinstance(values[owner[later]], dict | list | tuple)
             else f"{jnp}.copy({text})")
    return _rewrite(ctx, location, node, text, after, True, label=f"Pass a copy of {text}",
                    need=(f"its own buffers, where a leaf of it is the very array that "
                          f"`{ast.unparse(node.args[owner[first]])}` also passes"),
                    safety=(f"Same values: the copy holds {text}'s numbers in buffers of its "
                            "own, so the call no longer donates one buffer twice."),
                    changes=None)


_COMPLEX_OUTPUT = re.compile(r"^grad requires real-valued outputs .*but got complex\d+\.")
_JACFWD_TAKES = frozenset({"argnums", "has_aux"})  # grad's keywords jacfwd takes alike


def _complex_output_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.grad(response)(omega)`` of a function of a real number with a complex value
    (jax-ml/jax#22948): grad checked that the output is a scalar, then refused its complex
    dtype. For real inputs, ``jax.jacfwd`` gives the derivative of that same scalar,
    ``df/dx`` (complex, as the output is): what grad gives for a real output."""
    plain = (_plain_call(ctx, diagnosis)
             if _COMPLEX_OUTPUT.search(ctx.top.message) is not None else None)
    jax = ctx.alias("jax")
    if plain is None or jax is None:
        return None
    call, location, node = plain
    maker = node.func
    evaluate = Evaluator(call.frame)
    import jax as jax_module

    if not isinstance(maker, ast.Call) or evaluate(maker.func) is not jax_module.grad \
            or any(k.arg not in _JACFWD_TAKES for k in maker.keywords) or node.keywords:
        return None
    argnums = next((k.value for k in maker.keywords if k.arg == "argnums"), None)
    wanted = evaluate(argnums) if argnums is not None else 0
    positions = (wanted,) if type(wanted) is int else wanted
    if type(positions) is not tuple or not all(type(i) is int for i in positions) or any(
            isinstance(a, ast.Starred) for a in node.args):
        return None
    try:
        points = [evaluate(node.args[i]) for i in positions]
    except IndexError:
        return None
    if not points or not all(_real_point(point) for point in points):
        return None
    calls, code = _tracing.calls_named(location, "grad")
    written = [n for n in calls if ast.dump(n) == ast.dump(maker)]
    if len(written) != 1:
        return None
    return _contract_dropins.callee_written(
        ctx, location, code, written[0], f"{jax}.jacfwd", label="Use jax.jacfwd",
        why="the derivative of a complex output at a real point",
        safety=("Same derivative: for a real point and a complex scalar output, jax.jacfwd "
                "gives df/dx, the derivative grad gives for a real output, complex as the "
                "output is."))


def _real_point(value: object) -> bool:
    """A real float number or NumPy/JAX array (what grad differentiates at, real); the
    array's dtype read as ``_array_dtype_kind`` reads it, never a user's property."""
    kind = _array_dtype_kind(value)
    return _is_float_scalar(value) or kind == "f" or (
        kind == "V" and str(value.dtype) == "bfloat16")  # type: ignore[attr-defined]


# -- a custom JVP rule that returns the tangent alone ---------------------------------------

_JVP_PAIR = re.compile(r"Custom JVP rule (?P<rule>\w+) for function (?P<function>\w+) must "
                       r"produce a pair \(list or tuple of length two\)")


def _from_parameter(func: ast.FunctionDef, parameter: str) -> set[str]:
    """``parameter`` and the names the function unpacks from it (``(x,), (t,) = primals,
    tangents`` binds ``t`` from ``tangents``), followed through plain assignments."""
    names = {parameter}
    for _ in range(3):
        for node in ast.walk(func):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0], node.value
            pairs = list(zip(target.elts, value.elts, strict=False)) \
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
                else [(target, value)]
            for left, right in pairs:
                if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(right)):
                    names |= {n.id for n in ast.walk(left) if isinstance(n, ast.Name)}
    return names


def _jvp_pair_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``@f.defjvp`` rule that returns only the tangent (jax-ml/jax#2516): the rule must
    return the primal output and the tangent. The primal output is the function applied to
    the primals, ``f(*primals)``, the value JAX checks the rule's against, so each return
    that gives one expression reading the tangents gives ``f(*primals), expression``."""
    found = _JVP_PAIR.search(ctx.top.message)
    if found is None or not (ctx.type_of(found["function"]) or "").endswith(".custom_jvp"):
        return None  # the notebook's global of that name is the custom_jvp function
    defined = _static_site.latest_top_level(ctx, ast.FunctionDef, found["rule"])
    parsed = _tracing.parse(defined[0].source) if defined is not None else None
    if defined is None or parsed is None:
        return None
    place, func = defined
    parameters = [a.arg for a in func.args.args]
    if len(parameters) != 2 or func.args.vararg or func.args.kwonlyargs:
        return None
    tangents = _from_parameter(func, parameters[1])
    returns = [node for node in ast.walk(func) if isinstance(node, ast.Return)]
    if not returns or any(
            r.value is None or isinstance(r.value, ast.Tuple | ast.List)
            or r.value.lineno != r.value.end_lineno
            or not any(isinstance(n, ast.Name) and n.id in tangents for n in ast.walk(r.value))
            for r in returns):
        return None
    code = parsed[1]
    function = found["function"]
    edits = [(r.value, _tracing.segment(code, r.value),
              f"{function}(*{parameters[0]}), {_tracing.segment(code, r.value)}")
             for r in returns if r.value is not None]
    location = replace(place, lineno=returns[0].lineno, line="")
    return rewrite_fix(
        ctx, location, _tracing.replacing_each(edits),
        label=f"Return {function}(*{parameters[0]}) and the tangent",
        summary=(f"Make {found['rule']} return `{function}(*{parameters[0]})`, the primal "
                 "output, before the tangent it returns now; then re-run."),
        safety=(f"Same values: a JVP rule returns the primal output and the tangent, and "
                f"`{function}(*{parameters[0]})` is the primal output, {function} applied to "
                "the primals; the tangent is what the rule computed."),
        safe=True)


# -- a tangent built as a tuple where its point is a NamedTuple ------------------------------

_TANGENT_TREES = "primal and tangent arguments to jax.jvp must have the same tree structure"


def _tangent_container_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.jvp(f, (params,), (step,))`` with ``params`` a NamedTuple and ``step`` a plain
    tuple of as many items (google/jaxopt#579): the same tangents in the point's class."""
    plain = _plain_call(ctx, diagnosis) if _TANGENT_TREES in ctx.top.message else None
    if plain is None:
        return None
    call, location, node = plain
    points, tangents = _given(call, "primals"), _given(call, "tangents")
    if not (isinstance(points, ast.Tuple) and isinstance(tangents, ast.Tuple)
            and len(points.elts) == len(tangents.elts)):
        return None
    evaluate = Evaluator(call.frame)
    items, wrapped = [], []
    for point, tangent in zip(points.elts, tangents.elts, strict=True):
        held, given = evaluate(point), evaluate(tangent)
        kind = type(held)
        fields = getattr(kind, "_fields", None)
        item = ast.unparse(tangent)
        if type(given) is tuple and isinstance(fields, tuple) and isinstance(held, tuple) \
                and len(given) == len(fields) \
                and call.frame.f_globals.get(kind.__name__) is kind:
            wrapped.append(item)
            item = f"{kind.__name__}(*{item})"
        items.append(item)
    if len(wrapped) != 1:
        return None
    text = ast.unparse(tangents)
    after = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return _rewrite(ctx, location, node, text, after, True, label=f"Pass {after}",
                    need="the tangent in the container of its point",
                    safety=(f"Same tangent: the items of `{wrapped[0]}` in order, in the "
                            "NamedTuple its point is, so the two trees match."),
                    changes=None)


# -- pad widths written for more axes than the array has -------------------------------------

_PAD_WIDTH = re.compile(r"pad_width with nd=(?P<nd>\d+) has unsupported shape \((?P<n>\d+), 2\)")


def _leading_pads_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jnp.pad(grid, ((0, 0), (1, 1), (1, 1)))`` for a 2-D grid (jax-ml/jax#6605): pad
    widths written for more axes, whose extra leading pairs pad nothing; the trailing pairs
    are the array's own axes, as NumPy lines trailing axes up."""
    found = _PAD_WIDTH.search(ctx.top.message)
    plain = _plain_call(ctx, diagnosis) if found is not None else None
    if found is None or plain is None:
        return None
    call, location, node = plain
    written = _given(call, "pad_width")
    extra = int(found["n"]) - int(found["nd"])
    if not isinstance(written, ast.Tuple | ast.List) or extra <= 0 \
            or len(written.elts) != int(found["n"]):
        return None
    try:
        pairs = [ast.literal_eval(e) for e in written.elts]
    except ValueError:
        return None
    if any(tuple(p) != (0, 0) for p in pairs[:extra] if isinstance(p, tuple | list)) \
            or not all(isinstance(p, tuple | list) for p in pairs[:extra]):
        return None
    kept = written.elts[extra:]
    text = ast.unparse(written)
    after = "(" + ", ".join(ast.unparse(e) for e in kept) + ("," if len(kept) == 1 else "") + ")"
    return _rewrite(ctx, location, node, text, after, True,
                    label=f"Pass {after}" if len(after) <= 24 else "Drop the zero pairs",
                    need="one pair per axis of the array",
                    safety=("Same padding: the leading "
                            + (f"{extra} pairs pad" if extra > 1 else "pair pads")
                            + " nothing, and the others pad the array's axes in order."),
                    changes=None)


# -- a one-item list where the other tree has a leaf ---------------------------------------

_LONE = re.compile(r"`?(?P<name>\w+)`? is a <class '(?:list|tuple)'> but `?(?P<other>\w+)`? is "
                   r"a pytree leaf")


def _lone_item_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``pl.pallas_call(..., out_shape=S, out_specs=[spec])`` (``out_specs is a <class
    'tuple'> but out_shape is a pytree leaf``): two arguments whose trees must match, one a
    list of one item where the other is one leaf. The item alone matches, and the call's
    result keeps the structure of the leaf (jax-ml/jax#19275)."""
    found = _LONE.search(ctx.top.message)
    plain = _plain_call(ctx, diagnosis) if found is not None else None
    if found is None or plain is None:
        return None
    location = plain[1]
    parsed = _tracing.parse(location.source)
    # the keyword as the source writes it (a call over several lines is read whole)
    passed = [k.value for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
              and node.lineno <= location.lineno <= (node.end_lineno or 0)
              for k in node.keywords if k.arg == found["name"]] if parsed is not None else []
    written = passed[0] if len(passed) == 1 else None
    if not isinstance(written, ast.List | ast.Tuple) or len(written.elts) != 1 \
            or isinstance(written.elts[0], ast.Starred):
        return None
    code = location.source or ""
    before = _tracing.segment(code, written, strip=False)
    item = _tracing.segment(code, written.elts[0], strip=False)
    if not before or not item or written.lineno != written.end_lineno:
        return None
    return rewrite_fix(
        ctx, location, _tracing.replacing(written, before, item),
        label=f"Pass {found['name']} without the list",
        summary=(f"Write `{found['name']}={item}` for `{found['name']}={before}` (line "
                 f"{written.lineno}): one {found['name']} for the one {found['other']}; then "
                 "re-run."),
        safety=(f"Same {found['name']}: the list's one item, now a leaf as {found['other']} "
                f"is, so the trees match; the call returns what {found['other']} says, as it "
                "would."),
        safe=True)


# -- a function given where another argument goes ---------------------------------------------

_CALLABLE_PARAMETERS = ("f", "fun", "fn", "func", "function", "body_fun", "cond_fun")


def _takes_callable(parameter: inspect.Parameter) -> bool:
    return "Callable" in str(parameter.annotation) or parameter.name in _CALLABLE_PARAMETERS


def _is_callable(node: ast.expr, evaluate: Evaluator) -> bool | None:
    """Whether the argument is a function (a lambda, or a value whose type can be called:
    Python's ``callable`` reads the type, it calls nothing); None where it cannot be read."""
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.Dict | ast.List | ast.Tuple | ast.Set | ast.Constant
                  | ast.ListComp | ast.DictComp | ast.BinOp | ast.UnaryOp | ast.Compare):
        return False  # arithmetic makes numbers and arrays
    value = evaluate(node)
    return None if value is CANNOT else callable(value)


def _typed_call(ctx: ErrorContext, diagnosis: Diagnosis
                ) -> tuple[_user_call.UserCall, Location, ast.Call, inspect.Signature] | None:
    """The user's plain call on the card's line, where JAX raised a TypeError about it, the
    callee's signature is known and no argument is starred."""
    plain = _plain_call(ctx, diagnosis)
    if plain is None or not ctx.top.is_a("TypeError"):
        return None
    call, location, node = plain
    signature = _user_call.signature_of(call.function)
    if signature is None or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return call, location, node, signature


def _swapped_function_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.tree_util.tree_map(tree, fn)``, ``lax.scan(init, step, xs)``: the parameter that
    takes a function got something that cannot be called, and exactly one other positional
    argument is a function. Swapped, each goes where the signature takes it; kept only if the
    call then runs."""
    typed = _typed_call(ctx, diagnosis)
    if typed is None:
        return None
    call, location, node, signature = typed
    args = node.args
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:len(args)]
    evaluate = Evaluator(call.frame)
    kinds = [_is_callable(a, evaluate) for a in args]
    wanting = [i for i, p in enumerate(positional) if _takes_callable(p) and kinds[i] is False]
    given = [i for i, kind in enumerate(kinds) if kind and i < len(positional)
             and not _takes_callable(positional[i])]
    if len(wanting) != 1 or len(given) != 1 \
            or any(word in positional[given[0]].name for word in ("axis", "axes", "argnums")):
        return None  # an axis or an argument number is not where data goes
    want, give = wanting[0], given[0]
    swapped = _swapped(location, node, want, give)
    if swapped is None:
        return None
    written, after_call = swapped
    function_text = ast.unparse(args[give])
    name = positional[want].name
    transform = _call_replaced(location.lineno, written, written, lambda: after_call)
    return rewrite_fix(
        ctx, location, transform, label=f"Pass {function_text} as {name}"
        if len(function_text) <= 20 else f"Pass the function as {name}",
        summary=(f"Write `{after_call}` on line {location.lineno}: {call.spelled} takes the "
                 f"function as its {name}, and `{ast.unparse(args[want])}` where "
                 f"`{function_text}` stands; then re-run."),
        safety=(f"Same arguments, in the order {call.spelled} takes them: the function as "
                f"{name}, `{ast.unparse(args[want])}` as {positional[give].name}."),
        safe=True)


def _swapped(location: Location, node: ast.Call, first: int, second: int
             ) -> tuple[str, str] | None:
    """The call as its line writes it, and with its positional arguments ``first`` and
    ``second`` in each other's place; None where the line does not write it once."""
    found = _written_call(location, node)
    if found is None:
        return None
    written, tree = found
    raw = written.encode()
    one, other = sorted((tree.args[first], tree.args[second]), key=lambda a: a.col_offset)
    return written, (raw[:one.col_offset] + raw[other.col_offset:other.end_col_offset]
                     + raw[one.end_col_offset:other.col_offset]
                     + raw[one.col_offset:one.end_col_offset]
                     + raw[other.end_col_offset:]).decode()


# -- two arguments each of the kind the other's parameter takes ------------------------------

def _kind(value: object) -> frozenset[str]:
    """What a value is, as parameters take it: a PRNG key (a typed key, or a raw uint32[2]
    one, which is an array too), a shape (a tuple or list of ints; an int is also a
    dimension and a number), a number, an array, a callable."""
    if value is CANNOT or value is None:
        return frozenset()
    if type(value) in (tuple, list):
        return frozenset({"shape"}) if value and all(
            type(item) is int for item in value) else frozenset()  # type: ignore[attr-defined]
    if type(value) is int:
        return frozenset({"shape", "int", "number"})
    if type(value) in (float, complex, bool):
        return frozenset({"number"})
    if type(value).__module__.split(".")[0] not in ("numpy", "jax", "jaxlib"):
        return frozenset({"callable"}) if callable(value) else frozenset()  # nothing of a
        # user's object is read (a property could run)
    dtype = getattr(value, "dtype", None)
    if _array_dtype_kind(value) is not None or (dtype is not None and "key<" in str(dtype)):
        if "key<" in str(dtype):
            return frozenset({"key"})
        raw_key = str(dtype) == "uint32" and tuple(getattr(value, "shape", ())) == (2,)
        return frozenset({"array", "number", "key"} if raw_key else {"array", "number"})
    return frozenset({"callable"}) if callable(value) else frozenset()


def _takes(parameter: inspect.Parameter) -> frozenset[str] | None:
    """The kinds a parameter takes, read from its annotation (its name, for a key, and for a
    shape its annotation leaves open): ``int | tuple[int, ...]`` takes an int or a shape,
    ``RealArray`` an array or a number; None where the annotation says nothing this rule
    reads (``Any``)."""
    text = annotation(parameter)
    if "KeyArray" in text or parameter.name in ("key", "rng", "rng_key"):
        return frozenset({"key"})
    if "Callable" in text:
        return frozenset({"callable"})
    found: set[str] = set()
    if re.search(r"\bShape\b|Sequence\[int\]|tuple\[int\b", text):
        found.add("shape")
    if re.search(r"\bDimSize\b|^int\b|\| int\b", text):
        found.add("int")
    if re.search(r"Array", text) or text == "float":
        found |= {"array", "number"} if text != "float" else {"number"}
    if not found and parameter.name in _SHAPE_PARAMETERS[:2]:  # `jnp.full(shape: Any, ...)`
        found = {"shape", "int"}
    return frozenset(found) or None


def swapped_arguments(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``jax.random.normal((3,), key)``, ``jnp.reshape((2, 3), x)``, ``jnp.full(7.0, (2, 3))``:
    two positional arguments, at least one not of a kind its parameter takes (a tuple where
    an array goes, an array where a shape goes), that each fit the other's parameter, and
    every argument fits once they trade places. The one pair that does that is swapped; kept
    only if the call then runs. Public: an entry whose own fix assumes the argument was meant
    where it is (a seed made a key where a key is passed too) asks it first."""
    typed = _typed_call(ctx, diagnosis)
    if typed is None:
        return None
    call, location, node, signature = typed
    if any(isinstance(a, ast.Starred) for a in node.args):
        return None
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][:len(node.args)]
    evaluate = Evaluator(call.frame)
    kinds = []
    for argument in node.args[:len(positional)]:
        kinds.append(_kind(_contract_call.value_of(call, argument, evaluate)))
    takes = [_takes(p) for p in positional]

    def fits(i: int, j: int) -> bool:  # argument i at parameter j
        wanted = takes[j]
        return wanted is not None and bool(kinds[i] & wanted)

    misfits = [i for i in range(len(kinds)) if takes[i] is not None and not fits(i, i)]
    pairs = [(i, j) for i in range(len(kinds)) for j in range(i + 1, len(kinds))
             if (i in misfits or j in misfits) and fits(i, j) and fits(j, i)
             and all(fits(k, k) for k in misfits if k not in (i, j))]
    if not misfits or len(pairs) != 1:
        return None
    first, second = pairs[0]
    swapped = _swapped(location, node, first, second)
    if swapped is None:
        return None
    written, after_call = swapped
    one, other = ast.unparse(node.args[first]), ast.unparse(node.args[second])
    transform = _call_replaced(location.lineno, written, written, lambda: after_call)
    return rewrite_fix(
        ctx, location, transform, label=f"Swap {one} and {other}"
        if len(one) + len(other) <= 24 else "Swap the two arguments",
        summary=(f"Write `{after_call}` on line {location.lineno}: {call.spelled} takes "
                 f"{positional[first].name} first and {positional[second].name} after it; "
                 "then re-run."),
        safety=(f"Same arguments, each where {call.spelled} takes its kind: `{other}` as "
                f"{positional[first].name}, `{one}` as {positional[second].name}."),
        safe=True)


def _values_as_functions_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``lax.cond(pred, x * 2, -x)`` (``true_fun and false_fun arguments should be
    callable``): values where the function takes functions that it calls with the operands
    the call passes after them, and the call passes none. A function of no arguments that
    returns the value is what each stood for: ``lambda: x * 2``, the value already
    computed, so the result is the same value."""
    typed = _typed_call(ctx, diagnosis) if "callable" in ctx.top.message else None
    if typed is None:
        return None
    call, location, node, signature = typed
    args = node.args
    parameters = list(signature.parameters.values())
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
    rest = next((p for p in parameters if p.kind is p.VAR_POSITIONAL), None)
    functions = [i for i, p in enumerate(positional)
                 if str(p.annotation).startswith("Callable")]
    keywords = {k.arg for k in node.keywords}
    # the functions are called with what comes after them (`*operands`), and nothing does
    if rest is None or not functions or len(args) != len(positional) \
            or functions[-1] != len(positional) - 1 \
            or keywords & {p.name for p in parameters if p.kind is p.KEYWORD_ONLY
                           or p.name.startswith("operand")}:
        return None
    evaluate = Evaluator(call.frame)
    kinds = [_is_callable(args[i], evaluate) for i in functions]
    if any(kind is None for kind in kinds) or all(kinds):
        return None
    found = _written_call(location, node)
    if found is None:
        return None
    written, tree = found
    raw = written.encode()
    after_call = raw
    for i in reversed([i for i, kind in zip(functions, kinds, strict=True) if not kind]):
        argument = tree.args[i]
        start, end = argument.col_offset, argument.end_col_offset or 0
        after_call = after_call[:start] + b"lambda: " + after_call[start:end] \
            + after_call[end:]
    new_call = after_call.decode()
    names = [positional[i].name for i, kind in zip(functions, kinds, strict=True) if not kind]
    transform = _call_replaced(location.lineno, written, written, lambda: new_call)
    return rewrite_fix(
        ctx, location, transform, label="Pass functions: lambda: ...",
        summary=(f"Write `{new_call}` on line {location.lineno}: {call.spelled} takes "
                 f"functions as {' and '.join(names)} and calls the one it picks; each "
                 "becomes a function of no arguments that returns the value written there. "
                 "Then re-run."),
        safety=("Same values: each function returns the value the call computed for it, "
                f"and {call.spelled} returns what the function it picks returns."),
        safe=True)


# -- a loop body that takes no index -----------------------------------------------------------

_TAKES_ONE = re.compile(r"takes 1 positional argument but 2 were given")


def _index_ignored_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``lax.fori_loop(0, n, body, init)`` with ``def body(total)``: fori_loop calls its body
    with the step's index and the carried value, and this body takes the value only. The
    one reading that runs is a body that ignores the index: ``lambda i, total:
    body(total)`` (a lambda of one parameter gets the index as a new first parameter). The
    body computes what it was written to compute, on the values fori_loop carries."""
    call = ctx.user_call
    location = diagnosis.location
    if call is None or location is None or call.location != location \
            or call.name != "fori_loop" or not isinstance(call.node, ast.Call) \
            or not _TAKES_ONE.search(ctx.top.message):
        return None
    from jax_nbhelp.catalog._passed_function import passed_function

    passed = passed_function(ctx, "body_fun")
    _, bound, _ = _user_call.bind(call)
    given = getattr(bound.arguments.get("body_fun"), "node", None) if bound else None
    if passed is None or given is None or len(passed.parameters) != 1 or passed.takes_any:
        return None
    text = ast.unparse(given)
    (carry,) = passed.parameters
    if isinstance(given, ast.Lambda):
        index = next(n for n in ("i", "_i", "step") if n != carry)
        after = f"lambda {index}, {text.removeprefix('lambda ')}"
    else:
        used = {n.id for n in ast.walk(given) if isinstance(n, ast.Name)}
        index, value = next((i, v) for i, v in (("i", "carry"), ("_i", "_carry"))
                            if not {i, v} & used)
        after = f"lambda {index}, {value}: {text}({value})"
    return _rewrite(ctx, location, call.node, text, after, True,
                    label="Body that ignores the index", changes=None,
                    need=(f"so {passed.name} gets the carried value only, as it was written to "
                          "(fori_loop passes the index first)"),
                    safety=(f"Same values: {passed.name} runs as written on the value "
                            "fori_loop carries, and the index it never read is dropped."))


# -- a list of numbers scanned over -------------------------------------------------------------

_NO_LEADING_AXIS = "scan got value with no leading axis to scan over"


def _scanned_list_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """``lax.scan(step, init, [1.0, 2.0, 3.0])``: scan reads a list as a tree whose leaves are
    each scanned along their leading axis, and a number has none. Scanned along the list is
    the one reading that runs: ``jnp.array([...])`` of Python numbers of one type. Each step
    then gets the list's element, converted as JAX converts a Python number of that type."""
    call = ctx.user_call
    location = diagnosis.location
    jnp = ctx.alias("jax.numpy")
    if call is None or location is None or call.location != location or jnp is None \
            or _NO_LEADING_AXIS not in ctx.top.message or not isinstance(call.node, ast.Call) \
            or call.name != "scan" or call.function is None:
        return None
    try:
        bound = inspect.signature(call.function).bind(*call.node.args, **{
            k.arg: k.value for k in call.node.keywords if k.arg is not None})
    except TypeError:
        return None
    xs = bound.arguments.get("xs")
    if not isinstance(xs, ast.List | ast.Tuple) or any(
            isinstance(item, ast.Starred) for item in xs.elts):
        return None
    value = Evaluator(call.frame)(xs)
    kinds = {type(item) for item in value} if isinstance(value, list | tuple) else set()
    if not value or len(kinds) != 1 or kinds - {int, float}:
        return None
    text = ast.unparse(xs)
    after = f"{jnp}.array({text})"
    number = "int" if kinds == {int} else "float"
    return _rewrite(ctx, location, call.node, text, after, True,
                    label="Scan over an array of the list",
                    need="so scan steps through the list's elements", changes=None,
                    safety=(f"Same values: step i gets the list's element i, as the "
                            f"{'int32' if number == 'int' else 'float32'} JAX makes of a Python "
                            f"{number} (64-bit where 64-bit values are on)."))


# -- the rewrite every rule shares -----------------------------------------------------------

def _rewrite(ctx: ErrorContext, location: Location, call: ast.expr, text: str, after: str,
             safe: bool, *, label: str, need: str, safety: str, changes: str | None,
             more: tuple[tuple[str, str], ...] = ()) -> Fix:
    """The fix that writes ``after`` for the argument ``text`` in the user's call (and each
    ``(text, after)`` of ``more`` for its argument too)."""
    edits = ((text, after), *more)

    def edited(written: str) -> str:
        for old, new in edits:
            written = _edited(written, old, new)
        return written

    before_call = ast.unparse(call)
    new_call = edited(before_call)
    written = _written(_statement_text(location), call)

    transform = _call_replaced(location.lineno, written, before_call,
                               lambda: edited(written or ""))
    what = " and ".join(f"`{new}` for `{old}`" for old, new in edits)
    return rewrite_fix(
        ctx, location, transform, label=label,
        summary=f"Write {what} in `{new_call}` on line {location.lineno}, {need}; then re-run.",
        safety=safety, safe=safe, changes=changes)


def _call_replaced(lineno: int, written: str | None, shown: str,
                   new: Callable[[], str]) -> Callable[[str], str]:
    """The rewrite that writes ``new()`` for the call as line ``lineno`` writes it
    (``written``, which may go on over the statement's next lines); it refuses where the
    line no longer holds it exactly once."""

    def transform(source: str) -> str:
        lines = source.split("\n")
        if not 0 < lineno <= len(lines):
            raise CannotRewrite(f"line {lineno} is gone")
        current = lines[lineno - 1]
        if written is not None and "\n" in written:  # a call written over several lines
            start = sum(len(line) + 1 for line in lines[:lineno - 1])
            at = source.find(written, start)
            if at < 0 or at > start + len(current) or source.count(written) != 1:
                raise CannotRewrite(f"`{shown}` is not written once from line {lineno}")
            return source[:at] + new() + source[at + len(written):]
        if written is None or current.count(written) != 1:
            raise CannotRewrite(f"`{shown}` is not written once on line {lineno}")
        lines[lineno - 1] = current.replace(written, new(), 1)
        return "\n".join(lines)

    return transform


def _statement_text(location: Location) -> str:
    """The user's line, stripped; where a simple statement starts there and goes on over
    more lines (a call with one argument per line), all of its lines."""
    parsed = _tracing.parse(location.source)
    line = location.line.strip()
    if parsed is None:
        return line
    last = _tracing.statement_end(parsed[0], location.lineno)
    if last == location.lineno:
        return line
    lines = parsed[1].split("\n")[location.lineno - 1:last]
    return "\n".join([lines[0].lstrip(), *lines[1:]]).rstrip()


def _written(line: str, call: ast.expr) -> str | None:
    """The call as the line writes it (its piece of the line, or of the statement's lines,
    found by parsing them once); None where the line is not a whole statement or holds the
    call other than once."""
    for code in (line, line + " pass"):  # `for i in range(n / 2):` is whole with a body
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        target = ast.dump(call)
        found = [node for node in ast.walk(tree)
                 if isinstance(node, ast.expr) and ast.dump(node) == target]
        if len(found) != 1 or found[0].end_col_offset is None:
            return None
        return ast.get_source_segment(code, found[0])
    return None


def _written_call(location: Location, call: ast.Call) -> tuple[str, ast.Call] | None:
    """The call as the line writes it, and that text parsed (its arguments' offsets are
    the text's)."""
    written = _written(_statement_text(location), call)
    if written is None:
        return None
    tree = ast.parse(written, mode="eval").body
    return (written, tree) if isinstance(tree, ast.Call) else None


def _edited(written: str, text: str, after: str) -> str:
    """``written`` with the argument spelled ``text`` (as Python unparses it) replaced."""
    tree = ast.parse(written, mode="eval").body
    index = _at_index(tree)
    for node in (*_arguments(tree), *((index,) if index is not None else ())):
        if ast.unparse(node) == text and hasattr(node, "col_offset"):
            lines = written.encode().split(b"\n")
            first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
            start = sum(len(line) + 1 for line in lines[:first]) + node.col_offset
            end = sum(len(line) + 1 for line in lines[:last]) + (node.end_col_offset or 0)
            raw = written.encode()
            return (raw[:start] + after.encode() + raw[end:]).decode()
    raise CannotRewrite(f"`{text}` is not an argument of the call as written")
