"""End to end: the user's command instruments corpus code objects, and the result is right.

For each example hook (``examples/hooks/{instr_count,opcode_histogram,memory_trace,
kernarg_reader}.mlir``) and each corpus code object of :data:`cases.OBJECTS` on every
target (gfx908, gfx90a, gfx942; gfx1030, gfx1100 and gfx1201 in wave32 and wave64; in
CI the wave64 builds run the hooks whose code depends on the wave size, and
``LUTHIER_E2E_ALL=1`` runs all),
``luthier-opt --lift --inline-hooks --emit-preamble IN.co --hooks H.mlir -o OUT.co`` runs
once per session (in the background, two at a time, as the tests first ask for them).
Then:

* LLVM's tools read the output: ``llvm-readelf-19 -a`` and ``llvm-objdump-19 -d`` exit 0
  with nothing on stderr, and our own reader and lifter lift it again, with the same
  kernels; every VGPR a kernel's instructions name (as llvm-objdump prints them) lies
  inside what its descriptor asks the hardware for (a payload register past it would
  read another wave's registers on a GPU, which the emulator cannot see);
* per kernel (:data:`cases.LAUNCHES`), the emulator runs the original (traced) and the
  instrumented kernel on the same arguments: every buffer ends bitwise identical, every
  application global too, and the hook's counters equal what the trace of the original run
  counted: instructions per wave and per active lane (``instr_count``), issues per opcode
  (``opcode_histogram``), the multiset of lane addresses of global and flat loads, stores
  and atomics named by buffer and offset, and a cursor equal to the number of lane
  accesses (``memory_trace``); the launch's grid (in workgroups) and block sizes and the
  first 8 bytes of the kernel argument segment (``kernarg_reader``, through the SVA the
  preamble fills).

The truth comes from the original run, so nothing a payload adds is counted against it.
A hook without a ``kernel`` selector skips device functions, so those counts cover the
kernels' own instructions; a last test names every device function of ``calls`` too and
checks that the counters then equal the whole run's.
"""

from __future__ import annotations

import functools
import os
import re
import struct
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.structure import KernelOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.emulator.api import RunResult, load_program, run_kernel
from luthier.emulator.program import Program
from luthier.emulator.trace import by_buffer
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.hooks import opcode_names
from luthier.frontend.lift import lift_code_object

from .cases import (
    HOOKS,
    LAUNCH_TARGETS,
    LAUNCHES,
    RDNA_TARGETS,
    TARGETS,
    Launch,
    corpus_file,
    objects_of,
    processor,
)

ROOT = Path(__file__).resolve().parents[3]
HOOK_DIR = ROOT / "examples" / "hooks"
#: The globals each hook adds (everything else in an instrumented object is the application's).
TOOL_GLOBALS = {
    "instr_count": {"instr_count_wave", "instr_count_thread"},
    "opcode_histogram": {"opcode_histogram"},
    "memory_trace": {"trace_cursor", "trace_buffer"},
    "kernarg_reader": {"kernarg_record"},
}
#: memory_trace's buffer holds this many u64 entries; the cursor counts past it.
TRACE_CAPACITY = 65536
#: The instructions memory_trace traces: loads, stores and atomics with a 64-bit address.
MEMORY_TRACED = ("global_*", "flat_*")

Key = tuple[str, str, str]  # object, target, hook
#: Every target of the suite, CDNA then RDNA.
ALL_TARGETS = (*TARGETS, *RDNA_TARGETS)
#: Every (object, target) pair instrumented.
OBJECT_TARGETS = [(obj, target) for target in ALL_TARGETS for obj in objects_of(target)]
#: Every (launch, target) pair run: CDNA's, then each launch of an RDNA object.
ALL_LAUNCH_TARGETS = [*LAUNCH_TARGETS, *((launch, target) for target in RDNA_TARGETS
                                         for launch in LAUNCHES
                                         if launch.obj in objects_of(target))]
#: instr_count placed in every kernel and, named one by one, every device function.
COUNT_EVERYWHERE = "instr_count_everywhere"
#: ``LUTHIER_E2E_ALL=1``: every hook on every target variant. Without it (CI), the wave64
#: builds of RDNA run the two hooks whose code depends on the wave size (instr_count's lane
#: counts, opcode_histogram's per-wave-size table), to keep the suite within its time; the
#: wave32 builds, HIP's default, run every hook.
EVERY_CASE = os.environ.get("LUTHIER_E2E_ALL") == "1"
WAVE64_HOOKS = ("instr_count", "opcode_histogram")


