"""The symbolic model of ``verify-payloads`` on corner cases the lit tests do not reach.

Each test states a payload, where it runs, and what the verifier must say. The kernel is the
one of ``test/lit/instrument/verify_payloads.mlir`` unless a test brings its own: before
``v_mov_b32_e32 v1, s7`` (#2) the application has ``s[0:1] s7 v0 exec scc`` live.
"""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, Builtin, ModuleOp, StringAttr
from xdsl.ir import Block
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import build_instruction
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeAttr, PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.instr.dialect import INSTR
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.passes.instrument.verify_payloads import BodyCache, Violation, verify_payloads
from luthier.passes.instrument.verify_symbolic import (
    EXEC_ALL,
    EXEC_HI,
    EXEC_LO,
    EXEC_ORIG,
    EXEC_SUBSET,
    EXEC_UNKNOWN,
    ONES_SYM,
    UNKNOWN,
    ZERO_SYM,
    State,
    exec_kind,
    join,
    orig,
    sub,
    unknown,
)

_HEAD = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", '
         'e_flags = 1343 : i64, abi_version = 3 : i64}> {\n'
         '  amdgpu_mc.kernel @k <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {\n'
         '    amdgpu_mc.s_load_dwordx2 s[0:1], s[4:5], 0x0\n'
         '    amdgpu_mc.s_cmp_eq_u32 s6, 0\n')
_TAIL = ('    amdgpu_mc.v_mov_b32_e32 v1, s7\n'
         '    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1\n'
         '  ^bb1:\n'
         '    amdgpu_mc.s_waitcnt lgkmcnt(0)\n'
         '    amdgpu_mc.global_store_dword v0, v1, s[0:1]\n'
         '    amdgpu_mc.fallthrough ^bb2\n'
         '  ^bb2:\n'
         '    amdgpu_mc.s_endpgm\n'
         '  }\n'
         '}\n')
_WHERE = "verify-payloads: @h in @k before 'v_mov_b32_e32 v1, s7' (#2): "


def _parse(text: str) -> CodeObjectOp:
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    context.load_dialect(INSTR)
    module = Parser(context, text).parse_module()
    assert isinstance(module, ModuleOp)
    code_object = module.body.block.first_op
    assert isinstance(code_object, CodeObjectOp)
    return code_object


def _payload(body: str, name: str = "h", attributes: str = "") -> str:
    return (f"    instr.payload @{name} attributes {{args = []{attributes}}} {{\n"
            f"{body}      instr.return\n    }}\n")


def _messages(*payloads: str) -> list[str]:
    return [str(violation) for violation in verify_payloads(_parse(_HEAD + "".join(payloads)
                                                                   + _TAIL))]


def _ops(*lines: str) -> str:
    return "".join(f"      amdgpu_mc.{line}\n" for line in lines)


# -- the lattice ---------------------------------------------------------------------------


def test_join_keeps_equal_values_and_subsets_of_one_slot() -> None:
    assert join(orig(3), orig(3)) == orig(3)
    assert join(orig(3), sub(3)) == sub(3)
    assert join(ZERO_SYM, orig(3)) == sub(3)
    assert join(orig(3), orig(4)).kind == UNKNOWN
    assert join(orig(3), orig(4)).origin == (1 << 3) | (1 << 4)
    assert join(ONES_SYM, ZERO_SYM).kind == UNKNOWN


def test_exec_kinds() -> None:
    state = State()
    assert exec_kind(state) == EXEC_ORIG
    state.set(EXEC_LO, sub(EXEC_LO))
    assert exec_kind(state) == EXEC_SUBSET
    state.set(EXEC_HI, ZERO_SYM)
    assert exec_kind(state) == EXEC_SUBSET
    state.set(EXEC_LO, ONES_SYM)
    assert exec_kind(state) == EXEC_UNKNOWN
    state.set(EXEC_HI, ONES_SYM)
    assert exec_kind(state) == EXEC_ALL
    state.set(EXEC_LO, unknown())
    assert exec_kind(state) == EXEC_UNKNOWN


