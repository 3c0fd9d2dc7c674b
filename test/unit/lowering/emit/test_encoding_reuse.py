"""Emission writes the layout's memoised encodings, which the lifter seeds with the input's
bytes: an unchanged instruction is not encoded again, a changed one is.

The seeds are a cache, never a second source of truth: every memoised encoding must equal
what encoding the op now gives, and an op whose operands a pass replaced must come out with
its new bytes.
"""

from __future__ import annotations

from pathlib import Path

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, operand_array
from luthier.amdgpu_dialects.amdgpu_mc.layout import (
    ZERO_LITERAL,
    function_layout,
    instruction_encoding,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionLikeOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit import emit_code_object

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"
ELEMENTWISE = CORPUS / "elementwise.gfx90a.co"


def _functions(path: Path) -> tuple[list[FunctionLikeOp], str]:
    code_object = read_code_object(path)
    module = lift_code_object(code_object).module
    return ([op for op in module.body.block.ops if isinstance(op, FunctionLikeOp)],
            code_object.processor)


def test_every_memoised_encoding_is_what_encoding_gives_now() -> None:
    functions, processor = _functions(CORPUS / "scratch.gfx90a.co")
    isa, encoder = load_target(processor), encoder_for(processor)
    checked = 0
    for function in functions:
        for block in function.body.blocks:
            for op in block.ops:
                if not isinstance(op, InstructionOpBase) or op.KIND == "branch":
                    continue
                desc = isa.by_name[op.opcode.data]
                fresh = encoder.encode(op.to_mcinst(desc, ZERO_LITERAL, 0), keep_literals=True)
                assert instruction_encoding(op, isa)[0] == fresh, op.mnemonic
                checked += 1
    assert checked > 1000


def test_the_layout_hands_emission_the_input_bytes() -> None:
    code_object = read_code_object(ELEMENTWISE)
    module = lift_code_object(code_object).module
    isa = load_target(code_object.processor)
    text = code_object.text
    assert text is not None
    symbols = {symbol.name: symbol for symbol in code_object.symbols}
    for function in module.body.block.ops:
        if not isinstance(function, FunctionLikeOp):
            continue
        layout = function_layout(function, isa)
        start = symbols[function.sym_name.data].value - text.address
        for op, at in layout.instructions():
            if op.KIND == "branch" or op in layout.symbolic:
                continue
            original = text.data[start + at:start + at + layout.sizes[op]]
            assert layout.encodings[op] == original, (function.sym_name.data, at)


def test_a_changed_instruction_is_encoded_again() -> None:
    code_object = read_code_object(ELEMENTWISE)
    module = lift_code_object(code_object).module
    function = next(op for op in module.body.block.ops
                    if isinstance(op, FunctionLikeOp) and op.sym_name.data == "saxpy")
    mov = next(op for block in function.body.blocks for op in block.ops
               if isinstance(op, InstructionOpBase)
               and op.opcode.data == "V_MOV_B32_e32_vi")
    operands = list(mov.mc_operands.data)
    assert operands[0] == PhysRegAttr.get_register("v1")
    operands[0] = PhysRegAttr.get_register("v7")
    mov.properties["mc_operands"] = operand_array(operands)
    at = function_layout(function, load_target(code_object.processor)).offsets[mov]

    emitted = read_code_object(emit_code_object(module), name="emitted")
    text = emitted.text
    assert text is not None
    symbol = next(symbol for symbol in emitted.symbols if symbol.name == "saxpy")
    start = symbol.value - text.address
    decoded = decoder_for(emitted.processor).decode(text.data, start + at)
    assert decoded.desc.name == "V_MOV_B32_e32_vi"
    assert decoded.operands[0] == "v7"
    original = read_code_object(ELEMENTWISE)
    assert original.text is not None
    assert text.data[start + at:start + at + 4] != original.text.data[start + at:start + at + 4]
