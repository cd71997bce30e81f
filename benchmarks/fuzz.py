"""10,000 seeded hostile cells against jax_nbhelp in a real IPython shell, with what the
default test run only samples: forged bundles, cards of another kernel, fixes interrupted
midway. Prints what went wrong, by kind; every count must be 0.

- Hostile cells (``tests/hostile_cells.py``): broken ``__str__``/``__repr__``/
  ``__getattr__``, cycles in ``__cause__``, 1,000-deep chains, huge, NUL and non-UTF-8
  messages, exception groups, recursion, magics, JAX errors the catalog does not know.
  Counted: no error, a dropped handler, a lost traceback, a false claim (a diagnosis of
  an error JAX did not raise, or an entry's claim on a JAX error the catalog does not
  know), no general view (such a JAX error left without the general card), a noise line
  (jax_nbhelp speaking on stderr).
- Forged bundles, every ``--every`` cells: a real card exists, then the frontend calls
  the JupyterLab extension makes (``shell/frontend.status``/``apply``) come with forged
  card ids, that card's id with another kernel's session (a saved or copied notebook),
  and arguments of the wrong kind. Counted: a forged call that applied anything, or
  changed the user's variables (changed cells), or raised.
- Interrupted fixes, every ``--every`` cells: the flagship's fix re-runs a cell whose
  end sleeps, and a KeyboardInterrupt (what the kernel's stop button sends) lands at a
  seeded moment. Counted: a statement run twice, a stopped fix that left its changes, an
  interrupt that escaped the fix, a dropped handler.

    python benchmarks/fuzz.py [--cells 10000] [--seed 20261201] [--every 100]
"""

from __future__ import annotations

import _thread
import argparse
import collections
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import PALLAS_IMPORTS, SCALED_HELPER, Notebook  # noqa: E402
from hostile_cells import PRELUDE, hostile_cell, problems  # noqa: E402

FAILING = "step += 1\nout = jax.jit(scaled)(jnp.ones((8, 128)))\ntime.sleep({sleep})\ndone = True"
ANSWER = "application/vnd.jax-nbhelp.result+json"


def _answer(nb: Notebook, call: str) -> dict[str, Any] | None:
    out = nb.run(f"__import__('jax_nbhelp.shell.frontend').shell.frontend.{call}")
    if out.error is not None:
        return None
    found = [bundle[ANSWER] for bundle in out.bundles if ANSWER in bundle]
    return found[0] if len(found) == 1 else None


def _snapshot(nb: Notebook) -> dict[str, int]:
    return {name: id(value) for name, value in nb.shell.user_ns.items()
            if not name.startswith("_")}


def _flagship(nb: Notebook, sleep: float) -> Any:
    """The flagship error, fresh: its diagnosis (the helper in its cell, then the call)."""
    nb.run(SCALED_HELPER)
    nb.run("step = 0\ndone = False")
    out = nb.run(FAILING.format(sleep=sleep))
    return out.diagnoses[0] if out.diagnoses else None


def forged(nb: Notebook, rng: random.Random, counts: collections.Counter[str]) -> None:
    bundle = _flagship(nb, 0)
    if bundle is None:
        counts["flagship not diagnosed"] += 1
        return
    card, session = bundle["card_id"], bundle["session"]
    ids = [repr(rng.randbytes(6).hex()), "''", repr("x" * 10_000), repr("\u202e\x00card"),
           "None", "123", "['a']", repr(card + "0"), repr(card[:-1])]
    calls = [f"{rng.choice(('status', 'apply'))}({rng.choice(ids)}, 1)" for _ in range(3)]
    calls += [f"status({card!r}, 'another-kernel')",
              f"apply({card!r}, {rng.randint(1, 2)}, {rng.randbytes(6).hex()!r})",
              f"apply({card!r}, {rng.choice(('True', '0', '-1', '99', '2.0', repr('2')))})"]
    # (a near miss of the real id: one more or one less character)
    own = _answer(nb, f"status({card!r}, {session!r})")
    if own is None or not own.get("known"):
        counts["the real card refused"] += 1  # refusing everything would prove nothing
    for call in calls:
        before = _snapshot(nb)
        answer = _answer(nb, call)
        if answer is None:
            counts["forged call raised or gave no answer"] += 1
        elif answer.get("known") and answer.get("ok") is not False and "status(" not in call:
            counts["forged call applied"] += 1
        if _snapshot(nb) != before:
            counts["changed cells"] += 1