def test_state_join_drops_lanes_that_differ() -> None:
    left, right = State(), State()
    left.lanes[300] = {3: orig(7), 4: orig(8)}
    right.lanes[300] = {3: orig(7), 4: orig(9)}
    assert left.join(right).lanes == {300: {3: orig(7)}}


# -- scalar forms --------------------------------------------------------------------------


def test_clean_payload_passes() -> None:
    assert _messages(_payload(_ops("s_mov_b32 s20, 1", "s_mov_b64 s[22:23], s[20:21]"))) == []


def test_s7_through_two_copies_is_restored() -> None:
    assert _messages(_payload(_ops("s_mov_b32 s20, s7", "s_mov_b32 s21, s20",
                                   "s_mov_b32 s7, 0", "s_mov_b32 s7, s21"))) == []


def test_restore_from_the_wrong_copy_fails() -> None:
    assert _messages(_payload(_ops("s_mov_b32 s20, s6", "s_mov_b32 s7, s20"))) == \
        [_WHERE + "writes s7, live there"]


def test_unmodelled_write_of_a_saved_copy_fails() -> None:
    # s_getpc_b64 overwrites the saved copy: the restore brings back garbage.
    assert _messages(_payload(_ops("s_mov_b32 s20, s7", "s_getpc_b64 s[20:21]",
                                   "s_mov_b32 s7, s20"))) == [_WHERE + "writes s7, live there"]


def test_scc_from_a_bool_in_the_high_half_needs_64_bit_compare() -> None:
    save = "s_cselect_b64 s[20:21], 1, 0"
    assert _messages(_payload(_ops(save, "s_add_u32 s22, s22, 1",
                                   "s_cmp_lg_u64 s[20:21], 0"))) == []
    # The high half is zero: a 32-bit compare of it is not SCC.
    assert _messages(_payload(_ops(save, "s_add_u32 s22, s22, 1",
                                   "s_cmp_lg_u32 s21, 0"))) == [_WHERE + "writes scc, live there"]


def test_cselect_of_a_clobbered_scc_is_not_a_save() -> None:
    assert _messages(_payload(_ops("s_add_u32 s22, s22, 1", "s_cselect_b32 s20, -1, 0",
                                   "s_cmp_lg_u32 s20, 0"))) == [_WHERE + "writes scc, live there"]


def test_s_cmp_lg_with_zero_first_restores_too() -> None:
    assert _messages(_payload(_ops("s_cselect_b32 s20, 1, 0", "s_add_u32 s22, s22, 1",
                                   "s_cmp_lg_u32 0, s20"))) == []


# -- EXEC ---------------------------------------------------------------------------------


_ELSE_REGION = (
    "      amdgpu_mc.s_cselect_b32 s30, 1, 0\n"
    "      amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0\n"
    "      amdgpu_mc.s_and_saveexec_b64 s[20:21], vcc\n"
    "      amdgpu_mc.s_xor_b64 s[20:21], exec, s[20:21]\n"
    "      amdgpu_mc.v_mov_b32_e32 v10, 1\n"
    "      amdgpu_mc.s_andn2_b64 exec, s[20:21], exec\n"
    "      amdgpu_mc.s_xor_b64 exec, exec, s[20:21]\n"
    "      amdgpu_mc.v_mov_b32_e32 v10, 2\n"
    "      amdgpu_mc.s_or_b64 exec, exec, s[22:23]\n"
    "      amdgpu_mc.s_cmp_lg_u32 s30, 0\n")


def test_else_branch_keeps_exec_a_subset_until_or_with_the_saved_copy() -> None:
    # s[22:23] was never a copy of EXEC: the final OR does not give EXEC back.
    assert _messages(_payload(_ELSE_REGION)) == [_WHERE + "writes exec, live there"]
    fixed = _ELSE_REGION.replace("v_cmp_gt_u32_e32 vcc, 32, v0\n",
                                 "v_cmp_gt_u32_e32 vcc, 32, v0\n"
                                 "      amdgpu_mc.s_mov_b64 s[22:23], exec\n")
    assert _messages(_payload(fixed)) == []


