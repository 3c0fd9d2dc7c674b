"""What an insertion passes to its hook, as Python values: ``Reg("v0")``, ``Const(5, i32)``,
``Operand("vaddr")``, ``Site("opcode")``.

Each is checked when written (a register name that does not exist, a site fact the pass
does not know), so a tool's mistake points at the line that made it, not at a later
``insert-hooks`` run. :meth:`attr` gives the ``#instr.*`` attribute ``instr.insert``
holds; :attr:`bits` is the width the hook's parameter must have, when known before the
point is (an operand's register is only known at the point).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.instr.attributes import (
    SITE_FACTS,
    ConstArgAttr,
    OperandArgAttr,
    RegArgAttr,
    SiteArgAttr,
    register_bits,
)


@dataclass(frozen=True)
class Const:
    """A constant: ``Const(5, i32)``, or a float: ``Const(0.5, f32)`` (rounded to ``f32``
    for an ``f32`` parameter)."""

    value: int | float
    type: IntegerType | Float32Type | Float64Type

    def __post_init__(self) -> None:
        width = self.type.bitwidth
        if isinstance(self.type, Float32Type | Float64Type):
            if isinstance(self.value, bool):
                raise ValueError(f"Const({self.value!r}, f{width}): not a number")
            return
        if not isinstance(self.value, int) or isinstance(self.value, bool):
            raise ValueError(f"Const({self.value!r}, i{width}): an integer type takes an "
                             "integer (a float constant is Const(x, f32) or f64)")
        if not -(1 << (width - 1)) <= self.value < (1 << width):
            raise ValueError(f"Const({self.value}, i{width}): the value does not fit in "
                             f"{width} bits")

    @property
    def bits(self) -> int | None:
        return self.type.bitwidth

    def attr(self) -> Attribute:
        if isinstance(self.type, Float32Type | Float64Type):
            return ConstArgAttr.floating(float(self.value), self.type.bitwidth)
        assert isinstance(self.value, int)
        return ConstArgAttr.integer(self.value, self.type.bitwidth)


@dataclass(frozen=True)
class Reg:
    """An application register read just before the instrumented instruction:
    ``Reg("v0")``, ``Reg("s[4:5]")``, ``Reg("exec")``."""

    name: str

    def __post_init__(self) -> None:
        try:
            register_bits(self.name)
        except VerifyException as error:
            raise ValueError(f"Reg({self.name!r}): {error}") from None

    @property
    def bits(self) -> int | None:
        return register_bits(self.name)

    def attr(self) -> Attribute:
        return RegArgAttr(self.name)


@dataclass(frozen=True)
class Operand:
    """An operand of the instrumented instruction, by the ISA's slot name
    (``Operand("vaddr")``, which stays right across encodings) or by position."""

    which: int | str

    def __post_init__(self) -> None:
        if isinstance(self.which, int) and self.which < 0:
            raise ValueError(f"Operand({self.which}): positions count from 0")

    @property
    def bits(self) -> int | None:
        return None

    def attr(self) -> Attribute:
        return OperandArgAttr(self.which)


@dataclass(frozen=True)
class Site:
    """A fact about the instrumented instruction, an i32: ``Site("opcode")`` (its index
    in the target's ISA table; see :func:`opcode_names`), ``Site("index")`` (its
    position in the function), ``Site("offset")`` (its byte offset in the function)."""

    fact: str

    def __post_init__(self) -> None:
        if self.fact not in SITE_FACTS:
            raise ValueError(f"Site({self.fact!r}) is not one of {', '.join(SITE_FACTS)}")

    @property
    def bits(self) -> int | None:
        return 32

    def attr(self) -> Attribute:
        return SiteArgAttr(self.fact)


#: Anything ``HookModule.insert(args=...)`` takes.
InsertionArg = Const | Reg | Operand | Site
