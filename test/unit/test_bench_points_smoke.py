"""``bench/bench_points.py`` runs on a small input and reports every stage, the template
statistics and the objdump ratio (a measurement script: only that it works is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1].parent


def test_bench_points_reports_stages_and_templates() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_points.py"), "--input",
         str(ROOT / "test" / "corpus" / "kernels" / "lds.gfx90a.co"), "--hook", "instr_count"],
        capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert lines[1].startswith("instr_count: ") and "points/s" in lines[1]
    for stage in ("lift", "lower-hooks", "splice", "relax", "emit"):
        assert f" {stage} " in lines[2]
    assert lines[3].strip().startswith("templates: 1 shapes")
    assert "llvm-objdump-19 -d" in lines[4] and lines[4].rstrip().endswith("x")
