"""``arith`` on ``i1``/``i32``/``i64`` to SALU (uniform) or VALU (per lane) instructions.

Operations on two constants fold. 64-bit values are register pairs: additions chain the
carry through SCC (SALU) or an SGPR-pair carry (VALU); bitwise operations work per half.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.builder import BuildOperand
from luthier.lowering.isel.division import lower_division
from luthier.lowering.isel.selector import SelectionError, Selector
from luthier.lowering.isel.values import SGPR_CLASS, VGPR_CLASS, Value, width_of

_MASK64 = (1 << 64) - 1


def _result(sel: Selector, op: Operation, uniform: bool) -> Value:
    width = width_of(op.results[0])
    if width == 1:
        reg = sel.new(SGPR_CLASS[1] if uniform else sel.lane_mask_class)
    else:
        reg = sel.new(SGPR_CLASS[width] if uniform else VGPR_CLASS[width])
    value = Value(width, uniform, reg=reg)
    sel.define(op.results[0], value)
    return value


def _fold(op: Operation, operands: list[Value]) -> int | None:
    """The constant result of ``op`` on constant operands, or None."""
    if any(value.const is None for value in operands):
        return None
    width = width_of(op.results[0])
    mask = (1 << width) - 1
    a = operands[0].const or 0
    b = operands[1].const if len(operands) > 1 else 0
    b = b or 0
    results: dict[type[Operation], Callable[[], int]] = {
        arith.AddiOp: lambda: a + b, arith.SubiOp: lambda: a - b, arith.MuliOp: lambda: a * b,
        arith.AndIOp: lambda: a & b, arith.OrIOp: lambda: a | b, arith.XOrIOp: lambda: a ^ b,
        arith.ShLIOp: lambda: a << (b % width) if b < width else 0,
    }
    compute = results.get(type(op))
    return compute() & mask if compute is not None else None


def _folded(sel: Selector, op: Operation, operands: list[Value]) -> bool:
    """Define ``op``'s result as a constant when its operands are constants."""
    folded = _fold(op, operands)
    if folded is None:
        return False
    sel.define(op.results[0], Value(width_of(op.results[0]), True, const=folded))
    return True


# -- add, sub, mul -----------------------------------------------------------------------


def _signed64(value: int) -> int:
    value &= _MASK64
    return value - (1 << 64) if value >> 63 else value


def _moved_address(sel: Selector, op: arith.AddiOp | arith.SubiOp, a: Value,
                   b: Value) -> bool:
    """``global_addr @g`` plus (or minus) a constant, when nothing else reads the address:
    the same ``global_addr`` with the constant added to its offset, which the relocations
    carry (``g@rel32@lo+4+C``): a table entry costs no addition at run time."""
    if width_of(op.result) != 64:
        return False
    terms = ((a, op.lhs, b, 1), (b, op.rhs, a, 1)) if isinstance(op, arith.AddiOp) \
        else ((a, op.lhs, b, -1),)
    for address, operand, other, sign in terms:
        if address.address is None or other.const is None or not operand.has_one_use():
            continue
        intrinsic = address.address
        offset = intrinsic.attributes.get("offset")
        moved = (offset.value.data if isinstance(offset, IntegerAttr) else 0) \
            + sign * _signed64(other.const)
        intrinsic.attributes["offset"] = IntegerAttr(_signed64(moved), i64)
        sel.define(op.result, address)
        return True
    return False


def lower_add_sub(sel: Selector, op: arith.AddiOp | arith.SubiOp) -> None:
    a, b = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.result)
    if _folded(sel, op, [a, b]) or _moved_address(sel, op, a, b):
        return
    if width not in (32, 64):
        raise SelectionError(f"{op.name} on i{width} is not supported")
    add = isinstance(op, arith.AddiOp)
    uniform = a.uniform and b.uniform
    result = _result(sel, op, uniform)
    assert result.reg is not None
    if uniform:
        if width == 32:
            sel.emit("s_add_u32" if add else "s_sub_u32", [result.reg, sel.ssrc(a), sel.ssrc(b)])
            return
        low, carry = ("s_add_u32", "s_addc_u32") if add else ("s_sub_u32", "s_subb_u32")
        sel.emit(low, [result.reg.part(0), sel.ssrc(a.half(0)), sel.ssrc(b.half(0))])
        sel.emit(carry, [result.reg.part(1), sel.ssrc(a.half(1)), sel.ssrc(b.half(1))])
        return
    if width == 32:
        sel.emit("v_add_u32_e64" if add else "v_sub_u32_e64", [result.reg, *sel.vsrcs([a, b])])
        return
    carry_out = sel.new(sel.lane_mask_class)
    low, high = ("v_add_co_u32_e64", "v_addc_co_u32_e64") if add \
        else ("v_sub_co_u32_e64", "v_subb_co_u32_e64")
    sel.emit(low, [result.reg.part(0), carry_out, *sel.vsrcs([a.half(0), b.half(0)])])
    sel.emit(high, [result.reg.part(1), sel.new(sel.lane_mask_class),
                    *sel.vsrcs([a.half(1), b.half(1)], mask_operand=True), carry_out])


