"""SSA values of a hook being built, with Python operators that emit ``arith`` ops.

``a + b`` is ``arith.addi``, ``a < b`` is ``arith.cmpi ult`` (unsigned, as counters,
addresses and lane masks are; ``a.lt_s(b)`` for signed), ``a >> n`` is ``arith.shrui``.
A Python ``int`` on either side becomes an ``arith.constant`` of the other side's type.
Both sides must have the same width: the hardware does not widen silently and neither do
we; ``.zext(i64)``/``.sext(i64)``/``.trunc(i32)`` say what is meant.

A value is not a Python boolean (``if x < 3:`` would test nothing on the GPU): use
``h.if_``. ``==`` builds a comparison, so values are not hashable.
"""

from __future__ import annotations

from typing import Protocol, cast

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Block, SSAValue


class ValueBuilder(Protocol):
    """What a value needs of its hook's builder (``HookBuilder`` is one); a protocol
    so this module does not import the builder that imports it."""

    name: str

    def binary(self, op_type: type[arith.SignlessIntegerBinaryOperation], symbol: str,
               lhs: Value | int, rhs: Value | int) -> Value: ...

    def compare(self, predicate: str, lhs: Value | int, rhs: Value | int) -> Value: ...

    def cast(self, op_type: type[arith.ExtUIOp | arith.ExtSIOp | arith.TruncIOp], what: str,
             value: Value, type_: IntegerType, *, wider: bool) -> Value: ...

class Value:
    """An integer SSA value of one hook, usable only where it is defined (its block or
    a block nested in it)."""

    __hash__ = None  # type: ignore[assignment]  # == builds IR, not a Python bool

    def __init__(self, builder: ValueBuilder, ssa: SSAValue, block: Block) -> None:
        self.builder = builder
        self.ssa = ssa
        self.block = block

    @property
    def type(self) -> IntegerType:
        type_ = self.ssa.type
        assert isinstance(type_, IntegerType)
        return cast(IntegerType, type_)

    @property
    def width(self) -> int:
        return self.type.bitwidth

    def named(self, hint: str) -> Value:
        """Give the value a name in the printed IR (``%count`` instead of ``%0``)."""
        self.ssa.name_hint = hint
        return self

    def __repr__(self) -> str:
        return f"<Value i{self.width} of hook @{self.builder.name}>"

    def __bool__(self) -> bool:
        raise TypeError(f"hook @{self.builder.name}: a hook value has no Python truth "
                        "value (it exists on the GPU); branch with h.if_(...)")

    # -- arithmetic ------------------------------------------------------------------

    def __add__(self, other: Value | int) -> Value:
        return self.builder.binary(arith.AddiOp, "+", self, other)

    def __radd__(self, other: int) -> Value:
        return self.builder.binary(arith.AddiOp, "+", other, self)

    def __sub__(self, other: Value | int) -> Value:
        return self.builder.binary(arith.SubiOp, "-", self, other)

    def __rsub__(self, other: int) -> Value:
        return self.builder.binary(arith.SubiOp, "-", other, self)

    def __mul__(self, other: Value | int) -> Value:
        return self.builder.binary(arith.MuliOp, "*", self, other)

    def __rmul__(self, other: int) -> Value:
        return self.builder.binary(arith.MuliOp, "*", other, self)

    def __floordiv__(self, other: Value | int) -> Value:
        """Unsigned division (``arith.divui``)."""
        return self.builder.binary(arith.DivUIOp, "//", self, other)

    def __mod__(self, other: Value | int) -> Value:
        """Unsigned remainder (``arith.remui``)."""
        return self.builder.binary(arith.RemUIOp, "%", self, other)

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

    def __eq__(self, other: Value | int) -> Value:  # type: ignore[override]
        return self.builder.compare("eq", self, other)

    def __ne__(self, other: Value | int) -> Value:  # type: ignore[override]
        return self.builder.compare("ne", self, other)

    def __lt__(self, other: Value | int) -> Value:
        return self.builder.compare("ult", self, other)

    def __le__(self, other: Value | int) -> Value:
        return self.builder.compare("ule", self, other)

    def __gt__(self, other: Value | int) -> Value:
        return self.builder.compare("ugt", self, other)

    def __ge__(self, other: Value | int) -> Value:
        return self.builder.compare("uge", self, other)

    def lt_s(self, other: Value | int) -> Value:
        return self.builder.compare("slt", self, other)

    def le_s(self, other: Value | int) -> Value:
        return self.builder.compare("sle", self, other)

    def gt_s(self, other: Value | int) -> Value:
        return self.builder.compare("sgt", self, other)

    def ge_s(self, other: Value | int) -> Value:
        return self.builder.compare("sge", self, other)

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
