"""The real-true16 twins read LLVM's own real-true16 disassembler tests as llvm-mc-19
``-mattr=+real-true16`` does.

LLVM 19's GFX11 VOP1/VOP2 disassembler tests run once with ``+real-true16`` and once without.
Every word of them is decoded here with the lifter's decoder (``real_true16=True``) and
with llvm-mc-19 ``+real-true16``: where the lifter's decoder chose a twin (LLVM 19's default
records refuse the word or misread a VGPR), its text and its encoding must be LLVM's; every
other word keeps the default reading, the one ``luthier-mc`` conformance checks. Each twin
decoded is also assembled back from its text through the IR's parser, to the same bytes.
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc.asm_parser import parse_with_real_true16
from luthier.amdgpu_dialects.mc.decoder import DecodeError, decoder_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.conformance.batching import Mode
from luthier.conformance.corpus import parse_byte_line
from luthier.conformance.harness import disasm_inputs
from luthier.conformance.runner import BatchRunner, ToolCommand

from . import llvm_oracle

TESTS = llvm_oracle.LLVM_SRC / "llvm" / "test" / "MC" / "Disassembler" / "AMDGPU"
FILES = ("gfx11_dasm_vop1.txt", "gfx11_dasm_vop2.txt", "gfx11_dasm_vop1_dpp16.txt",
         "gfx11_dasm_vop1_dpp8.txt")
REAL_TRUE16 = ToolCommand(("llvm-mc-19", "-mattr=+real-true16"))

pytestmark = pytest.mark.skipif(not llvm_oracle.available(),
                                reason="needs llvm-mc-19 and LLVM's tests")


@pytest.mark.parametrize("name", FILES)
def test_twins_decode_llvms_real_true16_tests_as_llvm_does(name: str) -> None:
    words: list[bytes] = []
    for line in (TESTS / name).read_text().splitlines():
        data = parse_byte_line(line)
        if data and data not in words:
            words.append(data)
    inputs = disasm_inputs([(data, name) for data in words], "gfx1100")
    outcomes = BatchRunner(REAL_TRUE16, Mode.DISASSEMBLE, "gfx1100", jobs=1, batch_size=4000,
                           recovery_budget=None).run([i.line for i in inputs])
    decoder = decoder_for("gfx1100", real_true16=True)
    printer, encoder = printer_for("gfx1100"), encoder_for("gfx1100")
    twins = 0
    for data, outcome in zip(words, outcomes, strict=True):
        try:
            inst = decoder.decode(data)
        except DecodeError:
            continue
        if not inst.desc.fake16:
            continue
        twins += 1
        assert len(outcome.instructions) == 1, (data.hex(), outcome)
        llvm = outcome.instructions[0]
        text = printer.print(inst)
        assert " ".join(text.split()) == llvm.text, data.hex()
        assert llvm.encoding is not None
        assert encoder.encode(inst) == bytes(int(b, 16) for b in llvm.encoding)
        parsed = parse_with_real_true16("gfx1100", None, text).inst
        assert parsed.desc.name == inst.desc.name
        assert encoder.encode(parsed) == encoder.encode(inst)
    assert twins >= 10
