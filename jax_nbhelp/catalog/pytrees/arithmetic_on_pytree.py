"""Python arithmetic on a dict, list or tuple of JAX arrays (``TypeError: unsupported operand
type(s) for *: 'float' and 'dict'``; for lists ``can't multiply sequence by non-int of type
'float'``; ``unsupported operand type(s) for -: 'dict' and 'dict'``).

``jax.grad`` of a function of a dict of parameters returns a dict of gradients of the same
structure, and a model's parameters are such a tree. Python's operators work on each array,
not on the container: ``params - lr * grads`` is refused by Python at ``lr * grads``. JAX
applies an expression to every leaf of one or more trees of the same structure with
``jax.tree.map``: ``jax.tree.map(lambda p, g: p - lr * g, params, grads)`` computes, for each
array, what the user wrote for the whole. Python raises the error; an operand, read safely
in the user's frame, is a container whose leaves are JAX arrays, so it counts as JAX's
(``provenance``).

The fix maps the whole arithmetic expression the failing operator is in, each tree operand
a parameter of the lambda, in the order written; the expression's other operands must be
numbers (a Python int or float, an array of no dimensions), which apply to each leaf as
written. An operand that is an array with dimensions is explained, not fixed: added to each
leaf of a tree it is broadcast against arrays of other shapes, which is not what one
expression over the tree said. The fix runs, so trees of different structures say so.

Reports: netket/netket#1809 (a gradient-descent step over dicts of parameters written as a
tree map of ``x - 0.05 * y``), google-deepmind/optax#291 (``unsupported operand type(s) for
*: 'float' and 'FrozenDict'``: flax's dict of parameters in arithmetic),
google-deepmind/optax#1 (``unsupported operand type(s) for *: 'dict' and
'DynamicJaxprTracer'``: a dict of hyperparameters scaling each update in a tree map).
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable
from types import FrameType

from jax_nbhelp.catalog import _entry, _jax_names, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.provenance import (
    NO_OPERATOR,
    container_operands,
    is_jax_array,
    made_by_jax,
    operator_operands,
    pytree_of_arrays,
)
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.interpret_arg import add_import

CODE = "JNH544"
TITLE = "Arithmetic on a dict or list of JAX arrays"
TRIGGERS = ("unsupported operand type(s) for", "can't multiply sequence by non-int",
            "bad operand type for unary", "can only concatenate")

_PARAMS = ('params = {"w": jnp.array([1.0, 2.0]), "b": jnp.array(0.5)}\n'
           'def loss(params, x):\n'
           '    return jnp.sum((x * params["w"] + params["b"]) ** 2)\n'
           'grads = jax.grad(loss)(params, jnp.array([1.0, -1.0]))')
_LAYERS = "layers = [jnp.ones(2), jnp.zeros(3)]\nupdates = [jnp.full(2, 2.0), jnp.ones(3)]"

EXAMPLES = (
    # an SGD step on a dict of parameters: each array stepped
    corrected_cell((JAX_IMPORTS, _PARAMS), "params = params - 0.1 * grads",
                   "params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)",
                   "Map the arithmetic over the tree",
                   "abs(float(params['w'][0]) - 0.7) < 1e-6 and abs(float(params['w'][1])"
                   " - 1.7) < 1e-6 and params['b'].shape == ()"),
    # lists of arrays, an augmented assignment
    corrected_cell((JAX_IMPORTS, _LAYERS), "layers -= 0.5 * updates",
                   "layers = jax.tree.map(lambda l, u: l - 0.5 * u, layers, updates)",
                   "Map the arithmetic over the tree",
                   "[a.tolist() for a in layers] == [[0.0, 0.0], [-0.5, -0.5, -0.5]]"),
    # an array with dimensions beside the tree: which leaf it belongs to is the user's call
    corrected_cell((JAX_IMPORTS, _LAYERS + "\nmask = jnp.ones(2)"),
                   "masked = updates * mask",
                   "masked = [updates[0] * mask, updates[1]]", NO_FIX,
                   "masked[0].tolist() == [2.0, 2.0]"),
)

WHY = _entry.prose("""
A dict, list or tuple of arrays (a model's parameters, what jax.grad returns for them) is a
pytree, and Python's operators do not reach into it: dict * float is not defined, and list *
float is not either. jax.tree.map(f, tree, *others) calls f on each leaf (and the leaves at
the same place in the others) and rebuilds the same structure: the arithmetic written for
the whole, done for each array.
""")

_ARITHMETIC = (ast.BinOp, ast.UnaryOp)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    if not ctx.top.is_a("TypeError") or not NO_OPERATOR.match(ctx.top.message):
        return None
    line = _tracing.live_line(ctx)
    if line is None:
        return None
    location, frame, tree, code = line
    evaluate = Evaluator(frame)
    scopes = (frame.f_locals, frame.f_globals, frame.f_builtins)
    # calls of JAX's whose result Python's message names a container (an operand of an
    # operator on the line): they hold no value until they run
    returned = {id(operand) for node in ast.walk(tree)
                if isinstance(node, (*_ARITHMETIC, ast.AugAssign))
                and node.lineno <= location.lineno <= (node.end_lineno or 0)
                for operand in container_operands(ctx.top.message, node)
                if made_by_jax(operand, scopes)}

    def is_tree(node: ast.expr) -> bool:
        return id(node) in returned or pytree_of_arrays(evaluate(node))

    found = _failing_operation(tree, location.lineno, evaluate, is_tree)
    if found is None:
        return None
    whole, trees = found
    kinds = ", ".join(f"`{_tracing.segment(code, node)}` is {_describe(evaluate(node))}"
                      for node in trees)
    written = " ".join(_tracing.segment(code, whole).split())
    explanation = (f"`{written}`{_entry.at(location)} applies Python's "
                   f"arithmetic to a tree of JAX arrays ({kinds}): Python's operators work "
                   "on arrays, not on the dict, list or tuple holding them.")
    sequence = _sequence_operation(ctx.top.message, whole, trees, evaluate) \
        or _numbers_list(code, trees, evaluate)
    if sequence:
        # a list joined to or repeated by a value: Python's sequence operations, which the
        # line may have meant; mapping arithmetic over the items would not join or repeat
        fix, reason = None, sequence
    elif _per_leaf(frame):
        # a function tree.map calls for each leaf: its values are one leaf's, and the tree
        # it reads is the same for every leaf (mapping that one would nest trees)
        single = _single_entry_fix(ctx, location, code, whole, trees, evaluate)
        fix, reason = single, "" if single else (
            "This runs once for each leaf of a tree map, and the tree it reads is the same "
            "each time: which of its arrays each leaf needs is yours to say.")
    else:
        fix, reason = _map_fix(ctx, location, code, tree, whole, trees, evaluate)
    notes = (reason,) if reason else ()
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=(fix,) if fix else (),
                            notes=notes)


def _sequence_operation(message: str, whole: ast.AST, trees: list[ast.expr],
                        evaluate: Evaluator) -> str:
    """Why the line may mean Python's sequence operation (a list joined to a value, a list
    repeated by an integer), or "" where it cannot."""
    if message.startswith("can only concatenate"):
        return _JOIN
    for node in ast.walk(whole):
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Add | ast.Mult):
            continue
        sides = (node.left, node.right)
        sequences = [side for side in sides if _among(side, trees)
                     and isinstance(evaluate(side), list | tuple)]
        others = [side for side in sides if not _among(side, trees)]
        if not sequences or not others:
            continue
        if isinstance(node.op, ast.Add):
            return _JOIN
        value = evaluate(others[0])
        whole_number = type(value) is int or "int" in str(getattr(value, "dtype", ""))
        if whole_number:
            return ("Python repeats a list by an int, and the other operand is an integer: "
                    "whether the line meant to repeat the list (`int(n)`) or to scale each "
                    "array is yours to say.")
    return ""


def _numbers_list(code: str, trees: list[ast.expr], evaluate: Evaluator) -> str:
    """Why a list or tuple of numbers (arrays of no dimensions only) may be meant as one
    vector, or "": ``jax.grad(f)([1.0, 2.0])`` hands ``f`` a list of two scalars, and the
    arithmetic after it (``jnp.sum(x ** 2)``) is an array's."""
    for node in trees:
        value = evaluate(node)
        if isinstance(value, list | tuple) and value and all(
                getattr(item, "shape", None) == () for item in value):
            return (f"`{_tracing.segment(code, node)}` is a {type(value).__name__} of numbers, "
                    "each its own array of no dimensions: if it is one vector, make it one "
                    "where it is made (`jnp.asarray([...])`); mapping over its items would "
                    "keep it a list.")
    return ""


