"""Vector memory: global, flat and scratch loads/stores/atomics, and MUBUF scratch access.

Addresses are per lane. ``global_*`` with an ``saddr`` SGPR pair add the 32-bit VGPR
offset to it, otherwise the VGPR pair is the address; the signed immediate offset is added
last. ``flat_*`` addresses are routed by aperture: the shared aperture reaches the
workgroup's LDS, the private aperture the lane's scratch, everything else global memory.
``scratch_*`` (GFX940's architected flat scratch) and ``buffer_*`` through the private
segment V# address the lane's scratch by per-lane offset: the swizzle the hardware applies
is exactly what makes each lane see its own contiguous private memory, so the emulator
stores scratch per lane. A MUBUF's ``soffset`` counts wave-scaled (unswizzled) bytes, so
it is divided by the wave size.

Atomics are applied lane by lane in lane order (their results may depend on that order),
which is the one place lanes are looped over.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc import operand_syntax
from luthier.amdgpu_dialects.target.subtarget import Subtarget
from luthier.emulator.errors import EmulationError
from luthier.emulator.memory import (
    APERTURE_SIZE,
    PRIVATE_APERTURE,
    SCRATCH_BACKING,
    SHARED_APERTURE,
)
from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.state import FLAT_SCRATCH, Mask, Vec, Wave

U32 = np.uint32
U64 = np.uint64

#: Load/store width suffix -> (bytes, sign-extend).
_WIDTHS: dict[str, tuple[int, bool]] = {
    "ubyte": (1, False), "sbyte": (1, True), "ushort": (2, False), "sshort": (2, True),
    "byte": (1, False), "short": (2, False), "dword": (4, False), "dwordx2": (8, False),
    "dwordx3": (12, False), "dwordx4": (16, False),
}

Addresses = Callable[[Wave], Vec]



def merge_d16(old: Vec, value: Vec, high: bool) -> Vec:
    """A D16 load's result: the low 16 bits of ``value`` replace the high or the low half of
    each lane's ``old`` VGPR; the other half is kept."""
    half = value & U32(0xFFFF)
    if high:
        return (old & U32(0xFFFF)) | (half << U32(16))
    return (old & U32(0xFFFF0000)) | half

def _signed_offset(inst: Instruction) -> int:
    """The byte offset the access adds: the decoder's value (signed for global and scratch
    instructions); a FLAT-segment instruction's offset is 12 bits unsigned, and the
    hardware ignores the field's top bit, which LLVM still decodes and prints."""
    offset = int(inst.get("offset", 0))
    if "FLAT" in inst.desc.classes and not inst.desc.classes & {"FlatGlobal", "FlatScratch"}:
        return offset & 0xFFF
    return offset


def global_address(inst: Instruction) -> Addresses:
    """The per-lane 64-bit addresses of a ``global_*`` instruction (every lane, active or
    not); public because the execution trace records what the access reaches."""
    offset = U64(_signed_offset(inst) & 0xFFFFFFFFFFFFFFFF)
    if inst.has("saddr") and inst.get("saddr") not in ("off", "null"):
        base = inst.scalar("saddr", 64)
        vaddr = inst.vector("vaddr", 32) if inst.has("vaddr") else None

        def with_saddr(wave: Wave) -> Vec:
            lane = np.asarray(vaddr(wave), U32).astype(U64) if vaddr is not None else U64(0)
            return np.broadcast_to(U64(base(wave)) + lane + offset, (wave.lanes,))
        return with_saddr
    vaddr64 = inst.vector("vaddr", 64)
    return lambda wave: np.broadcast_to(np.asarray(vaddr64(wave), U64) + offset, (wave.lanes,))


