"""GFX10+ hazards where spliced code meets code it depends on: the fixes LLVM 19's
``GCNHazardRecognizer`` makes by inserting an instruction.

From GFX10 the hardware resolves data dependencies (none of GFX9's wait-state rules of
:mod:`.hazards` apply), but a few sequences still need help, and LLVM inserts a specific
instruction for each. A payload is new code right before an application instruction, so it
can complete such a sequence with the application's code on either side; after splicing,
every sequence with an inserted instruction in it (the reader, the instruction it depends
on, or one between) is searched for as LLVM searches, and fixed as LLVM fixes it:

=====================================  ==========================  =================================
sequence (walking back from the last)  targets                     fix
=====================================  ==========================  =================================
``v_permlane*`` after a ``v_cmp*``     GFX10.1, GFX11, GFX12        ``v_mov_b32 src0, src0`` before
that wrote EXEC, no other VALU between                              the permlane
VALU reading a VGPR a transcendental   GFX11.0                      ``s_waitcnt_depctr va_vdst(0)``
VALU wrote within 5 VALUs / 1 trans                                 (``0x0fff``) before the reader
VALU reading two VGPRs written by      GFX11, wave64                ``s_waitcnt_depctr 0x0fff``
VALUs around an SALU write of EXEC                                  before the reader
SALU writing an SGPR a VALU read as a  GFX11, wave64                ``s_waitcnt_depctr sa_sdst(0)``
lane mask (no VALU reading another                                  (``0xfffe``) after the SALU
SGPR since)
``s_denorm_mode`` within 3 wait        GFX10                        ``s_nop`` before it
states of a floating-point VMEM/FLAT
atomic
=====================================  ==========================  =================================

The searches follow LLVM's: back through the block, then depth first into predecessors,
each block entered once per search, and each rule's own expiry (a VALU, a wait count, the
counter wait its fix inserts). A sequence of application instructions alone is left as the
compiler left it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, IntAttr
from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.operands import LiteralAttr, SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCodeOp, unpack
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    EXEC_MASK,
    SGPR_MASK,
    VGPR_MASK,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.amdgpu_dialects.mc.relocations import literal_is_pc_relative
from luthier.passes.analysis.cfg import FunctionCFG
from luthier.passes.analysis.effects import Effect, EffectTable
from luthier.passes.layout.hazards import wait_states

#: ``s_waitcnt_depctr`` immediates: every counter at its maximum but VA_VDST (bits 15:12)
#: or SA_SDST (bit 0) at zero (``DepCtr::encodeFieldVaVdst(0)``, ``encodeFieldSaSdst(0)``).
DEPCTR_VA_VDST_0 = 0x0FFF
DEPCTR_SA_SDST_0 = 0xFFFE
_VCC = units_of("vcc")
_M0 = units_of("m0")
_PERMLANES = frozenset({"v_permlane16_b32", "v_permlanex16_b32", "v_permlane64_b32",
                        "v_permlane16_var_b32", "v_permlanex16_var_b32"})
#: VALU instructions that read an SGPR as a lane mask: implicitly VCC (VOP2/DPP forms),
#: or their ``src2`` (VOP3 forms).
_MASK_READERS = frozenset({"v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32",
                           "v_cndmask_b16", "v_cndmask_b32", "v_div_fmas_f32",
                           "v_div_fmas_f64"})
#: Wait counts that end the FP-atomic hazard before ``s_denorm_mode``.
_WAITS = frozenset({"s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_expcnt",
                    "s_waitcnt_lgkmcnt", "s_wait_idle"})
_NOT_FOUND = 1 << 30


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the searches ask of one instruction."""

    valu: bool
    salu: bool
    trans: bool
    #: VMEM, FLAT, DS or EXP: what ends a VA_VDST hazard (the counter drains).
    memory: bool
    fp_atomic: bool
    effect: Effect
    #: Its mnemonic without the encoding suffix (``v_cndmask_b32`` of ``_e64``).
    base: str
    #: The VGPR units of its explicit source operands.
    vgpr_sources: tuple[int, ...]


