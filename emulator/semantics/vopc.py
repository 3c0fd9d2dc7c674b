"""VALU compares (VOPC and their VOP3 forms): ``v_cmp_*``, ``v_cmpx_*``, ``v_cmp_class_*``.

The result is a lane mask: bit i is the comparison of lane i for active lanes and 0 for
inactive ones. It goes to VCC (VOPC encoding) or to the SGPR pair ``sdst`` (VOP3); the
``cmpx`` forms also write it to EXEC (on GFX9 they write both). Float compares follow IEEE:
ordered relations are false when either operand is NaN, the ``n*`` (negated) relations
are true then, ``o``/``u`` test for no/any NaN.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.semantics.vop import base_name, half_source, mask_destination, source
from luthier.emulator.state import EXEC, Vec, Wave, bits_of

Relation = Callable[[Vec, Vec], Vec]

_ORDERED: dict[str, Relation] = {
    "f": lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_),
    "lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "t": lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_),
}
_INTEGER: dict[str, Relation] = {**_ORDERED, "ne": lambda a, b: a != b,
                                 "lg": lambda a, b: a != b}
#: Float relations by the name a compare carries (``lt``, ``nge``, ``o``...), IEEE on NaN;
#: the SALU compares of GFX12 (:mod:`.salu_float`) use them too.
FLOAT_RELATIONS: dict[str, Relation] = {
    **_ORDERED,
    "lg": lambda a, b: (a < b) | (a > b),
    "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)),
    "ngt": lambda a, b: ~(a > b), "nle": lambda a, b: ~(a <= b),
    "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b),
    "tru": lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_),
}

_TYPES: dict[str, tuple[int, Callable[[Vec], Vec], dict[str, Relation]]] = {
    "i32": (32, lambda x: np.asarray(x, np.uint32).view(np.int32), _INTEGER),
    "u32": (32, lambda x: np.asarray(x, np.uint32), _INTEGER),
    "i64": (64, lambda x: np.asarray(x, np.uint64).view(np.int64), _INTEGER),
    "u64": (64, lambda x: np.asarray(x, np.uint64), _INTEGER),
    "f32": (32, lambda x: np.asarray(x, np.uint32).view(np.float32), FLOAT_RELATIONS),
    "f64": (64, lambda x: np.asarray(x, np.uint64).view(np.float64), FLOAT_RELATIONS),
    "f16": (32, lambda x: (np.asarray(x, np.uint32) & np.uint32(0xFFFF)).astype(
        np.uint16).view(np.float16), FLOAT_RELATIONS),
    "i16": (32, lambda x: (np.asarray(x, np.uint32) & np.uint32(0xFFFF)).astype(
        np.uint16).view(np.int16), _INTEGER),
    "u16": (32, lambda x: (np.asarray(x, np.uint32) & np.uint32(0xFFFF)).astype(
        np.uint16), _INTEGER),
}


def _class(values: Vec, classes: Vec, bits: int) -> Vec:
    """v_cmp_class: is the value in any class whose bit is set in ``classes``? Bits: 0
    signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
    8 +normal, 9 +inf."""
    if bits == 16:
        raw = (np.asarray(values, np.uint32) & np.uint32(0xFFFF)).astype(np.uint16)
        value = raw.view(np.float16)
        quiet_bit = 1 << 9
    else:
        raw = np.asarray(values, np.uint64 if bits == 64 else np.uint32)
        value = raw.view(np.float64 if bits == 64 else np.float32)
        quiet_bit = (1 << 51) if bits == 64 else (1 << 22)
    negative = np.signbit(value)
    nan = np.isnan(value)
    quiet = nan & ((raw & raw.dtype.type(quiet_bit)) != 0)
    tiny = np.finfo(value.dtype).tiny
    magnitude = np.abs(value)
    zero = magnitude == 0
    denormal = (magnitude < tiny) & ~zero
    infinite = np.isinf(value)
    normal = ~(nan | infinite | zero | denormal)
    flags = [nan & ~quiet, quiet, infinite & negative, normal & negative, denormal & negative,
             zero & negative, zero & ~negative, denormal & ~negative, normal & ~negative,
             infinite & ~negative]
    mask = np.asarray(classes, np.uint32)
    result = np.zeros(np.broadcast(raw, mask).shape, np.bool_)
    for bit, flag in enumerate(flags):
        result |= flag & ((mask >> np.uint32(bit)) & np.uint32(1)).astype(np.bool_)
    return result


def _compare_names() -> list[str]:
    names: list[str] = []
    for kind, (_, _, relations) in _TYPES.items():
        for relation in relations:
            names += [f"v_cmp_{relation}_{kind}", f"v_cmpx_{relation}_{kind}"]
    return names + [f"v_cmp{x}_class_{kind}" for x in ("", "x")
                    for kind in ("f16", "f32", "f64")]


@semantics(*_compare_names())
def _compare(inst: Instruction) -> Step:
    name = base_name(inst.mnemonic)
    _, prefix, relation, kind = name.split("_")
    writes_exec = prefix == "cmpx"
    bits, view, relations = _TYPES[kind]
    # A 16-bit operand is a half of its register, with its own sign bit (half_source).
    half = kind in ("f16", "i16", "u16")
    if relation == "class":
        read0 = half_source(inst, "src0", 0, True) if half else source(inst, "src0", bits)
        read1 = source(inst, "src1", 32)
        width = 16 if kind == "f16" else bits

        def test(wave: Wave) -> Vec:
            return _class(read0(wave), read1(wave), width)
    else:
        fn = relations[relation]
        if half:
            floats = kind == "f16"
            read0 = half_source(inst, "src0", 0, floats)
            read1 = half_source(inst, "src1", 1, floats)
        else:
            read0, read1 = source(inst, "src0", bits), source(inst, "src1", bits)

        def test(wave: Wave) -> Vec:
            return fn(view(read0(wave)), view(read1(wave)))

    has_sdst = inst.desc.has("sdst") and inst.get("sdst") is not None
    write = mask_destination(inst, "sdst") if has_sdst or "VCC" in inst.desc.defs else None
    following = inst.next_pc

    def step(wave: Wave) -> int:
        flags = test(wave)
        if write is not None:
            write(wave, flags)
        if writes_exec:
            bits_value = bits_of(np.asarray(flags, np.bool_) & wave.active())
            wave.s[EXEC] = bits_value & 0xFFFFFFFF
            wave.s[EXEC + 1] = bits_value >> 32
        return following

    return step