def test_or_of_exec_with_a_non_copy_is_not_a_restore() -> None:
    # (s_and_b64 and s_or_b64 write SCC, which is live here: that one is expected.)
    assert _messages(_payload(_ops("s_mov_b64 s[20:21], exec", "s_and_b64 exec, exec, vcc",
                                   "s_or_b64 exec, exec, s[20:21]"))) \
        == [_WHERE + "writes scc, live there"]
    assert _messages(_payload(_ops("s_mov_b64 s[20:21], vcc", "s_and_b64 exec, exec, vcc",
                                   "s_or_b64 exec, exec, s[20:21]"))) \
        == [_WHERE + "writes exec scc, live there"]


def test_exec_restored_in_a_loop_needs_a_fixpoint() -> None:
    # The loop leaves EXEC at a subset on its back edge; only the exit path restores it.
    body = ("      amdgpu_mc.s_cselect_b32 s30, 1, 0\n"
            "      amdgpu_mc.s_mov_b64 s[20:21], exec\n"
            "      amdgpu_mc.fallthrough ^bb1\n"
            "    ^bb1:\n"
            "      amdgpu_mc.s_and_b64 exec, exec, vcc\n"
            "      amdgpu_mc.s_cbranch_execnz ^bb1, ^bb2\n"
            "    ^bb2:\n"
            "      amdgpu_mc.s_or_b64 exec, exec, s[20:21]\n"
            "      amdgpu_mc.s_cmp_lg_u32 s30, 0\n")
    assert _messages(_payload(body)) == []
    clobbering = body.replace("s_and_b64 exec, exec, vcc", "s_and_b64 exec, exec, vcc\n"
                              "      amdgpu_mc.s_mov_b32 s20, 0")
    assert _messages(_payload(clobbering)) == [_WHERE + "writes exec_lo, live there"]


# -- lanes ---------------------------------------------------------------------------------


def test_readlane_of_another_lane_is_not_a_restore() -> None:
    assert _messages(_payload(_ops("v_writelane_b32 v12, s7, 3", "s_mov_b32 s7, 0",
                                   "v_readlane_b32 s7, v12, 4"))) == \
        [_WHERE + "writes s7, live there"]


def test_writelane_into_a_live_vgpr_clobbers_it() -> None:
    assert _messages(_payload(_ops("v_writelane_b32 v0, s20, 3"))) == \
        [_WHERE + "writes v0, live there"]


def test_vgpr_saved_in_an_agpr_is_restored() -> None:
    assert _messages(_payload(_ops("v_accvgpr_write_b32 a0, v0", "v_mov_b32_e32 v0, 1",
                                   "v_accvgpr_read_b32 v0, a0"))) == []


def test_vgpr_restored_under_a_subset_of_exec_is_not_restored() -> None:
    assert _messages(_payload(_ops(
        "v_mov_b32_e32 v20, v0", "s_mov_b64 s[20:21], exec", "s_and_b64 exec, exec, vcc",
        "v_mov_b32_e32 v0, 1", "v_mov_b32_e32 v0, v20", "s_mov_b64 exec, s[20:21]"))) \
        == [_WHERE + "writes v0 scc, live there"]


# -- several payloads, writes, intrinsics -------------------------------------------------


def test_later_payload_reading_a_written_register_is_not_an_application_read() -> None:
    # @h writes s7 on purpose; @g reads s7 after it: it reads @h's value, as intended.
    assert _messages(_payload(_ops("s_mov_b32 s7, 1"), attributes=', writes = ["s7"]'),
                     _payload(_ops("v_mov_b32_e32 v10, s7"), name="g")) == []