_JOIN = ("Python's + joins a list or tuple only to another; whether the line meant to join "
         "(`[*items, value]`) or to add to each array is yours to say.")


def _per_leaf(frame: FrameType) -> bool:
    """Whether ``frame`` is a function JAX's tree utilities called (once per leaf)."""
    caller = frame.f_back
    filename = caller.f_code.co_filename.replace("\\", "/") if caller is not None else ""
    return filename.endswith(("/tree_util.py", "/tree.py")) and "/jax/" in filename


def _failing_operation(tree: ast.Module, lineno: int, evaluate: Evaluator,
                       is_tree: Callable[[ast.expr], bool]
                       ) -> tuple[ast.AST, list[ast.expr]] | None:
    """The whole arithmetic expression (or augmented assignment) on the line whose operator
    has a tree of JAX arrays for an operand, and the expression's tree operands."""
    parents: dict[int, ast.AST] = {}
    candidates = []
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, (*_ARITHMETIC, ast.AugAssign)) \
                and node.lineno <= lineno <= (node.end_lineno or 0) \
                and any(is_tree(operand) for operand in operator_operands(node)):
            candidates.append(node)
    if not candidates:
        return None
    whole: ast.AST = candidates[0]
    while isinstance(parents.get(id(whole)), _ARITHMETIC) or (
            _elementwise(parents.get(id(whole)), evaluate)
            and isinstance(parents.get(id(parents[id(whole)])), _ARITHMETIC)):
        whole = parents[id(whole)]
    if any(not _within(candidate, whole, parents) for candidate in candidates[1:]):
        return None  # two expressions on the line: which one failed is not told
    trees: list[ast.expr] = []
    for leaf in _leaves(whole, evaluate):
        if is_tree(leaf) and not _among(leaf, trees):
            trees.append(leaf)
    return whole, trees


