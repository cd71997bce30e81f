"""A loop whose body returns a carry of another type than the one it was given:
``lax.scan``, ``lax.while_loop`` or ``lax.fori_loop`` (``TypeError: scan body function carry
input and carry output must have equal types, but they differ: The input carry c has type
int32[] but the corresponding output carry component has type float32[], so the dtypes do
not match.``), or of another structure (a dict key dropped).

A compiled loop runs the same body on a carry of one fixed type. Where only the dtype
differs and the body's dtype holds every value of the initial one (int32 to float32), the
initial carry is given the body's dtype: the loop then computes what its body says, from the
same starting values. A literal ``0`` never fails (it is weakly typed and takes the body's
dtype); an explicit ``jnp.int32(0)`` or an int array does. Where the body's dtype is
narrower but holds the starting value exactly (``jnp.float32(jnp.inf)`` for a float16 body,
read live or from the number the dtype's constructor is given), the start is cast too, on
the loop's line or where a name holding the initial carry was assigned once before it.
A field of a named tuple or dataclass carry (``state.n``) is started in the body's dtype
where its start is written: in the constructor on the loop's line, or in the one return of
the notebook function that builds the initial carry (``fire_init(r)``). Shapes and
structures that change are explained with the user's names: which part changes,
and how, except a carry returned as a list for one started as a tuple (or the other way),
which is returned as the container it started as, the same items in the same order. A
``scan`` step that returns one value (``scan body output must be a pair``) returns ``value,
None``: the value is the new carry, and the step outputs nothing per element. A ``scan``
used as a map, its carry started as None, whose step never reads the carry and returns a
number for it, returns None for it where the line discards the final carry (``_, ys =
lax.scan(step, None, xs)``): the outputs are the same (jax-ml/jax#1534).

Reports: patrick-kidger/optimistix#155 (a Newton solver's float32 ``inf`` start for a float16
problem), jax-md/jax-md#99 (a FIRE minimisation's counter turning from int to float in a
scan), google/brax#228 (a reward of shape ``()`` returned as ``(1,)``), jax-ml/jax#1686 (a
``fori_loop`` carry started as ``0`` for a float32 vector), jax-ml/jax#2004 (x64 promoting a
float32 carry to float64), instadeepai/Mava#1184 (a GAE scan whose carry changed).
"""

from __future__ import annotations

import ast
import difflib
import inspect
import re
import sys
from typing import Any

from jax_nbhelp.catalog import (
    _concrete,
    _entry,
    _key_paths,
    _operands,
    _scopes,
    _static_site,
    _tracing,
)
from jax_nbhelp.catalog._example import LAX_IMPORTS, NO_FIX, corrected, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH531"
TITLE = "A loop body returns a carry of another type than it was given"
TYPES = "carry input and carry output must have equal types"
STRUCTURE = "carry input and carry output must have the same pytree structure"
OLD = "the input carry component"
PAIR = "scan body output must be a pair"

_LOOP_RE = re.compile(r"(?P<loop>scan|while_loop|fori_loop) body function carry")
_TYPES_RE = re.compile(r"input carry (?:component )?(?P<path>\S+) has type (?P<given>\S+) but "
                       r"the corresponding output carry component has type (?P<made>\S+), so "
                       r"the (?P<what>dtypes|shapes|dtypes and shapes) do not match")
_STRUCTURE_RE = re.compile(r"The input carry (?:component )?(?P<path>\S+) is (?P<given>.+?) but "
                           r"the corresponding component of the carry output is "
                           r"(?P<made>.+?), so", re.S)
_KEY_RE = re.compile(r"\[(?:(?P<index>\d+)|'(?P<key>[^']*)')\]$")
# Where each loop takes its initial carry (positional index).
_INIT = {"scan": 1, "while_loop": 2, "fori_loop": 3}

_STEP = "def step(total, x):\n    total = total + x / 2\n    return total, total"

_GROW = "def grow(i, state):\n    a, b = state\n    return [a + 1.0, b * 2.0]"
_ADD = "def add(total, x):\n    return total + x"
_SQUARE = "def square(_, x):\n    return 0, x * x"
_HALVE = ("@jax.jit\ndef halve(y0):\n    def body(s):\n        y, gap, i = s\n"
          "        return y / 2, jnp.max(y / 2), i + 1\n"
          "    init = (y0, jnp.float32(jnp.inf), 0)\n"
          "    y, gap, _ = lax.while_loop(lambda s: s[2] < 3, body, init)\n"
          "    return y, gap")
_ROWS = "def add_row(i, carry):\n    total, m = carry\n    return total + m[i], m"

