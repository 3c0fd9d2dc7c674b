"""Read ``llvm-mc --disassemble`` input: bytes written as numbers, with ``[...]`` groups.

The format is llvm-mc's: numbers (``0x1f``, ``31``, ``037``, ``0b11111``) separated by
white space or commas, ``#`` comments to the end of the line, and square brackets around
bytes that must be decoded on their own. Outside brackets all bytes form one stream, so an
instruction may continue on the next line, exactly as llvm-mc reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


class HexInputError(ValueError):
    """A malformed token; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass(slots=True)
class ByteChunk:
    """Bytes to decode as one stream, with the source position of every byte."""

    data: bytearray = field(default_factory=bytearray)
    positions: list[tuple[int, int]] = field(default_factory=lambda: [])
    grouped: bool = False


_TOKEN = re.compile(r"[^\s,#\[\]]+")


def _parse_int(token: str) -> int | None:
    """``StringRef::getAsInteger`` with radix 0: 0x hex, 0b binary, leading-0 octal."""
    text = token.lower()
    try:
        if text.startswith("0x"):
            return int(text[2:], 16)
        if text.startswith("0b"):
            return int(text[2:], 2)
        if len(text) > 1 and text.startswith("0"):
            return int(text[1:], 8)
        return int(text, 10)
    except ValueError:
        return None


def parse_hex_input(text: str) -> list[ByteChunk]:
    """Split the input into byte streams: the ungrouped stream pieces and each ``[...]``."""
    chunks: list[ByteChunk] = [ByteChunk()]
    group: ByteChunk | None = None
    for line_no, line in enumerate(text.splitlines(), start=1):
        pos = 0
        while pos < len(line):
            char = line[pos]
            if char in " \t\r\f\v,":
                pos += 1
            elif char == "#":
                break
            elif char == "[":
                if group is not None:
                    raise HexInputError("nested atomic blocks make no sense", line_no, pos + 1)
                group = ByteChunk(grouped=True)
                pos += 1
            elif char == "]":
                if group is None:
                    raise HexInputError("attempt to close atomic block without opening",
                                        line_no, pos + 1)
                chunks.append(group)
                chunks.append(ByteChunk())
                group = None
                pos += 1
            else:
                match = _TOKEN.match(line, pos)
                assert match is not None
                value = _parse_int(match.group(0))
                if value is None or not 0 <= value <= 255:
                    raise HexInputError("invalid input token", line_no, pos + 1)
                target = group if group is not None else chunks[-1]
                target.data.append(value)
                target.positions.append((line_no, pos + 1))
                pos = match.end()
    if group is not None:
        lines = text.split("\n")
        raise HexInputError("unclosed atomic block", len(lines), len(lines[-1]) + 1)
    return [c for c in chunks if c.data]
