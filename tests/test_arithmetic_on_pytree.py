"""JNH544: Python's arithmetic on a dict, list or tuple of JAX arrays (``params - lr *
grads`` where ``grads`` came from ``jax.grad`` of a dict), in a real IPython shell with real
JAX. Python raises it at the operator; it counts as JAX's only where an operand is a tree of
JAX arrays (or, where Python's message names a container, what a call of JAX's returned)."""

from __future__ import annotations

import numpy as np
from conftest import Notebook

_SETUP = ('import jax, jax.numpy as jnp\n'
          'params = {"w": jnp.array([1.0, 2.0]), "b": jnp.array(0.5)}\n'
          'def loss(p, x):\n'
          '    return jnp.sum((x * p["w"] + p["b"]) ** 2)\n'
          'x = jnp.array([1.0, -1.0])\n'
          'grads = jax.grad(loss)(params, x)')


def _expected(lr: float) -> dict[str, np.ndarray]:
    w, b, x = np.array([1.0, 2.0]), 0.5, np.array([1.0, -1.0])
    residual = 2 * (x * w + b)
    return {"w": w - lr * residual * x, "b": b - lr * residual.sum()}


def _close(got: dict, want: dict) -> bool:
    return all(np.allclose(np.asarray(got[k]), want[k], atol=1e-6) for k in want)


