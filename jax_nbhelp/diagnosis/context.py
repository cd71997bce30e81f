"""What a diagnosis may look at: the exception chain as plain data, with the user's frames.

JAX wraps the interesting part of an error: the top exception's traceback shows where a
jitted call was made, and its ``__cause__`` (``JaxStackTraceBeforeTransformation``) holds the
traceback of the line that created the failing operation. Run-time wrappers
(``JaxRuntimeError``) carry the original text inside their message. The context flattens all
of that into strings and locations, so diagnoses never touch live frames.
"""

from __future__ import annotations

import linecache
import re
import sys
import traceback
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from types import FrameType, ModuleType
from typing import Any, Generic, TypeVar

from jax_nbhelp.core.model import Location
from jax_nbhelp.core.protocol import cell_label
from jax_nbhelp.core.session import RerunSource, Session, current
from jax_nbhelp.diagnosis import jax_check, kernel_facts, user_call
from jax_nbhelp.diagnosis.kernel_facts import KernelFacts
from jax_nbhelp.diagnosis.line_values import (
    Value,
    describe,
    exception_chain,
    frames_of,
    instance_fields,
    read_line,
)
from jax_nbhelp.diagnosis.sources import locate


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
    def raised_by_checkify(self) -> bool:
        """Raised at checkify's ``check_impl``: a failed check, JAX's own or the user's
        (told apart by its class, or by its message where only text came through)."""
        last = self.frames[-1] if self.frames else None
        return last is not None and last.function == "check_impl" and "checkify" in last.filename

    @property
    def summary(self) -> str:
        return f"{self.type_name}: {self.message}" if self.message else self.type_name


_UNSET: Any = object()
T = TypeVar("T")


class _Lazy(Generic[T]):
    """A part of the context read (from the shell) on first use, then kept."""

    def __init__(self, read: Callable[[ErrorContext], T]) -> None:
        self.read = read
        self.slot = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    def __get__(self, ctx: ErrorContext, owner: type | None = None) -> T:
        value: T | None = getattr(ctx, self.slot)
        if value is None:
            value = self.read(ctx)
            setattr(ctx, self.slot, value)
        return value


