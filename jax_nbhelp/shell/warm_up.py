"""Import what a first diagnosis needs in the background, once jax_nbhelp is loaded.

The first error of a session is the one that counts, and its diagnosis would otherwise pay
for importing libcst and the catalog (a few hundred milliseconds) inside the failing cell.
A daemon thread imports them while the user works; JAX itself is never imported here. If
the first error comes before the thread is done, the diagnosis simply waits on the same
imports; a failure here costs nothing but that head start.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
import sys
import threading

_STARTED = threading.Event()
_MODULES = (
    "libcst",
    "libcst.metadata",
    "jax_nbhelp.rewrite",
    "jax_nbhelp.show.card.html",
    "jax_nbhelp.show.display",
    "jax_nbhelp.fix.run_plan",
    "jax_nbhelp.fix.interpreted_kernel",
    "jax_nbhelp.show.bundle",
    # what a kernel's card adds after its fixes: "Check this kernel" (not JAX: it imports
    # Pallas only when a card offers the checkup)
    "jax_nbhelp.shell.checkup_actions",
    # the explained view and the fixes its function's contract admits
    "jax_nbhelp.diagnosis.explained",
    "jax_nbhelp.catalog._contract",
)
# A first parse pays for libcst's native parser and its metadata machinery; a cell shaped
# like a kernel helper takes that here instead of in the first failing cell.
_SAMPLE = "def helper(x):\n    return run(body, size(x.shape), axes='core')\n"


def _import_all(loaded_after_jax: bool) -> None:
    try:
        for name in _MODULES:
            importlib.import_module(name)
        import jax_nbhelp.rewrite as rewrite

        # the codemods, one per file: a diagnosis imports the ones its fixes use
        for found in pkgutil.iter_modules(rewrite.__path__, "jax_nbhelp.rewrite."):
            importlib.import_module(found.name)
        from jax_nbhelp.rewrite import _cst, diff

        _cst.locate(_SAMPLE, 2)
        diff.unified_diff(_SAMPLE, _SAMPLE.replace("'core'", "None"), "warm-up")
        from jax_nbhelp.diagnosis import catalog_index
        from jax_nbhelp.diagnosis.engine import entries

        catalog_index.load()
        entries()
        if loaded_after_jax:
            # Loaded mid-session, over JAX's objects: the imports leave many new long-lived
            # objects, and CPython starts a full collection once enough have piled up. That
            # takes ~100 ms and would fall in whichever cell comes next (often the one that
            # fails): take it now, while the user is between cells. Loaded first (before
            # `import jax`, the usual place), a collection now would only reset CPython's
            # count on a small heap and bring the next full one sooner, into the first JAX
            # cells (measured: one more full collection in the first failing cell).
            gc.collect()
    except Exception:  # only a head start: the diagnosis imports what it needs anyway
        pass


def start() -> None:
    """Start the warm-up once per process."""
    if _STARTED.is_set():
        return
    _STARTED.set()
    threading.Thread(target=_import_all, args=("jax" in sys.modules,),
                     name="jax_nbhelp-warm-up", daemon=True).start()
