"""``.amdgcn_target``, ``.amdhsa_code_object_version`` and ``.amdhsa_kernel`` blocks.

The printer emits a lifted (or instrumented) code object as LLVM-syntax assembly; llvm-mc (or
our assembler, which follows it) must rebuild from it the very kernel descriptor the code object
had, because CP reads the register budget, user SGPR layout, float modes and scratch setup from
those 64 bytes. Most fields map one-to-one onto a directive and are printed explicitly (defaults
differ between targets and LLVM versions, so nothing is left to them), in the order of the
"AMDHSA Kernel Assembler Directives" table of AMDGPUUsage.rst. Two fields are not printed but
computed by the assembler, so we invert its formulas:

* GRANULATED_WORKITEM_VGPR_COUNT = ceil(max(1, next_free_vgpr) / granule) - 1, the granule being
  8 on GFX90A/GFX940 (unified VGPR+AGPR file) and otherwise 4 in wave64, 8 in wave32. We print
  the largest next_free_vgpr with the descriptor's count: the whole allocation.
* GRANULATED_WAVEFRONT_SGPR_COUNT = ceil(max(1, next_free_sgpr + extra) / 8) - 1 before GFX10
  (always 0 from GFX10 on), where ``extra`` covers VCC, FLAT_SCRATCH and XNACK_MASK as chosen by
  ``.amdhsa_reserve_vcc``/``_flat_scratch`` and the target's xnack setting. We pick the reserve
  flags and the largest next_free_sgpr that give the count and pass llvm-mc's range checks.

ACCUM_OFFSET is printed as ``.amdhsa_accum_offset (field + 1) * 4``. KERNEL_CODE_ENTRY_BYTE_OFFSET
is never printed: the assembler computes it from the kernel symbol (a R_AMDGPU_REL64 relocation
in a relocatable object). Anything the directives cannot set (reserved bits, PRIV, DEBUG_MODE,
trap handler, LDS size, ...) raises :class:`DirectiveError` instead of silently changing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.processors import (
    ADDRESSABLE_SGPRS_GFX6_GFX7,
    ADDRESSABLE_SGPRS_GFX8_PLUS,
    FIXED_SGPRS_FOR_INIT_BUG,
    MAX_USER_SGPRS,
    SGPR_ENCODING_GRANULE,
    Processor,
    TargetIdError,
    parse_processor,
)
from luthier.amdgpu_dialects.target.target_id import Target
from luthier.lowering.asm.errors import DirectiveError

#: Code object versions LLVM 19 can assemble with these directives (V2/V3 use other ones).
SUPPORTED_CODE_OBJECT_VERSIONS = (4, 5, 6)

#: Kernel names printed as is: what the assembler reads as one symbol without quoting.
_SYMBOL = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$@]*")

#: Indentation of a directive at top level and inside a block, as clang -S prints them.
TOP = "\t"
INNER = "\t\t"


def target_directives(target: Target, code_object_version: int) -> list[str]:
    """``.amdgcn_target "<target ID>"`` and ``.amdhsa_code_object_version N``.

    llvm-mc refuses an ``.amdgcn_target`` that differs from the target ID its ``-mcpu``/
    ``-mattr`` give (see :func:`llvm_mc_target_options`), so the directive both documents the
    target and catches assembling with the wrong options.
    """
    if code_object_version not in SUPPORTED_CODE_OBJECT_VERSIONS:
        raise DirectiveError(
            f"code object version {code_object_version} cannot be emitted as assembly "
            f"(LLVM 19 supports {', '.join(map(str, SUPPORTED_CODE_OBJECT_VERSIONS))})"
        )
    processor = _processor(target.offload_arch)
    if processor.name.endswith("-generic") and code_object_version < 6:
        raise DirectiveError(f"generic processor {processor.name} needs code object version 6+")
    return [
        f'{TOP}.amdgcn_target "{target.target_id}"',
        f"{TOP}.amdhsa_code_object_version {code_object_version}",
    ]


def llvm_mc_target_options(target: Target) -> list[str]:
    """The llvm-mc options whose target ID is ``target``'s: triple, -mcpu, and -mattr.

    A feature set to ANY is left out (that is what makes it ANY); ON/OFF become +/-.
    """
    options = ["-triple=amdgcn-amd-amdhsa", f"-mcpu={target.processor}"]
    attrs = [
        f"{setting.suffix}{name}"
        for name, setting in (("xnack", target.xnack), ("sramecc", target.sramecc))
        if setting.suffix
    ]
    if attrs:
        options.append("-mattr=" + ",".join(attrs))
    return options


class _Block:
    """Accumulates the directives of one ``.amdhsa_kernel`` block and checks the leftovers.

    Every bit of the descriptor must be claimed by a directive (or be zero); ``claim`` clears
    the bits a directive reproduces, and whatever is left at the end cannot be expressed.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: list[str] = [f"{TOP}.amdhsa_kernel {name}"]

    def emit(self, directive: str, value: int | bool) -> None:
        self.lines.append(f"{INNER}.amdhsa_{directive} {int(value)}")

    def fail(self, reason: str) -> DirectiveError:
        return DirectiveError(f"kernel {self.name}: {reason}")


