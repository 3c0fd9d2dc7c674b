"""Scalar ALU: SOP1, SOP2, SOPK, SOPC and the EXEC-manipulating ``s_*_saveexec`` forms.

Values are Python ints holding the register bits (32 or 64 of them); signed views are
taken where the ISA says signed. SCC is written exactly where the ISA writes it: the carry
or borrow of unsigned add/sub, signed overflow of ``s_add_i32``/``s_sub_i32``/
``s_addk_i32``, "result is non-zero" for bitwise ops, shifts, ``s_bcnt*``, ``s_bfe*``,
``s_not``, ``s_abs``, and the comparison result for SOPC.
"""

from __future__ import annotations

from collections.abc import Callable

from luthier.emulator.errors import EmulationError
from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.state import M0, NULL, Wave

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
KEEP = -1


def s32(value: int) -> int:
    """The signed value of 32 bits."""
    return value - (1 << 32) if value & 0x80000000 else value


def s64(value: int) -> int:
    return value - (1 << 64) if value & (1 << 63) else value


def _nz(value: int) -> int:
    return int(value != 0)


def _add_overflow(a: int, b: int, result: int) -> int:
    """Signed overflow of a 32-bit add: operands agree in sign, result differs."""
    return int(((a ^ result) & (b ^ result) & 0x80000000) != 0)


def _sub_overflow(a: int, b: int, result: int) -> int:
    return int(((a ^ b) & (a ^ result) & 0x80000000) != 0)


# (a, b, scc) -> (result, new scc or KEEP)
Binary = Callable[[int, int, int], tuple[int, int]]


def _add_u32(a: int, b: int, c: int) -> tuple[int, int]:
    r = a + b
    return r & M32, r >> 32


def _addc_u32(a: int, b: int, c: int) -> tuple[int, int]:
    r = a + b + c
    return r & M32, r >> 32


def _sub_u32(a: int, b: int, c: int) -> tuple[int, int]:
    return (a - b) & M32, int(b > a)


def _subb_u32(a: int, b: int, c: int) -> tuple[int, int]:
    return (a - b - c) & M32, int(b + c > a)


def _add_i32(a: int, b: int, c: int) -> tuple[int, int]:
    r = (a + b) & M32
    return r, _add_overflow(a, b, r)


def _sub_i32(a: int, b: int, c: int) -> tuple[int, int]:
    r = (a - b) & M32
    return r, _sub_overflow(a, b, r)


def _logic(fn: Callable[[int, int], int], mask: int) -> Binary:
    def op(a: int, b: int, c: int) -> tuple[int, int]:
        r = fn(a, b) & mask
        return r, int(r != 0)
    return op


def _shift(fn: Callable[[int, int], int], mask: int) -> Binary:
    return _logic(fn, mask)


def _bfe_u(bits: int) -> Binary:
    def op(a: int, b: int, c: int) -> tuple[int, int]:
        offset, width = b & (bits - 1), (b >> 16) & 0x7F
        r = (a >> offset) & ((1 << width) - 1) if width else 0
        return r, _nz(r)
    return op


def _bfe_i(bits: int) -> Binary:
    """``tmp = (S0.i >> offset) & mask; signext_from_bit(tmp, width)``: the shift is
    arithmetic, so a field reaching past the top bit is sign-extended from it."""
    def op(a: int, b: int, c: int) -> tuple[int, int]:
        offset, width = b & (bits - 1), (b >> 16) & 0x7F
        if width == 0:
            return 0, 0
        width = min(width, bits)
        signed = a - (1 << bits) if a >> (bits - 1) else a
        field = (signed >> offset) & ((1 << width) - 1)
        if field & (1 << (width - 1)):
            field -= 1 << width
        r = field & ((1 << bits) - 1)
        return r, _nz(r)
    return op


