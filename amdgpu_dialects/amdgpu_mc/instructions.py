"""One op per AMDGPU instruction mnemonic: ``amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0``.

All instruction ops share one definition: an ``opcode`` property (the ISA record, which
fixes the encoding: ``S_LOAD_DWORDX2_IMM_vi``) and ``mc_operands``, one attribute per operand
slot of the record (see :mod:`.operands`). What differs per mnemonic is only the op name and
its role in the CFG, so the op classes are cheap subclasses made on first use from the
generated :mod:`.mnemonics` list, not 2000 IRDL definitions built at import.

The custom syntax is the instruction's LLVM assembly after the op name, on one line. It is
printed by the MC printer and parsed by the MC assembler of the enclosing code object's
target, so the IR reads like ``llvm-objdump`` output and every operand form the assembler
knows is accepted. Branches name their targets as block successors instead of labels (taken
target first, then the fall-through block of a conditional branch). An instruction that
cannot be written as assembly (no enclosing code object) prints its
properties: ``amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi", mc_operands = [...]}>``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import UNKNOWN_LOC, ArrayAttr, IntAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue, SSAValues, Use
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    traits_def,
    var_successor_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.mnemonics import INSTRUCTION_KINDS
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    BranchLabelAttr,
    LiteralAttr,
    NotMCOperandError,
    SymbolOperandAttr,
    is_absent,
    mc_operand,
    operand_attribute,
)
from luthier.amdgpu_dialects.amdgpu_mc.register_units import units_of
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.target_context import (
    TargetKey,
    current_parsing_target,
    enclosing_target,
    print_properties,
)
from luthier.amdgpu_dialects.amdgpu_mc.vreg_syntax import (
    VRegSyntaxError,
    restore_names,
    stand_ins,
    substitute_vregs,
    taken_units,
)
from luthier.amdgpu_dialects.isa.registers import INLINE_VALUE_REGISTERS
from luthier.amdgpu_dialects.isa.target import InstrDef, TargetISA, load_target
from luthier.amdgpu_dialects.mc.decoder import MCInst
from luthier.amdgpu_dialects.mc.encoder import EncodeError, encoder_for
from luthier.amdgpu_dialects.mc.operand_decoders import Operand
from luthier.amdgpu_dialects.mc.printer import print_immediate, printer_for

DIALECT_PREFIX = "amdgpu_mc."

_operand_arrays: dict[tuple[Attribute, ...], ArrayAttr[Attribute]] = {}
#: Instructions that passed :meth:`InstructionOpBase.verify_operands`: (target, op class,
#: id of opcode, id of operands) -> (opcode, operands), the attributes kept so that their
#: ids stay theirs while the entry lives.
_verified: dict[tuple[TargetKey, type, int, int],
                tuple[StringAttr, ArrayAttr[Attribute]]] = {}
_VERIFIED_LIMIT = 1 << 16
_opcode_attrs: dict[str, StringAttr] = {}
_NO_VALUES: SSAValues[SSAValue] = SSAValues()
_NO_RESULTS: SSAValues[OpResult] = SSAValues()


def is_instruction_class(kind: type[Operation]) -> bool:
    """Whether ops of class ``kind`` are instructions, found once per class: ``isinstance``
    against xDSL's op classes goes through ABCMeta, slow in loops over every op of a
    library (layout, wait states)."""
    known = _instruction_classes.get(kind)
    if known is None:
        known = _instruction_classes[kind] = issubclass(kind, InstructionOpBase)
    return known


_instruction_classes: dict[type[Operation], bool] = {}


def operand_array(attrs: Sequence[Attribute]) -> ArrayAttr[Attribute]:
    """An interned ``ArrayAttr`` of operand attributes (operand lists repeat a lot)."""
    key = tuple(attrs)
    array = _operand_arrays.get(key)
    if array is None:
        array = _operand_arrays[key] = ArrayAttr(key)
    return array


def opcode_attr(name: str) -> StringAttr:
    attr = _opcode_attrs.get(name)
    if attr is None:
        attr = _opcode_attrs[name] = StringAttr(name)
    return attr


def _reads_back(target: TargetKey, inst: MCInst, text: str) -> bool:
    """Whether assembling ``text`` gives ``inst``'s bytes again. A trailing literal whose
    value is also an inline constant (``0xffffffff`` in a literal slot, as some compilers
    leave it) prints like the inline constant, which the assembler prefers: such an
    instruction is written in its properties form instead, which is exact."""
    from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parse_with_real_true16

    try:
        matched = parse_with_real_true16(*target, text)
        encoder = encoder_for(*target)
        return encoder.encode(matched.inst) == encoder.encode(inst, keep_literals=True)
    except (AsmParseError, EncodeError):
        return False


class InstructionOpBase(IRDLOperation):
    """Behaviour shared by the three instruction op definitions below."""

    #: The op's role in the CFG: "", "call", "terminator" or "branch".
    KIND: ClassVar[str] = ""

    #: Identity hashing, as ``IRDLOperation.__hash__`` (``id(self)``) but without a Python
    #: call: passes key dicts by instruction op for every instruction of a library.
    __hash__ = object.__hash__

    opcode = prop_def(StringAttr)
    mc_operands = prop_def(ArrayAttr[Attribute])
    #: Where the word's bits that the record leaves undefined differ from their canonical
    #: value (``MCInst.unmodelled``): kept by the lifter so that the word re-encodes to
    #: itself. An op that has them prints its properties, as the assembly cannot say them.
    unmodelled_bits = opt_prop_def(IntAttr)

    @property
    def mnemonic(self) -> str:
        return self.name[len(DIALECT_PREFIX):]

    def instr_def(self, isa: TargetISA) -> InstrDef | None:
        return isa.by_name.get(self.opcode.data)

    # -- MC view -------------------------------------------------------------------------

    def to_mcinst(self, desc: InstrDef, symbol_value: Operand = None,
                  branch_offset: int | None = None) -> MCInst:
        """The instruction as an MCInst of its record ``desc`` (the one op -> MC bridge:
        encoding, printing, sizing and emulation all start here).

        A symbolic operand becomes ``symbol_value`` (a placeholder the caller patches: a
        relocation, a printed expression); without one it raises NotMCOperandError, as a
        virtual register does. The PC-relative operand of a branch becomes
        ``branch_offset`` when given (the op names its target as a block).
        """
        operands: list[Operand] = []
        branch = branch_offset is not None and self.KIND == "branch"
        for slot, attr in zip(desc.operands, self.mc_operands.data, strict=True):
            if isinstance(attr, SymbolOperandAttr) and symbol_value is not None:
                operands.append(symbol_value)
            elif branch and slot.kind.operand_type == "OPERAND_PCREL":
                operands.append(branch_offset)
            else:
                operands.append(mc_operand(attr))
        unmodelled = self.unmodelled_bits
        return MCInst(desc, operands, desc.size,
                      unmodelled=0 if unmodelled is None else unmodelled.data)

    def assembly_text(self) -> str | None:
        """The operand text after the mnemonic, or None when it cannot be written as
        assembly (no target, an opcode the target lacks). Virtual registers print as
        ``%3:SReg_64`` (see :mod:`.vreg_syntax`)."""
        # The assembler's modules load when IR is printed or parsed, not on every import
        # of the dialect (a lift and an emission need neither).
        from luthier.amdgpu_dialects.mc.asm_matcher import BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER

        target = enclosing_target(self)
        if target is None or self.unmodelled_bits is not None:
            return None
        processor = target[0]
        isa = load_target(*target)
        desc = isa.by_name.get(self.opcode.data)
        if desc is None or len(desc.operands) != len(self.mc_operands.data):
            return None
        operands: list[Operand] = []
        symbols: list[tuple[str, str]] = []
        vregs = [attr for attr in self.mc_operands.data if isinstance(attr, VirtRegAttr)]
        try:
            names = stand_ins(vregs, processor, taken_units(
                attr.data for attr in self.mc_operands.data if isinstance(attr, PhysRegAttr)))
        except VRegSyntaxError:
            return None
        for slot, attr in zip(desc.operands, self.mc_operands.data, strict=True):
            if isinstance(attr, VirtRegAttr):
                operands.append(names[attr])
                continue
            if isinstance(attr, SymbolOperandAttr):
                placeholder = BRANCH_PLACEHOLDER if slot.kind.operand_type == "OPERAND_PCREL" \
                    else LITERAL_PLACEHOLDER
                symbols.append((print_immediate(placeholder, slot.kind.operand_type),
                                attr.data.text()))
                operands.append(placeholder)
                continue
            try:
                operands.append(mc_operand(attr))
            except NotMCOperandError:
                return None
        text = printer_for(*target).print(MCInst(desc, operands, desc.size))
        for placeholder_text, expression in symbols:
            text = text.replace(placeholder_text, expression, 1)
        if names:
            text = restore_names(text, names)
        elif not symbols and any(isinstance(attr, LiteralAttr) for attr in self.mc_operands.data) \
                and not _reads_back(target, MCInst(desc, operands, desc.size), text):
            return None
        parts = text.split(None, 1)
        return parts[1] if len(parts) > 1 else ""

    # -- custom syntax -------------------------------------------------------------------

    def print(self, printer: Printer) -> None:
        if self.KIND == "branch":
            label = branch_label(self)
            if label is not None:
                printer.print_string(" ")
                printer.print_string_literal(label.data)
                if self.successors:
                    printer.print_string(",")
            if self.successors:
                printer.print_string(" ")
                printer.print_list(self.successors, printer.print_block_name)
            return
        text = self.assembly_text()
        if text is None:
            printer.print_string(" ")
            print_properties(printer, self.properties)
        elif text:
            printer.print_string(" " + text)

    @classmethod
    def parse(cls, parser: Parser) -> InstructionOpBase:
        from luthier.amdgpu_dialects.mc.asm_matcher import BRANCH_PLACEHOLDER, LITERAL_PLACEHOLDER
        from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parse_with_real_true16

        mnemonic = cls.name[len(DIALECT_PREFIX):]
        properties = parser.parse_optional_properties_dict()
        if properties:
            return cls.create(properties=properties)
        target = current_parsing_target()
        if target is None:
            parser.raise_error(
                f"'{cls.name}' outside an amdgpu_mc.code_object: its target is unknown, "
                "so write its properties (<{opcode = ..., mc_operands = [...]}>)")
        processor = target[0]
        if cls.KIND == "branch":
            # ``"second+0x10"`` first: a branch into another function's code (a label).
            label = parser.parse_optional_str_literal()
            successors: list[Block] = []
            if label is None or parser.parse_optional_punctuation(",") is not None:
                successors = parser.parse_comma_separated_list(
                    parser.Delimiter.NONE, parser.parse_successor)
            opcode = branch_opcode(processor, mnemonic)
            if opcode is None:
                parser.raise_error(f"'{mnemonic}' is not an instruction of {processor}")
            desc = load_target(*target).by_name[opcode]
            operands: list[Attribute] = [NoneAttr()] * len(desc.operands)
            if label is not None:
                operands[0] = BranchLabelAttr(label)
            return cls.create(
                properties={"opcode": opcode_attr(opcode),
                            "mc_operands": operand_array(operands)},
                successors=successors)
        start, end = _operand_span(parser, mnemonic)
        text = parser.lexer.input.content[start:end]
        statement = f"{mnemonic} {text}" if text else mnemonic
        try:
            statement, vregs = substitute_vregs(statement, processor)
        except VRegSyntaxError as error:
            parser.raise_error(str(error), start, end)
        try:
            matched = parse_with_real_true16(*target, statement)
        except AsmParseError as error:
            column = max(0, error.column - len(mnemonic) - 1)
            parser.raise_error(error.message, start + min(column, max(0, end - start - 1)),
                               start + min(column, max(0, end - start - 1)) + 1)
        attrs: list[Attribute] = [
            vregs[value] if isinstance(value, str) and value in vregs
            else operand_attribute(value) for value in matched.inst.operands]
        for fixup in matched.fixups:
            placeholder = BRANCH_PLACEHOLDER if fixup.kind == "fixup_si_sopp_br" \
                else LITERAL_PLACEHOLDER
            index = matched.inst.operands.index(placeholder)
            attrs[index] = SymbolOperandAttr(fixup.expr)
        if end > start:
            parser._resume_from(end)  # pyright: ignore[reportPrivateUsage]
        return cls.create(properties={"opcode": opcode_attr(matched.inst.desc.name),
                                      "mc_operands": operand_array(attrs)})

    # -- verification --------------------------------------------------------------------

    def verify_(self) -> None:
        self.verify_operands()
        if self.KIND == "branch":
            self._verify_targets()

    def _verify_targets(self) -> None:
        """An unconditional branch names one target, a conditional one its taken target
        and the block it falls into; a branch into another function's code names a label
        instead of the taken target."""
        wanted = (1 if self.mnemonic == "s_branch" else 2) - (branch_label(self) is not None)
        if len(self.successors) != wanted:
            raise VerifyException(f"{self.mnemonic} names {len(self.successors)} blocks, "
                                  f"expected {wanted}")

    def verify_operands(self, target: TargetKey | str | None = None) -> None:
        """The instruction against its target's tables: the opcode exists and spells this
        mnemonic, and each operand fits its slot (what a pass that only replaced operands
        can break; xDSL's generic checks of the op's structure are not repeated).

        Passing is memoised per target, op class, opcode and operand array (interned
        attributes, kept alive by the memo): instrumented code repeats a few payload
        instructions tens of thousands of times. ``target`` (a processor: in its default
        wave size), when the caller knows the code object the op is in, saves finding it."""
        if target is None:
            target = enclosing_target(self)
            if target is None:
                return
        elif isinstance(target, str):
            target = (target, None)
        opcode, operands = self.opcode, self.mc_operands
        key = (target, type(self), id(opcode), id(operands))
        known = _verified.get(key)
        if known is not None and known[0] is opcode and known[1] is operands:
            return
        self._verify_operands(target)
        if len(_verified) >= _VERIFIED_LIMIT:
            _verified.clear()
        _verified[key] = (opcode, operands)

    def _verify_operands(self, target: TargetKey) -> None:
        processor = target[0]
        isa = load_target(*target)
        desc = isa.by_name.get(self.opcode.data)
        if desc is None:
            raise VerifyException(f"'{self.opcode.data}' is not an instruction of {processor}")
        if printer_for(*target).mnemonic(desc) != self.mnemonic:
            raise VerifyException(
                f"opcode '{desc.name}' is '{printer_for(*target).mnemonic(desc)}', "
                f"not '{self.mnemonic}'")
        attrs = self.mc_operands.data
        if len(attrs) != len(desc.operands):
            raise VerifyException(
                f"'{self.mnemonic}' has {len(desc.operands)} operand slots, got {len(attrs)}")
        for slot, attr in zip(desc.operands, attrs, strict=True):
            _verify_operand(isa, desc, slot.name, attr)
        unmodelled = self.unmodelled_bits
        if unmodelled is not None and (unmodelled.data <= 0 or unmodelled.data & ~desc.unknown):
            raise VerifyException(
                f"'{self.mnemonic}': unmodelled_bits {unmodelled.data:#x} are not bits its "
                f"record {desc.name} leaves undefined ({desc.unknown:#x})")


def _verify_operand(isa: TargetISA, desc: InstrDef, slot_name: str, attr: Attribute) -> None:
    kind = desc.slot(slot_name).kind
    rc = kind.register_class
    where = f"operand '{slot_name}' of '{desc.mnemonic}'"
    if isinstance(attr, PhysRegAttr):
        if rc is None:
            raise VerifyException(f"{where} is an immediate, got register {attr.data}")
        if not rc.contains(attr.data) and attr.data not in INLINE_VALUE_REGISTERS:
            raise VerifyException(f"{where}: {attr.data} is not in register class {rc.name}")
        # An SReg_1 slot holds a lane mask: one SGPR in wave32 (vcc_lo), a pair in wave64.
        if rc.is_lane_mask and attr.data not in INLINE_VALUE_REGISTERS:
            units = units_of(attr.data).bit_count()
            if units and 32 * units != isa.wavefront_size:
                raise VerifyException(f"{where}: {attr.data} is not a lane mask of a "
                                      f"{isa.wavefront_size}-lane wave")
    elif isinstance(attr, VirtRegAttr):
        vclass = isa.register_classes.get(attr.register_class)
        if vclass is None:
            raise VerifyException(f"{where}: unknown register class {attr.register_class}")
        sub = attr.sub_units
        width = vclass.width if sub is None else 32 * sub[1]
        if sub is not None and 32 * (sub[0] + sub[1]) > vclass.width:
            raise VerifyException(f"{where}: {attr.text} is outside its {vclass.width}-bit "
                                  "class")
        if rc is None:
            raise VerifyException(f"{where} is an immediate, got {attr.text}")
        # An SReg_1 slot holds a lane mask: one bit per lane of the wave.
        slot_width = isa.wavefront_size if rc.is_lane_mask else rc.width
        if width != slot_width:
            raise VerifyException(f"{where} is {slot_width}-bit, got {attr.text} "
                                  f"({width}-bit)")
    elif isinstance(attr, IntAttr | LiteralAttr):
        if kind.operand_type == "OPERAND_REGISTER" and rc is not None:
            raise VerifyException(f"{where} must be a register, got an immediate")
    elif isinstance(attr, BranchLabelAttr):
        if kind.operand_type != "OPERAND_PCREL":
            raise VerifyException(f"{where}: a label names a branch target only")
    elif not isinstance(attr, SymbolOperandAttr) and not is_absent(attr):
        raise VerifyException(f"{where}: {attr} is not an instruction operand")


def branch_label(op: InstructionOpBase) -> BranchLabelAttr | None:
    """The label a branch goes to in another function's code (None: it names a block)."""
    operands = op.mc_operands.data
    first = operands[0] if operands else None
    return first if isinstance(first, BranchLabelAttr) else None


