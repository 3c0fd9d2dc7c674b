"""The lift benchmark (``bench/bench_lift.py``) runs end to end on a small code object.

It is a measurement script, so only that it works and prints its figures is asserted, never a
speed or a PASS.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

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


def test_the_large_set_is_read_from_its_manifest(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(BENCH.parent))
    try:
        bench_lift: Any = importlib.import_module("bench_lift")
    finally:
        sys.path.remove(str(BENCH.parent))
    monkeypatch.setattr(bench_lift, "THIRDPARTY_LARGE", tmp_path)
    assert bench_lift.large_set() == [] and bench_lift.large_scaling_inputs() == []
    header = ("file bytes target cov kernels functions instructions bad_words\n"
              "# a comment line\n")
    rows = [("a.xnack-.1.gfx90a.co", "gfx90a:xnack-", 900),
            ("a.xnack+.1.gfx90a.co", "gfx90a:xnack+", 950),  # another target: left out
            ("a.xnack-.2.gfx908.co", "gfx908:xnack-", 2_900),
            ("a.xnack-.3.gfx90a.co", "gfx90a:xnack-", 40_000),
            ("a.xnack-.4.gfx90a.co", "gfx90a:xnack-", 520_000)]
    (tmp_path / "MANIFEST.txt").write_text(header + "".join(
        f"codeobjects/p/{name} 100 {target} v4 1 0 {count} 0\n"
        for name, target, count in rows))
    found = bench_lift.large_set()
    assert [(count, path.name) for count, path in found] == [
        (900, "a.xnack-.1.gfx90a.co"), (40_000, "a.xnack-.3.gfx90a.co"),
        (520_000, "a.xnack-.4.gfx90a.co")]
    assert bench_lift.largest_of_large_set() == tmp_path / "codeobjects/p/a.xnack-.4.gfx90a.co"
    # The nearest object to each size (by ratio), each once.
    assert [path.name for path in bench_lift.large_scaling_inputs()] == [
        "a.xnack-.1.gfx90a.co", "a.xnack-.3.gfx90a.co", "a.xnack-.4.gfx90a.co"]
