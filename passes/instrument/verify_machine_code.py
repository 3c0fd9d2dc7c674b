"""Whether a payload's region is machine code, and its control-flow graph if it is.

After lowering, a payload is blocks of ``amdgpu_mc`` instructions over physical registers
(plus ``instr.mc_intrinsic`` ops, whose register effect they declare), linked by
``amdgpu_mc`` branches and ``amdgpu_mc.fallthrough`` to blocks of the same region, leaving
through ``instr.return``. Anything else means a lowering stage left work undone, and the
clobber analysis cannot say what the payload does to registers, so each such finding is a
problem of its own, reported before any clobber.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.register_units import UnknownRegisterError, units_of
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import FallthroughOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.isa.target import TargetISA

#: Defined in :mod:`luthier.amdgpu_dialects.instr.mc_ops`; matched by name so that this
#: module does not depend on it.
MC_INTRINSIC = "instr.mc_intrinsic"


@dataclass(frozen=True, slots=True)
class Intrinsic:
    """An ``instr.mc_intrinsic``: every def register written, every use read."""

    name: str
    defs: int
    uses: int


@dataclass
class PayloadCode:
    """A payload's blocks (numbered in region order) and its CFG."""

    blocks: list[Block]
    #: Per block, its instructions and intrinsics in order (the terminator's effect too).
    ops: list[list[InstructionOpBase | Intrinsic]] = field(
        default_factory=list[list[InstructionOpBase | Intrinsic]])
    successors: list[list[int]] = field(default_factory=list[list[int]])
    #: Blocks that end in ``instr.return``.
    exits: list[int] = field(default_factory=list[int])


def _register_mask(attrs: Attribute | None, what: str, problems: list[str]) -> int:
    """The units of an ``instr.mc_intrinsic`` register list, noting what is not physical."""
    if attrs is None:
        return 0
    if not isinstance(attrs, ArrayAttr):
        problems.append(f"instr.mc_intrinsic: {what} is not an array of registers")
        return 0
    mask = 0
    for attr in cast(ArrayAttr[Attribute], attrs).data:
        if isinstance(attr, VirtRegAttr):
            problems.append(f"virtual register {attr.text} left in instr.mc_intrinsic {what}")
        elif isinstance(attr, PhysRegAttr):
            try:
                mask |= units_of(attr.data)
            except UnknownRegisterError as error:
                problems.append(f"instr.mc_intrinsic {what}: {error}")
        else:
            problems.append(f"instr.mc_intrinsic {what}: {attr} is not a register")
    return mask


def _intrinsic(op: Operation, problems: list[str]) -> Intrinsic:
    def field_of(name: str) -> Attribute | None:
        return op.properties.get(name, op.attributes.get(name))

    name = field_of("intrinsic")
    label = getattr(name, "data", "?")
    return Intrinsic(str(label), _register_mask(field_of("defs"), "defs", problems),
                     _register_mask(field_of("uses"), "uses", problems))


def _instruction(op: InstructionOpBase, isa: TargetISA, problems: list[str]) -> bool:
    """Check one instruction; whether its register effect can be computed."""
    desc = isa.by_name.get(op.opcode.data)
    if desc is None:
        problems.append(f"'{op.opcode.data}' ({op.mnemonic}) is not an instruction of "
                        f"{isa.name}")
        return False
    if len(desc.operands) != len(op.mc_operands.data):
        problems.append(f"'{op.mnemonic}' has {len(desc.operands)} operand slots, got "
                        f"{len(op.mc_operands.data)}")
        return False
    # VirtRegAttr has no subclasses: ``type`` is the check without ABCMeta's cost.
    virtual = [attr.text for attr in op.mc_operands.data if type(attr) is VirtRegAttr]
    for text in virtual:
        problems.append(f"virtual register {text} left in '{op.mnemonic}'")
    if op.KIND == "terminator":
        problems.append(f"'{op.mnemonic}' leaves the payload without instr.return")
    elif op.KIND == "call":
        problems.append(f"'{op.mnemonic}' calls code the verifier does not follow")
    return not virtual


def _successors(op: Operation, region_blocks: dict[int, int], problems: list[str]) -> list[int]:
    found: list[int] = []
    for successor in op.successors:
        index = region_blocks.get(id(successor))
        if index is None:
            problems.append(f"'{op.name}' branches to a block outside the payload")
        else:
            found.append(index)
    return found


def payload_code(payload: PayloadOp, isa: TargetISA) -> tuple[PayloadCode | None, list[str]]:
    """The payload's CFG, or None when its register effect cannot be known; the problems."""
    blocks = list(payload.body.blocks)
    problems: list[str] = []
    if not blocks or all(block.first_op is None for block in blocks):
        return None, ["the payload is empty (hooks not inlined and lowered?)"]
    index_of = {id(block): index for index, block in enumerate(blocks)}
    code = PayloadCode(blocks)
    analysable = True
    for block in blocks:
        items: list[InstructionOpBase | Intrinsic] = []
        successors: list[int] = []
        last = block.last_op
        for op in block.ops:
            if op is not last and (op.successors or isinstance(op, ReturnOp)):
                problems.append(f"'{op.name}' is not the last op of its block")
            if isinstance(op, InstructionOpBase):
                analysable &= _instruction(op, isa, problems)
                items.append(op)
                successors += _successors(op, index_of, problems)
            elif isinstance(op, FallthroughOp):
                successors += _successors(op, index_of, problems)
            elif isinstance(op, PackedCodeOp):  # shared straight-line code: its instructions
                for inner in op.code.data.ops:
                    analysable &= _instruction(inner, isa, problems)
                    items.append(inner)
            elif isinstance(op, ReturnOp):
                code.exits.append(len(code.ops))
            elif op.name == MC_INTRINSIC:
                before = len(problems)
                items.append(_intrinsic(op, problems))
                analysable &= len(problems) == before
            else:
                problems.append(f"'{op.name}' is not machine code")
                analysable = False
        ends = last is not None and (last.successors or isinstance(last, ReturnOp | FallthroughOp)
                                     or isinstance(last, InstructionOpBase) and last.KIND)
        if not ends:
            problems.append("a block does not end in a branch, amdgpu_mc.fallthrough or "
                            "instr.return")
        code.ops.append(items)
        code.successors.append(successors)
    if not code.exits:
        problems.append("no block ends in instr.return")
    return (code if analysable else None), problems
