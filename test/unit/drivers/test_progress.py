"""Progress on stderr: every long stage of ``luthier-opt`` shows a tqdm bar with its count
on a terminal, and nothing appears with ``--no-progress`` or when stderr is not a terminal.

The bars are forced to appear at once (``DELAY_SECONDS = 0``, each update drawn) so that
the small sample object, done in well under the usual delay, shows every stage.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from luthier.drivers import progress
from luthier.drivers.luthier_opt import main
from luthier.lowering.progress import over, reporting, stage

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"
HOOKS = ROOT / "examples" / "hooks" / "instr_count.mlir"
#: The stages instrumenting the sample must show (hook templates: the per-hook stages run
#: over each distinct hook shape, ``lower-hooks`` over the functions' points).
STAGES = ("lift vector_add.gfx90a.co", "inline-hooks", "select-instructions",
          "virtualize-phys-regs", "liveness", "lower-hooks", "verify-payloads",
          "finalize-instrumentation", "splice-payloads", "relax-branches", "emit")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _instrument(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr: io.StringIO,
                *extra: str) -> str:
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    monkeypatch.setattr(progress, "REDRAW_SECONDS", 0.0)
    monkeypatch.setattr(sys, "stderr", stderr)
    out = tmp_path / "out.co"
    status = main(["--lift", "--inline-hooks", "--emit-preamble", str(SAMPLE), "--hooks",
                   str(HOOKS), "-o", str(out), *extra])
    assert status == 0, stderr.getvalue()
    assert out.stat().st_size > 0
    return stderr.getvalue()


def test_every_stage_shows_its_count_on_a_terminal(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _instrument(tmp_path, monkeypatch, FakeTerminal())
    for name in STAGES:
        finished = re.search(re.escape(name) + r": 100%\|[^|]*\| (\d+)/(\d+) ", shown)
        assert finished is not None, f"{name} never showed its last count:\n{shown}"
        assert finished[1] == finished[2] and int(finished[1]) > 0
    assert re.search(r"\d+(\.\d+)?\w*payload/s\]", shown), "no rate per payload"
    assert re.search(r"<\d\d:\d\d", shown), "no time left"


def test_no_progress_shows_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _instrument(tmp_path, monkeypatch, FakeTerminal(), "--no-progress") == ""


def test_nothing_is_shown_when_stderr_is_not_a_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _instrument(tmp_path, monkeypatch, io.StringIO()) == ""


def test_nobody_listening_costs_nothing_per_item() -> None:
    items = [1, 2, 3]
    assert over("anything", items) is items
    stage("anything", 3).advance()  # the shared silent stage: accepts and forgets


def test_a_stage_closes_when_its_loop_is_left_early() -> None:
    events: list[str] = []

    class Recorder:
        def stage(self, name: str, total: int, unit: str) -> Recorder:
            events.append(f"open {name} {total} {unit}")
            return self

        def advance(self, n: int = 1) -> None:
            events.append(f"advance {n}")

        def close(self) -> None:
            events.append("close")

    with reporting(Recorder()):
        for item in over("loop", ["a", "b", "c"], "letter"):
            if item == "b":
                break
    assert events == ["open loop 3 letter", "advance 1", "close"]
