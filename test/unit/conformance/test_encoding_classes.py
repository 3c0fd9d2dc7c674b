"""GFX9 encoding classes and random words."""

from __future__ import annotations

import pytest

from luthier.conformance.encoding_classes import (
    GFX9_CLASSES,
    UNASSIGNED,
    class_names,
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
