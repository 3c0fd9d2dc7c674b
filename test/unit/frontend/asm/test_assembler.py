"""The corpus assembly (clang-19 -S output) assembled by us against llvm-mc-19's objects.

For each committed ``T.G.s``: ``assemble_relocatable`` must give the committed ``T.G.mc.o``
(llvm-mc-19's object of the same file): every section's contents and relocations, every symbol
and the ELF bytes. Then the whole product path, assemble -> lift -> emit a loadable code object,
must give the committed ``T.G.co`` that clang linked from the same source.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from luthier.frontend.asm import AsmError, assemble
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift.lifter import LiftOptions, lift_code_object
from luthier.lowering.elf import write_relocatable
from luthier.lowering.elf.relocatable import assemble_relocatable
from luthier.lowering.emit import emit_code_object

from .common import CORPUS, assert_same_object

SOURCES = sorted(CORPUS.glob("*.s"))


def test_the_corpus_has_assembly() -> None:
    assert len(SOURCES) >= 3


@pytest.mark.parametrize("source", SOURCES, ids=[p.name for p in SOURCES])
def test_object_equals_llvm_mc(source: Path) -> None:
    reference = source.with_suffix(".mc.o").read_bytes()
    ours = assemble_relocatable(source.read_text(), source.name)
    assert_same_object(ours, reference)


@pytest.mark.parametrize("source", SOURCES, ids=[p.name for p in SOURCES])
def test_spec_and_bytes_agree(source: Path) -> None:
    """``assemble_relocatable`` is ``write_relocatable(assemble(...))``: one object model."""
    text = source.read_text()
    assert write_relocatable(assemble(text, source.name)) == assemble_relocatable(text, source.name)


@pytest.mark.parametrize("source", SOURCES, ids=[p.name for p in SOURCES])
def test_lifted_and_emitted_equals_clang_code_object(source: Path) -> None:
    ours = assemble_relocatable(source.read_text(), source.name)
    lifted = lift_code_object(read_code_object(ours, name=source.name), LiftOptions())
    emitted = emit_code_object(lifted.module)
    assert emitted == (CORPUS / (source.name.removesuffix(".s") + ".co")).read_bytes()


def test_target_option_must_match_the_directive() -> None:
    source = SOURCES[0]
    processor = source.name.split(".")[1]
    text = source.read_text()
    assert (
        assemble(text, source.name, target=processor).e_flags == assemble(text, source.name).e_flags
    )
    other = "gfx90a" if processor != "gfx90a" else "gfx942"
    with pytest.raises(AsmError, match="target must match options"):
        assemble(text, source.name, target=other)
