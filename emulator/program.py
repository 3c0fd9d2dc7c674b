"""A lifted code object made runnable: code laid out at addresses, steps compiled.

The IR is symbolic (branch targets are blocks, PC-relative constants are ``sym@rel32@lo``
expressions), so the emulator lays the code object out itself, as a loader would: every
function at an aligned address in a text segment, every instruction at the offset its
encoding gives it, every global variable in a data segment after the text. Symbolic
operands are then resolved against these addresses exactly as the linker's relocation
would (``S + A - P``, P being the literal's address), so ``s_getpc_b64`` + ``s_add_u32``
computes the variable's address, and ``s_swappc_b64`` to a computed address finds the
callee's first instruction. All functions share one step table; a pc is an index into it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Block

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, branch_label
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    FunctionLayout,
    UnsizedError,
    function_layout,
    literal_offset,
)
from luthier.amdgpu_dialects.amdgpu_mc.metadata import attr_to_metadata
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    BranchLabelAttr,
    NotMCOperandError,
    SymbolOperandAttr,
    mc_operand,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    GlobalOp,
    KernelOp,
    LabelOp,
)
from luthier.amdgpu_dialects.isa.target import EMULATED_TARGETS, TargetISA, load_target
from luthier.amdgpu_dialects.mc.operand_decoders import Literal
from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.emulator.errors import EmulationError
from luthier.emulator.memory import TEXT_BASE, Buffer, GlobalMemory
from luthier.emulator.semantics.flow import indexed_builder
from luthier.emulator.semantics.registry import (
    DPP_CAPABLE,
    SEMANTICS,
    Builder,
    Instruction,
    Step,
    failing,
    missing,
    unmodelled_check,
)
from luthier.emulator.semantics.renames import canonical_mnemonic
from luthier.emulator.semantics.vop import base_name
from luthier.emulator.semantics.vopd import vopd_builder

_MASK32 = 0xFFFFFFFF


@dataclass
class GlobalPlacement:
    name: str
    address: int
    size: int
    data: bytes
    relocations: list[tuple[int, str, str, int]]


@dataclass
class KernelInfo:
    """What the dispatch needs to know about one kernel."""

    name: str
    entry: int
    descriptor: KernelDescriptor
    #: The kernel's entry of ``amdhsa.kernels`` (``.args``, ``.kernarg_segment_size``...).
    metadata: dict[str, Any]


@dataclass
class Program:
    """Every function of a code object as steps in one table, plus the layout."""

    processor: str
    wave_size: int
    steps: list[Step] = field(default_factory=lambda: list[Step]())
    instructions: list[Instruction] = field(default_factory=lambda: list[Instruction]())
    kernels: dict[str, KernelInfo] = field(default_factory=lambda: dict[str, KernelInfo]())
    #: Function or variable name -> address.
    symbols: dict[str, int] = field(default_factory=lambda: dict[str, int]())
    #: Instruction address -> pc, for indirect jumps and calls.
    pc_of_address: dict[int, int] = field(default_factory=lambda: dict[int, int]())
    globals: list[GlobalPlacement] = field(default_factory=lambda: list[GlobalPlacement]())
    #: Symbol -> address of its GOT entry (made for ``gotpcrel`` references).
    got: dict[str, int] = field(default_factory=lambda: dict[str, int]())
    got_address: int = 0

    def pc_at(self, address: int, where: str) -> int:
        pc = self.pc_of_address.get(address)
        if pc is None:
            raise EmulationError(f"{where}: jump to {address:#x}, which is not the start of "
                                 "an instruction of the code object")
        return pc

    def map_globals(self, memory: GlobalMemory) -> dict[str, Buffer]:
        """Place the code object's variables (and GOT) into a run's global memory."""
        buffers: dict[str, Buffer] = {}
        for placement in self.globals:
            data = bytearray(placement.data)
            for offset, kind, symbol, addend in placement.relocations:
                target = self.symbols.get(symbol)
                if target is None:
                    raise EmulationError(f"relocation in {placement.name} against unknown "
                                         f"symbol {symbol}")
                value = target + addend
                if kind in ("R_AMDGPU_ABS64", "R_AMDGPU_RELATIVE64"):
                    data[offset:offset + 8] = value.to_bytes(8, "little")
                elif kind in ("R_AMDGPU_ABS32", "R_AMDGPU_ABS32_LO"):
                    data[offset:offset + 4] = (value & _MASK32).to_bytes(4, "little")
                elif kind == "R_AMDGPU_ABS32_HI":
                    data[offset:offset + 4] = (value >> 32).to_bytes(4, "little")
                else:
                    raise EmulationError(f"relocation {kind} in {placement.name} is not "
                                         "supported")
            buffer = Buffer(placement.name, placement.address,
                            _bytes_array(bytes(data), placement.size))
            buffers[placement.name] = memory.map(buffer)
        if self.got:
            table = bytearray(8 * len(self.got))
            for symbol, address in self.got.items():
                at = address - self.got_address
                table[at:at + 8] = self.symbols[symbol].to_bytes(8, "little")
            memory.map(Buffer(".got", self.got_address,
                              _bytes_array(bytes(table), len(table))))
        return buffers


def _bytes_array(data: bytes, size: int) -> npt.NDArray[np.uint8]:
    """``size`` bytes (at least one, so that the symbol has an address) holding ``data``."""
    array = np.zeros(max(size, 1), np.uint8)
    raw = np.frombuffer(data, np.uint8)[:size]
    array[:raw.size] = raw
    return array


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _int_property(op: Any, name: str, default: int) -> int:
    attr = op.properties.get(name)
    if isinstance(attr, IntegerAttr):
        return int(cast(IntegerAttr[Any], attr).value.data)
    return default


class _Compiler:
    def __init__(self, module: CodeObjectOp) -> None:
        self.module = module
        self.processor = module.processor
        # An RDNA code object runs in the wave size its kernels were compiled for.
        self.isa: TargetISA = load_target(self.processor, module.wave_size)
        self.program = Program(self.processor, self.isa.wavefront_size)

    # -- layout -------------------------------------------------------------------------------

    def _functions(self) -> list[FunctionLikeOp]:
        return [op for op in self.module.body.block.ops if isinstance(op, FunctionLikeOp)]

    def layout(self) -> list[tuple[FunctionLikeOp, FunctionLayout]]:
        """Addresses of every function (its instructions where the dialect's layout puts
        them); variables after the text."""
        address = TEXT_BASE + len(self.module.leading_bytes)
        laid: list[tuple[FunctionLikeOp, FunctionLayout]] = []
        for function in self._functions():
            name = function.sym_name.data
            address = _align(address, function.code_alignment)
            self.program.symbols[name] = address
            try:
                code = function_layout(function, self.isa)
            except UnsizedError as error:
                raise EmulationError(f"{name}: {error}") from None
            laid.append((function, code))
            address += code.size + len(function.trailing_bytes)
        data = _align(address + 4096, 4096)
        for op in self.module.body.block.ops:
            if not isinstance(op, GlobalOp):
                continue
            data = _align(data, max(_int_property(op, "alignment", 1), 1))
            name = op.sym_name.data
            size = int(op.size.value.data)
            relocations: list[tuple[int, str, str, int]] = []
            if op.relocations is not None:
                for relocation in op.relocations.data:
                    relocations.append(relocation.data)
            self.program.globals.append(
                GlobalPlacement(name, data, size, op.initial_bytes, relocations))
            self.program.symbols[name] = data
            data += max(size, 1)
        self.program.got_address = _align(data + 256, 256)
        return laid

    # -- symbols ---------------------------------------------------------------------------

    def _got_entry(self, symbol: str) -> int:
        entry = self.program.got.get(symbol)
        if entry is None:
            entry = self.program.got[symbol] = self.program.got_address + 8 * len(
                self.program.got)
        return entry

    def _resolve(self, attr: SymbolOperandAttr, literal_address: int, where: str) -> int:
        reference = attr.data.reference
        if reference is None:
            raise EmulationError(f"{where}: cannot resolve symbolic operand {attr.data.text()}")
        symbol = self.program.symbols.get(reference.symbol)
        if symbol is None:
            raise EmulationError(f"{where}: symbol {reference.symbol} is not defined in the "
                                 "code object")
        variant = reference.variant
        if variant.startswith("gotpcrel"):
            value = self._got_entry(reference.symbol) + reference.addend - literal_address
        elif variant.startswith("abs32") or variant == "abs64":
            value = symbol + reference.addend
        else:
            value = symbol + reference.addend - literal_address
        if variant.endswith("@hi"):
            return (value >> 32) & _MASK32
        return value & _MASK32

    # -- compile ---------------------------------------------------------------------------

    def compile(self) -> Program:
        laid = self.layout()
        program = self.program
        pending: list[tuple[Instruction, list[Block], str | None]] = []
        # Branches into other functions' code (hand-written): their label's pc, once known.
        label_pc: dict[str, int] = {}
        cross: list[tuple[Instruction, str, list[int]]] = []
        for function, code in laid:
            name = function.sym_name.data
            start = program.symbols[name]
            block_pc: dict[Block, int] = {}
            blocks = code.blocks
            for block in blocks:
                block_pc[block] = len(program.instructions)
                index_mode = 0  # GPR index mode regions are followed within a block
                for op in block.ops:
                    if type(op) is LabelOp:
                        label_pc[op.label.data] = len(program.instructions)
                    if not isinstance(op, InstructionOpBase):
                        continue  # a fall-through or a label: the layout refused the rest
                    address = start + code.offsets[op]
                    inst = self._instruction(op, address, code.sizes[op], name, start)
                    index_mode = _next_index_mode(inst, index_mode)
                    program.pc_of_address[address] = inst.pc
                    program.instructions.append(inst)
                    if op.KIND == "branch":
                        label = branch_label(op)
                        pending.append((inst, list(op.successors),
                                        label.data if label is not None else None))
            for inst, successors, label in pending:
                targets = [block_pc[block] for block in successors]
                if label is not None:
                    cross.append((inst, label, targets))
                else:
                    inst.targets = targets
            pending.clear()
            if isinstance(function, KernelOp):
                program.kernels[name] = KernelInfo(name, block_pc[blocks[0]] if blocks else 0,
                                                   function.descriptor.data, {})
        for inst, label, targets in cross:
            if label not in label_pc:
                raise EmulationError(f"'{inst.mnemonic}' in {inst.function} goes to label "
                                     f"\"{label}\", which no function has")
            inst.targets = [label_pc[label], *targets]
        self._kernel_metadata()
        for inst in program.instructions:
            builder = semantics_of(inst.mnemonic)
            if inst.gpr_index_mode and inst.mnemonic.startswith("v_"):
                builder = indexed_builder(inst.mnemonic)
            try:
                step = missing(inst) if builder is None \
                    else unmodelled_check(inst, builder(inst))
            except EmulationError as error:
                # A form the family does not model (say MFMA broadcasts): it stops the run
                # when it executes, not the compilation of code that may never reach it.
                step = failing(str(error))
            program.steps.append(step)
        return program

    def _instruction(self, op: InstructionOpBase, address: int, size: int, function: str,
                     start: int) -> Instruction:
        desc = self.isa.by_name[op.opcode.data]
        where = f"'{op.mnemonic}' in {function} at offset {address - start:#x}"
        operands: dict[str, Any] = {}
        for slot, attr in zip(desc.operands, op.mc_operands.data, strict=True):
            operands[slot.name] = self._operand(attr, address + literal_offset(op, self.isa),
                                                where)
        mnemonic = canonical_mnemonic(op.mnemonic)
        return Instruction(mnemonic, desc, operands, address, size,
                           len(self.program.instructions), function, address - start,
                           wave_size=self.program.wave_size, program=self.program,
                           written=op.mnemonic if mnemonic != op.mnemonic else "",
                           unmodelled=0 if op.unmodelled_bits is None
                           else op.unmodelled_bits.data)

    def _operand(self, attr: Attribute, literal_address: int, where: str) -> Any:
        """A slot's value as the semantics read it: symbolic operands resolved against the
        program's layout, every other one as :func:`operand_value` gives it."""
        if isinstance(attr, SymbolOperandAttr):
            return self._resolve(attr, literal_address, where)
        if isinstance(attr, BranchLabelAttr):
            return None  # the branch's target is ``targets[0]``, as for a block
        return operand_value(attr, where)

    def _kernel_metadata(self) -> None:
        metadata = self.module.metadata
        if metadata is None:
            return
        raw = attr_to_metadata(metadata)
        for entry in cast(list[dict[str, Any]], raw.get("amdhsa.kernels", [])):
            name = str(entry.get(".name", ""))
            info = self.program.kernels.get(name)
            if info is not None:
                info.metadata = entry


