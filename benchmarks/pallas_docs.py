"""What JAX's own Pallas docs notebooks hit on this runtime, and what jax_nbhelp makes of it.

Each notebook of a ``docs/pallas`` folder runs cell by cell in a real Jupyter kernel
(``python3``, with this checkout first on its PYTHONPATH, so the kernel imports this
jax_nbhelp), twice:

(a) plain: the failing cells are counted;
(b) with ``%load_ext jax_nbhelp`` first: a failing cell counts as diagnosed when a diagnosis
    bundle (``application/vnd.jax-nbhelp.diagnosis+json``) appears among its outputs; then the
    fix "Interpret mode from now on", when the diagnosis offers it and it is available, else
    its first available fix, runs as ``%jax_nbhelp fix N``, and the cell counts as fixed when
    that prints "Fixed:". The notebook goes on from there (a fixed cell's names are defined).

A cell (or a fix) that runs past ``--cell-timeout`` is interrupted and counted as timed out;
when the kernel does not answer the interrupt, or dies, the rest of that notebook is not run
(counted as "not run"), and so is the rest of a notebook past ``--notebook-timeout``.

Notebooks are the ``.ipynb`` files, and the MyST / jupytext ``.md`` files that have no
``.ipynb`` beside them (a ``.md`` is a notebook when it starts with jupytext front matter or
has ```` ```{code-cell} ```` blocks; it is read with jupytext when that is installed, else
parsed here). Other ``.md`` files are prose with code examples the docs never run: skipped.

The table: per notebook, its code cells, the cells failing without jax_nbhelp, those failing
with it, how many of those were diagnosed and fixed, timeouts (without / with), the
diagnosis codes seen; then the totals, and the first line of each error jax_nbhelp did not
diagnose (the next things to build), most common first. Get the docs and run::

    git clone --depth 1 https://github.com/jax-ml/jax
    python benchmarks/pallas_docs.py jax/docs/pallas
    python benchmarks/pallas_docs.py jax/docs/pallas --only quickstart tpu/matmul \\
        --cell-timeout 60 --json results.json
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SESSION_FIX = "Interpret mode from now on"


# --- reading notebooks ---------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def _is_md_notebook(text: str) -> bool:
    front = _FRONT_MATTER.match(text)
    return bool(front and "jupytext" in front.group(1)) or "```{code-cell}" in text


def _md_cells(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The code cells of a MyST (```{code-cell}) or jupytext-markdown (```python) notebook,
    each with its tags (``raises-exception``, ...)."""
    front = _FRONT_MATTER.match(text)
    myst = "```{code-cell}" in text or bool(front and "format_name: myst" in front.group(1))
    body = text[front.end():] if front else text
    cells: list[tuple[str, tuple[str, ...]]] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        region = re.match(r"^<!-- #(region|raw|md)\b", lines[i])
        if region:  # jupytext: a markdown (or raw) cell, whose code blocks are prose
            closer = f"<!-- #end{region.group(1)} -->"
            while i < len(lines) and lines[i].strip() != closer:
                i += 1
            i += 1
            continue
        opening = re.match(r"^(`{3,}|~{3,})\s*(\S*)", lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening.group(1), opening.group(2)
        end = i + 1
        closing = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        block = lines[i + 1:end]
        i = end + 1
        if myst and info.startswith("{code-cell}"):
            # Options: a --- ... --- YAML block, or :key: value lines, before the code.
            options: list[str] = []
            if block and block[0].strip() == "---":
                close = next((k for k in range(1, len(block)) if block[k].strip() == "---"),
                             len(block) - 1)
                options, block = block[1:close], block[close + 1:]
            else:
                while block and re.match(r"^:\w[\w-]*:", block[0]):
                    options, block = [*options, block[0]], block[1:]
            cells.append(("\n".join(block).strip("\n"), _tags(options)))
        elif not myst and info in ("python", "python3", "ipython3", "ipython"):
            cells.append(("\n".join(block).strip("\n"), ()))
    return cells


def _tags(options: list[str]) -> tuple[str, ...]:
    """The tags a MyST cell's options give (``:tags: [a, b]`` or ``tags: [a, b]``)."""
    for option in options:
        found = re.match(r"^:?tags:?\s*\[(.*)\]\s*$", option.strip())
        if found:
            return tuple(t.strip().strip("'\"") for t in found.group(1).split(",") if t.strip())
    return ()


def code_cells(path: Path) -> list[str]:
    """The sources of the notebook's code cells, in order."""
    return [source for source, _ in tagged_code_cells(path)]


def tagged_code_cells(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The notebook's code cells, in order, each with its tags."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return [("".join(c["source"]) if isinstance(c["source"], list) else c["source"],
                 tuple(c.get("metadata", {}).get("tags", ())))
                for c in nb["cells"] if c["cell_type"] == "code"]
    try:
        import jupytext  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return _md_cells(path.read_text(encoding="utf-8"))
    nb = jupytext.read(path)
    return [(c.source, tuple(c.metadata.get("tags", ()))) for c in nb.cells
            if c.cell_type == "code"]