def lower_mul(sel: Selector, op: arith.MuliOp) -> None:
    a, b = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.result)
    if _folded(sel, op, [a, b]):
        return
    if width not in (32, 64):
        raise SelectionError(f"arith.muli on i{width} is not supported")
    uniform = a.uniform and b.uniform
    result = _result(sel, op, uniform)
    assert result.reg is not None
    if width == 32:
        _mul_low(sel, uniform, result.reg, a, b)
        return
    # (ah:al) * (bh:bl) mod 2^64 = al*bl + ((al*bh + ah*bl) << 32); a cross product with
    # a constant zero half is left out (extended 32-bit values have one).
    cls = SGPR_CLASS[32] if uniform else VGPR_CLASS[32]
    high = sel.new(cls)
    _mul_low(sel, uniform, result.reg.part(0), a.half(0), b.half(0))
    if uniform:
        sel.emit("s_mul_hi_u32", [high, sel.ssrc(a.half(0)), sel.ssrc(b.half(0))])
    else:
        sel.emit("v_mul_hi_u32", [high, *sel.vsrcs([a.half(0), b.half(0)])])
    crosses = [(x, y) for x, y in ((a.half(0), b.half(1)), (a.half(1), b.half(0)))
               if x.const != 0 and y.const != 0]
    add = "s_add_u32" if uniform else "v_add_u32_e64"
    for index, (x, y) in enumerate(crosses):
        cross = sel.new(cls)
        _mul_low(sel, uniform, cross, x, y)
        dest = result.reg.part(1) if index == len(crosses) - 1 else high
        sel.emit(add, [dest, high, cross])
    if not crosses:
        sel.emit("s_mov_b32" if uniform else "v_mov_b32_e32", [result.reg.part(1), high])


def _mul_low(sel: Selector, uniform: bool, dest: BuildOperand, a: Value, b: Value) -> None:
    if uniform:
        sel.emit("s_mul_i32", [dest, sel.ssrc(a), sel.ssrc(b)])
    else:
        sel.emit("v_mul_lo_u32", [dest, *sel.vsrcs([a, b])])


# -- bitwise -----------------------------------------------------------------------------

_BITWISE = {arith.AndIOp: "and", arith.OrIOp: "or", arith.XOrIOp: "xor"}


def lower_bitwise(sel: Selector, op: arith.AndIOp | arith.OrIOp | arith.XOrIOp) -> None:
    a, b = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.result)
    if _folded(sel, op, [a, b]):
        return
    kind = _BITWISE[type(op)]
    uniform = a.uniform and b.uniform
    result = _result(sel, op, uniform)
    assert result.reg is not None
    if width == 1 and not uniform:
        sel.emit(sel.mask_op(f"s_{kind}"), [result.reg, sel.mask(a), sel.mask(b)])
        if kind == "xor":  # lanes outside EXEC must stay 0
            sel.emit(sel.mask_op("s_and"), [result.reg, result.reg, sel.exec_mask])
        return
    if uniform:
        suffix = "b64" if width == 64 else "b32"
        sel.emit(f"s_{kind}_{suffix}", [result.reg, sel.ssrc(a), sel.ssrc(b)])
        return
    if width == 32:
        sel.emit(f"v_{kind}_b32_e64", [result.reg, *sel.vsrcs([a, b])])
        return
    for index in (0, 1):
        sel.emit(f"v_{kind}_b32_e64", [result.reg.part(index),
                                       *sel.vsrcs([a.half(index), b.half(index)])])


# -- shifts ------------------------------------------------------------------------------

_SHIFTS = {arith.ShLIOp: ("s_lshl", "v_lshlrev"), arith.ShRUIOp: ("s_lshr", "v_lshrrev"),
           arith.ShRSIOp: ("s_ashr", "v_ashrrev")}


