"""Integer division: ``arith.divui``/``remui``/``divsi``/``remsi`` on ``i32`` and ``i64``.

No AMDGPU instruction divides integers. A 32-bit division is the sequence LLVM's AMDGPU
backend expands ``udiv``/``urem`` into: an estimate of 2^32/y from the f32 reciprocal
(``v_rcp_iflag_f32`` of y converted to float, scaled by 0x4F7FFFFE, just under 2^32, and
converted back), one Newton-Raphson step in integer arithmetic, the quotient estimate
``mulhi(x, z)``, and two steps that add one to the quotient (and take y from the remainder)
while the remainder is still at least y. It is exact for every x and y other than 0.

A 64-bit division is restoring long division, one quotient bit per step from the top: the
remainder shifted left takes the next bit of x, and y is taken from it where it fits. That is
about 700 instructions, straight-line (no branch, so it works the same for every lane);
a hook that knows its values fit in 32 bits should divide them as ``i32``.

Signed division divides the magnitudes, then gives the quotient the sign of x XOR y and the
remainder the sign of x (C's and LLVM's truncating division). Division by a constant zero is
refused; by a zero known only at run time, the result is unspecified, as LLVM's is. Like the
float operations, a uniform division runs in lane 0 alone (:func:`.computed.vector_computed`).
"""

from __future__ import annotations

from xdsl.dialects import arith

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.lowering.isel.computed import vector_computed, vgpr
from luthier.lowering.isel.selector import SelectionError, Selector
from luthier.lowering.isel.values import Value, width_of

DivisionOp = arith.DivUIOp | arith.RemUIOp | arith.DivSIOp | arith.RemSIOp

#: 2^32 - 512 as an f32 (0x4F7FFFFE, LLVM's constant): scales the reciprocal estimate so
#: that its integer part stays below 2^32 whatever the rounding of the estimate. The
#: preamble's launch-size division (:mod:`~luthier.passes.preamble.fill`) uses it too.
RECIPROCAL_SCALE = 0x4F7FFFFE


def _signed(value: int, width: int) -> int:
    return value - (1 << width) if value >> (width - 1) & 1 else value


def _folded(op: DivisionOp, x: int, y: int, width: int) -> int:
    """The result of ``op`` on constants (``y`` is not zero)."""
    if isinstance(op, arith.DivUIOp | arith.RemUIOp):
        quotient, remainder = divmod(x, y)
    else:
        a, b = _signed(x, width), _signed(y, width)
        quotient = abs(a) // abs(b) * (-1 if (a < 0) != (b < 0) else 1)
        remainder = a - quotient * b
    chosen = quotient if isinstance(op, arith.DivUIOp | arith.DivSIOp) else remainder
    return chosen & ((1 << width) - 1)


def lower_division(sel: Selector, op: DivisionOp) -> None:
    x, y = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.result)
    if width not in (32, 64):
        raise SelectionError(f"{op.name} on i{width} is not supported (i32 or i64)")
    if y.const == 0:
        raise SelectionError(f"{op.name} divides by the constant 0")
    if x.const is not None and y.const is not None:
        sel.define(op.result, Value(width, True, const=_folded(op, x.const, y.const, width)))
        return
    signed = isinstance(op, arith.DivSIOp | arith.RemSIOp)
    wants_quotient = isinstance(op, arith.DivUIOp | arith.DivSIOp)

    def compute(dest: VirtRegAttr) -> None:
        lhs, rhs = sel.vreg(x), sel.vreg(y)
        if signed:
            result = _signed_divide(sel, lhs, rhs, width, wants_quotient)
        else:
            result = _unsigned_divide(sel, lhs, rhs, width, wants_quotient)
        _copy(sel, dest, result, width)

    vector_computed(sel, op, [x, y], compute)


