"""LDS (DS) instructions: reads, writes, the two-address forms, and LDS atomics.

The address of a lane is its ``addr`` VGPR plus the unsigned 16-bit ``offset``; the
``read2``/``write2`` forms use two 8-bit offsets in units of the element size (times 64 for
the ``st64`` forms). M0 does not bound LDS on GFX9 and later, so it is not read. Atomics run
lane by lane in lane order, as in :mod:`.vmem`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from luthier.emulator.errors import EmulationError
from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.semantics.vmem import atomic_ops, from_dwords, merge_d16, to_dwords
from luthier.emulator.state import Wave

U32 = np.uint32

_READS: dict[str, tuple[int, bool]] = {
    "ds_read_u8": (1, False), "ds_read_i8": (1, True), "ds_read_u16": (2, False),
    "ds_read_i16": (2, True), "ds_read_b32": (4, False), "ds_read_b64": (8, False),
    "ds_read_b96": (12, False), "ds_read_b128": (16, False),
}
_WRITES: dict[str, int] = {
    "ds_write_b8": 1, "ds_write_b16": 2, "ds_write_b32": 4, "ds_write_b64": 8,
    "ds_write_b96": 12, "ds_write_b128": 16,
}


def _address(inst: Instruction, offset: int) -> Callable[[Wave], np.ndarray]:  # type: ignore[type-arg]
    read = inst.vector("addr", 32)
    constant = np.uint32(offset)

    def addresses(wave: Wave) -> np.ndarray:  # type: ignore[type-arg]
        value = np.asarray(read(wave), U32) + constant
        return value if value.shape == (wave.lanes,) else np.full(wave.lanes, value, U32)

    return addresses


def _wrap(where: str, error: EmulationError) -> EmulationError:
    return EmulationError(f"{where}: {error}")


@semantics(*_READS)
def _read(inst: Instruction) -> Step:
    nbytes, signed = _READS[inst.mnemonic]
    address = _address(inst, inst.get("offset", 0))
    _, index, _ = inst.vdst()
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        mask = wave.active()
        try:
            raw = wave.workgroup.lds.load(address(wave), mask, nbytes)
        except EmulationError as error:
            raise _wrap(where, error) from None
        for k, column in enumerate(to_dwords(raw, nbytes, signed)):
            wave.write_v(index + k, column)
        return following

    return step


@semantics(*_WRITES)
def _write(inst: Instruction) -> Step:
    nbytes = _WRITES[inst.mnemonic]
    address = _address(inst, inst.get("offset", 0))
    _, index, _ = inst.vdst("data0")
    dwords = max(1, nbytes // 4)
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        data = from_dwords([wave.v[index + k] for k in range(dwords)], nbytes)
        try:
            wave.workgroup.lds.store(address(wave), wave.active(), data)
        except EmulationError as error:
            raise _wrap(where, error) from None
        return following

    return step


def _pair_geometry(mnemonic: str) -> tuple[int, int]:
    element = 8 if mnemonic.endswith("b64") else 4
    stride = element * (64 if "st64" in mnemonic else 1)
    return element, stride


@semantics("ds_read2_b32", "ds_read2_b64", "ds_read2st64_b32", "ds_read2st64_b64")
def _read2(inst: Instruction) -> Step:
    element, stride = _pair_geometry(inst.mnemonic)
    first = _address(inst, inst.get("offset0", 0) * stride)
    second = _address(inst, inst.get("offset1", 0) * stride)
    _, index, _ = inst.vdst()
    per = element // 4
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        mask = wave.active()
        try:
            low = wave.workgroup.lds.load(first(wave), mask, element)
            high = wave.workgroup.lds.load(second(wave), mask, element)
        except EmulationError as error:
            raise _wrap(where, error) from None
        columns = to_dwords(low, element, False) + to_dwords(high, element, False)
        for k, column in enumerate(columns[:2 * per]):
            wave.write_v(index + k, column)
        return following

    return step


@semantics("ds_write2_b32", "ds_write2_b64", "ds_write2st64_b32", "ds_write2st64_b64")
def _write2(inst: Instruction) -> Step:
    element, stride = _pair_geometry(inst.mnemonic)
    first = _address(inst, inst.get("offset0", 0) * stride)
    second = _address(inst, inst.get("offset1", 0) * stride)
    _, index0, _ = inst.vdst("data0")
    _, index1, _ = inst.vdst("data1")
    per = element // 4
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        mask = wave.active()
        data0 = from_dwords([wave.v[index0 + k] for k in range(per)], element)
        data1 = from_dwords([wave.v[index1 + k] for k in range(per)], element)
        try:
            wave.workgroup.lds.store(first(wave), mask, data0)
            wave.workgroup.lds.store(second(wave), mask, data1)
        except EmulationError as error:
            raise _wrap(where, error) from None
        return following

    return step


_DS_ATOMICS = ("add", "sub", "rsub", "inc", "dec", "min", "max", "and", "or", "xor", "wrxchg")


def _ds_atomic_names() -> list[str]:
    names: list[str] = []
    for op in _DS_ATOMICS:
        if op in ("min", "max"):
            kinds = ["i32", "u32", "f32", "i64", "u64", "f64"]
        elif op in ("add", "sub", "rsub", "inc", "dec"):
            kinds = ["u32", "u64"]
        else:
            kinds = ["b32", "b64"]
        if op == "add":
            kinds += ["f32", "f64"]
        for kind in kinds:
            if op != "wrxchg":
                names.append(f"ds_{op}_{kind}")
            names.append(f"ds_{op}_rtn_{kind}")
    for kind in ("b32", "b64", "f32", "f64"):
        names += [f"ds_cmpst_{kind}", f"ds_cmpst_rtn_{kind}"]
    return names


def _ds_op(mnemonic: str) -> str:
    """The :func:`.vmem.atomic_ops` entry of an LDS atomic."""
    parts = mnemonic.removeprefix("ds_").replace("_rtn", "").split("_")
    op, kind = parts[0], parts[1]
    if op in ("min", "max", "add") and kind.startswith("f"):
        return f"{op}_{kind}"
    if op in ("min", "max"):
        return ("s" if kind.startswith("i") else "u") + op
    if op == "cmpst":
        return "cmpswap_float" if kind.startswith("f") else "cmpswap"
    return {"wrxchg": "swap"}.get(op, op)


@semantics(*_ds_atomic_names())
def _ds_atomic(inst: Instruction) -> Step:
    """Applied lane by lane in lane order. ``ds_cmpst``: data0 is the compare value, data1
    the new one (the reverse of the global cmpswap's order)."""
    bits = 64 if inst.mnemonic.endswith("64") else 32
    nbytes, dwords = bits // 8, bits // 32
    fn = atomic_ops(bits)[_ds_op(inst.mnemonic)]
    address = _address(inst, inst.get("offset", 0))
    cmpst = inst.mnemonic.startswith("ds_cmpst")
    _, data_index, _ = inst.vdst("data1" if cmpst else "data0")
    compare_index = inst.vdst("data0")[1] if cmpst else 0
    returns = "_rtn_" in inst.mnemonic
    result_index = inst.vdst()[1] if returns else 0
    following = inst.next_pc
    where = inst.where

    def lane_value(wave: Wave, first: int, lane: int) -> int:
        value = 0
        for k in range(dwords):
            value |= int(wave.v[first + k, lane]) << (32 * k)
        return value

    def step(wave: Wave) -> int:
        lds = wave.workgroup.lds
        offsets = address(wave)
        for lane in np.flatnonzero(wave.active()).tolist():
            at = int(offsets[lane])
            if at + nbytes > lds.data.size:
                raise EmulationError(f"{where}: LDS atomic at offset {at:#x} is outside the "
                                     f"{lds.data.size}-byte LDS (lane {lane})")
            old = int.from_bytes(lds.data[at:at + nbytes].tobytes(), "little")
            data = lane_value(wave, data_index, lane)
            expected = lane_value(wave, compare_index, lane) if cmpst else 0
            lds.data[at:at + nbytes] = np.frombuffer(
                fn(old, data, expected).to_bytes(nbytes, "little"), np.uint8)
            if returns:
                for k in range(dwords):
                    wave.v[result_index + k, lane] = (old >> (32 * k)) & 0xFFFFFFFF
        return following

    return step


@semantics("ds_nop")
def _ds_nop(inst: Instruction) -> Step:
    following = inst.next_pc
    return lambda wave: following


_D16_READS = {"ds_read_u8_d16": (1, False), "ds_read_i8_d16": (1, True),
              "ds_read_u16_d16": (2, False)}


@semantics(*_D16_READS, *(f"{name}_hi" for name in _D16_READS))
def _read_d16(inst: Instruction) -> Step:
    """Read 8 or 16 bits into one half of the VGPR (extended to 16 bits), keeping the
    other half."""
    high = inst.mnemonic.endswith("_hi")
    nbytes, signed = _D16_READS[inst.mnemonic.removesuffix("_hi")]
    address = _address(inst, inst.get("offset", 0))
    _, index, _ = inst.vdst()
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        try:
            raw = wave.workgroup.lds.load(address(wave), wave.active(), nbytes)
        except EmulationError as error:
            raise _wrap(where, error) from None
        (value,) = to_dwords(raw, nbytes, signed)
        wave.write_v(index, merge_d16(wave.v[index], value, high))
        return following

    return step


@semantics("ds_write_b8_d16_hi", "ds_write_b16_d16_hi")
def _write_d16_hi(inst: Instruction) -> Step:
    nbytes = 1 if "b8" in inst.mnemonic else 2
    address = _address(inst, inst.get("offset", 0))
    _, index, _ = inst.vdst("data0")
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        data = from_dwords([wave.v[index] >> U32(16)], nbytes)
        try:
            wave.workgroup.lds.store(address(wave), wave.active(), data)
        except EmulationError as error:
            raise _wrap(where, error) from None
        return following

    return step
