"""Register operands of ``amdgpu_mc`` instructions: physical and virtual registers.

Registers are attributes, not SSA values: machine code names the same register from many
instructions, and passes (liveness, allocation) reason about register units, not def-use
chains. A physical register is spelled as LLVM prints it (``s4``, ``v[0:1]``, ``a7``,
``vcc``, ``exec_lo``, ``ttmp[4:5]``, and a 16-bit half of a VGPR as GFX11+ true16 code names
it, ``v25.h``/``v4.l``); a virtual register has a number and an LLVM register
class (``%3:sreg_64``), which fixes its width and file until the allocator gives it a home.
Attributes are interned, so a kernel that mentions ``s[4:5]`` a thousand times holds one.
"""

from __future__ import annotations

import functools
import re
from typing import ClassVar

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

#: ``s4``, ``v[0:1]``, ``ttmp[4:7]``, ``vcc_lo``, ``exec``, ``src_scc``, ``v25.h``...
_REGISTER = re.compile(r"[a-z_][a-z0-9_]*(\[\d+:\d+\])?|v\d+\.[lh]")
#: The files a register name can draw from, by prefix: used to tell tuples apart.
#: A virtual register's class, optionally narrowed: ``SReg_64``, ``VReg_128.sub2_sub3``.
_SUB = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.sub\d+(?:_sub\d+)*)?")
_TUPLE = re.compile(r"(s|v|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])")
#: A 16-bit half of a VGPR (GFX11+ true16 operands): ``v25.h``, ``v4.l``.
_HALF = re.compile(r"v(\d+)\.([lh])")


def vgpr_half(name: str) -> tuple[int, bool] | None:
    """``(25, True)`` for ``v25.h``, ``(4, False)`` for ``v4.l``: the VGPR and whether the
    high half is named; None for any other register."""
    match = _HALF.fullmatch(name)
    return None if match is None else (int(match.group(1)), match.group(2) == "h")


def register_units(name: str) -> tuple[str, int, int] | None:
    """``("s", 4, 2)`` for ``s[4:5]``: file prefix, first index, number of 32-bit units.

    None for special registers (``vcc``, ``exec``...), which have names of their own. A
    16-bit half (``v25.h``) is in the unit of its VGPR: units are 32 bits, and writing a
    half keeps the other (a partial write, see :mod:`.register_units`).
    """
    match = _TUPLE.fullmatch(name)
    if match is None:
        half = vgpr_half(name)
        return None if half is None else ("v", half[0], 1)
    prefix, single, first, last = match.groups()
    if single is not None:
        return prefix, int(single), 1
    return prefix, int(first), int(last) - int(first) + 1


def _parse_register_text(parser: AttrParser) -> str:
    """Read ``s4`` or ``s[4:5]`` token by token (the MLIR lexer splits the brackets)."""
    name = parser.parse_identifier()
    if parser.parse_optional_punctuation("[") is None:
        return name
    first = parser.parse_integer(allow_boolean=False, allow_negative=False)
    parser.parse_punctuation(":")
    last = parser.parse_integer(allow_boolean=False, allow_negative=False)
    parser.parse_punctuation("]")
    return f"{name}[{first}:{last}]"


@irdl_attr_definition
class PhysRegAttr(Data[str]):
    """A physical register or register tuple, by its LLVM assembly name."""

    name = "amdgpu_mc.reg"

    _interned: ClassVar[dict[str, PhysRegAttr]] = {}

    @staticmethod
    def get_register(name: str) -> PhysRegAttr:
        """The interned attribute for ``name``."""
        attr = PhysRegAttr._interned.get(name)
        if attr is None:
            attr = PhysRegAttr(name)
            PhysRegAttr._interned[name] = attr
        return attr

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            return _parse_register_text(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data)

    def verify(self) -> None:
        if _REGISTER.fullmatch(self.data) is None:
            from xdsl.utils.exceptions import VerifyException

            raise VerifyException(f"'{self.data}' is not a register name")


@irdl_attr_definition
class VirtRegAttr(Data[tuple[int, str]]):
    """A virtual register: a number and an LLVM register class (``%3:SReg_64``), optionally
    narrowed to a sub-register (``%3:SReg_64.sub1``, LLVM's sub-register index names).

    The class (from the target's register classes) says which file the register lives in
    and how many 32-bit units it spans; the allocator replaces it with a physical register.
    A sub-register names some of those units: ``s_getpc_b64`` defines a 64-bit value whose
    halves ``s_add_u32``/``s_addc_u32`` then update, as LLVM's ``%3.sub0`` does in MIR.
    """

    name = "amdgpu_mc.vreg"

    @staticmethod
    def of(number: int, register_class: str, sub: str = "") -> VirtRegAttr:
        return VirtRegAttr((number, f"{register_class}.{sub}" if sub else register_class))

    @property
    def number(self) -> int:
        return self.data[0]

    @property
    def register_class(self) -> str:
        return self.data[1].split(".", 1)[0]

    @property
    def sub(self) -> str:
        """The sub-register index (``sub0``, ``sub2_sub3``), or "" for the whole register."""
        parts = self.data[1].split(".", 1)
        return parts[1] if len(parts) > 1 else ""

    @property
    def sub_units(self) -> tuple[int, int] | None:
        """``(first unit, number of units)`` the sub-register covers; None when whole."""
        return _sub_units(self.data[1])

    def whole(self) -> VirtRegAttr:
        return VirtRegAttr((self.number, self.register_class))

    def part(self, first: int, units: int = 1) -> VirtRegAttr:
        """The sub-register of ``units`` 32-bit units from unit ``first``."""
        sub = "_".join(f"sub{index}" for index in range(first, first + units))
        return VirtRegAttr.of(self.number, self.register_class, sub)

    @property
    def text(self) -> str:
        return f"%{self.number}:{self.data[1]}"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[int, str]:
        with parser.in_angle_brackets():
            number = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(":")
            return number, parser.parse_identifier()

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.number} : {self.data[1]}")

    def verify(self) -> None:
        if _SUB.fullmatch(self.data[1]) is None:
            from xdsl.utils.exceptions import VerifyException

            raise VerifyException(f"'{self.data[1]}' is not a register class with an "
                                  "optional sub-register (SReg_64, SReg_64.sub1)")


@functools.cache
def _sub_units(spelling: str) -> tuple[int, int] | None:
    """The units ``VReg_64.sub0_sub1``-style spellings cover (a handful of distinct ones)."""
    parts = spelling.split(".", 1)
    if len(parts) == 1 or not parts[1]:
        return None
    indexes = [int(part[3:]) for part in parts[1].split("_")]
    return indexes[0], len(indexes)
