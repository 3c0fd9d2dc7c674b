"""``.amdhsa_kernel NAME`` ... ``.end_amdhsa_kernel``: the 64-byte kernel descriptor.

This is the inverse of ``luthier.lowering.asm.amdhsa`` (descriptor -> directives) and follows
LLVM 19's ``AMDGPUAsmParser::ParseDirectiveAMDHSAKernel``: start from the target's default
descriptor, let each ``.amdhsa_*`` directive set its bits (each at most once), then compute
what the directives describe indirectly: the granulated VGPR and SGPR counts (from
next_free_vgpr/sgpr plus the VCC, FLAT_SCRATCH and XNACK_MASK SGPRs the reserve flags and target
add), the user SGPR count (implied by the enabled user SGPRs unless given), ACCUM_OFFSET. Bit
positions come from the descriptor's own field tables in ``luthier.frontend.codeobj``; the
per-processor facts from ``luthier.amdgpu_dialects.target.processors``. The code entry offset is not
set here: the assembler emits it as a fixup against the kernel symbol. Error texts are
llvm-mc's, so a rejected block reads the same with either tool.
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.amdgpu_dialects.target.bitfields import BitfieldWord
from luthier.amdgpu_dialects.target.kernel_descriptor import (
    ComputePgmRsrc1,
    ComputePgmRsrc2,
    ComputePgmRsrc3,
    KernargPreload,
    KernelCodeProperties,
    KernelDescriptor,
)
from luthier.amdgpu_dialects.target.processors import (
    ADDRESSABLE_SGPRS_GFX6_GFX7,
    ADDRESSABLE_SGPRS_GFX8_PLUS,
    FIXED_SGPRS_FOR_INIT_BUG,
    SGPR_ENCODING_GRANULE,
    Processor,
)
from luthier.frontend.asm.errors import StatementError

_WORDS: dict[str, type[BitfieldWord]] = {
    "rsrc1": ComputePgmRsrc1,
    "rsrc2": ComputePgmRsrc2,
    "rsrc3": ComputePgmRsrc3,
    "props": KernelCodeProperties,
    "preload": KernargPreload,
}


def _bits(word: str, field: str) -> tuple[str, int, int]:
    """(word, lsb, width) of a named field of a descriptor word, from its dataclass."""
    for name, lsb, width, _ in _WORDS[word].layout():
        if name == field:
            return word, lsb, width
    raise AssertionError(f"no field {field} in {word}")


@dataclass(frozen=True)
class _Field:
    """A directive that sets one bit-field: where, which targets allow it, and how many user
    SGPRs it implies when set."""

    bits: tuple[str, int, int]
    requires: str = ""
    user_sgprs: int = 0


_FIELDS: dict[str, _Field] = {
    "user_sgpr_private_segment_buffer": _Field(
        _bits("props", "enable_sgpr_private_segment_buffer"), "no_afs", 4
    ),
    "user_sgpr_dispatch_ptr": _Field(_bits("props", "enable_sgpr_dispatch_ptr"), "", 2),
    "user_sgpr_queue_ptr": _Field(_bits("props", "enable_sgpr_queue_ptr"), "", 2),
    "user_sgpr_kernarg_segment_ptr": _Field(
        _bits("props", "enable_sgpr_kernarg_segment_ptr"), "", 2
    ),
    "user_sgpr_dispatch_id": _Field(_bits("props", "enable_sgpr_dispatch_id"), "", 2),
    "user_sgpr_flat_scratch_init": _Field(
        _bits("props", "enable_sgpr_flat_scratch_init"), "no_afs", 2
    ),
    "user_sgpr_private_segment_size": _Field(
        _bits("props", "enable_sgpr_private_segment_size"), "", 1
    ),
    "wavefront_size32": _Field(_bits("props", "enable_wavefront_size32"), "gfx10"),
    "uses_dynamic_stack": _Field(_bits("props", "uses_dynamic_stack")),
    "system_sgpr_private_segment_wavefront_offset": _Field(
        _bits("rsrc2", "enable_private_segment"), "no_afs"
    ),
    "enable_private_segment": _Field(_bits("rsrc2", "enable_private_segment"), "afs"),
    "system_sgpr_workgroup_id_x": _Field(_bits("rsrc2", "enable_sgpr_workgroup_id_x")),
    "system_sgpr_workgroup_id_y": _Field(_bits("rsrc2", "enable_sgpr_workgroup_id_y")),
    "system_sgpr_workgroup_id_z": _Field(_bits("rsrc2", "enable_sgpr_workgroup_id_z")),
    "system_sgpr_workgroup_info": _Field(_bits("rsrc2", "enable_sgpr_workgroup_info")),
    "system_vgpr_workitem_id": _Field(_bits("rsrc2", "enable_vgpr_workitem_id")),
    "float_round_mode_32": _Field(_bits("rsrc1", "float_round_mode_32")),
    "float_round_mode_16_64": _Field(_bits("rsrc1", "float_round_mode_16_64")),
    "float_denorm_mode_32": _Field(_bits("rsrc1", "float_denorm_mode_32")),
    "float_denorm_mode_16_64": _Field(_bits("rsrc1", "float_denorm_mode_16_64")),
    "dx10_clamp": _Field(_bits("rsrc1", "enable_dx10_clamp"), "pre_gfx12"),
    "ieee_mode": _Field(_bits("rsrc1", "enable_ieee_mode"), "pre_gfx12"),
    "round_robin_scheduling": _Field(_bits("rsrc1", "enable_dx10_clamp"), "gfx12"),
    "fp16_overflow": _Field(_bits("rsrc1", "fp16_ovfl"), "gfx9"),
    "tg_split": _Field(_bits("rsrc3", "tg_split"), "gfx90a"),
    "workgroup_processor_mode": _Field(_bits("rsrc1", "wgp_mode"), "gfx10"),
    "memory_ordered": _Field(_bits("rsrc1", "mem_ordered"), "gfx10"),
    "forward_progress": _Field(_bits("rsrc1", "fwd_progress"), "gfx10"),
    # SHARED_VGPR_COUNT is bits 0-3 of RSRC3 on GFX10/GFX11 (the table is GFX90A's layout).
    "shared_vgpr_count": _Field(("rsrc3", 0, 4), "gfx10_11"),
    "exception_fp_ieee_invalid_op": _Field(
        _bits("rsrc2", "enable_exception_ieee_754_fp_invalid_operation")
    ),
    "exception_fp_denorm_src": _Field(_bits("rsrc2", "enable_exception_fp_denormal_source")),
    "exception_fp_ieee_div_zero": _Field(
        _bits("rsrc2", "enable_exception_ieee_754_fp_division_by_zero")
    ),
    "exception_fp_ieee_overflow": _Field(_bits("rsrc2", "enable_exception_ieee_754_fp_overflow")),
    "exception_fp_ieee_underflow": _Field(_bits("rsrc2", "enable_exception_ieee_754_fp_underflow")),
    "exception_fp_ieee_inexact": _Field(_bits("rsrc2", "enable_exception_ieee_754_fp_inexact")),
    "exception_int_div_zero": _Field(_bits("rsrc2", "enable_exception_int_divide_by_zero")),
    "user_sgpr_kernarg_preload_length": _Field(
        _bits("preload", "kernarg_preload_spec_length"), "preload"
    ),
    "user_sgpr_kernarg_preload_offset": _Field(
        _bits("preload", "kernarg_preload_spec_offset"), "preload"
    ),
}

#: Directives handled by hand (not a plain bit-field): name -> requirement.
_SPECIAL: dict[str, str] = {
    "group_segment_fixed_size": "",
    "private_segment_fixed_size": "",
    "kernarg_size": "",
    "user_sgpr_count": "",
    "next_free_vgpr": "",
    "next_free_sgpr": "",
    "accum_offset": "gfx90a",
    "reserve_vcc": "",
    "reserve_flat_scratch": "gfx7_no_afs",
    "reserve_xnack_mask": "gfx8",
}

#: Requirement -> llvm-mc's complaint when the target does not meet it.
_REQUIREMENT_ERRORS: dict[str, str] = {
    "afs": "directive is not supported without architected flat scratch",
    "no_afs": "directive is not supported with architected flat scratch",
    "gfx7_no_afs": "directive is not supported with architected flat scratch",
    "gfx8": "directive requires gfx8+",
    "gfx9": "directive requires gfx9+",
    "gfx10": "directive requires gfx10+",
    "gfx10_11": "directive requires gfx10 or gfx11",
    "gfx12": "directive requires gfx12+",
    "pre_gfx12": "directive unsupported on gfx12+",
    "gfx90a": "directive requires gfx90a+",
    "preload": "directive requires gfx90a+",
}


def _meets(processor: Processor, requirement: str) -> bool:
    major = processor.major
    afs = processor.subtarget.has_architected_flat_scratch
    checks = {
        "": True,
        "afs": afs,
        "no_afs": not afs,
        "gfx7_no_afs": major >= 7 and not afs,
        "gfx8": major >= 8,
        "gfx9": major >= 9,
        "gfx10": major >= 10,
        "gfx10_11": 10 <= major <= 11,
        "gfx12": major >= 12,
        "pre_gfx12": major < 12,
        "gfx90a": processor.subtarget.has_gfx90a_insts,
        "preload": processor.subtarget.has_kernarg_preload,
    }
    return checks[requirement]


class KernelDescriptorBuilder:
    """Collects one ``.amdhsa_kernel`` block; :meth:`finish` gives the descriptor bytes."""

    def __init__(self, name: str, processor: Processor) -> None:
        self.name = name
        self.processor = processor
        self.seen: set[str] = set()
        self.words = self._defaults()
        self.sizes = {
            "group_segment_fixed_size": 0,
            "private_segment_fixed_size": 0,
            "kernarg_size": 0,
        }
        self.implied_user_sgprs = 0
        self.explicit_user_sgprs: int | None = None
        self.next_free_vgpr = 0
        self.next_free_sgpr = 0
        self.vgpr_column = 0
        self.sgpr_column = 0
        self.accum_offset = 0
        self.reserve_vcc = True
        self.reserve_flat_scratch = True
        self.wave32: bool | None = None

    def _defaults(self) -> dict[str, int]:
        """getDefaultAmdhsaKernelDescriptor: denormals on for f16/f64, DX10 clamp and IEEE
        mode before GFX12, workgroup id X, and from GFX10 wave32 (the MC default), WGP mode
        and ordered memory."""
        words = dict.fromkeys(_WORDS, 0)
        major = self.processor.major
        self._set(words, _bits("rsrc1", "float_denorm_mode_16_64"), 3)
        if major < 12:
            self._set(words, _bits("rsrc1", "enable_dx10_clamp"), 1)
            self._set(words, _bits("rsrc1", "enable_ieee_mode"), 1)
        self._set(words, _bits("rsrc2", "enable_sgpr_workgroup_id_x"), 1)
        if major >= 10:
            self._set(words, _bits("props", "enable_wavefront_size32"), 1)
            self._set(words, _bits("rsrc1", "wgp_mode"), 1)
            self._set(words, _bits("rsrc1", "mem_ordered"), 1)
        return words

    @staticmethod
    def _set(words: dict[str, int], bits: tuple[str, int, int], value: int) -> None:
        word, lsb, width = bits
        mask = ((1 << width) - 1) << lsb
        words[word] = (words[word] & ~mask) | (value << lsb)

    def directive(self, directive: str, value: int, column: int, value_column: int) -> None:
        """One ``.amdhsa_<directive> value`` line (``directive`` without the prefix)."""
        if directive in self.seen:
            raise StatementError(".amdhsa_ directives cannot be repeated", value_column)
        field = _FIELDS.get(directive)
        requirement = field.requires if field is not None else _SPECIAL.get(directive)
        if requirement is None:
            raise StatementError("unknown .amdhsa_kernel directive", column)
        self.seen.add(directive)
        if value < 0:
            raise StatementError("value out of range", value_column)
        if not _meets(self.processor, requirement):
            raise StatementError(_REQUIREMENT_ERRORS[requirement], column)
        if field is not None:
            if value >> field.bits[2]:
                raise StatementError("value out of range", value_column)
            self._set(self.words, field.bits, value)
            if directive == "user_sgpr_kernarg_preload_length":
                self.implied_user_sgprs += value
            elif value:
                self.implied_user_sgprs += field.user_sgprs
            if directive == "wavefront_size32":
                self.wave32 = bool(value)
            return
        self._special(directive, value, column, value_column)

    def _special(self, directive: str, value: int, column: int, value_column: int) -> None:
        if directive in self.sizes:
            if value >> 32:
                raise StatementError("value out of range", value_column)
            self.sizes[directive] = value
        elif directive == "user_sgpr_count":
            self.explicit_user_sgprs = value
        elif directive == "next_free_vgpr":
            self.next_free_vgpr, self.vgpr_column = value, value_column
        elif directive == "next_free_sgpr":
            self.next_free_sgpr, self.sgpr_column = value, value_column
        elif directive == "accum_offset":
            self.accum_offset = value
        else:
            if value > 1:
                raise StatementError("value out of range", value_column)
            if directive == "reserve_vcc":
                self.reserve_vcc = bool(value)
            elif directive == "reserve_flat_scratch":
                self.reserve_flat_scratch = bool(value)
            elif bool(value) != self.processor.xnack_on_or_any:
                raise StatementError(".amdhsa_reserve_xnack_mask does not match target id", column)

    def finish(self) -> bytes:
        """The descriptor bytes (code entry offset 0: it is a relocation).

        Errors here have no column: llvm-mc reports them at the end of ``.end_amdhsa_kernel``.
        """
        for required in ("next_free_vgpr", "next_free_sgpr"):
            if required not in self.seen:
                raise StatementError(f".amdhsa_{required} directive is required")
        processor = self.processor
        self._set(self.words, _bits("rsrc1", "granulated_workitem_vgpr_count"), self._vgpr_blocks())
        self._set(
            self.words, _bits("rsrc1", "granulated_wavefront_sgpr_count"), self._sgpr_blocks()
        )
        if processor.subtarget.has_gfx90a_insts:
            self._accum_offset()
        if 10 <= processor.major <= 11:
            self._shared_vgprs()
        user_sgprs = self._user_sgprs()
        self._set(self.words, _bits("rsrc2", "user_sgpr_count"), user_sgprs)
        words = self.words
        descriptor = KernelDescriptor(
            group_segment_fixed_size=self.sizes["group_segment_fixed_size"],
            private_segment_fixed_size=self.sizes["private_segment_fixed_size"],
            kernarg_size=self.sizes["kernarg_size"],
            reserved_12=bytes(4),
            kernel_code_entry_byte_offset=0,
            reserved_24=bytes(20),
            compute_pgm_rsrc3=ComputePgmRsrc3.from_word(words["rsrc3"]),
            compute_pgm_rsrc1=ComputePgmRsrc1.from_word(words["rsrc1"]),
            compute_pgm_rsrc2=ComputePgmRsrc2.from_word(words["rsrc2"]),
            kernel_code_properties=KernelCodeProperties.from_word(words["props"]),
            kernarg_preload=KernargPreload.from_word(words["preload"]),
            reserved_60=bytes(4),
        )
        return descriptor.to_bytes()

    def _vgpr_blocks(self) -> int:
        wave32 = self.wave32 if self.wave32 is not None else self.processor.major >= 10
        granule = self.processor.subtarget.vgpr_encoding_granule(wave32)
        blocks = -(-max(1, self.next_free_vgpr) // granule) - 1
        if blocks >> 6:
            raise StatementError("value out of range", self.vgpr_column)
        return blocks

    def _sgpr_blocks(self) -> int:
        processor = self.processor
        if processor.major >= 10:
            return 0
        count = self.next_free_sgpr
        init_bug = processor.subtarget.has_sgpr_init_bug
        if processor.major >= 8 and not init_bug and count > ADDRESSABLE_SGPRS_GFX8_PLUS:
            raise StatementError("value out of range", self.sgpr_column)
        count += processor.extra_sgprs(self.reserve_vcc, self.reserve_flat_scratch)
        if (processor.major <= 7 or init_bug) and count > (
            FIXED_SGPRS_FOR_INIT_BUG if init_bug else ADDRESSABLE_SGPRS_GFX6_GFX7
        ):
            raise StatementError("value out of range", self.sgpr_column)
        if init_bug:
            count = FIXED_SGPRS_FOR_INIT_BUG
        blocks = -(-max(1, count) // SGPR_ENCODING_GRANULE) - 1
        if blocks >> 4:
            raise StatementError("value out of range", self.sgpr_column)
        return blocks

    def _accum_offset(self) -> None:
        if "accum_offset" not in self.seen:
            raise StatementError(".amdhsa_accum_offset directive is required")
        offset = self.accum_offset
        if offset < 4 or offset > 256 or offset % 4:
            raise StatementError("accum_offset should be in range [4..256] in increments of 4")
        if offset > -(-max(1, self.next_free_vgpr) // 4) * 4:
            raise StatementError("accum_offset exceeds total VGPR allocation")
        self._set(self.words, _bits("rsrc3", "accum_offset"), offset // 4 - 1)

    def _shared_vgprs(self) -> None:
        shared = self.words["rsrc3"] & 0xF
        # Only an explicit .amdhsa_wavefront_size32 1 conflicts (not the target's default).
        if shared and self.wave32:
            raise StatementError("shared_vgpr_count directive not valid on wavefront size 32")
        if shared * 2 + (self.words["rsrc1"] & 0x3F) > 63:
            raise StatementError(
                "shared_vgpr_count*2 + compute_pgm_rsrc1."
                "GRANULATED_WORKITEM_VGPR_COUNT cannot exceed 63"
            )

    def _user_sgprs(self) -> int:
        implied = self.implied_user_sgprs
        explicit = self.explicit_user_sgprs
        if explicit is not None and implied > explicit:
            raise StatementError(
                "amdgpu_user_sgpr_count smaller than than implied by enabled user SGPRs"
            )
        count = explicit if explicit is not None else implied
        if count >> 5:
            raise StatementError("too many user SGPRs enabled")
        preload = self.words["preload"]
        length, offset = preload & 0x7F, preload >> 7
        kernarg = self.sizes["kernarg_size"]
        if length and kernarg and (length + offset) * 4 > kernarg:
            raise StatementError(
                "Kernarg preload length + offset is larger than the kernarg segment size"
            )
        return count
