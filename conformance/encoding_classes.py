"""GFX9 (GCN3/Vega/CDNA) encoding classes, recognized by the fixed high bits of the first dword.

Reports per encoding class tell *where* a decoder is incomplete (all of MUBUF missing reads very
differently from a few odd VOP3 operands), and random-word testing needs the same classes to
draw words that exercise every encoding instead of mostly hitting VOP2 (which owns half of the
32-bit space). The prefixes below are the GCN3/Vega/CDNA ISA documents' encoding identifiers;
the scalar and vector ALU classes carve their space out of each other, so a class is the
first rule that matches, in the order of :data:`GFX9_CLASSES`. They were checked against
llvm-mc's decoding of the LLVM test corpus (see the unit tests).

gfx908, gfx90a and gfx942 all use this layout. The RDNA families have layouts of their own
(:data:`GFX10_CLASSES`, :data:`GFX11_CLASSES`, :data:`GFX12_CLASSES`, from the RDNA ISA
documents' encoding identifiers); :func:`classes_for` picks a target's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EncodingClass:
    """An encoding: first-dword bits ``(dword & mask) == value``, and its base size."""

    name: str
    mask: int
    value: int
    size: int  # bytes without a literal constant / DPP / SDWA extension dword

    def matches(self, dword: int) -> bool:
        """Whether the fixed bits of this encoding are set in a first dword."""
        return dword & self.mask == self.value


def _prefix(name: str, bits: str, size: int) -> EncodingClass:
    """An encoding whose top ``len(bits)`` bits of the first dword are ``bits``."""
    width = len(bits)
    mask = ((1 << width) - 1) << (32 - width)
    return EncodingClass(name, mask, int(bits, 2) << (32 - width), size)


#: First match wins: the more specific prefixes come before the ones that contain them.
GFX9_CLASSES: tuple[EncodingClass, ...] = (
    _prefix("SOP1", "101111101", 4),
    _prefix("SOPC", "101111110", 4),
    _prefix("SOPP", "101111111", 4),
    _prefix("SOPK", "1011", 4),
    _prefix("SOP2", "10", 4),
    _prefix("VOPC", "0111110", 4),
    _prefix("VOP1", "0111111", 4),
    _prefix("VOP2", "0", 4),
    _prefix("SMEM", "110000", 8),
    _prefix("EXP", "110001", 8),
    _prefix("VOP3P", "110100111", 8),
    _prefix("VOP3", "110100", 8),  # VOP3a and VOP3b share it; VOP3P is carved out above
    _prefix("VINTRP", "110101", 4),
    _prefix("DS", "110110", 8),
    _prefix("FLAT", "110111", 8),  # FLAT, GLOBAL and SCRATCH (told apart by the seg field)
    _prefix("MUBUF", "111000", 8),
    _prefix("MTBUF", "111010", 8),
    _prefix("MIMG", "111100", 8),
)

#: RDNA1/RDNA2 (GFX10): SMEM, VOP3 and the memory encodings moved; VOP3P has its own prefix.
GFX10_CLASSES: tuple[EncodingClass, ...] = (
    *GFX9_CLASSES[:8],
    _prefix("VINTRP", "110010", 4),
    _prefix("VOP3P", "110011", 8),
    _prefix("VOP3", "110101", 8),
    _prefix("DS", "110110", 8),
    _prefix("FLAT", "110111", 8),
    _prefix("MUBUF", "111000", 8),
    _prefix("MTBUF", "111010", 8),
    _prefix("MIMG", "111100", 8),
    _prefix("SMEM", "111101", 8),
    _prefix("EXP", "111110", 8),
)

#: RDNA3 (GFX11): dual-issue VOPD takes VINTRP's prefix; VINTERP and LDSDIR split VOP3P's.
GFX11_CLASSES: tuple[EncodingClass, ...] = (
    *GFX9_CLASSES[:8],
    _prefix("VOPD", "110010", 8),
    _prefix("VOP3P", "11001100", 8),
    _prefix("VINTERP", "11001101", 8),
    _prefix("LDSDIR", "11001110", 4),
    _prefix("VOP3", "110101", 8),
    _prefix("DS", "110110", 8),
    _prefix("FLAT", "110111", 8),
    _prefix("MUBUF", "111000", 8),
    _prefix("MTBUF", "111010", 8),
    _prefix("MIMG", "111100", 8),
    _prefix("SMEM", "111101", 8),
    _prefix("EXP", "111110", 8),
)

#: RDNA4 (GFX12): 96-bit VBUFFER/VIMAGE/VSAMPLE and one VFLAT prefix replace MUBUF/MTBUF/
#: MIMG/FLAT.
GFX12_CLASSES: tuple[EncodingClass, ...] = (
    *GFX9_CLASSES[:8],
    _prefix("VOPD", "110010", 8),
    _prefix("VOP3P", "11001100", 8),
    _prefix("VINTERP", "11001101", 8),
    _prefix("VDSDIR", "11001110", 4),
    _prefix("VOP3", "110101", 8),
    _prefix("DS", "110110", 8),
    _prefix("VBUFFER", "110001", 12),
    _prefix("VIMAGE", "110100", 12),
    _prefix("VSAMPLE", "111001", 12),
    _prefix("VFLAT", "111011", 12),
    _prefix("SMEM", "111101", 8),
    _prefix("EXP", "111110", 8),
)

_FAMILY_CLASSES = {"gfx9": GFX9_CLASSES, "gfx10": GFX10_CLASSES, "gfx11": GFX11_CLASSES,
                   "gfx12": GFX12_CLASSES}


def classes_for(mcpu: str) -> tuple[EncodingClass, ...] | None:
    """The encoding classes of a target's family, or None for a family we do not know."""
    for prefix in ("gfx12", "gfx11", "gfx10", "gfx9"):
        if mcpu.startswith(prefix):
            return _FAMILY_CLASSES[prefix]
    return None


