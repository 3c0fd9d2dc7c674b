"""``arith`` on ``f32``/``f64`` to VALU instructions.

GFX9 has no scalar floating-point unit: every float operation is a VALU instruction. A
per-lane operation runs for the active lanes, as the integer ones do. A uniform one (every
operand the same in all lanes) must still give the wave one value even where the point's
EXEC is empty, so it runs in lane 0 alone (EXEC = 1, saved and restored, as a once-per-wave
store does) and ``v_readfirstlane_b32`` brings the result to an SGPR. Registers hold the
IEEE bits, so constants are their bit patterns, a bitcast is free, and ``negf`` flips the
sign bit with an integer XOR (SALU when uniform).

Rounding is the hardware's: round to nearest even (the descriptor's float mode), one
rounding per operation, as LLVM's ``fadd``/``fmul`` ask. ``math.fma`` is
``v_fma_f32``/``v_fma_f64``: the product and sum rounded once.

``arith.divf`` is the correctly rounded IEEE quotient, by the sequence LLVM's AMDGPU
backend expands ``fdiv`` into (no instruction divides): ``v_div_scale`` scales denominator
and numerator out of the range where the reciprocal would lose bits, ``v_rcp`` estimates
1/d, Newton-Raphson steps in FMAs refine the reciprocal and the quotient, ``v_div_fmas``
takes the last step and undoes a numerator scaling (VCC, which the second ``v_div_scale``
sets, says where), and ``v_div_fixup`` gives the special cases (NaN, infinities, zeros,
overflow) their IEEE results. VCC is the application's: it is saved and restored around the
sequence. The f32 refinement needs denormal results, so MODE's f32 denormal field is saved,
set to "keep denormals" and restored around the FMAs (the application may flush them; LLVM
does the same when a function's mode flushes). The f64 sequence runs in the f64 mode as
it is, as LLVM's does.
"""

from __future__ import annotations

import struct

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr
from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.builder import BuildOperand
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.mc.operand_syntax import hwreg
from luthier.lowering.isel.computed import vector_computed, vgpr
from luthier.lowering.isel.memory import single_lane
from luthier.lowering.isel.selector import SelectionError, Selector
from luthier.lowering.isel.values import (
    SGPR_CLASS,
    VGPR_CLASS,
    Value,
    width_of,
)
from luthier.lowering.isel.wide_conversions import is_wide_conversion, lower_wide_conversion

_SIGN = {32: 1 << 31, 64: 1 << 63}

#: arith.cmpf predicates -> VOPC conditions (``o``rdered ones false on NaN, ``u``nordered
#: ones true: the ``n*`` conditions are the negations, true when either operand is NaN).
_CONDITIONS = {
    "oeq": "eq", "ogt": "gt", "oge": "ge", "olt": "lt", "ole": "le", "one": "lg",
    "ord": "o", "uno": "u", "ueq": "nlg", "ugt": "nle", "uge": "nlt", "ult": "nge",
    "ule": "ngt", "une": "neq",
}

#: Two-operand operations: (f32 instruction, f64 instruction or None).
_BINARY: dict[type[Operation], tuple[str, str | None]] = {
    arith.AddfOp: ("v_add_f32_e64", "v_add_f64"),
    arith.SubfOp: ("v_sub_f32_e64", None),  # f64: an addition of the negated operand
    arith.MulfOp: ("v_mul_f32_e64", "v_mul_f64"),
    arith.MinnumfOp: ("v_min_f32_e64", "v_min_f64"),
    arith.MaxnumfOp: ("v_max_f32_e64", "v_max_f64"),
}

#: Conversions: (op, source width, result width) -> instruction.
_CONVERSIONS: dict[tuple[type[Operation], int, int], str] = {
    (arith.SIToFPOp, 32, 32): "v_cvt_f32_i32_e32", (arith.UIToFPOp, 32, 32): "v_cvt_f32_u32_e32",
    (arith.SIToFPOp, 32, 64): "v_cvt_f64_i32_e32", (arith.UIToFPOp, 32, 64): "v_cvt_f64_u32_e32",
    (arith.FPToSIOp, 32, 32): "v_cvt_i32_f32_e32", (arith.FPToUIOp, 32, 32): "v_cvt_u32_f32_e32",
    (arith.FPToSIOp, 64, 32): "v_cvt_i32_f64_e32", (arith.FPToUIOp, 64, 32): "v_cvt_u32_f64_e32",
    (arith.ExtFOp, 32, 64): "v_cvt_f64_f32_e32", (arith.TruncFOp, 64, 32): "v_cvt_f32_f64_e32",
}


