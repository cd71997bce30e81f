"""The benchmark of real reports (``benchmarks/real_reports/``) is sound, and its held-out half
stays held out: no catalog entry cites a report of that half.

Running the cases in kernels with jax_nbhelp is the benchmark's job
(``python benchmarks/real_reports.py --held-out``), not a test's: its figures are read, not
asserted. Here, each case's notebook must really fail (without jax_nbhelp), and its
corrected version must run and give the numbers its CHECK states.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from jax_nbhelp.diagnosis.engine import entries

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import real_reports  # noqa: E402

_CITED_RE = re.compile(r"\b([\w.-]+/[\w.-]+)#(\d+)")


def _normal(report: str) -> str:
    """``google/jax#12`` and ``jax-ml/jax#12`` are one report (the repository moved)."""
    return report.replace("google/jax#", "jax-ml/jax#")


def test_there_are_enough_cases_of_every_kind_in_both_halves() -> None:
    cases = real_reports.cases()
    assert len(cases) >= 80
    assert len({case.url for case in cases}) == len(cases), "one report, one case"
    for held_out in (True, False):
        half = [case for case in cases if case.held_out is held_out]
        assert len(half) >= 30
        assert {case.kind for case in half} == set(real_reports.KINDS)


def test_no_catalog_entry_is_written_from_a_held_out_report() -> None:
    held_out = {_normal(case.report): case.slug for case in real_reports.cases()
                if case.held_out}
    for entry in entries():
        cited = {_normal(f"{repo}#{number}") for repo, number in
                 _CITED_RE.findall(entry.__doc__ or "")}
        leaked = sorted(cited & set(held_out))
        assert not leaked, (f"{entry.CODE} cites held-out reports: "
                            + ", ".join(f"{r} ({held_out[r]})" for r in leaked))


def test_every_case_fails_as_reported_and_its_fix_gives_the_numbers() -> None:
    # In a process of its own: the cases run JAX code (some under jax.enable_x64).
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "real_reports.py"),
                           "--check"], capture_output=True, text=True, timeout=900,
                          cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
