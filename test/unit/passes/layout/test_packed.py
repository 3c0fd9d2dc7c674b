"""Packed payload code (``amdgpu_mc.packed``) gives the bytes the same code gives spliced op
by op: wait states before, after and inside packed code (where an ``s_nop`` must go
between two of its instructions it is unpacked), branch relaxation (a function needing
islands is unpacked), and whole corpus objects with every example hook through the
drivers' packed path against the unpacked passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.layout import UnsizedError, function_layout
from luthier.amdgpu_dialects.amdgpu_mc.packed import (
    PackedCode,
    PackedCodeAttr,
    PackedCodeOp,
    unpack_all,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.drivers.pipeline import instrument_bytes, pipeline_context
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit import emit_code_object
from luthier.passes.instrument.pipeline import LowerHooksPass, lower_hooks
from luthier.passes.layout.pipeline import FinalizeInstrumentationPass
from luthier.passes.layout.relax_branches import relax_branches
from luthier.passes.layout.splice_payloads import splice_payloads

from .gfx90a_text import parse_code_object

ROOT = Path(__file__).resolve().parents[4]
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOOKS = ROOT / "examples" / "hooks"

#: Payloads whose wait states fall before, after and inside their code: an MFMA's
#: registers in flight before the first instruction; a VALU-written SGPR that the
#: application's load reads right after the payload; a lane select the application
#: wrote, read by the payload's second instruction (the ``s_nop`` goes inside it).
HAZARDS = """
  amdgpu_mc.kernel @mfma_in_flight <{descriptor = #amdgpu_mc.kernel_descriptor<
      rsrc3.accum_offset = 4>}> {
    amdgpu_mc.v_mfma_f32_32x32x2f32 v[2:17], v18, v19, v[2:17]
    instr.payload @count attributes {args = []} {
      amdgpu_mc.v_mov_b32_e32 v18, 1
      amdgpu_mc.v_mov_b32_e32 v20, 2
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
  amdgpu_mc.kernel @restored_sgpr <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {
    amdgpu_mc.s_load_dwordx2 s[4:5], s[0:1], 0x0
    amdgpu_mc.s_waitcnt lgkmcnt(0)
    instr.payload @spill attributes {args = []} {
      amdgpu_mc.v_writelane_b32 v20, s4, 0
      amdgpu_mc.s_mov_b32 s4, 7
      amdgpu_mc.v_readlane_b32 s4, v20, 0
      instr.return
    }
    amdgpu_mc.global_load_dword v1, v0, s[4:5]
    amdgpu_mc.v_readfirstlane_b32 s6, v1
    instr.payload @lane attributes {args = []} {
      amdgpu_mc.s_mov_b32 s8, 0
      amdgpu_mc.v_readlane_b32 s7, v2, s6
      instr.return
    }
    amdgpu_mc.v_readfirstlane_b32 s6, v1
    instr.payload @lane attributes {args = []} {
      amdgpu_mc.s_mov_b32 s8, 0
      amdgpu_mc.v_readlane_b32 s7, v2, s6
      instr.return
    }
    amdgpu_mc.s_endpgm
  }
"""


def _pack_payloads(code_object: CodeObjectOp) -> int:
    """Give every payload a packed op of its own body, as packed lowering does (one code
    shared by payloads with equal bodies: the first payload's)."""
    shared: dict[str, PackedCodeAttr] = {}
    packed = 0
    for payload in [op for op in code_object.walk() if isinstance(op, PayloadOp)]:
        block = payload.body.block
        code = PackedCode.of_block(block)
        assert code is not None
        key = "\n".join(str(op) for op in code.ops)
        attr = shared.setdefault(key, PackedCodeAttr(code))
        if attr.data is code:  # the first payload of this body keeps its ops
            payload.body.detach_block(block)
        else:
            for op in list(block.ops):
                op.detach()
                op.erase()
            payload.body.detach_block(block)
        payload.body.add_block(Block([PackedCodeOp.of(attr), ReturnOp.create()]))
        packed += 1
    return packed


def _text(code_object: CodeObjectOp) -> str:
    return str(code_object)


def _functions(code_object: CodeObjectOp) -> list[FunctionLikeOp]:
    return [op for op in code_object.body.ops if isinstance(op, FunctionLikeOp)]


def test_wait_states_around_and_inside_packed_code_as_when_spliced_op_by_op() -> None:
    expected = parse_code_object(HAZARDS)
    splice_payloads(expected)
    packed = parse_code_object(HAZARDS)
    assert _pack_payloads(packed) == 4
    splice_payloads(packed)
    kinds = [type(op) for op in packed.walk()]
    # The two @lane payloads share one code; both needed an s_nop inside it.
    assert kinds.count(PackedCodeOp) == 2
    unpack_all([op for function in _functions(packed) for block in function.body.blocks
                for op in block.ops])
    assert _text(packed) == _text(expected)
    text = _text(expected)
    assert "amdgpu_mc.s_mov_b32 s8, 0\n    amdgpu_mc.s_nop 2\n    amdgpu_mc.v_readlane_b32 s7" \
        in text.replace("      ", "    ")


def test_packed_code_stays_packed_where_no_wait_state_falls_inside() -> None:
    code_object = parse_code_object(HAZARDS)
    _pack_payloads(code_object)
    splice_payloads(code_object)
    mfma = _functions(code_object)[0]
    ops = [op for block in mfma.body.blocks for op in block.ops]
    names = [op.name for op in ops]
    # Fifteen and three wait states before the packed op, which stays whole.
    assert names == ["amdgpu_mc.v_mfma_f32_32x32x2f32", "amdgpu_mc.s_nop", "amdgpu_mc.s_nop",
                     "amdgpu_mc.packed", "amdgpu_mc.s_endpgm"]


def _long_branch(filler: int) -> str:
    payloads = "\n".join(
        "    instr.payload @pad attributes {args = []} {\n"
        "      amdgpu_mc.v_mov_b32_e32 v1, 0\n      amdgpu_mc.v_mov_b32_e32 v2, 1\n"
        "      instr.return\n    }\n    amdgpu_mc.v_mov_b32_e32 v3, v4"
        for _ in range(filler))
    return ("  amdgpu_mc.kernel @far <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {\n"
            "    amdgpu_mc.s_cbranch_scc1 ^bb1\n"
            "  ^bb0:\n" + payloads + "\n    amdgpu_mc.s_endpgm\n"
            "  ^bb1:\n    amdgpu_mc.s_endpgm\n  }")


@pytest.mark.parametrize("filler, reach", [(8, 1 << 15), (40, 64)])
def test_relaxation_unpacks_only_functions_that_need_islands(filler: int, reach: int) -> None:
    source = _long_branch(filler).replace("^bb0:\n", "", 1)
    source = source.replace("amdgpu_mc.s_cbranch_scc1 ^bb1\n",
                            "amdgpu_mc.s_cbranch_scc1 ^bb1, ^bb2\n  ^bb2:\n", 1)
    expected = parse_code_object(source)
    splice_payloads(expected)
    expected_islands = relax_branches(expected, reach)
    packed = parse_code_object(source)
    _pack_payloads(packed)
    splice_payloads(packed)
    islands = relax_branches(packed, reach)
    assert islands == expected_islands
    remaining = sum(isinstance(op, PackedCodeOp) for op in packed.walk())
    assert remaining == (filler if islands == 0 else 0)
    unpack_all([op for function in _functions(packed) for block in function.body.blocks
                for op in block.ops])
    assert _text(packed) == _text(expected)


def test_layout_refuses_packed_code_unless_asked_and_sizes_it_when_asked() -> None:
    code_object = parse_code_object(HAZARDS)
    _pack_payloads(code_object)
    splice_payloads(code_object)
    function = _functions(code_object)[0]
    isa = load_target("gfx90a")
    with pytest.raises(UnsizedError, match="packed code"):
        function_layout(function, isa)
    layout = function_layout(function, isa, packed=True)
    packed = next(op for op in function.walk() if isinstance(op, PackedCodeOp))
    assert layout.end(packed) - layout.offsets[packed] == 8  # two VOP1 instructions
    assert layout.size == 8 + 4 + 4 + 8 + 4  # mfma (VOP3P), two s_nop, the code, s_endpgm


def test_packed_code_prints_its_opcodes_and_is_not_parsed() -> None:
    code_object = parse_code_object(HAZARDS)
    _pack_payloads(code_object)
    packed = next(op for op in code_object.walk() if isinstance(op, PackedCodeOp))
    assert str(packed) == ('"amdgpu_mc.packed"() <{code = #amdgpu_mc.packed_code<'
                           '"V_MOV_B32_e32_vi", "V_MOV_B32_e32_vi">}> : () -> ()')
    with pytest.raises(ParseError, match="built in memory"):
        parse_code_object(
            "  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {\n"
            "    \"amdgpu_mc.packed\"() <{code = #amdgpu_mc.packed_code<\"x\">}> : () -> ()\n"
            "    amdgpu_mc.s_endpgm\n  }")


def test_straight_line_code_only_is_packed() -> None:
    code_object = parse_code_object(_long_branch(1))
    function = _functions(code_object)[0]
    branching = function.body.blocks.first
    assert branching is not None
    assert PackedCode.of_block(branching) is None  # a branch cannot be packed
    payload = next(op for op in code_object.walk() if isinstance(op, PayloadOp))
    code = PackedCode.of_block(payload.body.block)
    assert code is not None and len(code.ops) == 2
    assert all(isinstance(op, InstructionOpBase) for op in code.ops)


def _unpacked(data: bytes, name: str, hooks: str) -> bytes:
    ctx = pipeline_context()
    module = ModuleOp([lift_code_object(read_code_object(data, name=name)).module])
    from luthier.drivers.opt_main import merge_hooks

    merge_hooks(module, Parser(ctx, hooks, "<hooks>").parse_module(), name, "<hooks>")
    LowerHooksPass().apply(ctx, module)
    assert not any(isinstance(op, PackedCodeOp) for op in module.walk())
    FinalizeInstrumentationPass().apply(ctx, module)
    return emit_code_object(module)


OBJECTS = ["lds.gfx90a.co", "control_flow.gfx942.co", "calls.gfx90a.co"]


@pytest.mark.parametrize("hook", ["instr_count", "opcode_histogram", "memory_trace",
                                  "kernarg_reader"])
@pytest.mark.parametrize("name", OBJECTS)
def test_drivers_packed_path_gives_the_unpacked_bytes(name: str, hook: str) -> None:
    data = (KERNELS / name).read_bytes()
    hooks = (HOOKS / f"{hook}.mlir").read_text()
    assert instrument_bytes(data, name, hooks) == _unpacked(data, name, hooks)


def test_packed_lowering_shares_one_code_per_allocation() -> None:
    ctx = pipeline_context()
    data = (KERNELS / "lds.gfx90a.co").read_bytes()
    module = ModuleOp([lift_code_object(read_code_object(data, name="lds")).module])
    from luthier.drivers.opt_main import merge_hooks

    hooks = (HOOKS / "instr_count.mlir").read_text()
    merge_hooks(module, Parser(ctx, hooks, "<hooks>").parse_module(), "lds", "<hooks>")
    lower_hooks(ctx, module, packed=True)
    payloads = [op for op in module.walk() if isinstance(op, PayloadOp)]
    packed = [op for op in module.walk() if isinstance(op, PackedCodeOp)]
    codes = {id(op.code.data) for op in packed}
    assert len(packed) == len(payloads) > 100
    assert len(codes) < len(packed) // 2  # points that allocated alike share the code
