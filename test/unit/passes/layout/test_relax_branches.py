"""``relax-branches``: chains of islands, the fixed point, backward branches, shared islands,
errors, and end to end: a kernel whose branch instrumentation pushed out of range cannot be
emitted, relaxed it can, and the emulator runs it with the original's results.

Every relaxed function is checked the same way (:func:`_check_relaxed`): each branch
reaches its target at the given reach (offsets from the emitter's own size logic), the
application's instructions are the same ops in the same order, everything added is an
``s_branch``, and control flows from each application instruction to the same next
application instructions as before (through islands and skip branches).
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.ir import Block, Operation
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.layout import function_layout
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FallthroughOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.emulator.api import run_kernel
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.lowering.elf.relocatable import assemble_relocatable
from luthier.lowering.emit import EmitError, emit_code_object
from luthier.passes.layout.relax_branches import (
    HARDWARE_REACH,
    in_range,
    relax_branches,
)

from .gfx90a_text import parse_code_object

#: What each application instruction flows to: the next application instructions.
Flow = dict[Operation, tuple[Operation, ...]]

def _nops(count: int) -> str:
    return "\n".join(["amdgpu_mc.s_nop 0"] * count)


def _function(code_object: CodeObjectOp, name: str) -> FunctionLikeOp:
    for op in code_object.body.ops:
        if isinstance(op, FunctionLikeOp) and op.sym_name.data == name:
            return op
    raise AssertionError(f"no function @{name}")


def _ops(function: FunctionLikeOp) -> list[Operation]:
    return [op for block in function.body.blocks for op in block.ops]


def _branch_deltas(function: FunctionLikeOp, processor: str) -> list[int]:
    """Each branch's distance from the instruction after it to its target, as emitted."""
    layout = function_layout(function, load_target(processor))
    return [layout.block_offsets[op.successors[0]] - layout.end(op)
            for op, _ in layout.instructions() if op.KIND == "branch"]


def _flow(function: FunctionLikeOp, application: set[Operation]) -> Flow:
    """Each application instruction's successors among the application's instructions,
    looking through fall-throughs and added ``s_branch`` instructions."""

    listed = {block: list(block.ops) for block in function.body.blocks}

    def resolve(block: Block, index: int) -> Operation:
        for _ in range(10_000):
            op = listed[block][index]
            if op in application:
                return op
            assert isinstance(op, FallthroughOp | InstructionOpBase)
            block, index = op.successors[0], 0
        raise AssertionError("a cycle of added branches")

    flow: Flow = {}
    for block, ops in listed.items():
        for index, op in enumerate(ops):
            if op not in application:
                continue
            assert isinstance(op, InstructionOpBase)
            if op.KIND == "branch":
                flow[op] = tuple(resolve(successor, 0) for successor in op.successors)
            elif op.KIND == "terminator":
                flow[op] = ()
            else:
                flow[op] = (resolve(block, index + 1),)
    return flow


class _Snapshot:
    """A function's application instructions and control flow before relaxation."""

    def __init__(self, function: FunctionLikeOp) -> None:
        self.ops = [op for op in _ops(function) if not isinstance(op, FallthroughOp)]
        self.application = set(self.ops)
        self.flow = _flow(function, self.application)


def _check_relaxed(function: FunctionLikeOp, before: _Snapshot, reach: int) -> None:
    ops = _ops(function)
    assert [op for op in ops if op in before.application] == before.ops
    added = [op for op in ops if op not in before.application
             and not isinstance(op, FallthroughOp)]
    assert all(isinstance(op, InstructionOpBase) and op.mnemonic == "s_branch"
               for op in added)
    assert all(in_range(delta, reach) for delta in _branch_deltas(function, "gfx90a"))
    assert _flow(function, before.application) == before.flow


def _islands(function: FunctionLikeOp) -> list[Block]:
    """Blocks holding only an ``s_branch`` (the tests' application code has none)."""
    return [block for block in function.body.blocks
            if len(list(block.ops)) == 1 and isinstance(block.first_op, InstructionOpBase)
            and block.first_op.mnemonic == "s_branch"]


def _application_block_before(island: Block, islands: list[Block]) -> Block:
    """The nearest block before ``island`` in layout that is not an island."""
    previous = island.prev_block
    while previous in islands:
        assert previous is not None
        previous = previous.prev_block
    assert previous is not None
    return previous


