"""The card at a glance: the few sentences every surface shows before its details.

One place decides them, and the diagnosis bundle carries them (``Diagnosis.to_json``), so
the native card (and its anywidget twin), the static copy and the text form say the same:

- the cause: the explanation's first sentence;
- the safety sentences that two or more fixes share, said once above the fixes, and what
  is left of each fix's own;
- the recommended fix's one line: same results or not, why it is recommended, and how
  long it runs when that is long.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

# A sentence ends at . ! or ? followed by a space and what starts a sentence here: a
# capital, a parenthesis or inline code (the catalog's sentences start with `jax.jit` too).
_FIRST = re.compile(r"^(.+?[.!?])(?:\s+(?=[A-Z(`])|$)", re.S)
_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`])")


def sentences(text: str) -> list[str]:
    return [part for part in _BREAK.split(text.strip()) if part.strip()]


def first_sentence(text: str) -> str:
    """The cause, for the card's first line."""
    found = _FIRST.match(text.strip())
    return found.group(1) if found else text.strip()


def shared_sentences(texts: Sequence[str]) -> list[str]:
    """The sentences two or more of ``texts`` have, in the order they first appear."""
    counts: dict[str, int] = {}
    for text in texts:
        for sentence in set(sentences(text)):
            counts[sentence] = counts.get(sentence, 0) + 1
    order = dict.fromkeys(sentence for text in texts for sentence in sentences(text))
    return [sentence for sentence in order if counts[sentence] >= 2]


def without_sentences(text: str, shared: Sequence[str]) -> str:
    """``text`` less the ``shared`` sentences (said once above); "(as above)" if none is left."""
    kept = [sentence for sentence in sentences(text) if sentence not in shared]
    return " ".join(kept) if kept else "(as above)"


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def short_line(safe: bool, why: str, estimate: dict[str, Any] | None) -> str:
    """The line beside the recommended fix's button."""
    parts = ["Same results." if safe else "Changes the numbers."]
    if why:
        parts.append(why)
    if estimate and estimate.get("long"):
        parts.append(f"Interpreted, roughly {duration(float(estimate['seconds']))}.")
    return " ".join(parts)
