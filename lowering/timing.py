"""Where the time of a run goes, stage by stage (``luthier-opt --time-passes``).

Like :mod:`.progress`, stages announce themselves here and the driver decides whether
anyone records them: ``with timed("splice-payloads"):``. With no recorder installed
(:func:`recording`), :func:`timed` costs one context-variable read. Stages nest: a stage
timed inside another is reported under it, so a pass that runs several (say
``finalize-instrumentation``) shows each.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class StageTime:
    """One stage's wall and CPU seconds, and the stages timed inside it, in order."""

    name: str
    wall: float = 0.0
    cpu: float = 0.0
    children: list[StageTime] = field(default_factory=lambda: list[StageTime]())


class Timings:
    """The stages of one run, as a tree under a root that spans the whole run."""

    def __init__(self) -> None:
        self.root = StageTime("total")
        self.open: list[StageTime] = [self.root]

    def enter(self, name: str) -> StageTime:
        """The stage ``name`` under the innermost open one: the same entry each time it
        runs there (a stage run per code object or per function adds up)."""
        parent = self.open[-1]
        entry = next((child for child in parent.children if child.name == name), None)
        if entry is None:
            entry = StageTime(name)
            parent.children.append(entry)
        self.open.append(entry)
        return entry

    def leave(self, entry: StageTime) -> None:
        assert self.open[-1] is entry
        self.open.pop()

    def report(self) -> list[str]:
        """The stages as a table: wall and CPU seconds, each stage's share of the run's
        wall time, indented under the stage that ran it (what no stage covers is
        ``(other)``: parsing options, modules imported on first use, what runs between
        stages)."""
        total = self.root
        lines = ["luthier-opt: time per stage (CPU: this process and the workers it waited for)",
                 f"  {'stage':<34} {'wall s':>9} {'CPU s':>9} {'wall %':>7}"]

        def add(entry: StageTime, depth: int) -> None:
            share = 100 * entry.wall / total.wall if total.wall > 0 else 0.0
            label = "  " * depth + entry.name
            lines.append(f"  {label:<34} {entry.wall:>9.3f} {entry.cpu:>9.3f} {share:>6.1f}%")
            for child in entry.children:
                add(child, depth + 1)
            if entry.children and entry is not total:
                _other(entry, depth + 1)

        def _other(entry: StageTime, depth: int) -> None:
            wall = entry.wall - sum(child.wall for child in entry.children)
            cpu = entry.cpu - sum(child.cpu for child in entry.children)
            if wall >= 0.0005:
                share = 100 * wall / total.wall if total.wall > 0 else 0.0
                label = "  " * depth + "(other)"
                lines.append(f"  {label:<34} {wall:>9.3f} {cpu:>9.3f} {share:>6.1f}%")

        for child in total.children:
            add(child, 0)
        _other(total, 0)
        lines.append(f"  {'total':<34} {total.wall:>9.3f} {total.cpu:>9.3f} {100.0:>6.1f}%")
        return lines


_TIMINGS: ContextVar[Timings | None] = ContextVar("luthier_timings", default=None)


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (the worker processes
    a stage forks and waits for count in that stage)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Span:
    """A stage that does not fit a ``with`` block (a pass timed from one pipeline callback
    to the next): started by :func:`start_span`, ended by :meth:`stop`."""

    def __init__(self, timings: Timings, name: str) -> None:
        self.timings = timings
        self.entry = timings.enter(name)
        self.wall, self.cpu = time.perf_counter(), cpu_seconds()

    def stop(self) -> None:
        self.entry.wall += time.perf_counter() - self.wall
        self.entry.cpu += cpu_seconds() - self.cpu
        self.timings.leave(self.entry)


def start_span(name: str) -> Span | None:
    """Stage ``name``, timed until its :meth:`Span.stop`; None when nobody records."""
    timings = _TIMINGS.get()
    return None if timings is None else Span(timings, name)


@contextmanager
def timed(name: str) -> Generator[None]:
    """Time what runs inside as stage ``name``, if a recorder is installed."""
    timings = _TIMINGS.get()
    if timings is None or timings.open[-1].name == name:
        yield  # nobody records, or this is the stage just opened (a pass's own span)
        return
    entry = timings.enter(name)
    wall, cpu = time.perf_counter(), cpu_seconds()
    try:
        yield
    finally:
        entry.wall += time.perf_counter() - wall
        entry.cpu += cpu_seconds() - cpu
        timings.leave(entry)


def is_recording() -> bool:
    """Whether stages are being recorded (a worker process forked by a recording run
    records its own stages and sends them back: :func:`adopt`)."""
    return _TIMINGS.get() is not None


def adopt(stage: StageTime) -> None:
    """Report ``stage`` (another process's, finished: a worker's run and what it timed) under
    the innermost open stage, as it came; nothing when nobody records."""
    timings = _TIMINGS.get()
    if timings is not None:
        timings.open[-1].children.append(stage)


@contextmanager
def recording(timings: Timings | None, wall_start: float | None = None,
              cpu_start: float | None = None) -> Generator[None]:
    """Record the stages timed inside into ``timings`` (nothing when None); its root
    spans from ``wall_start``/``cpu_start`` (default: now) to the end."""
    if timings is None:
        yield
        return
    token = _TIMINGS.set(timings)
    wall = time.perf_counter() if wall_start is None else wall_start
    cpu = cpu_seconds() if cpu_start is None else cpu_start
    try:
        yield
    finally:
        timings.root.wall = time.perf_counter() - wall
        timings.root.cpu = cpu_seconds() - cpu
        _TIMINGS.reset(token)