def _within(node: ast.AST, whole: ast.AST, parents: dict[int, ast.AST]) -> bool:
    while node is not whole:
        parent = parents.get(id(node))
        if parent is None:
            return False
        node = parent
    return True


def _among(node: ast.AST, nodes: list[ast.expr]) -> bool:
    return any(ast.dump(node) == ast.dump(seen) for seen in nodes)


# Elementwise functions of jax.numpy (and NumPy's ufuncs of the same names): applied to each
# array of a tree, they compute what they compute for the whole.
_ELEMENTWISE = frozenset({
    "abs", "absolute", "sign", "sqrt", "square", "exp", "log", "log1p", "expm1", "tanh",
    "sin", "cos", "negative", "reciprocal", "maximum", "minimum", "clip", "power",
    "multiply", "add", "subtract", "divide", "true_divide", "sigmoid", "relu",
})


def _elementwise(node: ast.AST | None, evaluate: Evaluator) -> bool:
    """A call of one of JAX's (or NumPy's) elementwise functions with positional operands."""
    if not isinstance(node, ast.Call) or node.keywords \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return False
    function = evaluate(node.func)
    name = getattr(function, "__name__", None)
    module = getattr(function, "__module__", None) or ""
    numpy_ufunc = type(function).__name__ == "ufunc" and type(function).__module__ == "numpy"
    return name in _ELEMENTWISE and (numpy_ufunc or (
        isinstance(module, str) and module.split(".", 1)[0] == "jax"))


def _leaves(node: ast.AST, evaluate: Evaluator) -> list[ast.expr]:
    """The operands of an arithmetic expression (through elementwise calls) that are not
    arithmetic themselves."""
    if isinstance(node, ast.AugAssign):
        return [*_leaves(node.target, evaluate), *_leaves(node.value, evaluate)]
    if isinstance(node, ast.BinOp):
        return [*_leaves(node.left, evaluate), *_leaves(node.right, evaluate)]
    if isinstance(node, ast.UnaryOp):
        return _leaves(node.operand, evaluate)
    if _elementwise(node, evaluate):
        return [leaf for arg in node.args for leaf in _leaves(arg, evaluate)]  # type: ignore[attr-defined]
    return [node] if isinstance(node, ast.expr) else []