class ErrorContext:
    """The exception chain, top exception first, following ``__cause__`` and ``__context__``.

    What the user's namespace and history say (aliases, value types, cell sources) and what
    JAX's frames say about a kernel are read only when a diagnosis asks: most errors are
    dismissed on their type and message, and a big notebook must not cost every error a
    scan of 5,000 globals.
    """

    def __init__(
        self,
        chain: tuple[Link, ...],
        *,
        module_aliases: dict[str, str] | None = None,
        value_types: dict[str, str] | None = None,
        places: dict[str, Location] | None = None,
        cell_sources: dict[int, str] | None = None,
        object_names: dict[str, str] | None = None,
        mesh_axes: dict[str, tuple[str, ...]] | None = None,
        kernel: KernelFacts | None = _UNSET,
        shell: Any = None,
        exc: BaseException | None = None,
        session: Session | None = None,
    ) -> None:
        self.chain = chain
        # what this load of jax_nbhelp remembers: the raised lines the planner reads, a
        # failed fix whose error this is, this machine's interpreter speed
        self.session = session or current()
        self._shell = shell
        self._exc = exc
        self._module_aliases = module_aliases
        self._value_types = value_types
        self._places = places
        self._cell_sources = cell_sources
        self._sources_from_shell = cell_sources is None
        self._object_names = object_names
        self._mesh_axes = mesh_axes
        self._kernel = kernel
        self._values: dict[tuple[str, int, str], tuple[Value, ...]] = {}
        self._user_call: Any = _UNSET
        self._raise_site: Any = _UNSET

    def replace(self, **changes: Any) -> ErrorContext:
        """A copy with some parts given (``kernel=None``: as if JAX said nothing)."""
        parts: dict[str, Any] = {
            "module_aliases": self._module_aliases, "value_types": self._value_types,
            "places": self._places, "cell_sources": self._cell_sources,
            "object_names": self._object_names, "mesh_axes": self._mesh_axes,
            "kernel": self._kernel,
        }
        parts.update(changes)
        return ErrorContext(self.chain, shell=self._shell, exc=self._exc, session=self.session,
                            **parts)

    def with_chain(self, chain: tuple[Link, ...]) -> ErrorContext:
        """The same error seen through another chain (the exceptions a wrapper's text holds:
        no live frames, so neither a call nor a raise site of its own is known)."""
        copy = self.replace()
        copy.chain = chain
        copy._user_call = copy._raise_site = None
        return copy

    # module name -> the name the user bound it to ("jax.numpy" -> "jnp"), for rewrites
    module_aliases: _Lazy[dict[str, str]] = _Lazy(lambda ctx: _module_aliases(ctx._shell))
    # user namespace name -> the qualified type of its value ("builtins.bool"), never the value
    value_types: _Lazy[dict[str, str]] = _Lazy(lambda ctx: _value_types(ctx._shell))
    # "file:line" named in a message (JAX's "function f at <file>:3") -> that user line
    places: _Lazy[dict[str, Location]] = _Lazy(lambda ctx: _places(list(ctx.chain), ctx._shell))
    # execution count -> the cell's source as typed (the shell's input history)
    cell_sources: _Lazy[dict[int, str]] = _Lazy(lambda ctx: _cell_sources(ctx._shell))
    # user namespace name -> the qualified name of the class or function bound to it
    # ("partial" -> "functools.partial")
    object_names: _Lazy[dict[str, str]] = _Lazy(lambda ctx: _object_names(ctx._shell))
    # user namespace name -> the axis names of the jax.sharding.Mesh bound to it
    mesh_axes: _Lazy[dict[str, tuple[str, ...]]] = _Lazy(lambda ctx: _mesh_axes(ctx._shell))

    # the Pallas kernel the error was raised for, read from JAX's frames (kernel_facts.py)
    @property
    def kernel(self) -> KernelFacts | None:
        if self._kernel is _UNSET:
            self._kernel = (kernel_facts.from_exception(self._exc)
                            if self._exc is not None else None)
        return self._kernel

    @property
    def user_call(self) -> user_call.UserCall | None:
        """The user's call under which JAX raised (``user_call.find``): the deepest user
        line's call or operator, with the function it names; None where none shows."""
        if self._user_call is _UNSET:
            self._user_call = (user_call.find(self._exc, self.locate)
                               if self._exc is not None else None)
        found: user_call.UserCall | None = self._user_call
        return found

    @property
    def raise_site(self) -> str | None:
        """Where JAX raised the error: ``path:function`` under jax/_src
        (``jax_check.raise_site``); None where no frame of JAX's shows."""
        if self._raise_site is _UNSET:
            self._raise_site = jax_check.raise_site(self._exc)
        found: str | None = self._raise_site
        return found

    def ran_inside(self, operations: Collection[str]) -> str | None:
        """The JAX function the user's line called, as spelled (``jnp.linalg.cholesky``),
        when the operation that failed ran inside it: the line calls a function of JAX's
        library that is none of ``operations`` (the names and operators that perform the
        operation: ``add``, ``+``, ``reshape``). None where the user's line (or a function
        of the user's it reached) performs the operation itself."""
        call = self.user_call
        if call is None or call.operator is not None or call.name in operations:
            return None
        return call.spelled if user_call.library_function(call.function) else None

    def cells_mentioning(self, name: str) -> list[int] | None:
        """The cells of the shell's history whose source holds ``name`` (execution order),
        from an index kept between errors; None when this context's cell sources were
        handed in rather than read from the shell (the caller searches them)."""
        history = getattr(getattr(self._shell, "history_manager", None), "input_hist_raw", None)
        if not self._sources_from_shell or not isinstance(history, list):
            return None
        _history_index.update(history)  # this shell's history, read up to now
        return _history_index.cells_mentioning(name)

    def alias(self, module: str) -> str | None:
        """The name under which the user's namespace holds ``module`` (None if it does not)."""
        if self._module_aliases is not None:  # given, or already read in full
            return self._module_aliases.get(module)
        return _alias_of(self._shell, module, lambda: self.cell_sources)

    def type_of(self, name: str) -> str | None:
        """The qualified type name of the user's global ``name`` when the error happened."""
        return self.value_types.get(name)

    def place(self, filename: str, lineno: int) -> Location | None:
        """The user line a message mentions as ``filename:lineno`` (None if not user code)."""
        return self.places.get(f"{filename}:{lineno}")

    def names_for(self, qualified: str) -> list[str]:
        """The user's names for the class or function ``qualified`` (``functools.partial``)."""
        return sorted(name for name, value in self.object_names.items() if value == qualified)

    def cell(self, number: int, lineno: int = 1) -> Location | None:
        """Line ``lineno`` of cell ``In [number]`` from the input history (None if absent)."""
        source = self.cell_sources.get(number)
        if source is None:
            return None
        lines = source.splitlines()
        line = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
        return Location(kind="cell", filename=cell_label(number), lineno=lineno, line=line,
                        cell=number, source=source)

    @property
    def exception(self) -> BaseException | None:
        """The exception itself, for what its text does not carry (an import error's
        ``name``); None for a context built from plain data."""
        return self._exc

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

    def live_frame(self, location: Location) -> FrameType | None:
        """The live frame of the chain that was at ``location`` (frames of JAX's stack
        before transformation are lines only, without variables: skipped)."""
        for link, (_, live) in zip(self.chain, frames_of(self._exc), strict=False):
            for frame, real in zip(reversed(link.frames), reversed(live), strict=False):
                if frame.location == location and (real.f_locals or real.f_globals):
                    return real
        return None

    def live_frame_of(self, wanted: Frame) -> FrameType | None:
        """The live frame of ``wanted``, one of the chain's frames (told apart from another
        frame at the same line: a lambda's and its caller's)."""
        for link, (_, live) in zip(self.chain, frames_of(self._exc), strict=False):
            for frame, real in zip(reversed(link.frames), reversed(live), strict=False):
                if frame is wanted and (real.f_locals or real.f_globals):
                    return real
        return None

    def running_at(self, location: Location | None) -> tuple[int, int, int, int] | None:
        """Where in its source the instruction the frame at ``location`` stopped at stands:
        (line, end line, column, end column), as Python records it (``if x > 0:`` that
        failed converting ``x > 0`` gives that comparison's place); None where unknown."""
        if location is None or self._exc is None:
            return None
        frame = self.live_frame(location)
        if frame is None or frame.f_lasti < 0:
            return None
        try:
            found = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        except (IndexError, ValueError):
            return None
        if None in found or found[0] != location.lineno:
            return None
        return found  # type: ignore[return-value]

    def values_at(self, location: Location | None) -> tuple[Value, ...]:
        """The values the statement at ``location`` read, as shapes and dtypes
        (``line_values``), from that line's live frame; () when no live frame shows it."""
        if location is None or location.source is None or self._exc is None:
            return ()
        key = (location.filename, location.lineno, location.function)  # a lambda's own
        if key not in self._values:
            frame = self.live_frame(location)
            self._values[key] = (read_line(location.source, location.lineno, frame)
                                 if frame is not None else ())
        return self._values[key]

    def fields_at(self, location: Location, name: str) -> dict[str, Value] | None:
        """The attributes of the object ``name`` holds at ``location`` (its own
        ``__dict__``, described as values), or None (``line_values.instance_fields``)."""
        frame = self.live_frame(location) if self._exc is not None else None
        if frame is None:
            return None
        value = frame.f_locals.get(name, frame.f_globals.get(name, _UNSET))
        return None if value is _UNSET else instance_fields(value)

    def value_named(self, location: Location, name: str) -> Value | None:
        """What the name ``name`` held in the live frame at ``location`` (a local, else a
        global), as plain data (``line_values.describe``); None where unknown."""
        frame = self.live_frame(location) if self._exc is not None else None
        if frame is None:
            return None
        value = frame.f_locals.get(name, frame.f_globals.get(name, _UNSET))
        return None if value is _UNSET else describe(name, value)

    def other_names_for(self, location: Location, name: str) -> list[str]:
        """The other global names bound to the very object that ``name`` holds at
        ``location`` (``y`` after ``y = x``): what sharing it means for a rewrite."""
        frame = self.live_frame(location) if self._exc is not None else None
        if frame is None:
            return []
        value = frame.f_locals.get(name, frame.f_globals.get(name, _UNSET))
        if value is _UNSET:
            return []
        return sorted(other for other, bound in list(frame.f_globals.items())
                      if bound is value and other != name and not other.startswith("_"))

    def globals_of_type(self, qualified: str) -> list[tuple[str, Any]]:
        """The user's globals whose value's class is ``qualified`` (``module.Class``), with
        their values: for JAX's own objects (a ``custom_vjp``), whose attributes are data."""
        namespace = getattr(self._shell, "user_ns", None)
        if not isinstance(namespace, dict):
            return []
        names = [name for name, kind in self.value_types.items() if kind == qualified]
        return [(name, namespace[name]) for name in names if name in namespace]

    def locate(self, filename: str, lineno: int, function: str = "") -> Location | None:
        """The user's line ``filename:lineno`` (a cell or a file), or None for library code."""
        return locate(filename, lineno, function, self._shell, self.session.reruns)

    def caller_of(self, location: Location) -> Location | None:
        """The user line that called the function ``location`` is in (the frame before it)."""
        for link in self.chain:
            frames = link.user_frames
            for outer, inner in pairwise(frames):
                if inner.location == location:
                    return outer.location
        return None

    def frame_after(self, location: Location) -> Frame | None:
        """The user frame called from ``location`` (for example the helper a cell called)."""
        for link in self.chain:
            frames = link.user_frames
            for outer, inner in pairwise(frames):
                if outer.location == location:
                    return inner
        return None


