"""The relaxation benchmark (``bench/bench_relaxation.py``) and its kernels.

Two checks:

* the committed branchy kernels are what the benchmark needs: no computed long jump
  (``s_setpc_b64``, which insert-hooks refuses, as clang-19 emits for a branch past the SOPP
  reach), every original branch within that reach, and the 40k kernel has its thousands of
  branches spread over the whole kernel, so that instrumenting it pushes branches out of
  reach all along it;
* the benchmark runs end to end on the two smallest kernels: relaxation gives them islands,
  emission (which refuses a branch that does not reach its target) succeeds, and the growth
  exponents are printed. It is a measurement script, so no speed is asserted.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "bench_relaxation.py"
KERNELS = ROOT / "test" / "corpus" / "bench"
OBJDUMP = "llvm-objdump-19"
#: Bytes a SOPP branch reaches forward (a signed 16-bit count of dwords after the branch).
SOPP_REACH = 4 * 32767
#: ``s_cbranch_scc1 24874  // 000000001974: BF85612A <branchy+0x18520>``
BRANCH = re.compile(r"\s(s_c?branch\w*)\s+(-?\d+)\s+// ([0-9A-F]+):")


def _branches(path: Path) -> tuple[list[tuple[int, int]], str]:
    """Each branch's address and signed byte distance from its end to its target, and the
    disassembly."""
    text = subprocess.run([OBJDUMP, "-d", "--mcpu=gfx90a", str(path)], check=True,
                          capture_output=True, text=True).stdout
    branches: list[tuple[int, int]] = []
    for match in BRANCH.finditer(text):
        dwords = int(match.group(2))
        dwords -= 65536 if dwords > 32767 else 0
        branches.append((int(match.group(3), 16), 4 * dwords))
    return branches, text


@pytest.mark.skipif(shutil.which(OBJDUMP) is None, reason=f"{OBJDUMP} is not installed")
@pytest.mark.parametrize("size", ["5k", "10k", "20k", "40k"])
def test_branchy_kernel_has_no_long_jump_and_branches_within_reach(size: str) -> None:
    path = KERNELS / f"branchy.{size}.gfx90a.co"
    branches, text = _branches(path)
    assert "s_setpc_b64" not in text and "s_getpc_b64" not in text
    assert all(-SOPP_REACH - 4 <= distance <= SOPP_REACH for _, distance in branches)
    instructions = int(size[:-1]) * 1000
    assert len(branches) >= instructions // 4


@pytest.mark.skipif(shutil.which(OBJDUMP) is None, reason=f"{OBJDUMP} is not installed")
def test_forty_thousand_kernel_has_branches_over_its_whole_length() -> None:
    """Each eighth of the 40k kernel's text holds over a thousand branches, and some span most
    of the SOPP reach: instrumented ~20x, branches all along it fall out of reach."""
    branches, _ = _branches(KERNELS / "branchy.40k.gfx90a.co")
    assert len(branches) >= 1000
    start = min(address for address, _ in branches)
    length = max(address for address, _ in branches) - start
    assert length > SOPP_REACH
    eighths = [0] * 8
    for address, _ in branches:
        eighths[min(7, (address - start) * 8 // length)] += 1
    assert min(eighths) >= 1000, eighths
    assert max(abs(distance) for _, distance in branches) > SOPP_REACH // 2


def test_benchmark_runs_on_the_two_smallest_kernels() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--sizes", "5k,10k"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {line.split()[0]: line.split() for line in run.stdout.splitlines()
            if line.startswith("branchy.")}
    assert set(rows) == {"branchy.5k.gfx90a.co", "branchy.10k.gfx90a.co"}, run.stdout
    for name, row in rows.items():
        instructions, branches, spliced, islands = (int(cell) for cell in row[1:5])
        assert branches > 100 and spliced > 10 * instructions, (name, row)
        assert islands > 0, f"{name}: instrumented, it should need branch islands"
    assert re.search(r"10k: .* exponent -?\d+\.\d\d", run.stdout), run.stdout
    assert re.search(r"overall exponent 5k -> 10k: -?\d+\.\d\d", run.stdout), run.stdout
