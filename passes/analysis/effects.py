"""What one instruction reads and writes, in register units (see :mod:`.units`).

The effect of an ``amdgpu_mc`` instruction comes from its ISA record: the first ``num_defs``
operand slots are written, the others read, and the record's implicit Defs/Uses (EXEC, VCC,
SCC, M0, MODE, FLAT_SCR) are added. Writes are split three ways, because liveness may only
treat a write as the end of a value when it replaces all of it:

* ``scalar_defs``: SGPRs and special registers, written whole (a VALU compare writes every
  bit of VCC, zeros for inactive lanes) — these end the old value;
* ``vector_defs``: VGPR/AGPR writes that replace the 32 bits of every *active* lane; they end
  the old value only where EXEC holds every lane that may still read it (see
  :mod:`.liveness`);
* ``partial_defs``: writes that keep part of the old value — tied operands (atomics that
  return), D16 loads, 16-bit ALU results, a 16-bit half of a VGPR (true16's ``v25.h``),
  SDWA and DPP forms, ``v_writelane`` — which are read-modify-writes and never end a value.

Wave size. TableGen names the lane masks ``EXEC`` and ``VCC`` in every wave size; a wave32
instruction reads and writes only their low halves (LLVM rewrites an implicit ``VCC`` to
``VCC_LO`` in wave32, ``SIInstrInfo::fixImplicitOperands``, and the hardware's EXEC of a
wave32 wave is ``exec_lo``). ``exec_hi`` and ``vcc_hi`` are then registers no instruction
touches implicitly: a wave32 table maps ``EXEC``/``VCC`` to ``exec_lo``/``vcc_lo``
(:func:`lane_mask`), so liveness never keeps a high half alive that nothing reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    IMPLICIT_REGISTERS,
    VECTOR_MASK,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr, vgpr_half
from luthier.amdgpu_dialects.isa.target import InstrDef, TargetISA

#: LDS instructions that still read M0 from GFX9 on (global wave sync, append/consume,
#: ordered count, the add-thread-id forms). The others carry M0 among their implicit uses
#: only because GFX9 shares their encodings' records with GFX8, which bounded LDS access
#: by M0; from GFX9 on LLVM no longer initialises M0 for them (``ldsRequiresM0Init``).
_DS_READS_M0 = re.compile(r"^ds_(?:gws_|append|consume|ordered_count|.*addtid)")

#: 16-bit results, D16 memory forms, and encodings whose destination write can be partial.
_PARTIAL_MNEMONIC = re.compile(r"d16|_(?:f16|i16|u16|b16)(?:_|$)|_sdwa$|_dpp$|^v_writelane")


def writes_partially(mnemonic: str) -> bool:
    """Whether the vector result of ``mnemonic`` may keep part of the old value: 16-bit
    results, D16 memory forms, SDWA/DPP encodings, ``v_writelane`` (so no such write ends
    a value; liveness and the payload allocator both ask)."""
    return _PARTIAL_MNEMONIC.search(mnemonic) is not None


class EffectError(ValueError):
    """An instruction whose register effect cannot be known (a virtual register, an
    opcode the target does not have)."""


@dataclass(frozen=True, slots=True)
class Effect:
    """Register units an instruction reads and writes (bit masks)."""

    uses: int
    scalar_defs: int
    vector_defs: int
    partial_defs: int
    #: Whether it writes EXEC (explicitly or implicitly).
    writes_exec: bool

    @property
    def defs(self) -> int:
        return self.scalar_defs | self.vector_defs | self.partial_defs


def _operand_masks(desc: InstrDef, operands: ArrayAttr[Attribute],
                   where: str) -> tuple[int, int, int]:
    """(uses, defs, tied defs) of the explicit operands."""
    uses = defs = tied = 0
    tied_names = set(desc.tied)
    for index, (slot, attr) in enumerate(zip(desc.operands, operands.data, strict=True)):
        if type(attr) is not PhysRegAttr and not isinstance(attr, PhysRegAttr):
            if isinstance(attr, VirtRegAttr):
                raise EffectError(f"{where}: virtual register {attr.text} has no units yet")
            continue
        mask = units_of(attr.data)
        if index < desc.num_defs:
            defs |= mask
            # A 16-bit half (true16's ``v25.h``) keeps the other half of its unit.
            if slot.name in tied_names or vgpr_half(attr.data) is not None:
                tied |= mask
        else:
            uses |= mask
    return uses, defs, tied


def lane_mask(name: str, wavefront_size: int) -> str:
    """The register a lane mask (``exec``, ``vcc``) is in a wave of ``wavefront_size``
    lanes: the 64-bit pair in wave64, its low half in wave32."""
    return name if wavefront_size == 64 else f"{name}_lo"


#: TableGen's implicit lane masks, which stand for their low halves in wave32.
_LANE_MASKS = {"EXEC": "exec", "VCC": "vcc"}


def _implicit(names: tuple[str, ...], wavefront_size: int) -> int:
    mask = 0
    for name in names:
        lane = _LANE_MASKS.get(name)
        register = lane_mask(lane, wavefront_size) if lane is not None \
            else IMPLICIT_REGISTERS.get(name)
        if register is None:
            raise EffectError(f"implicit register {name} is not modelled")
        mask |= units_of(register)
    return mask


class EffectTable:
    """Effects of one target's instructions, memoised per (opcode, operand array)."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        #: The wave's EXEC: ``exec`` in wave64, ``exec_lo`` in wave32 (:func:`lane_mask`).
        self.exec_register = lane_mask("exec", isa.wavefront_size)
        self.exec_units = units_of(self.exec_register)
        self._memo: dict[tuple[str, int], tuple[ArrayAttr[Attribute], Effect]] = {}

    @staticmethod
    def shared(isa: TargetISA) -> EffectTable:
        """The process's table for ``isa``. Liveness, register usage, wait states, the
        descriptors and the verifier ask the effects of the same instructions one after
        the other, and an effect is a function of the target, the opcode and the operands
        alone: one table computes each once (its memo is bounded, :data:`_MEMO_LIMIT`, as
        it keeps the operand arrays it has seen alive)."""
        key = (isa.name, isa.wavefront_size)
        table = _SHARED.get(key)
        if table is None or table.isa is not isa:
            table = _SHARED[key] = EffectTable(isa)
        return table

    def of(self, op: InstructionOpBase) -> Effect:
        operands = op.mc_operands
        opcode = op.opcode.data
        key = (opcode, id(operands))
        hit = self._memo.get(key)
        if hit is not None and hit[0] is operands:
            return hit[1]
        effect = self._compute(opcode, op.mnemonic, operands)
        if len(self._memo) >= _MEMO_LIMIT:
            self._memo.clear()
        self._memo[key] = (operands, effect)
        return effect

    def _compute(self, opcode: str, mnemonic: str, operands: ArrayAttr[Attribute]) -> Effect:
        desc = self.isa.by_name.get(opcode)
        if desc is None:
            raise EffectError(f"'{opcode}' is not an instruction of {self.isa.name}")
        uses, defs, tied = _operand_masks(desc, operands, mnemonic)
        implicit_uses = desc.uses
        if "DS" in desc.classes and "M0" in implicit_uses and not _DS_READS_M0.match(mnemonic):
            implicit_uses = tuple(name for name in implicit_uses if name != "M0")
        uses |= _implicit(implicit_uses, self.isa.wavefront_size)
        defs |= _implicit(desc.defs, self.isa.wavefront_size)
        writes_exec = bool(defs & self.exec_units)
        vector = defs & VECTOR_MASK
        partial = tied
        if vector and writes_partially(mnemonic):
            partial |= vector
        vector &= ~partial
        scalar = defs & ~VECTOR_MASK & ~partial
        return Effect(uses, scalar, vector, partial, writes_exec)


#: (target name, wave size) -> the table :meth:`EffectTable.shared` gives.
_SHARED: dict[tuple[str, int], EffectTable] = {}
#: Entries a table keeps before it starts again (a library's distinct operand arrays are
#: tens of thousands).
_MEMO_LIMIT = 1 << 18