def _message(exc: BaseException) -> str:
    """``str(exc)``, or "" when the exception cannot say it (its ``__str__`` is broken)."""
    try:
        text = str(exc)
    except Exception:
        return ""
    return text if isinstance(text, str) else ""


def _link(exc: BaseException, shell: Any, reruns: Mapping[str, RerunSource]) -> Link:
    frames = []
    # walk_tb, not extract_tb: the line numbers without each frame's column positions,
    # which Python 3.11 finds by walking the code's position table, per frame. The lines
    # come from linecache as it stands: IPython has just checked it to show this traceback
    # (StackSummary would stat every file again).
    for frame, number in traceback.walk_tb(exc.__traceback__):
        code = frame.f_code
        filename, function, lineno = code.co_filename, code.co_name, number or 0
        if filename not in linecache.cache:
            linecache.lazycache(filename, frame.f_globals)
        frames.append(
            Frame(
                filename=filename,
                lineno=lineno,
                function=function,
                line=linecache.getline(filename, lineno).strip(),
                location=locate(filename, lineno, function, shell, reruns),
            )
        )
    cls = type(exc)
    return Link(
        type_name=cls.__name__,
        module=cls.__module__,
        message=_message(exc),
        frames=tuple(frames),
        mro=tuple(base.__name__ for base in cls.__mro__),
    )


