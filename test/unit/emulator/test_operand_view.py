"""The emulator's view of every operand is the decoder's, and the decoder's immediates mean
what the ISA says their fields mean.

For every decodable instruction definition of every supported target, random encodings are
decoded, lifted into ops the way the lifter builds them, and read back through the
emulator's :func:`~luthier.emulator.program.operand_value`: each slot must hold the
decoder's value (a true16 operand, ``v25.h``, included). Memory offsets are then checked
against the field layout of the ISA manuals (written out here, not taken from our tables):
on GFX9 and GFX11 a global or scratch offset is the sign-extended 13-bit field, a FLAT one
the 13-bit field unsigned (of which the access uses 12 bits); GFX10's fields are 12 bits,
GFX12's a 24-bit IOFFSET in the third dword (signed, unsigned for buffers). SMEM's is the
signed 21-bit field (24 bits on GFX12), DS's 8- or 16-bit unsigned fields, MUBUF's 12 bits
unsigned. An emulator that read ``offset:-28`` as 8164 (the unsigned field) put every such
access 8 KiB too far.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.operands import operand_attribute
from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS, InstrDef, load_target
from luthier.amdgpu_dialects.mc.asm_parser import parser_for
from luthier.amdgpu_dialects.mc.decoder import DecodeError, MCInst, decoder_for
from luthier.amdgpu_dialects.mc.operand_decoders import Literal
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.emulator.dispatch import Workgroup
from luthier.emulator.memory import LocalMemory
from luthier.emulator.program import operand_value
from luthier.emulator.semantics.vmem import global_address
from luthier.emulator.state import Wave

from .asm import assemble

#: Random encodings tried per instruction definition.
_TRIES = 6


def _sign_extend(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _isa_offsets(inst: InstrDef, word: int, major: int) -> dict[str, int]:
    """The immediate offsets the ISA manuals define for an encoding, by operand name (GFX9:
    Vega, MI100, MI200, MI300; GFX10-12: RDNA2, RDNA3, RDNA4); empty for encodings without
    one. The FLAT segment's offset is the field as LLVM decodes and prints it: the hardware
    ignores its top bit (test_flat_segment_offset_ignores_the_top_bit)."""
    classes = inst.classes
    dword0, dword1, dword2 = word & 0xFFFFFFFF, word >> 32 & 0xFFFFFFFF, word >> 64
    if classes & {"FlatGlobal", "FlatScratch", "FLAT"}:
        if major >= 12:  # VFLAT/VGLOBAL/VSCRATCH: IOFFSET[95:72], 24 bits signed
            return {"offset": _sign_extend(dword2 >> 8, 24)}
        bits = 12 if major == 10 else 13  # OFFSET[11:0] on RDNA2, [12:0] otherwise
        if "FLAT" in classes and not classes & {"FlatGlobal", "FlatScratch"}:
            return {"offset": dword0 & ((1 << bits) - 1)}
        return {"offset": _sign_extend(dword0, bits)}
    if "SMRD" in classes:
        if major >= 12:  # IOFFSET[55:32], 24 bits signed
            return {"offset": _sign_extend(dword1, 24)}
        if major >= 10 or dword0 >> 17 & 1:  # GFX9: only with IMM; OFFSET[52:32] signed
            return {"offset": _sign_extend(dword1, 21)}
        return {}
    if "DS" in classes:
        return {"offset0": dword0 & 0xFF, "offset1": dword0 >> 8 & 0xFF,
                "offset": dword0 & 0xFFFF}
    if classes & {"MUBUF", "MTBUF"}:
        if major >= 12:  # VBUFFER: IOFFSET[95:72], 24 bits unsigned
            return {"offset": dword2 >> 8 & 0xFFFFFF}
        return {"offset": dword0 & 0xFFF}
    return {}


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, Literal) else value


def _decoded(target: str) -> list[tuple[MCInst, int]]:
    """(decoded instruction, encoding word) for random encodings of every definition."""
    isa = load_target(target)
    decoder = decoder_for(target)
    rng = random.Random(f"operand-view-{target}")
    found: list[tuple[MCInst, int]] = []
    for inst in isa.instructions:
        if not inst.decodable:
            continue
        bits = 8 * inst.size
        for _ in range(_TRIES):
            word = (rng.getrandbits(bits) & ~inst.mask) | inst.value
            data = word.to_bytes(inst.size, "little") + rng.getrandbits(32).to_bytes(4, "little")
            try:
                mc = decoder.decode(data)
            except DecodeError:
                continue
            found.append((mc, int.from_bytes(data[:mc.desc.size], "little")))
    return found


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
def test_emulator_reads_every_operand_as_the_decoder_gives_it(target: str) -> None:
    decoded = _decoded(target)
    definitions = {mc.desc.name for mc, _ in decoded}
    assert len(definitions) > 0.9 * sum(1 for i in load_target(target).instructions
                                        if i.decodable)
    major = subtarget_for(target).major
    mismatches: list[str] = []
    checked_offsets = 0
    for mc, word in decoded:
        where = f"{mc.desc.name} {mc.encoding.hex()}"
        view = {slot.name: operand_value(operand_attribute(value), where)
                for slot, value in zip(mc.desc.operands, mc.operands, strict=True)}
        expected = {slot.name: _plain(value)
                    for slot, value in zip(mc.desc.operands, mc.operands, strict=True)}
        if view != expected:
            mismatches.append(f"{where}: emulator {view}, decoder {expected}")
        for name, value in _isa_offsets(mc.desc, word, major).items():
            if name in view and isinstance(view[name], int):
                checked_offsets += 1
                if view[name] != value:
                    mismatches.append(f"{where}: {name} is {view[name]}, the ISA field "
                                      f"means {value}")
    assert not mismatches, "\n".join(mismatches[:20])
    assert checked_offsets > 1000


def test_a_negative_global_offset_is_negative_in_every_view() -> None:
    """``global_load_dword v8, v[6:7], off offset:-28`` decoded, parsed, printed: -28."""
    mc = decoder_for("gfx90a").decode(bytes.fromhex("e49f50dc06007f08"))
    assert mc.operand("offset") == -28
    parsed = parser_for("gfx90a").parse("global_load_dword v8, v[6:7], off offset:-28")
    assert parsed.operand("offset") == -28
    assert printer_for("gfx90a").print(mc).endswith("offset:-28")


def test_flat_segment_offset_ignores_the_top_bit() -> None:
    """A FLAT-segment offset is 12 bits unsigned: the access adds the decoded field without
    its top bit (the parser refuses such a field, a decoder gives it), while a global
    access's offset is signed."""
    program = assemble("flat_load_ubyte v0, v[2:3] offset:4\n"
                       "global_load_ubyte v0, v[2:3], off offset:-4092")
    flat, global_ = program.instructions[0], program.instructions[1]
    flat.operands["offset"] = 0x1004  # as decoded from a field with its top bit set
    wave = Wave(64, Workgroup((0, 0, 0), LocalMemory(0, "LDS")))
    base = 0x7000_0000_2000
    wave.v[2][:] = base & 0xFFFFFFFF
    wave.v[3][:] = base >> 32
    assert int(global_address(flat)(wave)[0]) == base + 4
    assert int(global_address(global_)(wave)[0]) == base - 4092
