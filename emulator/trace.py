"""An execution trace: what a run executed, counted the way instrumentation hooks count it.

Checking an instrumented kernel needs the truth its counters should equal, measured on the
*original* run, so that the instructions a payload adds are never counted against it. The
trace gives, per instruction of the program (per pc):

* ``waves``: how many times a wave issued it (what a hook with uniform operands, such as
  ``instr_count``'s ``@instr_count_wave`` or ``opcode_histogram``, adds once per wave);
* ``lanes``: the sum over those issues of popcount(EXEC) read *before* the instruction
  executes (what ``instr_count``'s ``@instr_count_thread`` adds: the payload runs before its
  instruction and reads the application's EXEC);
* ``busy``: the issues with at least one lane active (what a hook counting from the first
  active lane adds, as the HIP vector instruction counter does);
* for every ``global_*`` and ``flat_*`` instruction (loads, stores and atomics: every one
  has a 64-bit address operand), the addresses its active lanes access, computed from the
  operands before the instruction executes (a load may overwrite its own address
  registers), in issue order. A flat address is recorded as the lanes give it, whichever
  aperture (global, LDS, scratch) it falls in, as a hook reading the address operand sees
  it. ``buffer_*`` and ``scratch_*`` accesses are not recorded: their addresses are no
  operand's (see ``examples/hooks/memory_trace.mlir``).

Tracing wraps each step of the program in a closure that records, then runs the step; it
is opt-in (``run_kernel(..., trace=True)``) because it slows every instruction down.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from luthier.emulator.memory import GlobalMemory
from luthier.emulator.program import Program
from luthier.emulator.semantics.registry import Instruction, Step
from luthier.emulator.semantics.vmem import global_address
from luthier.emulator.state import Wave

#: The instructions whose lane addresses the trace records: those with a 64-bit address
#: operand (``global_address`` computes both forms alike), among the ``global_*`` and
#: ``flat_*`` ones (:func:`addresses_memory`: GFX12's cache controls are ``global_*`` too).
TRACED_PREFIXES = ("global_", "flat_")


def addresses_memory(inst: Instruction) -> bool:
    """Whether the trace records ``inst``'s lane addresses: a ``global_*``/``flat_*``
    instruction with an address (not GFX12's ``global_wb``/``global_inv``/``global_wbinv``,
    which name a cache scope and no address)."""
    return inst.mnemonic.startswith(TRACED_PREFIXES) and (inst.has("vaddr") or inst.has("saddr"))


@dataclass
class ExecutionTrace:
    """Per-pc issue counts, active-lane sums and global addresses of one run."""

    program: Program
    #: Per pc: times a wave issued the instruction.
    waves: list[int] = field(default_factory=lambda: list[int]())
    #: Per pc: sum of popcount(EXEC) before each issue.
    lanes: list[int] = field(default_factory=lambda: list[int]())
    #: Per pc: issues with at least one lane active (what a hook whose first active lane
    #: counts adds: with EXEC empty there is no such lane).
    busy: list[int] = field(default_factory=lambda: list[int]())
    #: (pc, addresses of the active lanes) of each issued ``global_*`` or ``flat_*``
    #: instruction.
    accesses: list[tuple[int, npt.NDArray[np.uint64]]] = field(
        default_factory=lambda: list[tuple[int, npt.NDArray[np.uint64]]]())

    @property
    def wave_instructions(self) -> int:
        """Instructions issued, summed over waves."""
        return sum(self.waves)

    @property
    def thread_instructions(self) -> int:
        """Instructions issued, each counted once per active lane."""
        return sum(self.lanes)

    def _selected(self, functions: Collection[str] | None) -> list[bool]:
        return [functions is None or inst.function in functions
                for inst in self.program.instructions]

    def issued(self, functions: Collection[str] | None = None) -> int:
        """Instructions issued, summed over waves, counting only those of ``functions``
        (kernels or device functions, by name) when given: hooks placed in kernels do not
        run inside the device functions the kernels call."""
        return sum(count for count, keep in zip(self.waves, self._selected(functions),
                                                strict=True) if keep)

    def issued_with_lanes(self, functions: Collection[str] | None = None) -> int:
        """Instructions issued with EXEC not empty, summed over waves (only those of
        ``functions`` when given)."""
        return sum(count for count, keep in zip(self.busy, self._selected(functions),
                                                strict=True) if keep)

    def active_lanes(self, functions: Collection[str] | None = None) -> int:
        """Instructions issued, each counted once per active lane (only those of
        ``functions`` when given)."""
        return sum(count for count, keep in zip(self.lanes, self._selected(functions),
                                                strict=True) if keep)

    def opcode_histogram(self, functions: Collection[str] | None = None) -> Counter[str]:
        """Issues per ISA record name (the instruction's opcode record, e.g.
        ``S_MOV_B32_vi``; only those of ``functions`` when given; a real-true16 twin counts
        as its default record, whose opcode it is). A hook's opcode number is the record's
        position in ``load_target(processor).instructions``."""
        histogram: Counter[str] = Counter()
        for inst, count, keep in zip(self.program.instructions, self.waves,
                                     self._selected(functions), strict=True):
            if count and keep:
                histogram[inst.desc.fake16 or inst.desc.name] += count
        return histogram

    def global_addresses(self, *patterns: str,
                         functions: Collection[str] | None = None) -> Counter[int]:
        """The multiset of lane addresses of the traced ``global_*`` and ``flat_*``
        instructions whose mnemonic matches one of ``patterns`` (shell globs, as a hook's
        ``mnemonic`` selector; every traced instruction when none is given), of
        ``functions`` when given."""
        addresses: Counter[int] = Counter()
        instructions = self.program.instructions
        for pc, lanes in self.accesses:
            inst = instructions[pc]
            if functions is not None and inst.function not in functions:
                continue
            if patterns and not any(fnmatch.fnmatchcase(inst.mnemonic, p) for p in patterns):
                continue
            addresses.update(int(address) for address in lanes.tolist())
        return addresses


def traced_steps(program: Program, trace: ExecutionTrace) -> list[Step]:
    """The program's steps, each recording into ``trace`` before it runs."""
    trace.waves = [0] * len(program.steps)
    trace.lanes = [0] * len(program.steps)
    trace.busy = [0] * len(program.steps)
    return [_traced(inst, step, trace)
            for inst, step in zip(program.instructions, program.steps, strict=True)]


