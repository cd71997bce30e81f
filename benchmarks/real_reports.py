"""Errors rebuilt from public reports, run in real kernels with jax_nbhelp loaded: how many
get a card, which card, and whether the recommended fix gives the numbers the user wanted.

Each case (``benchmarks/real_reports/<slug>.py``) is a notebook rebuilt in our own words from
one public report (JAX's tracker, Flax, Optax, Equinox, NumPyro, ...), citing its ``URL``:

- ``CELLS``: the notebook; its last cell fails;
- ``KIND``: ``"fix"`` (a correct fix exists: ``FIXED`` is the notebook corrected by hand and
  ``CHECK`` an expression, true in its namespace, whose numbers were computed
  independently), ``"diagnose"`` (JAX's error, with no mechanical fix) or ``"silent"`` (the
  user's own error: nothing should claim it);
- ``FIXED``, ``CHECK``: as above (``FIXED`` may be empty for ``silent``).

The cases are split once into a half the catalog may be developed against and a held-out
half that no catalog entry is written from: a case is held out when a hash of its slug
with the fixed seed below is odd, so the split is random and stays put when cases are
added. ``tests/test_real_reports.py`` fails when an entry's docstring cites a held-out
report.

    python benchmarks/real_reports.py [--held-out | --development] [--only SLUG ...]
        [--cell-timeout 120] [--json results.json] [--verbose]
    python benchmarks/real_reports.py --check [SLUG ...]   # the cases themselves, no kernel

Per half it prints: cases, diagnosed by an entry, explained view, general card only, nothing,
fixed with the
right numbers (of the ``fix`` cases), wrong fixes (a fix that said "Fixed" and the numbers
are wrong), and claims on ``silent`` cases; then why the other ``fix`` cases were not fixed
(no card, no recommended fix, a recommended fix that did not run clean; of the cards without
a recommended fix, how many offer a fix that changes the numbers, and how often the first
such fix, applied, meets the case's check: a measure of the unsafe fixes, never counted as
fixed; of the recommended fixes that did not run clean, what their run ended in), and how
many are fixed within two clicks: where the recommended fix did not run clean and its outcome
shows the next error's card, that card's recommended fix applied too (a fix after a fix
starts from the first's code). Asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "real_reports"
SEED = "20261202"
KINDS = ("fix", "diagnose", "silent")
GENERAL = "JNH000"
EXPLAINED = "JNH001"  # JAX's own check and the call, read for an error no entry knows
_PROBE = ("import sys as _s\n"
          "from jax_nbhelp.diagnosis.provenance import raised_by_jax as _r\n"
          "print('JAX' if _r(getattr(_s, 'last_value', None), strictly=True) else 'NOT-JAX')\n"
          "del _s, _r")


@dataclass(frozen=True)
class Case:
    slug: str
    url: str
    kind: str
    cells: tuple[str, ...]
    fixed: tuple[str, ...]
    check: str
    summary: str

    @property
    def held_out(self) -> bool:
        digest = hashlib.sha256(f"{SEED}:{self.slug}".encode()).digest()
        return digest[0] % 2 == 1

    @property
    def report(self) -> str:
        """``owner/repo#123``, the way catalog docstrings cite a report."""
        parts = self.url.removeprefix("https://github.com/").split("/")
        return f"{parts[0]}/{parts[1]}#{parts[3]}" if len(parts) >= 4 else self.url


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_report_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cases() -> list[Case]:
    """Every case, sorted by slug."""
    found = []
    for path in sorted(CASES.glob("*.py")):
        if path.name.startswith("_"):
            continue
        module = _load(path)
        found.append(Case(path.stem, module.URL, module.KIND, tuple(module.CELLS),
                          tuple(getattr(module, "FIXED", ())), getattr(module, "CHECK", ""),
                          (module.__doc__ or "").strip().splitlines()[0]))
    return found


# -- checking the cases themselves (no jax_nbhelp) ---------------------------------------

def check_case(case: Case) -> list[str]:
    """What is wrong with a case: its last cell must fail, its corrected cells must run and
    satisfy CHECK. Runs in fresh namespaces of this process, without jax_nbhelp."""
    problems = []
    if case.kind not in KINDS:
        problems.append(f"KIND is {case.kind!r}")
    if not case.url.startswith("https://github.com/"):
        problems.append("URL is not a GitHub report")
    namespace: dict[str, Any] = {}
    try:
        for cell in case.cells[:-1]:
            exec(compile(cell, f"<{case.slug}>", "exec"), namespace)
    except Exception as exc:
        return [*problems, f"a set-up cell fails: {type(exc).__name__}: {exc}"]
    try:
        exec(compile(case.cells[-1], f"<{case.slug}>", "exec"), namespace)
        problems.append("the last cell does not fail")
    except Exception:
        pass
    if case.kind != "silent" or case.fixed:
        fixed: dict[str, Any] = {}
        try:
            for cell in case.fixed:
                exec(compile(cell, f"<{case.slug} fixed>", "exec"), fixed)
            if case.check and not eval(case.check, fixed):
                problems.append("CHECK is false after FIXED")
        except Exception as exc:
            problems.append(f"FIXED fails: {type(exc).__name__}: {exc}")
    return problems


