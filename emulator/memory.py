"""Memory: a flat 64-bit global address space of buffers, LDS per workgroup, scratch per lane.

Global memory is a sorted set of buffers, each a NumPy byte array at a base address, with
unmapped gaps between them so that running off the end of one buffer is an error instead of
a silent write into the next. A vector access gathers or scatters the bytes of all active
lanes at once: one buffer lookup for the common case where every lane hits the same buffer,
one per distinct buffer otherwise (never one per lane).

Address map (the apertures are the ones the hardware reports through ``src_shared_base`` /
``src_private_base`` on GFX9 Linux: only their high halves matter to code):

* :data:`GLOBAL_BASE` (``0x0000_1000_0000_0000``) up: the buffers a launch allocates
  (arguments, kernarg segment, dispatch packet, queue), in allocation order.
* :data:`TEXT_BASE` (``0x0000_7000_0000_0000``): the code object's text, then its global
  variables (mapped where PC-relative code reaches them, not among the allocations).
* ``SCRATCH_BACKING``: the base of the scratch V# (never mapped; MUBUF accesses through a
  V# with this base go to the lane's scratch).
* ``SHARED_APERTURE`` (4 GiB): flat addresses that reach the workgroup's LDS.
* ``PRIVATE_APERTURE`` (4 GiB): flat addresses that reach the lane's scratch.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from luthier.emulator.errors import EmulationError
from luthier.emulator.state import Mask, Vec

GLOBAL_BASE = 0x0000_1000_0000_0000
TEXT_BASE = 0x0000_7000_0000_0000
SHARED_APERTURE_HI = 0x0001_0000
PRIVATE_APERTURE_HI = 0x0002_0000
SHARED_APERTURE = SHARED_APERTURE_HI << 32
PRIVATE_APERTURE = PRIVATE_APERTURE_HI << 32
APERTURE_SIZE = 1 << 32
#: Base address of the scratch V# (private segment buffer) the dispatch hands out: a
#: 48-bit address in no buffer, by which buffer instructions recognise scratch accesses.
SCRATCH_BACKING = 0x0000_5C00_0000_0000
#: Unmapped bytes left after every buffer, so an overrun hits nothing.
GUARD = 4096

Bytes = npt.NDArray[np.uint8]


@dataclass
class Buffer:
    """A run of global memory: what a host allocation (or a code-object variable) is."""

    name: str
    base: int
    data: Bytes

    @property
    def size(self) -> int:
        return int(self.data.size)

    @property
    def end(self) -> int:
        return self.base + self.size


def _gather(data: Bytes, offsets: Vec, nbytes: int) -> Bytes:
    """Bytes ``[offset, offset + nbytes)`` of ``data`` per lane: ``(lanes, nbytes)``."""
    index = offsets.astype(np.intp)[:, None] + np.arange(nbytes, dtype=np.intp)
    return data[index]


def _scatter(data: Bytes, offsets: Vec, values: Bytes) -> None:
    index = offsets.astype(np.intp)[:, None] + np.arange(values.shape[1], dtype=np.intp)
    data[index] = values


class GlobalMemory:
    """The global address space: buffers by base address."""

    def __init__(self) -> None:
        self._bases: list[int] = []
        self._buffers: list[Buffer] = []
        self._next = GLOBAL_BASE

    @property
    def buffers(self) -> list[Buffer]:
        return list(self._buffers)

    def allocate(self, size: int, name: str, data: bytes | Bytes | None = None,
                 alignment: int = 256) -> Buffer:
        """A new zero-filled (or ``data``-filled) buffer of ``size`` bytes."""
        base = (self._next + alignment - 1) // alignment * alignment
        array = np.zeros(max(size, 0), np.uint8)
        if data is not None:
            raw = np.frombuffer(bytes(data), np.uint8) if isinstance(data, bytes | bytearray) \
                else np.asarray(data, np.uint8).reshape(-1)
            array[:raw.size] = raw[:size]
        return self.map(Buffer(name, base, array))

    def map(self, buffer: Buffer) -> Buffer:
        """Place ``buffer`` at its own base (which must not overlap another)."""
        at = bisect.bisect_right(self._bases, buffer.base)
        if at > 0 and self._buffers[at - 1].end > buffer.base or \
                at < len(self._bases) and self._bases[at] < buffer.end:
            raise EmulationError(f"buffer {buffer.name} at {buffer.base:#x} overlaps another")
        self._bases.insert(at, buffer.base)
        self._buffers.insert(at, buffer)
        if buffer.base < TEXT_BASE:
            # Allocations continue after it; a buffer mapped at the text (a code object's
            # globals) does not move them there.
            self._next = max(self._next, buffer.end + GUARD)
        return buffer

    def find(self, address: int, nbytes: int = 1) -> Buffer | None:
        """The buffer holding ``[address, address + nbytes)``, if any."""
        at = bisect.bisect_right(self._bases, address) - 1
        if at < 0:
            return None
        buffer = self._buffers[at]
        return buffer if address + nbytes <= buffer.end else None

    def _require(self, address: int, nbytes: int, what: str) -> Buffer:
        buffer = self.find(address, nbytes)
        if buffer is None:
            raise EmulationError(f"{what} of {nbytes} bytes at {address:#x} is outside every "
                                 "buffer")
        return buffer

    # -- scalar (host and SMEM) access ------------------------------------------------------

    def read(self, address: int, nbytes: int, what: str = "read") -> bytes:
        buffer = self._require(address, nbytes, what)
        start = address - buffer.base
        return buffer.data[start:start + nbytes].tobytes()

    def write(self, address: int, data: bytes, what: str = "write") -> None:
        buffer = self._require(address, len(data), what)
        start = address - buffer.base
        buffer.data[start:start + len(data)] = np.frombuffer(data, np.uint8)

    # -- vector access ------------------------------------------------------------------------

    def _groups(self, addresses: Vec, mask: Mask, nbytes: int,
                what: str) -> list[tuple[Buffer, Mask]]:
        """The buffers the active lanes hit, with the lanes hitting each."""
        active = addresses[mask]
        if active.size == 0:
            return []
        low, high = int(active.min()), int(active.max())
        buffer = self.find(low, high - low + nbytes)
        if buffer is not None:
            return [(buffer, mask)]
        groups: list[tuple[Buffer, Mask]] = []
        bases = np.array(self._bases, dtype=np.uint64)
        slot = np.searchsorted(bases, addresses, side="right").astype(np.intp) - 1
        ends = np.array([buffer.end for buffer in self._buffers] + [0], dtype=np.uint64)
        inside = (slot >= 0) & (addresses + np.uint64(nbytes) <= ends[slot])
        outside = mask & ~inside
        if outside.any():
            lane = int(np.flatnonzero(outside)[0])
            raise EmulationError(f"{what} of {nbytes} bytes at {int(addresses[lane]):#x} "
                                 f"(lane {lane}) is outside every buffer")
        for index in cast(list[int], np.unique(slot[mask]).tolist()):
            groups.append((self._buffers[index], mask & (slot == index)))
        return groups

    def load(self, addresses: Vec, mask: Mask, nbytes: int) -> Bytes:
        """``(lanes, nbytes)`` bytes read at each active lane's address (zeros elsewhere)."""
        out = np.zeros((addresses.size, nbytes), np.uint8)
        for buffer, lanes in self._groups(addresses, mask, nbytes, "global load"):
            offsets = np.where(lanes, addresses - np.uint64(buffer.base), np.uint64(0))
            out[lanes] = _gather(buffer.data, offsets, nbytes)[lanes]
        return out

    def store(self, addresses: Vec, mask: Mask, values: Bytes) -> None:
        """Write each active lane's ``values`` row at its address (lanes in order)."""
        for buffer, lanes in self._groups(addresses, mask, values.shape[1], "global store"):
            offsets = (addresses[lanes] - np.uint64(buffer.base))
            _scatter(buffer.data, offsets, values[lanes])


