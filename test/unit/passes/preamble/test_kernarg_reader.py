"""The SVA end to end: kernarg_reader (launch sizes and a kernel argument, read through the
State Value Array the preamble fills) instrumented with the user's command, then run in the
emulator: the application computes the same, and the record holds the launch, for 1-D and
3-D launches, of kernels with the hidden launch-size arguments and without."""

from __future__ import annotations

import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from luthier.emulator import KernelArgument
from luthier.emulator.api import run_kernel

ROOT = Path(__file__).resolve().parents[4]
#: The ``luthier_opt`` fixture (test/unit/conftest.py): a run of the command.
LuthierOpt = Callable[..., subprocess.CompletedProcess[str]]
KERNELS = ROOT / "test" / "corpus" / "kernels"


def _instrument(original: Path, folder: Path, luthier_opt: LuthierOpt) -> Path:
    """The user's command with kernarg_reader; returns the output."""
    instrumented = folder / "kernarg_reader.co"
    done = luthier_opt(["--lift", "--inline-hooks", "--emit-preamble", original, "--hooks",
                        ROOT / "examples" / "hooks" / "kernarg_reader.mlir", "--no-progress",
                        "-o", instrumented])
    assert done.returncode == 0, done.stderr
    return instrumented


@pytest.mark.parametrize("target", ["gfx908", "gfx90a", "gfx942"])
def test_kernarg_reader_records_the_launch(target: str, tmp_path: Path,
                                           luthier_opt: LuthierOpt) -> None:
    original = KERNELS / f"control_flow.{target}.co"
    instrumented = _instrument(original, tmp_path, luthier_opt)
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


def _mfma_arguments() -> list[KernelArgument]:
    return [np.ones(64 * 30, np.float32), np.ones(64 * 30, np.float32),
            np.zeros(256 * 30, np.float32)]


def _vector_add_arguments() -> list[KernelArgument]:
    return [np.ones(64, np.float32), np.ones(64, np.float32), np.zeros(64, np.float32), 64]


@pytest.mark.parametrize(("target", "object_name", "kernel", "arguments"), [
    # no hidden launch-size arguments in its metadata
    ("gfx908", "mfma", "mfma_f32_16x16x4f32", _mfma_arguments),
    ("gfx90a", "mfma", "mfma_f32_16x16x4f32", _mfma_arguments),
    ("gfx942", "mfma", "mfma_f32_16x16x4f32", _mfma_arguments),
    # hidden launch-size arguments present (the preamble reads the packet all the same)
    ("gfx908", "elementwise", "vector_add", _vector_add_arguments),
    ("gfx90a", "elementwise", "vector_add", _vector_add_arguments),
    ("gfx942", "elementwise", "vector_add", _vector_add_arguments),
])
def test_kernarg_reader_reads_3d_launch_sizes(
        target: str, object_name: str, kernel: str,
        arguments: Callable[[], list[KernelArgument]], tmp_path: Path,
        luthier_opt: LuthierOpt) -> None:
    instrumented = _instrument(KERNELS / f"{object_name}.{target}.co", tmp_path,
                               luthier_opt)
    grid, block = (3, 2, 5), (16, 2, 2)
    result = run_kernel(str(instrumented), kernel, grid, block, arguments())
    record = struct.unpack("<6IQ", result.globals["kernarg_record"])
    assert record[:6] == (*grid, *block)