def test_chain_of_islands_when_the_target_is_beyond_twice_the_reach() -> None:
    # 64-byte reach; the target lies ~400 bytes on, past blocks that end in s_endpgm
    # every 48 bytes: islands go only after those blocks, one hop each.
    blocks = "\n".join(f"^bb{index}:\n{_nops(11)}\namdgpu_mc.s_endpgm" for index in range(1, 9))
    code_object = parse_code_object(f"""amdgpu_mc.func @f {{
      amdgpu_mc.s_cmp_eq_u32 s0, 0
      amdgpu_mc.s_cbranch_scc1 ^bb9, ^bb1
    {blocks}
    ^bb9:
      amdgpu_mc.s_endpgm
    }}""")
    function = _function(code_object, "f")
    before = _Snapshot(function)
    assert _branch_deltas(function, "gfx90a") == [8 * 48]

    added = relax_branches(code_object, reach=64)

    _check_relaxed(function, before, 64)
    islands = _islands(function)
    assert added == len(islands) >= 384 // 64
    # The cbranch enters a chain that visits every island, in layout order.
    branch = before.ops[1]
    assert isinstance(branch, InstructionOpBase)
    chain: list[Block] = []
    block = branch.successors[0]
    while block in islands:
        chain.append(block)
        last = block.last_op
        assert last is not None
        block = last.successors[0]
    assert chain == islands
    # No island needed a skip branch: each follows (other islands and) an s_endpgm.
    for island in islands:
        previous = _application_block_before(island, islands)
        assert previous.last_op is not None and previous.last_op.name == "amdgpu_mc.s_endpgm"