def _describe(value: object) -> str:
    if value is CANNOT:  # a call of JAX's: Python's message named what it returned
        return "what JAX returned, a dict, list or tuple"
    count = [0]

    def leaves(item: object) -> None:
        if type(item) is dict:
            for child in item.values():
                leaves(child)
        elif isinstance(item, list | tuple):
            for child in item:
                leaves(child)
        elif is_jax_array(item):
            count[0] += 1

    leaves(value)
    kind = type(value).__name__
    return f"a {kind} of {count[0]} {_tracing.plural(count[0], 'JAX array', 'JAX arrays')}"


def _number(value: object) -> bool:
    """A Python int or float, a NumPy scalar, an array of no dimensions (JAX's or NumPy's)."""
    if type(value) in (int, float):
        return True
    if type(value).__module__ == "numpy" and type(value).__name__ != "ndarray":
        return hasattr(type(value), "dtype") and type(value).__name__ != "str_"
    return (is_jax_array(value) or type(value).__name__ == "ndarray") \
        and getattr(value, "shape", None) == ()


def _map_fix(ctx: ErrorContext, location: Location, code: str, module: ast.Module,
             whole: ast.AST, trees: list[ast.expr], evaluate: Evaluator
             ) -> tuple[Fix | None, str]:
    """The whole expression mapped over its trees (a call of JAX's among them: the run
    says whether what it returns has the same structure)."""
    for leaf in _leaves(whole, evaluate):
        if _among(leaf, trees):
            continue
        if isinstance(leaf, ast.Constant) and type(leaf.value) in (int, float):
            continue
        value = evaluate(leaf)
        if value is CANNOT:
            return None, (f"What `{_tracing.segment(code, leaf)}` is (a number, an array, "
                          "a tree) is not known before it runs.")
        if not _number(value):
            single = _single_entry_fix(ctx, location, code, whole, trees, evaluate)
            return single, "" if single else (
                f"`{_tracing.segment(code, leaf)}` is not a number: applied to each array "
                "of the tree it would be broadcast against arrays of other shapes, so which "
                "array it belongs to is yours to say.")
    jax = _jax_names.spell(ctx, "jax")
    after = _mapped(code, whole, trees, evaluate, jax or "jax")
    following = _following(module, code, whole, trees, evaluate, jax or "jax")
    rewrite = _replacing_all(code, [(whole, after), *following])
    if jax is None:
        rewrite = _importing_jax(rewrite)
    lines = sorted({node.lineno for node, _ in following})  # type: ignore[attr-defined]
    where = (f"line {lines[0]}" if len(lines) == 1
             else "lines " + ", ".join(str(n) for n in lines))
    fix = rewrite_fix(
        ctx, location, rewrite,
        label="Map the arithmetic over the tree",
        summary=(f"Write `{after}` on line {whole.lineno}"  # type: ignore[attr-defined]
                 + (f" (and the same for the tree arithmetic after it: {where})"
                    if following else "")
                 + ("" if jax else " (and `import jax` at the cell's top)") + "; then re-run."),
        safety=("Same values: each array of the tree gets the arithmetic written for the "
                "whole, and the result has the tree's structure."), safe=True)
    return fix, ""


def _single_entry_fix(ctx: ErrorContext, location: Location, code: str, whole: ast.AST,
                      trees: list[ast.expr], evaluate: Evaluator) -> Fix | None:
    """Where each tree operand holds exactly one array (a dict of one key, a list or tuple of
    one item), that array for the container: the one value the arithmetic can mean."""
    edits = []
    for node in trees:
        value = evaluate(node)
        if type(value) is dict and len(value) == 1:
            (key,) = value
            if not isinstance(key, str | int) or not is_jax_array(value[key]):
                return None
            index = repr(key)
        elif isinstance(value, list | tuple) and type(value) in (list, tuple) \
                and len(value) == 1 and is_jax_array(value[0]):
            index = "0"
        else:
            return None
        before = _tracing.segment(code, node)
        for leaf in _leaves(whole, evaluate):
            if ast.dump(leaf) == ast.dump(node):
                if leaf.lineno != leaf.end_lineno:
                    return None
                edits.append((leaf, before, f"{before}[{index}]"))
    shown = ", ".join(sorted({f"`{after}`" for _, _, after in edits}))
    return rewrite_fix(
        ctx, location, _tracing.replacing_each(edits),
        label="Use the one array it holds",
        summary=f"Write {shown} on line {location.lineno}; then re-run.",
        safety=("Same values: the container holds exactly one array, the only value the "
                "arithmetic can take from it."), safe=True)


