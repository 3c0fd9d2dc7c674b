"""``bench/bench_instrumentation.py`` and ``bench/bench_templates.py`` run on a small input and
report what they promise: every stage, the template statistics, the objdump ratio, and that the
templates give the passes' IR (measurement scripts: no speed is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1].parent


def test_bench_instrumentation_reports_stages_and_templates() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_instrumentation.py"), "--input",
         str(ROOT / "test" / "corpus" / "kernels" / "lds.gfx90a.co"), "--hook", "instr_count"],
        capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert lines[1].startswith("instr_count: ") and "points/s" in lines[1]
    for stage in ("lift", "lower-hooks", "splice", "relax", "emit"):
        assert f" {stage} " in lines[2]
    assert lines[3].strip().startswith("templates: 1 shapes")
    assert "llvm-objdump-19 -d" in lines[4] and lines[4].rstrip().endswith("x")


def test_bench_instrumentation_split_times_both_job_counts() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_instrumentation.py"), "--input",
         str(ROOT / "test" / "corpus" / "kernels" / "lds.gfx90a.co"), "--hook", "instr_count",
         "--split"], capture_output=True, text=True, check=True)
    line, ceiling = result.stdout.splitlines()[-2:]
    assert line.startswith("luthier-opt instr_count on one object")
    assert "--jobs 1" in line and "--jobs 2" in line and "speed-up" in line
    assert line.endswith("(same bytes)")
    assert ceiling.strip().startswith("two CPU-bound Python processes on this machine")
    assert "the throughput of one" in ceiling


def test_bench_templates_reports_both_ways_and_the_same_ir() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_templates.py"), "--input",
         str(ROOT / "test" / "corpus" / "kernels" / "lds.gfx90a.co"), "--hook", "instr_count"],
        capture_output=True, text=True, check=True)
    line = result.stdout.splitlines()[1]
    assert line.startswith("instr_count: ") and "1 shapes" in line
    assert "passes one by one" in line and line.endswith("same IR")
