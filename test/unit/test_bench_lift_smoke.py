"""The lift benchmark (``bench/bench_lift.py``) runs end to end on a small code object.

It is a measurement script, so only that it works and prints its figures is asserted, never a
speed or a PASS.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "bench_lift.py"
SAMPLE = ROOT / "test" / "corpus" / "kernels" / "elementwise.gfx90a.co"
OBJDUMP = "llvm-objdump-19"


def test_lift_benchmark_runs_on_a_small_input(tmp_path: Path) -> None:
    report = tmp_path / "lift.json"
    command = [sys.executable, str(BENCH), "--runs", "1", "--profile", "--top", "5",
               "--input", str(SAMPLE), "--json", str(report)]
    if shutil.which(OBJDUMP) is None:
        command.append("--no-objdump")
    run = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    for figure in ("read cold", "read warm", "lift cold", "lift warm", "emit warm",
                   "lift rate (warm, cpu):", "peak memory (tracemalloc", "RSS growth",
                   "llvm-objdump:", "target lift rate", "target peak memory",
                   "where the time goes"):
        assert figure in out, f"{figure!r} missing from:\n{out}"
    assert "emit: byte-identical to the input" in out
    if shutil.which(OBJDUMP) is not None:
        assert "ratio ours/llvm-objdump" in out
    result = json.loads(report.read_text())["result"]
    assert result["instructions"] > 10
    assert result["tracemalloc_peak_bytes"] > 0
