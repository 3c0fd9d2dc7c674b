"""The assembler: hand-checked statements per encoding class, errors, and the corpus."""

from __future__ import annotations

import io

import pytest

from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.drivers.mc_assemble import run_assembler, strip_comment

from . import llvm_oracle


def assemble(line: str, mcpu: str = "gfx90a") -> tuple[str, str]:
    inst = parser_for(mcpu).parse(line)
    return printer_for(mcpu).print(inst), encoder_for(mcpu).encode(inst).hex()


# (statement, printed text, encoding) as llvm-mc-19 -mcpu=gfx90a -show-encoding gives them.
GFX90A_CASES = [
    ("s_nop 1", "s_nop 1", "010080bf"),
    ("s_waitcnt vmcnt(0) & lgkmcnt(0)", "s_waitcnt vmcnt(0) lgkmcnt(0)", "70008cbf"),
    ("s_mov_b32 s0, 0x12345", "s_mov_b32 s0, 0x12345", "ff0080be45230100"),
    ("s_add_u32 s0, s1, -1", "s_add_u32 s0, s1, -1", "01c10080"),
    ("s_load_dwordx2 s[0:1], s[4:5], 0x10", "s_load_dwordx2 s[0:1], s[4:5], 0x10",
     "020006c010000000"),
    ("v_add_f32 v0, s1, v0", "v_add_f32_e32 v0, s1, v0", "01000002"),
    ("v_add_f32 v0, v1, s0", "v_add_f32_e64 v0, v1, s0", "000001d101010000"),
    ("v_add_f32 v0, -v1, |v2|", "v_add_f32_e64 v0, -v1, |v2|", "000201d101050220"),
    ("v_mov_b32 v0, 0.5", "v_mov_b32_e32 v0, 0.5", "f002007e"),
    ("v_cmp_eq_f32 vcc, v1, v2", "v_cmp_eq_f32_e32 vcc, v1, v2", "0105847c"),
    ("v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]",
     "v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", "0040b0d302091a1c"),
    ("v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 src0_sel:BYTE_0",
     "v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0",
     "f902027e02150000"),
    ("v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0x1",
     "v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0x1 bank_mask:0xf",
     "fa02027e02b1001f"),
    ("global_load_dword v1, v[2:3], off offset:16 glc",
     "global_load_dword v1, v[2:3], off offset:16 glc", "108051dc02007f01"),
    ("buffer_load_dword v1, v2, s[4:7], s1 offen offset:4",
     "buffer_load_dword v1, v2, s[4:7], s1 offen offset:4", "041050e002010101"),
    ("ds_write_b32 v1, v2 offset:16", "ds_write_b32 v1, v2 offset:16", "10001ad801020000"),
]


@pytest.mark.parametrize(("line", "text", "encoding"), GFX90A_CASES)
def test_hand_checked_gfx90a(line: str, text: str, encoding: str) -> None:
    assert assemble(line) == (text, encoding)


@pytest.mark.parametrize(("line", "message", "column"), [
    ("bogus v0", "invalid instruction", 0),
    ("v_add_f32 v0", "too few operands for instruction", 0),
    ("s_mov_b32 s0, s[1:2]", "invalid register alignment", 14),
    ("v_mov_b32 v300, v1", "register index is out of range", 10),
    ("s_movk_i32 s0, 0x12345", "invalid operand for instruction", 15),
    ("v_add_f32_e64 v0, s0, s1", "invalid operand (violates constant bus restrictions)", 22),
    ("global_atomic_add_f32 v[1:2], v2, off",
     "invalid register class: vgpr tuples must be 64 bit aligned", 0),
    ("s_mov_b32 s0, tba_lo", "register not available on this GPU", 14),
    ("ds_add_u32 v0, v1 gds", "gds modifier is not supported on this GPU", 18),
    ("s_sendmsg sendmsg(MSG_GS, GS_OP_NOP)", "invalid operation id", 26),
    ("ds_add_u32 v2, v4 offset:0x10000", "expected a 16-bit unsigned offset", 18),
    ("global_load_dword v1, v[3:4], off offset:4096", "expected a 13-bit signed offset", 34),
    ("s_load_dword s1, s[2:3], 0xfc slc", "invalid cache policy for SMEM instruction", 0),
])
def test_errors(line: str, message: str, column: int) -> None:
    with pytest.raises(AsmParseError) as caught:
        parser_for("gfx90a").parse(line)
    assert (caught.value.message, caught.value.column) == (message, column)