def _flat_scratch_reader(subtarget: Subtarget | None) -> Callable[[Wave], int]:
    """How a wave's FLAT_SCRATCH base is read: the SGPR pair on GFX9, the hardware
    registers FLAT_SCR_LO/HI (written by ``s_setreg_b32``) from GFX10."""
    if subtarget is None or not subtarget.has_flat_scratch_in_hwregs:
        return lambda wave: int(wave.s[FLAT_SCRATCH]) | int(wave.s[FLAT_SCRATCH + 1]) << 32
    low = operand_syntax.hwreg_id("HW_REG_FLAT_SCR_LO", subtarget.major)
    high = operand_syntax.hwreg_id("HW_REG_FLAT_SCR_HI", subtarget.major)
    return lambda wave: wave.hwregs.get(low, 0) | wave.hwregs.get(high, 0) << 32


def _scratch_offset(inst: Instruction) -> Addresses:
    """Per-lane private byte offsets of a ``scratch_*`` instruction. Without architected
    flat scratch (GFX9 before GFX940, GFX10), the kernel must have set FLAT_SCRATCH to the wave's
    private segment (flat scratch init + wave offset, as the dispatch hands them out)
    first: an access through anything else is an error, not a silent success."""
    offset = _signed_offset(inst)
    saddr = inst.scalar("saddr", 32) if inst.has("saddr") else None
    vaddr = inst.vector("vaddr", 32) if inst.has("vaddr") else None
    program = inst.program
    subtarget = None if program is None else load_target(program.processor).subtarget
    set_up_by_kernel = subtarget is not None and not subtarget.has_architected_flat_scratch
    read_flat_scratch = _flat_scratch_reader(subtarget) if set_up_by_kernel else None

    def offsets(wave: Wave) -> Vec:
        if read_flat_scratch is not None:
            flat_scratch = read_flat_scratch(wave)
            if flat_scratch != PRIVATE_APERTURE:
                raise EmulationError(
                    f"{inst.where}: scratch access with FLAT_SCRATCH = {flat_scratch:#x}, "
                    f"not the wave's private segment ({PRIVATE_APERTURE:#x}): the kernel "
                    "did not set it up from flat scratch init + wave offset")
        total = np.full(wave.lanes, offset, np.int64)
        if saddr is not None:
            total += np.int64(np.int32(np.uint32(saddr(wave))))
        if vaddr is not None:
            total += np.asarray(vaddr(wave), U32).view(np.int32).astype(np.int64)
        return total

    return offsets


class _Buffer:
    """MUBUF addressing through the V# in ``srsrc``: base (48 bits), stride (V# dword 1
    bits 29:16) and num_records (dword 2). The private segment buffer the dispatch hands out
    (base :data:`SCRATCH_BACKING`) addresses the lane's scratch: ``soffset`` counts
    wave-scaled bytes there, so it is divided by the wave size. Any other V# addresses global
    memory, unswizzled: base + soffset + offset (+ the VGPR offset, + index * stride); lanes
    out of the buffer's range read 0 and do not store, as the hardware's range check does."""

    def __init__(self, inst: Instruction) -> None:
        name = inst.desc.name
        self.offen = "OFFEN" in name or "BOTHEN" in name
        self.idxen = "IDXEN" in name or "BOTHEN" in name
        self.offset = int(inst.get("offset", 0))
        self.soffset = inst.scalar("soffset", 32) if inst.has("soffset") else None
        self.vaddr = inst.vector("vaddr", 64 if self.offen and self.idxen else 32) \
            if self.offen or self.idxen else None
        self.resource = inst.scalar("srsrc", 128)
        self.where = inst.where

    def resolve(self, wave: Wave) -> tuple[str, Vec, Mask]:
        """(space, per-lane address or private offset, lanes in range)."""
        words = self.resource(wave)
        base = words & 0xFFFFFFFFFFFF
        stride = (words >> 48) & 0x3FFF
        records = (words >> 64) & 0xFFFFFFFF
        add_tid = bool((words >> (96 + 23)) & 1)
        sgpr = self.soffset(wave) if self.soffset is not None else 0
        index = np.zeros(wave.lanes, np.int64)
        voffset = np.zeros(wave.lanes, np.int64)
        if self.vaddr is not None:
            raw = np.broadcast_to(np.asarray(self.vaddr(wave)), (wave.lanes,))
            if self.offen and self.idxen:
                index = (raw & U64(0xFFFFFFFF)).astype(np.int64)
                voffset = (raw >> U64(32)).astype(np.int64)
            elif self.idxen:
                index = raw.astype(np.int64)
            else:
                voffset = raw.astype(np.int64)
        if base == SCRATCH_BACKING:
            if self.idxen:
                raise EmulationError(f"{self.where}: indexed scratch access is not modelled")
            offsets = voffset + self.offset + sgpr // wave.lanes
            return "private", offsets, np.ones(wave.lanes, np.bool_)
        if add_tid:
            raise EmulationError(f"{self.where}: swizzled (ADD_TID_ENABLE) buffer access "
                                 "through a V# other than the private segment buffer is not "
                                 "modelled")
        offset = voffset + self.offset
        in_range = (index < records) if stride else (offset < records)
        addresses = (np.int64(base + sgpr) + offset + index * np.int64(stride)).astype(U64)
        return "global", addresses, in_range


