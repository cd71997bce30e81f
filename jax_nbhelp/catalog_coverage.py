"""Which of JAX's errors the catalog knows: ``python -m jax_nbhelp.catalog_coverage``.

Lists the ``raise`` statements of the installed JAX in the modules users meet (the API,
``jax.numpy``, ``lax`` and its control flow, ``random``, tree utilities, ``jit``, custom
derivatives, callbacks, sharding, Pallas), runs every catalog example's failing cell in a
fresh IPython shell, and marks a raise site covered when an example's error was raised
there (its innermost frame in JAX, or the JAX frame that called the library that raised).
Writes ``docs/coverage.md``: per module, covered of total, and the uncovered sites ranked
by how often their message appears in public issue reports. The counts come from
``docs/coverage_counts.json`` (made with a search of public issues, kept so the page
rebuilds offline); a site whose message was not counted ranks after the counted ones.
This page is the catalog's to-do list.

    python -m jax_nbhelp.catalog_coverage [--sites-json sites.json]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import traceback
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "coverage.md"
COUNTS = ROOT / "docs" / "coverage_counts.json"

# The modules users meet, as paths under jax/_src (a folder covers its files).
MODULES = ("api.py", "api_util.py", "numpy", "lax", "random", "random.py", "prng.py",
           "tree_util.py", "tree.py",
           "pjit.py", "custom_derivatives.py", "callback.py", "sharding_impls.py",
           "sharding.py", "mesh.py", "shard_map.py", "dtypes.py", "pallas", "checkify.py",
           "debugging.py", "export")
_NOT_ERRORS = frozenset({"StopIteration", "NotImplemented", "KeyboardInterrupt"})


@dataclass(frozen=True)
class Site:
    """One ``raise`` of JAX's: where, which class, and its message as a template."""

    path: str  # under jax/_src: "numpy/einsum.py"
    line: int
    end: int
    error: str
    message: str  # the literal parts, "..." for what is computed

    @property
    def module(self) -> str:
        return next((m for m in MODULES if self.path == m or self.path.startswith(
            m.rstrip("/") + "/")), self.path)


