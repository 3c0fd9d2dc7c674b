"""Build ``amdgpu_mc`` instruction ops from a mnemonic and typed operands, without text.

Instruction selection and the passes that insert code name an instruction the way an
AMDGPU engineer writes it (``s_add_u32``, ``v_add_u32_e64``, ``scratch_load_dword``) and
give its operands as attributes: physical registers (:class:`PhysRegAttr`), virtual
registers (:class:`VirtRegAttr`, sub-registers included), immediates, symbolic operands
(:class:`SymbolOperandAttr`) and keywords (``off``), plus named operands (``glc``,
``offset:``). Which ISA record that means (``_e32`` or VOP3, ``saddr`` or not, ``_IMM`` or
``_SGPR``) is what the target's assembler decides for the same operands, so the operands
become the assembler's operand items directly and its matcher picks the record, checks
register classes, literals and the constant bus (:meth:`AsmParser.match_items`). No
statement is printed or parsed. A virtual register fits a slot of its file and width.

A matched shape (mnemonic, operand kinds, which operands are the same register) is
cached, so a pass that inserts the same sequence at ten thousand points matches it once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Block

from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    branch_opcode,
    build_instruction,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import NONE, SymbolOperandAttr, operand_attribute
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.target_context import target_key
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc import operand_syntax
from luthier.amdgpu_dialects.mc.asm_expr import SymExpr
from luthier.amdgpu_dialects.mc.asm_matcher import BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER
from luthier.amdgpu_dialects.mc.asm_operands import Item
from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.amdgpu_dialects.target.subtarget import subtarget_for


@dataclass(frozen=True, slots=True)
class Keyword:
    """A positional word of an instruction's syntax (``off`` for a missing address)."""

    word: str


#: ``off``: the absent address register of global and scratch instructions.
OFF = Keyword("off")

#: An operand as selection gives it.
BuildOperand = VirtRegAttr | PhysRegAttr | SymbolOperandAttr | int | Keyword


class MCBuildError(ValueError):
    """The target has no instruction of that mnemonic for these operands (a lowering
    bug, or an operand combination the target does not have)."""


def reg(name: str) -> PhysRegAttr:
    """The physical register ``name`` (``exec``, ``s4``, ``v[2:3]``)."""
    return PhysRegAttr.get_register(name)


#: The registers inserted code names most.
EXEC = reg("exec")
VCC = reg("vcc")
M0 = reg("m0")
#: EXEC and VCC of a wave32 wave: their low halves (the high halves are not the wave's).
EXEC_LO = reg("exec_lo")
VCC_LO = reg("vcc_lo")


def waitcnt(**counts: int) -> int:
    """The ``s_waitcnt`` immediate that waits for the given counters (``vmcnt=0``); the
    others are left at their maximum (not waited for)."""
    value = operand_syntax.WAITCNT_ALL
    for counter, count in counts.items():
        value = operand_syntax.waitcnt_set(value, counter, count)
    return value


#: How an operand takes part in matching: ("v", file, bits, first position of the same
#: register), ("r", name), ("i", value), ("s", expression) or ("w", word).
_Shape = tuple[str | int | SymExpr, ...]


@dataclass(frozen=True, slots=True)
class _Template:
    """A matched shape: the op name, the record, and each slot's attribute, or the
    position of the operand that fills it (virtual registers, symbolic operands)."""

    mnemonic: str
    opcode: str
    slots: tuple[Attribute | int, ...]