class _Function:
    """A function's instructions per block, packed code as its instructions (unpacked
    where a fix goes between two of them)."""

    def __init__(self, cfg: FunctionCFG, isa: TargetISA,
                 inserted: set[InstructionOpBase]) -> None:
        self.cfg = cfg
        self.isa = isa
        self.effects = EffectTable.shared(isa)
        self.inserted = {id(op) for op in inserted}
        self.ops: list[list[InstructionOpBase]] = []
        self.owners: list[list[PackedCodeOp | None]] = []
        for block in cfg.blocks:
            ops: list[InstructionOpBase] = []
            owners: list[PackedCodeOp | None] = []
            for op in block.ops:
                if is_instruction_class(type(op)):
                    ops.append(cast(InstructionOpBase, op))
                    owners.append(None)
                elif type(op) is PackedCodeOp:
                    packed = op
                    code = packed.code.data.ops
                    ops.extend(code)
                    owners.extend([packed] * len(code))
                    self.inserted.update(map(id, code))
            self.ops.append(ops)
            self.owners.append(owners)
        self._facts: dict[int, _Facts] = {}

    def facts(self, op: InstructionOpBase) -> _Facts:
        known = self._facts.get(id(op))
        if known is not None:
            return known
        desc = op.instr_def(self.isa)
        classes = desc.classes if desc is not None else frozenset[str]()
        effect = self.effects.of(op)
        sources: list[int] = []
        if desc is not None:
            for slot, attr in zip(desc.operands[desc.num_defs:],
                                  op.mc_operands.data[desc.num_defs:], strict=False):
                if isinstance(attr, PhysRegAttr) and not slot.is_def:
                    units = units_of(attr.data) & VGPR_MASK
                    if units:
                        sources.append(units)
        known = self._facts[id(op)] = _Facts(
            valu="VALU" in classes, salu="SALU" in classes, trans="TRANS" in classes,
            memory=bool(classes & {"MUBUF", "MTBUF", "MIMG", "FLAT", "DS", "EXP"}),
            fp_atomic=bool(classes & {"MUBUF", "MTBUF", "MIMG", "FLAT"})
            and "FPAtomic" in classes,
            effect=effect, base=desc.mnemonic if desc is not None else op.mnemonic,
            vgpr_sources=tuple(sources))
        return known

    def place(self, index: int, position: int) -> Operation:
        """The op of block ``index`` that stands at ``position`` (a packed op with the
        instruction inside is unpacked first)."""
        ops, owners = self.ops[index], self.owners[index]
        owner = owners[position]
        if owner is None:
            return ops[position]
        first = position
        while first > 0 and owners[first - 1] is owner:
            first -= 1
        if first == position:
            return owner  # before the whole packed op
        for offset, copy in enumerate(unpack(owner)):
            self.inserted.add(id(copy))
            ops[first + offset] = copy
            owners[first + offset] = None
        return ops[position]

    def follow_program_counter(self, index: int, position: int) -> None:
        """An instruction went in right after an ``s_getpc_b64``: the PC-relative
        operands of the instructions from ``position`` on that use its value (the run of
        instructions with one, as ``s_add_u32``/``s_addc_u32`` follow it) are measured
        from 4 bytes further back now (LLVM's fix updates its bundle the same way)."""
        ops = self.ops[index]
        while position < len(ops):
            op = ops[position]
            operands = list(op.mc_operands.data)
            moved = False
            for slot, attr in enumerate(operands):
                reference = attr.data.reference if isinstance(attr, SymbolOperandAttr) \
                    else None
                if reference is not None and literal_is_pc_relative(reference.variant):
                    operands[slot] = SymbolOperandAttr(
                        replace(reference, addend=reference.addend + 4).expr)
                    moved = True
            if not moved:
                return
            if self.owners[index][position] is not None:
                self.place(index, position)  # its own copy, not the shared code's
                op = ops[position]
            op.mc_operands = ArrayAttr(operands)
            position += 1

    def insert(self, index: int, position: int, op: InstructionOpBase) -> None:
        """Put ``op`` before the instruction at ``position`` (or at the block's end, before
        its terminator-free tail, when ``position`` is past the last instruction)."""
        block = self.cfg.blocks[index]
        if position < len(self.ops[index]):
            block.insert_op_before(op, self.place(index, position))
        else:
            anchor = self.place(index, position - 1)
            block.insert_op_after(op, anchor)
        self.ops[index].insert(position, op)
        self.owners[index].insert(position, None)
        self.inserted.add(id(op))


_UNSET = 1 << 30