# -- running them in kernels --------------------------------------------------------------

@dataclass
class Outcome:
    slug: str
    held_out: bool
    kind: str
    error: str | None = None
    jax: bool = False  # JAX raised it (strictly: not the user's own raise under JAX)
    code: str | None = None
    fix: str | None = None
    fixed: bool = False  # the fix said "Fixed"
    right: bool | None = None  # CHECK after the fix (None: not applied)
    # where the fix did not run clean and its outcome showed the next error's card with a
    # recommended fix: that one applied too (a second click), and CHECK after it
    second: str | None = None
    # where the recommended fix did not run clean: what its run ended in ("card": the next
    # error's card, "card+fix": one with a recommended fix, "error": an error without a
    # card, "repeated": it ran, but ran again what had run before the error, "stopped":
    # stopped or not applied, "silent": the magic printed nothing, "other": anything else)
    after: str | None = None
    right_second: bool | None = None
    # a fix case whose card has no recommended fix: how many fixes it offers (a kernel
    # checkup aside), how many of them change the numbers, and whether the first of those,
    # applied, meets CHECK (the fix's change was what the report wanted: never recommended)
    offered: int = 0
    unsafe: int = 0
    unsafe_right: bool | None = None
    notes: list[str] = field(default_factory=list)


def run_case(case: Case, cell_timeout: float, verbose: bool) -> Outcome:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pallas_docs import Kernel, KernelGone

    outcome = Outcome(case.slug, case.held_out, case.kind)
    kernel = Kernel(ROOT)
    try:
        kernel.run("%load_ext jax_nbhelp", cell_timeout)
        for cell in case.cells[:-1]:
            out = kernel.run(cell, cell_timeout)
            if out.error:
                outcome.notes.append(f"set-up failed: {out.error}")
                return outcome
        out = kernel.run(case.cells[-1], cell_timeout)
        outcome.error = out.error
        probe = kernel.run(_PROBE, cell_timeout)
        outcome.jax = "JAX" in probe.text.split()
        bundle = out.bundles[-1] if out.bundles else None
        if bundle is None:
            return outcome
        outcome.code = str(bundle.get("code"))
        if verbose:
            print(f"    {bundle.get('explanation')}")
        number = bundle.get("recommended")
        fixes = [fix for fix in bundle.get("fixes", []) if fix.get("kind") != "check"]
        outcome.offered = len(fixes)
        outcome.unsafe = sum(bool(fix.get("available")) and not fix.get("safe")
                             for fix in fixes)
        if case.kind == "fix" and not number and outcome.unsafe and case.check:
            first = next(n for n, fix in enumerate(bundle["fixes"], 1)
                         if fix.get("kind") != "check" and fix.get("available")
                         and not fix.get("safe"))
            kernel.run(f"%jax_nbhelp fix {first}", cell_timeout)
            probe = kernel.run(f"print('CHECK', bool({case.check}))", cell_timeout)
            outcome.unsafe_right = "CHECK True" in probe.text
        if case.kind == "fix" and number:
            outcome.fix = str(bundle["fixes"][number - 1].get("label"))
            applied = kernel.run(f"%jax_nbhelp fix {number}", cell_timeout)
            outcome.fixed = any(line.startswith("Fixed:") for line in applied.text.splitlines())
            if outcome.fixed and case.check:
                probe = kernel.run(f"print('CHECK', bool({case.check}))", cell_timeout)
                outcome.right = "CHECK True" in probe.text
            following = applied.bundles[-1] if applied.bundles and not outcome.fixed else None
            after = following.get("recommended") if following is not None else None
            if not outcome.fixed:
                said = applied.text.splitlines()
                outcome.after = (
                    "card+fix" if after else "card" if following is not None
                    else "repeated" if any(line.startswith("Ran, but") for line in said)
                    else "error" if any(line.startswith("Not fixed") for line in said)
                    or applied.error
                    else "stopped" if any(line.startswith(("Stopped", "Not applied"))
                                          for line in said)
                    else "silent" if not "".join(said).strip() else "other")
            if following is not None and after and case.check:
                outcome.second = str(following["fixes"][after - 1].get("label"))
                again = kernel.run(f"%jax_nbhelp fix {after}", cell_timeout)
                if any(line.startswith("Fixed:") for line in again.text.splitlines()):
                    probe = kernel.run(f"print('CHECK', bool({case.check}))", cell_timeout)
                    outcome.right_second = "CHECK True" in probe.text
    except KernelGone as exc:
        outcome.notes.append(f"kernel gone: {exc}")
    finally:
        kernel.close()
    return outcome


