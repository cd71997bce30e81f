"""The errors JAX's own documentation teaches, and the card jax_nbhelp shows for each.

JAX's docs mark the cells that are meant to fail with the tag ``raises-exception`` (the
"Sharp bits" notebook, Thinking in JAX, the 101/201/301 tutorials, control flow, pytrees,
callbacks, sharding, array refs). This runs every docs notebook that has such a cell, top to
bottom, in a real Jupyter kernel with ``%load_ext jax_nbhelp`` first (this checkout first on
the kernel's PYTHONPATH), and for each cell that raised reports:

- whether the error is JAX's (``diagnosis.provenance.raised_by_jax``, asked in the kernel);
  NumPy's own errors and the user's own ``raise`` are not counted as JAX errors;
- the card's code and title, or ``-`` when no card was shown.

No fix is applied: the notebook goes on with its next cell as the docs do. Untagged cells
that fail (a name the docs define in a cell this runtime cannot run, an API this release
lacks) are listed apart, as they are not the lesson.

    python benchmarks/jax_docs_errors.py JAX_CHECKOUT/docs [--only notebooks/thinking_in_jax]
        [--cell-timeout 120] [--json results.json]

The titles are printed so that a person can judge each card; the script asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pallas_docs import Kernel, KernelGone, find_notebooks, tagged_code_cells

TAG = "raises-exception"
PROBE = ("import sys as _s\n"
         "from jax_nbhelp.diagnosis.provenance import raised_by_jax as _r\n"
         "print('JAX' if _r(getattr(_s, 'last_value', None)) else 'NOT-JAX')\n"
         "del _s, _r")


@dataclass
class Raised:
    notebook: str
    cell: int  # 1-based among the code cells
    tagged: bool
    error: str
    jax: bool
    code: str | None
    title: str | None
    explanation: str | None = None
    fixes: tuple[str, ...] = ()


def run_notebook(name: str, path: Path, cell_timeout: float, verbose: bool) -> list[Raised]:
    cells = tagged_code_cells(path)
    raised: list[Raised] = []
    kernel = Kernel(path.parent)
    try:
        loaded = kernel.run("%load_ext jax_nbhelp", cell_timeout)
        if loaded.error:
            raise SystemExit(f"%load_ext jax_nbhelp failed in the kernel: {loaded.error}")
        for index, (source, tags) in enumerate(cells, 1):
            try:
                out = kernel.run(source, cell_timeout)
                if out.error is None:
                    continue
                probe = kernel.run(PROBE, cell_timeout)
            except KernelGone as exc:
                print(f"    cell {index}: the kernel is gone ({exc}); notebook stopped")
                break
            bundle = out.bundles[-1] if out.bundles else {}
            item = Raised(name, index, TAG in tags, out.error, "NOT-JAX" not in probe.text,
                          bundle.get("code"), bundle.get("title"), bundle.get("explanation"),
                          tuple(str(f.get("label")) for f in bundle.get("fixes") or ()))
            raised.append(item)
            print(f"    cell {index}{' [tagged]' if item.tagged else ''}: "
                  f"{'JAX' if item.jax else 'not JAX'}: {item.error[:110]}\n"
                  f"        -> {item.code or '-'} {item.title or ''}"
                  + (f"\n           {item.explanation}" if verbose and item.explanation else "")
                  + (f"\n           fixes: {'; '.join(item.fixes)}" if verbose and item.fixes
                     else ""), flush=True)
    finally:
        try:
            kernel.close()
        except Exception as exc:  # a dead kernel may not close cleanly
            print(f"    (closing the kernel: {type(exc).__name__}: {exc})")
    return raised


def summary(raised: list[Raised]) -> str:
    taught = [r for r in raised if r.tagged and r.jax]
    carded = [r for r in taught if r.code]
    others = [r for r in raised if r.tagged and not r.jax]
    knock = [r for r in raised if not r.tagged]
    lines = [
        f"Tagged cells that raised a JAX error: {len(taught)}; with a card: {len(carded)}"
        + (f" ({100 * len(carded) / len(taught):.0f}%)" if taught else ""),
        f"Tagged cells whose error is not JAX's (NumPy's, the user's own): {len(others)}, "
        f"with a card: {sum(r.code is not None for r in others)}",
        f"Untagged cells that failed on this runtime: {len(knock)}",
        "",
        "Tagged JAX errors without a card:",
    ]
    lines += [f"  {r.notebook}:{r.cell}  {r.error[:140]}" for r in taught if not r.code] or [
        "  none"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the docs folder of a jax checkout")
    parser.add_argument("--only", nargs="*", default=[],
                        help="only these notebooks (path under the folder, no suffix)")
    parser.add_argument("--cell-timeout", type=float, default=120.0)
    parser.add_argument("--json", type=Path, help="also write every raised cell here")
    parser.add_argument("--verbose", action="store_true",
                        help="print each card's explanation and fixes, to judge them")
    args = parser.parse_args()
    if not args.folder.is_dir():
        print(f"not a folder: {args.folder}", file=sys.stderr)
        return 2

    notebooks, _ = find_notebooks(args.folder)
    named = {p.relative_to(args.folder).with_suffix("").as_posix(): p for p in notebooks}
    if args.only:
        missing = sorted(set(args.only) - set(named))
        if missing:
            print(f"no notebook named {', '.join(missing)} in {args.folder}", file=sys.stderr)
            return 2
        named = {name: named[name] for name in args.only}
    else:
        named = {name: path for name, path in named.items()
                 if any(TAG in tags for _, tags in tagged_code_cells(path))}

    raised: list[Raised] = []
    start = time.monotonic()
    for name, path in sorted(named.items()):
        print(f"{name}:", flush=True)
        raised += run_notebook(name, path, args.cell_timeout, args.verbose)
    print(f"\n{len(named)} notebooks in {time.monotonic() - start:.0f} s\n")
    print(summary(raised))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in raised], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