def in_suite(target: str, hook: str) -> bool:
    return EVERY_CASE or not target.endswith(".w64") or hook in WAVE64_HOOKS


#: The (object, target, hook) outputs the suite checks.
CASES = [(obj, target, hook) for hook in HOOKS for obj, target in OBJECT_TARGETS
         if in_suite(target, hook)]
#: The (launch, target, hook) runs the suite checks.
RUNS = [(launch, target, hook) for hook in HOOKS for launch, target in ALL_LAUNCH_TARGETS
        if in_suite(target, hook)]


def _count_everywhere(obj: str, target: str) -> str:
    """instr_count.mlir plus one insertion per device function of the object: a selector
    without ``kernel`` skips device functions, naming one instruments it."""
    functions = read_code_object(corpus_file(obj, target)).device_functions
    inserts = "".join(f'instr.insert @count_instruction {{at = "instruction", '
                      f'kernel = "{function.name}", args = []}}\n' for function in functions)
    return (HOOK_DIR / "instr_count.mlir").read_text() + inserts


class Instrumenter:
    """Runs the user's command for every (object, target, hook) two at a time, as the
    machine has two cores; a test waits only for the output it needs."""

    def __init__(self, folder: Path, luthier_opt: LuthierOpt) -> None:
        self.folder = folder
        self.luthier_opt = luthier_opt
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.jobs: dict[Key, Job] = {}
        # ask for the objects in the order the tests use them
        for obj, target, hook in CASES:
            self.jobs[(obj, target, hook)] = self.pool.submit(self._run, obj, target, hook)

        # instr_count also in every device function of calls, each named (see below)
        for target in ALL_TARGETS:
            hooks = self.folder / f"calls.{target}.{COUNT_EVERYWHERE}.mlir"
            hooks.write_text(_count_everywhere("calls", target))
            self.jobs[("calls", target, COUNT_EVERYWHERE)] = self.pool.submit(
                self._run, "calls", target, COUNT_EVERYWHERE, hooks)

    def _run(self, obj: str, target: str, hook: str,
             hooks: Path | None = None) -> tuple[Path, subprocess.CompletedProcess[str]]:
        return run_instrumentation(corpus_file(obj, target),
                                   hooks or HOOK_DIR / f"{hook}.mlir",
                                   self.folder / f"{obj}.{target}.{hook}.co", self.luthier_opt)

    def output(self, obj: str, target: str, hook: str) -> Path:
        return finished_output(self.jobs[(obj, target, hook)], f"{obj}.{target}.co", hook)


Job = Future[tuple[Path, subprocess.CompletedProcess[str]]]
#: The ``luthier_opt`` fixture (test/unit/conftest.py): a run of the command.
LuthierOpt = Callable[..., subprocess.CompletedProcess[str]]


def run_instrumentation(code_object: Path, hooks: Path, output: Path,
                        luthier_opt: LuthierOpt) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The user's command: ``luthier-opt --lift --inline-hooks --emit-preamble``."""
    return output, luthier_opt(["--no-progress", "--lift", "--inline-hooks",
                                "--emit-preamble", code_object, "--hooks", hooks, "-o",
                                output])


def finished_output(job: Job, code_object: str, tool: str) -> Path:
    """The output of an instrumentation job, which must have succeeded."""
    path, done = job.result()
    assert done.returncode == 0 and path.is_file(), (
        f"luthier-opt on {code_object} with {tool} failed (exit {done.returncode}):\n"
        f"{done.stderr}")
    return path


@pytest.fixture(scope="session")
def instrumenter(tmp_path_factory: pytest.TempPathFactory,
                 luthier_opt: LuthierOpt) -> Iterator[Instrumenter]:
    instrumenter = Instrumenter(tmp_path_factory.mktemp("instrumented"), luthier_opt)
    yield instrumenter
    instrumenter.pool.shutdown(cancel_futures=True)


@functools.cache
def _original_program(obj: str, target: str) -> Program:
    return load_program(corpus_file(obj, target))


@functools.cache
def _instrumented_program(path: Path) -> Program:
    return load_program(path)


@functools.cache
def original_run(launch: Launch, target: str) -> RunResult:
    return run_kernel(_original_program(launch.obj, target), launch.kernel, launch.grid,
                      launch.block, launch.arguments(), dynamic_lds=launch.dynamic_lds,
                      trace=True)


