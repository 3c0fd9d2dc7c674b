"""The instrumentation stack's slot logic: where the base is, which offsets an immediate
reaches, and how the spill planner places saved registers (AGPRs, slots, lane holders)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.register_units import file_range, mask_of
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, KernelOp
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.instrument.regalloc_assign import Pools
from luthier.passes.instrument.regalloc_spill import SpillError, StackAccess, plan_spills
from luthier.passes.preamble.scratch import (
    StackError,
    StackLayout,
    StackOffsetError,
    check_immediate_offset,
    kernel_stack_base,
    max_scratch_offset,
    slot_offset,
)

ROOT = Path(__file__).resolve().parents[4]
CORPUS = ROOT / "test" / "corpus" / "kernels"
EVERYTHING = file_range("s", 0, 102) | file_range("v", 0, 256) | file_range("a", 0, 256)


@functools.cache
def _lifted(name: str) -> CodeObjectOp:
    module = lift_code_object(read_code_object(CORPUS / name)).module
    return next(op for op in module.walk() if isinstance(op, CodeObjectOp))


def _kernel(code_object: CodeObjectOp, name: str) -> KernelOp:
    return next(op for op in code_object.body.ops
                if isinstance(op, KernelOp) and op.sym_name.data == name)


def test_slot_offsets_and_the_immediate_limit() -> None:
    assert [slot_offset(32, slot) for slot in range(3)] == [32, 36, 40]
    limits = {processor: max_scratch_offset(subtarget_for(processor))
              for processor in ("gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201")}
    # LLVM 19's getNumFlatOffsetBits: 13 signed bits on GFX9 and GFX11, 12 on GFX10, 24 on
    # GFX12.
    assert limits == {"gfx90a": 4095, "gfx942": 4095, "gfx1030": 2047, "gfx1100": 4095,
                      "gfx1201": (1 << 23) - 1}
    check_immediate_offset(4095, limits["gfx942"])
    with pytest.raises(StackOffsetError, match="byte 4096 is past the 4095"):
        check_immediate_offset(4096, limits["gfx942"])
    with pytest.raises(StackOffsetError, match="byte 2048 is past the 2047"):
        check_immediate_offset(2048, limits["gfx1030"])


def test_the_base_is_the_private_segment_rounded_to_16() -> None:
    code_object = _lifted("scratch.gfx90a.co").clone()
    kernel = _kernel(code_object, "private_array")
    assert kernel_stack_base(kernel) == 144
    kernel.descriptor = kernel.descriptor.with_fields(private_segment_fixed_size=145)
    assert kernel_stack_base(kernel) == 160
    kernel.descriptor = kernel.descriptor.with_fields(private_segment_fixed_size=0)
    assert kernel_stack_base(kernel) == 0


def test_a_device_function_takes_the_highest_base_of_its_callers() -> None:
    code_object = _lifted("scratch.gfx942.co")
    layout = StackLayout(code_object)
    assert layout.runners("_Z11sum_privatePKfjj") == ["private_array_via_call"]
    assert layout.base("_Z11sum_privatePKfjj") == 272
    assert layout.base("private_array") == 144


def test_a_dynamic_stack_has_no_base() -> None:
    layout = StackLayout(_lifted("calls.gfx90a.co"))
    with pytest.raises(StackError, match=r"^@recursive_call: the kernel uses a dynamic stack"):
        layout.base("recursive_call")


def _pools(live: list[str], dead_extra: int = 0) -> Pools:
    """Everything dead but ``live`` (plus ``dead_extra`` taken away from the dead)."""
    live_mask = mask_of(live)
    dead = EVERYTHING & ~live_mask & ~dead_extra
    return Pools(dead, EVERYTHING, EVERYTHING, live_mask)


def _stack(address_sgpr: bool) -> StackAccess:
    return StackAccess(lambda: 48, address_sgpr, 4095)


def test_vgprs_go_to_agprs_first_then_to_slots() -> None:
    pools = _pools(["v0", "v1"], dead_extra=file_range("a", 1, 255))  # only a0 dead
    spilled = mask_of(["v0", "v1"])
    plan = plan_spills(spilled, spilled, 0, pools, 64, True, _stack(False))
    assert plan.vgprs == [("v0", "a0")] and plan.memory == ["v1"]
    assert (plan.stack_offset, plan.stack_bytes, plan.address) == (48, 4, None)
    plan = plan_spills(spilled, spilled, 0, pools, 64, False, _stack(True))
    assert plan.vgprs == [] and plan.memory == ["v0", "v1"] and plan.address == "s2"
    assert plan.exec_save == "s[0:1]" and plan.registers == ["s[0:1]", "s2"]


def test_without_a_stack_nothing_holds_the_vgpr() -> None:
    pools = _pools(["v0"], dead_extra=file_range("a", 0, 256))
    with pytest.raises(SpillError):
        plan_spills(mask_of(["v0"]), mask_of(["v0"]), 0, pools, 64, True, None)


def test_sgprs_without_a_dead_vgpr_use_a_saved_holder() -> None:
    # every VGPR is live; s4 is live and taken by a temporary; s[0:1] and s2 stay dead
    live = ["s4", *[f"v{index}" for index in range(256)]]
    pools = _pools(live, dead_extra=file_range("a", 0, 256) | file_range("s", 3, 99))
    plan = plan_spills(mask_of(["s4"]), mask_of(["s4"]), 0, pools, 64, True, _stack(True))
    assert plan.saved_holders == ["v0"] and plan.memory == ["v0"]
    assert plan.sgprs == [("s4", "v0", 0)]
    assert (plan.exec_save, plan.address) == ("s[0:1]", "s2")
    assert plan.spilled == ["s4", "v0"]


def test_a_saved_holder_needs_a_dead_exec_pair() -> None:
    # no dead SGPR at all: EXEC would have to be saved in the lanes of the VGPR it saves
    live = ["s4", *[f"v{index}" for index in range(256)]]
    pools = _pools(live, dead_extra=file_range("a", 0, 256) | file_range("s", 0, 102))
    with pytest.raises(SpillError):
        plan_spills(mask_of(["s4"]), mask_of(["s4"]), 0, pools, 64, True, _stack(False))


def test_exec_is_saved_in_s102_and_up_where_the_target_has_them() -> None:
    """RDNA addresses s0-s105: with s0-s101 all live, wave32 saves EXEC in s102 and wave64
    in s[102:103] (dead, so nothing is saved first); on GFX9 (s0-s101 only, the pools'
    allowed mask) the same registers are not there, so a live SGPR pair is saved for it."""
    high = file_range("s", 102, 4)  # s102-s105: RDNA's, not GFX9's (EVERYTHING here)
    live = mask_of([f"s{n}" for n in range(102)] + ["v1"])
    spilled = mask_of(["v1"])
    rdna = Pools((EVERYTHING | high) & ~live, EVERYTHING | high, EVERYTHING | high, live)
    assert plan_spills(spilled, spilled, 0, rdna, 32, True).exec_save == "s102"
    assert plan_spills(spilled, spilled, 0, rdna, 64, True).exec_save == "s[102:103]"
    gfx9 = Pools(EVERYTHING & ~live, EVERYTHING, EVERYTHING, live)
    plan = plan_spills(spilled, spilled, 0, gfx9, 64, True)
    assert plan.exec_save == "s[0:1]" and [sgpr for sgpr, _, _ in plan.sgprs] == ["s0", "s1"]
