"""Resume a top-level ``for`` loop at the statement that raised, in the iteration it raised in.

A fix re-runs the failing cell from the top-level statement that raised. When that is a
``for`` loop, running it from its start repeats what already ran: the earlier iterations,
and the statements of the failing iteration before the one that raised (a
``seen.append(i)`` leaves ``[0, 0, 1, 2]``). "Fixed" means the kernel is as if the corrected
code had run once, so the loop is resumed instead:

- the iteration is found again: the loop's sequence is one that can be iterated again (a
  range, list, tuple, dict or its views, or ``enumerate``/``zip``/``reversed`` of those,
  spelled with names, attributes and constants only, so evaluating it again runs no code of
  the user's), and the loop variable still holds exactly one of its items;
- the fix then runs, in that iteration, the statements from the one that raised (through
  ``if``/``else`` branches and ``try`` bodies on the way), then the remaining iterations,
  then the loop's ``else``.

Anything else (an iterator, a generator, a call of the user's, a ``while``, a loop variable
the body rebinds, a ``with`` on the way) is not resumed, and the preview says what runs
twice. The plan is decided here from the cell and the user's namespace; ``transform`` makes
the loop statement resume when the fix runs (its AST, so the lines stay the cell's).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Mapping
from typing import Any

from jax_nbhelp.core.model import LoopResume
from jax_nbhelp.fix.cell_statements import bound_names, cell_scope_statements

FLAG = "_jax_nbhelp_resuming_"
_MAX_ITEMS = 1_000_000
_REITERABLE: tuple[type, ...] = (range, list, tuple, str, bytes, dict, frozenset, set,
                                 type({}.keys()), type({}.values()), type({}.items()))
_WRAPPERS = frozenset({"enumerate", "zip", "reversed", "range", "sorted", "list", "tuple"})
_VIEWS = frozenset({"items", "keys", "values"})
_EXACT = (int, float, str, bytes, bool, complex, type(None))


def _pure(node: ast.expr) -> bool:
    """Whether evaluating ``node`` again runs none of the user's code: names, attributes,
    constants, arithmetic, subscripts, ``len``, and the builtin wrappers."""
    if isinstance(node, ast.Name | ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return _pure(node.value)
    if isinstance(node, ast.Tuple | ast.List):
        return all(_pure(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _pure(node.left) and _pure(node.right)
    if isinstance(node, ast.UnaryOp):
        return _pure(node.operand)
    if isinstance(node, ast.Subscript):
        return _pure(node.value) and _pure(node.slice)
    if isinstance(node, ast.Slice):
        return all(part is None or _pure(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Name) and func.id in (_WRAPPERS | {"len"}):
            return all(_pure(a) for a in node.args)
        if isinstance(func, ast.Attribute) and func.attr in _VIEWS and not node.args:
            return _pure(func.value)
    return False


def _evaluate(node: ast.expr, scope: dict[str, Any]) -> Any:
    """``node``'s value in ``scope`` (a copy of the user's names: evaluation adds
    ``__builtins__`` to the dict it is given)."""
    return eval(compile(ast.Expression(node), "<loop>", "eval"), scope)


def _reiterable(node: ast.expr, namespace: dict[str, Any]) -> bool:
    """Whether every sequence the loop draws from can be iterated again (not an iterator)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
            node.func.id in ("enumerate", "zip", "reversed", "sorted", "list", "tuple")):
        return all(_reiterable(arg, namespace) for arg in node.args[:1 if
                   node.func.id == "enumerate" else None])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value  # .items() / .keys() / .values(): of a dict only
        kinds: tuple[type, ...] = (dict,)
    else:
        kinds = _REITERABLE
    try:
        value = _evaluate(node, namespace)
    except Exception:
        return False
    return isinstance(value, kinds)


def _same(item: Any, current: Any) -> bool:
    if item is current:
        return True
    return type(item) is type(current) and isinstance(item, _EXACT) and item == current


