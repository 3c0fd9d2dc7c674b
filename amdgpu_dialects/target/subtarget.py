"""One object answers every target question: :class:`Subtarget`.

Passes, emitters and the emulator ask what a processor has — is flat scratch architected,
are there AGPRs and do they share the VGPR file, how are VGPRs granted, are work-item ids
packed, which hazards need wait states — and they ask it here, never by comparing processor
names. The answers are LLVM 19's: the feature sets of ``GCNProcessors.td``/``AMDGPU.td``
(named after LLVM's subtarget predicates, ``hasArchitectedFlatScratch`` ->
:attr:`Subtarget.has_architected_flat_scratch`) and the register-file tables of
``AMDGPUBaseInfo.cpp``. For the processors with generated ISA tables, a test checks each
answer against the TableGen feature list those tables carry, so the two cannot drift.

The feature *settings* of a target ID (``xnack+``, ``sramecc-``) belong to a code object, not
to the processor: :class:`~luthier.amdgpu_dialects.target.processors.Processor` pairs a
subtarget with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from luthier.amdgpu_dialects.target.kernel_descriptor import DescriptorLayout
from luthier.amdgpu_dialects.target.target_id import PROCESSOR_TO_MACH

#: FeatureGFX90AInsts: unified VGPR/AGPR file (ACCUM_OFFSET), packed work-item ids, aligned
#: VGPR tuples, TG_SPLIT, VGPRs granted and encoded in granules of 8.
_GFX90A_INSTS = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942"})
#: FeatureGFX940Insts: sc0/sc1/nt cache bits, architected flat scratch, ST-mode scratch
#: addressing, the transcendental forwarding hazard.
_GFX940_INSTS = frozenset({"gfx940", "gfx941", "gfx942"})
#: FeatureMAIInsts: matrix cores and the AGPR file.
_MAI_INSTS = frozenset({"gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"})
#: FeatureArchitectedFlatScratch besides every GFX11+ processor: the hardware sets up the
#: flat scratch base; no private segment buffer / flat scratch init user SGPRs.
_ARCHITECTED_FLAT_SCRATCH = frozenset({"gfx940", "gfx941", "gfx942"})
#: FeatureKernargPreload: kernel arguments preloaded into user SGPRs.
_KERNARG_PRELOAD = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942"})
#: GFX8 processors with the SGPR init bug: the SGPR count is fixed at 96 whatever is used.
_SGPR_INIT_BUG = frozenset({"gfx802", "gfx805"})
#: FeatureSupportsXNACK outside GFX9 (where every processor has it): GFX8.0.1, GFX8.1, GFX10.1.
_XNACK_GFX8_GFX10 = frozenset(
    {"gfx801", "gfx810", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx10-1-generic"}
)
#: FeatureISAVersion10_1_Common: the GFX10.1 processors, with hazards GFX10.3 fixed.
_GFX10_1 = frozenset({"gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx10-1-generic"})
#: FeatureVALUTransUseHazard: GFX11.0 (FeatureISAVersion11_0_Common, 11_Generic), not 11.5.
_VALU_TRANS_USE = frozenset({"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx11-generic"})
#: FeatureUserSGPRInit16Bug: GFX11.0.0, 11.0.2 and the GFX11 generic target.
_USER_SGPR_INIT16 = frozenset({"gfx1100", "gfx1102", "gfx11-generic"})
#: Feature1_5xVGPRs before GFX12 (where every processor has it).
_1_5X_VGPRS = frozenset({"gfx1100", "gfx1101", "gfx1151"})
#: FeatureSupportsSRAMECC.
_SRAMECC = frozenset({"gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"})

#: The ISA major version in a processor name: gfx6xx..gfx9xx, gfx10xx..gfx12xx, generics.
_MAJOR = re.compile(
    r"gfx(?:(1[0-2])(?:\d\d|-\d+-generic|-generic)|([6-9])(?:[0-9a-z]{2}|-generic))$"
)


class UnknownProcessorError(ValueError):
    """A processor name that no AMDGPU ELF ``e_flags`` value stands for."""


@dataclass(frozen=True, slots=True)
class VectorRegisterFile:
    """How a processor grants vector registers to a wave of one size (LLVM 19's
    ``getVGPREncodingGranule``, ``getVGPRAllocGranule``, ``getTotalNumVGPRs``,
    ``getMaxWavesPerEU``)."""

    #: VGPRs per GRANULATED_WORKITEM_VGPR_COUNT step: what a descriptor can ask for.
    granule: int
    #: Vector registers per SIMD lane (VGPRs and AGPRs together where the file is unified).
    total: int
    #: Whether VGPRs and AGPRs share one file, split at ``accum_offset`` (GFX90A, GFX942).
    unified: bool
    #: Most waves one SIMD runs.
    max_waves: int
    #: VGPRs per step of what the hardware hands out, which decides occupancy (GFX10.3+
    #: hands out more than the descriptor's steps); 0: the same as ``granule``.
    allocation_granule: int = 0

    @property
    def occupancy_granule(self) -> int:
        return self.allocation_granule or self.granule


@dataclass(frozen=True, slots=True)
class Subtarget:
    """What one processor (``gfx90a``, ``gfx942``, ``gfx1100``...) has."""

    name: str
    #: The ISA major version: 9 for GFX9 (gfx908, gfx90a, gfx942), 10, 11, 12 for RDNA.
    major: int

    @property
    def has_gfx90a_insts(self) -> bool:
        """FeatureGFX90AInsts: the CDNA2 additions (unified vector file, packed work-item
        ids, aligned tuples, packed FP32, ``v_pk_mov_b32``)."""
        return self.name in _GFX90A_INSTS

    @property
    def has_gfx940_insts(self) -> bool:
        """FeatureGFX940Insts: the CDNA3 additions (``sc0``/``sc1``/``nt`` cache bits,
        ``v_mov_b64``, architected flat scratch)."""
        return self.name in _GFX940_INSTS

    @property
    def has_agprs(self) -> bool:
        """Accumulation registers (``a0``...) exist (FeatureMAIInsts)."""
        return self.name in _MAI_INSTS

    @property
    def addressable_sgprs(self) -> int:
        """Generic SGPRs an instruction can name (``getAddressableNumSGPRs``): ``s0``-``s101``
        on GFX8/GFX9, where ``s102``-``s105`` are FLAT_SCRATCH and XNACK_MASK; ``s0``-``s105``
        from GFX10, whose special registers have encodings of their own."""
        return 106 if self.major >= 10 else 102

    @property
    def has_unified_vector_file(self) -> bool:
        """VGPRs and AGPRs share one file, split at ``accum_offset``."""
        return self.has_gfx90a_insts

    @property
    def has_architected_flat_scratch(self) -> bool:
        """The hardware sets up the flat scratch base: no private segment buffer or flat
        scratch init user SGPRs (FeatureArchitectedFlatScratch)."""
        return self.name in _ARCHITECTED_FLAT_SCRATCH or self.major >= 11

    @property
    def has_flat_scratch_in_hwregs(self) -> bool:
        """FLAT_SCRATCH is reached through ``s_setreg``/``s_getreg`` of HW_REG_FLAT_SCR_LO
        and _HI, not as an SGPR pair operand: GFX10 and GFX11, where a kernel without
        architected flat scratch sets it up with ``s_setreg_b32`` (SIFrameLowering's flat
        scratch init). GFX12 has neither: flat scratch is architected."""
        return self.major in (10, 11)

    @property
    def has_flat_scratch_st_mode(self) -> bool:
        """``scratch_*`` can address with an immediate offset alone, no SGPR or VGPR base
        (LLVM's ``hasFlatScratchSTMode``)."""
        return self.has_gfx940_insts or self.major >= 11

    @property
    def has_packed_work_item_ids(self) -> bool:
        """The hardware packs the X, Y and Z work-item ids into v0 (``hasPackedTID``):
        FeaturePackedTID of GFX90A, GFX940 and every GFX11+ processor."""
        return self.has_gfx90a_insts or self.major >= 11

    @property
    def has_architected_sgprs(self) -> bool:
        """The workgroup ids are in ``ttmp9`` (X) and ``ttmp7`` (Y low, Z high half), not in
        system SGPRs after the user SGPRs, though the descriptor still enables them
        (FeatureArchitectedSGPRs, GFX12; ``SITargetLowering::allocateSystemSGPRs``)."""
        return self.major >= 12

    @property
    def needs_aligned_vgpr_tuples(self) -> bool:
        """Multi-register VGPR/AGPR operands start at an even register
        (``needsAlignedVGPRs``)."""
        return self.has_gfx90a_insts

    @property
    def has_trans_forwarding_hazard(self) -> bool:
        """A transcendental VALU result read by a non-transcendental VALU op needs a wait
        state (``hasTransForwardingHazard``)."""
        return self.has_gfx940_insts

    @property
    def has_kernarg_preload(self) -> bool:
        """Kernel arguments can be preloaded into user SGPRs (FeatureKernargPreload)."""
        return self.name in _KERNARG_PRELOAD

    @property
    def has_sgpr_init_bug(self) -> bool:
        """The SGPR count is fixed at 96 whatever is used (FeatureSGPRInitBug)."""
        return self.name in _SGPR_INIT_BUG

    @property
    def supports_xnack(self) -> bool:
        """XNACK (page-fault replay) can be on or off in the target ID
        (FeatureSupportsXNACK)."""
        return self.major == 9 or self.name in _XNACK_GFX8_GFX10

    @property
    def supports_sramecc(self) -> bool:
        """SRAM ECC can be on or off in the target ID (FeatureSupportsSRAMECC)."""
        return self.name in _SRAMECC

    @property
    def zeroes_high_16_bits(self) -> bool:
        """A 16-bit VALU operation without ``op_sel`` (VOP1/VOP2 and their VOP3 forms)
        writes zeros to the upper half of its destination: GFX9; from GFX10 every 16-bit
        operation keeps the other half (``zeroesHigh16BitsOfDest``)."""
        return self.major < 10

    @property
    def has_no_data_dep_hazard(self) -> bool:
        """The hardware resolves data dependencies between instructions: none of GFX9's
        wait-state hazards (VALU writing what VMEM, DPP, a lane select or ``v_div_fmas``
        reads next, M0, MFMA) apply (FeatureNoDataDepHazard: GFX10 and later)."""
        return self.major >= 10

    @property
    def has_vcmpx_permlane_hazard(self) -> bool:
        """A ``v_permlane*`` after a ``v_cmpx`` that wrote EXEC, with no other VALU between,
        needs one (``v_mov_b32`` of its source; FeatureVcmpxPermlaneHazard: GFX10.1, GFX11,
        GFX12)."""
        return self.name in _GFX10_1 or self.major in (11, 12)

    @property
    def has_valu_trans_use_hazard(self) -> bool:
        """A VALU reading a VGPR that a transcendental VALU wrote within 5 VALUs (1
        transcendental) needs ``s_waitcnt_depctr va_vdst(0)`` first
        (FeatureVALUTransUseHazard: GFX11.0)."""
        return self.name in _VALU_TRANS_USE

    @property
    def has_valu_partial_forwarding_hazard(self) -> bool:
        """In wave64, a VALU reading two VGPRs written by VALUs on either side of an SALU
        write of EXEC, close together, needs ``s_waitcnt_depctr va_vdst(0)`` first
        (``hasVALUPartialForwardingHazard``: GFX11)."""
        return self.major == 11

    @property
    def has_valu_mask_write_hazard(self) -> bool:
        """In wave64, an SALU write of an SGPR that a VALU read as a lane mask (with no
        VALU reading another SGPR since) needs ``s_waitcnt_depctr sa_sdst(0)`` after it
        (``hasVALUMaskWriteHazard``: GFX11)."""
        return self.major == 11

    @property
    def has_user_sgpr_init16_bug(self) -> bool:
        """A kernel's user and system SGPRs must number 16: the compiler pads the user
        SGPR count, and the padding holds nothing the kernel reads
        (FeatureUserSGPRInit16Bug)."""
        return self.name in _USER_SGPR_INIT16

    @property
    def has_fp_atomic_to_denorm_mode_hazard(self) -> bool:
        """``s_denorm_mode`` within 3 wait states of a floating-point VMEM/FLAT atomic
        (no VALU or wait count between) needs wait states (``hasFPAtomicToDenormModeHazard``:
        GFX10)."""
        return self.major == 10

    @property
    def default_wave_size(self) -> int:
        """Lanes of a wave unless a kernel asks otherwise: 64 before GFX10, 32 from it."""
        return 64 if self.major < 10 else 32

    @property
    def wave_sizes(self) -> tuple[int, ...]:
        """The wave sizes kernels can run in: 64 before GFX10, 32 or 64 from it (a kernel
        descriptor's ENABLE_WAVEFRONT_SIZE32 chooses)."""
        return (64,) if self.major < 10 else (32, 64)

    @property
    def flat_offset_bits(self) -> int:
        """Width of the signed immediate offset of global and scratch instructions
        (``getNumFlatOffsetBits``): 13 on GFX9 and GFX11, 12 on GFX10, 24 on GFX12. One
        value for the decoder (which sign-extends it), the printer and the parser's range
        check."""
        return {10: 12, 12: 24}.get(self.major, 13)

    @property
    def descriptor_layout(self) -> DescriptorLayout:
        """Which AMDGPUUsage tables name the kernel descriptor's RSRC1/RSRC3 bits."""
        return DescriptorLayout.for_major(self.major)

    def vgpr_encoding_granule(self, wave32: bool) -> int:
        """VGPRs per GRANULATED_WORKITEM_VGPR_COUNT step (``getVGPREncodingGranule``)."""
        if self.has_gfx90a_insts:
            return 8
        return 8 if wave32 else 4

    @property
    def has_gfx10_3_insts(self) -> bool:
        """FeatureGFX10_3Insts: RDNA2 and every later RDNA (more waves' worth of VGPRs
        per allocation step, 16 waves per SIMD at most)."""
        return self.major >= 11 or (self.major == 10 and self.name >= "gfx1030")

    @property
    def has_1_5x_vgprs(self) -> bool:
        """Feature1_5xVGPRs: a SIMD holds half as many VGPRs again (gfx1100, gfx1101,
        gfx1151, GFX12), handed out in steps of 24 (wave32) or 12 (wave64)."""
        return self.name in _1_5X_VGPRS or self.major >= 12

    @property
    def has_fixed_sgpr_allocation(self) -> bool:
        """Every wave gets all SGPRs: the descriptor's GRANULATED_WAVEFRONT_SGPR_COUNT is
        reserved (must stay 0) and SGPRs do not limit occupancy (GFX10+)."""
        return self.major >= 10

    def vector_register_file(self, wave32: bool = False) -> VectorRegisterFile | None:
        """How vector registers are granted to a wave (``wave32``: of 32 lanes, GFX10+),
        where we model it (GFX9 and later); None before."""
        if self.major < 9:
            return None
        if self.has_gfx90a_insts:
            return VectorRegisterFile(granule=8, total=512, unified=True, max_waves=8)
        if self.major == 9:
            return VectorRegisterFile(granule=4, total=256, unified=False, max_waves=10)
        lanes_factor = 2 if wave32 else 1  # the same file, in half as many lanes
        if self.has_1_5x_vgprs:
            allocation, total = 12 * lanes_factor, 768 * lanes_factor
        elif self.has_gfx10_3_insts:
            allocation, total = 8 * lanes_factor, 512 * lanes_factor
        else:
            allocation, total = 4 * lanes_factor, 512 * lanes_factor
        return VectorRegisterFile(granule=self.vgpr_encoding_granule(wave32), total=total,
                                  unified=False, max_waves=16 if self.has_gfx10_3_insts else 20,
                                  allocation_granule=allocation)


def processor_major(name: str) -> int:
    """The ISA major version of a processor name; raises :class:`UnknownProcessorError`."""
    match = _MAJOR.match(name)
    if match is None or name not in PROCESSOR_TO_MACH:
        raise UnknownProcessorError(f"unknown amdgcn processor {name!r}")
    return int(match.group(1) or match.group(2))


@cache
def subtarget_for(processor: str) -> Subtarget:
    """The subtarget of a processor name (``gfx90a``; no features); raises
    :class:`UnknownProcessorError`."""
    return Subtarget(processor, processor_major(processor))