def application_globals(result: RunResult, program: Program,
                         tool: set[str]) -> dict[str, tuple[bytes, list[tuple[int, str, int]]]]:
    """The application's globals, each as its bytes with every relocated slot zeroed, plus
    the (offset, symbol, addend) its relocations put there: a function-pointer table holds
    different addresses once the functions moved, and must name the same functions."""
    relocations = {placement.name: placement.relocations for placement in program.globals}
    named: dict[str, tuple[bytes, list[tuple[int, str, int]]]] = {}
    for name, data in result.globals.items():
        if name in tool:
            continue
        raw = bytearray(data)
        targets: list[tuple[int, str, int]] = []
        for offset, kind, symbol, addend in relocations.get(name, []):
            width = 8 if kind.endswith("64") else 4
            raw[offset:offset + width] = bytes(width)
            targets.append((offset, symbol, addend))
        named[name] = (bytes(raw), sorted(targets))
    return named


def _u64(data: bytes) -> npt.NDArray[Any]:
    return np.frombuffer(data, np.uint64)


def _named_vgprs(disassembly: str) -> dict[str, int]:
    """Per function symbol of ``llvm-objdump-19 -d``, one past the highest VGPR its
    instructions name (0 if none)."""
    highest: dict[str, int] = {}
    current: str | None = None
    for line in disassembly.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            current = str(header.group(1))
            highest.setdefault(current, 0)
            continue
        if current is None or not line.startswith(("\t", " ")):
            continue
        code = line.split("//")[0]
        tops = [int(high) for high in re.findall(r"\bv\[\d+:(\d+)\]", code)]
        tops += [int(index) for index in re.findall(r"(?<![\w\[:])v(\d+)\b", code)]
        if tops:
            highest[current] = max(highest[current], max(tops) + 1)
    return highest


def _allocated_vgprs(target: str, granulated: int, wave32: bool) -> int:
    """VGPRs a descriptor's GRANULATED_WORKITEM_VGPR_COUNT asks for (AMDGPUUsage: steps
    of 8 on GFX90A/GFX942 and in wave32, of 4 otherwise). With AGPRs in a unified file
    the VGPRs are fewer (below accum_offset); the check stays an upper bound."""
    step = 8 if processor(target) in ("gfx90a", "gfx942") or wave32 else 4
    return (granulated + 1) * step


@pytest.mark.parametrize(("obj", "target", "hook"), CASES,
                         ids=[f"{obj}-{target}-{hook}" for obj, target, hook in CASES])
def test_llvm_tools_and_our_lifter_read_the_output(instrumenter: Instrumenter, obj: str,
                                                   target: str, hook: str) -> None:
    path = instrumenter.output(obj, target, hook)
    outputs: dict[str, str] = {}
    for tool in (["llvm-readelf-19", "-a"], ["llvm-objdump-19", "-d"]):
        done = subprocess.run([*tool, str(path)], capture_output=True, text=True, check=False)
        assert (done.returncode, done.stderr) == (0, ""), f"{tool[0]} on {path.name}"
        outputs[tool[0]] = done.stdout
    named = _named_vgprs(outputs["llvm-objdump-19"])
    for kernel in read_code_object(path).kernels:
        descriptor = kernel.descriptor
        wave32 = bool(descriptor.kernel_code_properties.enable_wavefront_size32)
        allocated = _allocated_vgprs(
            target, descriptor.compute_pgm_rsrc1.granulated_workitem_vgpr_count, wave32)
        assert named[kernel.name] <= allocated, (kernel.name, named[kernel.name], allocated)
    lifted = lift_code_object(read_code_object(path)).module
    original = lift_code_object(read_code_object(corpus_file(obj, target))).module

    def kernels(module: Any) -> set[str]:
        return {op.sym_name.data for op in module.body.block.ops if isinstance(op, KernelOp)}

    assert kernels(lifted) == kernels(original)


@functools.cache
def _ir_mnemonics(obj: str, target: str) -> dict[str, str]:
    """Record name -> the mnemonic the lifted IR prints, for every instruction of the
    original corpus object."""
    module = lift_code_object(read_code_object(corpus_file(obj, target))).module
    return {op.opcode.data: op.mnemonic for op in module.walk()
            if isinstance(op, InstructionOpBase)}


