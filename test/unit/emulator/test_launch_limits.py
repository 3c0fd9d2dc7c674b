"""Bounded memory and time of a launch (issue 22): the launch's instruction budget stops a
run in one line, ``luthier-run`` shows its workgroups as a progress line when asked, and
the memory of a launch does not grow with its grid (a finished wave leaves its count)."""

from __future__ import annotations

import argparse
import gc
import io
import json
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from luthier.emulator import cli
from luthier.emulator.api import MAX_INSTRUCTIONS, MAX_LAUNCH_INSTRUCTIONS, run_kernel
from luthier.emulator.cli import ProgressLine, main, progress_reporter
from luthier.emulator.errors import EmulationError
from luthier.emulator.state import Wave

from .common import CORPUS, program

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "bench" / "bench_emulator_memory.py"
ELEMENTWISE = str(CORPUS / "elementwise.gfx90a.co")
#: vector_add over 4 workgroups of 256: 16 waves of 29 instructions, 464 in all.
VECTOR_ADD = [ELEMENTWISE, "--kernel", "vector_add", "--grid", "4", "--block", "256",
              "--arg", "iota:1024xf32", "--arg", "iota:1024xf32", "--arg", "zeros:1024xf32",
              "--arg", "1000"]
LAUNCH_INSTRUCTIONS = 464


def _vector_add(grid: int, max_instructions: int = MAX_INSTRUCTIONS,
                max_launch_instructions: int = MAX_LAUNCH_INSTRUCTIONS) -> list[int]:
    """The per-wave counts of vector_add over ``grid`` workgroups of 256 on 1024 elements
    (workgroups past the fourth only find their work-items out of range)."""
    a = np.arange(1024, dtype=np.float32)
    result = run_kernel(program("elementwise", "gfx90a"), "vector_add", grid, 256,
                        [a, a, np.zeros(1024, np.float32), 1000],
                        max_instructions=max_instructions,
                        max_launch_instructions=max_launch_instructions)
    return result.wave_instructions


def test_the_budget_is_the_launchs_instructions_exactly() -> None:
    """A budget of exactly what the launch executes is enough; one fewer stops it, in one
    line that names the kernel, the budget, where it stopped and how to raise it."""
    assert sum(_vector_add(4, max_launch_instructions=LAUNCH_INSTRUCTIONS)) == \
        LAUNCH_INSTRUCTIONS
    with pytest.raises(EmulationError) as stopped:
        _vector_add(4, max_launch_instructions=LAUNCH_INSTRUCTIONS - 1)
    assert str(stopped.value) == (
        "kernel vector_add reached the launch's budget of 463 instructions "
        "(max_launch_instructions; luthier-run --max-launch-instructions N raises it): "
        "stopped in workgroup (3, 0, 0), wave 15, at 's_endpgm' in vector_add at offset "
        "0x94, with 3 of 4 workgroups done")


def test_the_budget_stops_a_launch_part_way() -> None:
    with pytest.raises(EmulationError, match=r"budget of 100 instructions .*: stopped in "
                       r"workgroup \(0, 0, 0\), wave 3, at '\w+' in vector_add at offset "
                       r"0x[0-9a-f]+, with 0 of 4 workgroups done$"):
        _vector_add(4, max_launch_instructions=100)


def test_the_per_wave_limit_still_stops_a_wave_first() -> None:
    with pytest.raises(EmulationError, match=r"^wave 0 ran more than the limit of "
                       r"instructions; stopped at "):
        _vector_add(4, max_instructions=10, max_launch_instructions=100)


def test_a_budget_below_one_is_refused() -> None:
    with pytest.raises(EmulationError, match=r"^a launch budget of 0 instructions: give at "
                       r"least 1$"):
        _vector_add(1, max_launch_instructions=0)
    assert MAX_LAUNCH_INSTRUCTIONS >= 10**9


