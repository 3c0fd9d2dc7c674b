"""Scalar memory: ``s_load_dword*`` (and ``s_buffer_load_dword*``) into SGPRs.

The address is the 64-bit base plus the byte offset (an immediate or an SGPR), with its
two low bits ignored, as the scalar cache does. Loads complete at once (``s_waitcnt`` is a
no-op).
"""

from __future__ import annotations

from luthier.emulator.errors import EmulationError
from luthier.emulator.operands import ScalarRead
from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.state import Wave

_DWORDS = {"": 1, "x2": 2, "x3": 3, "x4": 4, "x8": 8, "x16": 16}


def _dwords(mnemonic: str) -> int:
    return _DWORDS[mnemonic.rsplit("dword", 1)[1]]


def _offset_reader(inst: Instruction) -> ScalarRead:
    """The byte offset: the ``offset`` immediate (21-bit signed) plus ``soffset``."""
    immediate = inst.get("offset", 0)
    if isinstance(immediate, str):
        return inst.scalar("offset", 32)
    constant = immediate
    if inst.has("soffset"):
        register = inst.scalar("soffset", 32)
        return lambda wave: register(wave) + constant
    return lambda wave: constant


@semantics(*(f"s_load_dword{suffix}" for suffix in _DWORDS))
def _load(inst: Instruction) -> Step:
    dwords = _dwords(inst.mnemonic)
    base = inst.scalar("sbase", 64)
    offset = _offset_reader(inst)
    index, _ = inst.sdst()
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        address = (base(wave) + offset(wave)) & ~3 & 0xFFFFFFFFFFFFFFFF
        try:
            data = wave.memory.read(address, 4 * dwords, "scalar load")
        except EmulationError as error:
            raise EmulationError(f"{where}: {error}") from None
        for k in range(dwords):
            wave.s[index + k] = int.from_bytes(data[4 * k:4 * k + 4], "little")
        return following

    return step


@semantics(*(f"s_buffer_load_dword{suffix}" for suffix in _DWORDS))
def _buffer_load(inst: Instruction) -> Step:
    dwords = _dwords(inst.mnemonic)
    resource = inst.scalar("sbase", 64)
    offset = _offset_reader(inst)
    index, _ = inst.sdst()
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        base = resource(wave) & 0xFFFFFFFFFFFF
        address = (base + offset(wave)) & ~3
        try:
            data = wave.memory.read(address, 4 * dwords, "scalar buffer load")
        except EmulationError as error:
            raise EmulationError(f"{where}: {error}") from None
        for k in range(dwords):
            wave.s[index + k] = int.from_bytes(data[4 * k:4 * k + 4], "little")
        return following

    return step
