"""The kernel-descriptor attribute names RSRC1/RSRC3 bits as the kernel's ISA family does.

The same 32 bits mean different things per family (AMDGPUUsage's "compute_pgm_rsrc1" and
"compute_pgm_rsrc3" tables): the attribute must print the family's names, parse them back to
the same bytes, and refuse a name the family does not have.
"""

from __future__ import annotations

import io
import random

import pytest
from xdsl.context import Context
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from luthier.amdgpu_dialects.amdgpu_mc.descriptor import (
    KernelDescriptorAttr,
    descriptor_fields,
    descriptor_from_fields,
)
from luthier.amdgpu_dialects.target.kernel_descriptor import DescriptorLayout, KernelDescriptor
from luthier.amdgpu_dialects.target.subtarget import subtarget_for

#: One bit position per layout and word, with the name AMDGPUUsage gives it there.
NAMED_BITS = [
    (DescriptorLayout.GFX9, 0x30, 21, "rsrc1.enable_dx10_clamp"),
    (DescriptorLayout.GFX12, 0x30, 21, "rsrc1.wg_rr_en"),
    (DescriptorLayout.GFX12, 0x30, 23, "rsrc1.disable_perf"),
    (DescriptorLayout.GFX10_GFX11, 0x30, 29, "rsrc1.wgp_mode"),
    (DescriptorLayout.GFX9, 0x2C, 16, "rsrc3.tg_split"),
    (DescriptorLayout.GFX10_GFX11, 0x2C, 0, "rsrc3.shared_vgpr_count"),
    (DescriptorLayout.GFX10_GFX11, 0x2C, 4, "rsrc3.inst_pref_size"),
    (DescriptorLayout.GFX10_GFX11, 0x2C, 10, "rsrc3.trap_on_start"),
    (DescriptorLayout.GFX10_GFX11, 0x2C, 31, "rsrc3.image_op"),
    (DescriptorLayout.GFX12, 0x2C, 4, "rsrc3.inst_pref_size"),
    (DescriptorLayout.GFX12, 0x2C, 13, "rsrc3.glg_en"),
]


def _with_bit(offset: int, bit: int) -> bytes:
    data = bytearray(64)
    data[offset : offset + 4] = (1 << bit).to_bytes(4, "little")
    return bytes(data)


def _printed(attr: KernelDescriptorAttr) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


def _parsed(text: str) -> KernelDescriptorAttr:
    context = Context()
    context.load_attr_or_type(KernelDescriptorAttr)
    attr = Parser(context, text).parse_attribute()
    assert isinstance(attr, KernelDescriptorAttr)
    return attr


@pytest.mark.parametrize(("layout", "offset", "bit", "name"), NAMED_BITS)
def test_a_bit_has_its_familys_name(layout: DescriptorLayout, offset: int, bit: int,
                                    name: str) -> None:
    descriptor = KernelDescriptor.from_bytes(_with_bit(offset, bit), layout)
    assert {field for field, value in descriptor_fields(descriptor).items() if value} == {name}


@pytest.mark.parametrize("layout", list(DescriptorLayout))
def test_printed_descriptors_parse_back_to_the_same_bytes(layout: DescriptorLayout) -> None:
    generator = random.Random(f"descriptor-{layout}")
    for _ in range(200):
        raw = generator.randbytes(64)
        attr = KernelDescriptorAttr(KernelDescriptor.from_bytes(raw, layout))
        text = _printed(attr)
        assert text.startswith("#amdgpu_mc.kernel_descriptor<" + (
            "" if layout is DescriptorLayout.GFX9 else f"{layout}, "))
        parsed = _parsed(text)
        assert parsed.data.layout is layout
        assert parsed.data.to_bytes() == raw, text
        assert parsed.with_fields(kernarg_size=8).data.layout is layout


def test_a_field_another_family_has_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown kernel descriptor field 'rsrc3.accum_offset' "
                                         "in layout gfx12"):
        descriptor_from_fields({"rsrc3.accum_offset": 1}, DescriptorLayout.GFX12)
    with pytest.raises(ParseError, match="rsrc1.wg_rr_en"):
        _parsed("#amdgpu_mc.kernel_descriptor<rsrc1.wg_rr_en = 1>")


@pytest.mark.parametrize("text", [
    "#amdgpu_mc.kernel_descriptor<gfx13, kernarg_size = 8>",
    "#amdgpu_mc.kernel_descriptor<kernarg_size = 8, gfx12>",
    "#amdgpu_mc.kernel_descriptor<gfx12, gfx12>",
])
def test_a_layout_is_a_known_name_and_comes_first(text: str) -> None:
    with pytest.raises(ParseError, match="starts with its layout, one of gfx9, gfx10_gfx11, "
                                         "gfx12"):
        _parsed(text)


@pytest.mark.parametrize(("processor", "layout"), [
    ("gfx908", DescriptorLayout.GFX9), ("gfx90a", DescriptorLayout.GFX9),
    ("gfx942", DescriptorLayout.GFX9), ("gfx1030", DescriptorLayout.GFX10_GFX11),
    ("gfx1100", DescriptorLayout.GFX10_GFX11), ("gfx1200", DescriptorLayout.GFX12),
    ("gfx1201", DescriptorLayout.GFX12),
])
def test_each_target_has_the_layout_of_its_family(processor: str,
                                                  layout: DescriptorLayout) -> None:
    assert subtarget_for(processor).descriptor_layout is layout