def _template(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "..."
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left) + _template(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "format":
        return _template(node.func.value)
    return "..." if node is not None else ""


def _name(node: ast.expr) -> str:
    """``TypeError`` for ``raise TypeError(...)``, ``errors.X`` -> ``X``."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def sites(jax_src: Path) -> list[Site]:
    """Every ``raise SomeError(...)`` in the modules users meet."""
    found = []
    for module in MODULES:
        base = jax_src / module
        files = ([base] if base.suffix == ".py" else sorted(base.rglob("*.py"))) \
            if base.exists() else []  # modules move between releases
        for path in files:
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, SyntaxError, ValueError):
                continue
            relative = path.relative_to(jax_src).as_posix()
            for node in ast.walk(tree):
                if not isinstance(node, ast.Raise) or node.exc is None:
                    continue
                error = _name(node.exc)
                if not error or error in _NOT_ERRORS or not error[0].isupper():
                    continue
                message = _template(node.exc.args[0]) if isinstance(node.exc, ast.Call) \
                    and node.exc.args else ""
                found.append(Site(relative, node.lineno, node.end_lineno or node.lineno,
                                  error, " ".join(message.split())))
    return found


def _raising_places(exc: BaseException, jax_src: str) -> set[tuple[str, int]]:
    """The JAX lines an error (and its chain) was raised from: the innermost frame in
    jax/_src of each exception."""
    places = set()
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        inside = [(frame.f_code.co_filename, line) for frame, line in
                  traceback.walk_tb(current.__traceback__)
                  if os.path.realpath(frame.f_code.co_filename).startswith(jax_src)]
        if inside:
            filename, line = inside[-1]
            places.add((os.path.relpath(os.path.realpath(filename), jax_src), line))
        current = current.__cause__ or (None if current.__suppress_context__ else
                                         current.__context__)
    return places


def covered_by_examples() -> dict[tuple[str, int], set[str]]:
    """Each JAX line that raised for a catalog example, with the codes whose examples did."""
    import jax
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    from jax_nbhelp.catalog._example import PRELUDE, unmet
    from jax_nbhelp.diagnosis.engine import entries

    jax_src = os.path.realpath(os.path.join(os.path.dirname(jax.__file__), "_src")) + os.sep
    shell = InteractiveShell.instance(colors="nocolor")
    hits: dict[tuple[str, int], set[str]] = defaultdict(set)
    for entry in entries():
        for example in entry.EXAMPLES:
            if unmet(example) is not None:
                continue
            shell.reset(new_session=True)
            with capture_output():
                shell.run_cell(PRELUDE, store_history=True)
                for cell in example.setup:
                    shell.run_cell(cell, store_history=True)
                result = shell.run_cell(example.failing, store_history=True)
            if result.error_in_exec is not None:
                for place in _raising_places(result.error_in_exec, jax_src):
                    hits[place].add(entry.CODE)
    return hits


def _counts() -> dict[str, int]:
    try:
        data = json.loads(COUNTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): int(v) for k, v in data.get("counts", {}).items()}


_CODE_SPAN = re.compile(r"[`|]")


def page(all_sites: list[Site], hits: dict[tuple[str, int], set[str]], version: str) -> str:
    def codes(site: Site) -> set[str]:
        return set().union(*(hits.get((site.path, line), set())
                             for line in range(site.line, site.end + 1)))

    by_module: dict[str, list[Site]] = defaultdict(list)
    for site in all_sites:
        by_module[site.module].append(site)
    counts = _counts()
    lines = [
        "# What the catalog knows of JAX's errors",
        "",
        "Generated by `python -m jax_nbhelp.catalog_coverage` from jax "
        f"{version}: every `raise` in the modules users meet, and whether a catalog "
        "example's error was raised there. Do not edit by hand. An error no entry knows "
        "gets the explained view (JNH001: the check JAX made there and the call's "
        "arguments) in a notebook, or the general view (JNH000) where nothing can be read.",
        "",
        "| module (jax/_src) | covered | raise sites |",
        "|---|---|---|",
    ]
    total = covered = 0
    for module in MODULES:
        group = by_module.get(module, [])
        hit = sum(bool(codes(site)) for site in group)
        total, covered = total + len(group), covered + hit
        lines.append(f"| `{module}` | {hit} | {len(group)} |")
    lines.append(f"| **all** | **{covered}** | **{total}** |")
    lines = [line for line in lines if not line.endswith("| 0 | 0 |")]  # not in this release
    uncovered = [site for site in all_sites if not codes(site) and site.message.strip(". ")]
    ranked = sorted(uncovered, key=lambda s: (-counts.get(s.message, -1), s.module, s.path,
                                              s.line))
    counted = [site for site in ranked if site.message in counts]
    lines += ["", "## Not covered yet, most reported first", "",
              f"{len(counted)} of the {len(uncovered)} uncovered sites with a message have a "
              "count of public issue reports that quote it (`docs/coverage_counts.json`: "
              "threads among the first 12 results of a search of public issues); the rest "
              "follow by module. A message JAX shares with NumPy counts NumPy's reports too, "
              "and a count of 1 can be the pull request that wrote the message.", "",
              "| reports | where | error | message |", "|---|---|---|---|"]
    for site in ranked:
        count = counts.get(site.message)
        message = _CODE_SPAN.sub("'", site.message)[:140]
        lines.append(f"| {count if count is not None else '-'} | "
                     f"`{site.path}:{site.line}` | {site.error} | {message} |")
    lines += ["", "## Covered", "", "| where | error | entries |", "|---|---|---|"]
    for site in all_sites:
        found = codes(site)
        if found:
            lines.append(f"| `{site.path}:{site.line}` | {site.error} | "
                         f"{', '.join(sorted(found))} |")
    lines += ["", "## Entries by raise site", "",
              "The functions of JAX's whose every error an entry reads, whatever the wording "
              "(its `Match(..., sites=...)` or `SITES`): an error raised there reaches the "
              "entry even in a wording its message patterns do not name. "
              "`tests/test_raise_sites.py` checks that each exists in every supported "
              "release.", "", "| entry | raise sites |", "|---|---|"]
    for code, declared in declared_sites():
        lines.append(f"| {code} | {', '.join(f'`{site}`' for site in declared)} |")
    return "\n".join(lines) + "\n"


def declared_sites() -> list[tuple[str, tuple[str, ...]]]:
    """Each entry that declares raise sites, with them, in the order of codes."""
    from jax_nbhelp.diagnosis import catalog_index
    from jax_nbhelp.diagnosis.engine import entries

    return [(entry.CODE, sites) for entry in entries()
            if (sites := catalog_index.sites_of(entry))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites-json", type=Path,
                        help="also write the uncovered sites' messages here (to count them)")
    args = parser.parse_args(argv)
    import jax

    jax_src = Path(os.path.realpath(os.path.dirname(jax.__file__))) / "_src"
    all_sites = sites(jax_src)
    hits = covered_by_examples()
    PAGE.write_text(page(all_sites, hits, jax.__version__), encoding="utf-8")
    print(f"wrote {PAGE}")
    if args.sites_json:
        uncovered = [site.__dict__ for site in all_sites
                     if not any((site.path, line) in hits
                                for line in range(site.line, site.end + 1))]
        args.sites_json.write_text(json.dumps(uncovered, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

