"""The instrumentation stack end to end: corpus kernels instrumented with the instruction
counter while the allocator pretends almost every register is live
(``lower-hooks{spill_vgprs_to_agprs=false assume_live=true}``), so every payload saves its
registers: SGPRs to lanes of a VGPR that is itself saved first, VGPRs to scratch slots above
the application's private segment. One object without application scratch
(``elementwise``) and one with it (``scratch``: private arrays, and a device function,
named in an insertion, that reads its caller's stack), on every target: gfx908 and gfx90a
and gfx1030 set up flat scratch in the preamble (gfx1030 through ``s_setreg_b32``),
gfx942, gfx1100 and gfx1201 have it architected; the RDNA ones in wave32 (EXEC saved as
``exec_lo`` in one SGPR) and wave64.

The user's command makes the objects; the emulator runs the original (traced) and the
instrumented kernel on the same arguments: every buffer ends bitwise identical, and the
counters equal the original run's instructions and active lanes. The emulator gives each
lane exactly ``private_segment_fixed_size`` bytes of scratch and fails any access past it,
so the runs also check that the descriptor grew to cover the slots.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.emulator import KernelArgument
from luthier.emulator.api import RunResult, load_program, run_kernel
from luthier.emulator.program import Program
from luthier.frontend.codeobj import read_code_object
from luthier.passes.preamble.scratch import STACK_ALIGNMENT, round_up

ROOT = Path(__file__).resolve().parents[4]
#: The ``luthier_opt`` fixture (test/unit/conftest.py): a run of the command.
LuthierOpt = Callable[..., subprocess.CompletedProcess[str]]
CORPUS = ROOT / "test" / "corpus" / "kernels"
RDNA_CORPUS = ROOT / "test" / "corpus" / "rdna"
HOOKS = ROOT / "examples" / "hooks" / "instr_count.mlir"
CDNA_TARGETS = ("gfx908", "gfx90a", "gfx942")
#: RDNA's variants: ``.w64`` is the object compiled with -mwavefrontsize64.
TARGETS = (*CDNA_TARGETS, "gfx1030", "gfx1030.w64", "gfx1100", "gfx1100.w64", "gfx1201",
           "gfx1201.w64")
PIPELINE = "lower-hooks{spill_vgprs_to_agprs=false assume_live=true}"
F32 = np.float32


def _scratch_launches() -> list[tuple[str, int, int, list[KernelArgument]]]:
    rng = np.random.default_rng(11)
    n = 128
    idx = rng.integers(0, 1000, n).astype(np.int32)
    array_inputs = rng.standard_normal(n * 32).astype(F32)
    sort_inputs = rng.integers(-100, 100, 64 * 16).astype(np.int32)
    call_inputs = rng.integers(-4, 4, 64 + 64).astype(F32)
    return [
        ("private_array", 2, 64, [idx, array_inputs, np.zeros(n, F32)]),
        ("private_sort", 1, 64, [sort_inputs, np.zeros(64 * 16, np.int32)]),
        ("private_array_via_call", 1, 64, [call_inputs, np.zeros(64, F32), 20, 3]),
    ]


def _elementwise_launches() -> list[tuple[str, int, int, list[KernelArgument]]]:
    rng = np.random.default_rng(12)
    return [
        ("vector_add", 2, 64, [rng.standard_normal(128).astype(F32),
                               rng.standard_normal(128).astype(F32),
                               np.full(128, -7.0, F32), 100]),
        ("saxpy", 1, 128, [1.7, rng.standard_normal(128).astype(F32),
                           rng.standard_normal(128).astype(F32), 100]),
    ]


LAUNCHES = {"scratch": _scratch_launches, "elementwise": _elementwise_launches}


def _corpus_file(obj: str, target: str) -> Path:
    return (CORPUS if target in CDNA_TARGETS else RDNA_CORPUS) / f"{obj}.{target}.co"


def _hooks(obj: str, target: str, folder: Path) -> Path:
    """instr_count, plus an insertion naming every device function (a selector without a
    kernel skips them): their payloads use the stack of the kernels that call them."""
    functions = read_code_object(_corpus_file(obj, target)).device_functions
    path = folder / f"{obj}.{target}.hooks.mlir"
    path.write_text(HOOKS.read_text() + "".join(
        f'instr.insert @count_instruction {{at = "instruction", kernel = "{function.name}", '
        f'args = []}}\n' for function in functions))
    return path


@functools.cache
def _instrumented(obj: str, target: str, folder: Path, luthier_opt: LuthierOpt) -> Path:
    output = folder / f"{obj}.{target}.stack.co"
    done = luthier_opt(["--lift", _corpus_file(obj, target), "--hooks",
                        _hooks(obj, target, folder), "-p", PIPELINE, "--emit-preamble",
                        "--no-progress", "-o", output])
    assert done.returncode == 0, done.stderr
    return output


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stack")


def _u64(data: bytes) -> npt.NDArray[Any]:
    return np.frombuffer(data, np.uint64)


@functools.cache
def _program(path: Path) -> Program:
    return load_program(path)


def _same_buffers(before: RunResult, after: RunResult) -> None:
    for position, (old, new) in enumerate(zip(before.buffers, after.buffers, strict=True)):
        assert (old is None) == (new is None)
        if old is not None and new is not None:
            assert old.tobytes() == new.tobytes(), f"buffer argument {position} differs"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("obj", ["elementwise", "scratch"])
def test_memory_spills_keep_results_and_count_right(obj: str, target: str, folder: Path,
                                                    luthier_opt: LuthierOpt) -> None:
    path = _instrumented(obj, target, folder, luthier_opt)
    original = _program(_corpus_file(obj, target))
    instrumented = _program(path)
    for kernel, grid, block, arguments in LAUNCHES[obj]():
        before = run_kernel(original, kernel, grid, block, list(arguments), trace=True)
        after = run_kernel(instrumented, kernel, grid, block, list(arguments))
        _same_buffers(before, after)
        trace = before.trace
        assert trace is not None
        # every function is instrumented: the counters cover the whole run
        assert int(_u64(after.globals["instr_count_wave"])[0]) == trace.issued(), kernel
        assert int(_u64(after.globals["instr_count_thread"])[0]) == trace.active_lanes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("obj", ["elementwise", "scratch"])
def test_the_stack_sits_above_the_private_segment(obj: str, target: str, folder: Path,
                                                  luthier_opt: LuthierOpt) -> None:
    """Every kernel's private segment grew past its old size rounded to 16 (where the
    stack starts), its descriptor enables the private segment (and, without architected flat
    scratch, gfx908, gfx90a and gfx1030, the flat scratch init SGPRs), and the metadata
    agrees; the code saves to scratch and to lanes, under a full EXEC of the wave's width,
    and sets FLAT_SCRATCH the target's way."""
    subtarget = subtarget_for(target.split(".")[0])
    initialises_flat_scratch = not subtarget.has_architected_flat_scratch
    before = read_code_object(_corpus_file(obj, target))
    after = read_code_object(_instrumented(obj, target, folder, luthier_opt))
    old = {kernel.name: kernel for kernel in before.kernels}
    for kernel in after.kernels:
        descriptor = kernel.descriptor
        base = round_up(old[kernel.name].descriptor.private_segment_fixed_size, STACK_ALIGNMENT)
        assert descriptor.private_segment_fixed_size > base
        assert kernel.metadata is not None
        assert kernel.metadata.private_segment_fixed_size == descriptor.private_segment_fixed_size
        assert descriptor.compute_pgm_rsrc2.enable_private_segment
        assert descriptor.kernel_code_properties.enable_sgpr_flat_scratch_init == \
            initialises_flat_scratch
    disassembly = subprocess.run(["llvm-objdump-19", "-d",
                                  str(_instrumented(obj, target, folder, luthier_opt))],
                                 capture_output=True, text=True, check=True).stdout
    dword = "b32" if subtarget.major >= 11 else "dword"  # GFX11 renamed them
    for mnemonic in (f"scratch_store_{dword}", f"scratch_load_{dword}", "v_writelane_b32"):
        assert mnemonic in disassembly
    wave32 = subtarget.major >= 10 and not target.endswith(".w64")
    assert ("s_mov_b32 exec_lo, -1" in disassembly) == wave32
    assert ("s_mov_b64 exec, -1" in disassembly) == (not wave32)
    setreg = "s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO)" in disassembly
    assert setreg == (initialises_flat_scratch and subtarget.has_flat_scratch_in_hwregs)
    assert ("flat_scratch_lo" in disassembly) == (initialises_flat_scratch and not setreg)
