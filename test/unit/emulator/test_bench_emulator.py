"""The emulator benchmark (``bench/bench_emulator.py``) runs and prints its figures.

A measurement script: only that it works is asserted, never a speed or a PASS.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "bench" / "bench_emulator.py"


def test_speed_figures(tmp_path: Path) -> None:
    report = tmp_path / "speed.json"
    run = subprocess.run([sys.executable, str(BENCH), "--kernel", "vector_add", "--runs", "1",
                          "--json", str(report)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    for figure in ("64 waves of 64 lanes", "executed instructions:", "instructions/s",
                   "lane-operations (slots", "lane-operations (active",
                   "target 1,000,000 lane-operations/s"):
        assert figure in run.stdout, f"{figure!r} missing from:\n{run.stdout}"
    result = json.loads(report.read_text())["result"]
    assert result["waves"] == 64 and result["instructions"] > 64


def test_coverage_figures() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--coverage", "--list"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "static instructions covered:" in run.stdout
    assert "  v_add_f32_e32 " in run.stdout
