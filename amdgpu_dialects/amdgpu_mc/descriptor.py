"""``#amdgpu_mc.kernel_descriptor<...>``: the AMDHSA kernel descriptor as a typed attribute.

Every field of the 64-byte descriptor has a name (``kernarg_size``,
``rsrc1.granulated_workitem_vgpr_count``, ``properties.enable_sgpr_kernarg_segment_ptr``...), taken
from the lossless model in :mod:`luthier.amdgpu_dialects.target.kernel_descriptor`. Fields that are
zero are not printed, so the IR shows what a kernel asks for; parsing fills them back with zero, and
``to_bytes`` of the parsed attribute is the descriptor the kernel came with.
"""

from __future__ import annotations

from typing import Any, cast

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from luthier.amdgpu_dialects.target.bitfields import BitfieldWord
from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor

#: Prefix in the IR -> the descriptor's bit-field word it names.
_WORDS: dict[str, str] = {
    "rsrc1": "compute_pgm_rsrc1",
    "rsrc2": "compute_pgm_rsrc2",
    "rsrc3": "compute_pgm_rsrc3",
    "properties": "kernel_code_properties",
    "preload": "kernarg_preload",
}
_RESERVED_BYTES = ("reserved_12", "reserved_24", "reserved_60")
_INTEGERS = ("group_segment_fixed_size", "private_segment_fixed_size", "kernarg_size",
             "kernel_code_entry_byte_offset")
#: The values each integer field holds: three u32, and a signed 64-bit offset.
_INTEGER_RANGES = {"group_segment_fixed_size": (0, 1 << 32),
                   "private_segment_fixed_size": (0, 1 << 32), "kernarg_size": (0, 1 << 32),
                   "kernel_code_entry_byte_offset": (-(1 << 63), 1 << 63)}


def descriptor_fields(descriptor: KernelDescriptor) -> dict[str, int]:
    """Every field of ``descriptor`` by its IR name; reserved byte runs as integers."""
    out: dict[str, int] = {name: getattr(descriptor, name) for name in _INTEGERS}
    for prefix, word_name in _WORDS.items():
        word = cast(BitfieldWord, getattr(descriptor, word_name))
        for name, _, _, _ in word.layout():
            out[f"{prefix}.{name}"] = int(getattr(word, name))
    for name in _RESERVED_BYTES:
        out[name] = int.from_bytes(getattr(descriptor, name), "little")
    return out


def descriptor_from_fields(fields: dict[str, int]) -> KernelDescriptor:
    """Build a descriptor from IR field names (missing ones are zero); ValueError on an
    unknown name or a value that does not fit its field."""
    empty = KernelDescriptor.from_bytes(bytes(64))
    known = descriptor_fields(empty)
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise ValueError(f"unknown kernel descriptor field '{unknown[0]}'")
    values: dict[str, Any] = {name: fields.get(name, 0) for name in _INTEGERS}
    for name, (low, high) in _INTEGER_RANGES.items():
        if not low <= values[name] < high:
            raise ValueError(f"{name} = {values[name]} does not fit its field ({low} to "
                             f"{high - 1})")
    for prefix, word_name in _WORDS.items():
        word_type = type(cast(BitfieldWord, getattr(empty, word_name)))
        word_values: dict[str, Any] = {}
        for name, _, width, is_bool in word_type.layout():
            value = fields.get(f"{prefix}.{name}", 0)
            if not 0 <= value < (1 << width):
                raise ValueError(f"{prefix}.{name} = {value} does not fit in {width} bits")
            word_values[name] = bool(value) if is_bool else value
        values[word_name] = word_type(**word_values)
    for name in _RESERVED_BYTES:
        size = len(getattr(empty, name))
        value = fields.get(name, 0)
        if not 0 <= value < (1 << (8 * size)):
            raise ValueError(f"{name} = {value} does not fit in {size} bytes")
        values[name] = value.to_bytes(size, "little")
    return KernelDescriptor(**values)


@irdl_attr_definition
class KernelDescriptorAttr(Data[KernelDescriptor]):
    """A kernel descriptor, printed as its non-zero fields."""

    name = "amdgpu_mc.kernel_descriptor"

    @property
    def fields(self) -> dict[str, int]:
        return descriptor_fields(self.data)

    def with_fields(self, **changes: int) -> KernelDescriptorAttr:
        """A copy with some fields changed (names as printed, dots written as ``__``)."""
        fields = self.fields
        fields.update({name.replace("__", "."): value for name, value in changes.items()})
        return KernelDescriptorAttr(descriptor_from_fields(fields))

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> KernelDescriptor:
        fields: dict[str, int] = {}

        def parse_field() -> None:
            position = parser.pos
            name = parser.parse_identifier()
            if name in fields:
                parser.raise_error(f"kernel descriptor field '{name}' given twice", position)
            parser.parse_punctuation("=")
            fields[name] = parser.parse_integer(allow_boolean=True)

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_field)
        try:
            return descriptor_from_fields(fields)
        except ValueError as error:
            parser.raise_error(str(error))

    def print_parameter(self, printer: Printer) -> None:
        shown = [f"{name} = {value:#x}" if name.startswith("reserved") else f"{name} = {value}"
                 for name, value in descriptor_fields(self.data).items() if value]
        printer.print_string("<" + ", ".join(shown) + ">")

