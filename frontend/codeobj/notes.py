"""ELF note records, parsed by hand so that every malformed size has a precise message.

A note is ``namesz``, ``descsz``, ``type`` (4 bytes each), then the name and the descriptor,
each padded to the note alignment. AMDGPU code objects V3+ carry one note that matters, the
``NT_AMDGPU_METADATA`` (type 32) record with name ``AMDGPU`` whose descriptor is the msgpack
metadata map ("Note Records" in AMDGPUUsage.rst).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from luthier.frontend.codeobj.elf_format import align_up

NT_AMDGPU_METADATA = 32
AMDGPU_NOTE_NAME = "AMDGPU"

_HEADER = struct.Struct("<III")


@dataclass(frozen=True)
class Note:
    """One note record: owner name (without its NUL), type, and descriptor bytes."""

    name: str
    type: int
    desc: bytes
    #: Offset of the record inside its note section.
    offset: int


def parse_notes(data: bytes, alignment: int = 4) -> list[Note] | str:
    """Every note record of a note section's bytes, or the reason they are malformed.

    ``alignment`` is the section's (4, or 8 for sections that ask for it). Returns a reason
    string rather than raising so that the caller, who knows the path and section, says where.
    """
    alignment = 8 if alignment == 8 else 4
    notes: list[Note] = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < _HEADER.size:
            return f"truncated note header at offset {offset}"
        namesz, descsz, note_type = _HEADER.unpack_from(data, offset)
        name_start = offset + _HEADER.size
        desc_start = name_start + align_up(namesz, alignment)
        end = desc_start + align_up(descsz, alignment)
        if desc_start + descsz > len(data):
            return (
                f"truncated note at offset {offset}: name size {namesz} and descriptor size "
                f"{descsz} run past the {len(data)} bytes of the section"
            )
        raw_name = data[name_start : name_start + namesz]
        name = raw_name.rstrip(b"\0").decode("ascii", errors="replace")
        notes.append(Note(name, note_type, data[desc_start : desc_start + descsz], offset))
        offset = max(end, desc_start + descsz)
    return notes