class LocalMemory:
    """LDS of one workgroup (or the per-lane scratch of one wave): a bounds-checked byte
    array addressed by byte offset."""

    def __init__(self, size: int, what: str) -> None:
        self.data: Bytes = np.zeros(size, np.uint8)
        self.what = what

    def _check(self, offsets: Vec, mask: Mask, nbytes: int) -> None:
        active = offsets[mask]
        if active.size and int(active.max()) + nbytes > self.data.size:
            bad = int(active.max())
            raise EmulationError(f"{self.what} access of {nbytes} bytes at offset {bad:#x} is "
                                 f"outside the {self.data.size}-byte {self.what}")

    def load(self, offsets: Vec, mask: Mask, nbytes: int) -> Bytes:
        self._check(offsets, mask, nbytes)
        return _gather(self.data, np.where(mask, offsets, 0), nbytes)

    def store(self, offsets: Vec, mask: Mask, values: Bytes) -> None:
        self._check(offsets, mask, values.shape[1])
        _scatter(self.data, offsets[mask], values[mask])


class PrivateMemory:
    """Scratch of one wave: ``size`` bytes per lane, addressed by per-lane byte offset (the
    swizzled, per-lane view that scratch and flat-private instructions see)."""

    def __init__(self, lanes: int, size: int) -> None:
        self.data: npt.NDArray[np.uint8] = np.zeros((lanes, size), np.uint8)
        self.lane_ids = np.arange(lanes, dtype=np.intp)[:, None]

    def _check(self, offsets: Vec, mask: Mask, nbytes: int) -> None:
        active = offsets[mask].astype(np.int64)
        if active.size and (int(active.max()) + nbytes > self.data.shape[1]
                            or int(active.min()) < 0):
            bad = int(active.max()) if int(active.min()) >= 0 else int(active.min())
            raise EmulationError(f"scratch access of {nbytes} bytes at offset {bad:#x} is "
                                 f"outside the {self.data.shape[1]}-byte private segment")

    def _index(self, offsets: Vec, mask: Mask, nbytes: int) -> npt.NDArray[np.intp]:
        safe = np.where(mask, offsets.astype(np.int64), 0).astype(np.intp)
        return safe[:, None] + np.arange(nbytes, dtype=np.intp)

    def load(self, offsets: Vec, mask: Mask, nbytes: int) -> Bytes:
        self._check(offsets, mask, nbytes)
        return self.data[self.lane_ids, self._index(offsets, mask, nbytes)]

    def store(self, offsets: Vec, mask: Mask, values: Bytes) -> None:
        self._check(offsets, mask, values.shape[1])
        index = self._index(offsets, mask, values.shape[1])
        rows = np.broadcast_to(self.lane_ids, index.shape)
        self.data[rows[mask], index[mask]] = values[mask]