@functools.cache
def branch_opcode(processor: str, mnemonic: str) -> str | None:
    """The record of a branch mnemonic on ``processor`` (branches have one form each)."""
    from luthier.amdgpu_dialects.mc.asm_operands import Item
    from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for

    try:
        return parser_for(processor).match_items(mnemonic, [Item("imm", 0, "0")]).inst.desc.name
    except AsmParseError:
        return None


def _operand_span(parser: Parser, mnemonic: str) -> tuple[int, int]:
    """Where the operand text of the op being parsed lies: the rest of the op's line.

    MLIR is free-form but assembly is line-based, and operand syntax (``v[0:1]``,
    ``|v1|``, ``offset:16 glc``) is not made of MLIR tokens, so the custom syntax of an
    instruction is everything after its name up to the end of the line (or a ``//``
    comment, or a ``}`` closing the region on the same line). Returns ``(start, start)``
    when the operands are empty.
    """
    content = parser.lexer.input.content
    start = parser.pos
    name_end = content.rfind(mnemonic, 0, start)
    name_end = start if name_end < 0 else name_end + len(mnemonic)
    between = content[name_end:start]
    if "\n" in between or "//" in between:
        return start, start
    end = len(content)
    for stop in ("\n", "//", "}"):
        found = content.find(stop, start, end)
        if found >= 0:
            end = found
    while end > start and content[end - 1] in " \t\r":
        end -= 1
    return start, end


