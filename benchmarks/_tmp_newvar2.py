"""Whether the catalog's fixes generalise: our own variations of the errors whose families
have a fix, each run in a real kernel with jax_nbhelp loaded, its recommended fix applied,
and the numbers checked.

Each case (``benchmarks/family_variants.json``) is written here, not rebuilt from a report: the
same mistake as a family's examples, said another way (a helper in an earlier cell, an alias,
a call's result instead of a name, a method, a keyword, under vmap or scan instead of jit,
another library's spelling). ``cells`` is the notebook, its last cell fails; ``check`` is an
expression that is true once the right fix has run. A case that stays unfixed is a fix that
does not reach that spelling yet, or a mistake whose remedy needs the user's intent.

This is a development set: the real-report benchmark's held-out half
(``benchmarks/real_reports.py --held-out``) is the figure to quote; this one shows, while a
fix is built, whether it reaches past the code it was built on.

    python benchmarks/family_variants.py [--only SLUG ...] [--cell-timeout 120]

Prints one line per case and the number fixed with the right numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from real_reports import Case, run_case  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--cell-timeout", type=float, default=120.0)
    args = parser.parse_args()
    cases = json.loads((Path("/tmp/s3/newvar2.json")).read_text(encoding="utf-8"))
    if args.only:
        cases = [c for c in cases if c["slug"] in args.only]
    start = time.monotonic()
    right = wrong = 0
    for item in cases:
        case = Case(item["slug"], "", "fix", tuple(item["cells"]), (), item["check"],
                    item["slug"])
        outcome = run_case(case, args.cell_timeout, verbose=False)
        right += bool(outcome.right)
        wrong += outcome.fixed and outcome.right is False
        result = (f", fix {outcome.fix!r}: " + ("Fixed" if outcome.fixed else "not fixed")
                  + (f", numbers {'right' if outcome.right else 'WRONG'}"
                     if outcome.right is not None else "")) if outcome.fix else ""
        print(f"{case.slug}: {outcome.code or '-'}{result}", flush=True)
    print(f"\n{len(cases)} cases in {time.monotonic() - start:.0f} s: fixed with the right "
          f"numbers {right} of {len(cases)}; wrong fixes {wrong}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