def float_bits(attr: FloatAttr) -> tuple[int, int]:
    """(width, IEEE bits) of a float constant."""
    width = width_of_type(attr)
    value = float(attr.value.data)
    if width == 32:
        return 32, struct.unpack("<I", struct.pack("<f", value))[0]
    return 64, struct.unpack("<Q", struct.pack("<d", value))[0]


def width_of_type(attr: FloatAttr) -> int:
    bits = attr.type.bitwidth
    if bits not in (32, 64):
        raise SelectionError(f"arith.constant of {attr.type} is not supported (f32 or f64)")
    return bits


def _negated(sel: Selector, value: Value) -> Value:
    """``-value`` (the sign bit flipped), uniform if ``value`` is."""
    width = value.width
    if value.const is not None:
        return Value(width, True, const=value.const ^ _SIGN[width])
    high = value.half(1) if width == 64 else value
    if value.uniform:
        reg = sel.new(SGPR_CLASS[width])
        flipped = reg.part(1) if width == 64 else reg
        if width == 64:
            sel.emit("s_mov_b32", [reg.part(0), sel.ssrc(value.half(0))])
        sel.emit("s_xor_b32", [flipped, sel.ssrc(high), _SIGN[32] - (1 << 32)])
        return Value(width, True, reg=reg)
    reg = sel.new(VGPR_CLASS[width])
    flipped = reg.part(1) if width == 64 else reg
    if width == 64:
        sel.emit("v_mov_b32_e32", [reg.part(0), sel.vreg(value.half(0))])
    sel.emit("v_xor_b32_e32", [flipped, _SIGN[32] - (1 << 32), sel.vreg(high)])
    return Value(width, False, reg=reg)


def _sources(sel: Selector, values: list[Value], width: int) -> list[BuildOperand]:
    """VALU sources for a float operation. A constant other than +0.0 goes through a VGPR
    (``v_mov_b32`` of its bits): an integer inline constant in a float slot would not mean
    its bits on every operand width. Called inside the computation, so under a uniform
    operation's EXEC = lane 0."""
    placed = [Value(width, False, reg=sel.vreg(value))
              if value.const is not None and value.const != 0 else value for value in values]
    return sel.vsrcs(placed, width)


def _binary(sel: Selector, op: Operation) -> None:
    a, b = sel.value(op.operands[0]), sel.value(op.operands[1])
    width = width_of(op.results[0])
    f32, f64 = _BINARY[type(op)]
    if width == 64 and isinstance(op, arith.SubfOp):
        b, f64 = _negated(sel, b), "v_add_f64"
    mnemonic = f32 if width == 32 else f64
    assert mnemonic is not None

    def compute(dest: VirtRegAttr) -> None:
        sel.emit(mnemonic, [dest, *_sources(sel, [a, b], width)])

    vector_computed(sel, op, [a, b], compute)


def _fma(sel: Selector, op: math.FmaOp) -> None:
    """``a * b + c`` rounded once."""
    operands = [sel.value(operand) for operand in (op.a, op.b, op.c)]
    width = width_of(op.result)
    mnemonic = "v_fma_f32" if width == 32 else "v_fma_f64"

    def compute(dest: VirtRegAttr) -> None:
        sel.emit(mnemonic, [dest, *_sources(sel, operands, width)])

    vector_computed(sel, op, operands, compute)


def _truncate(sel: Selector, op: math.TruncOp) -> None:
    """``math.trunc``: rounded toward zero to an integral value (``v_trunc_f32``/``_f64``)."""
    source = sel.value(op.operand)
    width = width_of(op.result)
    mnemonic = "v_trunc_f32_e32" if width == 32 else "v_trunc_f64_e32"

    def compute(dest: VirtRegAttr) -> None:
        sel.emit(mnemonic, [dest, *_sources(sel, [source], width)])

    vector_computed(sel, op, [source], compute)