@irdl_op_definition
class InstructionOp(InstructionOpBase):
    """An instruction that does not end its block."""

    name = "amdgpu_mc.instruction"


@irdl_op_definition
class TerminatorInstructionOp(InstructionOpBase):
    """An instruction that ends its block without successors (``s_endpgm``,
    ``s_setpc_b64``)."""

    name = "amdgpu_mc.terminator_instruction"
    KIND: ClassVar[str] = "terminator"
    traits = traits_def(IsTerminator())


@irdl_op_definition
class BranchInstructionOp(InstructionOpBase):
    """A branch: its targets are successors (the taken target, then the fall-through)."""

    name = "amdgpu_mc.branch_instruction"
    KIND: ClassVar[str] = "branch"
    targets = var_successor_def()
    traits = traits_def(IsTerminator())


_BASES: dict[str, type[InstructionOpBase]] = {
    "": InstructionOp,
    "call": InstructionOp,
    "terminator": TerminatorInstructionOp,
    "branch": BranchInstructionOp,
}


@functools.cache
def instruction_op_class(mnemonic: str) -> type[InstructionOpBase]:
    """The op class of ``mnemonic`` (``v_add_f32_e64``); KeyError for an unknown one."""
    kind = INSTRUCTION_KINDS[mnemonic]
    base = _BASES[kind]
    class_name = "".join(part.capitalize() for part in mnemonic.split("_")) + "Op"
    return type(class_name, (base,), {"name": DIALECT_PREFIX + mnemonic, "KIND": kind,
                                      "__doc__": f"The ``{mnemonic}`` instruction."})