def test_a_written_register_copied_from_a_clobbered_one_is_reported() -> None:
    # @g sets s7 (on purpose) from s20, which @h clobbered: @g's intended value is lost.
    assert _messages(_payload(_ops("s_mov_b32 s20, 1")),
                     _payload(_ops("s_mov_b32 s7, s20"), name="g",
                              attributes=', writes = ["s7"]')) == \
        [_WHERE + "writes s20, read by @g after it"]


def test_later_payload_save_and_restore_is_not_a_read() -> None:
    # VCC is dead here: @h clobbers it, @g copies it away and back (a conservative
    # epilogue). @g does not use VCC's value, so @h's write does not matter.
    assert _messages(_payload(_ops("s_mov_b64 vcc, 0")),
                     _payload(_ops("s_mov_b64 s[20:21], vcc", "s_mov_b64 vcc, s[20:21]"),
                              name="g")) == []


def test_a_later_payload_reading_back_what_it_wrote_under_exec_1_reads_nothing() -> None:
    # @g writes v20 under exec = 1 (a once-per-wave atomic's data) and reads it under the
    # same EXEC: the lanes read are the lanes written, so @h's earlier write of v20 (dead
    # for the application) is none of @g's business.
    once = _ops("s_mov_b64 s[24:25], exec", "s_mov_b64 exec, 1", "v_mov_b32_e32 v20, 0",
                "v_mov_b32_e32 v21, 1", "global_atomic_add v20, v21, s[0:1]",
                "s_mov_b64 exec, s[24:25]")
    assert _messages(_payload(_ops("v_mov_b32_e32 v20, 7")), _payload(once, name="g")) == []
    # Under another EXEC the read reaches lanes the write did not: @h's value is read.
    other = once.replace("global_atomic_add v20", "s_mov_b64 exec, 3\n"
                         "      amdgpu_mc.global_atomic_add v20")
    assert _messages(_payload(_ops("v_mov_b32_e32 v20, 7")), _payload(other, name="g")) == \
        [_WHERE + "writes v20, read by @g after it"]


def test_a_write_under_an_exec_subset_is_read_back_in_the_same_lanes() -> None:
    # Inside an if (EXEC narrowed by v_cmpx, SCC left alone: it is live), @g writes v20 and
    # reads it back.
    inside = _ops("s_mov_b64 s[26:27], exec", "v_cmpx_gt_u32_e64 s[24:25], v0, 3",
                  "v_mov_b32_e32 v20, 5", "v_add_u32_e32 v21, v20, v20",
                  "s_mov_b64 exec, s[26:27]")
    assert _messages(_payload(_ops("v_mov_b32_e32 v20, 7")), _payload(inside, name="g")) == []


def test_readfirstlane_trusts_a_write_only_under_an_exec_it_knows_is_not_empty() -> None:
    # Under exec = 1, lane 0 is the first lane and was written: @h's v20 is not read.
    once = _ops("s_mov_b64 s[24:25], exec", "s_mov_b64 exec, 1", "v_mov_b32_e32 v20, 0",
                "v_readfirstlane_b32 s28, v20", "s_mov_b64 exec, s[24:25]")
    assert _messages(_payload(_ops("v_mov_b32_e32 v20, 7")), _payload(once, name="g")) == []
    # Under an EXEC v_cmpx left (maybe empty), v_readfirstlane may read lane 0, unwritten.
    narrowed = _ops("s_mov_b64 s[26:27], exec", "v_cmpx_gt_u32_e64 s[24:25], v0, 3",
                    "v_mov_b32_e32 v20, 5", "v_readfirstlane_b32 s28, v20",
                    "s_mov_b64 exec, s[26:27]")
    assert _messages(_payload(_ops("v_mov_b32_e32 v20, 7")), _payload(narrowed, name="g")) == \
        [_WHERE + "writes v20, read by @g after it"]