EXAMPLES = (
    # the body returns a list for a carry started as a tuple: the same items, as a tuple
    corrected(LAX_IMPORTS, _GROW, _GROW.replace("[a + 1.0, b * 2.0]", "(a + 1.0, b * 2.0)"),
              "a, b = lax.fori_loop(0, 3, grow, (0.0, 1.0))", "Return the carry as a tuple",
              "float(a) == 3.0 and float(b) == 8.0"),
    # a scan step that returns only its carry
    corrected(LAX_IMPORTS, _ADD, _ADD.replace("total + x", "total + x, None"),
              "total, _ = lax.scan(add, 0.0, jnp.arange(4.0))", "Return (carry, None)",
              "float(total) == 6.0"),
    corrected_cell((LAX_IMPORTS, _STEP), "final, partial = lax.scan(step, jnp.int32(0), "
                                      "jnp.arange(4.0))",
                   "final, partial = lax.scan(step, jnp.float32(0), jnp.arange(4.0))",
                   "Start the carry as float32", "float(final) == 3.0"),
    corrected_cell((LAX_IMPORTS, "counts = jnp.zeros(2, jnp.int32)"),
                   "steps, halves = lax.while_loop(lambda c: c[0] < 3,\n"
                   "                               lambda c: (c[0] + 1, c[1] + 0.5),\n"
                   "                               (0, counts))",
                   "steps, halves = lax.while_loop(lambda c: c[0] < 3,\n"
                   "                               lambda c: (c[0] + 1, c[1] + 0.5),\n"
                   "                               (0, counts.astype(jnp.float32)))",
                   "Start the carry as float32", "halves.tolist() == [1.5, 1.5]"),
    corrected_cell((LAX_IMPORTS,), "final, _ = lax.scan(lambda c, x: (jnp.stack([c, x]), x), "
                                "0.0, jnp.ones(3))",
                   "final, _ = lax.scan(lambda c, x: (c + x, x), 0.0, jnp.ones(3))", NO_FIX,
                   "float(final) == 3.0"),
    # an accumulator started as the number 0 where the body adds arrays to it: started as
    # zeros of the body's type (jax-ml/jax#1686)
    corrected_cell((LAX_IMPORTS, _ROWS),
                   "s, _ = lax.fori_loop(0, 2, add_row, (0, jnp.ones((2, 3))))",
                   "s, _ = lax.fori_loop(0, 2, add_row, (jnp.zeros((3,), jnp.float32), "
                   "jnp.ones((2, 3))))",
                   "Start it as jnp.zeros((3,), jnp.float32)", "s.tolist() == [2.0, 2.0, 2.0]"),
    # a key of the carry's dict spelled otherwise in what the body returns
    # (jax-ml/jax#25507)
    corrected(LAX_IMPORTS, "def cool(i, s):\n    return {'Temp': s['temp'] * 0.5}",
              "def cool(i, s):\n    return {'temp': s['temp'] * 0.5}",
              "end = lax.fori_loop(0, 2, cool, {'temp': jnp.float32(8.0)})", "Return 'temp'",
              "float(end['temp']) == 2.0"),
    # a field of a NamedTuple carry turns float: the field's start, written in the
    # constructor on the loop's line, given the body's dtype (jax-md/jax-md#99)
    corrected_cell((LAX_IMPORTS, "from typing import NamedTuple\n\nclass Walk(NamedTuple):\n"
                    "    x: jax.Array\n    n: jax.Array\n\n"
                    "def hop(s, _):\n    return Walk(s.x + 0.5, s.n + 1.0), None"),
                   "end, _ = lax.scan(hop, Walk(jnp.zeros(2), jnp.int32(0)), None, length=2)",
                   "end, _ = lax.scan(hop, Walk(jnp.zeros(2), jnp.float32(0)), None, length=2)",
                   "Start it as float32", "float(end.n) == 2.0"),
    # scan as a map, its carry started as None and returned as 0 by a step that never reads
    # it; the line discards the final carry: the step returns None for it
    corrected(LAX_IMPORTS, _SQUARE, _SQUARE.replace("return 0, x * x", "return None, x * x"),
              "_, squares = lax.scan(square, None, jnp.arange(3.0))",
              "Return None for the carry", "squares.tolist() == [0.0, 1.0, 4.0]"),
    # ... where the final carry is kept, what it should hold is the user's to say
    corrected(LAX_IMPORTS, _SQUARE, _SQUARE.replace("return 0, x * x", "return None, x * x"),
              "last, squares = lax.scan(square, None, jnp.arange(3.0))", NO_FIX,
              "squares.tolist() == [0.0, 1.0, 4.0]"),
    # a float32 start the float16 body holds exactly (inf), assigned to a name before the
    # loop: the element cast where it is assigned (optimistix#155)
    corrected(LAX_IMPORTS, _HALVE, _HALVE.replace("jnp.float32(jnp.inf)",
                                                  "jnp.float16(jnp.inf)"),
              "y, gap = halve(jnp.ones(2, jnp.float16))", "Start it as float16",
              "y.tolist() == [0.125, 0.125] and str(gap.dtype) == 'float16'"),
    # ... a start float16 does not hold exactly (0.1): casting it would change it
    corrected(LAX_IMPORTS, _HALVE.replace("jnp.inf", "0.1"),
              _HALVE.replace("jnp.float32(jnp.inf)", "jnp.float16(0.1)"),
              "y, gap = halve(jnp.ones(2, jnp.float16))", NO_FIX,
              "y.tolist() == [0.125, 0.125]"),
    # ... in the one return of the notebook function that builds the initial carry
    corrected(LAX_IMPORTS, "from typing import NamedTuple\n\nclass Walk(NamedTuple):\n"
              "    x: jax.Array\n    n: jax.Array\n\n"
              "def start(x):\n    return Walk(x, jnp.zeros((), jnp.int32))\n\n"
              "def hop(s, _):\n    return Walk(s.x + 0.5, s.n + 1.0), None",
              "from typing import NamedTuple\n\nclass Walk(NamedTuple):\n"
              "    x: jax.Array\n    n: jax.Array\n\n"
              "def start(x):\n    return Walk(x, jnp.zeros((), jnp.float32))\n\n"
              "def hop(s, _):\n    return Walk(s.x + 0.5, s.n + 1.0), None",
              "end, _ = lax.scan(hop, start(jnp.zeros(2)), None, length=3)",
              "Start it as float32", "float(end.n) == 3.0 and end.x.tolist() == [1.5, 1.5]"),
)