def _located(where: str, error: EmulationError) -> EmulationError:
    """``error`` prefixed with the instruction, unless it already names one."""
    text = str(error)
    return error if text.startswith("'") else EmulationError(f"{where}: {text}")


def to_dwords(raw: Vec, nbytes: int, signed: bool) -> list[Vec]:
    """Loaded bytes ``(lanes, nbytes)`` as uint32 columns (sub-dword loads extended)."""
    if nbytes >= 4:
        words = np.ascontiguousarray(raw).view("<u4")
        return [words[:, k].astype(U32) for k in range(nbytes // 4)]
    value = raw[:, 0].astype(U32) if nbytes == 1 else np.ascontiguousarray(raw).view(
        "<u2")[:, 0].astype(U32)
    if signed:
        shift = 32 - 8 * nbytes
        value = ((value << U32(shift)).view(np.int32) >> np.int32(shift)).view(U32)
    return [value]


def from_dwords(columns: list[Vec], nbytes: int) -> Vec:
    words = np.stack([np.asarray(c, U32) for c in columns], axis=1).astype("<u4")
    return np.ascontiguousarray(words).view(np.uint8)[:, :nbytes]


class _Space:
    """Where a vector access goes: global memory, the workgroup's LDS, the lane's
    scratch; flat accesses pick one per lane by aperture."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def load(self, wave: Wave, where: Vec, mask: Mask, nbytes: int) -> Vec:
        if self.kind == "global":
            return wave.memory.load(where, mask, nbytes)
        if self.kind == "private":
            return wave.private.load(where, mask, nbytes)
        out = np.zeros((wave.lanes, nbytes), np.uint8)
        for space, lanes, local in _flat_split(where, mask):
            out[lanes] = _flat_space(wave, space).load(local, lanes, nbytes)[lanes]
        return out

    def store(self, wave: Wave, where: Vec, mask: Mask, data: Vec) -> None:
        if self.kind == "global":
            wave.memory.store(where, mask, data)
        elif self.kind == "private":
            wave.private.store(where, mask, data)
        else:
            for space, lanes, local in _flat_split(where, mask):
                _flat_space(wave, space).store(local, lanes, data)


def _flat_split(addresses: Vec, mask: Mask) -> list[tuple[str, Mask, Vec]]:
    addresses = np.asarray(addresses, U64)
    shared = (addresses >= U64(SHARED_APERTURE)) & (
        addresses < U64(SHARED_APERTURE + APERTURE_SIZE))
    private = (addresses >= U64(PRIVATE_APERTURE)) & (
        addresses < U64(PRIVATE_APERTURE + APERTURE_SIZE))
    parts: list[tuple[str, Mask, Vec]] = []
    if (mask & shared).any():
        parts.append(("lds", mask & shared, (addresses - U64(SHARED_APERTURE)) & U64(
            0xFFFFFFFF)))
    if (mask & private).any():
        parts.append(("private", mask & private, ((addresses - U64(PRIVATE_APERTURE)) & U64(
            0xFFFFFFFF)).astype(np.int64)))
    rest = mask & ~shared & ~private
    if rest.any():
        parts.append(("global", rest, addresses))
    return parts


class _FlatTarget:
    def __init__(self, wave: Wave, space: str) -> None:
        self.wave, self.space = wave, space

    def load(self, where: Vec, mask: Mask, nbytes: int) -> Vec:
        if self.space == "lds":
            return self.wave.workgroup.lds.load(where, mask, nbytes)
        if self.space == "private":
            return self.wave.private.load(where, mask, nbytes)
        return self.wave.memory.load(where, mask, nbytes)

    def store(self, where: Vec, mask: Mask, data: Vec) -> None:
        if self.space == "lds":
            self.wave.workgroup.lds.store(where, mask, data)
        elif self.space == "private":
            self.wave.private.store(where, mask, data)
        else:
            self.wave.memory.store(where, mask, data)


def _flat_space(wave: Wave, space: str) -> _FlatTarget:
    return _FlatTarget(wave, space)


def _family(mnemonic: str) -> tuple[str, str]:
    """``global_load_dwordx2`` -> ("global", "dwordx2"); buffer/scratch alike."""
    prefix, rest = mnemonic.split("_", 1)
    return prefix, rest.split("_", 1)[1]


Target = Callable[[Wave], tuple[_Space, Vec, Mask]]


def _addressing(inst: Instruction, prefix: str) -> Target:
    """Where each active lane's access goes: (space, address or offset, lanes)."""
    if prefix == "buffer":
        buffer = _Buffer(inst)
        spaces = {"global": _Space("global"), "private": _Space("private")}

        def through_resource(wave: Wave) -> tuple[_Space, Vec, Mask]:
            kind, where, in_range = buffer.resolve(wave)
            return spaces[kind], where, wave.active() & in_range
        return through_resource
    space = _Space({"global": "global", "flat": "flat", "scratch": "private"}[prefix])
    address = _scratch_offset(inst) if prefix == "scratch" else global_address(inst)
    return lambda wave: (space, address(wave), wave.active())


def _names(kind: str) -> list[str]:
    names: list[str] = []
    for prefix in ("global", "flat", "scratch", "buffer"):
        for width in _WIDTHS:
            if kind == "load" and width in ("byte", "short"):
                continue
            if kind == "store" and width in ("ubyte", "sbyte", "ushort", "sshort"):
                continue
            names.append(f"{prefix}_{kind}_{width}")
    return names


@semantics(*_names("load"))
def _load(inst: Instruction) -> Step:
    prefix, width = _family(inst.mnemonic)
    nbytes, signed = _WIDTHS[width]
    target = _addressing(inst, prefix)
    name = "vdst" if inst.desc.has("vdst") else "vdata"
    file, index, _ = inst.vdst(name)
    following = inst.next_pc
    where = inst.where
    if inst.desc.has("lds") and inst.get("lds", 0):
        raise inst.unsupported("loads into LDS are not modelled")

    def step(wave: Wave) -> int:
        try:
            space, where_, mask = target(wave)
            raw = space.load(wave, where_, mask, nbytes)
        except EmulationError as error:
            raise _located(where, error) from None
        for k, column in enumerate(to_dwords(raw, nbytes, signed)):
            if file == "v":
                wave.write_v(index + k, column)
            else:
                wave.write_a(index + k, column)
        return following

    return step


@semantics(*_names("store"))
def _store(inst: Instruction) -> Step:
    prefix, width = _family(inst.mnemonic)
    nbytes, _ = _WIDTHS[width]
    target = _addressing(inst, prefix)
    file, index, _ = inst.vdst("vdata")
    dwords = max(1, nbytes // 4)
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        registers = wave.v if file == "v" else wave.a
        data = from_dwords([registers[index + k] for k in range(dwords)], nbytes)
        try:
            space, where_, mask = target(wave)
            space.store(wave, where_, mask, data)
        except EmulationError as error:
            raise _located(where, error) from None
        return following

    return step


# -- atomics -------------------------------------------------------------------------------

def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def _float_add(bits: int) -> Callable[[int, int, int], int]:
    float_type, int_type = (np.float32, np.uint32) if bits == 32 else (np.float64, np.uint64)

    def op(old: int, data: int, _: int) -> int:
        total = int_type(old).view(float_type) + int_type(data).view(float_type)
        return int(np.asarray(total, float_type).view(int_type))
    return op


def _float_minmax(bits: int, pick: Callable[..., object]) -> Callable[[int, int, int], int]:
    float_type, int_type = (np.float32, np.uint32) if bits == 32 else (np.float64, np.uint64)

    def op(old: int, data: int, _: int) -> int:
        result = pick(int_type(old).view(float_type), int_type(data).view(float_type))
        return int(np.asarray(result, float_type).view(int_type))
    return op


def _float_cmpswap(bits: int) -> Callable[[int, int, int], int]:
    """Compare as floats (+0 equals -0, NaN equals nothing): ``ds_cmpst_f32/f64``."""
    float_type, int_type = (np.float32, np.uint32) if bits == 32 else (np.float64, np.uint64)

    def op(old: int, data: int, compare: int) -> int:
        equal = bool(int_type(old).view(float_type) == int_type(compare).view(float_type))
        return data if equal else old
    return op


def atomic_ops(bits: int) -> dict[str, Callable[[int, int, int], int]]:
    mask = (1 << bits) - 1
    return {
        "add": lambda old, data, _: (old + data) & mask,
        "sub": lambda old, data, _: (old - data) & mask,
        "rsub": lambda old, data, _: (data - old) & mask,
        "swap": lambda old, data, _: data,
        "cmpswap": lambda old, data, compare: data if old == compare else old,
        "smin": lambda old, data, _: old if _signed(old, bits) <= _signed(data, bits) else data,
        "smax": lambda old, data, _: old if _signed(old, bits) >= _signed(data, bits) else data,
        "umin": lambda old, data, _: min(old, data),
        "umax": lambda old, data, _: max(old, data),
        "and": lambda old, data, _: old & data,
        "or": lambda old, data, _: old | data,
        "xor": lambda old, data, _: old ^ data,
        "inc": lambda old, data, _: 0 if old >= data else old + 1,
        "dec": lambda old, data, _: data if old == 0 or old > data else old - 1,
        "add_f32": _float_add(32),
        "add_f64": _float_add(64),
        "min_f64": _float_minmax(64, np.fmin),
        "cmpswap_float": _float_cmpswap(bits),
        "min_f32": _float_minmax(32, np.fmin),
        "max_f32": _float_minmax(32, np.fmax),
        "max_f64": _float_minmax(64, np.fmax),
    }


def _atomic_names() -> list[str]:
    names: list[str] = []
    for op in atomic_ops(32):
        for prefix in ("global", "flat"):
            names.append(f"{prefix}_atomic_{op}")
            if op in ("min_f32", "max_f32", "rsub", "cmpswap_float"):
                continue  # LDS only
            if not op.startswith(("add_f", "min_f", "max_f")):
                names.append(f"{prefix}_atomic_{op}_x2")
    return names


@semantics(*_atomic_names())
def _atomic(inst: Instruction) -> Step:
    prefix, rest = inst.mnemonic.split("_atomic_", 1)
    wide = rest.endswith("_x2") or rest.endswith("f64")
    op_name = rest.removesuffix("_x2")
    bits = 64 if wide else 32
    fn = atomic_ops(bits)[op_name]
    nbytes = bits // 8
    dwords = bits // 32
    address = global_address(inst)
    flat = prefix == "flat"
    _, data_index, _ = inst.vdst("vdata")
    returns = inst.desc.has("vdst") and inst.get("vdst") is not None
    result_index = inst.vdst()[1] if returns else 0
    compare = op_name == "cmpswap"
    following = inst.next_pc
    where = inst.where

    def lane_value(wave: Wave, first: int, lane: int) -> int:
        value = 0
        for k in range(dwords):
            value |= int(wave.v[first + k, lane]) << (32 * k)
        return value

    def step(wave: Wave) -> int:
        addresses = np.asarray(address(wave), U64)
        active = np.flatnonzero(wave.active()).tolist()
        olds: list[tuple[int, int]] = []
        for lane in active:
            at = int(addresses[lane])
            if flat and not (at < SHARED_APERTURE or at >= PRIVATE_APERTURE + APERTURE_SIZE):
                raise EmulationError(f"{where}: flat atomics on LDS or scratch are not "
                                     "modelled")
            data = lane_value(wave, data_index, lane)
            expected = lane_value(wave, data_index + dwords, lane) if compare else 0
            try:
                old = int.from_bytes(wave.memory.read(at, nbytes, "atomic"), "little")
                wave.memory.write(at, fn(old, data, expected).to_bytes(nbytes, "little"),
                                  "atomic")
            except EmulationError as error:
                raise EmulationError(f"{where}: {error} (lane {lane})") from None
            olds.append((lane, old))
        if returns:
            for lane, old in olds:
                for k in range(dwords):
                    wave.v[result_index + k, lane] = (old >> (32 * k)) & 0xFFFFFFFF
        return following

    return step


# -- D16: 16-bit halves of a VGPR ----------------------------------------------------------

#: ``<width>_d16[_hi]`` load -> (bytes, sign-extend to 16 bits).
_D16_LOADS = {"ubyte": (1, False), "sbyte": (1, True), "short": (2, False)}


def _d16_names() -> list[str]:
    names: list[str] = []
    for prefix in ("global", "flat", "scratch", "buffer"):
        for width in _D16_LOADS:
            names += [f"{prefix}_load_{width}_d16", f"{prefix}_load_{width}_d16_hi"]
        names += [f"{prefix}_store_byte_d16_hi", f"{prefix}_store_short_d16_hi"]
    return names


@semantics(*[name for name in _d16_names() if "_load_" in name])
def _load_d16(inst: Instruction) -> Step:
    """Load 8 or 16 bits into one half of the VGPR (extended to 16 bits), keeping the other
    half."""
    prefix, rest = inst.mnemonic.split("_load_", 1)
    width = rest.split("_d16")[0]
    high = rest.endswith("_hi")
    nbytes, signed = _D16_LOADS[width]
    target = _addressing(inst, prefix)
    name = "vdst" if inst.desc.has("vdst") else "vdata"
    _, index, _ = inst.vdst(name)
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        try:
            space, where_, mask = target(wave)
            raw = space.load(wave, where_, mask, nbytes)
        except EmulationError as error:
            raise _located(where, error) from None
        (value,) = to_dwords(raw, nbytes, signed)
        wave.write_v(index, merge_d16(wave.v[index], value, high))
        return following

    return step


@semantics(*[name for name in _d16_names() if "_store_" in name])
def _store_d16_hi(inst: Instruction) -> Step:
    """Store the low 8 or 16 bits of the VGPR's high half."""
    prefix, rest = inst.mnemonic.split("_store_", 1)
    nbytes = 1 if rest.startswith("byte") else 2
    target = _addressing(inst, prefix)
    _, index, _ = inst.vdst("vdata")
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        data = from_dwords([wave.v[index] >> U32(16)], nbytes)
        try:
            space, where_, mask = target(wave)
            space.store(wave, where_, mask, data)
        except EmulationError as error:
            raise _located(where, error) from None
        return following

    return step