def find_notebooks(folder: Path) -> tuple[list[Path], list[Path]]:
    """The notebooks under ``folder`` (an .ipynb over its paired .md), and the .md skipped."""
    notebooks, skipped = [], []
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".ipynb" and ".ipynb_checkpoints" not in path.parts:
            notebooks.append(path)
        elif path.suffix == ".md" and not path.with_suffix(".ipynb").exists():
            if _is_md_notebook(path.read_text(encoding="utf-8")):
                notebooks.append(path)
            else:
                skipped.append(path)
    return notebooks, skipped


# --- running cells in a kernel -------------------------------------------------------------

class KernelGone(Exception):
    """The kernel died, or did not answer an interrupt: the notebook cannot go on."""


@dataclass
class Outcome:
    text: str = ""
    bundles: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # "Name: first line of the message"
    timed_out: bool = False
    seconds: float = 0.0


class Kernel:
    """The doctor's kernel (jax_nbhelp.doctor.kernel), its outcome read as this table needs."""

    def __init__(self, cwd: Path) -> None:
        sys.path.insert(0, str(ROOT))
        from jax_nbhelp.doctor import kernel as doctor_kernel

        self._gone = doctor_kernel.KernelGone
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        os.environ["PYTHONPATH"] = path  # the kernel imports this checkout first
        self.kernel = doctor_kernel.Kernel("python3", cwd)

    def close(self) -> None:
        self.kernel.close()

    def run(self, code: str, timeout: float) -> Outcome:
        try:
            ran = self.kernel.run(code, timeout)
        except self._gone as exc:
            raise KernelGone(str(exc)) from None
        error = None
        if ran.error is not None:
            lines = ran.error[1].strip().splitlines()
            error = f"{ran.error[0]}: {lines[0] if lines else ''}".rstrip(": ")
        return Outcome(text=ran.text, bundles=ran.bundles, error=error,
                       timed_out=ran.timed_out, seconds=ran.seconds)


# --- one notebook, twice -------------------------------------------------------------------

@dataclass
class Failure:
    cell: int  # 1-based, among the code cells
    error: str
    code: str | None = None  # the diagnosis code, when diagnosed
    fix: str | None = None  # the label of the fix tried
    fixed: bool = False
    why_not: str | None = None  # when the fix ran and failed: what it said


@dataclass
class Run:
    failing: list[Failure] = field(default_factory=list)
    timed_out: int = 0
    not_run: int = 0
    stopped: str | None = None  # why the notebook stopped early
    seconds: float = 0.0


@dataclass
class Result:
    name: str
    cells: int
    plain: Run
    helped: Run


def _choose_fix(bundle: dict[str, Any]) -> tuple[int, str] | None:
    fixes = bundle.get("fixes") or []
    for number, fix in enumerate(fixes, 1):
        if fix.get("available") and fix.get("label") == SESSION_FIX:
            return number, SESSION_FIX
    for number, fix in enumerate(fixes, 1):
        if fix.get("available"):
            return number, str(fix.get("label"))
    return None


def _why_not(fixed: Outcome) -> str:
    """What a fix that did not fix said: its "Not fixed:" line and the reason after it."""
    said = fixed.text.splitlines()
    for k, line in enumerate(said):
        if line.startswith(("Not fixed:", "Stopped:")):
            return " ".join(part.strip() for part in said[k:k + 2])
    if fixed.timed_out:
        return "timed out"
    return fixed.error or (said[-1] if said else "no output")


def run_notebook(path: Path, cells: list[str], *, helped: bool, cell_timeout: float,
                 notebook_timeout: float, log: Any) -> Run:
    run = Run()
    start = time.monotonic()
    kernel = Kernel(path.parent)
    try:
        if helped:
            loaded = kernel.run("%load_ext jax_nbhelp", cell_timeout)
            if loaded.error:
                raise SystemExit(f"%load_ext jax_nbhelp failed in the kernel: {loaded.error}")
        for index, source in enumerate(cells, 1):
            if time.monotonic() - start > notebook_timeout:
                run.not_run = len(cells) - index + 1
                run.stopped = f"notebook cap ({notebook_timeout:.0f} s) reached"
                break
            try:
                out = kernel.run(source, cell_timeout)
            except KernelGone as exc:
                run.timed_out += 1
                run.not_run = len(cells) - index
                run.stopped = f"cell {index}: {exc}"
                break
            if out.timed_out:
                run.timed_out += 1
                log(f"    cell {index}: timed out after {cell_timeout:.0f} s")
                continue
            if out.error is None:
                continue
            failure = Failure(index, out.error)
            run.failing.append(failure)
            if out.bundles:
                failure.code = str(out.bundles[-1].get("code"))
                chosen = _choose_fix(out.bundles[-1])
                if chosen is not None:
                    number, failure.fix = chosen
                    try:
                        fixed = kernel.run(f"%jax_nbhelp fix {number}", cell_timeout)
                    except KernelGone as exc:
                        run.timed_out += 1
                        run.not_run = len(cells) - index
                        run.stopped = f"cell {index}, fix {number}: {exc}"
                        break
                    run.timed_out += fixed.timed_out
                    failure.fixed = any(line.startswith("Fixed:")
                                        for line in fixed.text.splitlines())
                    if not failure.fixed:
                        failure.why_not = _why_not(fixed)
            log(f"    cell {index}: {out.error[:100]}"
                + (f" -> [{failure.code}]" if failure.code else "")
                + (f" fix {failure.fix!r}: {'Fixed' if failure.fixed else 'not fixed'}"
                   if failure.fix else "")
                + (f" ({failure.why_not[:200]})" if failure.why_not else ""))
    finally:
        try:
            kernel.close()
        except Exception as exc:  # a dead kernel may not close cleanly
            log(f"    (closing the kernel: {type(exc).__name__}: {exc})")
    run.seconds = time.monotonic() - start
    return run


