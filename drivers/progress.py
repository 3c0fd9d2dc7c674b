"""Progress bars on stderr (tqdm) for ``luthier-opt``'s long stages.

The stages announce themselves through ``luthier.lowering.progress``; this module is the
reporter that turns each into a tqdm bar with its count, rate and time left. Bars appear
only on a terminal, only for a stage still running after :data:`DELAY_SECONDS` (short work
stays quiet), and vanish when their stage ends, so logs, pipes and lit tests never see them;
``--no-progress`` turns them off on a terminal too.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from luthier.lowering.progress import Stage, reporting, stage

if TYPE_CHECKING:
    from tqdm import tqdm

#: Seconds a stage runs before its bar appears.
DELAY_SECONDS = 0.5
#: Seconds between redraws of a bar.
REDRAW_SECONDS = 0.1


class _Bar:
    """A stage shown as a tqdm bar."""

    def __init__(self, bar: tqdm[Any], owner: TqdmReporter) -> None:
        self.bar = bar
        self.owner = owner

    def advance(self, n: int = 1) -> None:
        self.bar.update(n)

    def close(self) -> None:
        self.bar.close()
        self.owner.bars.remove(self)


class TqdmReporter:
    """Opens a tqdm bar per stage on ``stream``; :meth:`close_all` clears what a failed run
    left open."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.bars: list[_Bar] = []

    def stage(self, name: str, total: int, unit: str) -> Stage:
        # Imported when a bar is drawn: runs without a terminal (pipes, tests, benchmarks)
        # need not load it (6 ms of a 0.3 s start).
        from tqdm import tqdm

        # Counts of things stay whole numbers; bytes (the lift) read best as kB, MB.
        bar = _Bar(tqdm(total=total, desc=name, unit=unit, unit_scale=unit == "B",
                        file=self.stream, leave=False, delay=DELAY_SECONDS,
                        mininterval=REDRAW_SECONDS, dynamic_ncols=True), self)
        self.bars.append(bar)
        return bar

    def close_all(self) -> None:
        for bar in reversed(self.bars[:]):
            bar.close()


@contextmanager
def showing_progress(enabled: bool, stream: TextIO) -> Generator[None]:
    """Show the stages that run inside the ``with`` as bars on ``stream``, if ``enabled``
    and ``stream`` is a terminal."""
    if not enabled or not stream.isatty():
        with reporting(None):
            yield
        return
    reporter = TqdmReporter(stream)
    try:
        with reporting(reporter):
            yield
    finally:
        reporter.close_all()


class LiftProgress:
    """The lift's ``(done, total)`` callback as a stage, opened at the first call (when the
    total is known)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.running: Stage | None = None
        self.done = 0

    def update(self, done: int, total: int) -> None:
        if self.running is None:
            self.running = stage(self.name, total, "B")
        self.running.advance(done - self.done)
        self.done = done

    def close(self) -> None:
        if self.running is not None:
            self.running.close()
