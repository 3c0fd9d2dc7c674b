"""The floating-point inline constants of the GCN3/CDNA operand encoding.

Source encodings 240..248 stand for 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0 and 1/(2*pi);
the bit pattern an operand receives depends on its width and format. The decoder maps
encodings to patterns with these tables, the encoder maps patterns back with their inverses.
"""

from __future__ import annotations

FP32: dict[int, int] = {
    240: 0x3F000000, 241: 0xBF000000, 242: 0x3F800000, 243: 0xBF800000, 244: 0x40000000,
    245: 0xC0000000, 246: 0x40800000, 247: 0xC0800000, 248: 0x3E22F983,
}
FP64: dict[int, int] = {
    240: 0x3FE0000000000000, 241: 0xBFE0000000000000, 242: 0x3FF0000000000000,
    243: 0xBFF0000000000000, 244: 0x4000000000000000, 245: 0xC000000000000000,
    246: 0x4010000000000000, 247: 0xC010000000000000, 248: 0x3FC45F306DC9C882,
}
FP16: dict[int, int] = {
    240: 0x3800, 241: 0xB800, 242: 0x3C00, 243: 0xBC00, 244: 0x4000, 245: 0xC000,
    246: 0x4400, 247: 0xC400, 248: 0x3118,
}
BF16: dict[int, int] = {
    240: 0x3F00, 241: 0xBF00, 242: 0x3F80, 243: 0xBF80, 244: 0x4000, 245: 0xC000,
    246: 0x4080, 247: 0xC080, 248: 0x3E22,
}


def inverse(table: dict[int, int]) -> dict[int, int]:
    """Bit pattern -> encoding."""
    return {pattern: encoding for encoding, pattern in table.items()}
