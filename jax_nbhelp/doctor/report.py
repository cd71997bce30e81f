"""The doctor's report: Markdown for people, JSON for tools, workflow annotations for GitHub.

One table with a row per notebook, then the totals by diagnosis code (a course's most common
errors, for its teacher), what the machine lacks, and each notebook's failures.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from jax_nbhelp.doctor.checkup import CellReport, NotebookReport

GENERAL = "JNH000"  # the general view: JAX's error, which no catalog entry knows
UNDIAGNOSED = "(not diagnosed)"


def _diagnosed(failure: CellReport) -> bool:
    return failure.code is not None and failure.code != GENERAL


def _own(report: NotebookReport) -> list[CellReport]:
    """The failures that are not knock-on."""
    return [failure for failure in report.failures if failure.knock_on is None]


def _row(report: NotebookReport) -> str:
    own = _own(report)
    diagnosed = sum(_diagnosed(failure) for failure in own)
    fixed = sum(failure.fixed for failure in own)
    knock_on = len(report.failures) - len(own)
    cells = ("skipped" if report.skip is not None else "-" if report.error is not None
             else f"{report.run}/{report.cells}")
    return (f"| {report.path} | {cells} | {len(own)} | {knock_on} | {diagnosed} | {fixed} | "
            f"{len(_remaining(report))} | {report.exit} | {report.seconds:.1f} s |")


def _remaining(report: NotebookReport) -> list[CellReport]:
    """The failures still there that are not knock-on."""
    return [failure for failure in report.still_failing if failure.knock_on is None]


def totals(reports: list[NotebookReport]) -> list[tuple[str, str, int, int]]:
    """Each diagnosis code with its title, how many failures had it and in how many
    notebooks, most common first; knock-on failures and expected ones left out."""
    count: Counter[str] = Counter()
    where: dict[str, set[str]] = {}
    titles: dict[str, str] = {}
    for report in reports:
        for failure in _own(report):
            if failure.expected:
                continue
            code = failure.code or f"{failure.error.split(':')[0]} {UNDIAGNOSED}"
            count[code] += 1
            where.setdefault(code, set()).add(report.path)
            titles.setdefault(code, failure.title or ("missing package" if failure.install
                                                      else failure.need or failure.error))
    return [(code, titles[code], n, len(where[code])) for code, n in count.most_common()]


def _needs(reports: list[NotebookReport]) -> list[tuple[str, list[str]]]:
    said: dict[str, list[str]] = {}
    for report in reports:
        for need in report.needs:
            said.setdefault(need, []).append(report.path)
    return list(said.items())


def markdown(reports: list[NotebookReport]) -> str:
    lines = ["# jax_nbhelp doctor", "",
             "| notebook | cells run | failed | knock-on | diagnosed | fixed | still failing "
             "| exit | time |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [_row(report) for report in reports]
    if len(reports) > 1:
        failed = sum(len(_own(report)) for report in reports)
        lines.append(f"| **{len(reports)} notebooks** | {sum(r.run for r in reports)}/"
                     f"{sum(r.cells for r in reports)} | {failed} | "
                     f"{sum(len(r.failures) for r in reports) - failed} | "
                     f"{sum(_diagnosed(f) for r in reports for f in _own(r))} | "
                     f"{sum(f.fixed for r in reports for f in _own(r))} | "
                     f"{sum(len(_remaining(r)) for r in reports)} | "
                     f"{max(r.exit for r in reports)} | "
                     f"{sum(r.seconds for r in reports):.1f} s |")
    counted = totals(reports)
    if counted:
        lines += ["", "## Errors by diagnosis", "",
                  "| code | what | failures | notebooks |", "|---|---|---|---|"]
        lines += [f"| {code} | {_cell_text(title)} | {n} | {notebooks} |"
                  for code, title, n, notebooks in counted]
    needs = _needs(reports)
    if needs:
        lines += ["", "## What this machine lacks", ""]
        lines += [f"- {need}: {', '.join(paths)}" for need, paths in needs]
    for report in reports:
        if not report.failures and not report.stopped and report.error is None \
                and report.skip is None:
            continue
        lines += ["", f"## {report.path}", ""]
        if report.skip is not None:
            lines.append(f"- skipped: {report.skip}")
        if report.error is not None:
            lines.append(f"- not checked to the end: {report.error}")
        for failure in report.failures:
            lines += _failure_lines(failure)
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


def _said(failure: CellReport) -> str:
    if failure.code == GENERAL:
        return " [JNH000, general view]"
    if failure.code:
        return f" [{failure.code}]"
    return "" if failure.need or failure.knock_on else " not diagnosed"


def _failure_lines(failure: CellReport) -> list[str]:
    head = f"- {failure.place}: {failure.error}{_said(failure)}"
    if failure.expected:
        return [f"{head}: expected (tagged raises-exception)"]
    if failure.knock_on is not None:
        return [f"{head}: knock-on ({failure.knock_on})"]
    if failure.fixed:
        lines = [f"{head}: fixed by \"{failure.fix}\" (verified by running it)"]
    elif failure.need:
        lines = [f"{head}: the notebook {failure.need.split(' (')[0]}"
                 + (f"; install it with `{failure.install}`" if failure.install else "")]
    else:
        lines = [f"{head}: still failing" + (f" ({failure.why_not})" if failure.why_not else "")]
    if failure.unsafe:
        lines.append("  - not marked safe, so never applied by the doctor: "
                     + ", ".join(f'"{label}"' for label in failure.unsafe))
    return lines


def _cell_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def as_json(reports: list[NotebookReport]) -> str:
    def one(report: NotebookReport) -> dict[str, Any]:
        data = asdict(report)
        own = _own(report)
        data["failed"] = len(own)
        data["knock_on"] = len(report.failures) - len(own)
        data["diagnosed"] = sum(_diagnosed(f) for f in own)
        data["general"] = sum(f.code == GENERAL for f in own)
        data["fixed"] = sum(f.fixed for f in own)
        data["still_failing"] = len(report.still_failing)
        data["ok"] = report.ok
        data["exit"] = report.exit
        return data

    return json.dumps({
        "notebooks": [one(report) for report in reports],
        "totals": [{"code": code, "title": title, "failures": n, "notebooks": notebooks}
                   for code, title, n, notebooks in totals(reports)],
        "needs": [{"need": need, "notebooks": paths} for need, paths in _needs(reports)],
        "exit": max((report.exit for report in reports), default=0),
    }, indent=2) + "\n"


def workflow_commands(reports: list[NotebookReport]) -> str:
    """GitHub Actions workflow commands: an error on the line of the notebook's file where
    each failure that remains sits, so that it shows on the pull request."""
    lines = []
    for report in reports:
        if report.error is not None:
            lines.append(_command(report.path, None, "jax_nbhelp doctor", report.error))
        places = _cell_lines(Path(report.path))
        for failure in report.still_failing:
            if failure.knock_on is not None:
                continue
            line = _file_line(places, failure)
            message = failure.error
            if failure.need:
                message += f" ({failure.need})"
            elif failure.title:
                message += f" ({failure.title})"
            lines.append(_command(report.path, line, failure.code or failure.error.split(":")[0],
                                  f"cell {failure.index}: {message}"))
    return "".join(line + "\n" for line in lines)


def _command(path: str, line: int | None, title: str, message: str) -> str:
    where = f"file={_property(path)}" + (f",line={line}" if line else "")
    return f"::error {where},title={_property(title)}::{_data(message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


_CELL_KEY = re.compile(r'^\s*"cell_type":\s*"')
_SOURCE_KEY = re.compile(r'^\s*"source":')


def _cell_lines(path: Path) -> dict[int, tuple[int, bool]]:
    """For each cell (1-based), the line of the notebook's file where its ``"source"`` key
    is, as nbformat writes a notebook (a key a line), and whether a list of lines follows."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    places: dict[int, tuple[int, bool]] = {}
    cell = 0
    for number, line in enumerate(text.splitlines(), 1):
        if _CELL_KEY.match(line):
            cell += 1
        elif _SOURCE_KEY.match(line) and cell and cell not in places:
            places[cell] = (number, line.rstrip().endswith("["))
    return places


def _file_line(places: dict[int, tuple[int, bool]], failure: CellReport) -> int | None:
    """The line of the notebook's file that holds the failing line of the cell."""
    if failure.index not in places:
        return None
    line, listed = places[failure.index]
    return line + failure.line if listed and failure.line else line