def _copy(sel: Selector, dest: VirtRegAttr, source: VirtRegAttr, width: int) -> None:
    pairs = [(dest, source)] if width == 32 else [(dest.part(i), source.part(i)) for i in (0, 1)]
    for to, source_half in pairs:
        sel.emit("v_mov_b32_e32", [to, source_half])


def _unsigned_divide(sel: Selector, x: VirtRegAttr, y: VirtRegAttr, width: int,
                     wants_quotient: bool) -> VirtRegAttr:
    """x / y or x % y, unsigned."""
    divide = _divide32 if width == 32 else _divide64
    return divide(sel, x, y, wants_quotient)


def _divide32(sel: Selector, x: VirtRegAttr, y: VirtRegAttr,
              wants_quotient: bool) -> VirtRegAttr:
    """x / y or x % y unsigned, LLVM's expansion (see the module's docstring)."""
    as_float, reciprocal, scaled, estimate = (vgpr(sel) for _ in range(4))
    sel.emit("v_cvt_f32_u32_e32", [as_float, y])
    sel.emit("v_rcp_iflag_f32_e32", [reciprocal, as_float])
    scale = sel.vreg(Value(32, True, const=RECIPROCAL_SCALE))
    sel.emit("v_mul_f32_e32", [scaled, scale, reciprocal])
    sel.emit("v_cvt_u32_f32_e32", [estimate, scaled])
    negated, error, correction, refined = (vgpr(sel) for _ in range(4))
    sel.emit("v_sub_u32_e64", [negated, 0, y])
    sel.emit("v_mul_lo_u32", [error, negated, estimate])
    sel.emit("v_mul_hi_u32", [correction, estimate, error])
    sel.emit("v_add_u32_e64", [refined, estimate, correction])
    quotient, product, remainder = (vgpr(sel) for _ in range(3))
    sel.emit("v_mul_hi_u32", [quotient, x, refined])
    sel.emit("v_mul_lo_u32", [product, quotient, y])
    sel.emit("v_sub_u32_e64", [remainder, x, product])
    for step in range(2):
        # The last step makes only the result that is asked for.
        last = step == 1
        fits = sel.new(sel.lane_mask_class)
        sel.emit("v_cmp_ge_u32_e64", [fits, remainder, y])
        if wants_quotient or not last:
            more, next_quotient = vgpr(sel), vgpr(sel)
            sel.emit("v_add_u32_e64", [more, quotient, 1])
            sel.emit("v_cndmask_b32_e64", [next_quotient, quotient, more, fits])
            quotient = next_quotient
        if not wants_quotient or not last:
            less, next_remainder = vgpr(sel), vgpr(sel)
            sel.emit("v_sub_u32_e64", [less, remainder, y])
            sel.emit("v_cndmask_b32_e64", [next_remainder, remainder, less, fits])
            remainder = next_remainder
    return quotient if wants_quotient else remainder


def _divide64(sel: Selector, x: VirtRegAttr, y: VirtRegAttr,
              wants_quotient: bool) -> VirtRegAttr:
    """x / y or x % y unsigned, by restoring long division (see the module's docstring)."""
    remainder = vgpr(sel, 64)
    quotient = vgpr(sel, 64)
    for index in (0, 1):
        sel.emit("v_mov_b32_e32", [remainder.part(index), 0])
        if wants_quotient:
            sel.emit("v_mov_b32_e32", [quotient.part(index), 0])
    for bit in range(63, -1, -1):
        half, position = divmod(bit, 32)
        shifted, taken = vgpr(sel, 64), vgpr(sel)
        # remainder = remainder << 1 | bit of x
        sel.emit("v_lshlrev_b64", [shifted, 1, remainder])
        sel.emit("v_bfe_u32", [taken, x.part(half), position, 1])
        sel.emit("v_or_b32_e64", [shifted.part(0), shifted.part(0), taken])
        fits, borrow = sel.new(sel.lane_mask_class), sel.new(sel.lane_mask_class)
        sel.emit("v_cmp_ge_u64_e64", [fits, shifted, y])
        less = vgpr(sel, 64)
        sel.emit("v_sub_co_u32_e64", [less.part(0), borrow, shifted.part(0), y.part(0)])
        sel.emit("v_subb_co_u32_e64", [less.part(1), sel.new(sel.lane_mask_class), shifted.part(1),
                                       y.part(1), borrow])
        remainder = vgpr(sel, 64)
        for index in (0, 1):
            sel.emit("v_cndmask_b32_e64", [remainder.part(index), shifted.part(index),
                                           less.part(index), fits])
        if not wants_quotient:
            continue
        # quotient |= fits << bit
        chosen, with_bit = vgpr(sel), vgpr(sel, 64)
        sel.emit("v_cndmask_b32_e64", [chosen, 0, 1, fits])
        sel.emit("v_lshl_or_b32", [with_bit.part(half), chosen, position,
                                   quotient.part(half)])
        sel.emit("v_mov_b32_e32", [with_bit.part(1 - half), quotient.part(1 - half)])
        quotient = with_bit
    return quotient if wants_quotient else remainder