def _field(lsb: int, width: int) -> int:
    return ((1 << width) - 1) << lsb


def _leftover_bits(word: int, claimed: int, what: str, names: Callable[[int], str]) -> None:
    rest = word & ~claimed
    if rest:
        raise DirectiveError(f"{what} 0x{word:08x}: bits 0x{rest:x} ({names(rest)})")


def _bit_names(table: dict[int, str]) -> Callable[[int], str]:
    """A describer of leftover bits: the named fields they fall in, or 'reserved'."""

    def describe(rest: int) -> str:
        hits = [name for mask, name in table.items() if rest & mask]
        return ", ".join(hits) if hits else "reserved"

    return describe


def _vgpr_directive(descriptor: KernelDescriptor, processor: Processor, wave32: bool) -> int:
    """The next_free_vgpr that reproduces GRANULATED_WORKITEM_VGPR_COUNT (the whole granule)."""
    granule = processor.subtarget.vgpr_encoding_granule(wave32)
    blocks = descriptor.compute_pgm_rsrc1.granulated_workitem_vgpr_count
    return (blocks + 1) * granule


def _sgpr_choice(
    block: _Block, descriptor: KernelDescriptor, processor: Processor,
    zeroed: list[str] | None = None,
) -> tuple[int, bool, bool | None]:
    """next_free_sgpr, reserve_vcc and reserve_flat_scratch (None: not printed) for the count.

    Before GFX10 llvm-mc counts next_free_sgpr plus the special SGPRs; from GFX10 on it encodes 0
    whatever the directives say, so only a zero count can be reproduced there.
    """
    blocks = descriptor.compute_pgm_rsrc1.granulated_wavefront_sgpr_count
    flat_directive = processor.major >= 7 and not processor.subtarget.has_architected_flat_scratch
    if processor.major >= 10:
        if blocks:
            if zeroed is None:
                raise block.fail(f"GRANULATED_WAVEFRONT_SGPR_COUNT is {blocks}, but the "
                                 f"assembler always encodes 0 on {processor.name}")
            zeroed.append(block.name)
        return 0, True, False if flat_directive else None
    if processor.subtarget.has_sgpr_init_bug:
        fixed = FIXED_SGPRS_FOR_INIT_BUG // SGPR_ENCODING_GRANULE - 1
        if blocks != fixed:
            raise block.fail(
                f"GRANULATED_WAVEFRONT_SGPR_COUNT is {blocks}, but {processor.name} (SGPR init "
                f"bug) always encodes {fixed}"
            )
    # Reserve flags in order of preference: VCC reserved and no flat scratch is what compilers
    # print for most kernels; the others widen the reachable range at the top and bottom.
    flat_options: list[bool | None] = [False, True] if flat_directive else [None]
    for vcc in (True, False):
        for flat in flat_options:
            # An omitted .amdhsa_reserve_flat_scratch defaults to 1.
            extra = processor.extra_sgprs(vcc, True if flat is None else flat)
            for next_free in range(blocks * 8 + 8 - extra, -1, -1):
                if _sgpr_blocks(processor, next_free, extra) == blocks and _sgprs_in_range(
                    processor, next_free, extra
                ):
                    return next_free, vcc, flat
    raise block.fail(
        f"GRANULATED_WAVEFRONT_SGPR_COUNT {blocks} is beyond what next_free_sgpr can reach on "
        f"{processor.name}"
    )


