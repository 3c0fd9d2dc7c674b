"""The payload-quality benchmark (``bench/bench_payload_quality.py``) runs on one object and
prints its table; the counts it prints are checked against the IR, not against figures.

Per point, the instruction counter's body is what selection gives before any save; the
pipeline's payload may only differ from it by SCC/VCC/M0 saves and removed copies, and the
naive save-everything figure is never below ours (it saves what ours saves, and more).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "bench_payload_quality.py"
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"


def test_bench_prints_body_ours_and_naive_per_target() -> None:
    result = subprocess.run([sys.executable, str(BENCH), "--input", str(SAMPLE)],
                            capture_output=True, text=True, check=True)
    rows = [line.split() for line in result.stdout.splitlines()
            if line.startswith("gfx90a count_instruction")]
    assert len(rows) == 1, result.stdout
    points, body, ours, naive = (float(value) for value in rows[0][2:6])
    assert points == 29  # llvm-objdump-19 -d: vector_add has 29 up to its s_endpgm
    assert ours <= body + 2 and naive > ours
    assert re.search(r"\d+ code objects, [\d.]+ s CPU", result.stdout)
