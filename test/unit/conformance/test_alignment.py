"""Parsing llvm-mc output and cutting a batch's output into per-input outcomes."""

from __future__ import annotations

from luthier.conformance.batching import (
    ItemDiagnostic,
    MarkerFamily,
    Mode,
    align_batch,
    align_single,
    batch_input,
    diagnostic_position,
    disassembler_line,
)
from luthier.conformance.mc_output import (
    PrintedInstruction,
    parse_diagnostics,
    parse_instruction_line,
    parse_stdout,
)

WAITCNT = "\ts_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0) ; encoding: [0x00,0x00,0x8c,0xbf]"
NOP = "\tv_nop                                   ; encoding: [0x00,0x00,0x00,0x7e]"


def marker_line(index: int) -> str:
    """What llvm-mc prints for disassembler marker ``index``."""
    value = 0x4000 + index
    return (
        f"\ts_nop 0x{value:x}                            ; encoding: "
        f"[0x{value & 0xFF:02x},0x{value >> 8:02x},0x80,0xbf]"
    )


MARKERS = [parse_instruction_line(marker_line(index)) for index in range(8)]


def test_instruction_line_is_normalized() -> None:
    parsed = parse_instruction_line("\tv_mov_b32_e32 v0,   v1\t\t; encoding: [0x01,0x03,0x00,0x7e]")
    assert parsed == PrintedInstruction("v_mov_b32_e32 v0, v1", ("0x01", "0x03", "0x00", "0x7e"))
    assert parsed.size == 4
    assert parse_instruction_line("s_nop 0").encoding is None


def test_stdout_drops_directives_and_attaches_fixups() -> None:
    stdout = (
        "\t.text\n"
        '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n'
        "\ts_branch label                          ; encoding: [A,A,0x82,0xbf]\n"
        "                                        ;   fixup A - offset: 0, value: label, "
        "kind: fixup_si_sopp_br\n"
        f"{NOP}\n"
    )
    branch, nop = parse_stdout(stdout)
    assert branch.encoding == ("A", "A", "0x82", "0xbf")
    assert branch.annotations == ("fixup A - offset: 0, value: label, kind: fixup_si_sopp_br",)
    assert nop.text == "v_nop"


def test_diagnostics_are_parsed_and_other_stderr_ignored() -> None:
    stderr = (
        "<stdin>:3:2: warning: invalid instruction encoding\n[0xff,0xff]\n ^\n"
        "<stdin>:5:1: error: invalid instruction\nfoo bar\n^\n"
    )
    first, second = parse_diagnostics(stderr)
    assert (first.line, first.column, first.severity) == (3, 2, "warning")
    assert (second.line, second.message) == (5, "invalid instruction")


def test_positions_are_byte_indexes_for_disassembly() -> None:
    line = disassembler_line(bytes([0, 0, 0x8C, 0xBF, 0xFF, 0xFF, 0xFF, 0xFF]))
    assert line == "[0x00,0x00,0x8c,0xbf,0xff,0xff,0xff,0xff]"
    assert diagnostic_position(Mode.DISASSEMBLE, line, 2) == 0
    assert diagnostic_position(Mode.DISASSEMBLE, line, 22) == 4
    assert diagnostic_position(Mode.DISASSEMBLE, line, 3) is None
    assert diagnostic_position(Mode.ASSEMBLE, "foo bar", 5) == 5


def test_markers_differ_per_position() -> None:
    assert MarkerFamily.S_NOP.line(Mode.DISASSEMBLE, 1) == "[0x01,0x40,0x80,0xbf]"
    assert MarkerFamily.S_MOVK.line(Mode.DISASSEMBLE, 0) == "[0x00,0x40,0x00,0xb0]"
    assert MarkerFamily.S_NOP.line(Mode.ASSEMBLE, 2) == "s_nop 0x4002"
    assert MarkerFamily.S_MOVK.line(Mode.ASSEMBLE, 3) == "s_movk_i32 s0, 0x4003"
    assert batch_input(["a", "b"], ["M0", "M1", "M2"]) == "a\nM0\nb\nM1\n"


