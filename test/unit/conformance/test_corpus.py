"""Corpus extraction from LLVM's MC test files."""

from __future__ import annotations

from pathlib import Path

from luthier.conformance.corpus import (
    assembler_corpus,
    disassembler_corpus,
    mcpu_family,
    parse_byte_line,
    run_families,
    statements_of,
    strip_comment,
)


def test_byte_lines_in_every_spelling() -> None:
    assert parse_byte_line("0x00,0x00,0x8c,0xbf") == bytes([0, 0, 0x8C, 0xBF])
    assert parse_byte_line("0x00 0x00 0x8c 0xbf") == bytes([0, 0, 0x8C, 0xBF])
    assert parse_byte_line("  [0x01, 0x02]  # op_sel:[1,0,0]") == bytes([1, 2])
    assert parse_byte_line("0xA,0xb // comment") == bytes([0x0A, 0x0B])
    assert parse_byte_line("0x00,0x01 ; comment") == bytes([0, 1])


def test_non_byte_lines_are_ignored() -> None:
    for line in (
        "# RUN: llvm-mc -disassemble %s",
        "# CHECK: s_nop 0 ; encoding: [0x00,0x00,0x80,0xbf]",
        "; GFX90A: v_nop",
        "",
        "  v_perm_b32 v14, v52, v51, 0x5040100",
        "0x123,0x00",  # not a byte
    ):
        assert parse_byte_line(line) is None, line


def test_strip_comment_takes_the_first_marker() -> None:
    assert strip_comment("a ; b // c # d") == "a"
    assert strip_comment("a // b ; c") == "a"


def test_statements_drop_comments_directives_blocks_labels() -> None:
    text = """\
// RUN: llvm-mc -show-encoding %s
s_nop 0 // CHECK: s_nop 0
# a hash comment
.text
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 1
  .if 1
  s_nop 9
  .endif
.end_amdhsa_kernel
.macro M
  s_nop 8
.endm
label:
other: s_endpgm
x = 5
v_mov_b32 v0, v1 ; comment
"""
    text += "  v_add_f32 v0, v1, v2   \n"  # blanks around the statement are not part of it
    assert list(statements_of(text.splitlines())) == [
        (2, "s_nop 0"),
        (15, "s_endpgm"),
        (17, "v_mov_b32 v0, v1"),
        (18, "v_add_f32 v0, v1, v2"),
    ]


def test_operands_with_colons_are_not_labels() -> None:
    statements = [s for _, s in statements_of(["v_mov_b32 v[0:1], s[2:3]", "s_nop 0 x:1"])]
    assert statements == ["v_mov_b32 v[0:1], s[2:3]", "s_nop 0 x:1"]


def test_corpora_are_deduplicated_with_first_origin(sample_llvm_tree: Path) -> None:
    words = disassembler_corpus(sample_llvm_tree)
    datas = [case.data for case in words]
    assert len(datas) == len(set(datas)) == 14
    assert words[1].data == bytes([0, 0, 0x8C, 0xBF])
    assert words[1].origin == "sample.txt:4"
    statements = [case.statement for case in assembler_corpus(sample_llvm_tree)]
    assert statements == [
        "s_nop 0x4000",
        "s_nop 0",
        "s_nop 0x4001",
        "v_add_f32 v0, v1, v2",
        "v_add_f32_e64 v0, v1, v2",
        "s_mov_b32 s0, s1",
        "s_mov_b32 s2, s3",
        "s_branch label",
        "foo bar",
        "v_mov_b32 v0, 0x12345678",
        "s_endpgm",
    ]


def test_run_lines_name_the_families_a_file_targets() -> None:
    text = """\
# RUN: llvm-mc -triple=amdgcn -mcpu=gfx1010 -disassemble %s | FileCheck %s
# RUN: llvm-mc -triple=amdgcn -mcpu=gfx1100 -mattr=+wavefrontsize64 -disassemble %s
; RUN: llvm-mc -arch=amdgcn -mcpu gfx90a -show-encoding %s
# CHECK: -mcpu=gfx1200 is not in a RUN line
"""
    assert run_families(text) == {"gfx10", "gfx11", "gfx9"}
    assert mcpu_family("gfx1030") == "gfx10"
    assert mcpu_family("gfx1201") == "gfx12"
    assert mcpu_family("gfx942") == "gfx9"


def test_a_family_selects_only_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "llvm/test/MC/Disassembler/AMDGPU"
    folder.mkdir(parents=True)
    (folder / "gfx9_only.txt").write_text(
        "# RUN: llvm-mc -triple=amdgcn -mcpu=gfx90a -disassemble %s\n0x00,0x00,0x8c,0xbf\n")
    (folder / "gfx11_and_12.txt").write_text(
        "# RUN: llvm-mc -triple=amdgcn -mcpu=gfx1100 -disassemble %s\n"
        "# RUN: llvm-mc -triple=amdgcn -mcpu=gfx1200 -disassemble %s\n0x00,0x00,0x81,0xbf\n")
    every = [case.origin for case in disassembler_corpus(tmp_path)]
    assert every == ["gfx11_and_12.txt:3", "gfx9_only.txt:2"]
    assert [c.origin for c in disassembler_corpus(tmp_path, "gfx12")] == ["gfx11_and_12.txt:3"]
    assert disassembler_corpus(tmp_path, "gfx10") == []