SOP2: dict[str, tuple[int, Binary]] = {
    "s_add_u32": (32, _add_u32), "s_addc_u32": (32, _addc_u32),
    "s_sub_u32": (32, _sub_u32), "s_subb_u32": (32, _subb_u32),
    "s_add_i32": (32, _add_i32), "s_sub_i32": (32, _sub_i32),
    "s_mul_i32": (32, lambda a, b, c: ((a * b) & M32, KEEP)),
    "s_mul_hi_u32": (32, lambda a, b, c: ((a * b) >> 32, KEEP)),
    "s_mul_hi_i32": (32, lambda a, b, c: (((s32(a) * s32(b)) >> 32) & M32, KEEP)),
    "s_min_i32": (32, lambda a, b, c: (a, 1) if s32(a) < s32(b) else (b, 0)),
    "s_min_u32": (32, lambda a, b, c: (a, 1) if a < b else (b, 0)),
    "s_max_i32": (32, lambda a, b, c: (a, 1) if s32(a) > s32(b) else (b, 0)),
    "s_max_u32": (32, lambda a, b, c: (a, 1) if a > b else (b, 0)),
    "s_cselect_b32": (32, lambda a, b, c: (a if c else b, KEEP)),
    "s_cselect_b64": (64, lambda a, b, c: (a if c else b, KEEP)),
    # D = S0.i - S1.i in 32 bits, negated if negative (ISA examples: (0x80000000, 1) =>
    # 0x7fffffff, (0x80000000, 0) => 0x80000000)
    "s_absdiff_i32": (32, _logic(lambda a, b: abs(s32((a - b) & M32)), M32)),
    "s_lshl1_add_u32": (32, lambda a, b, c: (((a << 1) + b) & M32, int((a << 1) + b > M32))),
    "s_lshl2_add_u32": (32, lambda a, b, c: (((a << 2) + b) & M32, int((a << 2) + b > M32))),
    "s_lshl3_add_u32": (32, lambda a, b, c: (((a << 3) + b) & M32, int((a << 3) + b > M32))),
    "s_lshl4_add_u32": (32, lambda a, b, c: (((a << 4) + b) & M32, int((a << 4) + b > M32))),
    "s_pack_ll_b32_b16": (32, lambda a, b, c: ((a & 0xFFFF) | ((b & 0xFFFF) << 16), KEEP)),
    "s_pack_lh_b32_b16": (32, lambda a, b, c: ((a & 0xFFFF) | (b & 0xFFFF0000), KEEP)),
    "s_pack_hh_b32_b16": (32, lambda a, b, c: ((a >> 16) | (b & 0xFFFF0000), KEEP)),
    "s_bfe_u32": (32, _bfe_u(32)), "s_bfe_i32": (32, _bfe_i(32)),
    "s_bfe_u64": (64, _bfe_u(64)), "s_bfe_i64": (64, _bfe_i(64)),
    "s_bfm_b32": (32, lambda a, b, c: ((((1 << (a & 31)) - 1) << (b & 31)) & M32, KEEP)),
    "s_bfm_b64": (64, lambda a, b, c: ((((1 << (a & 63)) - 1) << (b & 63)) & M64, KEEP)),
    # GFX12: 64-bit adds that leave SCC alone.
    "s_add_nc_u64": (64, lambda a, b, c: ((a + b) & M64, KEEP)),
    "s_sub_nc_u64": (64, lambda a, b, c: ((a - b) & M64, KEEP)),
    # GFX12: the low 64 bits of the product (the same for signed operands); SCC kept.
    "s_mul_u64": (64, lambda a, b, c: ((a * b) & M64, KEEP)),
}
for _bits, _mask in ((32, M32), (64, M64)):
    _suffix = f"_b{_bits}"
    SOP2["s_and" + _suffix] = (_bits, _logic(lambda a, b: a & b, _mask))
    SOP2["s_or" + _suffix] = (_bits, _logic(lambda a, b: a | b, _mask))
    SOP2["s_xor" + _suffix] = (_bits, _logic(lambda a, b: a ^ b, _mask))
    SOP2["s_andn2" + _suffix] = (_bits, _logic(lambda a, b, m=_mask: a & ~b & m, _mask))
    SOP2["s_orn2" + _suffix] = (_bits, _logic(lambda a, b, m=_mask: (a | ~b) & m, _mask))
    SOP2["s_nand" + _suffix] = (_bits, _logic(lambda a, b, m=_mask: ~(a & b) & m, _mask))
    SOP2["s_nor" + _suffix] = (_bits, _logic(lambda a, b, m=_mask: ~(a | b) & m, _mask))
    SOP2["s_xnor" + _suffix] = (_bits, _logic(lambda a, b, m=_mask: ~(a ^ b) & m, _mask))
SOP2["s_lshl_b32"] = (32, _shift(lambda a, b: a << (b & 31), M32))
SOP2["s_lshr_b32"] = (32, _shift(lambda a, b: a >> (b & 31), M32))
SOP2["s_ashr_i32"] = (32, _shift(lambda a, b: s32(a) >> (b & 31), M32))
SOP2["s_lshl_b64"] = (64, _shift(lambda a, b: a << (b & 63), M64))
SOP2["s_lshr_b64"] = (64, _shift(lambda a, b: a >> (b & 63), M64))
SOP2["s_ashr_i64"] = (64, _shift(lambda a, b: s64(a) >> (b & 63), M64))