def operand_value(attr: Attribute, where: str) -> Any:
    """An operand as the semantics read it: the MC layer's value (the decoder's, for lifted
    code: signed offsets already signed, registers by name, inline constants as the
    integers they encode) with literals as plain ints. The emulator never reads encoding
    fields itself, so there is one view of every operand (a test walks every instruction
    definition and checks it against the ISA's field meanings)."""
    try:
        value = mc_operand(attr)
    except NotMCOperandError as error:
        raise EmulationError(f"{where}: {error}: allocate registers before running") from None
    return int(value) if isinstance(value, Literal) else value


def _next_index_mode(inst: Instruction, mode: int) -> int:
    """Record on ``inst`` the GPR index mode it runs in; return the mode after it."""
    if inst.mnemonic == "s_set_gpr_idx_on":
        return 0x100 | (int(inst.get("src1", 0)) & 0xF)
    if inst.mnemonic == "s_set_gpr_idx_mode" and mode:
        return 0x100 | (int(inst.get("simm16", 0)) & 0xF)
    if inst.mnemonic == "s_set_gpr_idx_off":
        return 0
    inst.gpr_index_mode = mode
    return mode


def semantics_of(mnemonic: str) -> Builder | None:
    """The builder of ``mnemonic``: its own, else that of its base operation (the VOP3,
    VOP2/VOPC, SDWA and, for the operations that go through :mod:`.semantics.vop`, DPP
    encodings share semantics)."""
    if mnemonic.startswith("v_dual_"):
        return vopd_builder
    builder = SEMANTICS.get(mnemonic)
    if builder is None:
        base = base_name(mnemonic)
        if base != mnemonic and (not mnemonic.endswith("_dpp") or base in DPP_CAPABLE):
            builder = SEMANTICS.get(base)
    return builder


def compile_program(module: CodeObjectOp) -> Program:
    """Lay out and compile every function of ``module``; :class:`EmulationError` for a
    target the emulator has no semantics for (one that only lifts)."""
    if module.processor not in EMULATED_TARGETS:
        raise EmulationError(f"the emulator runs {', '.join(EMULATED_TARGETS)} code, not "
                             f"{module.processor} yet")
    return _Compiler(module).compile()