def test_a_write_under_an_earlier_run_of_the_same_exec_write_is_not_trusted() -> None:
    # In a loop, v_cmpx narrows EXEC each time round: v20 written in one iteration
    # and read in the next is read in other lanes than it was written, so @h's value may be
    # read there (the record of the write does not survive the loop's head, nor a new
    # execution of the instruction that wrote EXEC).
    loop = ("      amdgpu_mc.s_mov_b64 s[24:25], exec\n"
            "      amdgpu_mc.fallthrough ^bb1\n"
            "    ^bb1:\n"
            "      amdgpu_mc.v_cmpx_gt_u32_e64 s[26:27], v0, 3\n"
            "      amdgpu_mc.v_add_u32_e32 v21, v20, v20\n"
            "      amdgpu_mc.v_mov_b32_e32 v20, 5\n"
            "      amdgpu_mc.s_cbranch_execnz ^bb1, ^bb2\n"
            "    ^bb2:\n"
            "      amdgpu_mc.s_mov_b64 exec, s[24:25]\n")
    assert _messages(_payload(_ops("v_mov_b32_e32 v20, 7")), _payload(loop, name="g")) == \
        [_WHERE + "writes v20, read by @g after it"]


def test_bad_writes_list() -> None:
    assert _messages(_payload(_ops("s_mov_b32 s20, 1"), attributes=', writes = ["q9"]')) == \
        [_WHERE + "'writes': no register units for 'q9'"]


def _with_intrinsic(payload: PayloadOp, intrinsic: MCIntrinsicOp) -> None:
    entry = payload.body.blocks.first
    assert entry is not None and entry.first_op is not None
    entry.insert_op_before(intrinsic, entry.first_op)


def _single_payload(code_object: CodeObjectOp) -> PayloadOp:
    payloads = [op for op in code_object.walk() if isinstance(op, PayloadOp)]
    assert len(payloads) == 1
    return payloads[0]


def test_intrinsic_defs_are_writes_and_uses_reads() -> None:
    code_object = _parse(_HEAD + _payload("") + _TAIL)
    _with_intrinsic(_single_payload(code_object), MCIntrinsicOp(
        "read_reg", [PhysRegAttr("s7")], [PhysRegAttr("s20")]))
    assert [str(v) for v in verify_payloads(code_object)] == [_WHERE + "writes s7, live there"]

    code_object = _parse(_HEAD + _payload(_ops("s_mov_b32 s20, 1")) + _payload("", name="g")
                         + _TAIL)
    second = [op for op in code_object.walk() if isinstance(op, PayloadOp)][1]
    _with_intrinsic(second, MCIntrinsicOp("x", [PhysRegAttr("s21")], [PhysRegAttr("s20")]))
    assert [str(v) for v in verify_payloads(code_object)] == \
        [_WHERE + "writes s20, read by @g after it"]


def test_intrinsic_with_a_virtual_register() -> None:
    code_object = _parse(_HEAD + _payload("") + _TAIL)
    _with_intrinsic(_single_payload(code_object), MCIntrinsicOp(
        "read_reg", [VirtRegAttr((3, "VGPR_32"))], []))
    assert [str(v) for v in verify_payloads(code_object)] == \
        [_WHERE + "virtual register %3:VGPR_32 left in instr.mc_intrinsic defs"]


def test_branch_out_of_the_payload() -> None:
    code_object = _parse(_HEAD + _payload("") + _TAIL)
    payload = _single_payload(code_object)
    entry = payload.body.blocks.first
    kernel_block = payload.parent_block()
    assert entry is not None and isinstance(kernel_block, Block)
    entry_return = entry.last_op
    assert isinstance(entry_return, ReturnOp)
    entry.insert_op_before(build_instruction("s_branch", "S_BRANCH", [], [kernel_block]),
                           entry_return)
    entry_return.detach()
    entry_return.erase()
    messages = [str(v) for v in verify_payloads(code_object)]
    assert _WHERE + "'amdgpu_mc.s_branch' branches to a block outside the payload" in messages
    assert _WHERE + "no block ends in instr.return" in messages


