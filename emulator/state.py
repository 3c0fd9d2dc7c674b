"""The architectural state of one wave: SGPRs, SCC, VGPRs, AGPRs, EXEC, PC.

SGPRs are a Python list of 32-bit ints indexed by their operand encoding (``s0``..``s101``,
``flat_scratch`` at 102, ``vcc`` at 106, ``ttmp0`` at 108, ``m0`` at 124, ``exec`` at 126):
scalar code is Python-int arithmetic, and a list index is the cheapest register access
Python has. VGPRs and AGPRs are NumPy arrays ``[register, lane]`` of uint32, so one VALU
instruction is a few vector operations over all lanes. EXEC lives in the SGPR list like on
the hardware; :meth:`Wave.exec_mask` turns it into a lane mask, cached per EXEC value.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

#: SGPR-file indices of the special registers (their GFX9 operand encodings).
FLAT_SCRATCH = 102
XNACK_MASK = 104
VCC = 106
TTMP = 108
M0 = 124
NULL = 125
EXEC = 126
SGPR_FILE_SIZE = 128

#: VGPRs and AGPRs per lane (the architectural maximum of GFX9/CDNA).
VGPR_FILE_SIZE = 256
AGPR_FILE_SIZE = 256

#: The vector value type of lanes: a 1-D array of one entry per lane (or a 0-d array, which
#: broadcasts, for a uniform operand). Dtype is uint32 for 32-bit values and uint64 for
#: 64-bit ones; float semantics view these bits as float32/float64.
Vec = npt.NDArray[Any]
Mask = npt.NDArray[np.bool_]


@functools.lru_cache(maxsize=4096)
def lanes_of(bits: int, lanes: int) -> Mask:
    """The lane mask of a 64-bit register value (lane i is bit i); read-only and cached,
    because waves run through few distinct EXEC values."""
    raw = np.frombuffer(bits.to_bytes(8, "little"), dtype=np.uint8)
    mask = np.unpackbits(raw, bitorder="little")[:lanes].astype(np.bool_)
    mask.flags.writeable = False
    return mask


def bits_of(mask: Mask) -> int:
    """The register value of a lane mask (lane i is bit i)."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


#: The register files of a released wave (:meth:`Wave.release`).
_NO_LANES: npt.NDArray[np.uint32] = np.zeros((0, 0), np.uint32)
_NO_LANE_IDS: npt.NDArray[np.intp] = np.zeros(0, np.intp)


class Wave:
    """One wave's registers and progress. ``pc`` indexes the program's instruction table."""

    __slots__ = ("s", "scc", "v", "a", "lanes", "full", "pc", "executed", "done",
                 "at_barrier", "workgroup", "index", "lane_ids", "private", "memory", "hwregs",
                 "_mask_key", "_mask", "_active")

    def __init__(self, lanes: int, workgroup: Any = None, index: int = 0) -> None:
        if lanes not in (32, 64):
            raise ValueError(f"a wave has 32 or 64 lanes, not {lanes}")
        self.s: list[int] = [0] * SGPR_FILE_SIZE
        self.scc = 0
        self.v: npt.NDArray[np.uint32] = np.zeros((VGPR_FILE_SIZE, lanes), np.uint32)
        self.a: npt.NDArray[np.uint32] = np.zeros((AGPR_FILE_SIZE, lanes), np.uint32)
        self.lanes = lanes
        self.full = (1 << lanes) - 1
        self.pc = 0
        self.executed = 0
        self.done = False
        self.at_barrier = False
        #: The dispatch's workgroup (LDS, barrier); typed loosely to keep modules apart.
        self.workgroup: Any = workgroup
        self.index = index
        self.lane_ids = np.arange(lanes, dtype=np.intp)
        #: Per-lane private (scratch) memory, set by the dispatch.
        self.private: Any = None
        #: The dispatch's global memory (a :class:`~luthier.emulator.memory.GlobalMemory`).
        self.memory: Any = None
        #: Hardware registers written by ``s_setreg`` (MODE...), by ``hwreg`` id.
        self.hwregs: dict[int, int] = {}
        self._mask_key = -1
        self._mask: Mask | None = None
        self._active: Mask = lanes_of(0, lanes)

    def release(self) -> None:
        """Drop what a finished wave no longer needs (its register files, about 200 KiB, and
        its scratch), keeping what the run reports (``executed``, ``lanes``). It also lets
        go of its workgroup, which holds it: without that cycle, the wave and its workgroup
        are freed by reference counting the moment the dispatch drops them, instead of
        waiting for the garbage collector."""
        self.v = _NO_LANES
        self.a = _NO_LANES
        self.private = None
        self.s = []
        self.hwregs = {}
        self.workgroup = None
        self.lane_ids = _NO_LANE_IDS

    # -- EXEC ------------------------------------------------------------------------------

    @property
    def exec_bits(self) -> int:
        return (self.s[EXEC] | (self.s[EXEC + 1] << 32)) & self.full

    @exec_bits.setter
    def exec_bits(self, value: int) -> None:
        self.s[EXEC] = value & 0xFFFFFFFF
        self.s[EXEC + 1] = (value >> 32) & 0xFFFFFFFF

    def _refresh(self) -> None:
        key = (self.s[EXEC] | (self.s[EXEC + 1] << 32)) & self.full
        if key != self._mask_key:
            self._mask_key = key
            self._active = lanes_of(key, self.lanes)
            self._mask = None if key == self.full else self._active

    def exec_mask(self) -> Mask | None:
        """The active lanes, or None when every lane is active (the fast path of writes)."""
        self._refresh()
        return self._mask

    def active(self) -> Mask:
        """The active lanes as a mask, always."""
        self._refresh()
        return self._active

    # -- VCC -------------------------------------------------------------------------------

    @property
    def vcc_bits(self) -> int:
        return (self.s[VCC] | (self.s[VCC + 1] << 32)) & self.full

    @vcc_bits.setter
    def vcc_bits(self, value: int) -> None:
        self.s[VCC] = value & 0xFFFFFFFF
        if self.lanes == 64:
            self.s[VCC + 1] = (value >> 32) & 0xFFFFFFFF

    # -- SGPR tuples -----------------------------------------------------------------------

    def read_s(self, index: int, dwords: int) -> int:
        value = 0
        for k in range(dwords):
            value |= self.s[index + k] << (32 * k)
        return value

    def write_s(self, index: int, dwords: int, value: int) -> None:
        if index == NULL:
            return
        for k in range(dwords):
            self.s[index + k] = (value >> (32 * k)) & 0xFFFFFFFF

    # -- VGPR writes under EXEC ------------------------------------------------------------

    def write_v(self, index: int, value: Vec) -> None:
        """Write 32-bit ``value`` to ``v<index>`` in the active lanes."""
        mask = self.exec_mask()
        if mask is None:
            self.v[index] = value
        else:
            np.copyto(self.v[index], value, casting="unsafe", where=mask)

    def write_v64(self, index: int, value: Vec) -> None:
        """Write 64-bit ``value`` to ``v[index:index+1]`` in the active lanes."""
        value = np.asarray(value, dtype=np.uint64)
        self.write_v(index, (value & np.uint64(0xFFFFFFFF)).astype(np.uint32))
        self.write_v(index + 1, (value >> np.uint64(32)).astype(np.uint32))

    def write_a(self, index: int, value: Vec) -> None:
        mask = self.exec_mask()
        if mask is None:
            self.a[index] = value
        else:
            np.copyto(self.a[index], value, casting="unsafe", where=mask)
