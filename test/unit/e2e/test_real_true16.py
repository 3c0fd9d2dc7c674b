"""Real-true16 code (clang-22, gfx1100 and gfx1201) runs in the emulator as the same source
compiled by clang-19 does, and instrumented it computes the same and counts right.

``test/corpus/real_true16`` holds both builds of half.hip per target, in wave32 and wave64.
clang-19 compiles fake true16 (16-bit values in whole VGPRs), clang-22 real true16 (halves:
``v_fmac_f16_e32 v0.h, s2, v0.l``, op_sel bits LLVM 19's records leave undefined on
``v_cndmask_b16``, GFX11's D16 loads): the two programs differ instruction for
instruction, and their outputs must be the same bytes, which checks the emulator's
real-true16 semantics against its fake16 ones. Then every example hook that needs no
kernel state instruments the real-true16 build: outputs unchanged, counters exact.
"""

from __future__ import annotations

import functools
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from luthier.amdgpu_dialects.isa.target import load_target
from luthier.drivers.luthier_opt import main
from luthier.emulator import KernelArgument
from luthier.emulator.api import RunResult, load_program, run_kernel
from luthier.emulator.program import Program

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "test" / "corpus" / "real_true16"
HOOK_DIR = ROOT / "examples" / "hooks"
N = 128
F16 = np.float16


def _h(rng: np.random.Generator) -> npt.NDArray[Any]:
    return rng.standard_normal(N).astype(F16)


#: kernel -> its arguments (a fresh generator per kernel, the same for every run).
KERNELS: dict[str, Callable[[np.random.Generator], list[KernelArgument]]] = {
    "axpy_h": lambda r: [_h(r), _h(r), int(np.array(1.5, F16).view(np.uint16)), N],
    "mix_h": lambda r: [np.zeros(N, F16), _h(r), _h(r), r.standard_normal(N).astype(
        np.float32), r.integers(-300, 300, N).astype(np.int16), N],
    "dot_h": lambda r: [np.zeros(64, np.float32), _h(r), _h(r), N],
    "clamp_convert_h": lambda r: [np.zeros(N, F16), (r.standard_normal(N) * 50).astype(
        np.float32), r.integers(-40, 40, N).astype(np.int16), N],
}
WAVES = ("", ".w64")
PROCESSORS = ("gfx1100", "gfx1201")
HOOKS = ("instr_count", "opcode_histogram", "memory_trace")


def _arguments(kernel: str) -> list[KernelArgument]:
    return KERNELS[kernel](np.random.default_rng(zlib.crc32(kernel.encode())))


@functools.cache
def _program(path: Path) -> Program:
    return load_program(path)


def _run(path: Path, kernel: str, trace: bool = False) -> RunResult:
    return run_kernel(_program(path), kernel, 2, 64, _arguments(kernel), trace=trace)


def _buffers(result: RunResult) -> list[bytes | None]:
    return [None if buffer is None else buffer.tobytes() for buffer in result.buffers]


@pytest.mark.parametrize("wave", WAVES, ids=("w32", "w64"))
@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_real_true16_build_computes_what_the_fake16_build_does(kernel: str, wave: str,
                                                               processor: str) -> None:
    real = _run(CORPUS / f"half.{processor}{wave}.co", kernel)
    fake = _run(CORPUS / f"half.{processor}{wave}.fake16.co", kernel)
    assert _buffers(real) == _buffers(fake)
    assert any(buffer is not None and any(buffer) for buffer in _buffers(real))


@functools.cache
def _instrumented(processor: str, wave: str, hook: str, folder: Path) -> Path:
    output = folder / f"half.{processor}{wave}.{hook}.co"
    status = main(["--no-progress", "--lift", "--inline-hooks", "--emit-preamble",
                   str(CORPUS / f"half.{processor}{wave}.co"), "--hooks",
                   str(HOOK_DIR / f"{hook}.mlir"), "-o", str(output)])
    assert status == 0
    return output


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("real_true16")


def _u64(data: bytes) -> npt.NDArray[Any]:
    return np.frombuffer(data, np.uint64)


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("wave", WAVES, ids=("w32", "w64"))
@pytest.mark.parametrize("processor", PROCESSORS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_instrumented_real_true16_computes_the_same_and_counts_right(
        kernel: str, wave: str, processor: str, hook: str, folder: Path) -> None:
    original = _run(CORPUS / f"half.{processor}{wave}.co", kernel, trace=True)
    instrumented = _run(_instrumented(processor, wave, hook, folder), kernel)
    assert _buffers(instrumented) == _buffers(original)
    trace = original.trace
    assert trace is not None
    kernels = set(trace.program.kernels)
    counters = instrumented.globals
    if hook == "instr_count":
        assert int(_u64(counters["instr_count_wave"])[0]) == trace.issued(kernels)
        assert int(_u64(counters["instr_count_thread"])[0]) == trace.active_lanes(kernels)
    elif hook == "opcode_histogram":
        records = load_target(processor, 64 if wave else None).instructions
        table = _u64(counters["opcode_histogram"])
        counted = Counter({records[int(index)].name: int(table[index])
                           for index in np.flatnonzero(table)})
        histogram = trace.opcode_histogram(kernels)
        assert counted == histogram
        # The twins (real-true16 forms) that ran are counted under their default records.
        ran = {inst.desc.fake16 for inst, count in zip(trace.program.instructions,
                                                       trace.waves, strict=True)
               if count and inst.desc.fake16}
        assert ran <= histogram.keys()
        assert ran or kernel == "clamp_convert_h"
    else:
        expected = trace.global_addresses(functions=kernels)
        cursor = int(_u64(counters["trace_cursor"])[0])
        assert cursor == sum(expected.values()) > 0