def instruction_op_classes() -> list[type[Operation]]:
    """Every instruction op class (made now; used when the dialect is loaded)."""
    return [instruction_op_class(mnemonic) for mnemonic in INSTRUCTION_KINDS]


def build_instruction(mnemonic: str, opcode: str, operands: Sequence[Attribute],
                      successors: Sequence[Block] = (), unmodelled: int = 0
                      ) -> InstructionOpBase:
    """A new instruction op, built without IRDL's per-argument checks (lifting builds
    tens of thousands; the verifier checks them when asked)."""
    return build_instruction_from_array(mnemonic, opcode, operand_array(operands), successors,
                                        unmodelled)


def build_instruction_from_array(mnemonic: str, opcode: str, operands: ArrayAttr[Attribute],
                                 successors: Sequence[Block] = (), unmodelled: int = 0
                                 ) -> InstructionOpBase:
    """:func:`build_instruction` with the operand array already made (and interned)."""
    properties: dict[str, Attribute] = {"opcode": opcode_attr(opcode), "mc_operands": operands}
    if unmodelled:
        properties["unmodelled_bits"] = IntAttr(unmodelled)
    return _bare_op(instruction_op_class(mnemonic), properties, tuple(successors))


def build_plain_instruction(cls: type[InstructionOpBase], opcode: StringAttr,
                            operands: ArrayAttr[Attribute],
                            unmodelled: IntAttr | None = None) -> InstructionOpBase:
    """An instruction op without successors from parts resolved beforehand: its class
    (:func:`instruction_op_class`), interned opcode (:func:`opcode_attr`), operand
    array and unmodelled bits. The lifter resolves them once per distinct encoding and
    builds every repeat with this alone."""
    properties: dict[str, Attribute] = {"opcode": opcode, "mc_operands": operands}
    if unmodelled is not None:
        properties["unmodelled_bits"] = unmodelled
    return _bare_op(cls, properties, ())


