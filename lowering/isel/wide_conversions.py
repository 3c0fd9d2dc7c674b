"""Conversions between 64-bit integers and floats: ``arith.sitofp``/``uitofp`` of an
``i64`` and ``arith.fptosi``/``fptoui`` to an ``i64``.

No instruction converts a 64-bit integer; the sequences are LLVM's AMDGPU expansions:

* ``i64 -> f64``: the high half converted (signed or unsigned) and scaled by 2^32 with
  ``v_ldexp_f64``, plus the low half converted unsigned. Both terms are exact, so the one
  rounding is the addition's: the correctly rounded result.
* ``u64 -> f32``: normalised so that the top set bit is bit 63 (the shift is the high
  half's leading zeros, ``v_ffbh_u32``, at most 32), the high 32 bits with a sticky bit for
  anything nonzero below them are converted (one rounding, to nearest even: the sticky bit
  lies far below the rounding position, so it only breaks exact halves), and
  ``v_ldexp_f32`` scales back. ``s64 -> f32`` converts the magnitude and restores the sign
  (rounding to nearest even is symmetric).
* ``f64 -> i64``: the value truncated toward zero, its high half ``floor(t / 2^32)`` and
  low half ``t - high * 2^32`` (an FMA, exact), each converted to 32 bits. ``f32`` is
  first widened to ``f64`` (exactly). Out-of-range values and NaN give an unspecified
  result, as LLVM's ``fptosi``/``fptoui`` (poison) do.

Like every VALU computation, a uniform conversion runs in lane 0 alone
(:func:`.computed.vector_computed`).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.lowering.isel.computed import vector_computed, vgpr
from luthier.lowering.isel.division import magnitude
from luthier.lowering.isel.selector import Selector
from luthier.lowering.isel.values import Value, width_of

#: 2^-32 and -2^32 as f64 bits (the split of a truncated f64 into 32-bit halves).
_TWO_TO_MINUS_32 = 0x3DF0000000000000
_MINUS_TWO_TO_32 = 0xC1F0000000000000
_SIGN32 = 1 << 31


def is_wide_conversion(op: Operation) -> bool:
    """Whether ``op`` converts between an ``i64`` and a float (this module's ops)."""
    if isinstance(op, arith.SIToFPOp | arith.UIToFPOp):
        return width_of(op.operands[0]) == 64
    if isinstance(op, arith.FPToSIOp | arith.FPToUIOp):
        return width_of(op.results[0]) == 64
    return False


def lower_wide_conversion(sel: Selector, op: Operation) -> None:
    source = sel.value(op.operands[0])
    width = width_of(op.results[0])
    signed = isinstance(op, arith.SIToFPOp | arith.FPToSIOp)

    def compute(dest: VirtRegAttr) -> None:
        value = sel.vreg(source)
        if isinstance(op, arith.SIToFPOp | arith.UIToFPOp):
            if width == 64:
                _integer_to_f64(sel, dest, value, signed)
            else:
                _integer_to_f32(sel, dest, value, signed)
        else:
            _float_to_integer(sel, dest, value, source.width, signed)

    vector_computed(sel, op, [source], compute)


def _integer_to_f64(sel: Selector, dest: VirtRegAttr, value: VirtRegAttr, signed: bool) -> None:
    high, scaled, low = vgpr(sel, 64), vgpr(sel, 64), vgpr(sel, 64)
    sel.emit("v_cvt_f64_i32_e32" if signed else "v_cvt_f64_u32_e32", [high, value.part(1)])
    sel.emit("v_ldexp_f64", [scaled, high, 32])
    sel.emit("v_cvt_f64_u32_e32", [low, value.part(0)])
    sel.emit("v_add_f64", [dest, scaled, low])


def _integer_to_f32(sel: Selector, dest: VirtRegAttr, value: VirtRegAttr, signed: bool) -> None:
    sign: VirtRegAttr | None = None
    if signed:
        sign, value = magnitude(sel, value, 64)
    leading, shift, normalised = vgpr(sel), vgpr(sel), vgpr(sel, 64)
    sel.emit("v_ffbh_u32_e32", [leading, value.part(1)])
    sel.emit("v_min_u32_e64", [shift, leading, 32])
    sel.emit("v_lshlrev_b64", [normalised, shift, value])
    sticky, top, converted, exponent = vgpr(sel), vgpr(sel), vgpr(sel), vgpr(sel)
    sel.emit("v_min_u32_e64", [sticky, normalised.part(0), 1])
    sel.emit("v_or_b32_e64", [top, normalised.part(1), sticky])
    sel.emit("v_cvt_f32_u32_e32", [converted, top])
    sel.emit("v_sub_u32_e64", [exponent, 32, shift])
    if sign is None:
        sel.emit("v_ldexp_f32", [dest, converted, exponent])
        return
    unsigned, sign_bit = vgpr(sel), vgpr(sel)
    sel.emit("v_ldexp_f32", [unsigned, converted, exponent])
    sel.emit("v_and_b32_e64", [sign_bit, sel.vreg(Value(32, True, const=_SIGN32)), sign])
    sel.emit("v_xor_b32_e64", [dest, unsigned, sign_bit])


def _float_to_integer(sel: Selector, dest: VirtRegAttr, value: VirtRegAttr, width: int,
                      signed: bool) -> None:
    if width == 32:
        widened = vgpr(sel, 64)
        sel.emit("v_cvt_f64_f32_e32", [widened, value])
        value = widened
    truncated, scaled, high, low = (vgpr(sel, 64) for _ in range(4))
    sel.emit("v_trunc_f64_e32", [truncated, value])
    sel.emit("v_mul_f64", [scaled, truncated,
                           sel.vreg(Value(64, True, const=_TWO_TO_MINUS_32))])
    sel.emit("v_floor_f64_e32", [high, scaled])
    sel.emit("v_fma_f64", [low, high, sel.vreg(Value(64, True, const=_MINUS_TWO_TO_32)),
                           truncated])
    sel.emit("v_cvt_i32_f64_e32" if signed else "v_cvt_u32_f64_e32", [dest.part(1), high])
    sel.emit("v_cvt_u32_f64_e32", [dest.part(0), low])
