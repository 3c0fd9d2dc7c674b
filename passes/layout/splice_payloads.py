"""``splice-payloads``: lowered payloads become plain code before their instructions.

After ``lower-hooks`` every ``instr.payload`` holds allocated machine code: instructions on
physical registers, its own blocks and branches when the hook had control flow, and one
``instr.return`` where control leaves it. Splicing moves that code into the function in
front of the instrumented instruction:

* a one-block payload's instructions go straight into the enclosing block;
* a payload with control flow splits the enclosing block: the instructions before the
  point keep the block (so branches to it still run the payload first), the payload's
  first block joins them, its other blocks follow in their order, and the rest of the
  enclosing block (the instrumented instruction on) becomes a new block that each
  ``instr.return`` falls (or branches) into.

Application instructions are not touched, with one exception that exactness requires:
a PC-relative operand (``sym@rel32@lo+4`` after ``s_getpc_b64``) is a distance from the
instruction that read the PC, encoded in its addend. Code spliced between the two moves
one and not the other, so each such addend is recomputed from the new layout: the
reference point (the address the addend was measured from, ``literal - addend``) is the
end of the same application instruction before and after.

Where spliced code meets code it depends on too closely for the hardware (a VALU writing
an SGPR that the next VMEM instruction reads, an MFMA's registers in flight...), ``s_nop``
goes in before the reader (:mod:`.hazards`).

A payload of packed code (:mod:`~luthier.amdgpu_dialects.amdgpu_mc.packed`: straight-line
code shared by the points that allocated alike) moves as its one packed op.

A function that jumps to an address the CFG cannot name (``s_setpc_b64`` that is neither
a return nor a tail call) is refused: its target may be code that splicing moves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.copy import region_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    FunctionLayout,
    UnsizedError,
    function_layout,
    literal_offset,
)
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FallthroughOp,
    FunctionLikeOp,
    code_objects_in,
)
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.instr.points import describe_point
from luthier.amdgpu_dialects.isa.target import TargetISA, load_target
from luthier.amdgpu_dialects.mc.relocations import literal_is_pc_relative
from luthier.lowering.progress import over
from luthier.passes.analysis.cfg import FunctionCFG
from luthier.passes.layout.hazards import HazardModel, insert_wait_states
from luthier.passes.layout.mitigations import insert_mitigations


def _fail(where: str, reason: str) -> PassFailedException:
    return PassFailedException(f"splice-payloads: {where}: {reason}")


def check_lowered(payload: PayloadOp) -> list[InstructionOpBase]:
    """A payload is ready to splice when it holds only machine code on physical registers
    (and its ``instr.return``); returns its instruction ops (not those of its packed code,
    which count through their packed ops), which become inserted code: one walk of the
    payload finds both."""
    found: list[InstructionOpBase] = []
    for op in (op for block in payload.body.blocks for op in block.ops):
        kind = type(op)
        # By class first: ``isinstance`` on xDSL ops goes through ABCMeta, and this runs
        # for every instruction of every payload.
        if is_instruction_class(kind):
            op = cast(InstructionOpBase, op)
            if any(isinstance(attr, VirtRegAttr) for attr in op.mc_operands.data):
                raise _fail(describe_point(payload),
                            f"{op.name} still has virtual registers (run "
                            "allocate-payload-registers first)")
            found.append(op)
            continue
        if kind is PackedCodeOp or kind is ReturnOp \
                or isinstance(op, FallthroughOp | ReturnOp | PackedCodeOp):
            continue  # packed code is straight-line code on physical registers
        if isinstance(op, MCIntrinsicOp):
            raise _fail(describe_point(payload),
                        f"instr.mc_intrinsic \"{op.intrinsic.data}\" is not lowered (state "
                        "intrinsics need the SVA: run place-sva before lower-intrinsics, and "
                        "emit-preamble)")
        raise _fail(describe_point(payload),
                    f"'{op.name}' is not machine code (run lower-hooks first)")
    return found


@dataclass
class _PCRelative:
    """An application operand measured from the end of ``base``."""

    op: InstructionOpBase
    operand: int
    base: InstructionOpBase


def _layout(function: FunctionLikeOp, isa: TargetISA) -> FunctionLayout:
    """Where each instruction lies in the function (payloads not counted)."""
    try:
        return function_layout(function, isa, payloads_take_no_room=True, packed=True)
    except UnsizedError as error:
        raise _fail(f"@{function.sym_name.data}", str(error)) from None


def _pc_relative_operands(function: FunctionLikeOp, isa: TargetISA,
                          layout: FunctionLayout) -> list[_PCRelative]:
    """The application's PC-relative operands, each tied to the instruction whose end it
    is measured from."""
    ends: dict[int, InstructionOpBase] = {}
    found: list[_PCRelative] = []
    # Only instructions with a symbolic operand can have one (the layout knows them from
    # its encodings), in layout order.
    for op in sorted(layout.symbolic, key=layout.offsets.__getitem__):
        offset = layout.offsets[op]
        for index, attr in enumerate(op.mc_operands.data):
            if not isinstance(attr, SymbolOperandAttr) or op.KIND == "branch":
                continue
            reference = attr.data.reference
            if reference is None or not literal_is_pc_relative(reference.variant):
                continue
            point = offset + literal_offset(op, isa) - reference.addend
            if not ends:
                ends = {layout.end(op): op for op, _ in layout.instructions()}
            base = ends.get(point)
            if base is None:
                raise _fail(f"@{function.sym_name.data}",
                            f"{op.mnemonic} at {offset:#x}: '{attr.data.text()}' is measured from "
                            f"{point:#x}, which is not the end of an instruction; code "
                            "inserted before it would change its value")
            found.append(_PCRelative(op, index, base))
    return found


def _rebase(found: list[_PCRelative], layout: FunctionLayout, isa: TargetISA) -> None:
    for item in found:
        attr = item.op.mc_operands.data[item.operand]
        assert isinstance(attr, SymbolOperandAttr)
        reference = attr.data.reference
        assert reference is not None
        addend = layout.offsets[item.op] + literal_offset(item.op, isa) - layout.end(item.base)
        if addend == reference.addend:
            continue
        operands: list[Attribute] = list(item.op.mc_operands.data)
        operands[item.operand] = SymbolOperandAttr(replace(reference, addend=addend).expr)
        item.op.mc_operands = ArrayAttr(operands)


def _splice(payload: PayloadOp, builder: InstBuilder) -> None:
    block = payload.parent_block()
    region = block.parent_region() if block is not None else None
    assert block is not None and region is not None
    blocks = list(payload.body.blocks)
    if len(blocks) == 1:
        for op in list(blocks[0].ops):
            op.detach()
            if not isinstance(op, ReturnOp):
                block.insert_op_before(op, payload)
        # Nothing refers to the payload (no results, no uses): unlinking it is enough,
        # and erasing each of tens of thousands walks what is left of its body again.
        payload.detach()
        return
    # Control flow: block = [before, payload blocks..., tail = [instrumented, rest]].
    tail = Block()
    region.insert_block_after(tail, block)
    rest: list[Operation] = []
    op = payload.next_op
    while op is not None:
        rest.append(op)
        op = op.next_op
    for op in rest:
        op.detach()
    previous = block
    for inner in blocks:
        payload.body.detach_block(inner)
        region.insert_block_after(inner, previous)
        previous = inner
    payload.detach()
    payload.erase()
    block.add_op(FallthroughOp(blocks[0]))
    for inner in blocks:
        last = inner.last_op
        if isinstance(last, ReturnOp):
            inner.erase_op(last)
            inner.add_op(FallthroughOp(tail) if inner is blocks[-1]
                         else builder.branch("s_branch", [tail]))
    # Only the payload's own branches can target its blocks or the new tail (the
    # application's branch to blocks it had), so only they are searched. The tail is
    # merged while still empty, and the rest of the block (which can be long: a block
    # with many points) moves once, into whichever block holds the tail's place.
    merged = _merge_into_predecessor(tail, blocks[-1], blocks)
    into = blocks[-1] if merged else tail
    for op in rest:
        into.add_op(op)
    _merge_into_predecessor(blocks[0], block, blocks)


def _is_target(block: Block, blocks: list[Block]) -> bool:
    """Whether a branch ending one of ``blocks`` targets ``block`` (fall-throughs do
    not count: the merge keeps the layout predecessor's)."""
    for other in blocks:
        last = other.last_op
        if last is None or isinstance(last, FallthroughOp):
            continue
        if block in last.successors:
            return True
    return False


def _merge_into_predecessor(block: Block, predecessor: Block, branching: list[Block]) -> bool:
    """Append ``block``'s ops to ``predecessor`` (which falls into it) when nothing else
    branches to ``block``; returns whether it did (``block`` is then erased)."""
    last = predecessor.last_op
    if not isinstance(last, FallthroughOp) or last.dest is not block:
        return False
    if _is_target(block, branching):
        return False
    predecessor.erase_op(last)
    for op in list(block.ops):
        op.detach()
        predecessor.add_op(op)
    region = block.parent_region()
    assert region is not None
    region.erase_block(block)
    return True


def splice_function(function: FunctionLikeOp, isa: TargetISA,
                    hazards: HazardModel | None = None) -> int:
    """Splice every payload of ``function``; returns how many there were."""
    payloads = [op for op in region_ops(function.body) if isinstance(op, PayloadOp)]
    if not payloads:
        return 0
    inserted: set[InstructionOpBase] = set()
    for payload in payloads:
        inserted.update(check_lowered(payload))
    branches = FunctionCFG.build(function, isa).unknown_branches()
    if branches:
        raise _fail(f"@{function.sym_name.data}", f"{branches[0]}: inserted code may move "
                    "what it lands on")
    found = _pc_relative_operands(function, isa, _layout(function, isa))
    builder = InstBuilder(isa.name, isa.wavefront_size)
    for payload in payloads:
        _splice(payload, builder)
    cfg = FunctionCFG.build(function, isa)
    insert_wait_states(cfg, hazards or HazardModel.shared(isa), inserted)
    if isa.subtarget.has_no_data_dep_hazard:
        insert_mitigations(cfg, isa, inserted)
    if found:
        _rebase(found, _layout(function, isa), isa)
    return len(payloads)


def splice_payloads(code_object: CodeObjectOp) -> int:
    """Splice the payloads of every function of ``code_object``; returns their number."""
    isa = load_target(*code_object.target_key)
    hazards = HazardModel.shared(isa)  # one memo for every function
    return sum(splice_function(op, isa, hazards)
               for op in over("splice-payloads", [op for op in code_object.body.ops
                                                   if isinstance(op, FunctionLikeOp)], "function"))


@dataclass(frozen=True)
class SplicePayloadsPass(ModulePass):
    """Move every lowered ``instr.payload``'s code into its function, before the
    instruction it instruments, keeping PC-relative operands exact."""

    name = "splice-payloads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in code_objects_in(op):
            splice_payloads(code_object)
