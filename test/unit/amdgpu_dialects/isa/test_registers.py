"""Register naming: SGPR/TTMP tuple rounding, special registers, VGPR and AGPR tuples.

Every expected instruction text was checked against ``llvm-mc-19 --disassemble``.
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.isa.registers import RegisterNamer, tuple_name
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

#: (target, bytes as llvm-mc input, text)
EXAMPLES: list[tuple[str, str, str]] = [
    # s_mov_b64 with an odd source (s1) and an odd destination (s3): LLVM rounds each down
    # to the even-aligned pair that contains it.
    ("gfx90a", "0x01,0x01,0x80,0xbe", "s_mov_b64 s[0:1], s[0:1]"),
    ("gfx942", "0x03,0x01,0x83,0xbe", "s_mov_b64 s[2:3], s[2:3]"),
    # s_load_dwordx4 with sdata = 5 names the 4-aligned quad s[4:7].
    ("gfx90a", "0x41,0x01,0x0a,0xc0,0x00,0x00,0x00,0x00", "s_load_dwordx4 s[4:7], s[2:3], 0x0"),
    # TTMPs are encoded from 108: ttmp15 is 123; pairs round down like SGPR pairs.
    ("gfx90a", "0x7b,0x00,0x80,0xbe", "s_mov_b32 s0, ttmp15"),
    ("gfx90a", "0x70,0x01,0x80,0xbe", "s_mov_b64 s[0:1], ttmp[4:5]"),
    ("gfx942", "0x71,0x01,0x80,0xbe", "s_mov_b64 s[0:1], ttmp[4:5]"),
    ("gfx90a", "0x01,0x1c,0x0a,0xc0,0x00,0x00,0x00,0x00", "s_load_dwordx4 ttmp[4:7], s[2:3], 0x0"),
    # Special registers by encoding: vcc (106), exec (126), m0 (124), flat_scratch (102).
    ("gfx90a", "0x6a,0x01,0x80,0xbe", "s_mov_b64 s[0:1], vcc"),
    ("gfx90a", "0x7e,0x01,0x80,0xbe", "s_mov_b64 s[0:1], exec"),
    ("gfx942", "0x7c,0x00,0x80,0xbe", "s_mov_b32 s0, m0"),
    ("gfx90a", "0x66,0x01,0x80,0xbe", "s_mov_b64 s[0:1], flat_scratch"),
    # AGPRs: accvgpr read/write and an MFMA with AGPR tuples.
    ("gfx90a", "0x01,0x40,0xd8,0xd3,0x02,0x01,0x00,0x18", "v_accvgpr_read_b32 v1, a2"),
    ("gfx942", "0x03,0x40,0xd9,0xd3,0x04,0x01,0x00,0x18", "v_accvgpr_write_b32 a3, v4"),
    ("gfx90a", "0x00,0x80,0xc2,0xd3,0x00,0x03,0x12,0x04",
     "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[4:7]"),
    # The last VGPR, as destination and source.
    ("gfx90a", "0xff,0x03,0xfe,0x7f", "v_mov_b32_e32 v255, v255"),
]


def _bytes(text: str) -> bytes:
    return bytes(int(token, 16) for token in text.split(","))


@pytest.mark.parametrize(("target", "data", "text"), EXAMPLES)
def test_register_spellings(target: str, data: str, text: str) -> None:
    inst = decoder_for(target).decode(_bytes(data))
    assert printer_for(target).print(inst) == text


def test_tuple_name() -> None:
    assert tuple_name("v", 7, 1) == "v7"
    assert tuple_name("s", 0, 2) == "s[0:1]"
    assert tuple_name("ttmp", 4, 4) == "ttmp[4:7]"
    assert tuple_name("a", 0, 16) == "a[0:15]"


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_scalar_names(target: str) -> None:
    namer = RegisterNamer(load_target(target))
    assert namer.scalar("s", 0, 1) == "s0"
    assert namer.scalar("s", 101, 1) == "s101"
    assert namer.scalar("s", 1, 2) == "s[0:1]"       # rounded down to the even pair
    assert namer.scalar("s", 5, 4) == "s[4:7]"       # rounded down to the 4-aligned quad
    assert namer.scalar("s", 7, 8) == "s[4:11]"      # wider tuples are 4-aligned too
    assert namer.scalar("s", 100, 2) == "s[100:101]"
    assert namer.scalar("ttmp", 15, 1) == "ttmp15"
    assert namer.scalar("ttmp", 3, 2) == "ttmp[2:3]"
    assert namer.scalar("ttmp", 13, 4) == "ttmp[12:15]"
    assert namer.scalar("ttmp", 16, 1) is None


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_vector_names(target: str) -> None:
    namer = RegisterNamer(load_target(target))
    assert namer.vector("v", 0, 1) == "v0"
    assert namer.vector("v", 255, 1) == "v255"
    assert namer.vector("v", 256, 1) is None
    assert namer.vector("v", 3, 2) == "v[3:4]"
    assert namer.vector("v", 252, 4) == "v[252:255]"
    assert namer.vector("v", 253, 4) is None          # would run past v255
    assert namer.vector("a", 4, 4) == "a[4:7]"
    assert namer.vector("a", 224, 32) == "a[224:255]"
    assert namer.vector("a", 225, 32) is None
