"""What a diagnosis may look at: the exception chain as plain data, with the user's frames.

JAX wraps the interesting part of an error: the top exception's traceback shows where a
jitted call was made, and its ``__cause__`` (``JaxStackTraceBeforeTransformation``) holds the
traceback of the line that created the failing operation. Run-time wrappers
(``JaxRuntimeError``) carry the original text inside their message. The context flattens all
of that into strings and locations, so diagnoses never touch live frames.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from itertools import pairwise
from types import ModuleType
from typing import Any

from jax_nbhelp.model import Location
from jax_nbhelp.sources import locate


@dataclass(frozen=True)
class Frame:
    filename: str
    lineno: int
    function: str
    line: str
    location: Location | None

    @property
    def is_user(self) -> bool:
        return self.location is not None


@dataclass(frozen=True)
class Link:
    """One exception of the chain: its type, message and frames (outermost first)."""

    type_name: str
    module: str
    message: str
    frames: tuple[Frame, ...]
    mro: tuple[str, ...]

    @property
    def user_frames(self) -> tuple[Frame, ...]:
        return tuple(frame for frame in self.frames if frame.is_user)

    def is_a(self, name: str) -> bool:
        """Whether the exception is an instance of a class called ``name`` (no import needed)."""
        return name in self.mro

    @property
    def summary(self) -> str:
        return f"{self.type_name}: {self.message}" if self.message else self.type_name


@dataclass(frozen=True)
class ErrorContext:
    """The exception chain, top exception first, following ``__cause__`` and ``__context__``."""

    chain: tuple[Link, ...]
    # module name -> the name the user bound it to ("jax.numpy" -> "jnp"), for rewrites
    module_aliases: dict[str, str] = field(default_factory=dict)

    def alias(self, module: str) -> str | None:
        """The name under which the user's namespace holds ``module`` (None if it does not)."""
        return self.module_aliases.get(module)

    @property
    def top(self) -> Link:
        return self.chain[0]

    def find(self, text: str) -> Link | None:
        """The first exception in the chain whose message contains ``text``."""
        for link in self.chain:
            if text in link.message:
                return link
        return None

    def mentions(self, text: str) -> bool:
        return self.find(text) is not None

    def deepest_user_location(self) -> Location | None:
        """The innermost user line anywhere in the chain: where the failing operation was made."""
        for link in reversed(self.chain):
            frames = link.user_frames
            if frames and frames[-1].location is not None:
                return frames[-1].location
        return None

    def call_site(self) -> Location | None:
        """The innermost user line of the top exception: where the user's code set it off."""
        frames = self.top.user_frames
        return frames[-1].location if frames else None

    def failing_cell(self) -> Location | None:
        """The outermost cell frame of the top exception: the cell that was running."""
        for frame in self.top.frames:
            if frame.location is not None and frame.location.kind == "cell":
                return frame.location
        return None

    def frame_after(self, location: Location) -> Frame | None:
        """The user frame called from ``location`` (for example the helper a cell called)."""
        for link in self.chain:
            frames = link.user_frames
            for outer, inner in pairwise(frames):
                if outer.location == location:
                    return inner
        return None


def _link(exc: BaseException, shell: Any) -> Link:
    frames = []
    for summary in traceback.extract_tb(exc.__traceback__):
        lineno = summary.lineno or 0
        frames.append(
            Frame(
                filename=summary.filename,
                lineno=lineno,
                function=summary.name,
                line=(summary.line or "").strip(),
                location=locate(summary.filename, lineno, summary.name, shell),
            )
        )
    cls = type(exc)
    return Link(
        type_name=cls.__name__,
        module=cls.__module__,
        message=str(exc),
        frames=tuple(frames),
        mro=tuple(base.__name__ for base in cls.__mro__),
    )


def build_context(exc: BaseException, shell: Any = None) -> ErrorContext:
    """Flatten ``exc`` and its causes into an ``ErrorContext`` (no live frames kept)."""
    links: list[Link] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(links) < 16:
        seen.add(id(current))
        links.append(_link(current, shell))
        if current.__cause__ is not None:
            current = current.__cause__
        elif not current.__suppress_context__:
            current = current.__context__
        else:
            current = None
    return ErrorContext(chain=tuple(links), module_aliases=_module_aliases(shell))


def _module_aliases(shell: Any) -> dict[str, str]:
    namespace = getattr(shell, "user_ns", None)
    if not isinstance(namespace, dict):
        return {}
    aliases: dict[str, str] = {}
    for name, value in list(namespace.items()):
        if not isinstance(value, ModuleType) or name.startswith("_"):
            continue
        # The conventional name wins when a module is bound twice.
        if value.__name__ not in aliases or name == value.__name__.rpartition(".")[2]:
            aliases[value.__name__] = name
    return aliases