def _mapped(code: str, whole: ast.AST, trees: list[ast.expr], evaluate: Evaluator,
            jax: str) -> str:
    """``whole`` written as a tree map over ``trees`` (an augmented assignment as the
    assignment of it)."""
    used = {n.id for leaf in _leaves(whole, evaluate) if not _among(leaf, trees)
            for n in ast.walk(leaf) if isinstance(n, ast.Name)}
    names = _lambda_names(trees, used)
    body = whole.value if isinstance(whole, ast.AugAssign) else whole
    edits = [(leaf, names[index]) for leaf in _leaves(body, evaluate)
             for index, seen in enumerate(trees) if ast.dump(leaf) == ast.dump(seen)]
    expression = _substituted(code, body, edits)
    if isinstance(whole, ast.AugAssign):
        target = _tracing.segment(code, whole.target)
        operator = _OPERATORS[type(whole.op)]
        held = next((names[i] for i, t in enumerate(trees)
                     if ast.dump(t) == ast.dump(whole.target)), target)
        expression = f"{held} {operator} ({expression})" \
            if isinstance(whole.value, ast.BinOp) else f"{held} {operator} {expression}"
    operands = ", ".join(_tracing.segment(code, node) for node in trees)
    mapped = f"{jax}.tree.map(lambda {', '.join(names)}: {expression}, {operands})"
    return (f"{_tracing.segment(code, whole.target)} = {mapped}"
            if isinstance(whole, ast.AugAssign) else mapped)


def _following(module: ast.Module | None, code: str, whole: ast.AST, trees: list[ast.expr],
               evaluate: Evaluator, jax: str) -> list[tuple[ast.AST, str]]:
    """The same rewrite for the statements after the failing one in its block (a
    hand-written optimizer's moments, then its step): each whose value is arithmetic on
    names holding trees (read in the frame, or assigned a mapped tree above) and numbers
    only. It stops at the first statement it cannot read so: what follows may depend on it."""
    block = _block_after(module, whole) if module is not None else None
    if not block:
        return []
    known = {t.id for t in trees if isinstance(t, ast.Name)}
    if isinstance(whole, ast.AugAssign) and isinstance(whole.target, ast.Name):
        known.add(whole.target.id)
    elif isinstance(parent := _statement_of(module, whole), ast.Assign) \
            and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        known.add(parent.targets[0].id)
    reassigned = set(known)  # names whose frame value is no longer theirs
    edits: list[tuple[ast.AST, str]] = []
    for statement in block:
        value = statement.value if isinstance(statement, ast.Assign | ast.AugAssign
                                              | ast.Return) else None
        target = (statement.targets[0] if isinstance(statement, ast.Assign)
                  and len(statement.targets) == 1 else
                  statement.target if isinstance(statement, ast.AugAssign) else None)
        if not isinstance(value, _ARITHMETIC) or value.lineno != value.end_lineno:
            break
        node: ast.AST = statement if isinstance(statement, ast.AugAssign) else value
        found: list[ast.expr] = []
        for leaf in _leaves(node, evaluate):
            current = isinstance(leaf, ast.Name) and leaf.id not in reassigned
            if isinstance(leaf, ast.Name) and (leaf.id in known or (
                    current and pytree_of_arrays(evaluate(leaf)))):
                if not _among(leaf, found):
                    found.append(leaf)
            elif not (isinstance(leaf, ast.Constant) and type(leaf.value) in (int, float)) \
                    and not (current and _number(evaluate(leaf))):
                return edits
        if not found:
            break
        edits.append((node, _mapped(code, node, found, evaluate, jax)))
        reassigned |= {n.id for n in ast.walk(statement)
                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if isinstance(target, ast.Name):
            known.add(target.id)
    return edits


def _block_after(module: ast.Module, whole: ast.AST) -> list[ast.stmt]:
    """The statements after the one holding ``whole``, in the innermost block holding it."""
    line = whole.lineno  # type: ignore[attr-defined]
    best: list[ast.stmt] = []
    for node in ast.walk(module):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for index, statement in enumerate(block):
                if isinstance(statement, ast.stmt) and statement.lineno <= line \
                        <= (statement.end_lineno or 0) and not isinstance(
                            statement, ast.FunctionDef | ast.ClassDef | ast.For | ast.While
                            | ast.If | ast.With | ast.Try | ast.AsyncFunctionDef):
                    best = block[index + 1:]
    return best


def _statement_of(module: ast.Module | None, whole: ast.AST) -> ast.stmt | None:
    for node in ast.walk(module) if module is not None else ():
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Return) \
                and (node is whole or getattr(node, "value", None) is whole):
            return node
    return None