def _signed_divide(sel: Selector, x: VirtRegAttr, y: VirtRegAttr, width: int,
                   wants_quotient: bool) -> VirtRegAttr:
    """x / y or x % y, truncating: the magnitudes divided, then the signs given back."""
    sign_x, magnitude_x = magnitude(sel, x, width)
    sign_y, magnitude_y = magnitude(sel, y, width)
    result = _unsigned_divide(sel, magnitude_x, magnitude_y, width, wants_quotient)
    if wants_quotient:
        sign = vgpr(sel)
        sel.emit("v_xor_b32_e64", [sign, sign_x, sign_y])
        return _apply_sign(sel, result, sign, width)
    return _apply_sign(sel, result, sign_x, width)


def magnitude(sel: Selector, value: VirtRegAttr, width: int) -> tuple[VirtRegAttr, VirtRegAttr]:
    """(sign, |value|) of a 32- or 64-bit VGPR value: sign is 0 or all ones (the top bit
    spread over 32 bits), |value| is (value + sign) ^ sign (the most negative value stays
    itself, which read unsigned is its magnitude)."""
    sign = vgpr(sel)
    high = value if width == 32 else value.part(1)
    sel.emit("v_ashrrev_i32_e64", [sign, 31, high])
    return sign, _apply_sign(sel, value, sign, width, add=True)


def _apply_sign(sel: Selector, value: VirtRegAttr, sign: VirtRegAttr, width: int,
                add: bool = False) -> VirtRegAttr:
    """(value ^ sign) - sign, or with ``add`` (value + sign) ^ sign: negation where sign is
    all ones, nothing where it is 0."""
    if width == 32:
        first, result = vgpr(sel), vgpr(sel)
        if add:
            sel.emit("v_add_u32_e64", [first, value, sign])
            sel.emit("v_xor_b32_e64", [result, first, sign])
        else:
            sel.emit("v_xor_b32_e64", [first, value, sign])
            sel.emit("v_sub_u32_e64", [result, first, sign])
        return result
    first, result = vgpr(sel, 64), vgpr(sel, 64)
    carry = sel.new(sel.lane_mask_class)
    if add:
        sel.emit("v_add_co_u32_e64", [first.part(0), carry, value.part(0), sign])
        sel.emit("v_addc_co_u32_e64", [first.part(1), sel.new(sel.lane_mask_class), value.part(1),
                                       sign, carry])
        for index in (0, 1):
            sel.emit("v_xor_b32_e64", [result.part(index), first.part(index), sign])
        return result
    for index in (0, 1):
        sel.emit("v_xor_b32_e64", [first.part(index), value.part(index), sign])
    sel.emit("v_sub_co_u32_e64", [result.part(0), carry, first.part(0), sign])
    sel.emit("v_subb_co_u32_e64", [result.part(1), sel.new(sel.lane_mask_class), first.part(1),
                                   sign, carry])
    return result