def has_encoding_classes(mcpu: str) -> bool:
    """Whether random words and per-class reports are available for a target."""
    return classes_for(mcpu) is not None


#: Everything no class claims; kept so that random testing also probes the unused space.
UNASSIGNED = "unassigned"
#: A byte sequence too short to hold a first dword.
TOO_SHORT = "short"


def is_gfx9(mcpu: str) -> bool:
    """Whether a target uses the GFX9 encoding layout (gfx900 ... gfx942)."""
    return mcpu.startswith("gfx9")


def classify_dword(dword: int, classes: tuple[EncodingClass, ...] = GFX9_CLASSES) -> str:
    """The encoding class of a first dword (GFX9 classes unless told)."""
    for encoding in classes:
        if encoding.matches(dword):
            return encoding.name
    return UNASSIGNED


def first_dword(data: bytes) -> int | None:
    """The little-endian first dword of an instruction, or None if it is shorter."""
    if len(data) < 4:
        return None
    return int.from_bytes(data[:4], "little")


def classify_bytes(data: bytes, classes: tuple[EncodingClass, ...] = GFX9_CLASSES) -> str:
    """The encoding class of a byte sequence (by its first dword)."""
    dword = first_dword(data)
    return TOO_SHORT if dword is None else classify_dword(dword, classes)


def class_names(classes: tuple[EncodingClass, ...] = GFX9_CLASSES) -> list[str]:
    """Every class a random word can be drawn from, in report order."""
    return [encoding.name for encoding in classes] + [UNASSIGNED]


#: Random words get one extra random dword: room for a literal constant, or the DPP/SDWA
#: dword of VOP1/VOP2/VOPC. Both decoders are compared on the first instruction only.
EXTENSION_BYTES = 4


def random_word(
    rng: random.Random, class_name: str, classes: tuple[EncodingClass, ...] = GFX9_CLASSES
) -> bytes:
    """A random instruction word of one class: fixed bits set, every other bit random.

    Rejection sampling keeps the word in its class where a prefix is shared with a more
    specific class (e.g. VOP2 versus VOP1/VOPC).
    """
    by_name = {encoding.name: encoding for encoding in classes}
    while True:
        dword = rng.getrandbits(32)
        if class_name == UNASSIGNED:
            size = 8
        else:
            encoding = by_name[class_name]
            dword = (dword & ~encoding.mask & 0xFFFFFFFF) | encoding.value
            size = encoding.size
        if classify_dword(dword, classes) == class_name:
            break
    tail = rng.randbytes(size - 4 + EXTENSION_BYTES)
    return dword.to_bytes(4, "little") + tail


def random_words(
    count_per_class: int, seed: int, classes: tuple[EncodingClass, ...] = GFX9_CLASSES
) -> list[tuple[str, bytes]]:
    """``count_per_class`` distinct seeded random words per class, as (class, bytes)."""
    rng = random.Random(seed)
    words: list[tuple[str, bytes]] = []
    for class_name in class_names(classes):
        seen: set[bytes] = set()
        while len(seen) < count_per_class:
            word = random_word(rng, class_name, classes)
            if word not in seen:
                seen.add(word)
                words.append((class_name, word))
    return words