@dataclass
class _Walk:
    """A search's state: how far back it is (VALUs, transcendentals and wait states
    passed), whether it has passed inserted code, and the partial-forwarding rule's
    positions (each source's first write, EXEC's write, counted in VALUs)."""

    touched: bool = False
    valus: int = 0
    trans: int = 0
    waits: int = 0
    defs: dict[int, int] = field(default_factory=dict[int, int])
    exec_at: int = _UNSET

    def copy(self) -> _Walk:
        return _Walk(self.touched, self.valus, self.trans, self.waits, dict(self.defs),
                     self.exec_at)


#: What a search step says of an instruction: the hazard is there, it ended, or go on.
FOUND, EXPIRED, GO_ON = "found", "expired", "go on"

Step = Callable[[_Walk, InstructionOpBase], str]


def _search(function: _Function, index: int, end: int, walk: _Walk, step: Step,
            visited: set[int]) -> _Walk | None:
    """LLVM's ``hasHazard``: back from ``end`` in block ``index`` and into each predecessor
    not visited yet (with the state as it was at the block's start); the state at the
    instruction the hazard was found at, or None."""
    ops = function.ops[index]
    for position in range(end - 1, -1, -1):
        op = ops[position]
        walk.touched |= id(op) in function.inserted
        verdict = step(walk, op)
        if verdict == FOUND:
            return walk
        if verdict == EXPIRED:
            return None
        facts = function.facts(op)
        walk.valus += facts.valu
        walk.trans += facts.trans
        walk.waits += wait_states(op)
    for predecessor in function.cfg.predecessors[index]:
        if predecessor in visited:
            continue
        visited.add(predecessor)
        found = _search(function, predecessor, len(function.ops[predecessor]),
                        walk.copy(), step, visited)
        if found is not None:
            return found
    return None


def _depctr(op: InstructionOpBase) -> int | None:
    """The immediate of an ``s_waitcnt_depctr``, else None."""
    if op.mnemonic != "s_waitcnt_depctr" or not op.mc_operands.data:
        return None
    value = op.mc_operands.data[0]
    if isinstance(value, LiteralAttr):
        return value.data
    if isinstance(value, IntAttr):
        return cast(int, value.data)  # pyright: ignore[reportUnknownMemberType]
    return None


def _depctr_zero(op: InstructionOpBase, field: int) -> bool:
    """Whether ``op`` is an ``s_waitcnt_depctr`` with the field ``field`` (a mask) 0."""
    imm = _depctr(op)
    return imm is not None and not imm & field


