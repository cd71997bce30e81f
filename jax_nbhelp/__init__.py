"""jax_nbhelp: explains JAX and Pallas errors in notebooks and fixes them, verified by running.

Load it with ``%load_ext jax_nbhelp``. Importing this package does not import jax or the
implementation; both load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jax_nbhelp._version import __version__
from jax_nbhelp.core.model import Diagnosis as _Diagnosis
from jax_nbhelp.core.model import Fix as _Fix
from jax_nbhelp.core.model import FixResult as _FixResult

if TYPE_CHECKING:
    from jax_nbhelp.core.model import Diagnosis, Fix, FixResult, Location

__all__ = [
    "Diagnosis",
    "Fix",
    "FixResult",
    "Location",
    "__version__",
    "diagnose",
    "last",
    "last_checkup",
    "last_result",
    "load_ipython_extension",
    "unload_ipython_extension",
]


def load_ipython_extension(shell: Any) -> None:
    from jax_nbhelp.shell.extension import load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    from jax_nbhelp.shell.extension import unload

    unload(shell)


def diagnose(exc: BaseException) -> Diagnosis | None:
    """The diagnosis for ``exc``, or None when jax_nbhelp does not know the error."""
    from jax_nbhelp.diagnosis.engine import diagnose as run_catalog

    return run_catalog(exc)


def last() -> Diagnosis | None:
    """The last diagnosis shown (or produced by a fix's re-run), or None."""
    from jax_nbhelp.core.session import current

    return current().last


def last_checkup() -> Any:
    """The last kernel checkup (``%%jax_nbhelp check``): ``.kernels``, ``.checks``,
    ``.findings`` (each with ``.kind``, ``.kernel``, ``.location``, ``.message``), ``.clean``;
    None before the first."""
    from jax_nbhelp.core.session import current

    return current().last_checkup


def last_result() -> FixResult | None:
    """The outcome of the last fix applied, or None."""
    from jax_nbhelp.core.session import current

    return current().last_result


def __getattr__(name: str) -> Any:
    if name in {"Diagnosis", "Fix", "FixResult", "Location"}:
        from jax_nbhelp.core import model

        return getattr(model, name)
    raise AttributeError(f"module 'jax_nbhelp' has no attribute {name!r}")


def _render_text(diagnosis: Diagnosis) -> str:
    from jax_nbhelp.show.render_text import render_diagnosis

    return render_diagnosis(diagnosis)


def _preview(fix: _Fix) -> str:
    from jax_nbhelp.show.view import preview

    return preview(fix)


def _render_result(result: _FixResult) -> str:
    from jax_nbhelp.show.view import outcome_view

    return outcome_view(None, result).plain


# The package is where the layers meet: the plain-data model prints through the text
# renderer of the show layer above it, which it must not import itself.
_Diagnosis.text_renderer = _render_text
_FixResult.text_renderer = _render_result
_Fix.previewer = _preview


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the prebuilt JupyterLab extension is (``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "jax-nbhelp"}]
