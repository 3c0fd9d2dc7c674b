"""The kernel argument segment, laid out from the kernel's metadata (``.args``).

Explicit arguments take the caller's values in order: buffers become the 64-bit address of
the buffer, scalars are packed to the argument's size (ints as two's complement, Python
floats as f32 or f64 by size). Hidden arguments are filled as the HIP runtime fills them
(AMDGPUUsage.rst, "Code Object V5 Metadata"): block counts, group sizes, zero remainders
(the grid is whole workgroups), zero global offsets, the grid's dimension count, the
dynamic LDS size, the aperture bases and a queue pointer; the rest are zero.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from luthier.emulator.errors import EmulationError
from luthier.emulator.memory import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI


@dataclass(frozen=True)
class ArgSpec:
    """One ``.args`` entry."""

    offset: int
    size: int
    kind: str
    name: str

    @property
    def hidden(self) -> bool:
        return self.kind.startswith("hidden_")


def arg_specs(metadata: dict[str, Any]) -> list[ArgSpec]:
    specs: list[ArgSpec] = []
    for entry in metadata.get(".args", []):
        specs.append(ArgSpec(int(entry[".offset"]), int(entry[".size"]),
                             str(entry[".value_kind"]), str(entry.get(".name", ""))))
    return specs


def explicit_specs(metadata: dict[str, Any]) -> list[ArgSpec]:
    return [spec for spec in arg_specs(metadata) if not spec.hidden]


def pack_scalar(value: object, size: int, where: str) -> bytes:
    """A scalar argument's bytes: ints in two's complement, floats as f32/f64 by size."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        if not -(1 << (8 * size - 1)) <= value < (1 << (8 * size)):
            raise EmulationError(f"{where}: {value} does not fit in {size} bytes")
        return (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    if isinstance(value, bytes):
        if len(value) > size:
            raise EmulationError(f"{where}: {len(value)} bytes do not fit in {size}")
        return value.ljust(size, b"\0")
    if isinstance(value, float):
        if size == 4:
            return struct.pack("<f", value)
        if size == 8:
            return struct.pack("<d", value)
        raise EmulationError(f"{where}: a float cannot fill a {size}-byte argument")
    raise EmulationError(f"{where}: {value!r} is not a scalar")


@dataclass(frozen=True)
class LaunchShape:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_lds: int
    queue_address: int

    @property
    def dimensions(self) -> int:
        if self.grid[2] > 1 or self.block[2] > 1:
            return 3
        if self.grid[1] > 1 or self.block[1] > 1:
            return 2
        return 1


def hidden_value(kind: str, shape: LaunchShape) -> int:
    axes = {"x": 0, "y": 1, "z": 2}
    if kind.startswith("hidden_block_count_"):
        return shape.grid[axes[kind[-1]]]
    if kind.startswith("hidden_group_size_"):
        return shape.block[axes[kind[-1]]]
    if kind == "hidden_grid_dims":
        return shape.dimensions
    if kind == "hidden_dynamic_lds_size":
        return shape.dynamic_lds
    if kind == "hidden_private_base":
        return PRIVATE_APERTURE_HI
    if kind == "hidden_shared_base":
        return SHARED_APERTURE_HI
    if kind == "hidden_queue_ptr":
        return shape.queue_address
    return 0


#: The kernarg segment's size is rounded up to this many bytes: the widest scalar load
#: (``s_load_dwordx16``), so a merged load that starts inside the segment stays inside it.
SEGMENT_GRANULE = 64


def build_segment(metadata: dict[str, Any], values: list[bytes], shape: LaunchShape,
                  kernel: str, descriptor_size: int = 0) -> bytes:
    """The bytes of the kernarg segment: ``values`` are the packed explicit arguments.
    Its size is the metadata's, else the descriptor's ``kernarg_size``, rounded up to
    :data:`SEGMENT_GRANULE` bytes: compiled code loads its arguments in merged scalar
    loads that may reach past the last one (``s_load_dwordx4`` at offset 8 of a 20-byte
    segment), which the runtime's kernarg buffers allow."""
    specs = arg_specs(metadata)
    size = int(metadata.get(".kernarg_segment_size", descriptor_size))
    size = max([size] + [spec.offset + spec.size for spec in specs])
    size = -(-size // SEGMENT_GRANULE) * SEGMENT_GRANULE
    segment = bytearray(size)
    explicit = [spec for spec in specs if not spec.hidden]
    if len(values) != len(explicit):
        raise EmulationError(f"kernel {kernel} takes {len(explicit)} arguments, got "
                             f"{len(values)}")
    for spec, data in zip(explicit, values, strict=True):
        segment[spec.offset:spec.offset + spec.size] = data[:spec.size].ljust(spec.size, b"\0")
    for spec in specs:
        if spec.hidden:
            value = hidden_value(spec.kind, shape) & ((1 << (8 * spec.size)) - 1)
            segment[spec.offset:spec.offset + spec.size] = value.to_bytes(spec.size, "little")
    return bytes(segment)
