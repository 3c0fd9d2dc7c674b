"""Encoding classes (GFX9 and the RDNA families) and random words."""

from __future__ import annotations

import pytest

from luthier.conformance.encoding_classes import (
    GFX9_CLASSES,
    UNASSIGNED,
    class_names,
    classes_for,
    classify_bytes,
    classify_dword,
    random_words,
)


@pytest.mark.parametrize(
    ("dword", "expected"),
    [
        (0xBF8C0000, "SOPP"),  # s_waitcnt 0
        (0xBE800001, "SOP1"),  # s_mov_b32 s0, s1
        (0xBF000100, "SOPC"),  # s_cmp_eq_i32 s0, s1
        (0xB0000000, "SOPK"),  # s_movk_i32
        (0x80000100, "SOP2"),  # s_add_u32
        (0x7E000300, "VOP1"),  # v_mov_b32
        (0x7C000000, "VOPC"),
        (0x02000000, "VOP2"),
        (0xC0020000, "SMEM"),
        (0xC4000000, "EXP"),
        (0xD3800000, "VOP3P"),
        (0xD1000000, "VOP3"),
        (0xD4000000, "VINTRP"),
        (0xD8000000, "DS"),
        (0xDC000000, "FLAT"),
        (0xE0000000, "MUBUF"),
        (0xE8000000, "MTBUF"),
        (0xF0000000, "MIMG"),
        (0xC8000000, UNASSIGNED),
        (0xFC000000, UNASSIGNED),
    ],
)
def test_classify_dword(dword: int, expected: str) -> None:
    assert classify_dword(dword) == expected


def test_classify_bytes_is_little_endian() -> None:
    assert classify_bytes(bytes([0x00, 0x00, 0x8C, 0xBF])) == "SOPP"
    assert classify_bytes(bytes([0x01])) == "short"


def test_random_words_stay_in_their_class_and_are_seeded() -> None:
    words = random_words(20, seed=7)
    assert words == random_words(20, seed=7)
    assert words != random_words(20, seed=8)
    sizes = {encoding.name: encoding.size for encoding in GFX9_CLASSES}
    for class_name, data in words:
        assert classify_bytes(data) == class_name
        assert len(data) == sizes.get(class_name, 8) + 4  # room for a literal
    per_class = {name: sum(1 for c, _ in words if c == name) for name in class_names()}
    assert set(per_class.values()) == {20}
    assert len({data for _, data in words}) == len(words)


@pytest.mark.parametrize(
    ("mcpu", "data", "expected"),
    [
        # First dwords of words llvm-mc-19 decodes on each family (little-endian bytes).
        ("gfx1030", "0x00,0x00,0x08,0xf4", "SMEM"),  # s_load_dwordx4
        ("gfx1030", "0x7e,0x00,0xf8,0xd4", "VOP3"),  # v_cmpx_u_f16_e64
        ("gfx1030", "0x00,0x00,0xb0,0xe8", "MTBUF"),  # tbuffer_load_format_d16_x
        ("gfx1030", "0x07,0x9f,0x98,0xf1", "MIMG"),  # image_bvh_intersect_ray
        ("gfx1030", "0x01,0x01,0x00,0xf8", "EXP"),  # exp pos4
        ("gfx1100", "0x04,0x05,0x02,0xc9", "VOPD"),  # v_dual_add_f32 :: v_dual_fmaak_f32
        ("gfx1100", "0x05,0x00,0x55,0xd6", "VOP3"),  # v_add3_u32_e64_dpp
        ("gfx1200", "0x03,0x00,0x22,0xc4", "VBUFFER"),  # tbuffer_load_d16_format_x
        ("gfx1200", "0x7c,0x40,0x16,0xec", "VFLAT"),  # flat_atomic_pk_add_f16
        ("gfx1200", "0xc7,0x81,0x04,0xf4", "SMEM"),  # s_prefetch_inst
    ],
)
def test_rdna_classes(mcpu: str, data: str, expected: str) -> None:
    classes = classes_for(mcpu)
    assert classes is not None
    assert classify_bytes(bytes(int(b, 16) for b in data.split(",")), classes) == expected


def test_random_words_of_a_family_stay_in_its_classes() -> None:
    classes = classes_for("gfx1200")
    assert classes is not None and classes_for("gfx1201") == classes
    words = random_words(5, seed=3, classes=classes)
    assert {name for name, _ in words} == set(class_names(classes))
    sizes = {encoding.name: encoding.size for encoding in classes}
    for class_name, data in words:
        assert classify_bytes(data, classes) == class_name
        assert len(data) == sizes.get(class_name, 8) + 4
    assert classes_for("r600") is None
