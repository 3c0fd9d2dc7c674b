"""Lookups derived from the one AMDGPU relocation table (``amdgpu_dialects/mc/relocations``)."""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS32_LO,
    R_AMDGPU_GOTPCREL,
    R_AMDGPU_REL32,
    R_AMDGPU_REL32_HI,
    literal_is_pc_relative,
    literal_relocation,
)


@pytest.mark.parametrize(("variant", "pc_relative"), [
    ("rel32@lo", True), ("rel32@hi", True), ("gotpcrel32@lo", True), ("gotpcrel32@hi", True),
    ("gotpcrel", True), ("", True), ("abs32@lo", False), ("abs32@hi", False),
    ("rel64", False), ("nonsense", False),
])
def test_which_literals_measure_from_their_own_address(variant: str, pc_relative: bool) -> None:
    # rel64 patches 8 bytes: no 32-bit literal carries it, so nothing moves with it either
    assert literal_is_pc_relative(variant) is pc_relative


def test_literal_relocations() -> None:
    assert literal_relocation("rel32@hi", True) is R_AMDGPU_REL32_HI
    assert literal_relocation("abs32@lo", True) is R_AMDGPU_ABS32_LO
    assert literal_relocation("gotpcrel", True) is R_AMDGPU_GOTPCREL
    assert literal_relocation("", True) is R_AMDGPU_REL32
    assert literal_relocation("rel64", True) is None
