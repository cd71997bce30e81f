"""Dropping one argument from a call while keeping the layout around it.

libcst stores the whitespace after each argument on that argument's comma (or,
for a last argument without one, on the argument itself).  Deleting an
argument therefore means deciding which of two separators survives: the one
before it (which may hold a comment about the previous argument) or the one
after it (which decides where the next argument or the closing parenthesis
goes).
"""

from __future__ import annotations

import libcst as cst

Whitespace = cst.BaseParenthesizableWhitespace


def _has_comment(ws: Whitespace) -> bool:
    if not isinstance(ws, cst.ParenthesizedWhitespace):
        return False
    return ws.first_line.comment is not None or any(
        line.comment is not None for line in ws.empty_lines
    )


def _join(before: Whitespace, after: Whitespace, *, closing: bool) -> Whitespace:
    """The separator left when the argument between ``before`` and ``after`` goes.

    ``closing`` says ``after`` leads to the closing parenthesis rather than to
    another argument.
    """
    if isinstance(after, cst.ParenthesizedWhitespace):
        if isinstance(before, cst.ParenthesizedWhitespace):
            # Keep the previous line's own trailing comment and any comment
            # lines, but take the indentation of what comes next.
            return after.with_changes(
                first_line=before.first_line,
                empty_lines=[*before.empty_lines, *after.empty_lines],
            )
        return after
    if isinstance(before, cst.ParenthesizedWhitespace) and (not closing or _has_comment(before)):
        return before
    return after if closing else before


def _comma_ws(arg: cst.Arg) -> Whitespace | None:
    return arg.comma.whitespace_after if isinstance(arg.comma, cst.Comma) else None


def drop_argument(call: cst.Call, index: int) -> cst.Call:
    """``call`` without ``call.args[index]``, with no dangling comma."""
    args = list(call.args)
    removed = args.pop(index)
    is_last = index == len(args)
    after = _comma_ws(removed)
    if after is None:
        after = removed.whitespace_after_arg
    changes: dict[str, object] = {}

    if index == 0:
        changes["whitespace_before_args"] = _join(
            call.whitespace_before_args, after, closing=is_last
        )
    else:
        prev = args[index - 1]
        assert isinstance(prev.comma, cst.Comma)  # it was followed by `removed`
        joined = _join(prev.comma.whitespace_after, after, closing=is_last)
        if is_last and not isinstance(removed.comma, cst.Comma):
            # No trailing comma before: don't leave one behind either.
            args[index - 1] = prev.with_changes(
                comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=joined
            )
        else:
            args[index - 1] = prev.with_changes(
                comma=prev.comma.with_changes(whitespace_after=joined)
            )
    changes["args"] = args
    return call.with_changes(**changes)