def build_context(exc: BaseException, shell: Any = None,
                  session: Session | None = None) -> ErrorContext:
    """Flatten ``exc`` and its causes into an ``ErrorContext`` (no live frames kept)."""
    session = session or current()
    links = tuple(_link(link, shell, session.reruns) for link in exception_chain(exc))
    return ErrorContext(links, shell=shell, exc=exc, session=session)


def _module_aliases(shell: Any) -> dict[str, str]:
    namespace = getattr(shell, "user_ns", None)
    if not isinstance(namespace, dict):
        return {}
    aliases: dict[str, str] = {}
    # the modules first, in one pass (a notebook may hold thousands of other names)
    modules = [(name, value) for name, value in list(namespace.items())
               if isinstance(value, ModuleType) and not name.startswith("_")]
    for name, value in modules:
        # The conventional name wins when a module is bound twice.
        if value.__name__ not in aliases or name == value.__name__.rpartition(".")[2]:
            aliases[value.__name__] = name
    return aliases


def module_alias(shell: Any, module: str) -> str | None:
    """The name under which ``shell``'s namespace holds ``module``, read as
    ``ErrorContext.alias`` reads it, for code that has a shell and no error (None if none)."""
    return _alias_of(shell, module, lambda: _cell_sources(shell))


def _alias_of(shell: Any, module: str, history: Callable[[], dict[int, str]]) -> str | None:
    """What ``_module_aliases(shell).get(module)`` says, without a pass over every global:
    its conventional name, else a name the cells' imports bound, else (rarely) the pass.
    A module that was never imported is bound to no name."""
    namespace = getattr(shell, "user_ns", None)
    value = sys.modules.get(module)
    if not isinstance(namespace, dict) or not isinstance(value, ModuleType):
        return None
    conventional = module.rpartition(".")[2]
    if namespace.get(conventional) is value:
        return conventional
    for _, source in sorted(history().items()):
        for name in imported_names(source):
            if not name.startswith("_") and namespace.get(name) is value:
                return name
    return next((name for name, bound in list(namespace.items())
                 if bound is value and not name.startswith("_")), None)


_IMPORT_RE = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(\([^)]*\)|[^\n#;]*)",
                        re.MULTILINE)


@lru_cache(maxsize=1024)
def imported_names(source: str) -> tuple[str, ...]:
    """The names a cell's import statements bind (``import a.b`` binds ``a``; ``from m
    import x as y`` binds ``y``), read from its text: a cell is read once, and a name it
    did not bind is never taken, since the caller checks what the name holds."""
    if "import" not in source:
        return ()
    names: list[str] = []
    for match in _IMPORT_RE.finditer(source):
        for item in match.group(1).strip("()").replace("\\\n", " ").split(","):
            words = item.split()
            if len(words) == 3 and words[1] == "as":
                names.append(words[2])
            elif len(words) == 1:
                names.append(words[0].split(".")[0])
    return tuple(names)