WHY = _entry.prose("""
A compiled loop (scan, while_loop, fori_loop) runs one body for every step, on a carry of
one fixed type: the same structure, shapes and dtypes going in and coming out. The type is
set by the initial carry, so the body must return exactly that type, or the initial carry
must start as the type the body makes.
""")


def _key(path: str) -> int | str | None:
    """Which element of the carry a message's path names (``c[1]``, ``c['a']``; None:
    the whole carry; ``"?"``: a part not read, such as a field ``state.n``). fori_loop's own
    carry is ``loop_carry[1]``."""
    path = path.removeprefix("loop_carry[1]")
    if "." in path:
        return "?"  # a field of the carry (`state.n`): not an element this reads
    found = _KEY_RE.search(path)
    if found is None or path.count("[") > 1:
        return None if "[" not in path else "?"
    return int(found["index"]) if found["index"] is not None else found["key"]


def _widens(given: str, made: str) -> str | None:
    """The body's dtype when it holds every value of the initial one (else None); the types
    are avals such as ``int32[]`` and ``float32[2]``."""
    given_dtype, given_shape = given.rstrip("]").split("[", 1)
    made_dtype, made_shape = made.rstrip("]").split("[", 1)
    if given_shape != made_shape:
        return None
    given_dtype, made_dtype = given_dtype.lstrip("~"), made_dtype.lstrip("~")
    exact = {("int8", "float32"), ("int16", "float32"), ("int32", "float32"),
             ("uint8", "float32"), ("bool", "float32"), ("float16", "float32"),
             ("bfloat16", "float32"), ("int32", "int64"), ("float32", "float64"),
             ("int32", "float64"), ("float32", "complex64"), ("int8", "int32")}
    return made_dtype if (given_dtype, made_dtype) in exact else None