def test_complete_batch_with_invalid_and_multi_instruction_inputs() -> None:
    lines = ["[0x00,0x00,0x8c,0xbf]", "[0xff,0xff,0xff,0xff]", "[0x00,0x00,0x8c,0xbf,0xff,0xff]"]
    stdout = "\t.text\n" + "\n".join(
        [WAITCNT, marker_line(0), marker_line(1), WAITCNT, marker_line(2)]
    )
    stderr = (
        "<stdin>:3:2: warning: invalid instruction encoding\n[0xff,0xff,0xff,0xff]\n ^\n"
        "<stdin>:5:22: warning: invalid instruction encoding\n...\n"
    )
    alignment = align_batch(Mode.DISASSEMBLE, lines, MARKERS, stdout, stderr)
    assert alignment.complete
    first, second, third = alignment.outcomes
    assert [i.text for i in first.instructions] == ["s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"]
    assert first.diagnostics == ()
    assert second.instructions == ()
    assert second.diagnostics == (ItemDiagnostic("warning", "invalid instruction encoding", 0),)
    assert len(third.instructions) == 1
    assert third.diagnostics == (ItemDiagnostic("warning", "invalid instruction encoding", 4),)


def test_an_input_printing_a_later_marker_text_is_caught() -> None:
    lines = ["[0x00,0x00,0x8c,0xbf]", "[0x02,0x40,0x80,0xbf]", "[0x00,0x00,0x8c,0xbf]"]
    stdout = "\n".join(
        [WAITCNT, marker_line(0), marker_line(2), marker_line(1), WAITCNT, marker_line(2)]
    )
    alignment = align_batch(Mode.DISASSEMBLE, lines, MARKERS, stdout, "")
    assert not alignment.complete
    assert len(alignment.outcomes) == 1  # input 0 is fine; input 1's segment is suspect


def test_an_input_printing_its_own_marker_text_is_caught() -> None:
    lines = ["[0x00,0x40,0x80,0xbf]", "[0x00,0x00,0x8c,0xbf]"]
    stdout = "\n".join([marker_line(0), marker_line(0), WAITCNT, marker_line(1)])
    alignment = align_batch(Mode.DISASSEMBLE, lines, MARKERS, stdout, "")
    assert not alignment.complete
    # Input 0 looks silent (no output, no diagnostic): not trusted.
    assert alignment.outcomes == []


def test_truncated_output_keeps_the_inputs_before_the_cut() -> None:
    lines = ["[0x00,0x00,0x8c,0xbf]", "[0x00,0x00,0x00,0x7e]", "[0x00,0x00,0x00,0x7e]"]
    stdout = "\n".join([WAITCNT, marker_line(0), NOP, "\tv_no"])  # died while printing input 2
    alignment = align_batch(Mode.DISASSEMBLE, lines, MARKERS, stdout, "")
    assert not alignment.complete
    assert [o.instructions[0].text for o in alignment.outcomes] == [
        "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"
    ]


def test_missing_output_at_the_end_is_incomplete() -> None:
    lines = ["[0x00,0x00,0x8c,0xbf]", "[0x00,0x00,0x8c,0xbf]"]
    alignment = align_batch(Mode.DISASSEMBLE, lines, MARKERS, f"{WAITCNT}\n{marker_line(0)}\n", "")
    assert not alignment.complete
    assert len(alignment.outcomes) == 1


def test_a_diagnostic_on_a_marker_line_stops_trust_there() -> None:
    lines = ["s_nop 1", "s_nop 2", "s_nop 3"]
    one = "\ts_nop 1 ; encoding: [0x01,0x00,0x80,0xbf]"
    stdout = "\n".join([one, marker_line(0), one, marker_line(1), one, marker_line(2)])
    stderr = "<stdin>:4:1: error: unexpected token\n"
    alignment = align_batch(Mode.ASSEMBLE, lines, MARKERS, stdout, stderr)
    assert not alignment.complete
    assert len(alignment.outcomes) == 1


def test_trailing_output_after_the_last_marker_is_incomplete() -> None:
    lines = ["[0x00,0x00,0x8c,0xbf]"]
    stdout = "\n".join([WAITCNT, marker_line(0), NOP])
    alignment = align_batch(Mode.DISASSEMBLE, lines, MARKERS, stdout, "")
    assert not alignment.complete


def test_single_input_owns_all_output() -> None:
    outcome = align_single(
        Mode.DISASSEMBLE,
        "[0x00,0x40,0x80,0xbf]",
        marker_line(0),
        "<stdin>:1:2: warning: potentially undefined instruction encoding\n",
    )
    assert outcome.instructions == (MARKERS[0],)
    assert outcome.diagnostics[0].position == 0
