"""Adding a keyword argument to a call, or replacing its value, keeping the call's layout."""

from __future__ import annotations

import libcst as cst

from .errors import CannotRewrite


def _separator(call: cst.Call, args: list[cst.Arg]) -> cst.BaseParenthesizableWhitespace:
    """The whitespace that separates arguments in this call (keeps one-per-line layouts)."""
    if len(args) > 1 and isinstance(args[-2].comma, cst.Comma):
        return args[-2].comma.whitespace_after
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return call.whitespace_before_args
    return cst.SimpleWhitespace(" ")


def has_keyword(call: cst.Call, keyword: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == keyword for arg in call.args)


def set_keyword(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """``call`` with ``keyword=value``: the value replaced if present, else the argument added.

    Raises :class:`CannotRewrite` when ``**mapping`` might already pass the keyword.
    """
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == keyword:
            args[index] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    if any(arg.star == "**" for arg in args):
        raise CannotRewrite(
            f"The call passes **keyword arguments, which may already hold {keyword}=, so "
            f"jax_nbhelp cannot add it safely. Set {keyword}= where those arguments are built."
        )
    new = cst.Arg(
        keyword=cst.Name(keyword),
        value=value,
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        # A trailing comma stays trailing, after the new argument.
        args[-1] = last.with_changes(
            comma=last.comma.with_changes(whitespace_after=_separator(call, args))
        )
        new = new.with_changes(comma=last.comma)
    else:
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_after=_separator(call, args)),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        )
        new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    return call.with_changes(args=[*args, new])
