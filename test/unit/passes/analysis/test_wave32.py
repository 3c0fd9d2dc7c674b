"""The analyses in wave32 and wave64 on RDNA: lane masks, EXEC patterns, register files.

TableGen names the lane masks EXEC and VCC in both wave sizes; in wave32 an instruction
touches only their low halves, so a wave32 VOPC must write ``vcc_lo`` alone and a wave32
``v_cmpx`` ``exec_lo`` alone, and liveness must never keep ``exec_hi``/``vcc_hi`` alive on
their account. The compiler's EXEC save/restore in wave32 uses the ``_b32`` forms on
``exec_lo``; a liveness that did not recognise them would never see EXEC full again and keep
inactive-lane values forever (sound, but every VALU write would stop ending anything).
"""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import units_of
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, KernelOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.passes.analysis.effects import EffectTable
from luthier.passes.analysis.free_registers import FreeRegisters
from luthier.passes.analysis.liveness import analyze, instructions
from luthier.passes.analysis.register_usage import entry_registers

from .corpus import ROOT, lifted


def _parse(processor: str, wave: int, body: str) -> CodeObjectOp:
    wave_property = ", wavefront_size = 64 : i64" if wave == 64 else ""
    wave32 = 1 if wave == 32 else 0
    text = (f'amdgpu_mc.code_object "{processor}" <{{code_object_version = 5 : i64, '
            f'elf_type = "dyn", e_flags = 65 : i64, abi_version = 3 : i64{wave_property}}}> {{\n'
            f'  amdgpu_mc.kernel @k <{{descriptor = #amdgpu_mc.kernel_descriptor<gfx10_gfx11, '
            f'rsrc2.user_sgpr_count = 2, properties.enable_sgpr_kernarg_segment_ptr = 1, '
            f'properties.enable_wavefront_size32 = {wave32}>}}> {{\n{body}\n  }}\n}}')
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    module = Parser(context, text).parse_module()
    assert isinstance(module, ModuleOp)
    code_object = module.body.block.first_op
    assert isinstance(code_object, CodeObjectOp)
    code_object.verify()
    return code_object


def _ops(code_object: CodeObjectOp) -> list[InstructionOpBase]:
    kernel = next(op for op in code_object.body.ops if isinstance(op, KernelOp))
    return list(instructions(kernel))


def _lanes(wave: int) -> tuple[str, str]:
    return ("exec_lo", "vcc_lo") if wave == 32 else ("exec", "vcc")


@pytest.mark.parametrize("wave", [32, 64])
def test_implicit_lane_masks_are_the_waves(wave: int) -> None:
    exec_, vcc = _lanes(wave)
    code_object = _parse("gfx1100", wave, f"""
    amdgpu_mc.v_cmp_gt_u32_e32 {vcc}, 5, v0
    amdgpu_mc.v_cndmask_b32_e32 v1, 0, v2, {vcc}
    amdgpu_mc.v_cmpx_eq_u32_e32 1, v3
    amdgpu_mc.v_readfirstlane_b32 s4, v1
    amdgpu_mc.s_cbranch_execz ^bb1, ^bb1
  ^bb1:
    amdgpu_mc.s_endpgm""")
    effects = EffectTable.shared(load_target(*code_object.target_key))
    cmp, cndmask, cmpx, readfirstlane, branch, _ = (effects.of(op) for op in _ops(code_object))
    assert cmp.scalar_defs == units_of(vcc)
    assert cmp.uses == units_of("v0") | units_of(exec_)
    assert cndmask.uses & (units_of("vcc") | units_of("exec")) == units_of(vcc) | units_of(exec_)
    assert cmpx.writes_exec and cmpx.scalar_defs == units_of(exec_)
    assert readfirstlane.uses == units_of("v1") | units_of(exec_)
    assert branch.uses == units_of(exec_)


def test_gfx11_and_gfx12_scheduling_words_touch_nothing() -> None:
    code_object = _parse("gfx1100", 32, """
    amdgpu_mc.s_clause 0x1
    amdgpu_mc.s_delay_alu instid0(VALU_DEP_1)
    amdgpu_mc.s_waitcnt_vscnt null, 0x0
    amdgpu_mc.s_waitcnt_depctr 0xfff
    amdgpu_mc.s_endpgm""")
    effects = EffectTable.shared(load_target(*code_object.target_key))
    for op in _ops(code_object)[:-1]:
        assert effects.of(op).uses == effects.of(op).defs == 0, op.mnemonic
    module = lifted(ROOT / "test" / "corpus" / "rdna" / "elementwise.gfx1201.co")
    gfx12 = EffectTable.shared(load_target(*module.target_key))
    waits = [op for op in module.walk() if isinstance(op, InstructionOpBase)
             and op.mnemonic.startswith("s_wait_")]
    assert waits
    for op in waits:
        assert gfx12.of(op).uses == gfx12.of(op).defs == 0, op.mnemonic