def test_a_step_on_a_dict_of_parameters_is_mapped_over_the_tree(loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    failed = loaded.run("params = params - 0.1 * grads")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert "`params` is a dict of 2 JAX arrays" in bundle["explanation"]
    fix = bundle["fixes"][bundle["recommended"] - 1]
    assert fix["safe"]
    assert "jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)" in fix["summary"]
    assert "\nFixed:" in loaded.run(f"%jax_nbhelp fix {bundle['recommended']}").stdout
    assert _close(loaded["params"], _expected(0.1))


def test_inside_a_jitted_step_the_function_is_rewritten(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\n@jax.jit\ndef step(params, x, lr):\n"
              "    g = jax.grad(loss)(params, x)\n    return params - lr * g")
    failed = loaded.run("new = step(params, x, 0.1)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert _close(loaded["new"], _expected(0.1))


def test_a_gradient_called_in_place_and_jax_not_bound(loaded: Notebook) -> None:
    """``grad(loss)(params, x)`` holds no value before it runs: Python's message names the
    dict, and the call is JAX's; ``jax`` itself is imported by the fix."""
    loaded.ok(_SETUP.replace("import jax, jax.numpy as jnp", "import jax.numpy as jnp\n"
                             "from jax import grad").replace("jax.grad", "grad")
              + "\ndel jax")  # (the fixture's Pallas imports bound it)
    failed = loaded.run("params = params - 0.1 * grad(loss)(params, x)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert "import jax" in bundle["fixes"][0]["summary"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert _close(loaded["params"], _expected(0.1))


def test_lists_an_augmented_assignment_and_elementwise_calls(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\n"
              "layers = [jnp.ones(2), jnp.full(3, 4.0)]\n"
              "m = [jnp.ones(2), jnp.ones(3)]\nv = [jnp.full(2, 4.0), jnp.full(3, 16.0)]")
    failed = loaded.run("layers -= 0.5 * m / jnp.sqrt(v)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert [a.tolist() for a in loaded["layers"]] == [[0.75, 0.75], [3.875] * 3]


def test_an_array_with_dimensions_beside_the_tree_is_explained_only(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nmask = jnp.array([1.0, 0.0])")
    failed = loaded.run("masked = grads * mask")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert bundle["fixes"] == []
    assert "`mask` is not a number" in " ".join(bundle.get("notes", []))


def test_trees_of_other_structures_do_not_say_fixed(loaded: Notebook) -> None:
    loaded.ok(_SETUP + '\nother = {"w": jnp.ones(2)}')
    failed = loaded.run("params = params - 0.1 * other")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    said = loaded.run("%jax_nbhelp fix 1").stdout
    assert "\nFixed:" not in said
    assert loaded["params"]["w"].tolist() == [1.0, 2.0]  # untouched


def test_the_same_words_elsewhere_stay_silent(loaded: Notebook) -> None:
    """A dict of floats, NumPy arrays, a user's raise of the words, a user's call."""
    loaded.ok("import jax, jax.numpy as jnp\nimport numpy as np\n"
              "stats = {'a': 1.0}\nhost = {'w': np.ones(2)}\ndef make():\n    return {'a': 1}")
    for cell in ("s = stats * 2.0", "h = host * 2.0", "m = make() * 2.0",
                 "raise TypeError(\"unsupported operand type(s) for *: 'float' and 'dict'\")"):
        failed = loaded.run(cell)
        assert failed.error is not None, cell
        assert failed.diagnoses == [], cell


def test_inside_a_tree_map_the_one_array_a_dict_holds(loaded: Notebook) -> None:
    """A function tree.map calls per leaf reads a tree that is the same for every leaf:
    mapping it would nest trees; a dict of one array means that array."""
    loaded.ok("import jax, jax.numpy as jnp\nhyper = {'learning_rate': jnp.array(0.5)}\n"
              "updates = {'w': jnp.ones(3), 'b': jnp.ones(())}")
    failed = loaded.run("scaled = jax.tree.map(lambda t: -hyper * t, updates)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert bundle["fixes"][0]["label"] == "Use the one array it holds"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["scaled"]["w"].tolist() == [-0.5] * 3


def test_inside_a_tree_map_a_tree_of_several_arrays_is_explained(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nscale = {'w': jnp.array(0.5), 'b': jnp.array(2.0)}\n"
              "updates = {'w': jnp.ones(3), 'b': jnp.ones(())}")
    failed = loaded.run("scaled = jax.tree.map(lambda t: scale * t, updates)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert bundle["fixes"] == []
    assert "once for each leaf" in " ".join(bundle.get("notes", []))


def test_the_tree_arithmetic_after_the_failing_line_is_mapped_too(loaded: Notebook) -> None:
    """A hand-written Adam step: the moments, then the step, each over the same trees; one
    click maps all three (none of them had run), so the re-run does not stop at the next."""
    loaded.ok("import jax, jax.numpy as jnp\n"
              "params = {'w': jnp.array([1.0, 2.0]), 'b': jnp.array(0.5)}\n"
              "grads = {'w': jnp.array([0.5, -1.0]), 'b': jnp.array(2.0)}\n"
              "m = {'w': jnp.zeros(2), 'b': jnp.zeros(())}\n"
              "v = {'w': jnp.zeros(2), 'b': jnp.zeros(())}")
    loaded.ok("def adam(params, grads, m, v, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):\n"
              "    m = b1 * m + (1 - b1) * grads\n"
              "    v = b2 * v + (1 - b2) * grads ** 2\n"
              "    params = params - lr * m / (jnp.sqrt(v) + eps)\n"
              "    return params, m, v")
    failed = loaded.run("params, m, v = adam(params, grads, m, v)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert "lines 3, 4" in bundle["fixes"][0]["summary"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    g = np.array([0.5, -1.0])
    m1, v1 = 0.1 * g, 0.001 * g ** 2
    assert np.allclose(np.asarray(loaded["params"]["w"]),
                       np.array([1.0, 2.0]) - 0.1 * m1 / (np.sqrt(v1) + 1e-8), atol=1e-5)
    assert np.allclose(np.asarray(loaded["v"]["b"]), 0.001 * 4.0)


def test_a_list_joined_or_repeated_is_not_mapped(loaded: Notebook) -> None:
    """Python's sequence operations: a list joined to an array, a list repeated by a JAX
    integer; the line may have meant them, so no arithmetic is mapped over the items."""
    loaded.ok("import jax, jax.numpy as jnp\nitems = [jnp.ones(2)]\nn = jnp.int32(3)")
    for cell in ("joined = items + jnp.zeros(2)", "repeated = items * n"):
        failed = loaded.run(cell)
        (bundle,) = failed.diagnoses
        assert bundle["code"] == "JNH544", cell
        assert bundle["fixes"] == [], cell


def test_a_list_of_numbers_is_not_mapped(loaded: Notebook) -> None:
    """``jax.grad(f)([1.0, 2.0])`` hands f a list of two scalars: the list was likely meant
    as one vector, and mapping over its items would keep it a list."""
    loaded.ok("import jax, jax.numpy as jnp\ndef f(x):\n    return jnp.sum(x ** 2)\n"
              "x0 = [1.0, 2.0]")
    failed = loaded.run("g = jax.grad(f)(x0)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH544"
    assert bundle["fixes"] == []
    assert "jnp.asarray" in " ".join(bundle.get("notes", []))
