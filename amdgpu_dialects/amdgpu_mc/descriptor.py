"""``#amdgpu_mc.kernel_descriptor<...>``: the AMDHSA kernel descriptor as a typed attribute.

Every field of the 64-byte descriptor has a name (``kernarg_size``,
``rsrc1.granulated_workitem_vgpr_count``, ``properties.enable_sgpr_kernarg_segment_ptr``...), taken
from the lossless model in :mod:`luthier.amdgpu_dialects.target.kernel_descriptor`. Fields that are
zero are not printed, so the IR shows what a kernel asks for; parsing fills them back with zero, and
``to_bytes`` of the parsed attribute is the descriptor the kernel came with.

RSRC1 and RSRC3 bits are named as the kernel's ISA family names them
(:class:`~luthier.amdgpu_dialects.target.kernel_descriptor.DescriptorLayout`). A descriptor of
a GFX9 target prints as before; any other starts with its layout, so the text says how to read
it: ``#amdgpu_mc.kernel_descriptor<gfx10_gfx11, rsrc1.wgp_mode = 1, rsrc3.shared_vgpr_count = 2>``.
"""

from __future__ import annotations

from typing import Any, cast

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from luthier.amdgpu_dialects.target.bitfields import BitfieldWord
from luthier.amdgpu_dialects.target.kernel_descriptor import (
    DescriptorLayout,
    KernelDescriptor,
    rsrc1_view_type,
    rsrc3_view_type,
)

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


def _word_types(layout: DescriptorLayout) -> dict[str, type[BitfieldWord]]:
    """IR prefix -> the class that names that word's bits in ``layout``."""
    empty = KernelDescriptor.from_bytes(bytes(64))
    types = {prefix: type(cast(BitfieldWord, getattr(empty, word_name)))
             for prefix, word_name in _WORDS.items()}
    types["rsrc1"] = rsrc1_view_type(layout)
    types["rsrc3"] = rsrc3_view_type(layout)
    return types


def descriptor_fields(descriptor: KernelDescriptor) -> dict[str, int]:
    """Every field of ``descriptor`` by its IR name; reserved byte runs as integers."""
    out: dict[str, int] = {name: getattr(descriptor, name) for name in _INTEGERS}
    views = {"rsrc1": descriptor.rsrc1_view(), "rsrc3": descriptor.rsrc3_view()}
    for prefix, word_name in _WORDS.items():
        word = views.get(prefix) or cast(BitfieldWord, getattr(descriptor, word_name))
        for name, _, _, _ in word.layout():
            out[f"{prefix}.{name}"] = int(getattr(word, name))
    for name in _RESERVED_BYTES:
        out[name] = int.from_bytes(getattr(descriptor, name), "little")
    return out


def descriptor_from_fields(
    fields: dict[str, int], layout: DescriptorLayout = DescriptorLayout.GFX9
) -> KernelDescriptor:
    """Build a descriptor of ``layout`` from IR field names (missing ones are zero);
    ValueError on an unknown name or a value that does not fit its field."""
    empty = KernelDescriptor.from_bytes(bytes(64), layout)
    known = descriptor_fields(empty)
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise ValueError(f"unknown kernel descriptor field '{unknown[0]}'"
                         + ("" if layout is DescriptorLayout.GFX9 else f" in layout {layout}"))
    values: dict[str, Any] = {name: fields.get(name, 0) for name in _INTEGERS}
    for name, (low, high) in _INTEGER_RANGES.items():
        if not low <= values[name] < high:
            raise ValueError(f"{name} = {values[name]} does not fit its field ({low} to "
                             f"{high - 1})")
    for prefix, word_type in _word_types(layout).items():
        word = 0
        for name, lsb, width, _ in word_type.layout():
            value = fields.get(f"{prefix}.{name}", 0)
            if not 0 <= value < (1 << width):
                raise ValueError(f"{prefix}.{name} = {value} does not fit in {width} bits")
            word |= value << lsb
        # Stored in the GFX9 classes whatever the layout: the views name the bits.
        stored_type = type(cast(BitfieldWord, getattr(empty, _WORDS[prefix])))
        values[_WORDS[prefix]] = stored_type.from_word(word)
    for name in _RESERVED_BYTES:
        size = len(getattr(empty, name))
        value = fields.get(name, 0)
        if not 0 <= value < (1 << (8 * size)):
            raise ValueError(f"{name} = {value} does not fit in {size} bytes")
        values[name] = value.to_bytes(size, "little")
    return KernelDescriptor(**values, layout=layout)


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
        return KernelDescriptorAttr(descriptor_from_fields(fields, self.data.layout))

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> KernelDescriptor:
        fields: dict[str, int] = {}
        layouts: list[DescriptorLayout] = []

        def parse_entry() -> None:
            position = parser.pos
            name = parser.parse_identifier()
            if parser.parse_optional_punctuation("=") is None:
                # A bare name is the layout, and only the first entry may be one.
                if fields or layouts or name not in set(DescriptorLayout):
                    parser.raise_error(f"expected '=' after '{name}' (a kernel descriptor "
                                       f"starts with its layout, one of "
                                       f"{', '.join(DescriptorLayout)}, then fields)", position)
                layouts.append(DescriptorLayout(name))
                return
            if name in fields:
                parser.raise_error(f"kernel descriptor field '{name}' given twice", position)
            fields[name] = parser.parse_integer(allow_boolean=True)

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_entry)
        try:
            return descriptor_from_fields(fields, layouts[0] if layouts else DescriptorLayout.GFX9)
        except ValueError as error:
            parser.raise_error(str(error))

    def print_parameter(self, printer: Printer) -> None:
        shown = [f"{name} = {value:#x}" if name.startswith("reserved") else f"{name} = {value}"
                 for name, value in descriptor_fields(self.data).items() if value]
        if self.data.layout is not DescriptorLayout.GFX9:
            shown.insert(0, str(self.data.layout))
        printer.print_string("<" + ", ".join(shown) + ">")
