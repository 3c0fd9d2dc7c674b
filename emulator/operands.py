"""Operand accessors, made once per instruction when the program is compiled.

An instruction's operands are fixed, so instead of decoding ``s[4:5]`` or ``0x3f000000``
every time the instruction runs, each operand slot becomes a small closure: a scalar reader
returning a Python int, a vector reader returning a NumPy lane vector, or a register
location to write. Handlers of the instruction families build their step from these.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from luthier.amdgpu_dialects.amdgpu_mc.registers import vgpr_half
from luthier.emulator.errors import EmulationError
from luthier.emulator.memory import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from luthier.emulator.state import EXEC, FLAT_SCRATCH, M0, NULL, TTMP, VCC, XNACK_MASK, Vec, Wave

ScalarRead = Callable[[Wave], int]
VectorRead = Callable[[Wave], Vec]

_TUPLE = re.compile(r"(s|v|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])")

#: Special registers that are SGPR-file storage: name -> (index, dwords).
_SPECIAL: dict[str, tuple[int, int]] = {
    "vcc": (VCC, 2), "vcc_lo": (VCC, 1), "vcc_hi": (VCC + 1, 1),
    "exec": (EXEC, 2), "exec_lo": (EXEC, 1), "exec_hi": (EXEC + 1, 1),
    "flat_scratch": (FLAT_SCRATCH, 2), "flat_scratch_lo": (FLAT_SCRATCH, 1),
    "flat_scratch_hi": (FLAT_SCRATCH + 1, 1),
    "xnack_mask": (XNACK_MASK, 2), "xnack_mask_lo": (XNACK_MASK, 1),
    "xnack_mask_hi": (XNACK_MASK + 1, 1),
    "m0": (M0, 1), "null": (NULL, 1),
}

#: Registers that read as values (not storage), 32-bit view.
_APERTURES = {
    "src_shared_base": SHARED_APERTURE_HI, "src_shared_limit": SHARED_APERTURE_HI,
    "src_private_base": PRIVATE_APERTURE_HI, "src_private_limit": PRIVATE_APERTURE_HI,
}


def register(name: str) -> tuple[str, int, int]:
    """``("s", 4, 2)`` for ``s[4:5]``, ``("v", 0, 1)`` for ``v0``; special SGPR-file
    registers come back as ``("s", index, dwords)``; value registers as ``(name, 0, 0)``."""
    special = _SPECIAL.get(name)
    if special is not None:
        return "s", special[0], special[1]
    if vgpr_half(name) is not None:
        raise EmulationError(f"register {name}: 16-bit VGPR halves (true16 operands) are "
                             "not modelled by the emulator")
    match = _TUPLE.fullmatch(name)
    if match is None:
        return name, 0, 0
    prefix, single, first, last = match.groups()
    start = int(single) if single is not None else int(first)
    dwords = 1 if single is not None else int(last) - int(first) + 1
    if prefix == "ttmp":
        return "s", TTMP + start, dwords
    return prefix, start, dwords


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def scalar_reader(value: object, bits: int) -> ScalarRead:
    """A reader of a scalar source operand (SGPR, special register, immediate)."""
    if isinstance(value, int):
        constant = value & _mask(bits)
        return lambda wave: constant
    if not isinstance(value, str):
        raise EmulationError(f"operand {value!r} cannot be read")
    file, index, dwords = register(value)
    if file == "s":
        if index == NULL:
            return lambda wave: 0
        if dwords == 1 and bits == 64:
            # A 32-bit register in a 64-bit slot is not encodable; read what is named.
            return lambda wave: wave.s[index]
        if bits <= 32 or dwords == 1:
            return lambda wave: wave.s[index]
        if index == EXEC:
            return lambda wave: wave.exec_bits
        if dwords > 2 and bits > 64:
            count = min(dwords, bits // 32)
            return lambda wave: wave.read_s(index, count)
        return lambda wave: wave.s[index] | (wave.s[index + 1] << 32)
    if file == "src_scc":
        return lambda wave: wave.scc
    if file == "src_vccz":
        return lambda wave: int(wave.vcc_bits == 0)
    if file == "src_execz":
        return lambda wave: int(wave.exec_bits == 0)
    if file in _APERTURES:
        high = _APERTURES[file]
        constant = high << 32 if bits == 64 else high
        return lambda wave: constant
    raise EmulationError(f"register {value} cannot be read as a scalar")


def scalar_target(value: object) -> tuple[int, int]:
    """(SGPR-file index, dwords) of a scalar destination."""
    if not isinstance(value, str):
        raise EmulationError(f"operand {value!r} is not a scalar register")
    file, index, dwords = register(value)
    if file != "s":
        raise EmulationError(f"register {value} is not a scalar register")
    return index, dwords


def vector_reader(value: object, bits: int) -> VectorRead:
    """A reader of a VALU source operand as a lane vector (uint32, or uint64 when 64-bit).

    Uniform operands (SGPRs, constants) come back as 0-d arrays, which broadcast. A 16-bit
    half of a VGPR (a real-true16 source, ``v0.h``) reads as its 16 bits, zero-extended."""
    if isinstance(value, str):
        if vgpr_half(value) is not None:
            return half_reader(value)
        file, index, _ = register(value)
        if file in ("v", "a"):
            if bits == 64:
                def read64(wave: Wave) -> Vec:
                    registers = wave.v if file == "v" else wave.a
                    return registers[index].astype(np.uint64) | (
                        registers[index + 1].astype(np.uint64) << np.uint64(32))
                return read64
            if file == "v":
                return lambda wave: wave.v[index]
            return lambda wave: wave.a[index]
    dtype = np.uint64 if bits == 64 else np.uint32
    if isinstance(value, int):
        constant = np.array(value & _mask(bits), dtype)
        return lambda wave: constant
    scalar = scalar_reader(value, bits)
    return lambda wave: np.array(scalar(wave), dtype)


def half_reader(value: object) -> VectorRead:
    """A reader of a 16-bit source (uint32 lanes holding the 16 bits): a VGPR half as true16
    operands name it (``v25.h``), else the low 16 bits of what :func:`vector_reader` reads."""
    half = vgpr_half(value) if isinstance(value, str) else None
    if half is None:
        read = vector_reader(value, 32)
        return lambda wave: np.asarray(read(wave), np.uint32) & np.uint32(0xFFFF)
    index, high = half
    shift = np.uint32(16 if high else 0)
    return lambda wave: (wave.v[index] >> shift) & np.uint32(0xFFFF)


def half_target(value: object) -> tuple[int, bool]:
    """(VGPR, whether the high half) of a 16-bit destination naming a half (``v25.h``)."""
    half = vgpr_half(value) if isinstance(value, str) else None
    if half is None:
        raise EmulationError(f"operand {value!r} is not a 16-bit VGPR half")
    return half


def vector_target(value: object) -> tuple[str, int, int]:
    """(file ``v``/``a``, index, dwords) of a vector destination."""
    if not isinstance(value, str):
        raise EmulationError(f"operand {value!r} is not a vector register")
    file, index, count = register(value)
    if file not in ("v", "a"):
        raise EmulationError(f"register {value} is not a vector register")
    return file, index, count
