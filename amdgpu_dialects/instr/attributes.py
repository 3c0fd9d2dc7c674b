"""Arguments an insertion passes to its hook, as attributes.

An insertion point's arguments are known when the hook is placed, not when it runs: a
constant, an application register (read at the point), or an operand of the instrumented
instruction (a load's address registers, a compare's sources) picked by its position in the
instruction's operand list, or a fact about the instrumentation site itself (its opcode, its
index or byte offset in the function), so one hook can tell its points apart. They print as
``#instr.const<5 : i32>`` (or ``<0.5 : f32>``), ``#instr.reg<"s[4:5]">``, ``#instr.operand<1>`` and
``#instr.site<"opcode">``.
"""

from __future__ import annotations

import math
import struct

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType
from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.register_units import UnknownRegisterError, units_of


@irdl_attr_definition
class ConstArgAttr(Data[tuple[int, int, bool]]):
    """A constant argument: its bits, its width, and whether it is a float (IEEE bits of an
    ``f32``/``f64``). ``#instr.const<5 : i32>``, ``#instr.const<1.5 : f32>``; a float prints
    as the shortest decimal that reads back to the same bits (``inf``, ``-inf`` and ``nan``
    as MLIR's hexadecimal bit patterns, ``0x7F800000 : f32``)."""

    name = "instr.const"

    @staticmethod
    def integer(value: int, width: int) -> ConstArgAttr:
        """The ``i<width>`` constant ``value`` (signed or unsigned spelling, kept as given)."""
        return ConstArgAttr((value, width, False))

    @staticmethod
    def floating(value: float, width: int) -> ConstArgAttr:
        """The ``f32``/``f64`` constant ``value`` (rounded to ``f32`` for 32 bits)."""
        return ConstArgAttr((float_bits(value, width), width, True))

    @property
    def value(self) -> int:
        """The integer, or a float's IEEE bits."""
        return self.data[0]

    @property
    def width(self) -> int:
        return self.data[1]

    @property
    def is_float(self) -> bool:
        return self.data[2]

    @property
    def float_value(self) -> float:
        """A float constant's value (``f32`` widened exactly)."""
        return bits_float(self.value, self.width)

    @property
    def type(self) -> IntegerType | Float32Type | Float64Type:
        if not self.is_float:
            return IntegerType(self.width)
        return Float32Type() if self.width == 32 else Float64Type()

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[int, int, bool]:
        with parser.in_angle_brackets():
            spelling = parser._current_token.text  # pyright: ignore[reportPrivateUsage]
            value = parser.parse_optional_number(allow_boolean=False)
            if value is None:
                parser.raise_error("instr.const takes a number such as 5 : i32 or 1.5 : f32")
            parser.parse_punctuation(":")
            type_ = parser.parse_type()
        if isinstance(type_, Float32Type | Float64Type):
            width = 32 if isinstance(type_, Float32Type) else 64
            if isinstance(value, int) and spelling.lstrip("-").startswith("0x"):
                # MLIR's spelling of a float by its bits: 0x7F800000 : f32.
                if not 0 <= value < 1 << width:
                    parser.raise_error(f"{value:#x} is not the bits of an f{width}")
                return value, width, True
            return float_bits(value, width), width, True
        width = integer_width(type_)
        if width is None:
            parser.raise_error("instr.const takes an integer (i1, i32, i64) or a float "
                               "(f32, f64) type")
        if not isinstance(value, int):
            parser.raise_error(f"{value} is not an integer (an {type_} constant)")
        return value, width, False

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            if not self.is_float:
                printer.print_string(f"{self.value} : i{self.width}")
            elif math.isfinite(self.float_value):
                printer.print_string(f"{shortest_float(self.value, self.width)} : "
                                     f"f{self.width}")
            else:
                digits = self.width // 4
                printer.print_string(f"0x{self.value:0{digits}X} : f{self.width}")


def float_bits(value: float, width: int) -> int:
    """The IEEE bits of ``value`` as an ``f32`` (rounded to nearest) or ``f64``."""
    if width == 32:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def bits_float(bits: int, width: int) -> float:
    """The float whose IEEE ``width``-bit pattern is ``bits``."""
    if width == 32:
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def shortest_float(bits: int, width: int) -> str:
    """The shortest decimal (with a point or an exponent, so it reads as a float) whose
    ``width``-bit float has ``bits``."""
    value = bits_float(bits, width)
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if float_bits(float(text), width) == bits:
            break
    else:
        text = repr(value)
    return text if any(c in text for c in ".einn") else text + ".0"