def _target_values(target: ast.expr, namespace: Mapping[str, Any]) -> Any:
    if isinstance(target, ast.Name):
        if target.id not in namespace:
            raise LookupError(target.id)
        return namespace[target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return tuple(_target_values(e, namespace) for e in target.elts)
    raise LookupError("an attribute or subscript as the loop variable")


def _matches(target: ast.expr, item: Any, current: Any) -> bool:
    if isinstance(target, ast.Name):
        return _same(item, current)
    try:
        items = tuple(item)
    except TypeError:
        return False
    if len(items) != len(current):
        return False
    elts = target.elts  # type: ignore[attr-defined]
    return all(_matches(e, i, c) for e, i, c in zip(elts, items, current, strict=True))


def _position(loop: ast.For, namespace: dict[str, Any]) -> int | str:
    try:
        current = _target_values(loop.target, namespace)
        iterable = _evaluate(loop.iter, namespace)
    except LookupError as missing:
        return f"the loop variable cannot be read back ({missing})"
    except Exception as exc:
        return f"its sequence cannot be read again ({type(exc).__name__})"
    found: list[int] = []
    for index, item in enumerate(itertools.islice(iterable, _MAX_ITEMS)):
        if _matches(loop.target, item, current):
            found.append(index)
            if len(found) > 1:
                return ("the loop variable's value occurs more than once in the sequence, so "
                        "the iteration that raised is not known")
    if not found:
        return "the loop variable no longer holds an item of the sequence"
    return found[0]


def _path(body: list[ast.stmt], lineno: int) -> list[tuple[int, str]] | str:
    """The steps from a loop's body to the statement that covers ``lineno``: (index, branch),
    where the branch of an ``if`` is "body" or "orelse" and of a ``try`` "body"."""
    for index, stmt in enumerate(body):
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
        if not first <= lineno <= (stmt.end_lineno or stmt.lineno):
            continue
        if isinstance(stmt, ast.If) and lineno != stmt.lineno:
            branch = "body" if stmt.body and lineno <= (stmt.body[-1].end_lineno or 0) else (
                "orelse")
            inner = _path(getattr(stmt, branch), lineno)
            return inner if isinstance(inner, str) else [(index, branch), *inner]
        if isinstance(stmt, ast.Try) and lineno != stmt.lineno:
            if stmt.body and lineno <= (stmt.body[-1].end_lineno or 0):
                inner = _path(stmt.body, lineno)
                return inner if isinstance(inner, str) else [(index, "body"), *inner]
            return "the line that raised is in a try block's handler or finally clause"
        if isinstance(stmt, ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith
                      | ast.Try | ast.Match) and lineno != stmt.lineno:
            return (f"the line that raised is inside a nested "
                    f"{type(stmt).__name__.lower().replace('async', '')} block")
        return [(index, "")]
    return "the line that raised is not in the loop's body"


def _before(body: list[ast.stmt], path: list[tuple[int, str]]) -> list[ast.stmt]:
    """The statements of the failing iteration that ran before the one that raised."""
    index, branch = path[0]
    ran = list(body[:index])
    if branch:
        ran += _before(getattr(body[index], branch), path[1:])
    return ran


def plan(tree_source: str, lineno: int, loop_first: int,
         namespace: Mapping[str, Any], *, every_item_raises: bool = False
         ) -> LoopResume | str:
    """How to resume the ``for`` loop starting at ``loop_first`` (a cell line) whose body
    raised at ``lineno``, or why it cannot be resumed.

    ``every_item_raises``: the diagnosis established that every item of the sequence
    raises at that line (the error is about a type all the items share: a JAX array's
    elements used as dict keys). Where that line is the body's first statement, reached
    unconditionally, the first iteration raised there and nothing of the loop had run: the
    loop runs from its start, its sequence evaluated once, as in a first run."""
    try:
        tree = ast.parse(tree_source)
    except SyntaxError:
        return "jax_nbhelp cannot read the cell as Python"
    loop = next((s for s in tree.body if s.lineno == loop_first), None)
    if isinstance(loop, ast.AsyncFor):
        return "it is an async for loop"
    if not isinstance(loop, ast.For):
        return "it is not a for loop"
    if not loop.body or lineno > (loop.body[-1].end_lineno or 0):
        return "the line that raised is in the loop's else clause"
    if every_item_raises and _path(loop.body, lineno) == [(0, "")]:
        return LoopResume(path=((0, ""),), position=0, iteration="")
    scope = dict(namespace)  # one copy for every evaluation below
    if not (_pure(loop.iter) and _reiterable(loop.iter, scope)):
        return ("its sequence is an iterator, a generator or a call jax_nbhelp cannot repeat "
                "safely, so the iterations that ran cannot be skipped")
    path = _path(loop.body, lineno)
    if isinstance(path, str):
        return path
    ran = _before(loop.body, path)
    targets = set(bound_names(loop))
    if any(set(bound_names(s)) & targets for s in cell_scope_statements(ran)):
        return "the loop's body rebinds the loop variable before the line that raised"
    position = _position(loop, scope)
    if isinstance(position, str):
        return position
    iteration = ", ".join(f"{name} = {_short(namespace.get(name))}"
                          for name in dict.fromkeys(bound_names(loop)))
    already = ""
    if ran:
        first, last = ran[0].lineno, ran[-1].end_lineno or ran[-1].lineno
        already = f"line {first}" if first == last else f"lines {first}-{last}"
    return LoopResume(path=tuple(path), position=position, iteration=iteration,
                      already_ran=already)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def describe(resume: LoopResume, lineno: int) -> str:
    """What the preview says of the resumed loop."""
    if not resume.iteration:  # see plan's every_item_raises
        return (f"the for loop runs from its start: its first iteration raised at line "
                f"{lineno}, its first statement, so none of it had run")
    ran = f"; {resume.already_ran} of it already ran" if resume.already_ran else ""
    return (f"the for loop resumes at line {lineno} in the iteration where {resume.iteration} "
            f"(item {resume.position + 1} of its sequence{ran}), then runs the iterations "
            "after it; none that ran runs again")


# ---- when the fix runs -------------------------------------------------------------------

def _flag(ctx: ast.expr_context) -> ast.Name:
    return ast.Name(id=FLAG, ctx=ctx)


def _guarded(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """``stmts`` run in every iteration but the resumed one."""
    if not stmts:
        return []
    guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_flag(ast.Load())), body=stmts,
                   orelse=[])
    return [ast.copy_location(guard, stmts[0])]