def lower_shift(sel: Selector, op: arith.ShLIOp | arith.ShRUIOp | arith.ShRSIOp) -> None:
    a, b = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.result)
    if width not in (32, 64):
        raise SelectionError(f"{op.name} on i{width} is not supported")
    if isinstance(op, arith.ShLIOp) and _folded(sel, op, [a, b]):
        return
    scalar, vector = _SHIFTS[type(op)]
    amount = b.half(0) if width == 64 else b
    uniform = a.uniform and b.uniform
    result = _result(sel, op, uniform)
    assert result.reg is not None
    signed_op = isinstance(op, arith.ShRSIOp)
    if uniform:
        suffix = ("i64" if signed_op else "b64") if width == 64 else ("i32" if signed_op else "b32")
        sel.emit(f"{scalar}_{suffix}", [result.reg, sel.ssrc(a), sel.ssrc(amount)])
        return
    suffix = ("i64" if signed_op else "b64") if width == 64 else ("i32" if signed_op else "b32")
    form = "" if width == 64 else "_e64"
    amount_src, value_src = sel.vsrcs([amount, a], width)
    sel.emit(f"{vector}_{suffix}{form}", [result.reg, amount_src, value_src])


# -- compare and select ------------------------------------------------------------------

#: arith.cmpi predicate -> (condition, signed). Predicates are numbered as MLIR does.
_PREDICATES = {0: ("eq", False), 1: ("ne", False), 2: ("lt", True), 3: ("le", True),
               4: ("gt", True), 5: ("ge", True), 6: ("lt", False), 7: ("le", False),
               8: ("gt", False), 9: ("ge", False)}


def _compare_constants(condition: str, signed: bool, width: int, a: int, b: int) -> bool:
    if signed:
        a = a - (1 << width) if a >= 1 << (width - 1) else a
        b = b - (1 << width) if b >= 1 << (width - 1) else b
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
            "ge": a >= b}[condition]


def lower_cmpi(sel: Selector, op: arith.CmpiOp) -> None:
    condition, signed = _PREDICATES[op.predicate.value.data]
    a, b = sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.lhs)
    if a.const is not None and b.const is not None:
        truth = _compare_constants(condition, signed, width, a.const, b.const)
        sel.define(op.result, Value(1, True, const=int(truth)))
        return
    if width == 1:
        raise SelectionError("arith.cmpi on i1 is not supported (use arith.xori)")
    uniform = a.uniform and b.uniform
    result = _result(sel, op, uniform)
    assert result.reg is not None
    kind = ("i" if signed else "u") + str(width)
    if not uniform:
        sel.emit(f"v_cmp_{condition}_{kind}_e64", [result.reg, *sel.vsrcs([a, b], width)])
        return
    if width == 32 or condition in ("eq", "ne"):
        scalar = "lg" if condition == "ne" else condition
        scalar_kind = "u64" if width == 64 else kind
        sel.emit(f"s_cmp_{scalar}_{scalar_kind}", [sel.ssrc(a), sel.ssrc(b)])
        sel.emit("s_cselect_b32", [result.reg, 1, 0])
        return
    # 64-bit ordered uniform compare: the high halves decide unless they are equal.
    strict = condition.replace("le", "lt").replace("ge", "gt")
    high_kind = ("i" if signed else "u") + "32"
    decided, equal, low = sel.new(SGPR_CLASS[32]), sel.new(SGPR_CLASS[32]), \
        sel.new(SGPR_CLASS[32])
    a_high, b_high = sel.ssrc(a.half(1)), sel.ssrc(b.half(1))
    sel.emit(f"s_cmp_{strict}_{high_kind}", [a_high, b_high])
    sel.emit("s_cselect_b32", [decided, 1, 0])
    sel.emit("s_cmp_eq_u32", [a_high, b_high])
    sel.emit("s_cselect_b32", [equal, 1, 0])
    sel.emit(f"s_cmp_{condition}_u32", [sel.ssrc(a.half(0)), sel.ssrc(b.half(0))])
    sel.emit("s_cselect_b32", [low, 1, 0])
    sel.emit("s_and_b32", [equal, equal, low])
    sel.emit("s_or_b32", [result.reg, decided, equal])


def lower_select(sel: Selector, op: arith.SelectOp) -> None:
    cond, a, b = sel.value(op.cond), sel.value(op.lhs), sel.value(op.rhs)
    width = width_of(op.result)
    if cond.const is not None:
        sel.define(op.result, a if cond.const & 1 else b)
        return
    uniform = cond.uniform and a.uniform and b.uniform
    result = _result(sel, op, uniform)
    assert result.reg is not None
    if uniform:
        sel.emit("s_cmp_lg_u32", [sel.sreg(cond), 0])
        suffix = "b64" if width == 64 else "b32"
        sel.emit(f"s_cselect_{suffix}", [result.reg, sel.ssrc(a), sel.ssrc(b)])
        return
    mask = sel.mask(cond)
    if width == 1:
        chosen, other = sel.new(sel.lane_mask_class), sel.new(sel.lane_mask_class)
        sel.emit(sel.mask_op("s_and"), [chosen, mask, sel.mask(a)])
        sel.emit(sel.mask_op("s_andn2"), [other, sel.mask(b), mask])
        sel.emit(sel.mask_op("s_or"), [result.reg, chosen, other])
        return
    halves = [(result.reg, a, b)] if width == 32 else \
        [(result.reg.part(i), a.half(i), b.half(i)) for i in (0, 1)]
    for dest, if_true, if_false in halves:
        false_src, true_src = sel.vsrcs([if_false, if_true], mask_operand=True)
        sel.emit("v_cndmask_b32_e64", [dest, false_src, true_src, mask])


