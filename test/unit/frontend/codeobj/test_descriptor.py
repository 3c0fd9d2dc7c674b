"""Kernel descriptor decoding: exact round trips, named fields, and the documented layout."""

from __future__ import annotations

import random
import struct

import pytest

from luthier.amdgpu_dialects.target.kernel_descriptor import (
    ComputePgmRsrc1,
    ComputePgmRsrc2,
    ComputePgmRsrc3,
    KernargPreload,
    KernelCodeProperties,
    KernelDescriptor,
)
from luthier.frontend.codeobj import read_code_object

from .conftest import COMMITTED


def test_random_bytes_round_trip() -> None:
    rng = random.Random(64)
    for _ in range(2000):
        data = rng.randbytes(64)
        assert KernelDescriptor.from_bytes(data).to_bytes() == data


@pytest.mark.parametrize(
    "word_type",
    [ComputePgmRsrc1, ComputePgmRsrc2, ComputePgmRsrc3, KernelCodeProperties, KernargPreload],
)
def test_every_bit_belongs_to_one_field(word_type: type[ComputePgmRsrc1]) -> None:
    """Setting each single bit decodes to exactly one changed field and encodes back."""
    for bit in range(word_type.WORD_BITS):
        decoded = word_type.from_word(1 << bit)
        assert decoded.to_word() == 1 << bit
        changed = [name for name, *_ in word_type.layout() if getattr(decoded, name)]
        assert len(changed) == 1, (word_type.__name__, bit, changed)


def test_layout_offsets() -> None:
    """Each field sits where the "Code Object V3 Kernel Descriptor" table puts it."""
    data = struct.pack(
        "<III4sq20sIIIHH4s", 1, 2, 3, b"\0" * 4, -256, b"\0" * 20, 0x10005, 0xA00041, 0x90,
        0x0409, 0x0182, b"\0" * 4,
    )  # fmt: skip
    descriptor = KernelDescriptor.from_bytes(data)
    assert descriptor.group_segment_fixed_size == 1
    assert descriptor.private_segment_fixed_size == 2
    assert descriptor.kernarg_size == 3
    assert descriptor.kernel_code_entry_byte_offset == -256
    assert descriptor.code_entry(0x1000) == 0xF00
    rsrc3 = descriptor.compute_pgm_rsrc3
    assert (rsrc3.accum_offset, rsrc3.tg_split, rsrc3.accum_offset_vgprs) == (5, True, 24)
    rsrc1 = descriptor.compute_pgm_rsrc1
    assert rsrc1.granulated_workitem_vgpr_count == 1
    assert rsrc1.granulated_wavefront_sgpr_count == 1
    assert rsrc1.enable_dx10_clamp and rsrc1.enable_ieee_mode and not rsrc1.fp16_ovfl
    assert rsrc1.float_denorm_mode_32 == 0 and rsrc1.float_round_mode_16_64 == 0
    rsrc2 = descriptor.compute_pgm_rsrc2
    assert rsrc2.user_sgpr_count == 8 and rsrc2.enable_sgpr_workgroup_id_x
    props = descriptor.kernel_code_properties
    assert props.enable_sgpr_private_segment_buffer and props.enable_sgpr_kernarg_segment_ptr
    assert props.enable_wavefront_size32 and not props.uses_dynamic_stack
    assert props.user_sgpr_count == 6
    preload = descriptor.kernarg_preload
    assert (preload.kernarg_preload_spec_length, preload.kernarg_preload_spec_offset) == (2, 3)
    assert descriptor.to_bytes() == data


def test_fields_are_checked_on_encode() -> None:
    with pytest.raises(ValueError, match="does not fit 6 bits"):
        ComputePgmRsrc3(accum_offset=64, reserved_6=0, tg_split=False, reserved_17=0).to_word()
    with pytest.raises(ValueError, match="64 bytes"):
        KernelDescriptor.from_bytes(b"\0" * 63)


def test_sample_descriptor_values() -> None:
    """vector_add on gfx90a, values as llvm-objdump prints them for its .kd symbol."""
    sample = next(path for path in COMMITTED if path.name == "vector_add.gfx90a.co")
    kernel = read_code_object(sample).kernel("vector_add")
    descriptor = kernel.descriptor
    assert descriptor.kernarg_size == 288
    assert descriptor.compute_pgm_rsrc3.accum_offset_vgprs == 8
    assert descriptor.compute_pgm_rsrc1.float_denorm_mode_32 == 3
    assert descriptor.compute_pgm_rsrc2.enable_sgpr_workgroup_id_x
    assert descriptor.kernel_code_properties.enable_sgpr_kernarg_segment_ptr
    assert (
        kernel.entry_address
        == 0x1900
        == kernel.descriptor_symbol.value + (descriptor.kernel_code_entry_byte_offset)
    )
