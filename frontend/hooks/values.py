"""SSA values of a hook being built, with Python operators that emit ``arith`` ops.

``a + b`` is ``arith.addi``, ``a < b`` is ``arith.cmpi ult`` (unsigned, as counters,
addresses and lane masks are; ``a.lt_s(b)`` for signed), ``a >> n`` is ``arith.shrui``.
A Python ``int`` on either side becomes an ``arith.constant`` of the other side's type.
Both sides must have the same width: the hardware does not widen silently and neither do
we; ``.zext(i64)``/``.sext(i64)``/``.trunc(i32)`` say what is meant.

Float values (``f32``, ``f64``) take the same operators, as ``arith.addf``/``subf``/
``mulf``/``negf``, ``/`` as ``arith.divf`` (the correctly rounded IEEE quotient), and
ordered compares (``arith.cmpf olt``...; ``!=`` is ``une``, true on NaN, as C's ``!=`` is);
``.cmpf(predicate, other)`` names any predicate. A Python ``int`` or ``float`` beside a
float value is a constant of its type. ``/`` is float-only (``//`` divides integers), and
``//``, ``%``, the bit operators and shifts are integer-only; bits are reached with
``.bitcast(i32)``.

A value is not a Python boolean (``if x < 3:`` would test nothing on the GPU): use
``h.if_``. ``==`` builds a comparison, so values are not hashable.
"""

from __future__ import annotations

from typing import Protocol, cast

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType
from xdsl.ir import Block, SSAValue

#: The types of hook values: ``i1``, ``i32``, ``i64``, ``f32``, ``f64``.
HookType = IntegerType | Float32Type | Float64Type


class ValueBuilder(Protocol):
    """What a value needs of its hook's builder (``HookBuilder`` is one); a protocol
    so this module does not import the builder that imports it."""

    name: str

    def binary(self, op_type: type[arith.SignlessIntegerBinaryOperation], symbol: str,
               lhs: Value | int, rhs: Value | int) -> Value: ...

    def float_binary(self, op_type: type[arith.FloatingPointLikeBinaryOperation],
                     symbol: str, lhs: Value | float, rhs: Value | float) -> Value: ...

    def compare(self, predicate: str, lhs: Value | int, rhs: Value | int) -> Value: ...

    def compare_float(self, predicate: str, lhs: Value | float,
                      rhs: Value | float) -> Value: ...

    def negate(self, value: Value) -> Value: ...

    def float_remainder(self, lhs: Value | float, rhs: Value | float) -> Value: ...

    def fma(self, a: Value, b: Value | float, c: Value | float) -> Value: ...

    def convert(self, what: str, value: Value, type_: HookType) -> Value: ...

    def bitcast(self, value: Value, type_: HookType) -> Value: ...

    def cast(self, op_type: type[arith.ExtUIOp | arith.ExtSIOp | arith.TruncIOp], what: str,
             value: Value, type_: IntegerType, *, wider: bool) -> Value: ...