# -- conversions -------------------------------------------------------------------------


def lower_extend(sel: Selector, op: arith.ExtUIOp | arith.ExtSIOp) -> None:
    a = sel.value(op.input)
    width, source = width_of(op.result), width_of(op.input)
    signed_op = isinstance(op, arith.ExtSIOp)
    if a.const is not None:
        value = a.const
        if signed_op and value >> (source - 1) & 1:
            value -= 1 << source
        sel.define(op.result, Value(width, True, const=value & ((1 << width) - 1)))
        return
    result = _result(sel, op, a.uniform)
    assert result.reg is not None and a.reg is not None
    low = result.reg.part(0) if width == 64 else result.reg
    if source == 1:
        if a.uniform:
            if signed_op:
                sel.emit("s_sub_i32", [low, 0, a.reg])
            else:
                sel.emit("s_mov_b32", [low, a.reg])
        else:
            sel.emit("v_cndmask_b32_e64", [low, 0, -1 if signed_op else 1, a.reg])
    elif a.uniform:
        sel.emit("s_mov_b32", [low, a.reg])
    else:
        sel.emit("v_mov_b32_e32", [low, a.reg])
    if width != 64:
        return
    if not signed_op:
        sel.emit("s_mov_b32" if a.uniform else "v_mov_b32_e32", [result.reg.part(1), 0])
    elif a.uniform:
        sel.emit("s_ashr_i32", [result.reg.part(1), low, 31])
    else:
        sel.emit("v_ashrrev_i32_e64", [result.reg.part(1), 31, low])


def lower_trunc(sel: Selector, op: arith.TruncIOp) -> None:
    a = sel.value(op.input)
    width = width_of(op.result)
    if a.const is not None:
        sel.define(op.result, Value(width, True, const=a.const & ((1 << width) - 1)))
        return
    assert a.reg is not None
    if width == 32:
        sel.define(op.result, Value(32, a.uniform, reg=a.reg.part(0) if a.width == 64
                                    else a.reg))
        return
    low = a.half(0) if a.width == 64 else a
    result = _result(sel, op, a.uniform)
    assert result.reg is not None
    if a.uniform:
        sel.emit("s_and_b32", [result.reg, sel.ssrc(low), 1])
        return
    bit = sel.new(VGPR_CLASS[32])
    sel.emit("v_and_b32_e64", [bit, 1, *sel.vsrcs([low])])
    sel.emit("v_cmp_ne_u32_e64", [result.reg, 0, bit])


def lower_constant(sel: Selector, op: arith.ConstantOp) -> None:
    width = width_of(op.result)
    value = op.value
    if width == 0 or not isinstance(value, IntegerAttr):
        raise SelectionError(f"arith.constant of {op.result.type} is not supported")
    number = value.value.data
    sel.define(op.result, Value(width, True, const=number & ((1 << width) - 1)))


def lower_arith(sel: Selector, op: Operation) -> bool:
    """Lower ``op`` if it is one of the supported ``arith`` ops; False otherwise."""
    match op:
        case arith.ConstantOp():
            lower_constant(sel, op)
        case arith.AddiOp() | arith.SubiOp():
            lower_add_sub(sel, op)
        case arith.MuliOp():
            lower_mul(sel, op)
        case arith.DivUIOp() | arith.RemUIOp() | arith.DivSIOp() | arith.RemSIOp():
            lower_division(sel, op)
        case arith.AndIOp() | arith.OrIOp() | arith.XOrIOp():
            lower_bitwise(sel, op)
        case arith.ShLIOp() | arith.ShRUIOp() | arith.ShRSIOp():
            lower_shift(sel, op)
        case arith.CmpiOp():
            lower_cmpi(sel, op)
        case arith.SelectOp():
            lower_select(sel, op)
        case arith.ExtUIOp() | arith.ExtSIOp():
            lower_extend(sel, op)
        case arith.TruncIOp():
            lower_trunc(sel, op)
        case _:
            return False
    return True
