"""The table of instruction semantics: mnemonic -> builder of an executable step.

A builder runs once per instruction of the program (when it is compiled) and returns a
step, a closure ``step(wave) -> next pc`` with the instruction's operands already resolved
into register indices, constants and reader closures. Running a wave is then a loop of
``pc = steps[pc](wave)``: no operand decoding, no dictionary lookup per executed instruction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from luthier.emulator.errors import EmulationError
from luthier.emulator.operands import (
    ScalarRead,
    VectorRead,
    scalar_reader,
    scalar_target,
    vector_reader,
    vector_target,
)
from luthier.emulator.state import Wave

if TYPE_CHECKING:
    from luthier.amdgpu_dialects.isa.target import InstrDef

#: What a step returns instead of a pc: the wave ended (``s_endpgm``) or waits at a barrier.
END = -1
BARRIER = -2

Step = Callable[[Wave], int]


@dataclass
class Instruction:
    """What a builder knows about the instruction it compiles."""

    mnemonic: str
    desc: InstrDef
    #: Operand slot name -> value: a register name, an int (immediate, literal, resolved
    #: symbol) or None for an unused slot.
    operands: dict[str, Any]
    address: int
    size: int
    #: This instruction's index in the program's step table.
    pc: int
    function: str
    offset: int
    #: Step indices of the branch targets (taken, then fall-through).
    targets: list[int] = field(default_factory=lambda: list[int]())
    wave_size: int = 64
    #: The program (address lookups for calls); typed loosely to avoid an import cycle.
    program: Any = None
    #: GPR index mode in force (``s_set_gpr_idx_on`` earlier in the block): 0 when off,
    #: else 0x100 | the mode bits (1 src0, 2 src1, 4 src2, 8 dst).
    gpr_index_mode: int = 0
    #: The mnemonic as the code spells it, when :attr:`mnemonic` is the older name its
    #: semantics are registered under (:mod:`.renames`); messages name this one.
    written: str = ""
    #: Bits of the word its record leaves undefined that were set (``unmodelled_bits``).
    #: A builder that gives them their meaning says so (:meth:`op_sel`); any other such
    #: instruction stops the run when it executes (see :func:`unmodelled_check`).
    unmodelled: int = 0
    unmodelled_read: bool = False

    @property
    def next_pc(self) -> int:
        return self.pc + 1

    @property
    def where(self) -> str:
        return f"'{self.written or self.mnemonic}' in {self.function} at offset {self.offset:#x}"

    def has(self, name: str) -> bool:
        return self.operands.get(name) is not None

    def get(self, name: str, default: Any = None) -> Any:
        value = self.operands.get(name)
        return default if value is None else value

    def bits(self, name: str) -> int:
        """The width of slot ``name`` in bits (from its register class, or the register)."""
        kind = self.desc.slot(name).kind
        width = kind.width
        if width:
            return width
        return 32

    def scalar(self, name: str, bits: int | None = None) -> ScalarRead:
        return scalar_reader(self.operands.get(name), bits or self.bits(name))

    def vector(self, name: str, bits: int | None = None) -> VectorRead:
        return vector_reader(self.operands.get(name), bits or self.bits(name))

    def sdst(self, name: str = "sdst") -> tuple[int, int]:
        return scalar_target(self.operands.get(name))

    def vdst(self, name: str = "vdst") -> tuple[str, int, int]:
        return vector_target(self.operands.get(name))

    def op_sel(self) -> int:
        """The op_sel bits (src0, src1, src2, dst from bit 0): the record's operand, or for
        a GFX10+ VOP3 record without one (LLVM 19's fake16 ``v_cndmask_b16``...), the
        OPSEL field (bits 14:11) of the word as lifted, which real-true16 code sets."""
        if self.desc.has("op_sel"):
            return int(self.get("op_sel", 0) or 0)
        if "VOP3" in self.desc.classes and self.unmodelled & ~_VOP3_OP_SEL == 0:
            self.unmodelled_read = True
            return (self.unmodelled & _VOP3_OP_SEL) >> 11
        return 0

    def unsupported(self, why: str) -> EmulationError:
        return EmulationError(f"{self.where}: {why}")


#: The OPSEL field of a GFX10+ VOP3 word.
_VOP3_OP_SEL = 0xF << 11

Builder = Callable[[Instruction], Step]


def unmodelled_check(inst: Instruction, step: Step) -> Step:
    """``step``, or a step that stops the run when ``inst`` sets undefined bits of its
    record that its builder did not read: their meaning is unknown to the emulator, and
    running the instruction without them could give a wrong result silently."""
    if not inst.unmodelled or inst.unmodelled_read:
        return step
    return failing(f"{inst.where}: sets bits its LLVM 19 record leaves undefined "
                   f"({inst.unmodelled:#x}), whose meaning the emulator does not model")

SEMANTICS: dict[str, Builder] = {}
#: Mnemonics whose builder reads src0 and writes vdst through :mod:`.vop`, so that their
#: DPP encodings (``_dpp``) share the builder.
DPP_CAPABLE: set[str] = set()


def semantics(*mnemonics: str) -> Callable[[Builder], Builder]:
    """Register a builder for ``mnemonics``."""

    def register(builder: Builder) -> Builder:
        for mnemonic in mnemonics:
            if mnemonic in SEMANTICS:
                raise ValueError(f"semantics of {mnemonic} registered twice")
            SEMANTICS[mnemonic] = builder
        return builder

    return register


def missing(inst: Instruction, why: str = "has no semantics in the emulator") -> Step:
    """A step that stops the run: instructions are never skipped."""
    return failing(f"{inst.where}: {why}")


def failing(message: str) -> Step:
    """A step that stops the run with ``message``."""

    def step(wave: Wave) -> int:
        raise EmulationError(message)

    return step