def _value_types(shell: Any) -> dict[str, str]:
    namespace = getattr(shell, "user_ns", None)
    if not isinstance(namespace, dict):
        return {}
    types: dict[str, str] = {}
    for name, value in list(namespace.items()):
        if name.startswith("_") or isinstance(value, ModuleType):
            continue
        cls = type(value)
        types[name] = f"{cls.__module__}.{cls.__qualname__}"
    return types


# A filename (<ipython-input-2-ab12>, /abs/path.py, C:\\path.py) followed by :line.
_PLACE_RE = re.compile(r"(<[^<>\s]+>|(?:[A-Za-z]:)?[\\/][^\s:]*):(\d+)")


def _places(links: list[Link], shell: Any) -> dict[str, Location]:
    places: dict[str, Location] = {}
    for link in links:
        for match in _PLACE_RE.finditer(link.message):
            key = match.group(0)
            if key in places:
                continue
            location = locate(match.group(1), int(match.group(2)), "", shell)
            if location is not None:
                places[key] = location
    return places


class _HistoryIndex:
    """The shell's input history as execution count -> source, kept between errors: the
    history grows by one entry per cell, so each error reads only the new cells of a big
    notebook. IPython empties the same list in place for a new session (and a user may
    edit ``In``): what was read is compared with the list first (by identity, at C speed).
    It also keeps which cells hold a name the planner asked about (``cells_mentioning``)."""

    def __init__(self) -> None:
        self.history: list[Any] | None = None
        self.read: list[Any] = []
        self.sources: list[tuple[int, str]] = []  # (execution count, source), in order
        # name -> (how many of the sources were searched, the cells among them holding it)
        self.mentions: dict[str, tuple[int, list[int]]] = {}

    def __call__(self, history: list[Any]) -> dict[int, str]:
        self.update(history)
        return dict(self.sources)

    def update(self, history: list[Any]) -> None:
        """Read what is new in ``history`` (all of it when it is another list, or changed)."""
        done = len(self.read)
        if history is not self.history or history[:done] != self.read:
            self.history, self.read, self.sources, self.mentions = history, [], [], {}
            done = 0
        for number in range(max(done, 1), len(history)):
            text = history[number]
            if isinstance(text, str) and text:
                self.sources.append((number, text))
        self.read.extend(history[done:])

    def cells_mentioning(self, name: str) -> list[int]:
        """The cells read so far whose source holds ``name``, in execution order; each
        cell is searched once per name, so a later error reads only the new cells."""
        searched, found = self.mentions.get(name, (0, []))
        if searched < len(self.sources):
            found = found + [number for number, text in self.sources[searched:]
                             if name in text]
            self.mentions[name] = (len(self.sources), found)
        return found


_history_index = _HistoryIndex()


def _cell_sources(shell: Any) -> dict[int, str]:
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not isinstance(history, list):
        return {}
    return _history_index(history)


def _object_names(shell: Any) -> dict[str, str]:
    namespace = getattr(shell, "user_ns", None)
    if not isinstance(namespace, dict):
        return {}
    names: dict[str, str] = {}
    for name, value in list(namespace.items()):
        try:
            if name.startswith("_") or not callable(value):
                continue
            module = getattr(value, "__module__", None)
            qualname = getattr(value, "__qualname__", None)
        except Exception:  # an odd object's __getattr__ must not hide the user's error
            continue
        if isinstance(module, str) and isinstance(qualname, str):
            names[name] = f"{module}.{qualname}"
    return names


def _mesh_axes(shell: Any) -> dict[str, tuple[str, ...]]:
    namespace = getattr(shell, "user_ns", None)
    if not isinstance(namespace, dict):
        return {}
    meshes: dict[str, tuple[str, ...]] = {}
    for name, value in list(namespace.items()):
        cls = type(value)
        # JAX's own Mesh classes only (their axis_names is plain data); a user object's
        # attributes are never read.
        if (name.startswith("_") or cls.__name__ not in ("Mesh", "AbstractMesh")
                or not cls.__module__.startswith("jax.")):
            continue
        try:
            axes = tuple(value.axis_names)
        except Exception:  # a JAX without the attribute: no mesh known
            continue
        if all(isinstance(axis, str) for axis in axes):
            meshes[name] = axes
    return meshes
