"""allocate-payload-registers: the payload liveness and interference core on hand-written
payloads, and a property check on lifted corpus kernels: after allocation, no register a
payload writes is live in the application at its point unless it is saved around it."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.builder import EXEC, InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import mask_of, units_of
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    KernelOp,
)
from luthier.amdgpu_dialects.instr.dialect import INSTR
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.analysis.liveness import Liveness, instructions
from luthier.passes.instrument.regalloc import PayloadAllocator, allocation_of, payload_sites
from luthier.passes.instrument.regalloc_model import PayloadCode, analyze_payload

_HEADER = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn",'
           ' e_flags = 1343 : i64, abi_version = 3 : i64}> {\n'
           '  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {\n'
           '    instr.payload @p attributes {args = []} {\n')
_FOOTER = '    }\n    amdgpu_mc.s_endpgm\n  }\n}\n'


def _payload(body: str) -> tuple[PayloadOp, PayloadCode]:
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    context.load_dialect(INSTR)
    module = Parser(context, _HEADER + body + _FOOTER).parse_module()
    assert isinstance(module, ModuleOp)
    payload = next(op for op in module.walk() if isinstance(op, PayloadOp))
    return payload, analyze_payload(payload, load_target("gfx90a"))


def test_sub_registers_are_separate_units() -> None:
    _, code = _payload(
        "      amdgpu_mc.s_mov_b32 %1:SReg_64.sub0, 1\n"
        "      amdgpu_mc.s_mov_b32 %2:SReg_32, 2\n"
        "      amdgpu_mc.s_mov_b32 %1:SReg_64.sub1, %2:SReg_32\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : SReg_64>]}\n'
        "      instr.return\n")
    whole = code.vregs[1]
    low = 1 << whole.base
    # Before sub1 is written only sub0 is live; %2 meets %1 (sub0 is live across it).
    assert code.live_before[2] & whole.mask == low
    assert code.live_after[2] & whole.mask == whole.mask
    assert code.vreg_conflicts[1] == {2}


def test_numbers_in_and_vector_units_follow_the_register_masks() -> None:
    """The set-bit look-ups give what asking every virtual register gives: the registers
    with a unit in the mask, in the order of their units, and the vector ones' units."""
    _, code = _payload(
        "      amdgpu_mc.s_mov_b32 %1:SReg_64.sub0, 1\n"
        "      amdgpu_mc.v_mov_b32_e32 %2:VReg_64.sub1, 2\n"
        "      amdgpu_mc.s_mov_b32 %3:SReg_32, 3\n"
        "      amdgpu_mc.v_mov_b32_e32 %4:VGPR_32, %3:SReg_32\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : SReg_64>, '
        "#amdgpu_mc.vreg<2 : VReg_64>, #amdgpu_mc.vreg<4 : VGPR_32>]}\n"
        "      instr.return\n")
    masks = {number: vreg.mask for number, vreg in code.vregs.items()}
    every = 0
    for mask in masks.values():
        every |= mask
    for live in [0, every, *code.live_before, *code.live_after,
                 masks[1] >> 1 << 1, masks[2] & -masks[2], masks[4] | masks[1]]:
        assert code.numbers_in(live) == [n for n, mask in masks.items() if live & mask]
    vector = 0
    for vreg in code.vregs.values():
        if vreg.is_vector:
            vector |= vreg.mask
    assert code.vector_units() == vector == masks[2] | masks[4]