def _bare_op(cls: type[InstructionOpBase], properties: dict[str, Attribute],
             successors: tuple[Block, ...]) -> InstructionOpBase:
    """What ``cls.create(properties=..., successors=...)`` makes, field by field.

    ``Operation.create`` goes through the operand and successor setters, copies the
    property dict and looks up the IRDL definition to fill defaults (instruction ops have
    none): about a third of a lift's time. An instruction has no SSA operands, results or
    regions, so its fields are set directly here; a test compares the result with
    ``create``'s, field by field, so that an xDSL upgrade that adds a field is caught.
    """
    op = cls.__new__(cls)
    op._operands = _NO_VALUES  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = ()  # pyright: ignore[reportPrivateUsage]
    op.results = _NO_RESULTS
    op.properties = properties
    op.attributes = {}
    op.location = UNKNOWN_LOC
    op._successors = successors  # pyright: ignore[reportPrivateUsage]
    uses: tuple[Use, ...] = ()
    if successors:
        uses = tuple(Use(op, index) for index in range(len(successors)))
        for successor, use in zip(successors, uses, strict=True):
            successor.add_use(use)
    op._successor_uses = uses  # pyright: ignore[reportPrivateUsage]
    op.regions = ()
    # parent, _next_op and _prev_op keep their class-level defaults (None), as in create.
    return op
