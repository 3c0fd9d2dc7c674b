"""The instrumentation benchmark (``bench/bench_growth.py``) runs on the bundled
sample and prints one row per kernel whose "before" figures are the input's own (symbol
size and metadata, read here independently) and whose "after" figures are those of the code
object the pipeline emits: bigger code, never fewer registers, no spills."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from luthier.frontend.codeobj import read_code_object

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "bench_growth.py"
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"


def _pair(text: str) -> tuple[int, int]:
    before, _, after = text.partition("->")
    return int(before), int(after or before)


def test_bench_prints_sizes_registers_and_time_per_kernel() -> None:
    result = subprocess.run([sys.executable, str(BENCH), "--input", str(SAMPLE)],
                            capture_output=True, text=True, check=True)
    rows = [line.split() for line in result.stdout.splitlines()
            if line.startswith("vector_add.gfx90a ")]
    assert len(rows) == 1, result.stdout
    _, kernel, size, growth, sgpr, vgpr, agpr, scratch, spills = rows[0]
    source = read_code_object(SAMPLE).kernel(kernel)
    assert source.metadata is not None
    code = _pair(size)
    assert code[0] == source.function.size and code[1] > code[0]
    assert abs(float(growth.rstrip("x")) - code[1] / code[0]) < 0.06
    sgprs, vgprs = _pair(sgpr), _pair(vgpr)
    assert (sgprs[0], vgprs[0], _pair(agpr)[0]) == (
        source.metadata.sgpr_count, source.metadata.vgpr_count, source.metadata.agpr_count)
    assert sgprs[1] >= sgprs[0] and vgprs[1] >= vgprs[0]
    assert _pair(scratch) == (0, 0) and spills == "0+0"
    assert re.search(r"vector_add\.gfx90a\.co +\d+\.\d\d +\d+->\d+", result.stdout)
    assert re.search(r"total: kernel code \d+ -> \d+ bytes \([\d.]+x\), [\d.]+ s wall",
                     result.stdout)
