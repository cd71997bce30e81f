"""Adding names to static_argnames wherever jit is applied: before/after strings."""

from __future__ import annotations

import pytest

from jax_nbhelp.rewrite import CannotRewrite, add_static_argnames, add_static_argnames_python

BODY = "def f(x, flag, n):\n    return x\n"


@pytest.mark.parametrize(
    ("source", "lineno", "expected"),
    [
        pytest.param("@jax.jit\n" + BODY, 1,
                     '@jax.jit(static_argnames=("flag",))\n' + BODY, id="jax.jit"),
        pytest.param("@jit\n" + BODY, 2,
                     '@jit(static_argnames=("flag",))\n' + BODY, id="jit-alias-def-line"),
        pytest.param("@partial(jax.jit)\n" + BODY, 1,
                     '@partial(jax.jit, static_argnames=("flag",))\n' + BODY,
                     id="partial-without-options"),
        pytest.param("@partial(jax.jit, static_argnames=('n',))\n" + BODY, 1,
                     "@partial(jax.jit, static_argnames=('n', 'flag'))\n" + BODY,
                     id="partial-merge-tuple"),
        pytest.param('@functools.partial(jax.jit, static_argnames="n")\n' + BODY, 1,
                     '@functools.partial(jax.jit, static_argnames=("n", "flag"))\n' + BODY,
                     id="functools-partial-merge-string"),
        pytest.param("@partial(jax.jit, static_argnames=['n'])\n" + BODY, 1,
                     "@partial(jax.jit, static_argnames=['n', 'flag'])\n" + BODY,
                     id="partial-merge-list"),
        pytest.param("@partial(jax.jit, donate_argnums=0)\n" + BODY, 1,
                     '@partial(jax.jit, donate_argnums=0, static_argnames=("flag",))\n' + BODY,
                     id="partial-other-options-kept"),
        pytest.param("@jax.jit(static_argnames=('n',))\n" + BODY, 1,
                     "@jax.jit(static_argnames=('n', 'flag'))\n" + BODY,
                     id="jit-with-options-merge"),
        pytest.param("@jax.vmap\n@jax.jit\n" + BODY, 1,
                     '@jax.vmap\n@jax.jit(static_argnames=("flag",))\n' + BODY,
                     id="other-decorators-left-alone"),
        pytest.param("fast = jax.jit(f)\n", 1,
                     'fast = jax.jit(f, static_argnames=("flag",))\n', id="call-form"),
        pytest.param("out = jax.jit(f)(x, True)\n", 1,
                     'out = jax.jit(f, static_argnames=("flag",))(x, True)\n',
                     id="inline-call-form"),
        pytest.param("fast = jax.jit(f, static_argnames='n')\n", 1,
                     "fast = jax.jit(f, static_argnames=('n', 'flag'))\n",
                     id="call-form-merge"),
        pytest.param("fast = jax.jit(\n    f,\n    donate_argnums=0,\n)\n", 2,
                     'fast = jax.jit(\n    f,\n    donate_argnums=0,\n'
                     '    static_argnames=("flag",),\n)\n',
                     id="one-argument-per-line"),
        pytest.param("fast = jax.jit(f, static_argnames=(\n    'n',\n))\n", 1,
                     "fast = jax.jit(f, static_argnames=(\n    'n',\n    'flag',\n))\n",
                     id="multiline-tuple"),
        pytest.param("fast = jit(mod.f)\n", 1,
                     'fast = jit(mod.f, static_argnames=("flag",))\n', id="attribute-function"),
    ],
)
def test_add(source: str, lineno: int, expected: str) -> None:
    assert add_static_argnames(source, lineno, "f", ["flag"]) == expected
    assert add_static_argnames_python(source, lineno, "f", ["flag"]) == expected


