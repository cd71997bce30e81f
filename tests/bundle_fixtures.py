"""Real bundles for the TypeScript tests: ``python tests/bundle_fixtures.py``.

Runs the first example of every catalog entry in a real IPython shell and keeps what the
kernel publishes (the diagnosis bundle, ids made stable), then applies fixes through
``jax_nbhelp.shell.frontend`` for a success and a failure whose new error is diagnosed. The
TypeScript tests validate these against docs/diagnosis.schema.json and render them; the
Python tests validate freshly made ones against the same schema.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "labextension" / "test" / "fixtures" / "bundles.json"
sys.path.insert(0, str(ROOT))


def _run(shell: Any, source: str) -> Any:
    from IPython.utils.capture import capture_output

    with capture_output() as captured:
        result = shell.run_cell(source, store_history=True)
    return result, captured


def _published(captured: Any) -> list[dict[str, Any]]:
    from jax_nbhelp.show.render_text import MIME_TYPE

    return [dict(out.data)[MIME_TYPE] for out in captured.outputs if MIME_TYPE in out.data]


def _answer(captured: Any) -> dict[str, Any]:
    from jax_nbhelp.shell.frontend import RESULT_MIME

    (answer,) = [dict(out.data)[RESULT_MIME] for out in captured.outputs
                 if RESULT_MIME in out.data]
    return dict(answer)


def _stable(value: Any, ids: dict[str, str]) -> Any:
    """Card ids and the session replaced by stable names, so the file does not churn."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("card_id", "session") and isinstance(item, str):
                item = ids.setdefault(item, f"{key}-{len(ids)}")
            out[key] = _stable(item, ids)
        return out
    if isinstance(value, list):
        return [_stable(item, ids) for item in value]
    return value


def make(shell: Any) -> dict[str, Any]:
    """Bundles of every catalog entry's first example, and frontend answers."""
    from jax_nbhelp.catalog._example import PRELUDE, unmet
    from jax_nbhelp.diagnosis.engine import entries

    diagnoses: list[dict[str, Any]] = []
    lasting = None  # the first diagnosis with a fix that keeps a mode on
    for entry in entries():
        example = entry.EXAMPLES[0]
        if unmet(example) is not None:
            continue
        shell.reset(new_session=True)
        _run(shell, "%load_ext jax_nbhelp")
        _run(shell, PRELUDE)
        for cell in example.setup:
            _run(shell, cell)
        _, captured = _run(shell, example.failing)
        published = _published(captured)
        diagnoses += published
        if lasting is None and any(fix["setup_line"] for d in published for fix in d["fixes"]):
            from jax_nbhelp.core.session import current

            lasting = current().cards[published[-1]["card_id"]]

    # The explained view (JNH001): a JAX error no entry knows, read from JAX's check.
    shell.reset(new_session=True)
    _run(shell, "%load_ext jax_nbhelp")
    _run(shell, PRELUDE)
    _, captured = _run(shell, "jnp.einsum('ij,jk', jnp.ones((2, 3)), jnp.ones((4, 2)))")
    diagnoses += _published(captured)
    # The general view (JNH000): nothing of it can be read (a static argument whose
    # comparison fails inside jit's C++).
    _run(shell, "class Setting:\n    def __hash__(self):\n        return 0\n\n"
                "    def __eq__(self, other):\n        raise TypeError('not comparable')\n\n"
                "f = jax.jit(lambda x, s: x, static_argnums=1)\nf(1.0, Setting())")
    _, captured = _run(shell, "y = f(1.0, Setting())")
    diagnoses += _published(captured)

    # A fix that works, then one that fails with a diagnosed error (the chain).
    shell.reset(new_session=True)
    _run(shell, PRELUDE)
    helper = ("def scaled(x):\n    def body(ref):\n        ref[...] = x * 2\n"
              "        return ref[...] + 1\n    return pl.run_scoped(body, "
              "pltpu.VMEM(x.shape, x.dtype), collective_axes='core')")
    _run(shell, helper)
    _, captured = _run(shell, "out = jax.jit(scaled)(jnp.ones((8, 128)))\nfloat(out.sum())")
    (flagship,) = _published(captured)
    _run(shell, "import jax_nbhelp.shell.frontend as f")
    _, captured = _run(shell, f"f.apply({flagship['card_id']!r}, 2)")
    fixed = _answer(captured)
    _run(shell, helper)
    _, captured = _run(shell, "out = scaled(jnp.ones((8, 128)))")
    (eager,) = _published(captured)
    _, captured = _run(shell, f"f.apply({eager['card_id']!r}, 1)")
    chained = _answer(captured)
    _, captured = _run(shell, "f.apply('no-such-card', 1)")
    unknown = _answer(captured)
    # Classroom mode: the same error, its fixes kept back.
    _run(shell, "%load_ext jax_nbhelp")
    _run(shell, "%jax_nbhelp hints")
    _, captured = _run(shell, "out = jax.jit(scaled)(jnp.ones((8, 128)))")
    (classroom,) = _published(captured)
    _run(shell, "%jax_nbhelp fixes")
    ids: dict[str, str] = {}
    return _stable({"diagnoses": diagnoses, "results": [fixed, chained, unknown],
                    "classroom": [classroom], "progress": _progress(flagship["card_id"]),
                    "outcomes": _outcomes(flagship, lasting)}, ids)


