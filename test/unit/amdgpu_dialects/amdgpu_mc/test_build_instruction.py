"""build_instruction sets an op's fields directly (for lifting speed); it must make exactly
what ``Operation.create`` makes, so that the rest of xDSL cannot tell the difference."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import IntAttr, NoneAttr
from xdsl.ir import Block, Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    build_instruction,
    instruction_op_class,
    opcode_attr,
    operand_array,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr


def _fields(op: Operation) -> dict[str, Any]:
    fields = dict(vars(op))
    uses = fields.pop("_successor_uses")
    fields["_successor_uses"] = [(use.operation is op, use.index) for use in uses]
    return fields


def test_a_plain_instruction_has_the_fields_create_gives() -> None:
    operands = [PhysRegAttr.get_register("v1"), PhysRegAttr.get_register("v2")]
    built = build_instruction("v_mov_b32_e32", "V_MOV_B32_e32_gfx90a", operands)
    created = instruction_op_class("v_mov_b32_e32").create(properties={
        "opcode": opcode_attr("V_MOV_B32_e32_gfx90a"), "mc_operands": operand_array(operands)})
    assert type(built) is type(created)
    assert _fields(built) == _fields(created)
    assert built.is_structurally_equivalent(created)


def test_a_branch_registers_its_uses_of_the_successors() -> None:
    taken, fallthrough = Block(), Block()
    operands = [NoneAttr()]
    built = build_instruction("s_cbranch_scc1", "S_CBRANCH_SCC1", operands,
                              [taken, fallthrough])
    created = instruction_op_class("s_cbranch_scc1").create(
        properties={"opcode": opcode_attr("S_CBRANCH_SCC1"),
                    "mc_operands": operand_array(operands)},
        successors=[taken, fallthrough])
    assert _fields(built) == _fields(created)
    assert {(id(use.operation), use.index) for use in taken.uses} == {(id(built), 0),
                                                                       (id(created), 0)}
    assert {(id(use.operation), use.index) for use in fallthrough.uses} == {(id(built), 1),
                                                                             (id(created), 1)}


def test_a_built_op_goes_into_a_block_and_erases_cleanly() -> None:
    block = Block()
    op = build_instruction("s_nop", "S_NOP", [IntAttr(0)])
    block.add_op(op)
    assert op.parent is block and block.first_op is op
    block.erase_op(op)
    assert block.first_op is None