class _Rules:
    """The rules of one target and wave size, each a search from one instruction."""

    def __init__(self, function: _Function) -> None:
        self.function = function
        subtarget = function.isa.subtarget
        wave64 = function.isa.wavefront_size == 64
        self.permlane = subtarget.has_vcmpx_permlane_hazard
        self.trans_use = subtarget.has_valu_trans_use_hazard
        self.partial_forwarding = subtarget.has_valu_partial_forwarding_hazard and wave64
        self.mask_write = subtarget.has_valu_mask_write_hazard and wave64
        self.denorm = subtarget.has_fp_atomic_to_denorm_mode_hazard

    @property
    def any(self) -> bool:
        return self.permlane or self.trans_use or self.partial_forwarding \
            or self.mask_write or self.denorm

    def _found(self, index: int, position: int, step: Step) -> _Walk | None:
        reader = self.function.ops[index][position]
        walk = _search(self.function, index, position, _Walk(), step, set())
        if walk is None:
            return None
        # A sequence of application instructions alone is the compiler's to fix.
        return walk if walk.touched or id(reader) in self.function.inserted else None

    def _fewest_waits(self, index: int, position: int) -> int:
        """LLVM's getWaitStatesSince for the FP-atomic rule: the fewest wait states
        between a floating-point atomic and the ``s_denorm_mode`` at ``position`` over the
        paths back (each block entered once), counting only sequences with inserted
        code; a large number when none."""
        function = self.function
        reader_inserted = id(function.ops[index][position]) in function.inserted
        step = _denorm_step(function)
        fewest = _NOT_FOUND
        visited: set[int] = set()

        def walk_back(block: int, end: int, walk: _Walk) -> None:
            nonlocal fewest
            for at in range(end - 1, -1, -1):
                op = function.ops[block][at]
                walk.touched |= id(op) in function.inserted
                verdict = step(walk, op)
                if verdict == FOUND:
                    if walk.touched or reader_inserted:
                        fewest = min(fewest, walk.waits)
                    return
                if verdict == EXPIRED:
                    return
                walk.waits += wait_states(op)
            for predecessor in function.cfg.predecessors[block]:
                if predecessor not in visited:
                    visited.add(predecessor)
                    walk_back(predecessor, len(function.ops[predecessor]), walk.copy())

        walk_back(index, position, _Walk())
        return fewest

    def fix(self, index: int, position: int, build: InstBuilder) -> int:
        """Fix the sequences that end at the instruction at ``position``; returns how
        many instructions went in before it (a fix after it is not counted)."""
        function = self.function
        op = function.ops[index][position]
        facts = function.facts(op)
        before: list[InstructionOpBase] = []
        if self.permlane and facts.base in _PERMLANES \
                and self._found(index, position, _vcmpx_step(function)) is not None:
            source = _source0(op)
            if source is not None:
                before.append(build.inst("v_mov_b32_e32", [source, source]))
        if facts.valu and facts.vgpr_sources and (
                self.trans_use and self._found(
                    index, position, _trans_use_step(function, facts)) is not None
                or self.partial_forwarding and len(set(facts.vgpr_sources)) > 1
                and self._found(index, position,
                                _partial_forwarding_step(function, facts)) is not None):
            before.append(build.inst("s_waitcnt_depctr", [DEPCTR_VA_VDST_0]))
        if self.denorm and facts.base == "s_denorm_mode":
            waits = self._fewest_waits(index, position)
            if waits < 3:
                before.append(build.inst("s_nop", [3 - waits - 1]))
        for offset, new in enumerate(before):
            function.insert(index, position + offset, new)
        if self.mask_write and facts.salu:
            written = _mask_hazard_register(function, op)
            writer = position + len(before)
            if written and self._found(index, writer,
                                       _mask_write_step(function, written)) is not None:
                function.insert(index, writer + 1,
                                build.inst("s_waitcnt_depctr", [DEPCTR_SA_SDST_0]))
                if facts.base == "s_getpc_b64":
                    function.follow_program_counter(index, writer + 2)
        return len(before)


def _source0(op: InstructionOpBase) -> PhysRegAttr | None:
    desc_operands = op.mc_operands.data
    for attr in desc_operands[1:]:
        if isinstance(attr, PhysRegAttr) and units_of(attr.data) & VGPR_MASK:
            return attr
    return None


def _vcmpx_step(function: _Function) -> Step:
    def step(walk: _Walk, op: InstructionOpBase) -> str:
        facts = function.facts(op)
        if facts.valu and facts.effect.defs & EXEC_MASK and facts.base.startswith("v_cmp"):
            return FOUND
        if facts.valu and facts.base != "v_nop":
            return EXPIRED
        return GO_ON
    return step


def _trans_use_step(function: _Function, reader: _Facts) -> Step:
    sources = 0
    for units in reader.vgpr_sources:
        sources |= units

    def step(walk: _Walk, op: InstructionOpBase) -> str:
        if walk.valus > 5 or walk.trans > 1:
            return EXPIRED
        facts = function.facts(op)
        # LLVM ends this one on exactly the counter wait its fix inserts.
        if facts.memory or _depctr(op) == DEPCTR_VA_VDST_0:
            return EXPIRED
        if facts.trans and facts.effect.defs & sources:
            return FOUND
        return GO_ON
    return step


def _partial_forwarding_step(function: _Function, reader: _Facts) -> Step:
    """LLVM's fixVALUPartialForwardingHazard: Va <- VALU; (intv1); EXEC <- SALU; (intv2);
    Vb <- VALU; (intv3); the reader of Va and Vb, with intv1 + intv2 <= 2 VALUs and
    intv3 <= 4 (positions counted in VALUs back from the reader, in the walk's state)."""
    sources = tuple(dict.fromkeys(reader.vgpr_sources))

    def step(walk: _Walk, op: InstructionOpBase) -> str:
        if walk.valus > 8:
            return EXPIRED
        facts = function.facts(op)
        if facts.memory or _depctr_zero(op, 0xF000):
            return EXPIRED
        defs = walk.defs
        changed = False
        if facts.valu:
            for source in sources:
                if source not in defs and facts.effect.defs & source:
                    defs[source] = walk.valus
                    changed = True
        elif facts.salu and walk.exec_at == _UNSET and defs \
                and facts.effect.defs & EXEC_MASK:
            walk.exec_at = walk.valus
            changed = True
        if walk.valus > 4 and not defs:
            return EXPIRED
        if not changed or walk.exec_at == _UNSET:
            return GO_ON
        pre = min((at for at in defs.values() if at >= walk.exec_at), default=_UNSET)
        post = min((at for at in defs.values() if at < walk.exec_at), default=_UNSET)
        if post == _UNSET:
            return GO_ON
        if post > 4:
            return EXPIRED
        between = walk.exec_at - post - 1
        if between > 2:
            return EXPIRED
        if pre == _UNSET:
            return GO_ON
        before = pre - walk.exec_at
        if before > 2 or before + between > 2:
            return EXPIRED
        return FOUND
    return step