#: MODE's f32 denormal field (bits 5:4), as ``s_getreg``/``s_setreg`` name it:
#: ``hwreg(HW_REG_MODE, 4, 2)``; 3 keeps denormal inputs and results.
_MODE_F32_DENORM = hwreg(1, 4, 2)
_KEEP_DENORMALS = 3
#: IEEE 1.0.
_ONE = {32: 0x3F800000, 64: 0x3FF0000000000000}


def _divide(sel: Selector, op: arith.DivfOp) -> None:
    """``lhs / rhs`` correctly rounded (see the module's docstring)."""
    x, y = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.result)

    def compute(dest: VirtRegAttr) -> None:
        # Every operand in a VGPR: v_div_fmas reads VCC, which takes GFX9's constant bus.
        lhs, rhs = sel.vreg(x), sel.vreg(y)
        saved_vcc = sel.new(sel.lane_mask_class)
        sel.emit(sel.mask_op("s_mov"), [saved_vcc, sel.vcc])
        if width == 32:
            _divide_f32(sel, dest, lhs, rhs)
        else:
            _divide_f64(sel, dest, lhs, rhs)
        sel.emit(sel.mask_op("s_mov"), [sel.vcc, saved_vcc])

    vector_computed(sel, op, [x, y], compute)


def _divide_f32(sel: Selector, dest: VirtRegAttr, lhs: VirtRegAttr, rhs: VirtRegAttr) -> None:
    denominator, numerator, estimate = vgpr(sel, 32), vgpr(sel, 32), vgpr(sel, 32)
    sel.emit("v_div_scale_f32", [denominator, sel.vcc, rhs, rhs, lhs])
    sel.emit("v_div_scale_f32", [numerator, sel.vcc, lhs, rhs, lhs])
    sel.emit("v_rcp_f32_e32", [estimate, denominator])
    negated = sel.vreg(_negated(sel, Value(32, False, reg=denominator)))
    one = sel.vreg(Value(32, True, const=_ONE[32]))
    mode = sel.new(SGPR_CLASS[32])
    sel.emit("s_getreg_b32", [mode, _MODE_F32_DENORM])
    sel.emit("s_setreg_imm32_b32", [_MODE_F32_DENORM, _KEEP_DENORMALS])
    error, reciprocal, quotient = vgpr(sel, 32), vgpr(sel, 32), vgpr(sel, 32)
    sel.emit("v_fma_f32", [error, negated, estimate, one])
    sel.emit("v_fma_f32", [reciprocal, error, estimate, estimate])
    sel.emit("v_mul_f32_e64", [quotient, numerator, reciprocal])
    residual, refined, last = vgpr(sel, 32), vgpr(sel, 32), vgpr(sel, 32)
    sel.emit("v_fma_f32", [residual, negated, quotient, numerator])
    sel.emit("v_fma_f32", [refined, residual, reciprocal, quotient])
    sel.emit("v_fma_f32", [last, negated, refined, numerator])
    sel.emit("s_setreg_b32", [_MODE_F32_DENORM, mode])
    scaled = vgpr(sel, 32)
    sel.emit("v_div_fmas_f32", [scaled, last, reciprocal, refined])
    sel.emit("v_div_fixup_f32", [dest, scaled, rhs, lhs])