def check_counters(hook: str, target: str, launch: Launch, original: RunResult,
                    instrumented: RunResult) -> None:
    """The hook's counters against the original run's trace. The example hooks select no
    kernel, so they are placed in every kernel and in no device function (docs/hooks.md,
    "Where: selectors"): the truth counts the kernels' own instructions only."""
    trace = original.trace
    assert trace is not None and instrumented.memory is not None
    assert original.memory is not None
    kernels = set(trace.program.kernels)
    counters = instrumented.globals
    if hook == "instr_count":
        assert int(_u64(counters["instr_count_wave"])[0]) == trace.issued(kernels)
        assert int(_u64(counters["instr_count_thread"])[0]) == trace.active_lanes(kernels)
    elif hook == "opcode_histogram":
        # an opcode number is the record's position in the target's ISA table
        table = _u64(counters["opcode_histogram"])
        wave = 64 if target.endswith(".w64") else None  # RDNA: one table per wave size
        records = load_target(processor(target), wave).instructions
        counted = Counter({records[int(index)].name: int(table[index])
                           for index in np.flatnonzero(table)})
        assert counted == trace.opcode_histogram(kernels)
        # and opcode_names, what a tool prints, spells each as the IR does
        names = opcode_names(processor(target), wave)
        number = {desc.name: index for index, desc in enumerate(records)}
        printed = _ir_mnemonics(launch.obj, target)
        assert {names[number[opcode]] for opcode in printed if opcode in counted} == {
            mnemonic for opcode, mnemonic in printed.items() if opcode in counted}
    elif hook == "kernarg_reader":
        record = struct.unpack("<6IQ", counters["kernarg_record"])
        assert record[:6] == (launch.grid, 1, 1, launch.block, 1, 1)
        segment = [buffer for buffer in instrumented.memory.buffers if buffer.name == "kernarg"]
        assert len(segment) == 1
        assert record[6] == int.from_bytes(bytes(segment[0].data[:8]), "little")
    else:
        expected = trace.global_addresses(*MEMORY_TRACED, functions=kernels)
        cursor = int(_u64(counters["trace_cursor"])[0])
        assert cursor == sum(expected.values())
        assert cursor <= TRACE_CAPACITY, "grow the capacity or shrink the launch"
        recorded = Counter(int(a) for a in _u64(counters["trace_buffer"])[:cursor].tolist())
        assert by_buffer(recorded, instrumented.memory) == by_buffer(expected, original.memory)


@pytest.mark.parametrize(("launch", "target", "hook"), RUNS,
                         ids=[f"{launch.id}-{target}-{hook}" for launch, target, hook in RUNS])
def test_instrumented_kernel_computes_the_same_and_counts_right(
        instrumenter: Instrumenter, launch: Launch, target: str, hook: str) -> None:
    original = original_run(launch, target)
    path = instrumenter.output(launch.obj, target, hook)
    program = _instrumented_program(path)
    instrumented = run_kernel(program, launch.kernel, launch.grid,
                              launch.block, launch.arguments(), dynamic_lds=launch.dynamic_lds)
    for position, (before, after) in enumerate(zip(original.buffers, instrumented.buffers,
                                                   strict=True)):
        if before is None or after is None:
            assert before is after, f"argument {position}"
            continue
        assert before.tobytes() == after.tobytes(), f"buffer argument {position} differs"
    tool = TOOL_GLOBALS[hook]
    assert tool <= instrumented.globals.keys()
    assert application_globals(instrumented, program, tool) == application_globals(
        original, _original_program(launch.obj, target), set())
    check_counters(hook, target, launch, original, instrumented)


@pytest.mark.parametrize("target", ALL_TARGETS)
@pytest.mark.parametrize("launch", [launch for launch in LAUNCHES if launch.obj == "calls"],
                         ids=lambda launch: launch.id)
def test_named_device_functions_are_counted_too(instrumenter: Instrumenter, launch: Launch,
                                                target: str) -> None:
    """With every device function named in an insertion, the counters equal the whole
    run's counts: calls, recursion and indirect calls through payload-carrying callees."""
    original = original_run(launch, target)
    path = instrumenter.output("calls", target, COUNT_EVERYWHERE)
    instrumented = run_kernel(_instrumented_program(path), launch.kernel, launch.grid,
                              launch.block, launch.arguments(), dynamic_lds=launch.dynamic_lds)
    for before, after in zip(original.buffers, instrumented.buffers, strict=True):
        assert (before is None) == (after is None)
        if before is not None and after is not None:
            assert before.tobytes() == after.tobytes()
    trace = original.trace
    assert trace is not None
    assert trace.issued() > trace.issued(set(trace.program.kernels))  # the callees ran
    assert int(_u64(instrumented.globals["instr_count_wave"])[0]) == trace.issued()
    assert int(_u64(instrumented.globals["instr_count_thread"])[0]) == trace.active_lanes()