# JAX compares a loop's carry in one function, whatever the wording
MATCH = Match(TYPES, "TypeError", also=(STRUCTURE, OLD, PAIR),
              sites=("lax/control_flow/loops.py:_check_carry_type",))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    loop_found = _LOOP_RE.search(link.message)
    loop = loop_found["loop"] if loop_found is not None else "scan"
    location = ctx.call_site()
    call = next(iter(_operands.operations(ctx, location, (loop, "scan", "while_loop",
                                                          "fori_loop"))), None)
    if call is not None:
        loop = call.spelled.rsplit(".", 1)[-1]
    subject = _tracing.quoted_line(location, "Your loop")
    types = _TYPES_RE.search(link.message)
    structure = _STRUCTURE_RE.search(link.message)
    if PAIR in link.message:
        return _pair(ctx, link, call, location, subject)
    fixes: list[Fix] = []
    notes: list[str] = []
    init = call.operands[_INIT[loop]].text if call is not None and \
        len(call.operands) > _INIT.get(loop, 99) else "the initial carry"
    if types is not None:
        path, given, made = types["path"], types["given"], types["made"]
        part = "the carry" if _key(path) is None else f"carry element {path}"
        explanation = (f"{subject} starts {part} as {given} ({init}), and the body returns it "
                       f"as {made}: the {types['what']} do not match.")
        dtype = _widens(given, made)
        key = _key(path)
        started = _zero_start_fix(ctx, location, call, loop, key, made) \
            if location is not None and call is not None and key != "?" \
            and types["what"] != "dtypes" and given.endswith("[]") else None
        exact = _exact_start_fix(ctx, location, call, loop, key, made) \
            if dtype is None and types["what"] == "dtypes" and key != "?" \
            and location is not None and call is not None else None
        fielded = _field_start_fix(ctx, location, call, loop, path, dtype) \
            if dtype is not None and key == "?" and location is not None \
            and call is not None else None
        if dtype is not None and key != "?" and location is not None and call is not None:
            fixes.append(_fix(ctx, location, loop, key, dtype, init))
        elif fielded is not None:
            fixes.append(fielded)
        elif exact is not None:
            fixes.append(exact)
        elif started is not None:
            fixes.append(started)
        elif types["what"] != "dtypes":
            notes.append(f"Make the body return {part} as {given} (the shape it starts with), "
                         f"or start it with the shape the body makes ({made}).")
        else:
            notes.append(f"Cast what the body returns for {part} to its starting dtype "
                         f"(`.astype(...)`), or start it as {made}.")
    elif structure is not None:
        explanation = (f"{subject} starts the carry ({init}) as {structure['given']}, and the "
                       f"body returns {structure['made']}.")
        difference = re.search(r"symmetric difference of key sets: (\{.*?\})", link.message)
        kinds = {structure["given"].strip(): "given", structure["made"].strip(): "made"}
        if call is not None and location is not None and _key(structure["path"]) is None \
                and set(kinds) == {_CLASS.format("tuple"), _CLASS.format("list")}:
            made = "list" if kinds.get(_CLASS.format("list")) == "made" else "tuple"
            fix = _container_fix(ctx, call, loop, made)
            if fix is not None:
                fixes.append(fix)
        if not fixes and call is not None and location is not None and loop == "scan" \
                and _key(structure["path"]) is None and "NoneType" in structure["given"]:
            unused = _unused_carry_fix(ctx, location, call)
            if unused is not None:
                fixes.append(unused)
        metadata = _METADATA_RE.findall(structure["given"] + " " + structure["made"])
        if not fixes and call is not None and _key(structure["path"]) is None \
                and len(metadata) == 2:
            renamed = _key_fix(ctx, call, loop, metadata[0], metadata[1])
            if renamed is not None:
                fixes.append(renamed)
        if difference is not None:
            notes.append(f"The keys that differ: {difference.group(1)}. Return every key of "
                         "the initial carry, even the ones a step does not change.")
    else:
        explanation = f"{subject} has a body that returns a carry of another type than its start."
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.split(", but they differ", 1)[0] + ".")


def _pair(ctx: ErrorContext, link: Link, call: _operands.Operation | None,
          location: Location | None, subject: str) -> Diagnosis:
    """scan's step returned one value where scan takes (carry, y): where each return of the
    step is one value that is not a tuple, ``, None`` makes it (carry, no y)."""
    step = call.operands[0].text if call is not None and call.operands else "the step"
    explanation = (f"{subject} runs {step}, which returns one value, and scan takes a pair from "
                   "its step: the new carry and what the step outputs for that element.")
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, step) \
        if step.isidentifier() else None
    fixes: list[Fix] = []
    if found is not None:
        place, function = found
        returns = [n for n in _scopes.own_nodes(function) if isinstance(n, ast.Return)]
        code = place.source or ""
        values = [r.value for r in returns if r.value is not None]
        if returns and len(values) == len(returns) and all(
                not isinstance(v, ast.Tuple) and v.end_lineno == v.lineno for v in values):
            edits = [(v, _tracing.segment(code, v, strip=False)) for v in values]

            def transform(source: str) -> str:
                for node, before in sorted(edits, key=lambda e: e[0].lineno, reverse=True):
                    source = _tracing.replacing(node, before, f"{before}, None")(source)
                return source

            fixes.append(rewrite_fix(
                ctx, place, transform, label="Return (carry, None)",
                summary=(f"Return `..., None` from {function.name}: the value it returns is "
                         "the new carry, and None says the step outputs nothing per element; "
                         "then re-run."),
                safety=("Same values: the carry is what the step returned; scan's second "
                        "result is None, as the step outputs nothing."),
                safe=True))
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes,
                            error=link.summary.splitlines()[0])


_CLASS = "a <class '{}'>"
_BODY = {"scan": 0, "while_loop": 1, "fori_loop": 2}


