"""Show a diagnosis after the traceback, as a mime bundle every frontend can render.

``text/plain`` is what terminal IPython and unknown frontends show;
``application/vnd.jax-nbhelp.diagnosis+json`` carries the same content as data for the
widget and the JupyterLab extension.
"""

from __future__ import annotations

from typing import Any

from jax_nbhelp.model import Diagnosis
from jax_nbhelp.render_text import MIME_TYPE, render_diagnosis


def diagnosis_bundle(diagnosis: Diagnosis) -> dict[str, Any]:
    return {
        "text/plain": render_diagnosis(diagnosis),
        MIME_TYPE: diagnosis.to_json(),
    }


def show(diagnosis: Diagnosis) -> None:
    from IPython.display import display

    display(diagnosis_bundle(diagnosis), raw=True)  # type: ignore[no-untyped-call]
