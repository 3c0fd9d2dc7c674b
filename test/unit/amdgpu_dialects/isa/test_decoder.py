"""The table-driven decoder on hand-built instruction words.

Every expected text here was checked against ``llvm-mc-19 --disassemble`` for the target.
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc.decoder import DecodeError, decode_words, decoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

#: (target, dwords, bytes consumed, text). Word layouts are written out field by field.
EXAMPLES: list[tuple[str, list[int], int, str]] = [
    # SOP1: 101111101 | sdst(22:16) | op(15:8) | ssrc0(7:0); s_mov_b32 is op 0.
    ("gfx90a", [0xBE800000 | 0 << 16 | 1], 4, "s_mov_b32 s0, s1"),
    # SOP2: 10 | op(29:23) | sdst | ssrc1(15:8) | ssrc0; s_add_u32 is op 0.
    ("gfx90a", [0x80000000 | 2 << 16 | 4 << 8 | 3], 4, "s_add_u32 s2, s3, s4"),
    # SOPK: 1011 | op(27:23) | sdst | simm16; s_movk_i32 is op 0.
    ("gfx90a", [0xB0000000 | 5 << 16 | 0x1234], 4, "s_movk_i32 s5, 0x1234"),
    # SOPC: 101111110 | op(22:16) | ssrc1 | ssrc0; s_cmp_eq_u32 is op 6.
    ("gfx942", [0xBF000000 | 6 << 16 | 2 << 8 | 1], 4, "s_cmp_eq_u32 s1, s2"),
    # SOPP: 101111111 | op(22:16) | simm16; s_waitcnt (op 12), s_endpgm (op 1).
    ("gfx90a", [0xBF800000 | 12 << 16 | 0x0F70], 4, "s_waitcnt vmcnt(0)"),
    ("gfx942", [0xBF800000 | 1 << 16], 4, "s_endpgm"),
    # SMEM: 110000 | op(25:18) | imm(17) | sdata(12:6) | sbase pair(5:0) ; offset(52:32).
    ("gfx90a", [0xC0000000 | 1 << 17 | 0 << 6 | 1, 0x10], 8, "s_load_dword s0, s[2:3], 0x10"),
    # VOP1: 0111111 | vdst(24:17) | op(16:9) | src0(8:0); v_mov_b32 is op 1, VGPRs are 256+.
    ("gfx90a", [0x7E000000 | 1 << 17 | 1 << 9 | 258], 4, "v_mov_b32_e32 v1, v2"),
    # VOP2: 0 | op(30:25) | vdst | vsrc1(16:9) | src0; v_add_f32 is op 1.
    ("gfx942", [1 << 25 | 1 << 17 | 3 << 9 | 258], 4, "v_add_f32_e32 v1, v2, v3"),
    # VOP3: 110100 | op(25:16) | clamp(15) | abs(10:8) | vdst ;
    #       neg(63:61) | omod(60:59) | src2 | src1 | src0.
    ("gfx90a", [0xD1010001, 258 | 259 << 9], 8, "v_add_f32_e64 v1, v2, v3"),
    ("gfx90a", [0xD1010001 | 1 << 15 | 1 << 9, 258 | 259 << 9 | 1 << 29 | 1 << 27], 8,
     "v_add_f32_e64 v1, -v2, |v3| clamp mul:2"),
    # DS: 110110 | op(24:17) | gds(16) | offset(15:0) ; vdst(63:56) | data1 | data0 | addr;
    # ds_write_b32 is op 13.
    ("gfx90a", [0xD8000000 | 13 << 17 | 16, 1 | 2 << 8], 8, "ds_write_b32 v1, v2 offset:16"),
]


@pytest.mark.parametrize(("target", "words", "size", "text"), EXAMPLES)
def test_decode_examples(target: str, words: list[int], size: int, text: str) -> None:
    inst = decode_words(target, words)
    assert inst.size == size
    assert printer_for(target).print(inst) == text
    data = b"".join(w.to_bytes(4, "little") for w in words)
    assert inst.encoding == data[:size]


def test_32bit_encoding_reads_trailing_literal() -> None:
    # VOP1 v_mov_b32 v1 with src0 = 255 (literal): the next dword is the value.
    inst = decode_words("gfx90a", [0x7E0202FF, 0x12345678])
    assert inst.size == 8
    assert inst.literal == 0x12345678
    assert printer_for("gfx90a").print(inst) == "v_mov_b32_e32 v1, 0x12345678"
    # SOP2 with a literal in ssrc1.
    inst = decode_words("gfx942", [0x80000000 | 2 << 16 | 255 << 8 | 3, 0xFFFF0000])
    assert inst.size == 8
    assert printer_for("gfx942").print(inst) == "s_add_u32 s2, s3, 0xffff0000"


def test_inline_constant_reads_no_literal() -> None:
    # src0 = 242 is the inline constant 1.0: one dword, the next word is a new instruction.
    words = [0x7E000000 | 1 << 17 | 1 << 9 | 242, 0xBF810000]
    data = b"".join(w.to_bytes(4, "little") for w in words)
    insts = decoder_for("gfx90a").decode_all(data)
    assert [i.size for i in insts] == [4, 4]
    assert [printer_for("gfx90a").print(i) for i in insts] == [
        "v_mov_b32_e32 v1, 1.0", "s_endpgm"]


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_64bit_encoding_never_reads_literal(target: str) -> None:
    # v_add_f32_e64 with src0 = 255: GFX9 has no VOP3 literals, so (as in llvm-mc) the 8-byte
    # word is not an instruction, even with a dword after it that could serve as a literal.
    words = [0xD1010001, 255 | 259 << 9, 0xBF810000]
    data = b"".join(w.to_bytes(4, "little") for w in words)
    decoder = decoder_for(target)
    with pytest.raises(DecodeError):
        decoder.decode(data)
    # llvm-mc resynchronizes 4 bytes on: the second dword is a VOP2 whose src0 names the
    # literal, and the third dword is that literal.
    inst = decoder.decode(data, 4)
    assert inst.size == 8
    assert inst.literal == 0xBF810000
    assert printer_for(target).print(inst) == "v_cndmask_b32_e32 v1, 0xbf810000, v3, vcc"


@pytest.mark.parametrize("data", [
    b"",
    b"\x00",
    b"\x00\x00\x81",
    # VOP1 naming a literal with no literal dword after it.
    (0x7E0202FF).to_bytes(4, "little"),
    # The first half of a 64-bit VOP3 instruction.
    (0xD1010001).to_bytes(4, "little"),
    # No instruction has this encoding.
    b"\xff\xff\xff\xff",
])
def test_truncated_or_invalid_input_raises(data: bytes) -> None:
    with pytest.raises(DecodeError):
        decoder_for("gfx90a").decode(data)


def test_decode_at_offset_and_address() -> None:
    data = b"\xaa\xbb" + (0xBF810000).to_bytes(4, "little")
    inst = decoder_for("gfx942").decode(data, 2, 0x1000)
    assert (inst.size, inst.address, inst.desc.mnemonic) == (4, 0x1000, "s_endpgm")


def test_decode_all_offsets() -> None:
    words = [
        0xBF800000,                      # s_nop 0                    (4 bytes)
        0x7E0202FF, 0x3F000001,          # v_mov_b32 v1, literal      (8 bytes)
        0xD1010001, 258 | 259 << 9,      # v_add_f32_e64 v1, v2, v3   (8 bytes)
        0xBF810000,                      # s_endpgm                   (4 bytes)
    ]
    data = b"".join(w.to_bytes(4, "little") for w in words)
    insts = decoder_for("gfx90a").decode_all(data, address=0x100)
    assert [i.address for i in insts] == [0x100, 0x104, 0x10C, 0x114]
    assert [i.size for i in insts] == [4, 8, 8, 4]
    assert [i.desc.mnemonic for i in insts] == [
        "s_nop", "v_mov_b32", "v_add_f32", "s_endpgm"]
    assert b"".join(i.encoding for i in insts) == data


def test_decode_all_names_the_bad_offset() -> None:
    data = (0xBF800000).to_bytes(4, "little") + b"\xff\xff\xff\xff"
    with pytest.raises(DecodeError, match="0x4"):
        decoder_for("gfx90a").decode_all(data)