@irdl_attr_definition
class RegArgAttr(Data[str]):
    """An application register, read just before the instrumented instruction."""

    name = "instr.reg"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            return parser.parse_str_literal()

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.data)

    def verify(self) -> None:
        check_register_name(self.data)


@irdl_attr_definition
class OperandArgAttr(Data[int | str]):
    """An operand of the instrumented instruction: by position (``#instr.operand<1>``,
    0-based, definitions first, as the ``amdgpu_mc`` op lists them) or by the ISA's name
    for the slot (``#instr.operand<"vaddr">``), which stays right across encodings that
    order their operands differently (a global load with and without ``saddr``)."""

    name = "instr.operand"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> int | str:
        with parser.in_angle_brackets():
            name = parser.parse_optional_str_literal()
            if name is not None:
                return name
            return parser.parse_integer(allow_boolean=False, allow_negative=False)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            if isinstance(self.data, str):
                printer.print_string_literal(self.data)
            else:
                printer.print_string(str(self.data))


#: What ``#instr.site`` may name; each resolves to an ``i32`` constant per point.
SITE_FACTS = ("opcode", "index", "offset")


@irdl_attr_definition
class SiteArgAttr(Data[str]):
    """A fact about the instrumented instruction, known when the payload is placed:
    ``#instr.site<"opcode">`` (its record's index in the target's ISA table, which the
    host maps back to a mnemonic), ``"index"`` (its position in the function, counted as
    ``first``/``last`` count) or ``"offset"`` (its byte offset from the function's first
    instruction). ``insert-hooks`` turns it into an ``#instr.const<N : i32>``, so a hook
    that histograms opcodes or tags trace records needs no per-site copy."""

    name = "instr.site"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            return parser.parse_str_literal()

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.data)

    def verify(self) -> None:
        if self.data not in SITE_FACTS:
            raise VerifyException(f"#instr.site<\"{self.data}\"> is not one of "
                                  f"{', '.join(SITE_FACTS)}")


@irdl_attr_definition
class AddressArgAttr(Data[tuple[str, str, int]]):
    """The address a global or flat memory instruction accesses, per lane:
    ``#instr.address<"v[4:5]", "", 16>`` (a 64-bit VGPR address plus an offset) or
    ``#instr.address<"s[0:1]", "v2", 16>`` (the SADDR form: an SGPR base, a 32-bit VGPR
    offset, an immediate). ``insert-hooks`` makes it from ``#instr.operand<"address">``,
    whichever form the instruction has; ``inline-hooks`` computes the i64 sum."""

    name = "instr.address"

    @property
    def base(self) -> str:
        return self.data[0]

    @property
    def index(self) -> str:
        return self.data[1]

    @property
    def offset(self) -> int:
        return self.data[2]

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[str, str, int]:
        with parser.in_angle_brackets():
            base = parser.parse_str_literal()
            parser.parse_punctuation(",")
            index = parser.parse_str_literal()
            parser.parse_punctuation(",")
            offset = parser.parse_integer(allow_boolean=False)
        return base, index, offset

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.base)
            printer.print_string(", ")
            printer.print_string_literal(self.index)
            printer.print_string(f", {self.offset}")

    def verify(self) -> None:
        check_register_name(self.base)
        if self.index:
            check_register_name(self.index)


def check_register_name(name: str) -> int:
    """The units of an application register name, or a VerifyException saying why not."""
    try:
        return units_of(name)
    except UnknownRegisterError as error:
        raise VerifyException(f"'{name}' is not a register: {error}") from None


def register_bits(name: str) -> int:
    """How many bits reading ``name`` gives: 1 for SCC, 32 per unit otherwise."""
    units = check_register_name(name)
    return 1 if name == "scc" else 32 * units.bit_count()


def integer_width(type_: object) -> int | None:
    if isinstance(type_, IntegerType):
        width: int = type_.bitwidth
        return width
    return None
