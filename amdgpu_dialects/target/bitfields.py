"""Named bit-fields of a hardware register word, declared on a frozen dataclass.

The kernel descriptor packs most of what CP needs into 32-bit (and 16-bit) words whose fields
AMDGPUUsage.rst lists bit by bit. Declaring each field once, with its bit range, gives both the
decoder and the encoder, and lets us prove that every bit of the word is owned by a field
(reserved ones included), which is what makes ``from_word``/``to_word`` an exact round trip.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Self, cast


def bits(lsb: int, width: int = 1) -> Any:
    """Declare a dataclass field holding bits ``lsb .. lsb+width-1`` of the word."""
    return dataclasses.field(metadata={"bits": (lsb, width)})


class BitfieldWord:
    """Mixin for frozen dataclasses whose fields all carry :func:`bits` metadata.

    One-bit fields annotated ``bool`` decode to bools; the rest are unsigned ints.
    """

    #: Width of the whole word in bits.
    WORD_BITS = 32

    @classmethod
    def layout(cls) -> list[tuple[str, int, int, bool]]:
        """(name, lsb, width, is_bool) of every field, checked to tile the word exactly."""
        out: list[tuple[str, int, int, bool]] = []
        covered = 0
        for field in dataclasses.fields(cast(Any, cls)):
            lsb, width = field.metadata["bits"]
            mask = ((1 << width) - 1) << lsb
            assert covered & mask == 0, f"{cls.__name__}.{field.name} overlaps another field"
            covered |= mask
            out.append((field.name, lsb, width, field.type in ("bool", bool)))
        assert covered == (1 << cls.WORD_BITS) - 1, f"{cls.__name__} leaves bits unowned"
        return out

    @classmethod
    def from_word(cls, word: int) -> Self:
        """Decode ``word``; every bit lands in some field, so nothing is lost."""
        values: dict[str, int | bool] = {}
        for name, lsb, width, is_bool in cls.layout():
            value = (word >> lsb) & ((1 << width) - 1)
            values[name] = bool(value) if is_bool else value
        return cls(**values)

    def to_word(self) -> int:
        """Encode back; a field value too wide for its bits is an error, not a silent mask."""
        word = 0
        for name, lsb, width, _ in self.layout():
            value = int(getattr(self, name))
            if not 0 <= value < (1 << width):
                raise ValueError(f"{type(self).__name__}.{name}={value} does not fit {width} bits")
            word |= value << lsb
        return word