def test_value_used_after_exec_restore_lives_across_the_narrow_region() -> None:
    # %3 is written before EXEC is narrowed and read after it is restored; %4 is written
    # and read while only lane 0 runs. %4's write under a narrow EXEC ends only lane 0 of
    # its value, but %3 must survive in every lane: they conflict.
    _, code = _payload(
        "      amdgpu_mc.v_mov_b32_e32 %3:VGPR_32, 1\n"
        "      amdgpu_mc.s_mov_b64 %2:SReg_64, exec\n"
        "      amdgpu_mc.s_mov_b64 exec, 1\n"
        "      amdgpu_mc.v_mov_b32_e32 %4:VGPR_32, 2\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<4 : VGPR_32>]}\n'
        "      amdgpu_mc.s_mov_b64 exec, %2:SReg_64\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<3 : VGPR_32>]}\n'
        "      instr.return\n")
    assert [item.exec_covers for item in code.items] == [True, True, True, False, False,
                                                        False, True]
    assert 4 in code.vreg_conflicts[3]
    # %4 is read only under the EXEC it is written under: dead before its write.
    assert not code.live_before[3] & code.vregs[4].mask
    # %3 is live in the lanes switched off across the narrow region.
    assert all(code.live_before[index] & code.vregs[3].mask for index in range(1, 7))


def test_value_dead_before_its_write_under_the_entry_exec() -> None:
    _, code = _payload(
        "      amdgpu_mc.v_mov_b32_e32 %1:VGPR_32, 1\n"
        "      amdgpu_mc.v_mov_b32_e32 %2:VGPR_32, %1:VGPR_32\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<2 : VGPR_32>]}\n'
        "      instr.return\n")
    assert code.numbers_in(code.live_before[0]) == []
    assert code.vreg_conflicts == {1: set(), 2: set()}


def test_branches_join_liveness() -> None:
    _, code = _payload(
        "      amdgpu_mc.s_mov_b32 %1:SReg_32, 1\n"
        "      amdgpu_mc.s_cbranch_execz ^bb2, ^bb1\n"
        "    ^bb1:\n"
        "      amdgpu_mc.s_mov_b32 %2:SReg_32, 2\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<2 : SReg_32>]}\n'
        "      amdgpu_mc.fallthrough ^bb2\n"
        "    ^bb2:\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<1 : SReg_32>]}\n'
        "      instr.return\n")
    # %1 is live through ^bb1 (read in ^bb2), so it meets %2.
    assert code.vreg_conflicts[1] == {2}
    assert code.pressure("s") == 2


def test_physical_reads_keep_their_units_busy() -> None:
    _, code = _payload(
        "      amdgpu_mc.s_mov_b32 %1:SReg_32, 1\n"
        "      amdgpu_mc.s_add_u32 %2:SReg_32, %1:SReg_32, s9\n"
        '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<2 : SReg_32>]}\n'
        "      instr.return\n")
    assert code.phys_conflicts[1] & units_of("s9")
    assert not code.phys_conflicts[2] & units_of("s9")


# -- property: corpus kernels -----------------------------------------------------------------

_KERNELS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"


@functools.cache
def _lifted(name: str) -> CodeObjectOp:
    module = lift_code_object(read_code_object(_KERNELS / name)).module
    assert isinstance(module, CodeObjectOp)
    return module


def _probe(processor: str) -> PayloadOp:
    build = InstBuilder(processor)
    s1 = VirtRegAttr.of(1, "SReg_32")
    s2 = VirtRegAttr.of(2, "SReg_64")
    v3 = VirtRegAttr.of(3, "VGPR_32")
    v4 = VirtRegAttr.of(4, "VReg_64")
    ops = [
        build.inst("s_mov_b32", [s1, 7]),
        build.inst("s_mov_b64", [s2, EXEC]),
        build.inst("s_mov_b64", [EXEC, 1]),
        build.inst("v_mov_b32_e32", [v3, s1]),
        build.inst("v_mov_b32_e32", [v4.part(0), v3]),
        build.inst("v_mov_b32_e32", [v4.part(1), 0]),
        MCIntrinsicOp("use", [], [v4, s1]),
        build.inst("s_mov_b64", [EXEC, s2]),
        ReturnOp(),
    ]
    return PayloadOp("probe", [], Region(Block(ops)))


def _place(code_object: CodeObjectOp, every: int) -> None:
    for function in code_object.body.ops:
        if not isinstance(function, FunctionLikeOp):
            continue
        for index, op in enumerate(list(instructions(function))):
            if index % every:
                continue
            block = op.parent_block()
            assert block is not None
            block.insert_op_before(_probe(code_object.processor), op)


