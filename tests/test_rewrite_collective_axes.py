"""Removing collective_axes from the run_scoped call a traceback points at."""

from __future__ import annotations

import textwrap

import pytest

from jax_nbhelp.rewrite import CannotRewrite, remove_collective_axes, remove_collective_axes_python


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


CASES = [
    pytest.param(
        'y = pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")\n',
        1,
        "y = pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype))\n",
        id="one-line",
    ),
    pytest.param(
        """\
        out = pl.run_scoped(
            body,  # the body
            pltpu.VMEM(x.shape, x.dtype),  # scratch
            collective_axes="core",  # share it
        )  # end
        """,
        1,
        """\
        out = pl.run_scoped(
            body,  # the body
            pltpu.VMEM(x.shape, x.dtype),  # scratch
        )  # end
        """,
        id="own-line-trailing-comma-comment",
    ),
    pytest.param(
        """\
        out = pl.run_scoped(
            body,
            pltpu.VMEM(x.shape, x.dtype),
            collective_axes="core"
        )
        """,
        3,
        """\
        out = pl.run_scoped(
            body,
            pltpu.VMEM(x.shape, x.dtype)
        )
        """,
        id="own-line-no-trailing-comma-any-line",
    ),
    pytest.param(
        """\
        out = pl.run_scoped(body,
                            collective_axes=("x", "y"), ref=pltpu.VMEM((8,), jnp.float32))
        """,
        2,
        """\
        out = pl.run_scoped(body,
                            ref=pltpu.VMEM((8,), jnp.float32))
        """,
        id="tuple-in-the-middle",
    ),
    pytest.param(
        """\
        out = run_scoped(
            body,
            # comment lines are kept
            collective_axes=None,
            ref=pltpu.VMEM((8,), jnp.float32),
        )
        """,
        1,
        """\
        out = run_scoped(
            body,
            # comment lines are kept
            ref=pltpu.VMEM((8,), jnp.float32),
        )
        """,
        id="none-with-comment-line",
    ),
    pytest.param("out = rs(body, collective_axes=axes, ref=v)\n", 1, "out = rs(body, ref=v)\n",
                 id="alias-variable"),
    pytest.param("out = rs(body, ref=v, collective_axes=None,)\n", 1, "out = rs(body, ref=v,)\n",
                 id="single-line-trailing-comma"),
    pytest.param("out = rs(body, v,\n         collective_axes=None)\n", 1, "out = rs(body, v)\n",
                 id="wrapped-last-argument"),
    pytest.param(
        "out = rs(\n    body, v, collective_axes=None,\n)\n", 2, "out = rs(\n    body, v,\n)\n",
        id="same-line-as-others",
    ),
    pytest.param(
        "o = jax.experimental.pallas.run_scoped(f,   collective_axes = 'c' )  # x\n",
        1,
        "o = jax.experimental.pallas.run_scoped(f )  # x\n",
        id="full-module-path-odd-spacing",
    ),
    pytest.param(
        """\
        def kernel(x):
            def body(ref):  # untouched
                return ref[...]
            a = jnp.sum( x )   # odd  spacing
            return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")
        """,
        5,
        """\
        def kernel(x):
            def body(ref):  # untouched
                return ref[...]
            a = jnp.sum( x )   # odd  spacing
            return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype))
        """,
        id="rest-of-cell-untouched",
    ),
    pytest.param(
        'a = rs(f, collective_axes="x")\nb = rs(g, collective_axes="y")\n',
        2,
        'a = rs(f, collective_axes="x")\nb = rs(g)\n',
        id="only-the-line-asked-for",
    ),
    pytest.param(
        'y = pl.run_scoped(lambda r: plgpu.copy(r, collective_axes="q"), collective_axes="x")\n',
        1,
        'y = pl.run_scoped(lambda r: plgpu.copy(r, collective_axes="q"))\n',
        id="run-scoped-preferred-over-other-api",
    ),
    pytest.param(
        'rs = pl.run_scoped\n'
        'y = rs(lambda r: plgpu.copy(r, collective_axes="q"), collective_axes="x")\n',
        2,
        'rs = pl.run_scoped\ny = rs(lambda r: plgpu.copy(r, collective_axes="q"))\n',
        id="alias-assignment-recognised",
    ),
    pytest.param(
        'y = rs(lambda r: rs(g, collective_axes="q")(r), collective_axes="x")\n',
        1,
        'y = rs(lambda r: rs(g)(r), collective_axes="x")\n',
        id="innermost",
    ),
    pytest.param(
        "y = pl.run_scoped(body, **opts)\n",
        1,
        'y = pl.run_scoped(body, **{k: v for k, v in opts.items() if k != "collective_axes"})\n',
        id="double-star",
    ),
    pytest.param(
        "y = pl.run_scoped(body, **(a or b))\n",
        1,
        "y = pl.run_scoped(body, "
        '**{k: v for k, v in (a or b).items() if k != "collective_axes"})\n',
        id="double-star-expression",
    ),
]