def _container_fix(ctx: ErrorContext, call: _operands.Operation, loop: str,
                   made: str) -> Fix | None:
    """The body's returned carry written as the container the loop started it as: a tuple
    display for a list display (or the other way), the same items in the same order."""
    if len(call.operands) <= _BODY[loop]:
        return None
    body = call.operands[_BODY[loop]].text
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, body) \
        if body.isidentifier() else None
    if found is None:
        return None
    place, function = found
    returns = [n for n in _scopes.own_nodes(function) if isinstance(n, ast.Return)]
    displays: list[ast.List | ast.Tuple] = []
    for node in returns:
        carry = node.value
        if loop == "scan":
            carry = carry.elts[0] if isinstance(carry, ast.Tuple) and len(carry.elts) == 2 \
                else None
        if not isinstance(carry, ast.List | ast.Tuple) \
                or isinstance(carry, ast.List) != (made == "list") \
                or carry.end_lineno != carry.lineno or any(
                    isinstance(e, ast.Starred) for e in carry.elts):
            return None
        displays.append(carry)
    code = place.source or ""
    if not displays:
        return None
    wanted = "tuple" if made == "list" else "list"
    edits = []
    for display in displays:
        items = ", ".join(_tracing.segment(code, e) for e in display.elts)
        after = (f"({items}{',' if len(display.elts) == 1 else ''})" if wanted == "tuple"
                 else f"[{items}]")
        edits.append((display, _tracing.segment(code, display, strip=False), after))

    def transform(source: str) -> str:
        for node, before, after in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset),
                                          reverse=True):
            source = _tracing.replacing(node, before, after)(source)
        return source

    return rewrite_fix(
        ctx, place, transform, label=f"Return the carry as a {wanted}",
        summary=(f"Write the carry {function.name} returns as a {wanted}, the container the "
                 f"loop starts it as; then re-run."),
        safety=(f"Same values: the same items in the same order; only the container is the "
                f"{wanted} the loop was given."),
        safe=True)


def _unused_carry_fix(ctx: ErrorContext, location: Location,
                      call: _operands.Operation) -> Fix | None:
    """``_, ys = lax.scan(step, None, xs)`` whose step returns ``0, y``: scan used as a map,
    its carry started as None. Where the step never reads its carry and every return gives
    it a number literal, and the line discards the final carry (``_``), the step returns
    None for it: every ``y`` is the same, and the carry stays what it started as."""
    if len(call.operands) <= max(_INIT["scan"], _BODY["scan"]):
        return None
    init = call.operands[_INIT["scan"]].node
    body = call.operands[_BODY["scan"]].text
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, body) \
        if body.isidentifier() else None
    parsed = _tracing.parse(location.source)
    if not (isinstance(init, ast.Constant) and init.value is None) or found is None \
            or parsed is None:
        return None
    place, function = found
    statements = [n for n in ast.walk(parsed[0]) if isinstance(n, ast.Assign)
                  and n.lineno <= location.lineno <= (n.end_lineno or n.lineno)
                  and isinstance(n.value, ast.Call)
                  and (dotted(n.value.func) or "").rsplit(".", 1)[-1] == "scan"]
    if len(statements) != 1 or len(statements[0].targets) != 1:
        return None
    target = statements[0].targets[0]
    if not (isinstance(target, ast.Tuple | ast.List) and len(target.elts) == 2
            and isinstance(target.elts[0], ast.Name) and target.elts[0].id == "_"):
        return None  # the final carry is kept: what it would hold is the user's to say
    if not function.args.args or function.args.vararg:
        return None
    carry = function.args.args[0].arg
    if any(isinstance(n, ast.Name) and n.id == carry for n in ast.walk(function)
           if n is not function):
        return None  # the step reads its carry
    returns = [n for n in _scopes.own_nodes(function) if isinstance(n, ast.Return)]
    starts = [n.value.elts[0] for n in returns if isinstance(n.value, ast.Tuple)
              and len(n.value.elts) == 2]
    if not returns or len(starts) != len(returns) or not all(
            isinstance(s, ast.Constant) and type(s.value) in (int, float, bool)
            for s in starts):
        return None
    code = place.source or ""
    edits = [(s, _tracing.segment(code, s), "None") for s in starts]
    return rewrite_fix(
        ctx, place, _tracing.replacing_each(edits), label="Return None for the carry",
        summary=(f"Return None for the carry in {function.name} (the carry scan starts as "
                 "None); then re-run."),
        safety=(f"Same values: {function.name} never reads its carry, and the line "
                "discards the final one (_), so every output is the same; the carry stays "
                "None, as scan started it."),
        safe=True)


def _fix(ctx: ErrorContext, location: Location, loop: str, key: int | str | None,
         dtype: str, init: str, safety: str | None = None) -> Fix:
    jnp = ctx.alias("jax.numpy") or "jnp"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.carry_dtype import cast_initial_carry

        return cast_initial_carry(source, location.lineno, loop, _INIT[loop], key,
                                  f"{jnp}.{dtype}")

    return rewrite_fix(
        ctx, location, transform, label=f"Start the carry as {dtype}",
        summary=(f"Give the initial carry ({init}) the dtype the body returns, {dtype}, on "
                 f"line {location.lineno}; then re-run."),
        safety=safety or (f"Same starting values, as {dtype} (each of them is exact in it): "
                          "the loop then computes what its body says."),
        safe=True)