def test_driver_output_and_diagnostics() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = run_assembler("foo:\n# note\ns_nop 1 // x\nbogus\n", "gfx90a", True, out, err,
                           "<stdin>")
    assert status == 1
    assert out.getvalue().splitlines() == [
        "\t.text", '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', "foo:",
        "\ts_nop 1                                 ; encoding: [0x01,0x00,0x80,0xbf]",
    ]
    assert err.getvalue() == "<stdin>:4:1: error: invalid instruction\n"


def test_symbolic_operands_become_fixups() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = run_assembler("s_branch loop\ns_mov_b32 s0, sym@abs32@lo\n", "gfx90a", True,
                           out, err, "<stdin>")
    assert status == 0 and err.getvalue() == ""
    assert out.getvalue().splitlines()[2:] == [
        "\ts_branch loop                           ; encoding: [A,A,0x82,0xbf]",
        " " * 40 + ";   fixup A - offset: 0, value: loop, kind: fixup_si_sopp_br",
        "\ts_mov_b32 s0, sym@abs32@lo              ; encoding: [0xff,0x00,0x80,0xbe,A,A,A,A]",
        " " * 40 + ";   fixup A - offset: 4, value: sym@abs32@lo, kind: FK_Data_4",
    ]


def test_internal_failure_is_one_error_line(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = parser_for("gfx90a")

    def explode(statement: str, column: int = 0) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(parser, "parse_statement", explode)
    out, err = io.StringIO(), io.StringIO()
    assert run_assembler("s_nop 0\n", "gfx90a", False, out, err, "x.s") == 1
    assert err.getvalue() == "x.s:1:1: error: internal error: RuntimeError: boom\n"


def test_comments() -> None:
    assert strip_comment("s_nop 0 ; c") == "s_nop 0 "
    assert strip_comment("s_nop 0 // c") == "s_nop 0 "
    assert strip_comment("  # whole line") == ""


@pytest.mark.skipif(not llvm_oracle.available(), reason="needs llvm-mc-19 and LLVM sources")
@pytest.mark.parametrize("mcpu", ["gfx90a", "gfx942"])
def test_corpus_agreement(mcpu: str) -> None:
    """At least 99.5% of the statements llvm-mc accepts assemble to its text and bytes."""
    parser, printer, encoder = parser_for(mcpu), printer_for(mcpu), encoder_for(mcpu)
    accepted = agree = 0
    for statement, outcome in llvm_oracle.assembled(mcpu):
        if len(outcome.instructions) != 1 or outcome.diagnostics:
            continue
        expected = outcome.instructions[0]
        if expected.encoding is None or any(not b.startswith("0x") for b in expected.encoding):
            continue
        accepted += 1
        try:
            inst = parser.parse(strip_comment(statement))
            text, data = printer.print(inst), encoder.encode(inst)
        except Exception:  # noqa: BLE001 - counted as disagreement
            continue
        llvm = bytes(int(b, 16) for b in expected.encoding)
        agree += text == expected.text and data == llvm
    assert accepted > 60000
    assert agree / accepted >= 0.995


@pytest.mark.skipif(not llvm_oracle.available(), reason="needs llvm-mc-19 and LLVM sources")
@pytest.mark.parametrize("mcpu", ["gfx90a", "gfx942"])
def test_corpus_rejections(mcpu: str) -> None:
    """What llvm-mc rejects we reject too, mostly with its message and column."""
    rejected = agreed = same_message = 0
    for statement, outcome in llvm_oracle.assembled(mcpu):
        if outcome.instructions or not outcome.diagnostics:
            continue
        expected = outcome.diagnostics[0]
        if expected.severity != "error":
            continue
        out, err = io.StringIO(), io.StringIO()
        run_assembler(statement + "\n", mcpu, True, out, err, "<stdin>")
        lines = err.getvalue().splitlines()
        rejected += 1
        if not lines:
            continue
        agreed += 1
        where, _, message = lines[0].partition(": error: ")
        same_message += message == expected.message
        del where
    assert rejected > 80000
    assert agreed / rejected >= 0.999
    assert same_message / rejected >= 0.85
