"""Code that newer LLVM compiles as real true16 lifts, prints, parses and goes back exactly.

``test/corpus/real_true16`` holds half-precision kernels compiled with clang-22 for gfx1100
and gfx1201 (wave32 and wave64) and llvm-objdump-22's disassembly of them (and clang-19's
builds of the same source, which ``test/unit/e2e/test_real_true16.py`` runs beside them).
Their 16-bit
VOP1/VOP2/VOPC words name VGPR halves, which LLVM 19's default records refuse or misread
(``v_cmp_gt_f16_e32 vcc_lo, v0, v128/*Invalid register*/``); the lifter reads them with
the tables' real-true16 twins and must print them as LLVM 22 does. Their VOP3 16-bit
words set op_sel bits that LLVM 19's records leave undefined (``v_cndmask_b16``): the op
keeps them (``unmodelled_bits``) so the word re-encodes to itself.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Operation
from xdsl.printer import Printer

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.decoder import DecodeError, Decoder, decoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.drivers.luthier_opt import main
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.compare import compare_code_objects
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit import emit_code_object
from luthier.passes.instrument.insert_hooks import opcode_index

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "real_true16"
OBJECTS = sorted(p for p in CORPUS.glob("*.co") if not p.name.endswith(".fake16.co"))
#: ``<text>  // <address>: <words>`` lines of llvm-objdump's disassembly.
_LINE = re.compile(r"^\s+(\S.*?)\s*// ([0-9A-F]+): ((?:[0-9A-F]{8} ?)+)$")
_HALF = re.compile(r"\bv\d+\.[hl]\b")


def _objdump(path: Path) -> list[tuple[str, bytes]]:
    """(text, bytes) of every instruction llvm-objdump-22 printed for ``path``."""
    rows: list[tuple[str, bytes]] = []
    for line in path.with_suffix(".objdump").read_text().splitlines():
        match = _LINE.match(line)
        if match is not None:
            words = match.group(3).split()
            rows.append((" ".join(match.group(1).split()),
                         b"".join(int(w, 16).to_bytes(4, "little") for w in words)))
    return rows


def _wave(path: Path) -> int:
    return 64 if ".w64." in path.name else 32


def _processor(path: Path) -> str:
    return path.name.split(".")[1]


def test_corpus_has_both_wave_sizes_and_their_disassembly() -> None:
    assert [p.name for p in OBJECTS] == ["half.gfx1100.co", "half.gfx1100.w64.co",
                                         "half.gfx1201.co", "half.gfx1201.w64.co"]
    for path in OBJECTS:
        assert sum(1 for text, _ in _objdump(path) if _HALF.search(text)) >= 30


def test_build_is_reproducible_and_current() -> None:
    """build.sh --check rebuilds the objects with clang-22 and compares the bytes."""
    if shutil.which("clang-22") is None or shutil.which("llvm-objdump-22") is None:
        pytest.skip("clang-22 and llvm-objdump-22 are not installed (see build.sh)")
    done = subprocess.run(["bash", str(CORPUS / "build.sh"), "--check"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, f"the real-true16 corpus is stale, run build.sh:\n{done.stderr}"


def _refused_or_misread(default: Decoder, data: bytes) -> bool:
    """Whether LLVM 19's default records refuse ``data`` or read a VGPR past v127 in it."""
    try:
        operands = default.decode(data).operands
    except DecodeError:
        return True
    return any(isinstance(v, str) and re.fullmatch(r"v\d+", v) is not None
               and int(v[1:]) >= 128 for v in operands)


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: p.name)
def test_halves_decode_as_llvm_22_prints_them(path: Path) -> None:
    """Every word llvm-mc-19 cannot read (a high half) or misreads (an out-of-class VGPR) is
    decoded with a twin, printed exactly as llvm-objdump-22 prints it. Words LLVM 19's
    default records read keep LLVM 19's text (``v_cvt_f32_f16_e32 v1, v1`` for LLVM 22's
    ``v1.l``), which names the same registers' units."""
    decoder = decoder_for(_processor(path), _wave(path), real_true16=True)
    default = decoder_for(_processor(path), _wave(path))
    printer = printer_for(_processor(path), _wave(path))
    twins = 0
    for text, data in _objdump(path):
        inst = decoder.decode(data)
        assert inst.size == len(data), text
        if inst.desc.fake16:
            twins += 1
            assert printer.print(inst) == text
            assert _refused_or_misread(default, data), \
                f"{text}: LLVM 19's default records read it, yet a twin took it"
        elif not _HALF.search(text):
            assert printer.print(inst) == text
    assert twins >= 15


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: p.name)
def test_functions_and_descriptors_round_trip(path: Path) -> None:
    result = lift_code_object(read_code_object(path))
    # clang-22's resource symbols (``axpy_h.num_vgpr``, absolute) are not carried, in a line.
    assert all("not carried" in warning and ".num_vgpr" in warning
               for warning in result.warnings)
    rewritten = read_code_object(emit_code_object(result.module))
    comparison = compare_code_objects(read_code_object(path), rewritten)
    assert comparison.differences == []
    assert comparison.identical_functions == comparison.functions == 4


