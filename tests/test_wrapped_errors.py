"""Each catalog example is still diagnosed when JAX wraps its error, the two ways it does.

- ``JaxStackTraceBeforeTransformation``: an error raised while JAX evaluates or lowers a
  traced operation gets, as its ``__cause__``, the stack of the line that made that
  operation (JAX's ``source_info_util.user_context`` attaches it).
- ``JaxRuntimeError``: an error raised inside a host callback (``jax.pure_callback``, and
  the Pallas interpreters' kernel steps) reaches the user as text inside
  ``INTERNAL: CpuCallback error calling callback: Traceback ...``.

Both are produced here by JAX itself: the failing cell runs under JAX's own
``user_context``, or inside a real ``jax.pure_callback``.
"""

from __future__ import annotations

import ast
import textwrap

import pytest
from conftest import Notebook

from jax_nbhelp.catalog._example import unmet
from jax_nbhelp.diagnosis.engine import entries

CASES = [
    pytest.param(entry, index, example, id=f"{entry.CODE}-{index}")
    for entry in entries()
    for index, example in enumerate(entry.EXAMPLES)
]

# A diagnosis that knows the wrapper says more than the error inside it: the flagship
# message from a host callback means a kernel helper jitted inside an interpreted kernel.
WRAPPED_AS = {"JNH101": "JNH106"}
# What a callback's text cannot carry: this diagnosis tells a wrong interpreter from a
# right one by the kernel's facts, read from JAX's live frames, which the text loses.
NOT_THROUGH_A_CALLBACK = {
    "JNH205": "needs the interpreted kernel's live frames",
    # Python imports, not JAX: only the import system's own frames say the import failed
    "JNH213": "an import inside a callback is the callback's own code",
    "JNH611": "an import inside a callback is the callback's own code",
    # The linearization message is JAX's for any operation: it is a pallas_call's only
    # when pallas_call's own frames are in the chain, which a callback's text does not keep.
    "JNH218": "needs pallas_call's frames",
    # Python hashes the array: JAX's business only where the frame shows the instruction
    # that hashed, which a callback's text does not keep (and a callback's own arrays are
    # NumPy's, which Python names so).
    "JNH509": "a hash is told from the frame's own instruction",
    "JNH510": "the array is read in json's own frame, which the callback's text does not keep",
    # Python calls the attribute's int: JAX's business only where the frame's call shows a
    # JAX array's attribute, which a callback's text does not keep
    "JNH515": "the called attribute's array is read from the frame's own call",
    # Python's operator refused a container: that it holds JAX arrays is read from the
    # operands in the frame, which a callback's text does not keep
    "JNH544": "the tree operands are read from the frame's own operator",
    # the container is the one Python's attribute lookup recorded, and read in the frame
    "JNH546": "the container is read from the frame's own attribute lookup",
}
# Examples whose error is told from the user's frame itself (the instruction it stopped at,
# the values it held), which an error raised inside a callback does not bring back.
NEEDS_THE_FRAME = {
    "JNH303-1": "an f-string's format of a tracer is told from the frame's format instruction",
}
# Examples whose error says nothing that names its cause, so the diagnosis needs the failing
# line itself, which neither an exec'd string under user_context nor a callback's text shows.
NEEDS_THE_LINE = {
    # JAX's bare assert has no message: the collective, its axis and the shard_map call are
    # read from the user's lines and the mesh from the namespace.
    "JNH405-0": "a bare AssertionError is claimed only from the collective's own line",
    # "Too many indices" is said of any 0-d array: it is about keys only when the line shows
    # a typed key indexed.
    "JNH406-2": "a 0-d index error is claimed only when the line shows a typed key",
    # A notebook's own assert is the user's error: it is JAX's business only by its line.
    "JNH207-3": "a device guard is read from the assert statement's own line",
    # JAX's message names no array: which operand is a NumPy array or a ref is read from
    # the line's live values, which an exec'd string or a callback's text does not keep.
    "JNH505-0": "a NumPy array is told from the line's live value",
    "JNH505-1": "a NumPy array is told from the line's live value",
    "JNH505-2": "a NumPy array is told from the line's live value",
    "JNH506-0": "a ref is told from the line's live value",
    # Python raises it at the notebook's own assignment into .at: JAX's business only when
    # the frame shows that assignment, which a callback's text does not keep.
    "JNH501-1": "an assignment into .at is told from the frame's own instruction",
    # Python's message names the method's function (_mean), not the array it belongs to:
    # that it is a JAX array's method is read from the call on the line.
    "JNH210-9": "a keyword of an array's method is told from the call on the line",
    # NumPy's low=/high= are read as jax.random's minval=/maxval= only at the call itself
    "JNH210-10": "a NumPy keyword of a jax.random sampler is told from the call on the line",
    # Python's message names the function (sort, std) the line reaches through jnp: read
    # from the call on the line, which the exec'd text does not keep
    "JNH210-11": "a keyword of Python's sorted is told from the call on the line",
    "JNH210-13": "PyTorch's unbiased= is told from the call on the line",
    "JNH210-23": "an earlier JAX's sym_pos= is told from the call on the line",
    # JAX names the escaped value's creation line and column, the custom_jvp's call; under
    # user_context that place is the exec's own line, which calls no custom_jvp.
    "JNH528-0": "the custom_jvp's call is read from the creation place JAX's message names",
    # Python's message names an int or a tuple: that it was a JAX array's attribute is read
    # from the call on the line, which the exec'd text does not keep
    **{f"JNH515-{i}": "a JAX array's attribute is told from the call on the line"
       for i in range(3)},
    # Python's message names a dict or list: that it holds JAX arrays is read from the
    # operator's operands on the line, which the exec'd text does not keep
    **{f"JNH544-{i}": "a tree of JAX arrays is told from the operator on the line"
       for i in range(3)},
    # Python's unpacking message names no function: that JAX's call made the value is read
    # from the assignment on the line
    **{f"JNH545-{i}": "JAX's call is told from the assignment on the line" for i in range(3)},
    # Python's message names a list or dict: that it holds JAX arrays is read from the
    # attribute's receiver on the line
    **{f"JNH546-{i}": "a container of JAX arrays is told from the attribute on the line"
       for i in range(4)},
}


