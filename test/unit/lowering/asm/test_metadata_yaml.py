"""The ``.amdgpu_metadata`` YAML keeps every value's msgpack type through llvm-mc-19.

llvm's YAML reader types scalars by their text, quoted or not, so a string such as ``"1"``,
``"yes"`` or ``""`` must carry ``!str``. Here a metadata map full of such values goes through
llvm-mc and must come back equal, type for type; values YAML cannot carry are refused.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from luthier.frontend.codeobj import read_code_object
from luthier.lowering.asm import DirectiveError, metadata_directives, metadata_yaml

from .test_corpus_roundtrip import same_typed

LLVM_MC = "llvm-mc-19"
needs_llvm_mc = pytest.mark.skipif(
    shutil.which(LLVM_MC) is None, reason=f"{LLVM_MC} is not installed"
)

#: Strings llvm would read as something else without a tag, and strings that need quoting.
TRICKY_STRINGS = [
    "",
    " ",
    "1",
    "-1",
    "0777",
    "0x10",
    "0b101",
    "1e5",
    "1.5",
    ".5",
    "nan",
    "inf",
    "-Infinity",
    "0x1p3",
    "yes",
    "No",
    "ON",
    "off",
    "y",
    "N",
    "true",
    "False",
    "~",
    "null",
    ".inf",
    "1_000",
    "a;b # not a comment",
    "#hash",
    "it's",
    'say "hi"',
    "back\\slash",
    "two\nlines",
    "tab\there",
    "caf\u00e9 \u2603 \U0001f600",
    "- dash",
    "key: value",
    "[flow]",
    "{flow}",
    "&anchor",
    "*alias",
    "!tag",
    "%percent",
    "@at",
    "`tick",
    "|block",
    ">folded",
    "? question",
    "...",
    "---",
    "trailing ",
    " leading",
    "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
    "_Z10vector_addPKfS0_Pfi.kd",
    "float*",
    "\x01ctrl\x7f",
]


def _metadata() -> dict[str, object]:
    kernel: dict[str, object] = {
        ".name": "k",
        ".symbol": "k.kd",
        ".kernarg_segment_size": 8,
        ".group_segment_fixed_size": 0,
        ".private_segment_fixed_size": 0,
        ".kernarg_segment_align": 8,
        ".wavefront_size": 64,
        ".sgpr_count": 10,
        ".vgpr_count": 4,
        ".max_flat_workgroup_size": 1024,
        ".uses_dynamic_stack": False,
        ".args": [
            {".offset": 0, ".size": 8, ".value_kind": "global_buffer", ".name": "123"},
            {".offset": 8, ".size": 4, ".value_kind": "by_value", ".type_name": "yes"},
        ],
        ".reqd_workgroup_size": [64, 1, 1],
        ".x_strings": list(TRICKY_STRINGS),
        ".x_map": {f".s{index}": text for index, text in enumerate(TRICKY_STRINGS)},
        ".x_ints": [0, 1, -1, 127, 128, 255, 256, 65535, 65536, (1 << 64) - 1, -(1 << 63)],
        ".x_bools": [True, False],
        ".x_nil": None,
        ".x_nested": [[1, [2, []]], [{}], {".a": [{".b": {}}]}, []],
        ".x_keys": {"a b": 1, "x;y": 2, "caf\u00e9": 3, "-k": 4, "k: v": 5, "#c": 6},
        ".x_empty_map": {},
        ".x_empty_list": [],
    }
    return {
        "amdhsa.version": [1, 2],
        "amdhsa.target": "amdgcn-amd-amdhsa--gfx90a",
        "amdhsa.printf": ["1:1:4:%d\\n", "2:0:"],
        "amdhsa.kernels": [kernel],
    }


@needs_llvm_mc
def test_tricky_values_keep_their_types(tmp_path: Path) -> None:
    metadata = _metadata()
    source = tmp_path / "m.s"
    lines = [
        '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"',
        "\t.amdhsa_code_object_version 5",
        *metadata_directives(metadata),
    ]
    source.write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [LLVM_MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-filetype=obj", str(source)]
        + ["-o", str(tmp_path / "m.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    read_back = read_code_object(tmp_path / "m.o").metadata
    assert read_back is not None
    assert same_typed(metadata, read_back.raw) is None


def test_strings_that_look_like_other_types_are_tagged() -> None:
    text = "\n".join(metadata_yaml({"k": ["1", "yes", "", "nan", "x", "x y", 1, True, None]}))
    assert text == "\n".join(
        [
            "---",
            "k:",
            '  - !str "1"',
            "  - !str yes",
            '  - !str ""',
            "  - !str nan",
            "  - x",
            '  - "x y"',
            "  - 1",
            "  - true",
            "  - !nil ''",
            "...",
        ]
    )


def test_block_layout_matches_clang() -> None:
    lines = metadata_directives({"amdhsa.version": [1, 2], "amdhsa.kernels": [{".a": 1, ".b": 2}]})
    assert lines == [
        "\t.amdgpu_metadata",
        "---",
        "amdhsa.version:",
        "  - 1",
        "  - 2",
        "amdhsa.kernels:",
        "  - .a: 1",
        "    .b: 2",
        "...",
        "\t.end_amdgpu_metadata",
    ]


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"a": 1.5}, "float"),
        ({"a": b"\x00"}, "binary"),
        ({"a": [1 << 64]}, "64-bit"),
        ({"a": -(1 << 63) - 1}, "64-bit"),
        ({"1": 0}, "key '1'"),
        ({"a": {"true": 0}}, "key 'true'"),
        ({"a": {"": 0}}, "key ''"),
        ({"a": {1.5: 0}}, "not a string"),
        ({"a": object()}, "type object"),
    ],
)
def test_inexpressible_values_are_refused(metadata: dict[str, object], expected: str) -> None:
    with pytest.raises(DirectiveError) as caught:
        metadata_directives(metadata)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_integer_and_bool_keys_are_printed_as_such() -> None:
    assert metadata_yaml({"a": {7: "x", True: "z"}}) == ["---", "a:", "  7: x", "  true: z", "..."]