def _exact_start_fix(ctx: ErrorContext, location: Location, call: _operands.Operation,
                     loop: str, key: int | str | None, made: str) -> Fix | None:
    """A carry element started in a dtype the body's does not hold in general, whose
    starting value the body's dtype holds exactly (``jnp.float32(jnp.inf)`` for a body that
    returns float16, optimistix#155): started in the body's dtype, the loop computes what its
    body says from the same value. The value is read live, or, where it is traced (made
    inside ``jit``), from the number its dtype's constructor is given. The initial carry is
    written on the loop's line, or assigned once to a name earlier in the same function
    (``init = (y0, jnp.float32(jnp.inf), 0)``), where its element is cast."""
    dtype = made.lstrip("~").split("[", 1)[0]
    frame = ctx.live_frame(location)
    init = call.operands[_INIT[loop]].node if len(call.operands) > _INIT[loop] else None
    if init is None or frame is None or isinstance(key, str):
        return None
    evaluate = Evaluator(frame)
    value = evaluate(init)
    if key is not None:
        value = value[key] if isinstance(value, tuple | list) and key < len(value) else None
    if isinstance(init, ast.Name):
        assigned = _assigned_once(location, init.id, key)
    else:
        element = init.elts[key] if isinstance(init, ast.Tuple | ast.List) \
            and key is not None and key < len(init.elts) else init if key is None else None
        assigned = (element, "") if element is not None else None
    if assigned is None:
        return None
    node, before = assigned
    constructor = node.func if isinstance(node, ast.Call) and len(node.args) == 1 \
        and not node.keywords and isinstance(node.func, ast.Attribute) \
        and node.func.attr in _DTYPE_NAMES else None
    if not _holds_exactly(value, dtype) and not (
            isinstance(node, ast.Call) and constructor is not None
            and _holds_exactly(evaluate(node.args[0]), dtype)):
        return None
    jnp = ctx.alias("jax.numpy") or "jnp"
    element_name = "the carry" if key is None else f"carry element {key}"
    safety = (f"Same starting value, as {dtype} (it holds it exactly): the loop then computes "
              "what its body says.")
    if not isinstance(init, ast.Name):
        return _fix(ctx, location, loop, key, dtype, call.operands[_INIT[loop]].text,
                    safety=safety)
    if constructor is not None:
        prefix = before[:before.index("(")].rsplit(".", 1)[0]
        after = f"{prefix}.{dtype}{before[before.index('('):]}"
    else:
        after = f"{jnp}.asarray({before}, {jnp}.{dtype})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after), label=f"Start it as {dtype}",
        summary=(f"Write `{after}` for `{before}` on line {node.lineno}, {element_name} of "
                 f"{init.id}: the dtype the body returns; then re-run."),
        safety=safety, safe=True)


def _field_keys(path: str) -> tuple[int | str, ...] | None:
    """``s[1].n`` -> ``(1, Field('n'))``: the keys after the carry's own name (a
    fori_loop's is ``loop_carry[1]``), a field among them; None for another path."""
    path = path.removeprefix("loop_carry[1]")
    head = re.match(r"\w*", path)
    found = _key_paths.keys(path[head.end():] if head is not None else path)
    return found if found and any(isinstance(k, _key_paths.Field) for k in found) else None


def _fields_of(frame: Any, func: ast.expr) -> tuple[str, ...] | None:
    """The fields, in order, of the named tuple or dataclass ``func`` names in ``frame``
    (read without running the class's code)."""
    if not isinstance(func, ast.Name):
        return None
    cls = frame.f_locals.get(func.id, frame.f_globals.get(func.id))
    if not isinstance(cls, type):
        return None
    fields = inspect.getattr_static(cls, "_fields", None)
    if isinstance(fields, tuple) and all(isinstance(f, str) for f in fields):
        return fields
    declared = inspect.getattr_static(cls, "__dataclass_fields__", None)
    return tuple(declared) if isinstance(declared, dict) else None


