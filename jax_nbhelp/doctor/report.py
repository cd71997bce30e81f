"""The doctor's report: Markdown for people, JSON for tools."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from jax_nbhelp.doctor.checkup import CellReport, NotebookReport

GENERAL = "JNH000"  # the general view: JAX's error, which no catalog entry knows


def _diagnosed(failure: CellReport) -> bool:
    return failure.code is not None and failure.code != GENERAL


def _row(report: NotebookReport) -> str:
    failed = len(report.failures)
    diagnosed = sum(_diagnosed(failure) for failure in report.failures)
    fixed = sum(failure.fixed for failure in report.failures)
    return (f"| {report.path} | {report.run}/{report.cells} | {failed} | {diagnosed} | "
            f"{fixed} | {len(report.still_failing)} | {report.seconds:.1f} s |")


def markdown(reports: list[NotebookReport]) -> str:
    lines = ["# jax_nbhelp doctor", "",
             "| notebook | cells run | failed | diagnosed | fixed | still failing | time |",
             "|---|---|---|---|---|---|---|"]
    lines += [_row(report) for report in reports]
    for report in reports:
        if not report.failures and not report.stopped:
            continue
        lines += ["", f"## {report.path}", ""]
        for failure in report.failures:
            said = ("[JNH000, general view]" if failure.code == GENERAL else
                    f"[{failure.code}]" if failure.code else "not diagnosed")
            if failure.expected:
                lines.append(f"- cell {failure.index}: {failure.error} {said}: expected "
                             "(tagged raises-exception)")
            elif failure.fixed:
                lines.append(f"- cell {failure.index}: {failure.error} {said}: fixed by "
                             f"\"{failure.fix}\" (verified by running it)")
            else:
                lines.append(f"- cell {failure.index}: {failure.error} {said}: still failing"
                             + (f" ({failure.why_not})" if failure.why_not else ""))
            if failure.unsafe and not failure.expected:
                lines.append("  - not marked safe, so never applied by the doctor: "
                             + ", ".join(f'"{label}"' for label in failure.unsafe))
        repairs = [f"cell {number} added (`{'; '.join((report.setup or '').splitlines())}`: "
                   "a mode a fix kept on, from the notebook's start)" for number in report.added]
        if report.changed:
            repairs.append(("cells " if len(report.changed) > 1 else "cell ")
                           + ", ".join(map(str, report.changed)) + " rewritten")
        if repairs:
            lines.append("- repaired notebook (its numbering): " + "; ".join(repairs))
        if report.stopped:
            lines.append(f"- {report.stopped}")
    return "\n".join(lines) + "\n"


def as_json(reports: list[NotebookReport]) -> str:
    def one(report: NotebookReport) -> dict[str, Any]:
        data = asdict(report)
        data["failed"] = len(report.failures)
        data["diagnosed"] = sum(_diagnosed(f) for f in report.failures)
        data["general"] = sum(f.code == GENERAL for f in report.failures)
        data["fixed"] = sum(f.fixed for f in report.failures)
        data["still_failing"] = len(report.still_failing)
        data["ok"] = report.ok
        return data

    return json.dumps({"notebooks": [one(report) for report in reports]}, indent=2) + "\n"