def summary(outcomes: list[Outcome], title: str) -> str:
    fix_cases = [o for o in outcomes if o.kind == "fix"]
    raised = [o for o in outcomes if o.jax]
    entry = sum(o.code is not None and o.code not in (GENERAL, EXPLAINED) for o in raised)
    explained = sum(o.code == EXPLAINED for o in raised)
    general = sum(o.code == GENERAL for o in raised)
    nothing = sum(o.code is None for o in raised)
    right = sum(bool(o.right) for o in fix_cases)
    wrong = sum(o.fixed and o.right is False for o in outcomes)
    claims = sum(o.code is not None for o in outcomes if o.kind == "silent" or not o.jax)
    silent = sum(o.kind == "silent" for o in outcomes)
    two = sum(bool(o.right or o.right_second) for o in fix_cases)
    wrong_second = sum(o.right_second is False for o in outcomes)
    unfixed = [o for o in fix_cases if not o.right]
    no_card = sum(o.code is None for o in unfixed)
    no_fix = sum(o.code is not None and o.fix is None for o in unfixed)
    not_clean = sum(o.fix is not None and not o.fixed for o in unfixed)
    ended = {kind: sum(o.after == kind for o in unfixed if o.fix is not None and not o.fixed)
             for kind in ("card+fix", "card", "error", "repeated", "stopped", "silent", "other")}
    bare = [o for o in unfixed if o.code is not None and o.fix is None]
    with_unsafe = sum(o.unsafe > 0 for o in bare)
    unsafe_right = sum(bool(o.unsafe_right) for o in bare)
    return (f"{title}: {len(outcomes)} cases ({len(raised)} errors JAX raised, {silent} "
            f"silent): diagnosed by an entry {entry}, explained view {explained}, general "
            f"card only {general}, nothing "
            f"{nothing}; fixed with the right numbers {right} of {len(fix_cases)}; wrong "
            f"fixes {wrong}; claims on silent cases or errors JAX did not raise {claims}"
            f"\n  fix cases not fixed: no card {no_card}, a card without a recommended fix "
            f"{no_fix} (of them offering a fix that changes the numbers {with_unsafe}, whose "
            f"first one, applied, meets the report's check {unsafe_right}), a recommended fix "
            f"that did not run clean {not_clean} (its run ended in the next error's card with a "
            f"recommended fix {ended['card+fix']}, a card without one {ended['card']}, an "
            f"error without a card {ended['error']}, ran but not as if once "
            f"{ended['repeated']}, stopped {ended['stopped']}, printed nothing "
            f"{ended['silent']}, other {ended['other']}); fixed with the "
            f"right numbers within two clicks (the next card's recommended fix after one "
            f"that did not run clean) {two} of {len(fix_cases)}, wrong after two {wrong_second}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    half = parser.add_mutually_exclusive_group()
    half.add_argument("--held-out", action="store_true", help="only the held-out half")
    half.add_argument("--development", action="store_true", help="only the other half")
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--check", action="store_true",
                        help="check the cases themselves (no kernel, no jax_nbhelp)")
    parser.add_argument("--cell-timeout", type=float, default=120.0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    chosen = cases()
    if args.only:
        missing = sorted(set(args.only) - {c.slug for c in chosen})
        if missing:
            print(f"no case named {', '.join(missing)}", file=sys.stderr)
            return 2
        chosen = [c for c in chosen if c.slug in args.only]
    if args.held_out:
        chosen = [c for c in chosen if c.held_out]
    elif args.development:
        chosen = [c for c in chosen if not c.held_out]
    if args.check:
        bad = 0
        for case in chosen:
            problems = check_case(case)
            bad += bool(problems)
            print(f"{case.slug}: {'ok' if not problems else '; '.join(problems)}")
        print(f"\n{len(chosen) - bad} of {len(chosen)} cases are sound")
        return 1 if bad else 0

    start = time.monotonic()
    outcomes = []
    for case in chosen:
        outcome = run_case(case, args.cell_timeout, args.verbose)
        outcomes.append(outcome)
        print(f"{case.slug} [{'held out' if case.held_out else 'development'}, {case.kind}]: "
              f"{outcome.code or '-'}" + (f", fix {outcome.fix!r}: "
                                            f"{'Fixed' if outcome.fixed else 'not fixed'}"
                                            + (f", numbers {'right' if outcome.right else 'WRONG'}"
                                               if outcome.right is not None else "")
                                            + (f"; then {outcome.second!r}: " + (
                                                "not fixed" if outcome.right_second is None
                                                else "numbers right" if outcome.right_second
                                                else "numbers WRONG")
                                               if outcome.second else "")
                                            if outcome.fix else "")
              + (f" ({'; '.join(outcome.notes)})" if outcome.notes else ""), flush=True)
    print(f"\n{len(chosen)} cases in {time.monotonic() - start:.0f} s\n")
    for title, part in (("held-out half", [o for o in outcomes if o.held_out]),
                        ("development half", [o for o in outcomes if not o.held_out])):
        if part:
            print(summary(part, title))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