def _ops(module: Operation) -> list[InstructionOpBase]:
    return [op for op in module.walk() if isinstance(op, InstructionOpBase)]


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: p.name)
def test_ir_text_round_trip_keeps_halves_and_undefined_bits(path: Path, tmp_path: Path) -> None:
    module = lift_code_object(read_code_object(path)).module
    ops = _ops(module)
    isa = load_target(_processor(path), _wave(path))
    kept = [op for op in ops if op.unmodelled_bits is not None]
    # v_cndmask_b16 and v_xor_b16 with op_sel naming high halves.
    assert {op.mnemonic for op in kept} >= {"v_cndmask_b16", "v_xor_b16"}
    for op in kept:
        desc = isa.by_name[op.opcode.data]
        assert isinstance(op.unmodelled_bits, IntAttr)
        assert op.unmodelled_bits.data & ~desc.unknown == 0
    assert any(isa.by_name[op.opcode.data].fake16 for op in ops)
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    text = stream.getvalue()
    assert re.search(r"v_fmac_f16_e32 v0\.h, s\d+, v0\.l\n", text)
    assert "unmodelled_bits = #builtin.int<20480>" in text
    lifted = tmp_path / "lifted.mlir"
    lifted.write_text(text)
    first, second = tmp_path / "a.co", tmp_path / "b.co"
    assert main([str(path), "-o", str(first)]) == 0
    assert main([str(lifted), "-o", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("processor", ["gfx1100", "gfx1201"])
def test_a_twin_counts_as_its_default_records_opcode(processor: str) -> None:
    """``#instr.site<"opcode">`` numbers the hardware opcode: a twin has its default
    record's number, so opcode tables count ``v_add_f16_e32`` once whichever form."""
    isa = load_target(processor)
    assert len(isa.real_true16) > 200
    for twin in isa.real_true16:
        assert opcode_index(isa, twin.name) == opcode_index(isa, twin.fake16) is not None


def test_an_empty_carried_section_is_kept_when_code_moves(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """clang-22 writes an empty ``.AMDGPU.gpr_maximums``: it holds no address, so
    instrumenting (which moves code) keeps it instead of dropping it with a warning."""
    output = tmp_path / "counted.co"
    hooks = CORPUS.parents[2] / "examples" / "hooks" / "instr_count.mlir"
    assert main(["--no-progress", "--lift", "--inline-hooks", "--emit-preamble",
                 str(OBJECTS[0]), "--hooks", str(hooks), "-o", str(output)]) == 0
    assert "dropped" not in capsys.readouterr().err
    names = [section.name for section in read_code_object(output).sections]
    assert ".AMDGPU.gpr_maximums" in names
