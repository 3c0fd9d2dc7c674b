"""Register units: the 32-bit pieces liveness and allocation reason about, as bits of an int.

A register operand names one or more units: ``s[4:7]`` is four, ``vcc`` is ``vcc_lo`` and
``vcc_hi``, ``v3`` is one. Every set of registers is a Python int with one bit per unit, so
union, difference and the "is anything live" test are single machine-word-speed operations
on a few hundred bits, which is what makes liveness over tens of thousands of instructions
cheap. The layout is the same for every GFX9 target (gfx908, gfx90a, gfx942): 106 SGPRs,
16 trap temporaries, the special registers, 256 VGPRs and 256 AGPRs.

Registers that read as values rather than storage (``src_shared_base``, ``null``...) have no
units; ``src_vccz``, ``src_execz`` and ``src_scc`` read VCC, EXEC and SCC, so they use those.
The 16-bit halves of a VGPR are not separate units: a write of one half is a partial write
(read-modify-write of the whole unit), which keeps liveness sound at 32-bit granularity.
"""

from __future__ import annotations

from collections.abc import Iterable

from luthier.amdgpu_dialects.amdgpu_mc.registers import register_units

SGPR_COUNT = 106
TTMP_COUNT = 16
VGPR_COUNT = 256
AGPR_COUNT = 256

#: Special 32-bit units, in bit order after the SGPRs and TTMPs.
SPECIAL_UNITS = (
    "vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "scc", "m0", "flat_scratch_lo",
    "flat_scratch_hi", "xnack_mask_lo", "xnack_mask_hi", "tba_lo", "tba_hi", "tma_lo",
    "tma_hi", "mode",
)

SGPR_BASE = 0
TTMP_BASE = SGPR_BASE + SGPR_COUNT
SPECIAL_BASE = TTMP_BASE + TTMP_COUNT
VGPR_BASE = SPECIAL_BASE + len(SPECIAL_UNITS)
AGPR_BASE = VGPR_BASE + VGPR_COUNT
UNIT_COUNT = AGPR_BASE + AGPR_COUNT

_SPECIAL_BIT = {name: SPECIAL_BASE + index for index, name in enumerate(SPECIAL_UNITS)}

#: 64-bit special registers and the registers that read another register's state.
_SPECIAL_ALIASES: dict[str, tuple[str, ...]] = {
    "vcc": ("vcc_lo", "vcc_hi"),
    "exec": ("exec_lo", "exec_hi"),
    "flat_scratch": ("flat_scratch_lo", "flat_scratch_hi"),
    "xnack_mask": ("xnack_mask_lo", "xnack_mask_hi"),
    "tba": ("tba_lo", "tba_hi"),
    "tma": ("tma_lo", "tma_hi"),
    "src_vccz": ("vcc_lo", "vcc_hi"),
    "src_execz": ("exec_lo", "exec_hi"),
    "src_scc": ("scc",),
}

#: Implicit registers as the ISA tables name them (TableGen's Defs/Uses).
IMPLICIT_REGISTERS: dict[str, str] = {
    "EXEC": "exec", "VCC": "vcc", "SCC": "scc", "M0": "m0", "MODE": "mode",
    "FLAT_SCR": "flat_scratch", "EXEC_LO": "exec_lo", "VCC_LO": "vcc_lo",
}

#: Value-like registers without storage.
NO_UNITS = frozenset({
    "src_shared_base", "src_shared_limit", "src_private_base", "src_private_limit",
    "src_pops_exiting_wave_id", "src_lds_direct", "null", "lds_direct",
})

_FILE_BASE = {"s": (SGPR_BASE, SGPR_COUNT), "ttmp": (TTMP_BASE, TTMP_COUNT),
              "v": (VGPR_BASE, VGPR_COUNT), "a": (AGPR_BASE, AGPR_COUNT)}

_mask_cache: dict[str, int] = {}

EXEC_MASK = (1 << _SPECIAL_BIT["exec_lo"]) | (1 << _SPECIAL_BIT["exec_hi"])
SCC_MASK = 1 << _SPECIAL_BIT["scc"]
VGPR_MASK = ((1 << VGPR_COUNT) - 1) << VGPR_BASE
AGPR_MASK = ((1 << AGPR_COUNT) - 1) << AGPR_BASE
VECTOR_MASK = VGPR_MASK | AGPR_MASK
SGPR_MASK = ((1 << SGPR_COUNT) - 1) << SGPR_BASE
ALL_UNITS = (1 << UNIT_COUNT) - 1