def _mask_hazard_register(function: _Function, op: InstructionOpBase) -> int:
    """The units of an SALU's ``sdst`` that a lane-mask hazard can involve (not EXEC or
    M0); 0 when none."""
    desc = op.instr_def(function.isa)
    if desc is None:
        return 0
    written = next((attr for slot, attr in zip(desc.operands, op.mc_operands.data,
                                               strict=False) if slot.name == "sdst"), None)
    if not isinstance(written, PhysRegAttr):
        return 0
    units = units_of(written.data)
    if units & (EXEC_MASK | _M0) or not units & (SGPR_MASK | _VCC):
        return 0
    return units


def _mask_read(function: _Function, op: InstructionOpBase) -> int:
    """The units ``op`` reads as a lane mask (0 if it reads none)."""
    if function.facts(op).base not in _MASK_READERS:
        return 0
    desc = op.instr_def(function.isa)
    if desc is None:
        return 0
    if "VCC" in desc.uses:
        return _VCC
    for slot, attr in zip(desc.operands, op.mc_operands.data, strict=False):
        if slot.name == "src2" and isinstance(attr, PhysRegAttr):
            return units_of(attr.data)
    return 0


def _mask_write_step(function: _Function, written: int) -> Step:
    """Back from the SALU write: a VALU's lane-mask read of the register is the hazard; a
    counter wait on SA_SDST, or a VALU reading another SGPR (VCC included) or a literal,
    ends it. (LLVM also ends it at any VALU with a modifier or clamp operand, which it
    counts as a non-inline constant; this search goes on past those, fixing a few more
    sequences than LLVM would.)"""
    def step(walk: _Walk, op: InstructionOpBase) -> str:
        if _mask_read(function, op) & written:
            return FOUND
        if _depctr_zero(op, 0x0001):
            return EXPIRED
        facts = function.facts(op)
        if not facts.valu:
            return GO_ON
        desc = op.instr_def(function.isa)
        if desc is not None and "VCC" in desc.uses:
            return EXPIRED  # an implicit VCC read
        for slot, attr in zip(desc.operands if desc else (), op.mc_operands.data,
                              strict=False):
            if slot.is_def:
                continue
            if isinstance(attr, PhysRegAttr):
                units = units_of(attr.data)
                if units & ~EXEC_MASK & (SGPR_MASK | _VCC):
                    return EXPIRED
            elif isinstance(attr, LiteralAttr | SymbolOperandAttr):
                return EXPIRED
        return GO_ON
    return step


def _denorm_step(function: _Function) -> Step:
    def step(walk: _Walk, op: InstructionOpBase) -> str:
        facts = function.facts(op)
        if facts.fp_atomic:
            return FOUND
        if walk.waits + wait_states(op) >= 3 or facts.valu or facts.base in _WAITS:
            return EXPIRED
        return GO_ON
    return step


def insert_mitigations(cfg: FunctionCFG, isa: TargetISA,
                       inserted: set[InstructionOpBase]) -> int:
    """Fix the GFX10+ hazard sequences with an instruction of ``inserted`` or of a packed
    op in them; returns the instructions added."""
    function = _Function(cfg, isa, inserted)
    rules = _Rules(function)
    if not rules.any or not function.inserted:
        return 0
    build = InstBuilder(isa.name, isa.wavefront_size)
    added = 0
    for index in range(len(cfg.blocks)):
        position = 0
        while position < len(function.ops[index]):
            count = len(function.ops[index])
            added_before = rules.fix(index, position, build)
            added += len(function.ops[index]) - count
            position += added_before + 1
    return added
