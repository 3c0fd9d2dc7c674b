"""The one function layout: instruction sizes are the emitter's bytes, offsets follow from
them, and code whose size is not known yet says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, operand_array
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    UnsizedError,
    function_layout,
    instruction_size,
    literal_offset,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FallthroughOp,
    FunctionLikeOp,
    FunctionOp,
    KernelOp,
)
from luthier.amdgpu_dialects.instr.dialect import INSTR
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.spec import RelocationColumns
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit.text import TextEncoder

KERNELS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"
ISA = load_target("gfx90a")

_CODE_OBJECT = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, '
                'elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {')

_FUNCTION = _CODE_OBJECT + """
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b32 s0, 5
    amdgpu_mc.s_mov_b32 s1, 0x12345
    amdgpu_mc.s_mov_b32 <{opcode = "S_MOV_B32_vi",
                          mc_operands = [#amdgpu_mc.reg<s2>, #amdgpu_mc.lit<5>]}>
    amdgpu_mc.s_cbranch_scc0 ^bb2, ^bb1
  ^bb1:
    amdgpu_mc.s_getpc_b64 s[4:5]
    amdgpu_mc.s_add_u32 s4, s4, counter@rel32@lo+4
    amdgpu_mc.fallthrough ^bb2
  ^bb2:
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
"""


def _parse(text: str) -> CodeObjectOp:
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    context.load_dialect(INSTR)
    module = Parser(context, text).parse_module()
    assert isinstance(module, ModuleOp)
    code_object = next(iter(module.ops))
    assert isinstance(code_object, CodeObjectOp)
    return code_object


def _function(code_object: CodeObjectOp) -> FunctionLikeOp:
    return next(op for op in code_object.body.ops if isinstance(op, FunctionLikeOp))


def _instructions(function: FunctionLikeOp) -> list[InstructionOpBase]:
    return [op for block in function.body.blocks for op in block.ops
            if isinstance(op, InstructionOpBase)]


def test_sizes_are_the_encoders_kept_literals_and_symbols_included() -> None:
    function = _function(_parse(_FUNCTION))
    sizes = [instruction_size(op, ISA) for op in _instructions(function)]
    # inline constant, literal (no inline constant holds it), kept literal of an inline
    # value, branch, s_getpc_b64, symbolic literal, s_setpc_b64
    assert sizes == [4, 8, 8, 4, 4, 8, 4]


def test_layout_offsets_of_ops_and_blocks() -> None:
    function = _function(_parse(_FUNCTION))
    layout = function_layout(function, ISA)
    entry, middle, last = layout.blocks
    assert [layout.block_offsets[block] for block in layout.blocks] == [0, 24, 36]
    assert layout.size == 40
    assert [offset for _, offset in layout.instructions()] == [0, 4, 12, 20, 24, 28, 36]
    fallthrough = middle.last_op
    assert isinstance(fallthrough, FallthroughOp)
    # A fall-through takes no room: it sits where the next block starts.
    assert layout.offsets[fallthrough] == layout.end(fallthrough) == 36
    assert layout.block_end(entry) == 24 and layout.block_end(last) == 40


def test_literal_offset_is_after_the_records_words() -> None:
    add = _instructions(_function(_parse(_FUNCTION)))[5]
    assert add.mnemonic == "s_add_u32"
    assert literal_offset(add, ISA) == 4


def test_a_changed_operand_array_is_measured_again() -> None:
    mov = _instructions(_function(_parse(_FUNCTION)))[0]
    assert instruction_size(mov, ISA) == 4
    operands: list[Attribute] = list(mov.mc_operands.data)
    operands[1] = IntAttr(0x12345)
    mov.mc_operands = operand_array(operands)
    assert instruction_size(mov, ISA) == 8


def test_virtual_registers_have_no_size_yet() -> None:
    mov = _instructions(_function(_parse(_FUNCTION)))[0]
    mov.mc_operands = operand_array([VirtRegAttr((3, "SReg_32")), IntAttr(5)])
    with pytest.raises(UnsizedError, match=r"s_mov_b32: virtual register %3:SReg_32 is not "
                                           "allocated") as caught:
        instruction_size(mov, ISA)
    assert caught.value.op is mov


def test_an_opcode_the_target_lacks_has_no_size() -> None:
    mov = _instructions(_function(_parse(_FUNCTION)))[0]
    mov.opcode = StringAttr("S_MOV_B32_gfx12")
    with pytest.raises(UnsizedError, match="'S_MOV_B32_gfx12' is not an instruction of gfx90a"):
        instruction_size(mov, ISA)


_WITH_PAYLOAD = _CODE_OBJECT + """
  amdgpu_mc.func @f {
    amdgpu_mc.s_mov_b32 s0, 5
    "instr.payload"() ({
      amdgpu_mc.s_mov_b32 s1, 0x12345
      "instr.return"() : () -> ()
    }) : () -> ()
    amdgpu_mc.s_setpc_b64 s[30:31]
  }
}
"""


def test_payloads_take_no_room_only_when_asked() -> None:
    function = _function(_parse(_WITH_PAYLOAD))
    with pytest.raises(UnsizedError, match="'instr.payload' is not an instruction"):
        function_layout(function, ISA)
    layout = function_layout(function, ISA, payloads_take_no_room=True)
    assert [offset for _, offset in layout.instructions()] == [0, 4]
    assert layout.size == 8


@pytest.mark.parametrize("name", ["calls.gfx90a.co", "atomics.gfx942.co"])
def test_layout_matches_what_the_emitter_writes(name: str) -> None:
    """Every function of a lifted object: the emitter's bytes per instruction are the
    layout's sizes, and the function's code is the layout's size."""
    code_object = lift_code_object(read_code_object(KERNELS / name)).module
    assert isinstance(code_object, CodeObjectOp)
    isa = load_target(code_object.processor)
    encoder = TextEncoder(isa, encoder_for(isa.name))
    for function in code_object.body.ops:
        if not isinstance(function, FunctionLikeOp):
            continue
        layout = function_layout(function, isa)
        assert len(encoder.encode_function(function, 0, RelocationColumns())) == layout.size
        ends = [layout.end(op) for op, _ in layout.instructions()]
        starts = [offset for _, offset in layout.instructions()]
        assert starts[1:] == ends[:-1]


def test_kernels_and_device_functions_are_function_like() -> None:
    code_object = lift_code_object(read_code_object(KERNELS / "calls.gfx90a.co")).module
    assert isinstance(code_object, CodeObjectOp)
    kinds = {type(op) for op in code_object.body.ops if isinstance(op, FunctionLikeOp)}
    assert kinds == {KernelOp, FunctionOp}
    kernel = next(op for op in code_object.body.ops if isinstance(op, KernelOp))
    assert kernel.code_alignment == 256 and kernel.fill == "s_nop"
    function = _function(_parse(_FUNCTION))
    assert function.code_alignment == 4


def test_the_verifier_holds_a_fallthrough_to_the_next_block() -> None:
    code_object = _parse(_FUNCTION)
    code_object.verify()
    function = _function(code_object)
    fallthrough = next(op for op in function.walk() if isinstance(op, FallthroughOp))
    entry = function.body.blocks.first
    assert isinstance(entry, Block)
    fallthrough.successors[0] = entry
    with pytest.raises(VerifyException, match="amdgpu_mc.fallthrough must name the next "
                                              "block"):
        code_object.verify()