def interrupted(nb: Notebook, rng: random.Random, counts: collections.Counter[str]) -> str:
    """One interrupted fix; returns how it ended ("stopped", "fixed" or "not run")."""
    import jax_nbhelp

    if _flagship(nb, 0.6) is None:
        counts["flagship not diagnosed"] += 1
        return "not run"
    diagnosis = jax_nbhelp.last()
    fix = next(fix for fix in diagnosis.fixes if fix.label == "Remove collective_axes")
    scaled = nb["scaled"]
    lock, running = threading.Lock(), [True]

    def interrupt() -> None:
        with lock:
            if running[0]:
                _thread.interrupt_main()

    timer = threading.Timer(rng.uniform(0.0, 1.2), interrupt)
    result = None
    try:
        timer.start()
        try:
            result = fix.apply()
        finally:
            with lock:
                running[0] = False
            timer.cancel()
    except KeyboardInterrupt:
        counts["interrupt escaped the fix"] += 1
        return "not run"
    if nb["step"] != 1:
        counts["a statement ran twice"] += 1
    if result.stopped:
        if nb["done"] or nb["scaled"] is not scaled:
            counts["a stopped fix left its changes"] += 1
        return "stopped"
    if not result.ok:
        counts[f"fix failed: {result.error}"] += 1
    elif not nb["done"]:
        counts["fixed, but the cell did not finish"] += 1
    return "fixed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--every", type=int, default=100,
                        help="a round of forged calls and an interrupted fix every N cells")
    args = parser.parse_args()
    from IPython.core.interactiveshell import InteractiveShell

    nb = Notebook(InteractiveShell.instance(colors="nocolor"))
    nb.ok("%load_ext jax_nbhelp")
    nb.ok(PALLAS_IMPORTS + "\nimport time")
    nb.ok(PRELUDE)
    handler = nb.shell.CustomTB
    rng = random.Random(args.seed)
    counts: collections.Counter[str] = collections.Counter()
    ends: collections.Counter[str] = collections.Counter()
    rounds = 0
    start = time.monotonic()
    for number in range(args.cells):
        source, shown, by_jax = hostile_cell(rng)
        out = nb.run(source)
        counts.update(problems(out, shown, nb.shell.CustomTB is handler, by_jax))
        if nb.shell.CustomTB is not handler:
            handler = nb.shell.CustomTB  # counted once; go on with what is there
        if number % args.every == args.every - 1:
            rounds += 1
            forged(nb, rng, counts)
            ends[interrupted(nb, rng, counts)] += 1
            if nb.shell.CustomTB is not handler:
                counts["dropped handler"] += 1
                handler = nb.shell.CustomTB
        if number % 1000 == 999:
            print(f"{number + 1:,} cells, {time.monotonic() - start:.0f} s", file=sys.stderr)
    elapsed = time.monotonic() - start
    print(f"{args.cells:,} hostile cells (seed {args.seed}), {rounds} rounds of forged calls "
          f"and an interrupted fix, in {elapsed:.0f} s; the interrupted fixes: "
          f"{ends['stopped']} stopped, {ends['fixed']} done before the interrupt\n")
    kinds = ("no error", "dropped handler", "lost traceback", "false claim", "no general view",
             "noise line",
             "forged call applied", "forged call raised or gave no answer", "changed cells",
             "a statement ran twice", "a stopped fix left its changes",
             "interrupt escaped the fix", "flagship not diagnosed")
    print("| problem | count |\n|---|---|")
    for kind in (*kinds, *sorted(set(counts) - set(kinds))):
        print(f"| {kind} | {counts[kind]} |")
    return 1 if sum(counts.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