def _replacing_all(code: str, edits: list[tuple[ast.AST, str]]) -> Callable[[str], str]:
    """Each edit's text for its expression, from the last back (columns before it keep)."""
    return _tracing.from_the_end([(node, _replacing(code, node, after))
                                  for node, after in edits])


_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
              ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@"}


def _importing_jax(rewrite: Callable[[str], str]) -> Callable[[str], str]:
    return lambda source: add_import(rewrite(source), "import jax")


def _lambda_names(trees: list[ast.expr], used: set[str]) -> list[str]:
    """One short parameter name per tree operand: its name's (or its key's) first letter
    where no other name of the expression is that letter (``p`` for ``params``), else
    ``leaf``, ``leaf2``, ..."""
    names: list[str] = []
    for node in trees:
        named = node.func.func if isinstance(node, ast.Call) and isinstance(
            node.func, ast.Call) else node.func if isinstance(node, ast.Call) else node
        word = dotted(named) if isinstance(named, ast.Name | ast.Attribute) else None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            word = node.slice.value  # state["params"]: p
        letter = re.sub(r"[^a-z]", "", (word or "").rsplit(".", 1)[-1].lower())[:1]
        if letter and letter not in used and letter not in names:
            names.append(letter)
            continue
        count = 1
        while (candidate := "leaf" if count == 1 else f"leaf{count}") in used | set(names):
            count += 1
        names.append(candidate)
    return names


def _replacing(code: str, whole: ast.AST, after: str) -> Callable[[str], str]:
    """The edit writing ``after`` for ``whole``: in place on its line, or, over several
    lines, those lines made one (what precedes it on its first line and follows it on its
    last kept)."""
    first, last = whole.lineno, whole.end_lineno  # type: ignore[attr-defined]
    if first == last:
        return _tracing.replacing(whole, _tracing.segment(code, whole), after)
    lines = code.split("\n")[first - 1:last]
    start, end = whole.col_offset, whole.end_col_offset  # type: ignore[attr-defined]
    joined = (lines[0].encode()[:start].decode() + after + lines[-1].encode()[end:].decode())
    return _tracing.replacing_lines(first, last, "\n".join(lines), [joined],
                                    "the expression")


def _substituted(code: str, body: ast.AST, edits: list[tuple[ast.expr, str]]) -> str:
    """The text of ``body`` with each tree operand's text replaced by its lambda parameter
    (columns count UTF-8 bytes, as the parser's do); over several lines, Python's own
    spelling of it on one."""
    if body.lineno != body.end_lineno:  # type: ignore[attr-defined]
        spots = {(n.lineno, n.col_offset, n.end_lineno, n.end_col_offset): name
                 for n, name in edits}

        class Substitute(ast.NodeTransformer):
            def visit(self, node: ast.AST) -> ast.AST:
                spot = (getattr(node, "lineno", None), getattr(node, "col_offset", None),
                        getattr(node, "end_lineno", None),
                        getattr(node, "end_col_offset", None))
                if spot in spots:
                    return ast.Name(spots[spot], ast.Load())
                visited: ast.AST = super().visit(node)
                return visited

        return ast.unparse(Substitute().visit(copy.deepcopy(body)))
    text = _tracing.segment(code, body, strip=False).encode()
    start = body.col_offset  # type: ignore[attr-defined]
    for node, name in sorted(edits, key=lambda edit: edit[0].col_offset, reverse=True):
        left = node.col_offset - start
        right = node.end_col_offset - start
        text = text[:left] + name.encode() + text[right:]
    return text.decode()