def test_writes_as_a_property() -> None:
    code_object = _parse(_HEAD + _payload(_ops("s_mov_b32 s7, 1")) + _TAIL)
    _single_payload(code_object).properties["writes"] = ArrayAttr([StringAttr("s7")])
    assert verify_payloads(code_object) == []


def test_violation_fields() -> None:
    (violation,) = verify_payloads(_parse(_HEAD + _payload(_ops("s_mov_b32 s7, 0")) + _TAIL))
    assert violation == Violation("h", "k", 2, "v_mov_b32_e32 v1, s7", "writes s7, live there")


@pytest.mark.parametrize("line", ["s_mov_b32 s7, src_scc", "s_mov_b32 s7, s21",
                                  "v_readlane_b32 s7, v12, 3"])
def test_other_sources_do_not_restore(line: str) -> None:
    assert _messages(_payload(_ops("s_mov_b32 s20, s7", line))) == \
        [_WHERE + "writes s7, live there"]


def test_or_of_two_subsets_of_exec_is_not_exec() -> None:
    assert _messages(_payload(_ops(
        "s_cselect_b32 s30, 1, 0", "s_and_saveexec_b64 s[20:21], vcc",
        "s_and_b64 s[22:23], s[20:21], vcc", "s_or_b64 exec, exec, s[22:23]",
        "s_cmp_lg_u32 s30, 0"))) == [_WHERE + "writes exec, live there"]


def test_spilled_lane_carries_its_origin() -> None:
    # @g spills s20 into a lane of v12 and computes with v12: it reads s20, which @h
    # clobbered.
    assert _messages(_payload(_ops("s_mov_b32 s20, 1")),
                     _payload(_ops("v_writelane_b32 v12, s20, 3",
                                   "v_add_u32_e32 v13, v12, v12"), name="g")) == \
        [_WHERE + "writes s20, read by @g after it"]


def test_saveexec_reads_its_mask() -> None:
    # Which lanes @g writes depends on VCC, which @h clobbered.
    assert _messages(_payload(_ops("s_mov_b64 vcc, 0")),
                     _payload(_ops("s_cselect_b32 s30, 1, 0", "s_and_saveexec_b64 s[20:21], vcc",
                                   "s_or_b64 exec, exec, s[20:21]", "s_cmp_lg_u32 s30, 0"),
                              name="g")) == [_WHERE + "writes vcc, read by @g after it"]


_DIVERGENT = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, '
              'elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {\n'
              '  amdgpu_mc.kernel @divergent <{descriptor = #amdgpu_mc.kernel_descriptor<>}> {\n'
              '    amdgpu_mc.v_mov_b32_e32 v1, 0\n'
              '    amdgpu_mc.v_cmp_gt_u32_e32 vcc, 32, v0\n'
              '    amdgpu_mc.s_and_saveexec_b64 s[6:7], vcc\n'
              '    amdgpu_mc.s_cbranch_execz ^bb2, ^bb1\n'
              '  ^bb1:\n'
              '{payload}'
              '    amdgpu_mc.v_mov_b32_e32 v2, 5\n'
              '    amdgpu_mc.v_add_u32_e32 v1, v2, v0\n'
              '    amdgpu_mc.fallthrough ^bb2\n'
              '  ^bb2:\n'
              '    amdgpu_mc.s_or_b64 exec, exec, s[6:7]\n'
              '    amdgpu_mc.global_store_dword v0, v1, s[4:5]\n'
              '    amdgpu_mc.s_endpgm\n'
              '  }\n'
              '}\n')


