"""The 64-byte AMDHSA kernel descriptor, every field named.

CP reads the descriptor, not the kernel's code, to start a dispatch: register budgets, the
user SGPRs to set up, float modes, scratch and LDS sizes, and where the code starts. The
preamble pass rewrites some of these fields, so the model must be lossless: the layout follows
the "Code Object V3 Kernel Descriptor" table of AMDGPUUsage.rst, and reserved bytes and bits are
kept as fields of their own so that ``to_bytes(from_bytes(b)) == b`` for any 64 bytes.

RSRC1 and RSRC3 do not mean the same on every ISA family: RSRC3 is ACCUM_OFFSET/TG_SPLIT on
GFX90A/GFX940 (reserved before), SHARED_VGPR_COUNT/INST_PREF_SIZE/... on GFX10-GFX11 and another
table again on GFX12, and GFX12 renames two RSRC1 bits. The descriptor stores the words in their
GFX9 layout (``compute_pgm_rsrc1``, ``compute_pgm_rsrc3``: lossless whatever the target) and
carries the :class:`DescriptorLayout` of its target, whose views (``rsrc1_view``,
``rsrc3_view``) name the bits as that family's table does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import StrEnum

from luthier.amdgpu_dialects.target.bitfields import BitfieldWord, bits

KERNEL_DESCRIPTOR_SIZE = 64
#: Byte offset of KERNEL_CODE_ENTRY_BYTE_OFFSET inside the descriptor (bits 191:128).
CODE_ENTRY_FIELD_OFFSET = 16

#: Little-endian layout: sizes, reserved 4 bytes, entry offset (signed), reserved 20 bytes,
#: RSRC3, RSRC1, RSRC2, kernel code properties, kernarg preload, reserved 4 bytes.
_LAYOUT = struct.Struct("<III4sq20sIIIHH4s")
assert _LAYOUT.size == KERNEL_DESCRIPTOR_SIZE


@dataclass(frozen=True)
class ComputePgmRsrc1(BitfieldWord):
    """COMPUTE_PGM_RSRC1 (GFX6-GFX12 table)."""

    granulated_workitem_vgpr_count: int = bits(0, 6)
    granulated_wavefront_sgpr_count: int = bits(6, 4)
    priority: int = bits(10, 2)
    float_round_mode_32: int = bits(12, 2)
    float_round_mode_16_64: int = bits(14, 2)
    float_denorm_mode_32: int = bits(16, 2)
    float_denorm_mode_16_64: int = bits(18, 2)
    priv: bool = bits(20)
    enable_dx10_clamp: bool = bits(21)
    debug_mode: bool = bits(22)
    enable_ieee_mode: bool = bits(23)
    bulky: bool = bits(24)
    cdbg_user: bool = bits(25)
    fp16_ovfl: bool = bits(26)
    reserved_27: int = bits(27, 2)
    wgp_mode: bool = bits(29)
    mem_ordered: bool = bits(30)
    fwd_progress: bool = bits(31)


@dataclass(frozen=True)
class ComputePgmRsrc1Gfx12(BitfieldWord):
    """COMPUTE_PGM_RSRC1 on GFX12: bit 21 is WG_RR_EN and bit 23 DISABLE_PERF (DX10 clamp and
    IEEE mode are gone from the descriptor)."""

    granulated_workitem_vgpr_count: int = bits(0, 6)
    granulated_wavefront_sgpr_count: int = bits(6, 4)
    priority: int = bits(10, 2)
    float_round_mode_32: int = bits(12, 2)
    float_round_mode_16_64: int = bits(14, 2)
    float_denorm_mode_32: int = bits(16, 2)
    float_denorm_mode_16_64: int = bits(18, 2)
    priv: bool = bits(20)
    wg_rr_en: bool = bits(21)
    debug_mode: bool = bits(22)
    disable_perf: bool = bits(23)
    bulky: bool = bits(24)
    cdbg_user: bool = bits(25)
    fp16_ovfl: bool = bits(26)
    reserved_27: int = bits(27, 2)
    wgp_mode: bool = bits(29)
    mem_ordered: bool = bits(30)
    fwd_progress: bool = bits(31)


@dataclass(frozen=True)
class ComputePgmRsrc2(BitfieldWord):
    """COMPUTE_PGM_RSRC2 (GFX6-GFX12 table)."""

    enable_private_segment: bool = bits(0)
    user_sgpr_count: int = bits(1, 5)
    enable_trap_handler: bool = bits(6)
    enable_sgpr_workgroup_id_x: bool = bits(7)
    enable_sgpr_workgroup_id_y: bool = bits(8)
    enable_sgpr_workgroup_id_z: bool = bits(9)
    enable_sgpr_workgroup_info: bool = bits(10)
    enable_vgpr_workitem_id: int = bits(11, 2)
    enable_exception_address_watch: bool = bits(13)
    enable_exception_memory: bool = bits(14)
    granulated_lds_size: int = bits(15, 9)
    enable_exception_ieee_754_fp_invalid_operation: bool = bits(24)
    enable_exception_fp_denormal_source: bool = bits(25)
    enable_exception_ieee_754_fp_division_by_zero: bool = bits(26)
    enable_exception_ieee_754_fp_overflow: bool = bits(27)
    enable_exception_ieee_754_fp_underflow: bool = bits(28)
    enable_exception_ieee_754_fp_inexact: bool = bits(29)
    enable_exception_int_divide_by_zero: bool = bits(30)
    reserved_31: bool = bits(31)


@dataclass(frozen=True)
class ComputePgmRsrc3(BitfieldWord):
    """COMPUTE_PGM_RSRC3 with its GFX90A/GFX940 layout (reserved, must be 0, on GFX6-GFX9)."""

    accum_offset: int = bits(0, 6)
    reserved_6: int = bits(6, 10)
    tg_split: bool = bits(16)
    reserved_17: int = bits(17, 15)

    @property
    def accum_offset_vgprs(self) -> int:
        """The first AccVGPR's index in the unified register file (granularity 4)."""
        return (self.accum_offset + 1) * 4