def _sgpr_blocks(processor: Processor, next_free: int, extra: int) -> int:
    count = FIXED_SGPRS_FOR_INIT_BUG if processor.subtarget.has_sgpr_init_bug else next_free + extra
    return -(-max(1, count) // SGPR_ENCODING_GRANULE) - 1


def _sgprs_in_range(processor: Processor, next_free: int, extra: int) -> bool:
    """llvm-mc's checks: GFX8+ bounds next_free_sgpr, GFX6-GFX7 and init-bug parts the total."""
    if processor.subtarget.has_sgpr_init_bug:
        return next_free + extra <= FIXED_SGPRS_FOR_INIT_BUG
    if processor.major >= 8:
        return next_free <= ADDRESSABLE_SGPRS_GFX8_PLUS
    return next_free + extra <= ADDRESSABLE_SGPRS_GFX6_GFX7


_RSRC1_NAMES = _bit_names(
    {
        _field(10, 2): "PRIORITY",
        _field(20, 1): "PRIV",
        _field(21, 1): "ENABLE_DX10_CLAMP/WG_RR_EN",
        _field(22, 1): "DEBUG_MODE",
        _field(23, 1): "ENABLE_IEEE_MODE/DISABLE_PERF",
        _field(24, 1): "BULKY",
        _field(25, 1): "CDBG_USER",
        _field(26, 1): "FP16_OVFL",
        _field(29, 1): "WGP_MODE",
        _field(30, 1): "MEM_ORDERED",
        _field(31, 1): "FWD_PROGRESS",
    }
)
_RSRC2_NAMES = _bit_names(
    {
        _field(6, 1): "ENABLE_TRAP_HANDLER",
        _field(13, 1): "ENABLE_EXCEPTION_ADDRESS_WATCH",
        _field(14, 1): "ENABLE_EXCEPTION_MEMORY",
        _field(15, 9): "GRANULATED_LDS_SIZE",
    }
)
_RSRC3_NAMES = _bit_names(
    {
        _field(0, 4): "SHARED_VGPR_COUNT/ACCUM_OFFSET",
        _field(4, 8): "INST_PREF_SIZE",
        _field(10, 2): "TRAP_ON_START/END",
        _field(13, 1): "GLG_EN",
        _field(16, 1): "TG_SPLIT",
        _field(31, 1): "IMAGE_OP",
    }
)
_PROPERTY_NAMES = _bit_names({_field(10, 1): "ENABLE_WAVEFRONT_SIZE32"})


def kernel_descriptor_directives(
    name: str, descriptor: KernelDescriptor, processor: str,
    zeroed_sgpr_counts: list[str] | None = None,
) -> list[str]:
    """The ``.amdhsa_kernel name`` ... ``.end_amdhsa_kernel`` block for ``descriptor``.

    One field is written differently from the descriptor rather than refused: from GFX10
    on the assembler encodes GRANULATED_WAVEFRONT_SGPR_COUNT as 0 whatever the directives
    say (the hardware no longer reads it; clang's objects may still hold a count), so the
    block gives 0 there and the kernel's name is appended to ``zeroed_sgpr_counts`` (for
    the caller's warning); without that list, the count is refused.

    ``processor`` is a processor name (``gfx90a``) or a target ID with features
    (``gfx90a:sramecc+:xnack-``, ``Target.offload_arch``); the xnack setting matters, since
    llvm-mc requires ``.amdhsa_reserve_xnack_mask`` to match it and counts the XNACK_MASK SGPRs
    with it. A bare processor means xnack ANY, as for llvm-mc without ``-mattr``.

    The block belongs in a read-only data section (clang: ``.section .rodata,"a",@progbits``
    then ``.p2align 6, 0x0``); llvm-mc defines ``name.kd`` there and points the descriptor's
    code entry at ``name``.
    """
    if not _SYMBOL.fullmatch(name):
        raise DirectiveError(f"kernel name {name!r} is not a plain assembler symbol")
    target = _processor(processor)
    block = _Block(name)
    rsrc1 = descriptor.compute_pgm_rsrc1
    rsrc2 = descriptor.compute_pgm_rsrc2
    rsrc3_word = descriptor.compute_pgm_rsrc3.to_word()
    props = descriptor.kernel_code_properties
    preload = descriptor.kernarg_preload
    major = target.major
    afs = target.subtarget.has_architected_flat_scratch

    for label, data in (
        ("reserved bytes 12-15", descriptor.reserved_12),
        ("reserved bytes 24-43", descriptor.reserved_24),
        ("reserved bytes 60-63", descriptor.reserved_60),
    ):
        if any(data):
            raise block.fail(f"{label} are {data.hex()}, which no directive can set")

    # Claimed bits, per word; what stays unclaimed must be zero.
    rsrc1_claimed = _field(0, 6) | _field(6, 4) | _field(12, 8)
    rsrc2_claimed = _field(0, 1) | _field(1, 5) | _field(7, 6) | _field(24, 7)
    rsrc3_claimed = 0
    props_claimed = _field(0, 7) | _field(11, 1)

    wave32 = major >= 10 and props.enable_wavefront_size32

    # User SGPRs: every enable is explicit; the count is explicit too and must cover them.
    implied = props.user_sgpr_count + preload.kernarg_preload_spec_length
    if rsrc2.user_sgpr_count < implied:
        raise block.fail(
            f"USER_SGPR_COUNT {rsrc2.user_sgpr_count} is below the {implied} user SGPRs the "
            "enabled fields take, which the assembler rejects"
        )
    if afs and props.enable_sgpr_private_segment_buffer:
        raise block.fail(f"private segment buffer user SGPRs cannot be enabled on {target.name}")
    if afs and props.enable_sgpr_flat_scratch_init:
        raise block.fail(f"flat scratch init user SGPRs cannot be enabled on {target.name}")
    if preload.to_word() and not target.subtarget.has_kernarg_preload:
        raise block.fail(f"kernarg preload is set, but {target.name} cannot preload kernargs")
    if target.subtarget.has_kernarg_preload:
        length = preload.kernarg_preload_spec_length
        offset = preload.kernarg_preload_spec_offset
        if length > MAX_USER_SGPRS:
            raise block.fail(f"kernarg preload length {length} exceeds {MAX_USER_SGPRS} SGPRs")
        if length and descriptor.kernarg_size and (length + offset) * 4 > descriptor.kernarg_size:
            raise block.fail(
                f"kernarg preload of {length} dwords at dword {offset} overruns the "
                f"{descriptor.kernarg_size}-byte kernarg segment, which the assembler rejects"
            )

    block.emit("group_segment_fixed_size", descriptor.group_segment_fixed_size)
    block.emit("private_segment_fixed_size", descriptor.private_segment_fixed_size)
    block.emit("kernarg_size", descriptor.kernarg_size)
    block.emit("user_sgpr_count", rsrc2.user_sgpr_count)
    if not afs:
        block.emit("user_sgpr_private_segment_buffer", props.enable_sgpr_private_segment_buffer)
    block.emit("user_sgpr_dispatch_ptr", props.enable_sgpr_dispatch_ptr)
    block.emit("user_sgpr_queue_ptr", props.enable_sgpr_queue_ptr)
    block.emit("user_sgpr_kernarg_segment_ptr", props.enable_sgpr_kernarg_segment_ptr)
    block.emit("user_sgpr_dispatch_id", props.enable_sgpr_dispatch_id)
    if not afs:
        block.emit("user_sgpr_flat_scratch_init", props.enable_sgpr_flat_scratch_init)
    block.emit("user_sgpr_private_segment_size", props.enable_sgpr_private_segment_size)
    if major >= 10:
        block.emit("wavefront_size32", props.enable_wavefront_size32)
        props_claimed |= _field(10, 1)
    block.emit("uses_dynamic_stack", props.uses_dynamic_stack)
    block.emit(
        "enable_private_segment" if afs else "system_sgpr_private_segment_wavefront_offset",
        rsrc2.enable_private_segment,
    )
    block.emit("system_sgpr_workgroup_id_x", rsrc2.enable_sgpr_workgroup_id_x)
    block.emit("system_sgpr_workgroup_id_y", rsrc2.enable_sgpr_workgroup_id_y)
    block.emit("system_sgpr_workgroup_id_z", rsrc2.enable_sgpr_workgroup_id_z)
    block.emit("system_sgpr_workgroup_info", rsrc2.enable_sgpr_workgroup_info)
    block.emit("system_vgpr_workitem_id", rsrc2.enable_vgpr_workitem_id)

    next_free_vgpr = _vgpr_directive(descriptor, target, wave32)
    next_free_sgpr, reserve_vcc, reserve_flat = _sgpr_choice(block, descriptor, target,
                                                             zeroed_sgpr_counts)
    block.emit("next_free_vgpr", next_free_vgpr)
    block.emit("next_free_sgpr", next_free_sgpr)
    if target.subtarget.has_gfx90a_insts:
        accum = descriptor.compute_pgm_rsrc3.accum_offset_vgprs
        if accum > next_free_vgpr:
            raise block.fail(
                f"ACCUM_OFFSET {accum} is beyond the {next_free_vgpr} VGPRs allocated, which "
                "the assembler rejects"
            )
        block.emit("accum_offset", accum)
        rsrc3_claimed |= _field(0, 6)
    block.emit("reserve_vcc", reserve_vcc)
    if reserve_flat is not None:
        block.emit("reserve_flat_scratch", reserve_flat)
    if 8 <= major <= 10:
        block.emit("reserve_xnack_mask", target.xnack_on_or_any)

    block.emit("float_round_mode_32", rsrc1.float_round_mode_32)
    block.emit("float_round_mode_16_64", rsrc1.float_round_mode_16_64)
    block.emit("float_denorm_mode_32", rsrc1.float_denorm_mode_32)
    block.emit("float_denorm_mode_16_64", rsrc1.float_denorm_mode_16_64)
    if major < 12:
        block.emit("dx10_clamp", rsrc1.enable_dx10_clamp)
        block.emit("ieee_mode", rsrc1.enable_ieee_mode)
        rsrc1_claimed |= _field(21, 1) | _field(23, 1)
    else:
        # Bit 21 is ENABLE_WG_RR_EN from GFX12 on; bit 23 (DISABLE_PERF) has no directive.
        block.emit("round_robin_scheduling", rsrc1.enable_dx10_clamp)
        rsrc1_claimed |= _field(21, 1)
    if major >= 9:
        block.emit("fp16_overflow", rsrc1.fp16_ovfl)
        rsrc1_claimed |= _field(26, 1)
    if target.subtarget.has_gfx90a_insts:
        block.emit("tg_split", descriptor.compute_pgm_rsrc3.tg_split)
        rsrc3_claimed |= _field(16, 1)
    if major >= 10:
        block.emit("workgroup_processor_mode", rsrc1.wgp_mode)
        block.emit("memory_ordered", rsrc1.mem_ordered)
        block.emit("forward_progress", rsrc1.fwd_progress)
        rsrc1_claimed |= _field(29, 3)
    if 10 <= major <= 11:
        shared = rsrc3_word & 0xF
        if shared and wave32:
            raise block.fail(f"SHARED_VGPR_COUNT {shared} is not valid in wave32")
        if shared * 2 + rsrc1.granulated_workitem_vgpr_count > 63:
            raise block.fail(f"SHARED_VGPR_COUNT {shared} plus the VGPR count exceeds 63")
        block.emit("shared_vgpr_count", shared)
        rsrc3_claimed |= _field(0, 4)
    block.emit("exception_fp_ieee_invalid_op", rsrc2.enable_exception_ieee_754_fp_invalid_operation)
    block.emit("exception_fp_denorm_src", rsrc2.enable_exception_fp_denormal_source)
    block.emit("exception_fp_ieee_div_zero", rsrc2.enable_exception_ieee_754_fp_division_by_zero)
    block.emit("exception_fp_ieee_overflow", rsrc2.enable_exception_ieee_754_fp_overflow)
    block.emit("exception_fp_ieee_underflow", rsrc2.enable_exception_ieee_754_fp_underflow)
    block.emit("exception_fp_ieee_inexact", rsrc2.enable_exception_ieee_754_fp_inexact)
    block.emit("exception_int_div_zero", rsrc2.enable_exception_int_divide_by_zero)
    if target.subtarget.has_kernarg_preload:
        block.emit("user_sgpr_kernarg_preload_length", preload.kernarg_preload_spec_length)
        block.emit("user_sgpr_kernarg_preload_offset", preload.kernarg_preload_spec_offset)

    try:
        _leftover_bits(rsrc1.to_word(), rsrc1_claimed, "COMPUTE_PGM_RSRC1", _RSRC1_NAMES)
        _leftover_bits(rsrc2.to_word(), rsrc2_claimed, "COMPUTE_PGM_RSRC2", _RSRC2_NAMES)
        _leftover_bits(rsrc3_word, rsrc3_claimed, "COMPUTE_PGM_RSRC3", _RSRC3_NAMES)
        _leftover_bits(props.to_word(), props_claimed, "kernel code properties", _PROPERTY_NAMES)
    except DirectiveError as error:
        raise block.fail(f"{error} cannot be set by any directive on {target.name}") from None

    block.lines.append(f"{TOP}.end_amdhsa_kernel")
    return block.lines


def _processor(target_id: str) -> Processor:
    """:func:`parse_processor`, its refusal as this package's :class:`DirectiveError`."""
    try:
        return parse_processor(target_id)
    except TargetIdError as error:
        raise DirectiveError(str(error)) from None