def _divide_f64(sel: Selector, dest: VirtRegAttr, lhs: VirtRegAttr, rhs: VirtRegAttr) -> None:
    denominator, estimate = vgpr(sel, 64), vgpr(sel, 64)
    sel.emit("v_div_scale_f64", [denominator, sel.vcc, rhs, rhs, lhs])
    sel.emit("v_rcp_f64_e32", [estimate, denominator])
    negated = sel.vreg(_negated(sel, Value(64, False, reg=denominator)))
    one = sel.vreg(Value(64, True, const=_ONE[64]))
    error, reciprocal, error2 = vgpr(sel, 64), vgpr(sel, 64), vgpr(sel, 64)
    sel.emit("v_fma_f64", [error, negated, estimate, one])
    sel.emit("v_fma_f64", [reciprocal, estimate, error, estimate])
    sel.emit("v_fma_f64", [error2, negated, reciprocal, one])
    numerator, refined, quotient = vgpr(sel, 64), vgpr(sel, 64), vgpr(sel, 64)
    sel.emit("v_div_scale_f64", [numerator, sel.vcc, lhs, rhs, lhs])
    sel.emit("v_fma_f64", [refined, reciprocal, error2, reciprocal])
    sel.emit("v_mul_f64", [quotient, numerator, refined])
    residual, scaled = vgpr(sel, 64), vgpr(sel, 64)
    sel.emit("v_fma_f64", [residual, negated, quotient, numerator])
    sel.emit("v_div_fmas_f64", [scaled, residual, refined, quotient])
    sel.emit("v_div_fixup_f64", [dest, scaled, rhs, lhs])


def _conversion(sel: Selector, op: Operation) -> None:
    source = sel.value(op.operands[0])
    key = (type(op), source.width, width_of(op.results[0]))
    mnemonic = _CONVERSIONS.get(key)
    if mnemonic is None:
        raise SelectionError(f"{op.name} from {op.operands[0].type} to {op.results[0].type} "
                             "is not supported (conversions between 32- or 64-bit integers "
                             "and f32/f64, and between f32 and f64)")

    def compute(dest: VirtRegAttr) -> None:
        operand: BuildOperand = _sources(sel, [source], source.width)[0]
        sel.emit(mnemonic, [dest, operand])

    vector_computed(sel, op, [source], compute)


def _compare(sel: Selector, op: arith.CmpfOp) -> None:
    predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    if predicate in ("false", "true"):
        sel.define(op.result, Value(1, True, const=int(predicate == "true")))
        return
    a, b = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.lhs)
    mnemonic = f"v_cmp_{_CONDITIONS[predicate]}_f{width}_e64"
    if not (a.uniform and b.uniform):
        mask = sel.new(sel.lane_mask_class)
        sel.emit(mnemonic, [mask, *_sources(sel, [a, b], width)])
        sel.define(op.result, Value(1, False, reg=mask))
        return
    mask = sel.new(sel.lane_mask_class)

    def compare() -> None:
        sel.emit(mnemonic, [mask, *_sources(sel, [a, b], width)])

    single_lane(sel, compare)
    truth = sel.new(SGPR_CLASS[1])
    sel.emit("s_and_b32", [truth, mask.part(0), 1])  # lane 0's bit: 0 or 1
    sel.define(op.result, Value(1, True, reg=truth))


def lower_float(sel: Selector, op: Operation) -> bool:
    """Lower ``op`` if it is a float ``arith`` operation; False otherwise."""
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, FloatAttr):
        width, bits = float_bits(op.value)
        sel.define(op.result, Value(width, True, const=bits))
    elif type(op) in _BINARY:
        _binary(sel, op)
    elif isinstance(op, math.FmaOp):
        _fma(sel, op)
    elif isinstance(op, math.TruncOp):
        _truncate(sel, op)
    elif isinstance(op, arith.NegfOp):
        sel.define(op.result, _negated(sel, sel.value(op.operand)))
    elif isinstance(op, arith.CmpfOp):
        _compare(sel, op)
    elif is_wide_conversion(op):
        lower_wide_conversion(sel, op)
    elif isinstance(op, arith.SIToFPOp | arith.UIToFPOp | arith.FPToSIOp | arith.FPToUIOp
                    | arith.ExtFOp | arith.TruncFOp):
        _conversion(sel, op)
    elif isinstance(op, arith.BitcastOp):
        if width_of(op.result) != width_of(op.input):
            raise SelectionError(f"arith.bitcast from {op.input.type} to {op.result.type} "
                                 "changes the width")
        sel.define(op.result, sel.value(op.input))
    elif isinstance(op, arith.DivfOp):
        _divide(sel, op)
    else:
        return False
    return True
