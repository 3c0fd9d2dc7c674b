"""``.amdgpu_metadata`` YAML -> note bytes, against llvm-mc-19 for the scalar typing rules.

llvm-mc types untagged scalars by their text (unsigned, signed, boolean, float -> nil,
string), quoted or not; tags force a type; map keys are written sorted. Each value below is
put under a key of a minimal valid document and the whole ``.note`` section compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .common import check_against_llvm_mc

SCALARS = [
    "1.5",
    '"12"',
    "!str 12",
    "-5",
    "0x10",
    "[ 1, 2 ]",
    "yes",
    "Off",
    "'a b'",
    "1e3",
    "010",
    "-0x10",
    "18446744073709551615",
    "-9223372036854775808",
    "~",
    "null",
    '""',
    '"a\\tb"',
    "{}",
    '!nil ""',
    "+5",
    "N",
    "nan",
    "inf",
    "0b101",
    "'it''s'",
    "amdgcn-amd-amdhsa--gfx90a",
    "[]",
    "!int 0x20",
    "!bool true",
    "-1",
    "-33",
    "-200",
    "70000",
    "4294967296",
    "x" * 40,
    "y" * 300,
]


def _document(extra: str) -> str:
    return (
        '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n\t.amdhsa_code_object_version 5\n'
        "\t.amdgpu_metadata\n---\namdhsa.kernels: []\n"
        f"{extra}amdhsa.target:   amdgcn-amd-amdhsa--gfx90a\n"
        "amdhsa.version:\n  - 1\n  - 2\n...\n\t.end_amdgpu_metadata\n"
    )


@pytest.mark.parametrize("value", SCALARS)
def test_scalar_types_like_llvm_mc(value: str, tmp_path: Path) -> None:
    check_against_llvm_mc(_document(f"zz.value: {value}\n"), "gfx90a", tmp_path)


def test_nested_collections_and_key_order(tmp_path: Path) -> None:
    nested = (
        "b.outer:\n  - .z: 1\n    .a:\n      - 2\n      - x: [ 3 ]\n"
        "  -\n    - 4\n  - plain\na.first:\n- 7\n- 8\n"
    )
    check_against_llvm_mc(_document(nested), "gfx90a", tmp_path)
