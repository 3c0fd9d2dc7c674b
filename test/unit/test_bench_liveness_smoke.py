"""The liveness benchmark (``bench/bench_liveness.py``) runs, and its generated kernel is
what it claims to be.

The benchmark is a measurement script: only that it works and prints its figures is
asserted, never a speed. The kernel generator (``bench/liveness_kernel.py``) is checked on a
small instance: clang-19 compiles it to one kernel whose liveness has divergent regions
(values live in switched-off lanes) and uniform branches, and the instruction count grows
with the number of blocks asked for.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.analysis.liveness import Liveness, instructions

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "bench_liveness.py"
GENERATOR = ROOT / "bench" / "liveness_kernel.py"
SAMPLE = ROOT / "test" / "corpus" / "kernels" / "calls.gfx90a.co"


def build(blocks: int) -> Path:
    """The generated kernel's code object, as a user of the generator gets it."""
    run = subprocess.run([sys.executable, str(GENERATOR), "--blocks", str(blocks)],
                         capture_output=True, text=True, timeout=300, check=True)
    return Path(run.stdout.strip())


def test_liveness_benchmark_runs_on_a_small_input(tmp_path: Path) -> None:
    report = tmp_path / "liveness.json"
    run = subprocess.run([sys.executable, str(BENCH), "--runs", "1", "--input", str(SAMPLE),
                          "--json", str(report)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    for figure in ("liveness cold", "warm", "live_before at every instruction",
                   "FreeRegisters on top"):
        assert figure in run.stdout, f"{figure!r} missing from:\n{run.stdout}"
    (result,) = json.loads(report.read_text())
    assert result["instructions"] > 100 and result["functions"] > 5
    assert result["cold_cpu"] > 0


@pytest.mark.skipif(shutil.which("clang-19") is None, reason="clang-19 is not installed")
def test_the_generated_kernel_has_divergent_and_uniform_control_flow() -> None:
    path = build(blocks=40)
    assert (path.parent / "liveness_kernel.40.hip").read_text().count("if (") == 40 + 14
    code_object = lift_code_object(read_code_object(path)).module
    assert isinstance(code_object, CodeObjectOp)
    liveness = Liveness(code_object)
    assert list(liveness.functions) == ["liveness_kernel"]
    function = liveness.function("liveness_kernel")
    ops = list(instructions(function.function))
    mnemonics = {op.mnemonic for op in ops}
    assert "s_and_saveexec_b64" in mnemonics
    assert any(mnemonic.startswith("s_cbranch_scc") for mnemonic in mnemonics)
    assert any(liveness.inactive_before(op) for op in ops), "no value live in an off lane"
    assert len(function.blocks) > 40
    smaller = lift_code_object(read_code_object(build(blocks=10))).module
    assert isinstance(smaller, CodeObjectOp)
    assert len(ops) > 2 * len(list(instructions(Liveness(smaller).function(
        "liveness_kernel").function)))