class UnknownRegisterError(ValueError):
    """A register name this model has no units for (a bug to fix, never to ignore)."""


def units_of(name: str) -> int:
    """The unit mask of a register name in LLVM syntax (``s[4:5]``, ``vcc``, ``a7``)."""
    mask = _mask_cache.get(name)
    if mask is not None:
        return mask
    tuple_ = register_units(name)
    if tuple_ is not None:
        prefix, start, count = tuple_
        base, limit = _FILE_BASE[prefix]
        if start + count > limit or count <= 0:
            raise UnknownRegisterError(f"register {name} is outside its register file")
        mask = ((1 << count) - 1) << (base + start)
    elif name in _SPECIAL_BIT:
        mask = 1 << _SPECIAL_BIT[name]
    elif name in _SPECIAL_ALIASES:
        mask = 0
        for part in _SPECIAL_ALIASES[name]:
            mask |= 1 << _SPECIAL_BIT[part]
    elif name in NO_UNITS:
        mask = 0
    else:
        raise UnknownRegisterError(f"no register units for '{name}'")
    _mask_cache[name] = mask
    return mask


def mask_of(names: Iterable[str]) -> int:
    mask = 0
    for name in names:
        mask |= units_of(name)
    return mask


def file_range(prefix: str, start: int, count: int) -> int:
    """The mask of ``count`` registers of file ``prefix`` (``s``, ``v``, ``a``) from ``start``."""
    base, limit = _FILE_BASE[prefix]
    count = max(0, min(count, limit - start))
    return ((1 << count) - 1) << (base + start)


def _runs(mask: int, base: int, count: int) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    bits = (mask >> base) & ((1 << count) - 1)
    index = 0
    while bits:
        if bits & 1:
            start = index
            while bits & 1:
                bits >>= 1
                index += 1
            runs.append((start, index - start))
        else:
            skip = (bits & -bits).bit_length() - 1
            bits >>= skip
            index += skip
    return runs


def unit_bits(mask: int) -> list[int]:
    """The bit positions (unit numbers) set in ``mask``, lowest first."""
    bits: list[int] = []
    while mask:
        low = mask & -mask
        bits.append(low.bit_length() - 1)
        mask ^= low
    return bits


def unit_names(mask: int) -> list[str]:
    """One name per unit, in bit order (``s4``, ``s5``, ``exec_lo``...)."""
    names: list[str] = []
    for prefix, (base, count) in _FILE_BASE.items():
        for start, length in _runs(mask, base, count):
            names.extend(f"{prefix}{start + offset}" for offset in range(length))
    names.extend(name for name, bit in _SPECIAL_BIT.items() if mask >> bit & 1)
    return names


def format_units(mask: int) -> str:
    """A compact, stable spelling of a unit set: ``s[0:3] s6 v[0:1] exec vcc_lo scc``.

    Runs of a register file print as ranges (which are not necessarily aligned tuples:
    this is a set, not an operand); a special pair whose halves are both present prints
    as the 64-bit name.
    """
    parts: list[str] = []
    for prefix in ("s", "ttmp", "v", "a"):
        base, count = _FILE_BASE[prefix]
        for start, length in _runs(mask, base, count):
            parts.append(f"{prefix}{start}" if length == 1
                         else f"{prefix}[{start}:{start + length - 1}]")
    seen: set[str] = set()
    for pair in ("vcc", "exec", "flat_scratch", "xnack_mask", "tba", "tma"):
        low, high = _SPECIAL_ALIASES[pair]
        bits = (mask >> _SPECIAL_BIT[low] & 1, mask >> _SPECIAL_BIT[high] & 1)
        if bits == (1, 1):
            parts.append(pair)
        elif bits[0]:
            parts.append(low)
        elif bits[1]:
            parts.append(high)
        seen.update((low, high))
    parts.extend(name for name in SPECIAL_UNITS
                 if name not in seen and mask >> _SPECIAL_BIT[name] & 1)
    return " ".join(parts)


def count_units(mask: int) -> int:
    return mask.bit_count()
