"""docs/catalog.md is generated from the catalog; this keeps the two in sync."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_docs_catalog_is_up_to_date() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "jax_nbhelp.catalog_doc", "--check",
         "--output", str(ROOT / "docs" / "catalog.md")],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_list_magic_prints_every_entry(loaded) -> None:
    from jax_nbhelp.diagnosis.catalog_index import name_of
    from jax_nbhelp.diagnosis.engine import entries

    listed = loaded.ok("%jax_nbhelp list").stdout
    for entry in entries():
        assert f"{entry.CODE}  {name_of(entry)}" in listed