def test_many_far_branches_do_not_pile_links_into_one_place() -> None:
    # Twenty conditional branches close together, to three targets ~1 KiB on, with no
    # block end between: the first islands need skip branches, and the end of such an
    # island is then a place control never falls into. Preferring it whenever it gets
    # any closer piled link after link into it, each four bytes closer than the last:
    # this function never finished relaxing (nor rocPRIM's radix sort instrumented at
    # every instruction). Where a natural island would not reach the target, a skip place
    # that gets more than twice as far now wins.
    cases = "\n".join(f"  amdgpu_mc.s_cmp_eq_u32 s0, {index}\n"
                      f"  amdgpu_mc.s_cbranch_scc1 ^t{index % 3}, ^b{index}\n"
                      f"^b{index}:\n{_nops(2)}" for index in range(20))
    targets = "\n".join(f"^t{index}:\n{_nops(2)}\n  amdgpu_mc.s_endpgm"
                        for index in range(3))
    code_object = parse_code_object(f"""amdgpu_mc.func @f {{
    {cases}
    {_nops(200)}
      amdgpu_mc.s_endpgm
    {targets}
    }}""")
    function = _function(code_object, "f")
    before = _Snapshot(function)
    span = max(_branch_deltas(function, "gfx90a"))
    assert span > 15 * 64

    added = relax_branches(code_object, reach=64)

    _check_relaxed(function, before, 64)
    # Each target's chain takes links of at least half the reach (skip branch + island:
    # 8 bytes a link), and each branch at most one island of its own to join it.
    assert added <= 3 * (span // 32 + 1) + 20


def test_fixed_point_an_island_pushes_another_branch_out_of_range() -> None:
    # Reach 64 (forward 60, backward 64). The cbranch at 0x4 jumps 64 bytes on: out of
    # range by 4. Its island can go only after ^bb1 (0x28), inside the span of the loop's
    # back edge, which reaches back exactly 64 bytes: the island's 4 bytes push it out of
    # range, and it needs an island of its own.
    code_object = parse_code_object(f"""amdgpu_mc.func @f {{
      amdgpu_mc.s_cmp_eq_u32 s0, 0
      amdgpu_mc.s_cbranch_scc1 ^bb3, ^bb1
    ^bb1:
      {_nops(7)}
      amdgpu_mc.s_endpgm
    ^bb2:
      {_nops(6)}
      amdgpu_mc.s_cmp_eq_u32 s1, 0
      amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb3
    ^bb3:
      amdgpu_mc.s_endpgm
    }}""")
    function = _function(code_object, "f")
    before = _Snapshot(function)
    assert _branch_deltas(function, "gfx90a") == [64, -64]

    added = relax_branches(code_object, reach=64)

    _check_relaxed(function, before, 64)
    assert added == 2
    forward, back_edge = (op for op in before.ops if isinstance(op, InstructionOpBase)
                          and op.KIND == "branch")
    islands = _islands(function)
    assert back_edge.successors[0] in islands and forward.successors[0] in islands
    # Both islands follow ^bb1's s_endpgm: no path runs an instruction it did not before
    # (apart from the islands' jumps on the relaxed edges).
    for island in islands:
        assert _application_block_before(island, islands) is forward.successors[1]


def test_backward_branch_gets_a_skip_island_in_the_loop_body() -> None:
    # A loop whose back edge climbs 0x100 bytes, at a 64-byte reach: no block in reach ends
    # in an unconditional transfer, so the loop body is cut by s_branch over the islands.
    code_object = parse_code_object(f"""amdgpu_mc.func @f {{
      amdgpu_mc.s_mov_b32 s2, 2
      amdgpu_mc.fallthrough ^bb1
    ^bb1:
      amdgpu_mc.s_sub_u32 s2, s2, 1
      {_nops(61)}
      amdgpu_mc.s_cmp_eq_u32 s2, 0
      amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb2
    ^bb2:
      amdgpu_mc.s_setpc_b64 s[30:31]
    }}""")
    function = _function(code_object, "f")
    before = _Snapshot(function)
    assert _branch_deltas(function, "gfx90a") == [-256]

    added = relax_branches(code_object, reach=64)

    _check_relaxed(function, before, 64)
    assert added >= 256 // 64
    back_edge = before.ops[-2]
    assert isinstance(back_edge, InstructionOpBase) and back_edge.KIND == "branch"
    island = back_edge.successors[0]
    assert island in _islands(function)
    # The islands lie between the loop head and the back edge, each behind a skip branch.
    blocks = list(function.body.blocks)
    for island in _islands(function):
        previous = island.prev_block
        assert previous is not None and isinstance(previous.last_op, InstructionOpBase)
        assert previous.last_op.mnemonic == "s_branch"
        assert previous.last_op.successors[0] is island.next_block
        assert 1 <= blocks.index(island) < blocks.index(back_edge.parent_block() or island)


def test_no_island_between_getpc_and_the_adds_measured_from_it() -> None:
    # Reach 64: the furthest places the cbranch reaches lie after s_getpc_b64 and after
    # the s_add_u32; an island there would move the adds away from the PC they add to.
    code_object = parse_code_object(f"""amdgpu_mc.func @f {{
      amdgpu_mc.s_cmp_eq_u32 s0, 0
      amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
    ^bb1:
      {_nops(11)}
      amdgpu_mc.s_getpc_b64 s[4:5]
      amdgpu_mc.s_add_u32 s4, s4, table@rel32@lo+4
      amdgpu_mc.s_addc_u32 s5, s5, table@rel32@hi+12
      {_nops(10)}
      amdgpu_mc.s_endpgm
    ^bb2:
      amdgpu_mc.s_endpgm
    }}""")
    function = _function(code_object, "f")
    before = _Snapshot(function)
    getpc, add, addc = (op for op in before.ops if isinstance(op, InstructionOpBase)
                        and op.mnemonic in ("s_getpc_b64", "s_add_u32", "s_addc_u32"))

    relax_branches(code_object, reach=64)

    _check_relaxed(function, before, 64)
    offsets = function_layout(function, load_target("gfx90a")).offsets
    assert (offsets[add] - offsets[getpc], offsets[addc] - offsets[getpc]) == (4, 12)
    # The first island sits right before the s_getpc_b64, behind its skip branch.
    island = before.ops[1].successors[0]
    following = island.next_block
    assert following is not None and following.first_op is getpc


def test_branches_to_one_far_target_share_an_island() -> None:
    code_object = parse_code_object(f"""amdgpu_mc.func @f {{
      amdgpu_mc.s_cmp_eq_u32 s0, 0
      amdgpu_mc.s_cbranch_scc1 ^bb4, ^bb1
    ^bb1:
      amdgpu_mc.s_cmp_eq_u32 s1, 0
      amdgpu_mc.s_cbranch_scc1 ^bb4, ^bb2
    ^bb2:
      {_nops(5)}
      amdgpu_mc.s_endpgm
    ^bb3:
      {_nops(10)}
      amdgpu_mc.s_endpgm
    ^bb4:
      amdgpu_mc.s_endpgm
    }}""")
    function = _function(code_object, "f")
    before = _Snapshot(function)
    # Both cbranches are out of range; one island after ^bb2 (0x28) serves both.
    assert _branch_deltas(function, "gfx90a") == [76, 68]

    added = relax_branches(code_object, reach=64)

    _check_relaxed(function, before, 64)
    assert added == 1
    first, second = (op for op in before.ops if isinstance(op, InstructionOpBase)
                     and op.KIND == "branch")
    assert first.successors[0] is second.successors[0]


def test_in_range_code_is_not_touched() -> None:
    text = f"""amdgpu_mc.kernel @k <{{descriptor = #amdgpu_mc.kernel_descriptor<>}}> {{
      amdgpu_mc.s_cmp_eq_u32 s0, 0
      amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1
    ^bb1:
      {_nops(14)}
      amdgpu_mc.s_endpgm
    ^bb2:
      amdgpu_mc.s_branch ^bb1
    }}"""
    code_object = parse_code_object(text)
    printed = str(code_object)
    # The forward branch reaches exactly 60 bytes, the most a 64-byte reach allows.
    assert _branch_deltas(_function(code_object, "k"), "gfx90a") == [60, -64]
    assert relax_branches(code_object, reach=64) == 0
    assert str(code_object) == printed


def test_branch_to_another_function_is_an_error() -> None:
    code_object = parse_code_object("""amdgpu_mc.func @f {
      amdgpu_mc.s_branch ^bb1
    ^bb1:
      amdgpu_mc.s_endpgm
    }
    amdgpu_mc.func @g {
      amdgpu_mc.s_endpgm
    }""")
    branch = _function(code_object, "f").body.blocks.first
    assert branch is not None and isinstance(branch.last_op, InstructionOpBase)
    branch.last_op.successors = [_function(code_object, "g").body.blocks.first or Block()]
    with pytest.raises(PassFailedException, match=r"^relax-branches: @f: s_branch in \^bb0 "
                       r"branches to a block outside the function$"):
        relax_branches(code_object)


def test_reach_beyond_the_hardware_is_refused() -> None:
    code_object = parse_code_object("amdgpu_mc.func @f {\n amdgpu_mc.s_endpgm\n }")
    with pytest.raises(PassFailedException, match="reach is a multiple of 4 from 16 to 131072"):
        relax_branches(code_object, reach=HARDWARE_REACH + 4)


# -- end to end: emit and emulate --------------------------------------------------------

KERNEL = """\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
\t.amdhsa_code_object_version 5
\t.text
\t.globl k
\t.p2align 8
\t.type k,@function
k:
\ts_load_dwordx2 s[2:3], s[0:1], 0x0
\ts_load_dword s4, s[0:1], 0x8
\ts_waitcnt lgkmcnt(0)
\tv_lshlrev_b32_e32 v1, 2, v0
\ts_cmp_eq_u32 s4, 0
\ts_cbranch_scc1 .Lfar
\tv_mov_b32_e32 v2, 7
\tglobal_store_dword v1, v2, s[2:3]
\ts_endpgm
.Lfar:
\tv_add_u32_e32 v2, 42, v0
\tglobal_store_dword v1, v2, s[2:3]
\ts_endpgm
.Lfunc_end0:
\t.size k, .Lfunc_end0-k
\t.section .rodata,"a",@progbits
\t.p2align 6
\t.amdhsa_kernel k
\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1
\t\t.amdhsa_kernarg_size 16
\t\t.amdhsa_next_free_vgpr 3
\t\t.amdhsa_next_free_sgpr 8
\t\t.amdhsa_accum_offset 4
\t.end_amdhsa_kernel
\t.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 64
    .name:           k
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         k.kd
    .vgpr_count:     3
    .wavefront_size: 64
amdhsa.version:
  - 1
  - 2
...
\t.end_amdgpu_metadata
"""
#: s_nop 0 spliced into the fall-through path: 132 KB, past the forward reach.
SPLICED_NOPS = 33_000


def _lift(data: bytes) -> CodeObjectOp:
    return lift_code_object(read_code_object(data)).module


def _instrumented_kernel() -> CodeObjectOp:
    """The kernel, with 33,000 ``s_nop 0`` spliced before the fall-through path's store
    (as instrumentation would splice payloads): its ``s_cbranch_scc1`` no longer reaches."""
    code_object = _lift(assemble_relocatable(KERNEL, "k.s"))
    store = next(op for op in _ops(_function(code_object, "k"))
                 if isinstance(op, InstructionOpBase) and op.mnemonic == "global_store_dword")
    block = store.parent_block()
    assert block is not None
    builder = InstBuilder(code_object.processor)
    for _ in range(SPLICED_NOPS):
        block.insert_op_before(builder.inst("s_nop", [0]), store)
    return code_object


def _run(code: CodeObjectOp, selector: int) -> np.ndarray[tuple[int], np.dtype[np.int32]]:
    out = np.zeros(64, np.int32)
    result = run_kernel(code, "k", 1, 64, [out, np.int32(selector)])
    buffer = result.buffers[0]
    assert buffer is not None
    return buffer


def test_relaxed_kernel_emits_and_runs_like_the_original() -> None:
    code_object = _instrumented_kernel()
    with pytest.raises(EmitError, match="cannot reach its target"):
        emit_code_object(code_object)
    expected = {selector: _run(code_object, selector) for selector in (0, 1)}
    assert (expected[0] == 42 + np.arange(64)).all() and (expected[1] == 7).all()
    function = _function(code_object, "k")
    before = _Snapshot(function)

    assert relax_branches(code_object) == 1

    _check_relaxed(function, before, HARDWARE_REACH)
    emitted = _lift(emit_code_object(code_object))
    for selector in (0, 1):
        np.testing.assert_array_equal(_run(emitted, selector), expected[selector])
