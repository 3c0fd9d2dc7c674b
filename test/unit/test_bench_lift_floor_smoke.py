"""bench/bench_lift_floor.py runs and prints its figures (not asserted: timings belong to
the benchmark, not to tests on shared machines)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_lift_floor_prints_its_figures() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_lift_floor.py"),
                             "--runs", "1", "--input",
                             str(ROOT / "examples" / "sample" / "vector_add.gfx90a.co")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    for label in ("python start-up", "decode", "floor (sum)", "floor / objdump"):
        assert label in result.stdout