@pytest.mark.parametrize("wave", [32, 64])
def test_divergent_branch_and_restore(wave: int) -> None:
    """The GFX9 divergent-write test in RDNA's own spelling: v1 written for all lanes, then
    again under the branch's EXEC; the switched-off lanes still need the first value inside
    the branch. After the restore EXEC is full again, so the write of v1 there ends it,
    though a second divergent region follows whose off lanes read v1 after it (without the
    restore recognised, v1 would stay live for those lanes)."""
    exec_, vcc = _lanes(wave)
    saved = "s0" if wave == 32 else "s[0:1]"
    suffix = "b32" if wave == 32 else "b64"
    code_object = _parse("gfx1100", wave, f"""
    amdgpu_mc.v_mov_b32_e32 v1, 1
    amdgpu_mc.v_cmp_gt_u32_e32 {vcc}, 5, v0
    amdgpu_mc.s_and_saveexec_{suffix} {saved}, {vcc}
    amdgpu_mc.v_mov_b32_e32 v1, 2
    amdgpu_mc.v_mov_b32_e32 v2, 3
    amdgpu_mc.s_or_{suffix} {exec_}, {exec_}, {saved}
    amdgpu_mc.global_store_b32 v[4:5], v1, off
    amdgpu_mc.v_mov_b32_e32 v1, 4
    amdgpu_mc.v_cmp_gt_u32_e32 {vcc}, 6, v0
    amdgpu_mc.s_and_saveexec_{suffix} {saved}, {vcc}
    amdgpu_mc.v_mov_b32_e32 v3, 5
    amdgpu_mc.s_or_{suffix} {exec_}, {exec_}, {saved}
    amdgpu_mc.global_store_b32 v[4:5], v1, off
    amdgpu_mc.s_endpgm""")
    liveness = analyze(code_object)
    ops = _ops(code_object)
    v1 = units_of("v1")
    assert liveness.inactive_before(ops[4]) & v1, "the switched-off lanes still need v1"
    assert liveness.live_before(ops[2]) & units_of(vcc) == units_of(vcc)
    assert liveness.live_before(ops[5]) & units_of(saved) == units_of(saved)
    assert liveness.inactive_before(ops[10]) & v1, "the second region's off lanes read v1"
    assert liveness.live_before(ops[7]) & v1 == 0, "EXEC is full after the restore"
    if wave == 32:
        for op in ops:
            assert liveness.live_before(op) & (units_of("exec_hi") | units_of("vcc_hi")) == 0


def test_rdna_has_no_agprs_and_106_sgprs() -> None:
    code_object = _parse("gfx1100", 32, """
    amdgpu_mc.v_mov_b32_e32 v1, 1
    amdgpu_mc.s_endpgm""")
    free = FreeRegisters(code_object)
    op = _ops(code_object)[0]
    assert free.free_before(op, "a", within_budget=False) == []
    assert free.never_used("k", "a") == []
    assert free.free_before(op, "s", within_budget=False)[-1] == "s105"
    assert not free.usage.kernel("k").unused("a")


def test_gfx12_workgroup_ids_are_in_ttmps() -> None:
    """gfx1201's descriptor enables workgroup id X, but the id is in ttmp9 (architected
    SGPRs), not in the SGPR after the user SGPRs, which the hardware leaves alone; the
    corpus code reads ttmp9 and never s2 before writing it."""
    module = lifted(ROOT / "test" / "corpus" / "rdna" / "elementwise.gfx1201.co")
    kernel = next(op for op in module.body.ops if isinstance(op, KernelOp))
    descriptor: KernelDescriptor = kernel.descriptor.data
    assert descriptor.compute_pgm_rsrc2.enable_sgpr_workgroup_id_x
    user = descriptor.compute_pgm_rsrc2.user_sgpr_count
    entry = entry_registers(descriptor, module.processor)
    assert entry & units_of("ttmp9")
    assert not entry & units_of(f"s{user}")
    assert analyze(module).function(kernel.sym_name.data).live_in & units_of("ttmp9")


def test_a_16_bit_half_is_read_and_written_in_its_vgpr() -> None:
    """GFX11's true16 operands name halves (``v1.h``, ``v0.l``). A half is in the unit of
    its VGPR: reading one reads the VGPR, writing one keeps the other half, so it ends
    nothing: v1 (whose low half the store reads) stays live across the write of v1.h, and
    no payload placed before it may take v1."""
    code_object = _parse("gfx1100", 32, """
    amdgpu_mc.v_mov_b32_e32 v1, 0x12345678
    amdgpu_mc.v_mov_b16_e32 v1.h, v0.l
    amdgpu_mc.global_store_b32 v[2:3], v1, off
    amdgpu_mc.s_endpgm""")
    effects = EffectTable.shared(load_target(*code_object.target_key))
    first, half, store, _ = _ops(code_object)
    assert effects.of(half).uses & units_of("v[0:1]") == units_of("v0")
    assert effects.of(half).partial_defs == units_of("v1")
    assert effects.of(half).vector_defs == 0
    liveness = analyze(code_object)
    assert liveness.live_before(half) & units_of("v1") == units_of("v1")
    assert liveness.live_before(first) & units_of("v1") == 0
    assert liveness.live_before(store) & units_of("v1") == units_of("v1")