@dataclass(frozen=True)
class ComputePgmRsrc3Gfx10Gfx11(BitfieldWord):
    """COMPUTE_PGM_RSRC3 on GFX10-GFX11 (INST_PREF_SIZE, TRAP_ON_*, IMAGE_OP are GFX11's;
    reserved, must be 0, on GFX10)."""

    shared_vgpr_count: int = bits(0, 4)
    inst_pref_size: int = bits(4, 6)
    trap_on_start: bool = bits(10)
    trap_on_end: bool = bits(11)
    reserved_12: int = bits(12, 19)
    image_op: bool = bits(31)


@dataclass(frozen=True)
class ComputePgmRsrc3Gfx12(BitfieldWord):
    """COMPUTE_PGM_RSRC3 on GFX12."""

    reserved_0: int = bits(0, 4)
    inst_pref_size: int = bits(4, 8)
    reserved_12: bool = bits(12)
    glg_en: bool = bits(13)
    reserved_14: int = bits(14, 17)
    image_op: bool = bits(31)


class DescriptorLayout(StrEnum):
    """Which of AMDGPUUsage's RSRC1/RSRC3 tables names a descriptor's bits."""

    #: GFX6-GFX9: RSRC3 is ACCUM_OFFSET/TG_SPLIT on GFX90A/GFX940, reserved (0) before.
    GFX9 = "gfx9"
    GFX10_GFX11 = "gfx10_gfx11"
    #: GFX12: its own RSRC3 table, and WG_RR_EN/DISABLE_PERF in RSRC1.
    GFX12 = "gfx12"

    @staticmethod
    def for_major(major: int) -> DescriptorLayout:
        """The layout of an ISA major version (9 and below, 10, 11, 12)."""
        if major <= 9:
            return DescriptorLayout.GFX9
        return DescriptorLayout.GFX12 if major >= 12 else DescriptorLayout.GFX10_GFX11


#: Per layout, the classes that name RSRC1's and RSRC3's bits.
_RSRC1_VIEWS: dict[DescriptorLayout, type[BitfieldWord]] = {
    DescriptorLayout.GFX9: ComputePgmRsrc1,
    DescriptorLayout.GFX10_GFX11: ComputePgmRsrc1,
    DescriptorLayout.GFX12: ComputePgmRsrc1Gfx12,
}
_RSRC3_VIEWS: dict[DescriptorLayout, type[BitfieldWord]] = {
    DescriptorLayout.GFX9: ComputePgmRsrc3,
    DescriptorLayout.GFX10_GFX11: ComputePgmRsrc3Gfx10Gfx11,
    DescriptorLayout.GFX12: ComputePgmRsrc3Gfx12,
}


def rsrc1_view_type(layout: DescriptorLayout) -> type[BitfieldWord]:
    """The class naming RSRC1's bits in ``layout``."""
    return _RSRC1_VIEWS[layout]


def rsrc3_view_type(layout: DescriptorLayout) -> type[BitfieldWord]:
    """The class naming RSRC3's bits in ``layout``."""
    return _RSRC3_VIEWS[layout]