def test_several_names_and_partial_for_older_jax() -> None:
    source = "@jax.jit\n" + BODY
    assert add_static_argnames(source, 1, "f", ["flag", "n"]) == (
        '@jax.jit(static_argnames=("flag", "n"))\n' + BODY
    )
    assert add_static_argnames(source, 1, "f", ["flag"], "functools.partial", False) == (
        '@functools.partial(jax.jit, static_argnames=("flag",))\n' + BODY
    )
    # Without the factory form and without a name for partial, functools is imported...
    assert add_static_argnames("x = 1\n\n" + source, 3, "f", ["flag"], None, False) == (
        'x = 1\n\nimport functools\n@functools.partial(jax.jit, static_argnames=("flag",))\n'
        + BODY
    )
    indented = "def outer():\n    @jax.jit\n    def f(x, flag):\n        return x\n"
    assert add_static_argnames(indented, 2, "f", ["flag"], None, False) == (
        "def outer():\n    import functools\n"
        '    @functools.partial(jax.jit, static_argnames=("flag",))\n'
        "    def f(x, flag):\n        return x\n"
    )
    # ...but a call, or a decorator that already takes options, needs neither.
    assert add_static_argnames("g = jax.jit(f)\n", 1, "f", ["flag"], None, False) == (
        'g = jax.jit(f, static_argnames=("flag",))\n'
    )


def test_the_only_jit_when_no_line_is_given() -> None:
    source = "def f(x, flag):\n    return x\n\nfast = jax.jit(f)\n"
    assert add_static_argnames(source, None, "f", ["flag"]) == (
        'def f(x, flag):\n    return x\n\nfast = jax.jit(f, static_argnames=("flag",))\n'
    )
    with pytest.raises(CannotRewrite, match="in 2 places"):
        add_static_argnames("a = jax.jit(f)\nb = jax.jit(f)\n", None, "f", ["flag"])


def test_cells_with_magics() -> None:
    source = "%time setup()\n@jax.jit\n" + BODY + "!ls\n"
    assert add_static_argnames(source, 2, "f", ["flag"]) == (
        '%time setup()\n@jax.jit(static_argnames=("flag",))\n' + BODY + "!ls\n"
    )


@pytest.mark.parametrize(
    ("source", "lineno", "message"),
    [
        pytest.param(BODY, 1, "not decorated with jax.jit", id="not-jitted"),
        pytest.param("@partial(jax.jit, static_argnames=('flag',))\n" + BODY, 1,
                     "already lists flag", id="already-static"),
        pytest.param("@partial(jax.jit, static_argnames=NAMES)\n" + BODY, 1,
                     "can't extend", id="names-from-a-variable"),
        pytest.param("fast = jax.jit(f, **options)\n", 1, r"\*\*options", id="double-star"),
        pytest.param("fast = jax.jit(g)\n", 1, "neither", id="other-function"),
        pytest.param("fast = jax.jit(f)\n", 3, "outside the code", id="line-out-of-range"),
        pytest.param("%%bash\necho hi\n", 1, "%%bash", id="non-python-cell"),
    ],
)
def test_refusals(source: str, lineno: int, message: str) -> None:
    with pytest.raises(CannotRewrite, match=message):
        add_static_argnames(source, lineno, "f", ["flag"])


def test_rewritten_code_runs_with_real_jax() -> None:
    namespace: dict[str, object] = {}
    source = add_static_argnames(
        "import jax\nfrom functools import partial\n"
        "@partial(jax.jit, static_argnames=('scale',))\n"
        "def f(x, scale, flag):\n    return x * scale + (1 if flag else 0)\n",
        3, "f", ["flag"],
    )
    exec(source, namespace)
    f = namespace["f"]
    assert callable(f)
    assert float(f(1.0, 2, True)) == 3.0


def test_a_jit_that_lists_static_argnums_gets_the_position() -> None:
    """With static_argnums given, jit reads static_argnames only as written (by keyword), so
    a positional parameter goes into static_argnums."""
    source = ("@partial(jax.jit, static_argnums=(0,))\ndef make(x, n):\n"
              "    return jnp.zeros(n) + x\n")
    rewritten = add_static_argnames(source, 1, "make", ["n"])
    assert "@partial(jax.jit, static_argnums=(0, 1))" in rewritten
    assert "static_argnames" not in rewritten