def _setup(nb: Notebook, example, case: str = "") -> str:
    if case in NEEDS_THE_LINE:
        pytest.skip(NEEDS_THE_LINE[case])
    requirement = unmet(example)
    if requirement is not None:
        pytest.skip(f"needs {requirement}")
    for cell in example.setup:
        nb.ok(cell)
    return nb.shell.transform_cell(example.failing)


@pytest.mark.parametrize(("entry", "index", "example"), CASES)
def test_diagnosed_through_the_stack_before_transformation(loaded: Notebook, entry, index,
                                                           example) -> None:
    code = _setup(loaded, example, f"{entry.CODE}-{index}")
    pytest.importorskip("jax._src.source_info_util")
    loaded.shell.user_ns["_failing_code"] = code
    failed = loaded.run(
        "from jax._src import source_info_util\n"
        "with source_info_util.user_context(source_info_util.current().traceback):\n"
        "    exec(_failing_code)\n"
    )
    assert failed.error is not None
    assert "JaxStackTraceBeforeTransformation" in {
        type(link).__name__ for link in (failed.error.__cause__, failed.error.__context__)}
    assert [d["code"] for d in failed.diagnoses] == [entry.CODE]


@pytest.mark.parametrize(("entry", "index", "example"), CASES)
def test_diagnosed_through_a_host_callback(loaded: Notebook, entry, index, example) -> None:
    if entry.CODE in NOT_THROUGH_A_CALLBACK:
        pytest.skip(NOT_THROUGH_A_CALLBACK[entry.CODE])
    if f"{entry.CODE}-{index}" in NEEDS_THE_FRAME:
        pytest.skip(NEEDS_THE_FRAME[f"{entry.CODE}-{index}"])
    code = _setup(loaded, example, f"{entry.CODE}-{index}")
    # The failing code runs as the body of the callback, written in this cell, so its lines
    # are the user's as they would be in a kernel's callback; what it assigns stays global.
    assigned = sorted({node.id for node in ast.walk(ast.parse(code))
                       if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)})
    declare = f"    global {', '.join(assigned)}\n" if assigned else ""
    failed = loaded.run(
        "def in_callback(token__):\n"
        f"{declare}{textwrap.indent(code, '    ')}\n"
        "    return token__\n"
        "\n"
        "jax.jit(lambda t: jax.pure_callback(in_callback, jax.ShapeDtypeStruct((), t.dtype), t))("
        "jnp.float32(0)).block_until_ready()\n"
    )
    assert failed.error is not None
    assert type(failed.error).__name__ == "JaxRuntimeError"
    assert [d["code"] for d in failed.diagnoses] == [WRAPPED_AS.get(entry.CODE, entry.CODE)]


def test_a_users_own_error_inside_a_callback_is_not_claimed(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp")
    failed = loaded.run(
        "def in_callback(token):\n"
        "    raise ValueError('Only interpret mode is supported on CPU backend.')\n"
        "\n"
        "shape = jax.ShapeDtypeStruct((), jnp.float32)\n"
        "jax.jit(lambda t: jax.pure_callback(in_callback, shape, t))(jnp.float32(0))"
        ".block_until_ready()\n"
    )
    assert type(failed.error).__name__ == "JaxRuntimeError"
    assert failed.diagnoses == []