@dataclass(frozen=True)
class KernelCodeProperties(BitfieldWord):
    """The 16-bit kernel code properties (descriptor bits 463:448)."""

    WORD_BITS = 16

    enable_sgpr_private_segment_buffer: bool = bits(0)
    enable_sgpr_dispatch_ptr: bool = bits(1)
    enable_sgpr_queue_ptr: bool = bits(2)
    enable_sgpr_kernarg_segment_ptr: bool = bits(3)
    enable_sgpr_dispatch_id: bool = bits(4)
    enable_sgpr_flat_scratch_init: bool = bits(5)
    enable_sgpr_private_segment_size: bool = bits(6)
    reserved_7: int = bits(7, 3)
    enable_wavefront_size32: bool = bits(10)
    uses_dynamic_stack: bool = bits(11)
    reserved_12: int = bits(12, 4)

    @property
    def user_sgpr_count(self) -> int:
        """SGPRs the enabled user-data fields take (buffer 4, size 1, the pointers 2 each)."""
        return (
            4 * self.enable_sgpr_private_segment_buffer
            + 2 * self.enable_sgpr_dispatch_ptr
            + 2 * self.enable_sgpr_queue_ptr
            + 2 * self.enable_sgpr_kernarg_segment_ptr
            + 2 * self.enable_sgpr_dispatch_id
            + 2 * self.enable_sgpr_flat_scratch_init
            + 1 * self.enable_sgpr_private_segment_size
        )


@dataclass(frozen=True)
class KernargPreload(BitfieldWord):
    """The 16-bit kernarg preload spec (descriptor bits 479:464; GFX90A/GFX940)."""

    WORD_BITS = 16

    kernarg_preload_spec_length: int = bits(0, 7)
    kernarg_preload_spec_offset: int = bits(7, 9)


@dataclass(frozen=True)
class KernelDescriptor:
    """One kernel descriptor, field by field, reserved bytes included."""

    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    reserved_12: bytes
    #: Signed byte offset from the descriptor's own address to the kernel's first instruction.
    kernel_code_entry_byte_offset: int
    reserved_24: bytes
    compute_pgm_rsrc3: ComputePgmRsrc3
    compute_pgm_rsrc1: ComputePgmRsrc1
    compute_pgm_rsrc2: ComputePgmRsrc2
    kernel_code_properties: KernelCodeProperties
    kernarg_preload: KernargPreload
    reserved_60: bytes
    #: The family whose tables name RSRC1/RSRC3's bits; not part of the 64 bytes.
    layout: DescriptorLayout = field(default=DescriptorLayout.GFX9)

    @staticmethod
    def from_bytes(data: bytes, layout: DescriptorLayout = DescriptorLayout.GFX9
                   ) -> KernelDescriptor:
        """Decode exactly 64 bytes (ValueError otherwise; the ELF reader checks first)."""
        if len(data) != KERNEL_DESCRIPTOR_SIZE:
            raise ValueError(f"a kernel descriptor is 64 bytes, got {len(data)}")
        (group, private, kernarg, res12, entry, res24, rsrc3, rsrc1, rsrc2, props, preload,
         res60) = _LAYOUT.unpack(data)  # fmt: skip
        return KernelDescriptor(
            group_segment_fixed_size=group,
            private_segment_fixed_size=private,
            kernarg_size=kernarg,
            reserved_12=res12,
            kernel_code_entry_byte_offset=entry,
            reserved_24=res24,
            compute_pgm_rsrc3=ComputePgmRsrc3.from_word(rsrc3),
            compute_pgm_rsrc1=ComputePgmRsrc1.from_word(rsrc1),
            compute_pgm_rsrc2=ComputePgmRsrc2.from_word(rsrc2),
            kernel_code_properties=KernelCodeProperties.from_word(props),
            kernarg_preload=KernargPreload.from_word(preload),
            reserved_60=res60,
            layout=layout,
        )

    def rsrc1_view(self) -> BitfieldWord:
        """RSRC1 with its bits named as this descriptor's family names them."""
        return rsrc1_view_type(self.layout).from_word(self.compute_pgm_rsrc1.to_word())

    def rsrc3_view(self) -> BitfieldWord:
        """RSRC3 with its bits named as this descriptor's family names them."""
        return rsrc3_view_type(self.layout).from_word(self.compute_pgm_rsrc3.to_word())

    def to_bytes(self) -> bytes:
        """Encode back to the 64 bytes; byte-exact with what ``from_bytes`` was given."""
        return _LAYOUT.pack(
            self.group_segment_fixed_size,
            self.private_segment_fixed_size,
            self.kernarg_size,
            self.reserved_12,
            self.kernel_code_entry_byte_offset,
            self.reserved_24,
            self.compute_pgm_rsrc3.to_word(),
            self.compute_pgm_rsrc1.to_word(),
            self.compute_pgm_rsrc2.to_word(),
            self.kernel_code_properties.to_word(),
            self.kernarg_preload.to_word(),
            self.reserved_60,
        )

    def code_entry(self, descriptor_address: int) -> int:
        """The kernel's entry address, given the address the descriptor is loaded at."""
        return descriptor_address + self.kernel_code_entry_byte_offset