def _field_start_fix(ctx: ErrorContext, location: Location, call: _operands.Operation,
                     loop: str, path: str, dtype: str) -> Fix | None:
    """``lax.scan(step, fire_init(r), ...)`` whose step returns the field ``n_pos`` of its
    named-tuple carry as float32 where it started as int32 (jax-md/jax-md#99): the field's
    start is written in the constructor call of the initial carry, on the loop's line or in
    the one return of the notebook function that builds it, and is given the body's dtype
    (a dtype it holds every value of), the same starting value."""
    keys = _field_keys(path)
    frame = ctx.live_frame(location)
    if keys is None or frame is None or len(call.operands) <= _INIT[loop]:
        return None
    node: ast.expr | None = call.operands[_INIT[loop]].node
    place, code = location, call.code
    for key in keys:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and _fields_of(frame, node.func) is None:
            built = _built_by(ctx, node.func.id)  # a notebook function builds the carry
            if built is None:
                return None
            node, place, code = built
        if isinstance(key, _key_paths.Field) and isinstance(node, ast.Call):
            fields = _fields_of(frame, node.func)
            given = [k.value for k in node.keywords if k.arg == key]
            if fields is None or key not in fields or any(
                    isinstance(a, ast.Starred) for a in node.args):
                return None
            index = fields.index(key)
            node = given[0] if given else node.args[index] if index < len(node.args) else None
        elif isinstance(node, ast.Tuple | ast.List) and type(key) is int \
                and key < len(node.elts):
            node = node.elts[key]
        else:
            return None
        if node is None:
            return None
    if node is None or node.lineno != node.end_lineno:
        return None
    jnp = ctx.alias("jax.numpy") or "jnp"
    before = _tracing.segment(code, node)
    named = [n for n in ast.walk(node) if isinstance(n, ast.Attribute)
             and n.attr in _DTYPE_NAMES]
    if len(named) == 1 and isinstance(named[0].value, ast.Name):
        start = named[0].col_offset - node.col_offset
        end = named[0].end_col_offset - node.col_offset  # type: ignore[operator]
        after = f"{before[:start]}{named[0].value.id}.{dtype}{before[end:]}"
    else:
        after = f"{jnp}.asarray({before}, {jnp}.{dtype})"
    field = path.removeprefix("loop_carry[1]")
    return rewrite_fix(
        ctx, place, _tracing.replacing(node, before, after), label=f"Start it as {dtype}",
        summary=(f"Write `{after}` for `{before}` on line {node.lineno}, where the carry's "
                 f"{field} starts: the dtype the body returns; then re-run."),
        safety=(f"Same starting values, as {dtype} (each of them is exact in it): the loop "
                "then computes what its body says."),
        safe=True)


def _built_by(ctx: ErrorContext, name: str) -> tuple[ast.expr, Location, str] | None:
    """What the notebook's function ``name`` returns, as written in its one return, with
    its cell and code."""
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, name)
    if found is None:
        return None
    place, function = found
    parsed = _tracing.parse(place.source)
    value = _scopes.one_return(function)
    return (value, place, parsed[1]) if parsed is not None and value is not None else None


_DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
                "uint8", "uint32")


def _holds_exactly(value: object, dtype: str) -> bool:
    """Whether ``value``, a concrete number or NumPy/JAX array (never a tracer, never a
    large one), is held exactly by ``dtype``: the same numbers after a round trip."""
    numpy = sys.modules.get("numpy")
    numbers = _concrete.held(value)
    if numpy is None or numbers is None or numbers.dtype.kind not in "biuf":
        return False
    try:
        target = numpy.dtype(dtype)
    except TypeError:
        target = getattr(sys.modules.get("ml_dtypes"), dtype, None)
        if target is None:
            return False
    try:
        with numpy.errstate(all="ignore"):
            back = numbers.astype(target).astype(numbers.dtype)
        return bool(numpy.array_equal(back, numbers, equal_nan=True))
    except Exception:
        return False


def _assigned_once(location: Location, name: str,
                   key: int | None) -> tuple[ast.expr, str] | None:
    """The element ``key`` of the tuple display ``name`` is assigned, where the loop's
    function (or cell) binds ``name`` once, on one line before the loop's, with one plain
    target; and its text."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    tree, code = parsed
    scope = _scopes.enclosing_function(tree, location.lineno) or tree
    assignment = _scopes.assigned_once(scope, name)
    if _scopes.read_elsewhere(scope, name) or assignment is None \
            or assignment.lineno >= location.lineno:
        return None
    value = assignment.value
    if key is None:
        node: ast.expr = value
    elif isinstance(value, ast.Tuple | ast.List) and key < len(value.elts) \
            and not any(isinstance(e, ast.Starred) for e in value.elts):
        node = value.elts[key]
    else:
        return None
    if node.lineno != node.end_lineno:
        return None
    return node, _tracing.segment(code, node)


_ARRAY_TYPE = re.compile(r"^(?P<dtype>[a-z]+\d*)\[(?P<shape>[\d, ]*)\]$")


def _zero_start_fix(ctx: ErrorContext, location: Location, call: _operands.Operation,
                    loop: str, key: int | str | None, made: str) -> Fix | None:
    """``fori_loop(0, n, step, (0, xs))`` whose step returns ``total + (...) ** 2`` of shape
    (3,) for the 0: an accumulator started as the number 0 where the body makes an array.
    Started as ``jnp.zeros`` of the body's type, its first step gives what ``0 + v`` gave
    (``v``), so every step after computes the same (jax-ml/jax#1686)."""
    kind = _ARRAY_TYPE.match(made.lstrip("~"))
    if kind is None or len(call.operands) <= max(_INIT[loop], _BODY[loop]) \
            or (key is not None and type(key) is not int):
        return None
    init = call.operands[_INIT[loop]].node
    start = init.elts[key] if isinstance(init, ast.Tuple | ast.List) and type(key) is int \
        and key < len(init.elts) else init if key is None else None
    if not (isinstance(start, ast.Constant) and type(start.value) in (int, float)
            and start.value == 0):
        return None
    body = call.operands[_BODY[loop]].text
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, body) \
        if body.isidentifier() else None
    if found is None or not _adds_to_itself(found[1], loop, key):
        return None
    jnp = ctx.alias("jax.numpy") or "jnp"
    shape = tuple(int(d) for d in kind["shape"].replace(" ", "").split(",") if d)
    written = f"{jnp}.zeros({shape}, {jnp}.{kind['dtype']})"
    element = "the carry" if key is None else f"carry element {key}"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.carry_dtype import replace_initial_carry

        return replace_initial_carry(source, location.lineno, loop, _INIT[loop], key, written)

    return rewrite_fix(
        ctx, location, transform, label=f"Start it as {written}",
        summary=(f"Start {element} as `{written}` on line {location.lineno}, the type "
                 f"{found[1].name} makes of it; then re-run."),
        safety=(f"Same values: {found[1].name} adds to {element}, and zeros plus a value is "
                "that value, so the first step gives what 0 plus it gives, and every step "
                "after runs on the same carry."),
        safe=True)


