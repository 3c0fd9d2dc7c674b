"""A progress bar on stderr for long work (lifting big code objects).

Shown only when stderr is a terminal and the work is big enough to be worth it, so logs,
pipes and lit tests never see it.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 30
#: Seconds before a bar appears: short work stays quiet.
_DELAY = 0.5


class ProgressBar:
    def __init__(self, label: str, *, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.enabled = enabled and self.stream.isatty()
        self.started = time.monotonic()
        self.shown = False

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0 or time.monotonic() - self.started < _DELAY:
            return
        filled = _WIDTH * done // total
        bar = "#" * filled + "." * (_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {100 * done // total:3d}%")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (len(self.label) + _WIDTH + 8) + "\r")
            self.stream.flush()
            self.shown = False
