"""The relocation table's assembler spellings (``amdgpu_dialects/mc/relocations.py``), checked
with llvm-mc-19: every spelling the emitter writes and the lifter prints assembles, in llvm-mc
and in our assembler, to the relocation kind the table says, and the reader names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS32,
    RELOCATION_KINDS,
    RelocationKind,
    data_expression,
    literal_relocation,
    literal_variant,
)
from luthier.frontend.asm import AsmError
from luthier.frontend.codeobj import read_elf
from luthier.lowering.elf.relocatable import assemble_relocatable

from .common import assert_same_object, llvm_mc_first_error, llvm_mc_object

DATA_KINDS = [kind for kind in RELOCATION_KINDS if data_expression(kind, "ext") is not None]
#: A plain symbol in a literal is PC-relative to LLVM, so R_AMDGPU_ABS32 has no literal form
#: of its own: the lifter prints it plain, which assembles to R_AMDGPU_REL32.
LITERAL_KINDS = [
    kind
    for kind in RELOCATION_KINDS
    if literal_variant(kind) is not None and kind is not R_AMDGPU_ABS32
]


def _relocation_types(data: bytes) -> list[str]:
    return [r.type_name for r in read_elf(data, "test.o").relocations]


@pytest.mark.parametrize("kind", DATA_KINDS, ids=[k.name for k in DATA_KINDS])
def test_data_expression(kind: RelocationKind, tmp_path: Path) -> None:
    """``.long``/``.quad`` of :func:`data_expression` makes exactly ``kind``."""
    directive = ".quad" if kind.size == 8 else ".long"
    text = f"\t.data\n\t{directive}\t{data_expression(kind, 'ext')}\n"
    reference = llvm_mc_object(text, "gfx90a", tmp_path)
    assert _relocation_types(reference) == [kind.name]
    assert_same_object(assemble_relocatable(text, "input.s", "gfx90a"), reference)


@pytest.mark.parametrize("kind", LITERAL_KINDS, ids=[k.name for k in LITERAL_KINDS])
def test_literal_variant(kind: RelocationKind, tmp_path: Path) -> None:
    """A 32-bit literal spelled with :func:`literal_variant` makes exactly ``kind``, and
    :func:`literal_relocation` (what the emitter encodes) maps the spelling back to it."""
    variant = literal_variant(kind)
    assert variant is not None
    assert literal_relocation(variant.removeprefix("@"), kind.pc_relative) is kind
    text = f"\t.text\n\ts_mov_b32 s0, ext{variant}\n"
    reference = llvm_mc_object(text, "gfx90a", tmp_path)
    assert _relocation_types(reference) == [kind.name]
    assert_same_object(assemble_relocatable(text, "input.s", "gfx90a"), reference)


@pytest.mark.parametrize("statement", ["s_mov_b32 s0, ext@abs32", ".long ext@abs32"])
def test_variant_outside_the_table(statement: str, tmp_path: Path) -> None:
    """A variant the table does not have is refused with llvm-mc's message (llvm-mc points
    at the variant, we at the statement)."""
    text = f"\t.text\n\t{statement}\n"
    theirs = llvm_mc_first_error(text, "gfx90a", tmp_path, "input.s")
    with pytest.raises(AsmError) as caught:
        assemble_relocatable(text, "input.s", "gfx90a")
    assert str(caught.value).split(": error: ")[1] == theirs.split(": error: ")[1]