#: Widths of the second source where it differs from the destination (shift amounts).
_SRC1_BITS = {"s_lshl_b64": 32, "s_lshr_b64": 32, "s_ashr_i64": 32, "s_bfe_u64": 32,
              "s_bfe_i64": 32, "s_bfm_b64": 32}


@semantics(*SOP2)
def _sop2(inst: Instruction) -> Step:
    bits, fn = SOP2[inst.mnemonic]
    read0 = inst.scalar("src0", bits)
    read1 = inst.scalar("src1", _SRC1_BITS.get(inst.mnemonic, bits))
    index, dwords = inst.sdst()
    following = inst.next_pc
    if dwords == 1:
        def step32(wave: Wave) -> int:
            value, scc = fn(read0(wave), read1(wave), wave.scc)
            wave.s[index] = value
            if scc >= 0:
                wave.scc = scc
            return following
        return step32

    if dwords == 2 and index != NULL:
        def step64(wave: Wave) -> int:
            value, scc = fn(read0(wave), read1(wave), wave.scc)
            wave.s[index] = value & M32
            wave.s[index + 1] = value >> 32
            if scc >= 0:
                wave.scc = scc
            return following
        return step64

    def step(wave: Wave) -> int:
        value, scc = fn(read0(wave), read1(wave), wave.scc)
        wave.write_s(index, dwords, value)
        if scc >= 0:
            wave.scc = scc
        return following

    return step


def _popcount(value: int) -> int:
    return bin(value).count("1")


def _ff1(bits: int) -> Callable[[int], int]:
    def op(value: int) -> int:
        if value == 0:
            return M32
        return (value & -value).bit_length() - 1
    return op


def _ff0(bits: int) -> Callable[[int], int]:
    inner = _ff1(bits)
    return lambda value: inner(~value & ((1 << bits) - 1))


def _flbit(bits: int) -> Callable[[int], int]:
    """Leading zeros counted from the MSB; -1 (all ones) for zero."""
    return lambda value: bits - value.bit_length() if value else M32


def _flbit_i32(value: int) -> int:
    """Leading bits equal to the sign bit, from the MSB; -1 when all bits are equal."""
    if value in (0, M32):
        return M32
    if value & 0x80000000:
        value = ~value & M32
    return 32 - value.bit_length()


def _flbit_signed(value: int, bits: int) -> int:
    """Leading bits equal to the sign bit (from the MSB); -1 when all bits are equal."""
    if value in (0, (1 << bits) - 1):
        return M32
    if value >> (bits - 1):
        value = ~value & ((1 << bits) - 1)
    return bits - value.bit_length()


