"""The coverage map of JAX's errors (``python -m jax_nbhelp.catalog_coverage``): it finds
JAX's raise sites, ranks the uncovered ones by their counted reports, and its page is in
the repository."""

from __future__ import annotations

import os
from pathlib import Path

from jax_nbhelp import catalog_coverage as coverage

ROOT = Path(__file__).resolve().parent.parent


def test_the_raise_sites_of_the_modules_users_meet_are_found() -> None:
    import jax

    found = coverage.sites(Path(os.path.realpath(os.path.dirname(jax.__file__))) / "_src")
    assert len(found) > 1000
    assert any(site.path.startswith("numpy/") and "immutable" in site.message
               for site in found)
    assert {site.module for site in found} >= {"api.py", "numpy", "lax", "pallas"}


def test_uncovered_sites_with_more_reports_come_first(monkeypatch) -> None:
    sites = [coverage.Site("numpy/a.py", 1, 1, "TypeError", "rarely seen"),
             coverage.Site("lax/b.py", 2, 2, "ValueError", "often seen"),
             coverage.Site("lax/c.py", 3, 3, "ValueError", "not counted"),
             coverage.Site("numpy/d.py", 4, 4, "TypeError", "known")]
    monkeypatch.setattr(coverage, "_counts", lambda: {"rarely seen": 1, "often seen": 9})
    page = coverage.page(sites, {("numpy/d.py", 4): {"JNH501"}}, "0.0")
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    ranked = [row for row in rows if ("`" in row and "seen" in row) or "not counted" in row]
    assert [r.split("|")[4].strip() for r in ranked] == ["often seen", "rarely seen",
                                                          "not counted"]
    assert "| `numpy/d.py:4` | TypeError | JNH501 |" in page


def test_the_page_and_its_counts_are_in_the_repository() -> None:
    page = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    assert page.startswith("# What the catalog knows of JAX's errors")
    assert "python -m jax_nbhelp.catalog_coverage" in page
    assert (ROOT / "docs" / "coverage_counts.json").exists()
