"""One decision, one click: "Interpret mode from now on" carries to the rest of a notebook
whose every cell builds a kernel (a Pallas tutorial on a CPU runtime), in a real kernel."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from jax_nbhelp.show.render_text import MIME_TYPE

pytestmark = pytest.mark.kernel

IMPORTS = ("import jax, jax.numpy as jnp\n"
           "from jax.experimental import pallas as pl")


def kernel(name: str, body: str, rows: int) -> str:
    return (f"def {name}_body(x_ref, o_ref):\n    o_ref[...] = {body}\n\n"
            f"{name} = pl.pallas_call({name}_body, "
            f"out_shape=jax.ShapeDtypeStruct(({rows}, 128), jnp.float32))\n"
            f"{name}_out = {name}(jnp.ones(({rows}, 128)))\n"
            f"print('{name}', float({name}_out.sum()))")


def _fix_number(bundle: dict, label: str) -> int:
    labels = [fix["label"] for fix in bundle["fixes"]]
    return labels.index(label) + 1


def test_from_now_on_carries_to_later_kernels_until_switched_off() -> None:
    cells = ["%load_ext jax_nbhelp", IMPORTS, kernel("add_one", "x_ref[...] + 1", 8)]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    client = NotebookClient(nb, timeout=300, startup_timeout=300, kernel_name="python3",
                            allow_errors=True)
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        (bundle,) = [o.data[MIME_TYPE] for o in nb.cells[2].outputs
                     if "data" in o and MIME_TYPE in o.data]
        assert bundle["code"] == "JNH201"
        number = _fix_number(bundle, "Interpret mode from now on")
        later = [
            f"%jax_nbhelp fix {number}",
            kernel("double", "x_ref[...] * 2", 16),  # a tutorial's next cells: no click
            kernel("square", "x_ref[...] * x_ref[...] + 2", 4),
            "%jax_nbhelp interpret",
            "%jax_nbhelp interpret off",
            kernel("halve", "x_ref[...] / 2", 8),  # compiled as written again: fails
        ]
        for source in later:
            nb.cells.append(nbformat.v4.new_code_cell(source))
            client.execute_cell(nb.cells[-1], len(nb.cells) - 1)

    def text(index: int) -> str:
        return "".join(o.get("text", "") for o in nb.cells[index].outputs)

    def errors(index: int) -> list:
        return [o for o in nb.cells[index].outputs if o.output_type == "error"]

    assert "Fixed" in text(3), nb.cells[3].outputs
    assert "add_one 2048.0" in text(3)
    assert not errors(4)
    assert "double 4096.0" in text(4)
    assert not errors(5)
    assert "square 1536.0" in text(5)
    assert "is on for this kernel" in text(6)
    assert "is off" in text(7)
    assert errors(8), "a kernel built after switching off must compile as written"
    (after,) = [o.data[MIME_TYPE] for o in nb.cells[8].outputs
                if "data" in o and MIME_TYPE in o.data]
    assert after["code"] == "JNH201"
