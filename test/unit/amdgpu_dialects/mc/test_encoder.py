"""The encoder: LLVM's canonical re-encoding of decoded words, and hand-checked examples."""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for, literal_encoding

from . import llvm_oracle

TARGETS = ("gfx90a", "gfx942")


@pytest.mark.skipif(not llvm_oracle.available(), reason="needs llvm-mc-19 and LLVM sources")
@pytest.mark.parametrize("mcpu", TARGETS)
def test_reencodes_disassembler_corpus(mcpu: str) -> None:
    """Where llvm-mc re-encodes a decoded word to its own bytes, we must produce them too."""
    decoder, encoder = decoder_for(mcpu), encoder_for(mcpu)
    checked = 0
    failures: list[str] = []
    for data, outcome in llvm_oracle.disassembled(mcpu):
        if len(outcome.instructions) != 1 or outcome.instructions[0].encoding is None:
            continue
        llvm = bytes(int(byte, 16) for byte in outcome.instructions[0].encoding)
        if data[: len(llvm)] != llvm:
            continue
        checked += 1
        ours = encoder.encode(decoder.decode(data))
        if ours != llvm:
            failures.append(f"{data.hex()}: ours {ours.hex()}")
    assert checked > 50000
    assert failures == []


@pytest.mark.parametrize(("hex_bytes", "canonical"), [
    ("010080bf", "010080bf"),                          # s_nop 1
    ("ff0200 7e01000000", "8102007e"),                 # literal 1 re-encodes inline
    ("f0040a4c", "ff040a4c00380000"),                  # 0x3800 on an int16 operand
    ("0000 01d1 0101 0000", "000001d101010000"),       # v_add_f32_e64 v0, v1, s0
    ("108051dc02007f01", "108051dc02007f01"),          # global_load_dword
    ("1000 1ad8 0102 0000", "10001ad801020000"),       # ds_write_b32 offset:16
    ("020006c010000000", "020006c010000000"),          # s_load_dwordx2
    ("0040b0d302091a1c", "0040b0d302091a1c"),          # v_pk_fma_f32 (op_sel_hi)
    ("f902027e02150000", "f902027e02150000"),          # v_mov_b32_sdwa
    ("fa02027e02b1001f", "fa02027e02b1001f"),          # v_mov_b32_dpp
])
def test_hand_checked(hex_bytes: str, canonical: str) -> None:
    data = bytes.fromhex(hex_bytes.replace(" ", ""))
    inst = decoder_for("gfx90a").decode(data)
    assert encoder_for("gfx90a").encode(inst).hex() == canonical


def test_literal_encoding_by_operand_type() -> None:
    assert literal_encoding(-1, "OPERAND_REG_IMM_INT32") == 193
    assert literal_encoding(0x3F800000, "OPERAND_REG_IMM_FP32") == 242
    assert literal_encoding(0x3C00, "OPERAND_REG_IMM_FP16") == 242
    assert literal_encoding(0x3C00, "OPERAND_REG_IMM_INT16") == 255
    assert literal_encoding(0x3FF0000000000000, "OPERAND_REG_IMM_FP64") == 242
    assert literal_encoding(0x12345, "OPERAND_REG_IMM_INT32") == 255
    assert literal_encoding(1, "OPERAND_IMMEDIATE") is None
