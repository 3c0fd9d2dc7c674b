"""How a shared link resolves each AMDGPU relocation (formulas from the AMDGPU ELF ABI).

``S`` is the symbol's address, ``A`` the addend, ``P`` the address patched, ``G + GOT`` the
address of the symbol's ``.got`` entry. The ``_LO``/``_HI`` pairs split a 64-bit value over two
32-bit literals (``s_add_u32``/``s_addc_u32`` after ``s_getpc_b64``), so they need no range
check; the single 32- and 16-bit forms must fit, and we check them, because a silently
truncated offset would make a kernel read the wrong memory.
"""

from __future__ import annotations

import struct

from luthier.amdgpu_dialects.mc.relocations import (
    R_AMDGPU_ABS32,
    R_AMDGPU_ABS32_HI,
    R_AMDGPU_ABS32_LO,
    R_AMDGPU_ABS64,
    R_AMDGPU_GOTPCREL,
    R_AMDGPU_GOTPCREL32_HI,
    R_AMDGPU_GOTPCREL32_LO,
    R_AMDGPU_REL16,
    R_AMDGPU_REL32,
    R_AMDGPU_REL32_HI,
    R_AMDGPU_REL32_LO,
    R_AMDGPU_REL64,
    R_AMDGPU_RELATIVE64,
    relocation_kind,
)
from luthier.frontend.codeobj.spec import ElfWriteError

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1


def _fits(value: int, bits: int) -> bool:
    """``value`` is representable in ``bits`` bits, signed or unsigned."""
    return -(1 << (bits - 1)) <= value < 1 << bits


def _signed_fits(value: int, bits: int) -> bool:
    return -(1 << (bits - 1)) <= value < 1 << (bits - 1)


def relocation_value(
    r_type: int, s: int, a: int, p: int, got_entry: int, where: object
) -> tuple[int, int]:
    """``(value, width)`` to store for a statically resolved relocation (``width`` is the
    kind's field size). ``where`` names the relocation in messages (anything whose ``str``
    does, such as a placed relocation's ``where``)."""
    kind = relocation_kind(r_type)
    if kind is None:
        raise ElfWriteError(f"{where}: unsupported relocation type {r_type}")
    name = kind.name
    if kind is R_AMDGPU_ABS64 or kind is R_AMDGPU_RELATIVE64:
        return (s + a) & _M64, kind.size
    if kind is R_AMDGPU_ABS32_LO:
        return (s + a) & _M32, kind.size
    if kind is R_AMDGPU_ABS32_HI:
        return ((s + a) >> 32) & _M32, kind.size
    if kind is R_AMDGPU_ABS32:
        if not _fits(s + a, 32):
            raise ElfWriteError(f"{where}: {name} value {s + a:#x} does not fit 32 bits")
        return (s + a) & _M32, kind.size
    if kind is R_AMDGPU_REL64:
        return (s + a - p) & _M64, kind.size
    if kind is R_AMDGPU_REL32_LO:
        return (s + a - p) & _M32, kind.size
    if kind is R_AMDGPU_REL32_HI:
        return ((s + a - p) >> 32) & _M32, kind.size
    if kind is R_AMDGPU_REL32:
        if not _signed_fits(s + a - p, 32):
            raise ElfWriteError(f"{where}: {name} offset {s + a - p:#x} is out of 32-bit range")
        return (s + a - p) & _M32, kind.size
    if kind is R_AMDGPU_GOTPCREL32_LO:
        return (got_entry + a - p) & _M32, kind.size
    if kind is R_AMDGPU_GOTPCREL32_HI:
        return ((got_entry + a - p) >> 32) & _M32, kind.size
    if kind is R_AMDGPU_GOTPCREL:
        if not _signed_fits(got_entry + a - p, 32):
            raise ElfWriteError(f"{where}: {name} offset is out of 32-bit range")
        return (got_entry + a - p) & _M32, kind.size
    if kind is R_AMDGPU_REL16:
        distance = s + a - p - 4
        words = distance // 4 if distance >= 0 else -(-distance // 4)  # rounds toward zero
        if not _signed_fits(words, 16):
            raise ElfWriteError(f"{where}: {name} branch offset {words} is out of 16-bit range")
        return words & 0xFFFF, kind.size
    raise ElfWriteError(f"{where}: unsupported relocation type {name}")


def patch(data: bytearray, offset: int, value: int, width: int) -> None:
    """Store ``value`` little-endian over ``width`` bytes at ``offset``."""
    if width == 8:
        struct.pack_into("<Q", data, offset, value)
    elif width == 4:
        struct.pack_into("<I", data, offset, value)
    elif width == 2:
        struct.pack_into("<H", data, offset, value)