def test_a_hook_that_sets_exec_must_keep_vgprs_in_every_lane() -> None:
    # v1 is live only in the switched-off lanes, but the hook changes EXEC on purpose:
    # which lanes the application will have switched off after it is not known.
    where = "verify-payloads: @h in @divergent before 'v_mov_b32_e32 v2, 5' (#4): "
    text = _DIVERGENT.replace("{payload}", _payload(_ops("v_mov_b32_e32 v1, 7")))
    assert verify_payloads(_parse(text)) == []
    setting_exec = _payload(_ops("v_mov_b32_e32 v1, 7", "s_mov_b64 exec, -1"),
                            attributes=', writes = ["exec"]')
    text = _DIVERGENT.replace("{payload}", setting_exec)
    assert [str(v) for v in verify_payloads(_parse(text))] == [where + "writes v1, live there"]


def test_cselect_of_two_nonzero_values_is_not_a_save() -> None:
    assert _messages(_payload(_ops("s_cselect_b32 s20, 1, 1", "s_add_u32 s22, s22, 1",
                                   "s_cmp_lg_u32 s20, 0"))) == [_WHERE + "writes scc, live there"]


def test_switched_off_lanes_read_by_a_later_payload() -> None:
    # @h restores v10's active lanes but not the others; @g reads v10 in every lane.
    all_lanes = ("s_mov_b64 s[20:21], exec", "s_mov_b64 exec, -1")
    back = ("s_mov_b64 exec, s[20:21]",)
    assert _messages(
        _payload(_ops("v_mov_b32_e32 v20, v10", *all_lanes, "v_mov_b32_e32 v10, 0", *back,
                      "v_mov_b32_e32 v10, v20")),
        _payload(_ops(*all_lanes, "v_add_u32_e32 v11, v10, v10", *back), name="g")) == \
        [_WHERE + "writes v10, read by @g after it"]


# -- bodies equal up to their registers share one execution (verify_renaming) -------------


def _packed(code_object: CodeObjectOp) -> None:
    """Give each payload of ``code_object`` a packed op of its body, as ``lower-hooks``
    does for straight-line code (the ops stay in a payload of their own)."""
    for op in list(code_object.walk()):
        if not isinstance(op, PayloadOp) or isinstance(op.body.block.first_op, PackedCodeOp):
            continue
        block = op.body.block
        code = PackedCode.of_block(block)
        assert code is not None
        holder = PayloadOp.empty(op.hook, op.args)
        op.body.detach_block(block)
        holder.body.add_block(block)
        _KEPT.append(holder)
        op.body.add_block(Block([PackedCodeOp.of(PackedCodeAttr(code)), ReturnOp.create()]))


#: Payloads holding the packed bodies' instructions alive for the test's length.
_KEPT: list[PayloadOp] = []


def _verified(body: str, bodies: BodyCache) -> list[str]:
    code_object = _parse(_HEAD + _payload(body) + _TAIL)
    _packed(code_object)
    return [str(violation) for violation in verify_payloads(code_object, bodies)]


def test_a_clobber_is_found_in_a_class_whose_first_body_was_clean() -> None:
    # Before #2 the application has s[0:1] s7 v0 exec scc live: s10/v5 are dead, s7/v0 not.
    bodies = BodyCache()
    clean = _ops("s_mov_b32 s10, 5", "v_mov_b32_e32 v5, s10")
    assert _verified(clean, bodies) == []
    assert len(bodies.classes) == 1
    clobber = _ops("s_mov_b32 s7, 5", "v_mov_b32_e32 v0, s7")
    found = _verified(clobber, bodies)
    assert len(bodies.classes) == 1  # the second body was not executed on its own
    assert len(found) == 1 and "writes s7 v0, live there" in found[0], found


def test_aliasing_is_part_of_the_class() -> None:
    # One unit written then read (s10, s10) is not the class of two units (s10, s11): the
    # second body reads s11's entry content, which the first never does.
    bodies = BodyCache()
    assert _verified(_ops("s_mov_b32 s10, 5",
                          "v_mov_b32_e32 v5, s10"), bodies) == []
    assert _verified(_ops("s_mov_b32 s10, 5",
                          "v_mov_b32_e32 v5, s11"), bodies) == []
    assert len(bodies.classes) == 2