class InstBuilder:
    """Makes instruction ops for one processor, in its default wave size or in
    ``wavefront_size`` lanes (an RDNA code object in wave64 names ``vcc`` and 64-bit lane
    masks where wave32 names ``vcc_lo`` and 32-bit ones)."""

    def __init__(self, processor: str, wavefront_size: int | None = None) -> None:
        self.processor = processor
        self.wavefront_size = target_key(processor, wavefront_size)[1]
        wave64 = (wavefront_size or subtarget_for(processor).default_wave_size) == 64
        #: A lane mask's register class, and the wave's EXEC and VCC: 64 bits in wave64,
        #: their low halves in wave32.
        self.lane_mask_class = "SReg_64" if wave64 else "SReg_32"
        self.exec_mask = EXEC if wave64 else EXEC_LO
        self.vcc = VCC if wave64 else VCC_LO
        self._mask_suffix = "_b64" if wave64 else "_b32"

    def mask_op(self, stem: str) -> str:
        """The lane-mask form of an SALU operation (``s_and_saveexec`` ->
        ``s_and_saveexec_b64`` in wave64, ``_b32`` in wave32)."""
        return stem + self._mask_suffix

    def inst(self, mnemonic: str, operands: Sequence[BuildOperand] = (), *,
             flags: Sequence[str] = (), offset: int | None = None) -> InstructionOpBase:
        """``mnemonic`` with positional ``operands``, named ``flags`` (``glc``, ``sc0``,
        ``th:TH_ATOMIC_RETURN``) and an ``offset:`` operand; raises :class:`MCBuildError`
        when no instruction of the target takes them."""
        shape = tuple(self._shape(operand, operands) for operand in operands)
        template = _match(self.processor, self.wavefront_size, mnemonic, shape, tuple(flags),
                          offset)
        slots = [operands[slot] if isinstance(slot, int) else slot for slot in template.slots]
        return build_instruction(template.mnemonic, template.opcode,
                                 [_attribute(slot) for slot in slots])

    def wait_vector_loads(self) -> InstructionOpBase:
        """Wait until every vector memory read issued so far (a global or scratch load,
        an atomic returning its old value) has its data: ``s_waitcnt vmcnt(0)`` in the
        target's encoding (its fields moved in GFX11), ``s_wait_loadcnt 0`` from GFX12
        (split counters)."""
        return self._wait("vmcnt", "s_wait_loadcnt")

    def wait_scalar_loads(self) -> InstructionOpBase:
        """Wait until every scalar memory load issued so far has its data:
        ``s_waitcnt lgkmcnt(0)``, ``s_wait_kmcnt 0`` from GFX12."""
        return self._wait("lgkmcnt", "s_wait_kmcnt")

    def _wait(self, counter: str, gfx12: str) -> InstructionOpBase:
        generation = subtarget_for(self.processor).major
        if generation >= 12:
            return self.inst(gfx12, [0])
        return self.inst("s_waitcnt", [operand_syntax.waitcnt_set(
            operand_syntax.waitcnt_all(generation), counter, 0, generation)])

    def branch(self, mnemonic: str, successors: Sequence[Block]) -> InstructionOpBase:
        """A branch to blocks (taken target, then the fall-through of a conditional)."""
        opcode = branch_opcode(self.processor, mnemonic)
        if opcode is None:
            raise MCBuildError(f"'{mnemonic}' is not a branch of {self.processor}")
        slots = len(load_target(self.processor, self.wavefront_size).by_name[opcode].operands)
        return build_instruction(mnemonic, opcode, [NONE] * slots, successors)

    def _shape(self, operand: BuildOperand, operands: Sequence[BuildOperand]) -> _Shape:
        if isinstance(operand, VirtRegAttr):
            rclass = load_target(self.processor, self.wavefront_size).register_classes.get(
                operand.register_class)
            if rclass is None:
                raise MCBuildError(f"{self.processor} has no register class "
                                   f"{operand.register_class} ({operand.text})")
            sub = operand.sub_units
            bits = rclass.width if sub is None else 32 * sub[1]
            return "v", rclass.files[0], bits, operands.index(operand)
        if isinstance(operand, PhysRegAttr):
            return "r", operand.data
        if isinstance(operand, SymbolOperandAttr):
            return "s", operand.data
        if isinstance(operand, Keyword):
            return "w", operand.word
        return "i", operand


def _attribute(slot: Attribute | BuildOperand) -> Attribute:
    assert not isinstance(slot, int | Keyword), slot
    return slot


def _item(shape: _Shape, column: int) -> Item:
    """The assembler's operand item of one operand shape."""
    kind = shape[0]
    if kind == "v":
        _, file, bits, first = shape
        assert isinstance(file, str) and isinstance(bits, int)
        return Item("reg", column, f"{file}%{first}", virtual=bits)
    if kind == "r":
        return Item("reg", column, str(shape[1]))
    if kind == "s":
        expr = shape[1]
        assert isinstance(expr, SymExpr)
        return Item("imm", column, expr.text(), expr=expr)
    if kind == "w":
        return Item("word", column, str(shape[1]))
    value = shape[1]
    assert isinstance(value, int)
    return Item("imm", column, str(value), value=value)


@functools.lru_cache(maxsize=4096)
def _match(processor: str, wavefront_size: int | None, mnemonic: str,
           shape: tuple[_Shape, ...], flags: tuple[str, ...], offset: int | None) -> _Template:
    items = [_item(operand, column) for column, operand in enumerate(shape)]
    # A flag is a word (``glc``) or a named value (GFX12's ``th:TH_ATOMIC_RETURN``).
    items += [Item("named", len(items) + index, flag.partition(":")[0],
                   arg=flag.partition(":")[2]) if ":" in flag
              else Item("word", len(items) + index, flag) for index, flag in enumerate(flags)]
    if offset is not None:
        items.append(Item("named", len(items), "offset", arg=offset))
    try:
        matched = parser_for(processor, wavefront_size).match_items(mnemonic, items)
    except AsmParseError as error:
        raise MCBuildError(f"{processor}: {mnemonic}: {error.message} "
                           f"(operand {error.column})") from None
    inst = matched.inst
    virtual: dict[str, int] = {}
    for operand in shape:
        if operand[0] == "v":
            index = operand[3]
            assert isinstance(index, int)
            virtual[f"{operand[1]}%{index}"] = index
    slots: list[Attribute | int] = []
    for value in inst.operands:
        if isinstance(value, str) and value in virtual:
            slots.append(virtual[value])
        else:
            slots.append(operand_attribute(value))
    symbols = [position for position, operand in enumerate(shape) if operand[0] == "s"]
    for fixup, position in zip(matched.fixups, symbols, strict=True):
        placeholder = BRANCH_PLACEHOLDER if fixup.kind == "fixup_si_sopp_br" \
            else LITERAL_PLACEHOLDER
        slots[inst.operands.index(placeholder)] = position
    return _Template(printer_for(processor).mnemonic(inst.desc), inst.desc.name, tuple(slots))