def _traced(inst: Instruction, step: Step, trace: ExecutionTrace) -> Step:
    pc = inst.pc
    waves, lanes, busy = trace.waves, trace.lanes, trace.busy
    if not addresses_memory(inst):
        def counted(wave: Wave) -> int:
            waves[pc] += 1
            active = wave.exec_bits.bit_count()
            lanes[pc] += active
            busy[pc] += active > 0
            return step(wave)
        return counted
    address = global_address(inst)
    accesses = trace.accesses

    def recorded(wave: Wave) -> int:
        waves[pc] += 1
        active = wave.exec_bits.bit_count()
        lanes[pc] += active
        busy[pc] += active > 0
        active = np.asarray(address(wave), np.uint64)[wave.active()]
        accesses.append((pc, active.copy()))
        return step(wave)
    return recorded


def by_buffer(addresses: Counter[int], memory: GlobalMemory) -> Counter[tuple[str, int]]:
    """``addresses`` named as (buffer, offset in it): the form in which two runs whose
    buffers sit at different addresses compare. An address in no buffer keeps its value
    under the name ``"?"``."""
    named: Counter[tuple[str, int]] = Counter()
    for address, count in addresses.items():
        buffer = memory.find(address)
        named[("?", address) if buffer is None else (buffer.name, address - buffer.base)] \
            += count
    return named