DECORATOR = """\
    @functools.partial(pl.run_scoped, ref=pltpu.VMEM((8,), jnp.float32), collective_axes="x")
    def body(ref):  # keep
        return ref[...]
    """
DECORATOR_MULTILINE = """\
    @partial(
        pl.run_scoped,
        ref=pltpu.VMEM((8,), jnp.float32),
        collective_axes="x",  # gone
    )
    @other  # keep
    def body(ref):
        return ref[...]
    """


@pytest.mark.parametrize(("source", "lineno", "expected"), CASES)
def test_remove(source: str, lineno: int, expected: str) -> None:
    assert remove_collective_axes(dedent(source), lineno) == dedent(expected)
    assert remove_collective_axes_python(dedent(source), lineno) == dedent(expected)


@pytest.mark.parametrize("lineno", [1, 2])
def test_decorator_line_and_def_line(lineno: int) -> None:
    expected = DECORATOR.replace(', collective_axes="x"', "")
    assert remove_collective_axes(dedent(DECORATOR), lineno) == dedent(expected)


@pytest.mark.parametrize("lineno", [1, 4, 7])
def test_multiline_decorator(lineno: int) -> None:
    expected = DECORATOR_MULTILINE.replace('        collective_axes="x",  # gone\n', "")
    assert remove_collective_axes(dedent(DECORATOR_MULTILINE), lineno) == dedent(expected)


def test_body_line_is_not_the_decorator() -> None:
    with pytest.raises(CannotRewrite):
        remove_collective_axes(dedent(DECORATOR), 3)


def test_magics_in_the_cell_are_kept() -> None:
    cell = dedent(
        """\
        %%time
        %env JAX_PLATFORMS=cpu
        !echo 'collective_axes="x"'
        out = pl.run_scoped(
            body,
            collective_axes="core",
        )
        pl.run_scoped?
        """
    )
    assert remove_collective_axes(cell, 4) == cell.replace('    collective_axes="core",\n', "")


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("y = pl.run_scoped(body, *types)\n", "the axes may come in through *args"),
        (
            "rs = partial(pl.run_scoped, collective_axes='x')\ny = rs(body)\n",
            "the axes must be set somewhere else, for example in a functools.partial",
        ),
    ],
)
def test_nothing_to_remove(source: str, reason: str) -> None:
    lineno = source.count("\n")
    with pytest.raises(CannotRewrite) as info:
        remove_collective_axes(source, lineno)
    assert str(info.value) == (
        f"Line {lineno} has no call that passes collective_axes= or **kwargs, so there is "
        f"nothing to remove there; {reason}. Remove collective_axes where it is set."
    )


def test_line_outside_the_code() -> None:
    with pytest.raises(CannotRewrite) as info:
        remove_collective_axes("x = 1\n", 5)
    assert str(info.value) == "Line 5 is outside the code, which has 1 line."


def test_ipython_line_is_refused() -> None:
    with pytest.raises(CannotRewrite) as info:
        remove_collective_axes("x = 1\n%time y = rs(f, collective_axes='c')\n", 2)
    assert str(info.value) == (
        "Line 2 is IPython syntax (\"%time y = rs(f, collective_axes='c')\"), so the call on "
        "it can't be rewritten automatically."
    )


def test_unparsable_cell() -> None:
    with pytest.raises(CannotRewrite) as info:
        remove_collective_axes("y = rs(f, collective_axes='c')\nif x\n    pass\n", 1)
    assert str(info.value) == (
        "Line 2 can't be parsed as Python, so the code can't be rewritten automatically: 'if x'."
    )


def test_bash_cell_is_refused() -> None:
    with pytest.raises(CannotRewrite, match="starts with %%bash"):
        remove_collective_axes("%%bash\necho hi\n", 2)
