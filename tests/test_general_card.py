"""The general view (JNH000): an error JAX raised that no catalog entry knows, and of which
nothing could be read for the explained view (no check of JAX's Python, no JAX function the
line calls), gets a card that claims no cause and offers no fix, and says where the error
came from, under which transformations, what the line worked on and what JAX suggests; and
nothing at all for an error JAX did not raise."""

from __future__ import annotations

import pytest
from conftest import Notebook, validate_bundle

from jax_nbhelp.diagnosis.context import Link
from jax_nbhelp.diagnosis.general import hints

_CONTRACT = ("def contract(x):\n    return jnp.einsum('ij,jk', x, jnp.ones((4, 2)))\n\n"
             "def loss(x):\n    return contract(x).sum()\n\nbatch = jnp.ones((3, 2, 3))")
# A static argument whose __eq__ fails: JAX's C++ raises it at the call of the user's own
# jitted function, so there is neither a check of JAX's Python to read nor a JAX function
# the line calls by name.
_UNCOMPARABLE = ("class Setting:\n    def __hash__(self):\n        return 0\n\n"
                 "    def __eq__(self, other):\n        raise TypeError('not comparable')\n\n"
                 "f = jax.jit(lambda x, s: x, static_argnums=1)\nf(1.0, Setting())")


def test_an_error_nothing_can_be_read_of_gets_the_general_view(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp")
    loaded.ok(_UNCOMPARABLE)
    failed = loaded.run("y = f(1.0, Setting())")
    assert type(failed.error).__name__ == "ValueError"
    (bundle,) = failed.diagnoses
    validate_bundle(bundle)
    assert bundle["code"] == "JNH000"
    assert bundle["general"] is True
    assert bundle["explained"] is False
    assert bundle["fixes"] == []
    assert bundle["cause"].startswith("JAX raised this ValueError; ")
    # The text form names the view and claims nothing it does not know.
    text = next(b["text/plain"] for b in failed.bundles if "text/plain" in b)
    assert "general view" in text.lower()
    assert "No mechanical fix is correct" not in text


def test_an_error_under_transforms_is_explained(loaded: Notebook) -> None:
    """The explained view (tests/test_explained_card.py) keeps what the general view read:
    the transformations the code ran under, and the places."""
    loaded.ok("import jax, jax.numpy as jnp")
    loaded.ok(_CONTRACT)
    failed = loaded.run("g = jax.jit(jax.vmap(jax.grad(loss)))(batch)")
    (bundle,) = failed.diagnoses
    validate_bundle(bundle)
    assert bundle["code"] == "JNH001"
    assert bundle["transforms"] == ["jit", "vmap", "grad"]
    assert bundle["binding"]["function"] == "jnp.einsum"
    assert bundle["location"]["function"] == "contract"
    assert bundle["call_site"]["line"] == "g = jax.jit(jax.vmap(jax.grad(loss)))(batch)"


def test_the_values_of_a_call_are_read_from_the_namespace(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nscores = jnp.ones((4, 3))\nlabels = [0, 1, 2, 1]")
    failed = loaded.run("picked = jnp.einsum('ij,jk', scores, jnp.ones((2, 5)))")
    (bundle,) = failed.diagnoses
    operands = next(a for a in bundle["binding"]["arguments"] if a["parameter"] == "operands")
    assert operands["expression"] == "scores, jnp.ones((2, 5))"
    assert "float32[4, 3]" in operands["value"]
    assert bundle["transforms"] == []


@pytest.mark.parametrize("cell", [
    # the user's own errors inside a jitted function: JAX ran the code, it did not raise
    "@jax.jit\ndef f(x):\n    raise ValueError('the user says no')\n\nf(1.0)",
    "@jax.jit\ndef f(x):\n    table = {}\n    return table['missing']\n\nf(1.0)",
    "@jax.jit\ndef f(x):\n    assert x.shape == (3,), 'wrong shape'\n    return x\n\n"
    "f(jnp.ones(2))",
    # NumPy's own error, on NumPy's array
    "import numpy as np\nnp.arange(3)[5]",
    # a plain Python error next to JAX code
    "params = {'w': jnp.ones(2)}\nparams['b']",
])
def test_an_error_jax_did_not_raise_gets_nothing(loaded: Notebook, cell: str) -> None:
    loaded.ok("import jax, jax.numpy as jnp")
    failed = loaded.run(cell)
    assert failed.error is not None
    assert failed.diagnoses == []
    assert failed.stderr == ""


def test_a_bug_in_the_general_view_never_hides_the_traceback(loaded: Notebook,
                                                             monkeypatch) -> None:
    from jax_nbhelp.diagnosis import general

    def broken(ctx):
        raise RuntimeError("bug in the general view")

    monkeypatch.setattr(general, "diagnosis", broken)
    loaded.ok("import jax, jax.numpy as jnp")
    loaded.ok(_UNCOMPARABLE)
    failed = loaded.run("y = f(1.0, Setting())")
    assert "static arguments should be comparable" in failed.stdout
    assert failed.diagnoses == []
    assert "a diagnosis failed" in failed.stderr


def test_jax_hints_are_lifted_out_of_its_message() -> None:
    link = Link("TypeError", "builtins",
                "x requires an array. (Tip: jnp.add is a similar function that does "
                "automatic type promotion on inputs). See https://docs.jax.dev/x.html for "
                "more.", (), ("TypeError",))
    found = hints(link)
    assert found[0].startswith("Tip: jnp.add is a similar function")