def _quadmask(value: int, bits: int) -> int:
    """Bit i set when any bit of quad i (bits 4i..4i+3) is set."""
    return sum(1 << quad for quad in range(bits // 4) if (value >> (4 * quad)) & 0xF)


def _wqm(value: int, bits: int) -> int:
    """Each quad with any bit set gets all four set (whole quad mode)."""
    return sum(0xF << (4 * quad) for quad in range(bits // 4) if (value >> (4 * quad)) & 0xF)


def _brev(bits: int) -> Callable[[int], int]:
    return lambda value: int(f"{value:0{bits}b}"[::-1], 2)


# (value) -> result; whether SCC is "result != 0"; destination / source widths
SOP1: dict[str, tuple[int, int, bool, Callable[[int], int]]] = {
    "s_mov_b32": (32, 32, False, lambda a: a),
    "s_mov_b64": (64, 64, False, lambda a: a),
    "s_not_b32": (32, 32, True, lambda a: ~a & M32),
    "s_not_b64": (64, 64, True, lambda a: ~a & M64),
    "s_brev_b32": (32, 32, False, _brev(32)),
    "s_brev_b64": (64, 64, False, _brev(64)),
    "s_bcnt0_i32_b32": (32, 32, True, lambda a: 32 - _popcount(a)),
    "s_bcnt0_i32_b64": (32, 64, True, lambda a: 64 - _popcount(a)),
    "s_bcnt1_i32_b32": (32, 32, True, _popcount),
    "s_bcnt1_i32_b64": (32, 64, True, _popcount),
    "s_ff0_i32_b32": (32, 32, False, _ff0(32)),
    "s_ff0_i32_b64": (32, 64, False, _ff0(64)),
    "s_ff1_i32_b32": (32, 32, False, _ff1(32)),
    "s_ff1_i32_b64": (32, 64, False, _ff1(64)),
    "s_flbit_i32_b32": (32, 32, False, _flbit(32)),
    "s_flbit_i32": (32, 32, False, _flbit_i32),
    "s_flbit_i32_b64": (32, 64, False, _flbit(64)),
    "s_sext_i32_i8": (32, 32, False, lambda a: (a & 0xFF) - ((a & 0x80) << 1) & M32),
    "s_sext_i32_i16": (32, 32, False, lambda a: (a & 0xFFFF) - ((a & 0x8000) << 1) & M32),
    "s_abs_i32": (32, 32, True, lambda a: abs(s32(a)) & M32),
    "s_flbit_i32_i64": (32, 64, False, lambda a: _flbit_signed(a, 64)),
    "s_quadmask_b32": (32, 32, True, lambda a: _quadmask(a, 32)),
    "s_quadmask_b64": (64, 64, True, lambda a: _quadmask(a, 64)),
    "s_wqm_b32": (32, 32, True, lambda a: _wqm(a, 32)),
    "s_wqm_b64": (64, 64, True, lambda a: _wqm(a, 64)),
    "s_bitreplicate_b64_b32": (64, 32, False, lambda a: sum(
        ((a >> k) & 1) * (3 << (2 * k)) for k in range(32))),
}


@semantics(*SOP1)
def _sop1(inst: Instruction) -> Step:
    _, src_bits, sets_scc, fn = SOP1[inst.mnemonic]
    read = inst.scalar("src0", src_bits)
    index, dwords = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        value = fn(read(wave))
        wave.write_s(index, dwords, value)
        if sets_scc:
            wave.scc = int(value != 0)
        return following

    return step


@semantics("s_bitset0_b32", "s_bitset1_b32", "s_bitset0_b64", "s_bitset1_b64")
def _bitset(inst: Instruction) -> Step:
    """D[S0 bit index] = 0 or 1; the other bits of D are kept."""
    bits = 64 if inst.mnemonic.endswith("64") else 32
    value = 1 if "bitset1" in inst.mnemonic else 0
    read = inst.scalar("src0", 32)
    index, dwords = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        bit = read(wave) & (bits - 1)
        old = wave.read_s(index, dwords)
        wave.write_s(index, dwords, (old & ~(1 << bit)) | (value << bit))
        return following

    return step


@semantics("s_movrels_b32", "s_movrels_b64", "s_movreld_b32", "s_movreld_b64")
def _movrel(inst: Instruction) -> Step:
    """SGPR indexing by M0: ``s_movrels`` reads SGPR[src + M0], ``s_movreld`` writes
    SGPR[dst + M0]."""
    dwords = 2 if inst.mnemonic.endswith("64") else 1
    source_index, _ = inst.sdst("src0")
    target_index, _ = inst.sdst()
    relative_source = inst.mnemonic.startswith("s_movrels")
    following = inst.next_pc
    where = inst.where

    def step(wave: Wave) -> int:
        offset = wave.s[M0]
        source, target = (source_index + offset, target_index) if relative_source else \
            (source_index, target_index + offset)
        if max(source, target) + dwords > 102:
            raise EmulationError(f"{where}: M0-relative SGPR index past s101")
        wave.write_s(target, dwords, wave.read_s(source, dwords))
        return following

    return step


@semantics("s_cmov_b32", "s_cmov_b64")
def _cmov(inst: Instruction) -> Step:
    bits = 64 if inst.mnemonic.endswith("64") else 32
    read = inst.scalar("src0", bits)
    index, dwords = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        if wave.scc:
            wave.write_s(index, dwords, read(wave))
        return following

    return step


# -- EXEC manipulation ---------------------------------------------------------------------

_SAVEEXEC: dict[str, Callable[[int, int], int]] = {
    "and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
    "andn2": lambda s, e: s & ~e, "orn2": lambda s, e: s | ~e, "nand": lambda s, e: ~(s & e),
    "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e),
    "andn1": lambda s, e: ~s & e, "orn1": lambda s, e: ~s | e,
}


@semantics(*(f"s_{name}_saveexec_{width}" for name in _SAVEEXEC for width in ("b64", "b32")),
           "s_andn1_wrexec_b64", "s_andn2_wrexec_b64", "s_andn1_wrexec_b32",
           "s_andn2_wrexec_b32")
def _saveexec(inst: Instruction) -> Step:
    name = inst.mnemonic.removeprefix("s_").rsplit("_", 2)[0]
    writes_new = "wrexec" in inst.mnemonic
    fn = _SAVEEXEC[name]
    # The _b32 forms (wave32) read and write EXEC_LO alone.
    bits = 32 if inst.mnemonic.endswith("_b32") else 64
    mask = M32 if bits == 32 else M64
    read = inst.scalar("src0", bits)
    index, dwords = inst.sdst()
    following = inst.next_pc

    def step(wave: Wave) -> int:
        source = read(wave)
        old = wave.exec_bits & mask
        new = fn(source, old) & mask
        wave.exec_bits = new
        wave.write_s(index, dwords, new if writes_new else old)
        wave.scc = int((new & wave.full) != 0)
        return following

    return step


# -- SOPK ----------------------------------------------------------------------------------

def _simm16(value: int) -> int:
    value &= 0xFFFF
    return value - 0x10000 if value & 0x8000 else value


@semantics("s_movk_i32", "s_cmovk_i32", "s_addk_i32", "s_mulk_i32")
def _sopk(inst: Instruction) -> Step:
    index, _ = inst.sdst()
    immediate = _simm16(inst.get("simm16", 0))
    following = inst.next_pc
    if inst.mnemonic == "s_movk_i32":
        value = immediate & M32

        def movk(wave: Wave) -> int:
            wave.s[index] = value
            return following
        return movk
    if inst.mnemonic == "s_cmovk_i32":
        value = immediate & M32

        def cmovk(wave: Wave) -> int:
            if wave.scc:
                wave.s[index] = value
            return following
        return cmovk
    if inst.mnemonic == "s_mulk_i32":
        def mulk(wave: Wave) -> int:
            wave.s[index] = (s32(wave.s[index]) * immediate) & M32
            return following
        return mulk
    addend = immediate & M32

    def addk(wave: Wave) -> int:
        old = wave.s[index]
        result = (old + addend) & M32
        wave.s[index] = result
        wave.scc = _add_overflow(old, addend, result)
        return following

    return addk


# -- SOPC and SOPK compares ----------------------------------------------------------------

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
}


def _compare_names() -> list[str]:
    names: list[str] = []
    for relation in _COMPARE:
        for kind in ("i32", "u32"):
            names += [f"s_cmp_{relation}_{kind}", f"s_cmpk_{relation}_{kind}"]
    return names + ["s_cmp_eq_u64", "s_cmp_lg_u64"]


@semantics(*_compare_names())
def _compare(inst: Instruction) -> Step:
    parts = inst.mnemonic.split("_")
    relation, kind = parts[2], parts[3]
    fn = _COMPARE[relation]
    following = inst.next_pc
    if parts[1] == "cmpk":
        read0 = inst.scalar("sdst", 32)
        raw = inst.get("simm16", 0) & 0xFFFF
        constant = _simm16(raw) if kind == "i32" else raw
        if kind == "i32":
            def cmpk_i(wave: Wave) -> int:
                wave.scc = int(fn(s32(read0(wave)), constant))
                return following
            return cmpk_i

        def cmpk_u(wave: Wave) -> int:
            wave.scc = int(fn(read0(wave), constant))
            return following
        return cmpk_u
    bits = 64 if kind == "u64" else 32
    read0, read1 = inst.scalar("src0", bits), inst.scalar("src1", bits)
    if kind == "i32":
        def cmp_i(wave: Wave) -> int:
            wave.scc = int(fn(s32(read0(wave)), s32(read1(wave))))
            return following
        return cmp_i

    def cmp_u(wave: Wave) -> int:
        wave.scc = int(fn(read0(wave), read1(wave)))
        return following

    return cmp_u


@semantics("s_bitcmp0_b32", "s_bitcmp1_b32", "s_bitcmp0_b64", "s_bitcmp1_b64")
def _bitcmp(inst: Instruction) -> Step:
    bits = 64 if inst.mnemonic.endswith("64") else 32
    want = 1 if "bitcmp1" in inst.mnemonic else 0
    read0, read1 = inst.scalar("src0", bits), inst.scalar("src1", 32)
    following = inst.next_pc

    def step(wave: Wave) -> int:
        wave.scc = int(((read0(wave) >> (read1(wave) & (bits - 1))) & 1) == want)
        return following

    return step