@pytest.mark.parametrize("name", ["control_flow.gfx90a.co", "elementwise.gfx942.co",
                                  "mfma.gfx90a.co", "calls.gfx90a.co"])
def test_allocated_registers_are_dead_at_the_point(name: str) -> None:
    code_object = _lifted(name).clone()
    _place(code_object, 3)
    PayloadAllocator(code_object).run()
    liveness = Liveness(code_object)
    checked = 0
    for function in code_object.body.ops:
        if not isinstance(function, FunctionLikeOp):
            continue
        for payload, site in payload_sites(function):
            allocation = allocation_of(payload)
            live = liveness.live_before(site.point)
            saved = mask_of(allocation["spilled"])
            assert mask_of(allocation["registers"]) & live & ~saved == 0, site.describe(payload)
            assert mask_of(allocation["spill_registers"]) & live & ~saved == 0
            for block in payload.body.blocks:
                for op in block.ops:
                    if isinstance(op, InstructionOpBase):
                        assert not any(isinstance(a, VirtRegAttr) for a in op.mc_operands.data)
                        op.verify()
                    elif isinstance(op, MCIntrinsicOp):
                        assert all(isinstance(a, PhysRegAttr) for a in op.uses.data)
            checked += 1
    assert checked > 0


def test_no_growth_and_no_agprs_saves_to_the_stack() -> None:
    # mfma's kernels leave no dead AGPR inside their budget at some point where every VGPR
    # of the budget is live: with growth off, the saved VGPR goes to the instrumentation
    # stack (a slot above the kernel's private segment) instead.
    code_object = _lifted("mfma.gfx90a.co").clone()
    _place(code_object, 3)
    PayloadAllocator(code_object, allow_budget_growth=False).run()
    stacked = [allocation_of(payload)["stack_saved"]
               for function in code_object.body.ops if isinstance(function, KernelOp)
               for payload, _ in payload_sites(function)
               if "stack_saved" in allocation_of(payload)]
    assert stacked and all(saved for saved in stacked)


def test_a_result_copied_into_half_of_a_pair_takes_that_half() -> None:
    """instr_count's per-thread count: a 32-bit popcount copied into the low half of a
    64-bit pair. With s1 live, the pairs take s[2:3] (even-aligned) while s0 is the lowest
    free SGPR. The pair (wider) takes its home first; the popcount then takes the pair's
    low half, s2, so the copy moves a register onto itself and is deleted (before, it took
    s0 and the copy stayed)."""
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    context.load_dialect(INSTR)
    text = (_HEADER
            + "      amdgpu_mc.s_mov_b64 %1:SReg_64, exec\n"
            "      amdgpu_mc.s_bcnt1_i32_b64 %2:SReg_32, %1:SReg_64\n"
            "      amdgpu_mc.s_mov_b32 %3:SReg_64.sub0, %2:SReg_32\n"
            "      amdgpu_mc.s_mov_b32 %3:SReg_64.sub1, 0\n"
            '      instr.mc_intrinsic "use" {defs = [], uses = [#amdgpu_mc.vreg<3 : SReg_64>]}\n'
            "      instr.return\n"
            "    }\n    amdgpu_mc.s_mov_b32 s5, s1\n    amdgpu_mc.s_endpgm\n  }\n}\n")
    module = Parser(context, text).parse_module()
    code_object = next(op for op in module.walk() if isinstance(op, CodeObjectOp))
    payload = next(op for op in module.walk() if isinstance(op, PayloadOp))
    PayloadAllocator(code_object).run()
    texts = [f"{op.mnemonic} {op.assembly_text()}" for op in payload.walk()
             if isinstance(op, InstructionOpBase)]
    assert "s_bcnt1_i32_b64 s2, s[2:3]" in texts, texts
    assert "s_mov_b32 s3, 0" in texts, texts
    assert sum(text.startswith("s_mov_b32") for text in texts) == 1, texts
