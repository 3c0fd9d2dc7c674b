"""bench/bench_import.py runs and prints its figures (the figures themselves are not
asserted: timings belong to the benchmark, not to tests on shared machines)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_import_prints_its_figures() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_import.py"),
                             "--runs", "1"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    for label in ("import the amdgpu_mc dialect", "build the dialect", "target import < 500 ms"):
        assert label in result.stdout
