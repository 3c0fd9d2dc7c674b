"""The ``NT_AMDGPU_METADATA`` note's bytes, byte for byte as LLVM writes them.

The one writer of the metadata note: the assembler (``.amdgpu_metadata``) and the emitter
(``amdgpu_mc.code_object`` metadata) both call :func:`metadata_note`; :mod:`notes` reads it
back. LLVM serializes its ``msgpack::Document`` with ``msgpack::Writer`` in non-compatible mode:
the smallest encoding of each integer (non-negative ones as unsigned), ``str8`` allowed, and
map keys in the document's sorted order (by msgpack kind, then value; strings bytewise).
The note is the usual ELF note record: name ``AMDGPU`` (7 bytes with its NUL, padded to 8),
type 32, then the blob padded to 4 bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

from luthier.frontend.codeobj.notes import AMDGPU_NOTE_NAME, NT_AMDGPU_METADATA

#: A metadata value: what msgpack maps to Python, as the YAML reader and the IR produce it.
MetadataValue = (
    None
    | bool
    | int
    | float
    | str
    | Sequence["MetadataValue"]
    | Mapping[str, "MetadataValue"]
)

#: msgpack::Type::String's rank in LLVM's DocNode ordering (kind first, then value); map keys
#: here are always strings, so they sort bytewise.
_STRING_KIND = 5


def _sort_key(key: str) -> tuple[int, bytes]:
    return _STRING_KIND, key.encode()


def _sized(
    out: bytearray, length: int, fix: int | None, fix_limit: int, codes: tuple[int, int, int]
) -> None:
    """A length header: the fix form below ``fix_limit``, else 8/16/32-bit (code None = no
    8-bit form)."""
    if fix is not None and length < fix_limit:
        out.append(fix | length)
    elif codes[0] and length <= 0xFF:
        out += bytes((codes[0], length))
    elif length <= 0xFFFF:
        out.append(codes[1])
        out += struct.pack(">H", length)
    else:
        out.append(codes[2])
        out += struct.pack(">I", length)


def _write(out: bytearray, value: MetadataValue) -> None:
    if value is None:
        out.append(0xC0)
    elif isinstance(value, bool):
        out.append(0xC3 if value else 0xC2)
    elif isinstance(value, int):
        _write_int(out, value)
    elif isinstance(value, float):
        out.append(0xCB)  # float64; AMDGPU metadata has no floats, the IR could
        out += struct.pack(">d", value)
    elif isinstance(value, str):
        data = value.encode()
        _sized(out, len(data), 0xA0, 32, (0xD9, 0xDA, 0xDB))
        out += data
    elif isinstance(value, Sequence):
        _sized(out, len(value), 0x90, 16, (0, 0xDC, 0xDD))
        for item in value:
            _write(out, item)
    else:
        _sized(out, len(value), 0x80, 16, (0, 0xDE, 0xDF))
        for key in sorted(value, key=_sort_key):
            _write(out, key)
            _write(out, value[key])


def _write_int(out: bytearray, value: int) -> None:
    if value >= 0:
        for limit, code, fmt in (
            (0x7F, None, ""),
            (0xFF, 0xCC, ">B"),
            (0xFFFF, 0xCD, ">H"),
            (0xFFFFFFFF, 0xCE, ">I"),
        ):
            if value <= limit:
                if code is None:
                    out.append(value)
                else:
                    out.append(code)
                    out += struct.pack(fmt, value)
                return
        out.append(0xCF)
        out += struct.pack(">Q", value)
        return
    if value >= -32:
        out += struct.pack(">b", value)
        return
    for limit, code, fmt in (
        (-(1 << 7), 0xD0, ">b"),
        (-(1 << 15), 0xD1, ">h"),
        (-(1 << 31), 0xD2, ">i"),
    ):
        if value >= limit:
            out.append(code)
            out += struct.pack(fmt, value)
            return
    out.append(0xD3)
    out += struct.pack(">q", value)


def to_msgpack(value: MetadataValue) -> bytes:
    """``value`` serialized as LLVM's msgpack writer does."""
    out = bytearray()
    _write(out, value)
    return bytes(out)


def _pad4(data: bytes) -> bytes:
    return data + bytes(-len(data) % 4)


def metadata_note(value: MetadataValue) -> bytes:
    """The ELF note record holding ``value`` as the AMDGPU metadata."""
    name = AMDGPU_NOTE_NAME.encode() + b"\0"
    desc = to_msgpack(value)
    header = struct.pack("<III", len(name), len(desc), NT_AMDGPU_METADATA)
    return header + _pad4(name) + _pad4(desc)