def _adds_to_itself(function: ast.FunctionDef, loop: str, key: int | None) -> bool:
    """Whether each return of the body makes the carry element as ``element + value`` (or
    ``value + element``) of the name the body gave that element."""
    params = [a.arg for a in function.args.args]
    carry = params[1] if loop == "fori_loop" and len(params) > 1 else params[0] \
        if params else None
    if carry is None:
        return False
    name: str | None = carry
    if key is not None:  # `total, m = carry`: the name of element `key`
        unpacked = [node.targets[0].elts[key] for node in function.body
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
                    and node.value.id == carry and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Tuple)
                    and key < len(node.targets[0].elts)]
        name = unpacked[0].id if unpacked and isinstance(unpacked[0], ast.Name) else None
    returns = [n for n in _scopes.own_nodes(function) if isinstance(n, ast.Return)]
    if name is None or not returns:
        return False
    for node in returns:
        value = node.value
        if loop == "scan":
            value = value.elts[0] if isinstance(value, ast.Tuple) and len(value.elts) == 2 \
                else None
        if key is not None:
            value = value.elts[key] if isinstance(value, ast.Tuple) \
                and key < len(value.elts) else None
        if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and any(
                isinstance(side, ast.Name) and side.id == name
                for side in (value.left, value.right))):
            return False
    return True


_METADATA_RE = re.compile(r"<class 'dict'> with pytree metadata (\(.*?\))(?= but|$|\s)")


def _key_fix(ctx: ErrorContext, call: _operands.Operation, loop: str, given: str,
             made: str) -> Fix | None:
    """``{"Temp": ...}`` returned for a carry started as ``{"temp": ...}`` (jax-ml/jax#25507):
    each key the body returns that the carry does not have is close to exactly one key the
    carry has and the body does not return; the body's dict is written with those keys."""
    try:
        start, returned = ast.literal_eval(given), ast.literal_eval(made)
    except (ValueError, SyntaxError):
        return None
    if not (isinstance(start, tuple) and isinstance(returned, tuple)) \
            or len(start) != len(returned) or not all(isinstance(k, str) for k in start + returned):
        return None
    missing = [k for k in start if k not in returned]
    extra = [k for k in returned if k not in start]
    pairs: dict[str, str] = {}
    for key in extra:
        close = [k for k in missing if k.lower() == key.lower()] \
            or difflib.get_close_matches(key, missing, n=2, cutoff=0.8)
        if len(close) != 1 or close[0] in pairs.values():
            return None
        pairs[key] = close[0]
    body = call.operands[_BODY[loop]].text if len(call.operands) > _BODY[loop] else ""
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, body) \
        if body.isidentifier() and pairs else None
    if found is None:
        return None
    place, function = found
    code = place.source or ""
    keys = [k for node in _scopes.own_nodes(function) if isinstance(node, ast.Dict)
            for k in node.keys if isinstance(k, ast.Constant) and k.value in pairs]
    if not keys or any(k.lineno != k.end_lineno for k in keys):
        return None
    edits = []
    for k in keys:
        before = _tracing.segment(code, k, strip=False)
        quote = before[0] if before[:1] in ("'", '"') and before[-1:] == before[:1] else "'"
        edits.append((k, before, f"{quote}{pairs[str(k.value)]}{quote}"))
    shown = ", ".join(f"{new!r} for {old!r}" for old, new in pairs.items())
    return rewrite_fix(
        ctx, place, _tracing.replacing_each(edits), label=f"Return {shown.split(' for')[0]}",
        summary=(f"Write {shown} in what {function.name} returns: the keys the loop's carry "
                 "starts with; then re-run."),
        safety=("Same values: the body returns the same values, under the keys the carry "
                "started with."),
        safe=True)