def test_luthier_run_stops_at_the_budget_in_one_line() -> None:
    """The console script: exit status 1, one line on stderr, no traceback, nothing on
    stdout (no summary of a launch that did not finish)."""
    script = shutil.which("luthier-run")
    command = [script] if script is not None else [sys.executable, "-m",
                                                   "luthier.emulator.cli"]
    run = subprocess.run([*command, *VECTOR_ADD, "--max-launch-instructions", "100"],
                         capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 1
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("luthier-run: error: kernel vector_add reached the launch's "
                               "budget of 100 instructions")
    assert lines[0].endswith("with 0 of 4 workgroups done")


def test_progress_line_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    """``--progress`` shows the workgroups done / total on stderr even off a terminal and
    leaves its last state; stdout holds only the summary."""
    assert main([*VECTOR_ADD, "--progress"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("vector_add: 16 waves of 64 lanes, 464 instructions")
    last = captured.err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("run vector_add: 100%") and " 4/4 " in last, captured.err


def test_no_progress_line_off_a_terminal_or_when_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(VECTOR_ADD) == 0
    assert capsys.readouterr().err == ""
    assert main([*VECTOR_ADD, "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main([*VECTOR_ADD, "--progress", "--no-progress"]) == 1
    assert "not allowed with argument" in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_shows_progress_unless_refused() -> None:
    def reporter(progress: bool, no_progress: bool, stream: io.StringIO) -> object:
        options = argparse.Namespace(progress=progress, no_progress=no_progress)
        return progress_reporter(options, stream)

    assert isinstance(reporter(False, False, _Terminal()), ProgressLine)
    assert reporter(False, True, _Terminal()) is None
    assert reporter(False, False, io.StringIO()) is None
    assert isinstance(reporter(True, False, io.StringIO()), ProgressLine)


def test_a_short_launch_shows_nothing_on_a_terminal() -> None:
    terminal = _Terminal()
    line = ProgressLine(terminal, always=False).stage("run vector_add", 4, "workgroup")
    line.advance(4)
    line.close()
    assert terminal.getvalue() == ""


def test_a_terminal_line_is_redrawn_a_few_times_a_second_then_cleared(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A launch of half a second or so, its line shown from the start: redrawn in place at
    most four times a second (the first and last draws aside), and blank at the end (the
    summary on stdout is what stays)."""
    monkeypatch.setattr(cli, "PROGRESS_DELAY_SECONDS", 0)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    started = time.monotonic()
    assert main([ELEMENTWISE, "--kernel", "vector_add", "--grid", "512", "--block", "256",
                 "--arg", "zeros:1024xf32", "--arg", "zeros:1024xf32", "--arg",
                 "zeros:1024xf32", "--arg", "1000"]) == 0
    elapsed = time.monotonic() - started
    assert capsys.readouterr().out.startswith("vector_add: 2048 waves of 64 lanes")
    drawn = terminal.getvalue().split("\r")
    lines = [text for text in drawn if text.strip()]
    assert lines and all(text.startswith("run vector_add:") for text in lines)
    assert len(lines) <= 3 + elapsed * 1 / cli.REDRAW_SECONDS, (elapsed, lines)
    assert drawn[-1] == "" and drawn[-2].strip() == ""


def _traced_peak(grid: int) -> int:
    tracemalloc.start()
    try:
        _vector_add(grid)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_grid() -> None:
    """The traced peak of 1024 workgroups (4096 waves) is that of 64 plus their counts
    (8 bytes per wave in the dispatch's array, 8 in the result's list: about 64 kB more).
    Before waves were reduced to their counts, each finished wave kept about 1.1 kB
    (4.5 MB more here); the allowance, 1 MB, is some fifteen times what the counts need."""
    _vector_add(4)  # caches (EXEC masks, NumPy's) filled before anything is measured
    small, big = _traced_peak(64), _traced_peak(1024)
    assert big - small < 1_000_000, (small, big)


def test_finished_waves_are_freed_without_the_collector() -> None:
    """No wave outlives its workgroup waiting for a garbage collection (a cycle between a
    wave and its workgroup would keep them until one runs)."""
    def waves() -> int:
        return sum(1 for thing in gc.get_objects() if isinstance(thing, Wave))

    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = waves()
        assert len(_vector_add(16)) == 64
        assert waves() == before
    finally:
        if enabled:
            gc.enable()


def test_bench_smoke(tmp_path: Path) -> None:
    """The memory benchmark runs small and prints its figures (never asserted)."""
    report = tmp_path / "memory.json"
    run = subprocess.run([sys.executable, str(BENCH), "--grid", "8", "--small-grid", "2",
                          "--json", str(report)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    for figure in ("      2 x 256 ", "      8 x 256 ", "peak RSS", "growth during the run",
                   "run rate:", "target: peak RSS of the 8 x 256 launch under 1024 MB: "):
        assert figure in run.stdout, f"{figure!r} missing from:\n{run.stdout}"
    launches = json.loads(report.read_text())["result"]
    assert [launch["waves"] for launch in launches] == [8, 32]
    assert all(launch["peak_mb"] > 0 and launch["instructions"] > 0 for launch in launches)
