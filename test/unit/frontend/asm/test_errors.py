"""Rejected input: one ``file:line:col: error: message`` line, the one llvm-mc-19 prints first.

Each case is run through llvm-mc-19 too, and our diagnostic must equal its first error line
(location and message). Where llvm-mc can only report an error without a location (it finds
undefined temporary symbols while writing the object: ``<unknown>:0:``), the message must be
llvm-mc's and our line must point at the statement that used the symbol.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from luthier.frontend.asm import AsmError
from luthier.lowering.elf.relocatable import assemble_relocatable

from .common import llvm_mc_first_error

HEADER = '\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n\t.amdhsa_code_object_version 5\n'
KERNEL = """\t.text
\t.globl k
k:
\ts_endpgm
\t.section .rodata,"a",@progbits
\t.p2align 6
\t.amdhsa_kernel k
{fields}\t.end_amdhsa_kernel
"""
_MINIMUM = "\t\t.amdhsa_next_free_vgpr 4\n\t\t.amdhsa_next_free_sgpr 8\n"


def _kernel(fields: str, accum: bool = True) -> str:
    return KERNEL.format(fields=fields + ("\t\t.amdhsa_accum_offset 4\n" if accum else ""))


#: name -> (target, text after the header).
CASES: dict[str, tuple[str, str]] = {
    "unknown_directive": ("gfx90a", "\t.text\nfoo:\n\t.foo 1\n"),
    "too_few_operands": ("gfx90a", "\t.text\n\ts_add_u32 s0, s1\n"),
    "invalid_instruction": ("gfx942", "\t.text\n\tv_bogus v0, v1\n"),
    "undefined_label": ("gfx90a", "\t.text\nfoo:\n\ts_branch .LBB0_9\n\ts_endpgm\n"),
    "unknown_kernel_field": ("gfx90a", _kernel(_MINIMUM + "\t\t.amdhsa_bogus_field 1\n")),
    "repeated_kernel_field": ("gfx90a", _kernel(_MINIMUM + "\t\t.amdhsa_next_free_vgpr 4\n")),
    "missing_next_free_sgpr": ("gfx90a", _kernel("\t\t.amdhsa_next_free_vgpr 4\n")),
    "missing_accum_offset": ("gfx90a", _kernel(_MINIMUM, accum=False)),
    "accum_offset_out_of_range": (
        "gfx942",
        _kernel(_MINIMUM + "\t\t.amdhsa_accum_offset 6\n", accum=False),
    ),
    "flat_scratch_with_architected_flat_scratch": (
        "gfx942",
        _kernel(_MINIMUM + "\t\t.amdhsa_reserve_flat_scratch 0\n"),
    ),
    "xnack_mask_against_target": (
        "gfx90a",
        _kernel(_MINIMUM + "\t\t.amdhsa_reserve_xnack_mask 0\n"),
    ),
    "kernel_field_out_of_range": (
        "gfx90a",
        _kernel(_MINIMUM + "\t\t.amdhsa_float_round_mode_32 4\n"),
    ),
    "byte_out_of_range": ("gfx90a", "\t.data\n\t.byte 300\n"),
    "kernel_field_needs_gfx10": ("gfx90a", _kernel(_MINIMUM + "\t\t.amdhsa_wavefront_size32 1\n")),
}

#: Cases where llvm-mc reports no location; ours must point at (line, column).
UNLOCATED: dict[str, tuple[str, str, tuple[int, int]]] = {
    "undefined_temporary_in_data": ("gfx90a", "\t.data\n\t.quad .Lnowhere+4\n", (4, 8)),
}

_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.+)$")


def _ours(text: str, name: str) -> str:
    with pytest.raises(AsmError) as caught:
        assemble_relocatable(text, name)
    message = str(caught.value)
    assert "\n" not in message
    assert _LINE.match(message), message
    return message


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_matches_llvm_mc(case: str, tmp_path: Path) -> None:
    target, body = CASES[case]
    text = HEADER.format(target=target) + body
    name = f"{case}.s"
    assert _ours(text, name) == llvm_mc_first_error(text, target, tmp_path, name)


@pytest.mark.parametrize("case", sorted(UNLOCATED))
def test_error_without_llvm_location(case: str, tmp_path: Path) -> None:
    target, body, (line, column) = UNLOCATED[case]
    text = HEADER.format(target=target) + body
    name = f"{case}.s"
    theirs = llvm_mc_first_error(text, target, tmp_path, name)
    ours = _LINE.match(_ours(text, name))
    assert ours is not None
    assert theirs.endswith(": error: " + ours.group("msg"))
    assert (int(ours.group("line")), int(ours.group("col"))) == (line, column)


def test_missing_end_of_block() -> None:
    text = HEADER.format(target="gfx90a") + "\t.rodata\n\t.amdhsa_kernel k\n"
    assert _ours(text, "open.s").endswith("error: expected directive .end_amdhsa_kernel not found")


def test_malformed_metadata_yaml() -> None:
    text = (
        HEADER.format(target="gfx90a")
        + "\t.amdgpu_metadata\n---\namdhsa.version:\n  - 1\n    - 2\n...\n"
        "\t.end_amdgpu_metadata\n"
    )
    message = _ours(text, "yaml.s")
    assert message.startswith("yaml.s:7:")


def test_instruction_before_target() -> None:
    assert _ours("\t.text\n\ts_endpgm\n", "notarget.s").startswith("notarget.s:2:2: error:")
