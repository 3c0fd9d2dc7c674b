"""Progress of long stages, announced to whoever listens (by default, nobody).

Lowering, the analyses and the layout passes loop over thousands of insertion points and
functions on a real library, for seconds to minutes; whether and how that is shown (a bar
on a terminal, nothing in a pipe or a test) is the driver's business, and the drivers sit
above every layer that loops. So a loop only announces itself here, in the lowest layer
that has such loops: ``for payload in over("select-instructions", items, "payload"):``.
A driver installs a :class:`Reporter` around its run with :func:`reporting`; with none
installed (libraries, tests, worker processes), :func:`over` hands back ``items`` itself and
:func:`stage` a shared do-nothing stage, so an unwatched run pays one context-variable read
per loop and nothing per item.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, TypeVar

T = TypeVar("T")


class Stage(Protocol):
    """One running stage: ``advance`` as work is done, ``close`` when it ends."""

    def advance(self, n: int = 1) -> None: ...

    def close(self) -> None: ...


class Reporter(Protocol):
    """What shows progress: opens a stage of ``total`` units of ``unit``."""

    def stage(self, name: str, total: int, unit: str) -> Stage: ...


class _Silent:
    """The stage nobody watches."""

    def advance(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


_SILENT = _Silent()
_REPORTER: ContextVar[Reporter | None] = ContextVar("luthier_progress_reporter", default=None)


def watched() -> bool:
    """Whether a reporter is installed: work done elsewhere (worker processes) need only
    send its progress here then."""
    return _REPORTER.get() is not None


def stage(name: str, total: int, unit: str = "it") -> Stage:
    """A stage of ``total`` units, shown if a reporter is installed; close it when done."""
    reporter = _REPORTER.get()
    return _SILENT if reporter is None else reporter.stage(name, total, unit)


def over(name: str, items: Sequence[T], unit: str = "it") -> Iterable[T]:
    """``items``, counted as a stage while a loop consumes them (``items`` itself when
    nobody listens). The stage closes when the loop ends, however it ends."""
    reporter = _REPORTER.get()
    if reporter is None:
        return items
    return _counted(reporter.stage(name, len(items), unit), items)


def _counted(running: Stage, items: Sequence[T]) -> Iterator[T]:
    try:
        for item in items:
            yield item
            running.advance()
    finally:
        running.close()


@contextmanager
def reporting(reporter: Reporter | None) -> Generator[None]:
    """Show the stages that run inside the ``with`` through ``reporter`` (None: hide)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)
