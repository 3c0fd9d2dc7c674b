"""The SVA end to end: kernarg_reader (launch sizes and a kernel argument, read through the
State Value Array the preamble fills) instrumented with the user's command, then run in the
emulator: the application computes the same, and the record holds the launch."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from luthier.emulator.api import run_kernel

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ROOT / "test" / "corpus" / "kernels"


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_kernarg_reader_records_the_launch(target: str, tmp_path: Path) -> None:
    original = KERNELS / f"control_flow.{target}.co"
    instrumented = tmp_path / "kernarg_reader.co"
    subprocess.run([sys.executable, "-m", "luthier.drivers.luthier_opt", "--lift",
                    "--inline-hooks", "--emit-preamble", str(original), "--hooks",
                    str(ROOT / "examples" / "hooks" / "kernarg_reader.mlir"), "--no-progress",
                    "-o", str(instrumented)], check=True)
    inputs = np.random.default_rng(3).standard_normal(256).astype(np.float32)
    arguments = [inputs, np.zeros(256, np.float32), 7]
    before = run_kernel(str(original), "counted_loop", 2, 128, list(arguments))
    after = run_kernel(str(instrumented), "counted_loop", (2, 1, 1), (128, 1, 1),
                       list(arguments))
    assert before.buffers[1] is not None and after.buffers[1] is not None
    np.testing.assert_array_equal(after.buffers[1], before.buffers[1])
    grid_x, grid_y, grid_z, block_x, block_y, block_z, first_argument = struct.unpack(
        "<6IQ", after.globals["kernarg_record"])
    assert (grid_x, grid_y, grid_z, block_x, block_y, block_z) == (2, 1, 1, 128, 1, 1)
    assert after.memory is not None
    buffer = after.memory.find(first_argument)
    assert buffer is not None and buffer.base == first_argument  # the first buffer's address
    assert np.frombuffer(bytes(buffer.data[:16]), np.float32).tolist() == \
        inputs[:4].tolist()