class Value:
    """An integer or float SSA value of one hook, usable only where it is defined (its
    block or a block nested in it)."""

    __hash__ = None  # type: ignore[assignment]  # == builds IR, not a Python bool

    def __init__(self, builder: ValueBuilder, ssa: SSAValue, block: Block) -> None:
        self.builder = builder
        self.ssa = ssa
        self.block = block

    @property
    def type(self) -> HookType:
        type_ = self.ssa.type
        assert isinstance(type_, IntegerType | Float32Type | Float64Type)
        return cast(HookType, type_)

    @property
    def width(self) -> int:
        type_ = self.type
        return type_.bitwidth if isinstance(type_, IntegerType) else \
            32 if isinstance(type_, Float32Type) else 64

    @property
    def is_float(self) -> bool:
        """Whether the value is an ``f32`` or ``f64`` (its operators are ``arith.*f``)."""
        return not isinstance(self.ssa.type, IntegerType)

    def named(self, hint: str) -> Value:
        """Give the value a name in the printed IR (``%count`` instead of ``%0``)."""
        self.ssa.name_hint = hint
        return self

    def __repr__(self) -> str:
        return f"<Value {self.type} of hook @{self.builder.name}>"

    def __bool__(self) -> bool:
        raise TypeError(f"hook @{self.builder.name}: a hook value has no Python truth "
                        "value (it exists on the GPU); branch with h.if_(...)")

    # -- arithmetic ------------------------------------------------------------------

    def __add__(self, other: Value | float) -> Value:
        if self.is_float:
            return self.builder.float_binary(arith.AddfOp, "+", self, other)
        return self.builder.binary(arith.AddiOp, "+", self, _integer(other))

    def __radd__(self, other: float) -> Value:
        if self.is_float:
            return self.builder.float_binary(arith.AddfOp, "+", other, self)
        return self.builder.binary(arith.AddiOp, "+", _integer(other), self)

    def __sub__(self, other: Value | float) -> Value:
        if self.is_float:
            return self.builder.float_binary(arith.SubfOp, "-", self, other)
        return self.builder.binary(arith.SubiOp, "-", self, _integer(other))

    def __rsub__(self, other: float) -> Value:
        if self.is_float:
            return self.builder.float_binary(arith.SubfOp, "-", other, self)
        return self.builder.binary(arith.SubiOp, "-", _integer(other), self)

    def __mul__(self, other: Value | float) -> Value:
        if self.is_float:
            return self.builder.float_binary(arith.MulfOp, "*", self, other)
        return self.builder.binary(arith.MuliOp, "*", self, _integer(other))

    def __rmul__(self, other: float) -> Value:
        if self.is_float:
            return self.builder.float_binary(arith.MulfOp, "*", other, self)
        return self.builder.binary(arith.MuliOp, "*", _integer(other), self)

    def __truediv__(self, other: Value | float) -> Value:
        """The IEEE quotient of floats (``arith.divf``, rounded once); integers divide
        with ``//``."""
        return self.builder.float_binary(arith.DivfOp, "/", self, other)

    def __rtruediv__(self, other: float) -> Value:
        return self.builder.float_binary(arith.DivfOp, "/", other, self)

    def __neg__(self) -> Value:
        """``arith.negf`` of a float (the sign flipped); ``0 - x`` of an integer."""
        if self.is_float:
            return self.builder.negate(self)
        return self.builder.binary(arith.SubiOp, "-", 0, self)

    def minnum(self, other: Value | float) -> Value:
        """The smaller float (``arith.minnumf``: the other operand when one is NaN)."""
        return self.builder.float_binary(arith.MinnumfOp, "minnum", self, other)

    def maxnum(self, other: Value | float) -> Value:
        """The larger float (``arith.maxnumf``: the other operand when one is NaN)."""
        return self.builder.float_binary(arith.MaxnumfOp, "maxnum", self, other)

    def fma(self, factor: Value | float, addend: Value | float) -> Value:
        """``self * factor + addend`` rounded once (``math.fma``)."""
        return self.builder.fma(self, factor, addend)

    def __floordiv__(self, other: Value | int) -> Value:
        """Unsigned division (``arith.divui``)."""
        return self.builder.binary(arith.DivUIOp, "//", self, other)

    def __mod__(self, other: Value | float) -> Value:
        """Unsigned remainder (``arith.remui``); of floats, what HIP's ``fmodf``/``fmod``
        compute (:meth:`~.builder.HookBuilder.float_remainder`)."""
        if self.is_float:
            return self.builder.float_remainder(self, other)
        return self.builder.binary(arith.RemUIOp, "%", self, _integer(other))

    def __rmod__(self, other: float) -> Value:
        if self.is_float:
            return self.builder.float_remainder(other, self)
        return self.builder.binary(arith.RemUIOp, "%", _integer(other), self)

    def __and__(self, other: Value | int) -> Value:
        return self.builder.binary(arith.AndIOp, "&", self, other)

    def __rand__(self, other: int) -> Value:
        return self.builder.binary(arith.AndIOp, "&", other, self)

    def __or__(self, other: Value | int) -> Value:
        return self.builder.binary(arith.OrIOp, "|", self, other)

    def __ror__(self, other: int) -> Value:
        return self.builder.binary(arith.OrIOp, "|", other, self)

    def __xor__(self, other: Value | int) -> Value:
        return self.builder.binary(arith.XOrIOp, "^", self, other)

    def __rxor__(self, other: int) -> Value:
        return self.builder.binary(arith.XOrIOp, "^", other, self)

    def __lshift__(self, other: Value | int) -> Value:
        return self.builder.binary(arith.ShLIOp, "<<", self, other)

    def __rshift__(self, other: Value | int) -> Value:
        """Logical shift right (``arith.shrui``); :meth:`ashr` keeps the sign."""
        return self.builder.binary(arith.ShRUIOp, ">>", self, other)

    def ashr(self, other: Value | int) -> Value:
        return self.builder.binary(arith.ShRSIOp, "ashr", self, other)

    # -- comparisons (i1 results) ----------------------------------------------------

    def __eq__(self, other: Value | float) -> Value:  # type: ignore[override]
        if self.is_float:
            return self.builder.compare_float("oeq", self, other)
        return self.builder.compare("eq", self, _integer(other))

    def __ne__(self, other: Value | float) -> Value:  # type: ignore[override]
        if self.is_float:
            return self.builder.compare_float("une", self, other)
        return self.builder.compare("ne", self, _integer(other))

    def __lt__(self, other: Value | float) -> Value:
        if self.is_float:
            return self.builder.compare_float("olt", self, other)
        return self.builder.compare("ult", self, _integer(other))

    def __le__(self, other: Value | float) -> Value:
        if self.is_float:
            return self.builder.compare_float("ole", self, other)
        return self.builder.compare("ule", self, _integer(other))

    def __gt__(self, other: Value | float) -> Value:
        if self.is_float:
            return self.builder.compare_float("ogt", self, other)
        return self.builder.compare("ugt", self, _integer(other))

    def __ge__(self, other: Value | float) -> Value:
        if self.is_float:
            return self.builder.compare_float("oge", self, other)
        return self.builder.compare("uge", self, _integer(other))

    def lt_s(self, other: Value | int) -> Value:
        return self.builder.compare("slt", self, other)

    def le_s(self, other: Value | int) -> Value:
        return self.builder.compare("sle", self, other)

    def gt_s(self, other: Value | int) -> Value:
        return self.builder.compare("sgt", self, other)

    def ge_s(self, other: Value | int) -> Value:
        return self.builder.compare("sge", self, other)

    def cmpf(self, predicate: str, other: Value | float) -> Value:
        """``arith.cmpf predicate``: ``oeq ogt oge olt ole one ord`` (false when either
        operand is NaN), ``ueq ugt uge ult ule une uno`` (true then), ``true``, ``false``."""
        return self.builder.compare_float(predicate, self, other)

    # -- width changes ---------------------------------------------------------------

    def zext(self, type_: IntegerType) -> Value:
        """Zero-extend to a wider type (``arith.extui``)."""
        return self.builder.cast(arith.ExtUIOp, "zext", self, type_, wider=True)

    def sext(self, type_: IntegerType) -> Value:
        """Sign-extend to a wider type (``arith.extsi``)."""
        return self.builder.cast(arith.ExtSIOp, "sext", self, type_, wider=True)

    def trunc(self, type_: IntegerType) -> Value:
        """Keep the low bits (``arith.trunci``)."""
        return self.builder.cast(arith.TruncIOp, "trunc", self, type_, wider=False)

    # -- floats ----------------------------------------------------------------------

    def sitofp(self, type_: HookType) -> Value:
        """The signed ``i32`` as a float (``arith.sitofp``, rounded to nearest even)."""
        return self.builder.convert("sitofp", self, type_)

    def uitofp(self, type_: HookType) -> Value:
        """The unsigned ``i32`` as a float (``arith.uitofp``)."""
        return self.builder.convert("uitofp", self, type_)

    def fptosi(self, type_: HookType) -> Value:
        """The float rounded toward zero to a signed ``i32`` (``arith.fptosi``)."""
        return self.builder.convert("fptosi", self, type_)

    def fptoui(self, type_: HookType) -> Value:
        """The float rounded toward zero to an unsigned ``i32`` (``arith.fptoui``)."""
        return self.builder.convert("fptoui", self, type_)

    def extf(self, type_: HookType) -> Value:
        """An ``f32`` widened to ``f64`` (exact: ``arith.extf``)."""
        return self.builder.convert("extf", self, type_)

    def truncf(self, type_: HookType) -> Value:
        """An ``f64`` rounded to ``f32`` (``arith.truncf``)."""
        return self.builder.convert("truncf", self, type_)

    def bitcast(self, type_: HookType) -> Value:
        """The same bits as another type of the same width (``arith.bitcast``)."""
        return self.builder.bitcast(self, type_)


def _integer(other: Value | float) -> Value | int:
    """The operand of an integer operator: a Python float beside an integer value is a
    mistake (it would be truncated silently), so it is refused here."""
    if isinstance(other, float):
        raise TypeError(f"{other!r} is a float beside an integer value; convert one side "
                        "(.sitofp(f32), .fptosi(i32)) or write an int")
    return other
