"""Kernels with preloaded kernel arguments (gfx942): the firmware enters them 256 bytes in,
past a fallback entry (``s_trap 2`` and padding) that must stay exactly as it was.

The user's command instruments ``elementwise.gfx942.preload.co`` with the instruction
counter and with kernarg_reader (whose preamble adds the dispatch pointer, shifting the
preloaded argument SGPRs, which it moves back). In the output each kernel's first 256
bytes are the original's, byte for byte; the emulator, which enters such kernels at byte
256 as the firmware does, computes the same, the counters equal the traced original run's,
and the launch record is right.
"""

from __future__ import annotations

import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from luthier.emulator import KernelArgument
from luthier.emulator.api import run_kernel
from luthier.frontend.codeobj import read_code_object
from luthier.passes.analysis.preload import PRELOAD_ENTRY_OFFSET

ROOT = Path(__file__).resolve().parents[4]
#: The ``luthier_opt`` fixture (test/unit/conftest.py): a run of the command.
LuthierOpt = Callable[..., subprocess.CompletedProcess[str]]
ORIGINAL = ROOT / "test" / "corpus" / "kernels" / "elementwise.gfx942.preload.co"
KERNELS = ("vector_add", "saxpy", "daxpy", "int_mix", "many_args")


def _instrument(hook: str, folder: Path, luthier_opt: LuthierOpt) -> Path:
    output = folder / f"preload.{hook}.co"
    done = luthier_opt(["--lift", "--inline-hooks", "--emit-preamble", ORIGINAL, "--hooks",
                        ROOT / "examples" / "hooks" / f"{hook}.mlir", "--no-progress",
                        "-o", output])
    assert done.returncode == 0, done.stderr
    return output


def _fallback(path: Path, kernel: str) -> bytes:
    code_object = read_code_object(path)
    text = code_object.text
    assert text is not None
    start = code_object.kernel(kernel).entry_address - text.address
    return bytes(text.data[start:start + PRELOAD_ENTRY_OFFSET])


def _arguments() -> list[KernelArgument]:
    rng = np.random.default_rng(21)
    return [rng.standard_normal(128).astype(np.float32),
            rng.standard_normal(128).astype(np.float32), np.zeros(128, np.float32), 100]


@pytest.mark.parametrize("hook", ["instr_count", "kernarg_reader"])
def test_preloading_kernels_keep_their_fallback_and_run_right(hook: str,
                                                              tmp_path: Path,
                                                              luthier_opt: LuthierOpt) -> None:
    instrumented = _instrument(hook, tmp_path, luthier_opt)
    for kernel in KERNELS:
        assert _fallback(instrumented, kernel) == _fallback(ORIGINAL, kernel), kernel
    before = run_kernel(str(ORIGINAL), "vector_add", 2, 64, _arguments(), trace=True)
    after = run_kernel(str(instrumented), "vector_add", 2, 64, _arguments())
    for old, new in zip(before.buffers, after.buffers, strict=True):
        assert (old is None) == (new is None)
        if old is not None and new is not None:
            assert old.tobytes() == new.tobytes()
    trace = before.trace
    assert trace is not None and after.memory is not None
    if hook == "instr_count":
        kernels = set(trace.program.kernels)
        wave = np.frombuffer(after.globals["instr_count_wave"], np.uint64)
        thread = np.frombuffer(after.globals["instr_count_thread"], np.uint64)
        assert int(wave[0]) == trace.issued(kernels)
        assert int(thread[0]) == trace.active_lanes(kernels)
    else:
        record = struct.unpack("<6IQ", after.globals["kernarg_record"])
        assert record[:6] == (2, 1, 1, 64, 1, 1)
        segment = [buffer for buffer in after.memory.buffers if buffer.name == "kernarg"]
        assert record[6] == int.from_bytes(bytes(segment[0].data[:8]), "little")
