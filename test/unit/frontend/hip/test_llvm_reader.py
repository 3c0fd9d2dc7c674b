"""The reader of clang's LLVM IR and the HIP importer on what users and tools may give.

* The test inputs of ``test/lit/hip/Inputs`` are what ``build.sh`` makes of their ``.hip``
  sources with clang-19 (checked when clang-19 is here).
* Mutants of a valid hook file (lines deleted, repeated, swapped, cut, a token replaced):
  the import either succeeds or refuses in one line (a ``LuthierError``), never another
  exception, and deep branch nests are refused, not a Python recursion error.
* Sizes and offsets of globals follow the AMDGPU data layout.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.drivers.pipeline import pipeline_context
from luthier.frontend.hip.importer import MAX_NESTING, import_llvm_hooks
from luthier.frontend.hip.llvm_text import FloatConst, Local, Unsupported, read_llvm_text
from luthier.frontend.hip.llvm_types import (
    ArrayType,
    FloatType,
    IntType,
    PtrType,
    StructType,
    gep_offset,
    type_alignment,
    type_size,
)

ROOT = Path(__file__).resolve().parents[4]
INPUTS = ROOT / "test" / "lit" / "hip" / "Inputs"
TOKENS = ["%0", "%x", "@Flags", "@nope", "i32", "i64", "ptr", "ptr addrspace(1)", "label",
          "br", "ret", "add", "icmp", "phi", "[", "]", "(", ")", ",", "!dbg", "!12", "-1",
          "99999999999999999999", "call", "void", "@llvm.ctpop.i64", "undef", 'c"a\\22"',
          "{", "}", "x", "0x7f", "select", "i1", "true", "hidden"]


@pytest.mark.skipif(shutil.which("clang-19") is None, reason="needs clang-19")
def test_test_inputs_are_what_build_sh_makes() -> None:
    done = subprocess.run(["bash", str(INPUTS / "build.sh"), "--check"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr


def _mutant(lines: list[str], rng: random.Random) -> str:
    lines = list(lines)
    for _ in range(rng.randint(1, 3)):
        index = rng.randrange(len(lines))
        kind = rng.randrange(5)
        if kind == 0:
            del lines[index]
        elif kind == 1:
            lines.insert(index, lines[rng.randrange(len(lines))])
        elif kind == 2:
            parts = lines[index].split(" ")
            parts[rng.randrange(len(parts))] = rng.choice(TOKENS)
            lines[index] = " ".join(parts)
        elif kind == 3:
            lines[index] = lines[index][:rng.randrange(len(lines[index]) + 1)]
        else:
            other = rng.randrange(len(lines))
            lines[index], lines[other] = lines[other], lines[index]
    return "\n".join(lines)


def test_mutated_hook_files_import_or_refuse_in_one_line() -> None:
    ctx = pipeline_context()
    lines = (INPUTS / "control.ll").read_text().splitlines()
    rng = random.Random(20261126)
    outcomes = {"imported": 0, "refused": 0}
    for _ in range(600):
        try:
            import_llvm_hooks(read_llvm_text(_mutant(lines, rng)), "mutant.ll", ctx)
            outcomes["imported"] += 1
        except LuthierError as error:
            assert "\n" not in str(error)
            outcomes["refused"] += 1
    assert outcomes["imported"] and outcomes["refused"]


def test_deep_branch_nests_are_refused() -> None:
    depth = MAX_NESTING + 5
    body = [f"  %c{i} = icmp eq i32 %0, {i}\n  br i1 %c{i}, label %b{i}, label %end\nb{i}:"
            for i in range(depth)]
    text = ("@G = addrspace(1) global i32 0, align 4\n"
            'define void @deep(i32 %0) section ".luthier.hooks" {\n'
            + "\n".join(body) + "\n  store i32 1, ptr addrspace(1) @G, align 4\n"
            "  br label %end\nend:\n  ret void\n}\n")
    with pytest.raises(LuthierError, match=f"branches nest deeper than {MAX_NESTING}"):
        import_llvm_hooks(read_llvm_text(text), "deep.ll", pipeline_context())


def test_sizes_follow_the_amdgpu_data_layout() -> None:
    assert [type_size(t) for t in (IntType(1), IntType(8), IntType(32), IntType(64))] == \
        [1, 1, 4, 8]
    assert type_size(PtrType(1)) == 8 and type_size(PtrType(3)) == 4
    pair = StructType((IntType(32), IntType(64)))
    assert type_size(pair) == 16 and type_alignment(pair) == 8
    assert type_size(StructType((IntType(32), IntType(64)), packed=True)) == 12
    table = ArrayType(4, pair)
    assert type_size(table) == 64
    assert gep_offset(table, [0, 2, 1]) == 2 * 16 + 8


FLOAT_IR = """
@F = addrspace(1) global float 0.000000e+00, align 4
@D = addrspace(1) global double 0.000000e+00, align 8
define void @hook(i32 %n) section ".luthier.hooks" {
entry:
  %x = uitofp nneg i32 %n to float
  %a = fadd nnan ninf float %x, 0x3FB99999A0000000
  %b = fmul fast double 0x7FF0000000000000, -2.500000e+00
  %c = fneg contract float %a
  %d = fcmp fast une float %c, 1.000000e+00
  %e = fcmp true double %b, %b
  %f = select nsz i1 %d, float %a, float 0xH3C00
  %g = phi reassoc float [ 1.000000e+00, %entry ]
  %h = fpext float %f to double
  %i = fptrunc double %h to float
  %j = fptosi float %i to i32
  %k = bitcast float %i to i32
  store float %i, ptr addrspace(1) @F, align 4
  ret void
}
"""


def test_float_types_constants_and_predicates_are_read() -> None:
    """float/double types, LLVM's float constants (decimal, and hex of the double value
    for float too; a half's 0xH is kept as unsupported), fneg, fcmp predicates and
    fast-math flags read past."""
    module = read_llvm_text(FLOAT_IR)
    assert module.globals["F"].type == FloatType(32) and module.globals["D"].type == \
        FloatType(64)
    assert type_size(FloatType(32)) == 4 and type_alignment(FloatType(64)) == 8
    assert str(FloatType(32)) == "float" and str(FloatType(64)) == "double"
    assert module.globals["F"].initializer == module.globals["D"].initializer
    found = {i.result: i for i in module.functions["hook"].blocks[0].instructions}
    assert found["x"].opcode == "uitofp" and found["x"].type == FloatType(32)
    assert found["a"].operands == [Local("x"), FloatConst(float.fromhex("0x1.99999ap-4"))]
    assert found["a"].type == FloatType(32)
    assert found["b"].operands == [FloatConst(float("inf")), FloatConst(-2.5)]
    assert found["c"].opcode == "fneg" and found["c"].operands == [Local("a")]
    assert (found["d"].predicate, found["d"].types) == ("une", [FloatType(32)] * 2)
    assert found["e"].predicate == "true"
    assert isinstance(found["f"].operands[2], Unsupported)
    assert "half" in found["f"].operands[2].text
    assert found["g"].incoming == [(FloatConst(1.0), "entry")]
    assert [found[n].type for n in "hijk"] == [FloatType(64), FloatType(32), IntType(32),
                                               IntType(32)]
