"""The execution trace counts what hooks count, on the original run: issues per wave,
active lanes read *before* each instruction, ISA records, and the addresses active lanes of
``global_*`` instructions access, computed before the instruction overwrites its operands."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from luthier.amdgpu_dialects.isa.target import load_target
from luthier.emulator import run_kernel
from luthier.emulator.dispatch import Workgroup, run_wave
from luthier.emulator.memory import GlobalMemory, LocalMemory, PrivateMemory
from luthier.emulator.state import Wave
from luthier.emulator.trace import ExecutionTrace, by_buffer, traced_steps

from .asm import assemble
from .common import CORPUS, TARGETS, out, run

LANES = np.arange(64, dtype=np.uint32)


def _traced_run(body: str, memory: GlobalMemory, setup_base: int) -> ExecutionTrace:
    program = assemble(body)
    trace = ExecutionTrace(program)
    wave = Wave(64, Workgroup((0, 0, 0), LocalMemory(1024, "LDS")))
    wave.memory = memory
    wave.private = PrivateMemory(64, 256)
    wave.exec_bits = wave.full
    wave.s[0], wave.s[1] = setup_base & 0xFFFFFFFF, setup_base >> 32
    wave.v[0] = 4 * LANES + 8
    run_wave(wave, program, 1000, traced_steps(program, trace))
    assert wave.done
    return trace


def test_lanes_are_exec_before_the_instruction_and_addresses_its_operands() -> None:
    memory = GlobalMemory()
    base = memory.allocate(1024, "buf", bytes(1024)).base
    # s_mov_b64 issues with 64 lanes and leaves 4; the load overwrites its own offset VGPR.
    trace = _traced_run("""
        s_mov_b64 exec, 15
        global_load_dword v0, v0, s[0:1] offset:-4
        global_load_dword v1, v0, s[0:1]
    """, memory, base)
    assert trace.waves == [1, 1, 1, 1]
    assert trace.lanes == [64, 4, 4, 4]
    assert (trace.wave_instructions, trace.thread_instructions) == (4, 76)
    first = [base + 4 * lane + 4 for lane in range(4)]
    # the second load's offsets are the loaded zeros: every lane reads base
    assert trace.global_addresses() == Counter(first + [base] * 4)
    assert trace.global_addresses("global_store*") == Counter()
    names = trace.opcode_histogram()
    isa = load_target("gfx90a")
    assert sorted((isa.by_name[name].mnemonic, count) for name, count in names.items()) == [
        ("global_load_dword", 2), ("s_endpgm", 1), ("s_mov_b64", 1)]


def test_trace_is_opt_in_and_agrees_with_the_wave_counts() -> None:
    """A divergent loop: the trace's issue total is the dispatch's own count, the outputs
    are those of an untraced run, and an untraced run has no trace."""
    inputs = np.arange(1, 129, dtype=np.int32)
    path = CORPUS / "control_flow.gfx90a.co"
    plain = run_kernel(path, "data_dependent_loop", 2, 64, [inputs, np.zeros(128, np.int32)])
    traced = run_kernel(path, "data_dependent_loop", 2, 64, [inputs, np.zeros(128, np.int32)],
                        trace=True)
    assert plain.trace is None and traced.trace is not None
    np.testing.assert_array_equal(out(traced, 1), out(plain, 1))
    assert traced.trace.wave_instructions == plain.instructions
    # lanes drop out of the loop as their chains end: fewer lane-issues than 64 per issue
    assert traced.trace.thread_instructions < 64 * plain.instructions
    loads = traced.trace.global_addresses("global_load*")
    stores = traced.trace.global_addresses("global_store*")
    # each work-item loads its input once and stores its output once
    assert sum(loads.values()) == sum(stores.values()) == 128
    assert len(loads) == len(stores) == 128


def test_counts_per_function_and_addresses_by_buffer() -> None:
    """A kernel calling a device function: restricting to the kernel drops exactly the
    callee's issues; addresses name their buffer and offset, as two runs whose buffers sit
    at different addresses must compare them."""
    x = np.arange(128, dtype=np.float32)
    result = run_kernel(CORPUS / "calls.gfx90a.co", "call_device_function", 2, 64,
                        [x, np.zeros(128, np.float32), 0.75, -0.5], trace=True)
    trace, memory = result.trace, result.memory
    assert trace is not None and memory is not None
    kernel = {"call_device_function"}
    inside = trace.issued(kernel)
    callee = sum(count for inst, count in zip(trace.program.instructions, trace.waves,
                                              strict=True)
                 if inst.function != "call_device_function")
    assert 0 < inside < trace.issued() == trace.wave_instructions == inside + callee
    assert trace.active_lanes(kernel) < trace.active_lanes() == trace.thread_instructions
    assert sum(trace.opcode_histogram(kernel).values()) == inside
    named = by_buffer(trace.global_addresses(functions=kernel), memory)
    assert named == Counter({("arg0", 4 * i): 1 for i in range(128)}
                            | {("arg1", 4 * i): 1 for i in range(128)})
    assert by_buffer(Counter({12: 2}), memory) == Counter({("?", 12): 2})


@pytest.mark.parametrize("target", TARGETS)
def test_traced_addresses_are_the_accesses_of_every_target(target: str) -> None:
    """block_reduce_sum loads its inputs and stores one sum per workgroup; GFX12 compiles
    its fences to ``global_wb``/``global_inv``, ``global_*`` instructions with no address,
    which the trace counts but records no address for."""
    n = 1000
    inputs = np.arange(1024, dtype=np.float32)
    result = run("lds", target, "block_reduce_sum", 4, 256,
                 [inputs, np.zeros(4, np.float32), n], trace=True)
    trace = result.trace
    assert trace is not None and result.memory is not None
    mnemonics = {inst.mnemonic for inst in trace.program.instructions}
    if target.startswith("gfx12"):
        assert {"global_wb", "global_inv"} <= mnemonics
    loads = trace.global_addresses("global_load_*")
    stores = trace.global_addresses("global_store_*")
    assert by_buffer(loads, result.memory) == Counter(
        {("arg0", 4 * index): 1 for index in range(n)})
    assert by_buffer(stores, result.memory) == Counter(
        {("arg1", 4 * group): 1 for group in range(4)})
    assert not trace.global_addresses("global_wb", "global_inv")
