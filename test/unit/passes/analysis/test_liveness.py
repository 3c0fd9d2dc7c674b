"""Liveness against the compiler's own post-RA block live-ins, and on divergent code.

Soundness: at every block of every corpus function (test/corpus/liveness, clang-19's MIR
``liveins:``), each register the compiler has live must be live for us too. Where it is not,
the test proves the compiler's entry vacuous by an independent forward search: no path from
that point reads the register (any call on the way counts as reading everything). Anything
else fails. The conservativeness (units we report beyond the compiler's) is printed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import ALL_UNITS, unit_names, units_of
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    KernelOp,
)
from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.passes.analysis.liveness import Liveness, analyze, instructions

from .liveins_oracle import compare, corpus_path, load_oracle

ROOT = Path(__file__).resolve().parents[4]
ORACLES = sorted((ROOT / "test" / "corpus" / "liveness").glob("*.json"))


def _offsets(path: Path, module: CodeObjectOp) -> dict[str, dict[int, InstructionOpBase]]:
    """Each function's instructions by their offset, decoded from the original bytes."""
    code_object = read_code_object(path)
    text = code_object.text
    assert text is not None
    decoder = decoder_for(*module.target_key)
    table: dict[str, dict[int, InstructionOpBase]] = {}
    for function in module.body.ops:
        if not isinstance(function, FunctionLikeOp):
            continue
        symbol = next(s for s in code_object.symbols
                      if s.name == function.sym_name.data and s.type == "FUNC")
        code = text.data[symbol.value - text.address:symbol.value - text.address + symbol.size]
        offset, by_offset = 0, {}
        for op in instructions(function):
            by_offset[offset] = op
            offset += decoder.decode(code, offset).size
        table[function.sym_name.data] = by_offset
    return table


def _reads_anywhere(liveness: Liveness, name: str, seen: set[str]) -> int:
    """Units any instruction of ``name`` or of a function it may call reads (an unknown
    call or jump: every unit)."""
    if name in seen or name not in liveness.functions:
        return 0 if name in seen else ALL_UNITS
    seen.add(name)
    mask = 0
    for info in liveness.function(name).blocks:
        for op in info.instructions:
            mask |= _reads(liveness, op, seen)
    return mask


def _reads(liveness: Liveness, op: InstructionOpBase, seen: set[str]) -> int:
    mask = liveness.effects.of(op).uses
    if op.KIND == "call":
        targets = liveness.resolve(op)
        if targets is None:
            return ALL_UNITS
        for target in targets:
            mask |= _reads_anywhere(liveness, target, seen)
    return mask


def _read_later(liveness: Liveness, function: str, op: InstructionOpBase, unit: int) -> bool:
    """Whether some path from ``op`` reads ``unit`` before a scalar write of it: an
    instruction that reads it, a call whose callees read it anywhere, a jump or a return
    (whose continuation we do not follow: counted as a read)."""
    info = liveness.function(function)
    start = next((b, info.blocks[b].instructions.index(op)) for b in range(len(info.blocks))
                 if op in info.blocks[b].instructions)
    seen: set[int] = set()
    stack = [start]
    while stack:
        block, position = stack.pop()
        ops = info.blocks[block].instructions
        for current in ops[position:]:
            if _reads(liveness, current, set()) & unit or current.mnemonic == "s_setpc_b64":
                return True
            if liveness.effects.of(current).scalar_defs & unit:
                break
        else:
            for successor in info.blocks[block].successors:
                if successor not in seen:
                    seen.add(successor)
                    stack.append((successor, 0))
    return False


@pytest.mark.parametrize("oracle_path", ORACLES, ids=lambda p: p.stem)
def test_liveness_contains_the_compilers_live_ins(oracle_path: Path) -> None:
    theme, _, variant = oracle_path.stem.partition(".")
    path = corpus_path(theme, variant)
    module = lift_code_object(read_code_object(path)).module
    assert isinstance(module, CodeObjectOp)
    liveness = analyze(module)
    offsets = _offsets(path, module)

    def ours(function: str, offset: int) -> frozenset[str]:
        return frozenset(unit_names(liveness.live_before(offsets[function][offset])))

    report = compare(load_oracle(theme, variant), ours)
    truly_missing: list[str] = []
    for unsound in report.unsound:
        op = offsets[unsound.function][unsound.offset]
        for name in unsound.missing:
            if _read_later(liveness, unsound.function, op, units_of(name)):
                truly_missing.append(f"{unsound.function} {unsound.block}: {name}")
    print(f"{oracle_path.stem}: {report.summary()}", file=sys.stderr)
    assert truly_missing == [], report.summary()


def _parse(text: str) -> CodeObjectOp:
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    module = Parser(context, text).parse_module()
    assert isinstance(module, ModuleOp)
    code_object = module.body.block.first_op
    assert isinstance(code_object, CodeObjectOp)
    return code_object


_HEADER = ('amdgpu_mc.code_object "gfx90a:xnack-" <{code_object_version = 5 : i64, '
           'elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {\n'
           '  amdgpu_mc.kernel @k <{alignment = 256 : i64, descriptor = '
           '#amdgpu_mc.kernel_descriptor<kernarg_size = 16>}> {\n')


def _kernel_ops(code_object: CodeObjectOp) -> list[InstructionOpBase]:
    kernel = next(op for op in code_object.body.ops if isinstance(op, KernelOp))
    return list(instructions(kernel))


def test_a_write_under_a_divergent_exec_does_not_end_the_value() -> None:
    # v1 is written for all lanes, then again only for the lanes of the branch; after EXEC
    # is restored every lane reads v1, so the switched-off lanes need the first value: v1
    # stays live inside the branch, before and after its second write.
    code_object = _parse(_HEADER + """
    amdgpu_mc.v_mov_b32_e32 v1, 1
    amdgpu_mc.v_cmp_gt_u32_e32 vcc, 5, v0
    amdgpu_mc.s_and_saveexec_b64 s[0:1], vcc
    amdgpu_mc.v_mov_b32_e32 v1, 2
    amdgpu_mc.v_mov_b32_e32 v2, 3
    amdgpu_mc.s_or_b64 exec, exec, s[0:1]
    amdgpu_mc.global_store_dword v[4:5], v1, off
    amdgpu_mc.s_endpgm
  }
}""")
    liveness = analyze(code_object)
    ops = _kernel_ops(code_object)
    v1, v2 = units_of("v1"), units_of("v2")
    second_write, other_write = ops[3], ops[4]
    assert liveness.live_before(second_write) & v1, "the switched-off lanes still need v1"
    assert liveness.live_before(other_write) & v1
    assert not liveness.live_before(ops[0]) & v1, "the first write ends nothing before it"
    assert not liveness.live_before(other_write) & v2, "v2 is never read"
    assert liveness.live_before(ops[2]) & units_of("vcc")
    assert not liveness.live_after(ops[2]) & units_of("vcc")


def test_a_write_under_a_full_exec_ends_the_value() -> None:
    code_object = _parse(_HEADER + """
    amdgpu_mc.v_mov_b32_e32 v1, 1
    amdgpu_mc.v_mov_b32_e32 v1, 2
    amdgpu_mc.global_store_dword v[4:5], v1, off
    amdgpu_mc.s_endpgm
  }
}""")
    liveness = analyze(code_object)
    ops = _kernel_ops(code_object)
    assert not liveness.live_before(ops[1]) & units_of("v1")
    assert liveness.live_before(ops[2]) & units_of("v1")
    assert liveness.live_before(ops[0]) & units_of("v[4:5]") == units_of("v[4:5]")
    assert liveness.live_before(ops[3]) & ALL_UNITS == 0