REPEATED = "In [4], lines 2-3 (the for loop) and any iterations before the one that raised"


def _outcomes(flagship: dict[str, Any], kept: Any) -> dict[str, Any]:
    """The kernel's answers for the ends a fix can come to that the runs above do not reach
    (stopped, ran again, a mode kept, a runtime fix), each as ``show/bundle.result_json``
    makes it for a fix of a diagnosis above; ``kept_code``: the diagnosis of the kept one."""
    from jax_nbhelp.core.model import FixResult
    from jax_nbhelp.core.session import current
    from jax_nbhelp.show.bundle import result_json

    flag = current().cards[flagship["card_id"]]
    once, lasts, check = flag.fixes  # the flagship's two fixes, then its kernel checkup
    assert check.kind == "check"
    mode = next(fix for fix in kept.fixes if fix.setup_line)
    return {
        "stopped": result_json(FixResult(ok=False, fix_label=once.label, stopped=True,
                                         error="Stopped by you after 4 s."), fix=once),
        "runtime": result_json(FixResult(ok=True, fix_label=once.label, seconds=0.1), fix=once),
        "repeated": result_json(FixResult(ok=True, fix_label=once.label, seconds=0.1,
                                          repeated=(REPEATED,)), fix=once),
        "failed": result_json(FixResult(ok=False, fix_label=once.label,
                                        error="ValueError: no"), fix=once),
        "rewrite": result_json(FixResult(ok=True, fix_label=lasts.label, seconds=0.2),
                               fix=lasts, check=3),
        "checked": result_json(FixResult(
            ok=True, fix_label=check.label, seconds=1.2,
            checked="race, uninitialized, out_of_bounds, order checked on scaled_kernel: "
                    "nothing found."), fix=check),
        "kept": result_json(FixResult(ok=True, fix_label=mode.label, seconds=0.1,
                                      setup_line=mode.setup_line), fix=mode),
        "kept_code": kept.code,
    }


def _progress(card_id: str) -> list[dict[str, Any]]:
    """What the kernel reports of a running fix (shell/frontend's PROGRESS_MIME): grid steps
    counted by TPU interpret mode, time against the estimate, and past the estimate."""
    from jax_nbhelp.jaxapi.interpret_cost import Estimate, progress

    found = Estimate(steps=4096, mode="tpu", seconds=60.0, step_seconds=0.014)
    reports = [progress(found, 20.0, steps=1200, first_at=2.0, last_at=19.9),
               progress(Estimate(steps=32768, mode="hlo", seconds=40.0), 10.0),
               progress(Estimate(steps=32768, mode="hlo", seconds=40.0), 50.0)]
    return [{"card_id": card_id, "fix": 1, **report.to_json()} for report in reports]


def _without_local_paths(text: str) -> str:
    """The fixtures name no directory of the machine that made them (as the course pages)."""
    spec = importlib.util.spec_from_file_location("notebook_pages",
                                                  ROOT / "docs" / "notebooks" / "build.py")
    assert spec is not None
    assert spec.loader is not None
    pages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pages)
    text: str = pages.without_local_paths(text)
    return text


def main() -> None:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance(colors="nocolor")
    FIXTURES.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(make(shell), indent=1, sort_keys=True) + "\n"
    FIXTURES.write_text(_without_local_paths(text))
    print(f"wrote {FIXTURES.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
