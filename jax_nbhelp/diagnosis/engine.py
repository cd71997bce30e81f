"""Runs the catalog against an error, each diagnosis isolated from the others.

A diagnosis that crashes is skipped and remembered in the session's ``failures`` (for the hook's
line and the tests); it never hides the user's traceback or another diagnosis.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any, Protocol

from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.core.session import Session, current
from jax_nbhelp.diagnosis import catalog_index
from jax_nbhelp.diagnosis.context import ErrorContext, Link, build_context
from jax_nbhelp.diagnosis.match import site_trigger


class Entry(Protocol):
    """What a catalog module provides (see CONTRIBUTING.md, "Adding a diagnosis"): a
    ``MATCH`` (``diagnosis.match``) and ``diagnose(ctx, link[, found])``, or ``TRIGGERS``
    and ``diagnose(ctx)``."""

    CODE: str
    TITLE: str

    def diagnose(self, ctx: ErrorContext, *found: Any) -> Diagnosis | None: ...


# The catalog's families whose entries speak for errors JAX did not raise: a library of the
# JAX ecosystem that is not installed. Every other entry needs JAX's own error.
OUTSIDE_JAX = ("packages",)


@cache
def entries() -> tuple[Any, ...]:
    """Every catalog module, found by listing the catalog's folder: adding one touches no
    list."""
    return catalog_index.import_entries(catalog_index.module_names())


def candidates(ctx: ErrorContext) -> tuple[Any, ...]:
    """The catalog entries whose triggers this error carries, imported only now
    (``catalog_index``); every entry when the index cannot say."""
    haystack = "\n".join(f"{' '.join(link.mro)}\n{link.message}" for link in ctx.chain)
    if ctx.raise_site is not None:  # an entry may claim every wording of a raise site
        haystack += "\n" + site_trigger(ctx.raise_site)
    names = catalog_index.modules_for(haystack)
    if names is None:
        return entries()
    return catalog_index.import_entries(names)


def matching(ctx: ErrorContext, among: tuple[Any, ...] | None = None) -> list[Diagnosis]:
    """Every diagnosis that claims this error (normally exactly one); ``among``: only those
    entries."""
    results = []
    for entry in candidates(ctx) if among is None else among:
        try:
            diagnosis = ask(entry, ctx)
        except Exception:
            ctx.session.failures.record(f"diagnosis {entry.CODE} ({entry.__name__})")
            continue
        if diagnosis is not None:
            results.append(diagnosis)
    return results


def ask(entry: Entry, ctx: ErrorContext) -> Diagnosis | None:
    """The entry's diagnosis, asked only when its ``MATCH`` (if it declares one) holds,
    and, for an entry about an operation (its ``OPERATIONS``: the names and operators that
    perform it), only where the user's line performs it: an addition inside
    ``jnp.linalg.cholesky`` is not the user's to explain as broadcasting."""
    operations = getattr(entry, "OPERATIONS", None)
    if operations is not None and ctx.ran_inside(operations) is not None:
        return None
    match = getattr(entry, "MATCH", None)
    if match is None:
        return entry.diagnose(ctx)
    found = match.arguments(ctx)
    return None if found is None else entry.diagnose(ctx, *found)


def diagnose(exc: BaseException, shell: Any = None,
             session: Session | None = None) -> Diagnosis | None:
    """The diagnosis for ``exc``: the catalog's, else the general view (``JNH000``) when JAX
    raised it; for an error JAX did not raise, only what an entry of ``OUTSIDE_JAX`` says
    (usually None)."""
    from jax_nbhelp.diagnosis.provenance import raised_by_jax, users_check_failed

    session = session or current()
    if shell is None:
        shell = session.running_shell()
    if users_check_failed(exc):
        return None  # the user's own checkify.check failed, as it should: theirs, not JAX's
    if not raised_by_jax(exc):
        # a message alone is never enough: JAX must have raised it, or the error is one an
        # entry outside JAX knows (asked by the exception's class alone, which is cheap)
        return _outside_jax(exc, shell, session)
    ctx = build_context(exc, shell, session)
    inside = _inside_callback(ctx)
    if inside is not None and (not inside[2] or any(map(_users_check_text, inside[1]))):
        return None  # a user's own error inside a callback: its text may sound like JAX's
    found = matching(ctx) or (_diagnose_inside(ctx, *inside[:2]) if inside else [])
    if found:
        return found[0]
    if not raised_by_jax(exc, strictly=True):
        return None
    return _explained(ctx) or _general(ctx)


def _outside_jax(exc: BaseException, shell: Any, session: Session) -> Diagnosis | None:
    """The diagnosis of an error JAX did not raise, by the entries of ``OUTSIDE_JAX`` whose
    triggers its class names carry; None, without reading any context, for every other."""
    classes = " ".join(getattr(kind, "__name__", "") for kind in type(exc).__mro__)
    names = catalog_index.modules_for(classes)
    if names is None:
        names = catalog_index.module_names()
    names = [name for name in names if name.split(".")[0] in OUTSIDE_JAX]
    if not names:
        return None
    found = matching(build_context(exc, shell, session), catalog_index.import_entries(names))
    return found[0] if found else None


def _explained(ctx: ErrorContext) -> Diagnosis | None:
    """The explained view (``explained.py``): JAX's own check and the user's call, isolated
    as an entry is; None where nothing could be read (then the general view)."""
    from jax_nbhelp.diagnosis import explained

    try:
        found = explained.diagnosis(ctx)
    except Exception:
        ctx.session.failures.record("the explained view (JNH001)")
        return None
    if found is None:
        return None
    try:  # the fixes the called function's contract admits (catalog/_contract.py)
        fixes = catalog_index.contract().fixes(ctx, found)
    except Exception:
        ctx.session.failures.record("the contract's fixes (JNH001)")
        return found
    return replace(found, fixes=tuple(fixes)) if fixes else found


def _general(ctx: ErrorContext) -> Diagnosis | None:
    """The general view of a JAX error no entry knows (``general.py``), isolated as an
    entry is: a bug in it leaves the user's traceback alone."""
    from jax_nbhelp.diagnosis import general

    try:
        return general.diagnosis(ctx)
    except Exception:
        ctx.session.failures.record("the general view (JNH000)")
        return None


def _users_check_text(link: Link) -> bool:
    """A failed ``checkify.check`` of the user's, as a callback's text carries it: raised at
    checkify's ``check_impl`` with the mark checkify gives a user's check's message."""
    return link.raised_by_checkify and link.message.rstrip().endswith("(`check` failed)")


def _inside_callback(ctx: ErrorContext) -> tuple[int, tuple[Link, ...], bool] | None:
    """Where the chain holds a host callback's error as text, the exceptions that text holds,
    and whether the one raised is JAX's."""
    from jax_nbhelp.diagnosis.callback_errors import embedded_links, raised_by_jax

    for index, link in enumerate(ctx.chain):
        inner = embedded_links(link, ctx._shell)
        if inner:
            return index, inner, raised_by_jax(inner[0], ctx._shell)
    return None


def _diagnose_inside(ctx: ErrorContext, index: int, inner: tuple[Link, ...]) -> list[Diagnosis]:
    """An error raised inside a host callback, diagnosed as if it had been raised directly.

    Only when no diagnosis claims the wrapper itself: some know what its text means there.
    """
    from jax_nbhelp.diagnosis.callback_errors import callback_note

    note = callback_note(ctx.chain[index])
    unwrapped = ctx.with_chain(inner + ctx.chain[index + 1:])
    return [replace(diagnosis, notes=(*diagnosis.notes, note))
            for diagnosis in matching(unwrapped)]
