"""What llvm-mc-19 prints for random instruction words, assembled again: every line it
takes back, luthier-mc's assembler takes too, with the same bytes and text.

The disassembler's output is the assembly users meet most (listings, lifted code printed
as text), and it reaches operand forms LLVM's assembler tests do not write: this check
found ``s_barrier_signal -2.0`` (GFX12's barrier id takes float inline constants) and
``exp null`` on GFX9 (the export target, not the null register).
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc.asm_parser import parser_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

from . import llvm_oracle

#: Random words per encoding class, and their seed.
COUNT, SEED = 200, 20261128


@pytest.mark.skipif(not llvm_oracle.available(), reason="needs llvm-mc-19 and LLVM sources")
@pytest.mark.parametrize("mcpu", ["gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100",
                                  "gfx1200", "gfx1201"])
def test_llvm_mc_disassembly_assembles_again_alike(mcpu: str) -> None:
    parser, printer, encoder = parser_for(mcpu), printer_for(mcpu), encoder_for(mcpu)
    taken = 0
    differ: list[str] = []
    for line, outcome in llvm_oracle.reassembled(mcpu, COUNT, SEED):
        if len(outcome.instructions) != 1 or outcome.diagnostics:
            continue  # llvm-mc does not take its own output back (about one line in ten)
        expected = outcome.instructions[0]
        assert expected.encoding is not None
        llvm = bytes(int(token, 16) for token in expected.encoding)
        taken += 1
        try:
            inst = parser.parse(line)
            # Whitespace normalized, as the harness reads llvm-mc's lines (both print two
            # spaces after some mnemonics: ``image_sample_l  v[133:134], ...``).
            text, data = " ".join(printer.print(inst).split()), encoder.encode(inst)
        except Exception as error:  # noqa: BLE001 - reported with the line
            differ.append(f"{line}: {error}")
            continue
        if (text, data) != (expected.text, llvm):
            differ.append(f"{line}: {text} {data.hex()} (llvm-mc: {expected.text} {llvm.hex()})")
    assert taken > 500
    assert differ == []