def _resume_body(body: list[ast.stmt], path: tuple[tuple[int, str], ...]) -> list[ast.stmt]:
    index, branch = path[0]
    stmt = body[index]
    if not branch:  # the statement that raised: the resumed iteration goes on from here
        reset = ast.copy_location(
            ast.Assign(targets=[_flag(ast.Store())], value=ast.Constant(False)), stmt)
        return [*_guarded(body[:index]), reset, *body[index:]]
    if isinstance(stmt, ast.If):
        resuming = _flag(ast.Load())
        if branch == "body":  # enter this branch without asking again
            test: ast.expr = ast.BoolOp(op=ast.Or(), values=[resuming, stmt.test])
        else:  # go to the else branch without asking again
            test = ast.BoolOp(op=ast.And(), values=[
                ast.UnaryOp(op=ast.Not(), operand=resuming), stmt.test])
        stmt.test = ast.copy_location(test, stmt.test)
    setattr(stmt, branch, _resume_body(getattr(stmt, branch), path[1:]))
    return [*_guarded(body[:index]), stmt, *body[index + 1:]]


def transform(module: ast.Module, resume: LoopResume) -> ast.Module:
    """The run's module with its first statement, the loop, resumed: a flag set before it,
    the sequence started at the iteration that raised, and the statements of that iteration
    before the one that raised skipped once."""
    loop = module.body[0]
    assert isinstance(loop, ast.For)
    islice = ast.Call(
        func=ast.Attribute(value=ast.Call(func=ast.Name(id="__import__", ctx=ast.Load()),
                                          args=[ast.Constant("itertools")], keywords=[]),
                           attr="islice", ctx=ast.Load()),
        args=[loop.iter, ast.Constant(resume.position), ast.Constant(None)], keywords=[])
    loop.iter = ast.copy_location(islice, loop.iter)
    loop.body = _resume_body(loop.body, resume.path)
    start = ast.copy_location(
        ast.Assign(targets=[_flag(ast.Store())], value=ast.Constant(True)), loop)
    module.body.insert(0, start)
    return ast.fix_missing_locations(module)