# --- the table -----------------------------------------------------------------------------

HEADER = ("notebook", "cells", "fail w/o", "fail with", "diagnosed", "fixed", "t/o w/o",
          "t/o with", "not run", "codes")


def _row(name: str, cells: int, plain: Run, helped: Run) -> tuple[str, ...]:
    codes = collections.Counter(f.code for f in helped.failing if f.code)
    return (name, str(cells), str(len(plain.failing)), str(len(helped.failing)),
            str(sum(f.code is not None for f in helped.failing)),
            str(sum(f.fixed for f in helped.failing)), str(plain.timed_out),
            str(helped.timed_out), f"{plain.not_run}/{helped.not_run}",
            " ".join(f"{c}x{n}" if n > 1 else c for c, n in sorted(codes.items())) or "-")


def table(results: list[Result]) -> str:
    rows = [_row(r.name, r.cells, r.plain, r.helped) for r in results]
    total_plain, total_helped = Run(), Run()
    for r in results:
        for total, run in ((total_plain, r.plain), (total_helped, r.helped)):
            total.failing += run.failing
            total.timed_out += run.timed_out
            total.not_run += run.not_run
    rows.append(_row(f"TOTAL ({len(results)} notebooks)", sum(r.cells for r in results),
                     total_plain, total_helped))
    widths = [max(len(row[i]) for row in [HEADER, *rows]) for i in range(len(HEADER))]

    def line(row: tuple[str, ...]) -> str:
        cols = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:-1], widths[1:-1],
                                                                         strict=True)]
        return "  ".join([*cols, row[-1]]).rstrip()

    rule = "-" * len(line(HEADER))
    return "\n".join([line(HEADER), rule, *map(line, rows[:-1]), rule, line(rows[-1])])


def undiagnosed(results: list[Result]) -> str:
    seen: dict[str, list[str]] = collections.defaultdict(list)
    for r in results:
        for f in r.helped.failing:
            if f.code is None:
                seen[f.error].append(f"{r.name}:{f.cell}")
    if not seen:
        return "Undiagnosed failures: none."
    lines = ["Undiagnosed failures (first line of the error; notebook:code cell), most common "
             "first:"]
    for error, where in sorted(seen.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"  {len(where)}x  {error[:160]}\n       at {', '.join(where)}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the docs/pallas folder of a jax checkout")
    parser.add_argument("--only", nargs="*", default=[],
                        help="run only the notebooks whose path (relative to the folder, "
                             "without suffix) is one of these, e.g. quickstart tpu/matmul")
    parser.add_argument("--cell-timeout", type=float, default=120.0,
                        help="seconds a cell (or a fix) may run before it is interrupted")
    parser.add_argument("--notebook-timeout", type=float, default=900.0,
                        help="seconds per notebook and run; later cells are not run")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    notebooks, skipped = find_notebooks(args.folder)
    names = {p: p.relative_to(args.folder).with_suffix("").as_posix() for p in notebooks}
    if args.only:
        notebooks = [p for p in notebooks if names[p] in args.only]
        missing = set(args.only) - {names[p] for p in notebooks}
        if missing:
            print(f"no notebook named {', '.join(sorted(missing))} in {args.folder}",
                  file=sys.stderr)
            return 1
    elif skipped:
        print("skipped, not notebooks: "
              + ", ".join(p.relative_to(args.folder).as_posix() for p in skipped))

    def log(message: str) -> None:
        print(message, flush=True)

    results = []
    for path in notebooks:
        cells = code_cells(path)
        name = names[path]
        runs = []
        for helped in (False, True):
            log(f"{name} ({path.suffix}, {len(cells)} code cells), "
                f"{'with jax_nbhelp' if helped else 'plain'}:")
            run = run_notebook(path, cells, helped=helped, cell_timeout=args.cell_timeout,
                               notebook_timeout=args.notebook_timeout, log=log)
            log(f"    {run.seconds:.0f} s" + (f"; stopped: {run.stopped}" if run.stopped else ""))
            runs.append(run)
        results.append(Result(name, len(cells), *runs))

    print()
    print(table(results))
    print()
    print(undiagnosed(results))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
