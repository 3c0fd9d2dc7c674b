"""FunctionCFG on compiled kernels (facts checked against llvm-objdump-19 -d) and on
hand-written shapes; dominators cross-checked with a set-based reference."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.passes.analysis.cfg import ExitKind, FunctionCFG

from .corpus import (
    KERNELS,
    ROCRAND,
    corpus,
    function,
    functions,
    lifted,
    parsed,
)


def cfg_of(code_object: CodeObjectOp, name: str) -> FunctionCFG:
    return FunctionCFG.build(function(code_object, name))


def test_counted_loop() -> None:
    # objdump: s_cbranch_scc1 at +0x50 -> +0x78, s_cbranch_scc0 at +0x74 -> +0x58.
    cfg = cfg_of(corpus("control_flow.gfx90a.co"), "counted_loop")
    assert cfg.successors == ((3, 1), (2,), (2, 3), ())
    assert cfg.predecessors == ((), (0,), (1, 2), (0, 2))
    assert cfg.block_offsets == (0x0, 0x54, 0x58, 0x78)
    assert cfg.exits == {3: ExitKind.ENDPGM}
    assert cfg.idom == (None, 0, 1, 0)
    [loop] = cfg.loops
    assert (loop.header, loop.blocks, loop.back_edges, loop.exit_edges, loop.depth) \
        == (2, frozenset({2}), ((2, 2),), ((2, 3),), 1)
    assert cfg.reverse_post_order[0] == 0
    assert not cfg.warnings


def test_data_dependent_loop_header_is_the_dominating_entry() -> None:
    # objdump: s_branch +0x5c -> +0x90 enters the cycle at ^bb3; ^bb2 (+0x60) is reached from
    # ^bb3 and ^bb4 only, so ^bb3 dominates the cycle and ^bb2 -> ^bb3 is the back edge.
    cfg = cfg_of(corpus("control_flow.gfx90a.co"), "data_dependent_loop")
    assert cfg.block_offsets == (0x0, 0x54, 0x60, 0x90, 0xB0, 0xB8, 0xBC)
    [loop] = cfg.loops
    assert loop.header == 3
    assert loop.blocks == frozenset({2, 3, 4})
    assert loop.back_edges == ((2, 3),)
    assert loop.exit_edges == ((2, 5),)
    assert cfg.idom == (None, 0, 3, 1, 3, 2, 0)
    assert cfg.dominates(3, 2) and cfg.dominates(3, 4) and not cfg.dominates(2, 3)
    assert cfg.dominators(5) == [0, 1, 3, 2, 5]
    assert [cfg.loop_depth(block) for block in range(7)] == [0, 0, 1, 1, 1, 0, 0]


def test_device_functions_return_and_kernels_end() -> None:
    calls = corpus("calls.gfx90a.co")
    for op in functions(calls):
        cfg = FunctionCFG.build(op)
        kinds = set(cfg.exits.values())
        assert kinds == ({ExitKind.ENDPGM} if cfg.is_kernel else {ExitKind.RETURN}), cfg.name
        assert not cfg.warnings
    fib = cfg_of(calls, "_Z3fibi")
    assert fib.exits == {4: ExitKind.RETURN}
    assert [loop.header for loop in fib.loops] == [2]


#: ``s_cbranch_execz 11   // 000000003024: BF88000B <_Z8mix_bitsii+0x40>``
_BRANCH = re.compile(r"^\s+(s_c?branch\w*)\s.*//\s*([0-9A-F]+):.*<(\S+?)(?:\+0x([0-9a-f]+))?>")
_SYMBOL = re.compile(r"^([0-9a-f]+) <(\S+)>:$")


@pytest.mark.parametrize("name", ["control_flow.gfx90a.co", "control_flow.gfx942.co",
                                  "calls.gfx90a.co", "scratch.gfx90a.co"])
def test_branch_edges_match_objdump(name: str) -> None:
    """Every branch objdump shows ends a block whose taken successor starts at the target
    objdump names, at the same offsets from the function symbol."""
    if shutil.which("llvm-objdump-19") is None:
        pytest.skip("llvm-objdump-19 is not installed")
    text = subprocess.run(["llvm-objdump-19", "-d", str(KERNELS / name)], check=True,
                          capture_output=True, text=True).stdout
    cfgs = {op.sym_name.data: FunctionCFG.build(op) for op in functions(corpus(name))}
    starts: dict[str, int] = {}
    checked = 0
    current = ""
    for line in text.splitlines():
        symbol = _SYMBOL.match(line)
        if symbol is not None:
            current = symbol.group(2)
            starts[current] = int(symbol.group(1), 16)
            continue
        branch = _BRANCH.match(line)
        if branch is None:
            continue
        mnemonic, address, target_symbol, target = branch.groups()
        assert target_symbol == current
        cfg = cfgs[current]
        offsets = cfg.instruction_offsets
        assert offsets is not None
        at = int(address, 16) - starts[current]
        [(block, op)] = [(i, b.last_op) for i, b in enumerate(cfg.blocks)
                         if b.last_op is not None and offsets[b.last_op] == at]
        assert op is not None and op.name.endswith(mnemonic)
        assert cfg.block_offsets is not None
        assert cfg.block_offsets[cfg.successors[block][0]] == int(target or "0", 16)
        checked += 1
    assert checked >= 5


def _reference_dominators(cfg: FunctionCFG) -> list[set[int]]:
    """Dom(b) = {b} | intersection of Dom(p) over reachable predecessors (textbook)."""
    count = len(cfg.blocks)
    reachable = [b for b in range(count) if cfg.reachable[b]]
    dom = [set(reachable) for _ in range(count)]
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for block in reachable:
            if block == 0:
                continue
            new: set[int] = set(reachable)
            for pred in cfg.predecessors[block]:
                if cfg.reachable[pred]:
                    new &= dom[pred]
            new.add(block)
            if new != dom[block]:
                dom[block] = new
                changed = True
    return dom


def _check_against_reference(cfg: FunctionCFG) -> None:
    dom = _reference_dominators(cfg)
    for block in range(len(cfg.blocks)):
        if not cfg.reachable[block]:
            assert cfg.idom[block] is None
            continue
        assert set(cfg.dominators(block)) == dom[block], (cfg.name, block)
        for other in range(len(cfg.blocks)):
            if cfg.reachable[other]:
                assert cfg.dominates(other, block) == (other in dom[block])
    for loop in cfg.loops:
        assert all(cfg.dominates(loop.header, block) for block in loop.blocks)
        for latch, header in loop.back_edges:
            assert header == loop.header and header in cfg.successors[latch]
        for block in loop.blocks - {loop.header}:
            assert all(pred in loop.blocks for pred in cfg.predecessors[block]
                       if cfg.reachable[pred])
        if loop.parent is not None:
            assert loop.blocks < cfg.loops[loop.parent].blocks
            assert loop.depth == cfg.loops[loop.parent].depth + 1


@pytest.mark.parametrize("name", ["control_flow.gfx90a.co", "calls.gfx942.co",
                                  "scratch.gfx90a.co"])
def test_dominators_and_loops_match_a_reference(name: str) -> None:
    for op in functions(corpus(name)):
        _check_against_reference(FunctionCFG.build(op))


def test_hand_written_shapes() -> None:
    shapes = parsed("cfg_shapes.mlir")
    diamond = cfg_of(shapes, "diamond")
    assert diamond.successors == ((2, 1), (3,), (3,), ())
    assert diamond.idom == (None, 0, 0, 0) and not diamond.loops

    unreachable = cfg_of(shapes, "unreachable")
    assert unreachable.unreachable == (2,)
    assert unreachable.idom[2] is None and not unreachable.dominates(0, 2)
    assert unreachable.predecessors[3] == (0, 2)
    assert any("unreachable from the entry: ^bb2" in w for w in unreachable.warnings)

    nested = cfg_of(shapes, "nested_loops")
    outer, inner = nested.loops
    assert (outer.header, outer.blocks, outer.depth, outer.parent) \
        == (1, frozenset({1, 2, 3}), 1, None)
    assert (inner.header, inner.blocks, inner.depth, inner.parent) == (2, frozenset({2}), 2, 0)
    assert nested.innermost_loop == (None, 0, 1, 0, None)

    irreducible = cfg_of(shapes, "irreducible")
    assert not irreducible.loops
    assert irreducible.irreducible_edges == ((1, 2),)
    assert any("irreducible" in w for w in irreducible.warnings)
    for name in ("diamond", "self_loop", "unreachable", "nested_loops", "irreducible"):
        _check_against_reference(cfg_of(shapes, name))


def test_indirect_branch_is_a_conservative_exit() -> None:
    calls = parsed("calls.mlir")
    jump = cfg_of(calls, "indirect_jump")
    assert jump.exits == {0: ExitKind.INDIRECT_BRANCH}
    assert jump.jump_targets[0][0] is None
    assert any("indirect branch with unknown targets" in w for w in jump.warnings)
    assert cfg_of(calls, "kernel_setpc").exits == {0: ExitKind.INDIRECT_BRANCH}
    assert cfg_of(calls, "tail_call").exits == {0: ExitKind.TAIL_CALL}
    assert cfg_of(calls, "pong").exits == {0: ExitKind.RETURN}


def test_empty_function_and_missing_terminator_do_not_crash() -> None:
    from xdsl.dialects.builtin import StringAttr
    from xdsl.ir import Block, Region

    from luthier.amdgpu_dialects.amdgpu_mc.instructions import build_instruction
    from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
    from luthier.amdgpu_dialects.amdgpu_mc.structure import FunctionOp

    empty = FunctionOp.create(properties={"sym_name": StringAttr("empty")},
                              regions=[Region()])
    cfg = FunctionCFG.build(empty)
    assert cfg.blocks == () and cfg.loops == () and cfg.call_sites == ()
    mov = build_instruction("s_mov_b32", "S_MOV_B32_vi",
                            [PhysRegAttr.get_register("s0"), PhysRegAttr.get_register("s1")])
    open_ended = FunctionOp.create(properties={"sym_name": StringAttr("open")},
                                   regions=[Region(Block([mov]))])
    cfg = FunctionCFG.build(open_ended)
    assert cfg.exits == {0: ExitKind.UNKNOWN}
    assert any("not a branch, a known terminator" in w for w in cfg.warnings)


def test_rocrand_is_consistent() -> None:
    # Speed is measured by bench/, not asserted here: a wall-clock limit fails on a loaded
    # machine without any change in the code.
    if not ROCRAND.is_file():
        pytest.skip(f"no {ROCRAND} (test/corpus/thirdparty/fetch.sh)")
    cfgs = [FunctionCFG.build(op) for op in functions(lifted(ROCRAND))]
    assert len(cfgs) == 80
    for cfg in cfgs:
        _check_against_reference(cfg)
        assert set(cfg.exits.values()) == {ExitKind.ENDPGM}
        assert not cfg.unreachable
