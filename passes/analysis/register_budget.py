"""A kernel's register budget, read back from its kernel descriptor.

The descriptor's granulated counts are what the hardware allocates to each wave, and so
what decides occupancy. Registers inside that allocation cost nothing to use; one register
past it grows the allocation by a whole granule and may cost waves. The allocator therefore
wants three facts per kernel, all from the descriptor (AMDGPUUsage, COMPUTE_PGM_RSRC1/3,
and LLVM's ``AMDGPUBaseInfo`` for the granules and occupancy tables):

* how many generic SGPRs the wave has (``s0`` up to the allocation less the special SGPRs
  that sit at its top on GFX9: VCC, FLAT_SCRATCH, XNACK_MASK);
* how many VGPRs and AGPRs, and where the AGPRs start in the unified file of GFX90A/GFX942
  (``accum_offset``): an architected VGPR at or past it is an AGPR;
* how many waves per SIMD those counts allow.

GFX9 encodes the SGPR count in blocks of 8 but allocates in blocks of 16, so the budget is
the encoded count rounded up to 16. The special SGPRs at the top of the allocation are what
LLVM's ``getNumExtraSGPRs`` counts: VCC and XNACK_MASK (4; we assume VCC, as the descriptor
cannot say whether the compiler reserved it, and XNACK_MASK unless the code object's target ID
says ``xnack-``, for which the compiler reserves none), and FLAT_SCRATCH on top (6) when the
kernel uses flat scratch or the target has it architected (the subtarget says which).
Assuming more than the compiler reserved only makes the budget smaller, never larger than
what the hardware gives; assuming XNACK_MASK in an ``xnack-`` object would put the top two
SGPRs the compiler gave the code outside the budget.

GFX10 and later (RDNA) give every wave all 106 SGPRs, with VCC and the other special
registers apart: the SGPR field of the descriptor is reserved and SGPRs never limit
occupancy. Their VGPR count is encoded in steps of 8 (wave32) or 4 (wave64) lanes' worth;
the budget is what the descriptor asks for (the hardware hands out bigger steps from
RDNA2 on, which decide occupancy but which the descriptor cannot promise).
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.subtarget import (
    UnknownProcessorError,
    VectorRegisterFile,
    subtarget_for,
)

#: GFX9: SGPRs are encoded in blocks of 8, allocated in blocks of 16; s0-s101 are the
#: addressable generic SGPRs; the special SGPRs of the allocation's top are at most 6.
SGPR_ENCODING_GRANULE = 8
SGPR_ALLOCATION_GRANULE = 16
ADDRESSABLE_SGPRS = 102
#: VCC and XNACK_MASK; FLAT_SCRATCH adds two more.
SPECIAL_SGPRS = 4
XNACK_MASK_SGPRS = 2
FLAT_SCRATCH_SGPRS = 2
#: Architected VGPRs (and AGPRs) an instruction can name.
ADDRESSABLE_VGPRS = 256


def _round_up(value: int, granule: int) -> int:
    return -(-value // granule) * granule


def sgpr_occupancy(sgprs: int, max_waves: int, major: int = 9) -> int:
    """Waves per SIMD the SGPR count allows (LLVM's getOccupancyWithNumSGPRs): GFX8/GFX9
    by the table, GFX10+ every wave (SGPRs are not shared out)."""
    if major >= 10:
        return max_waves
    for limit, waves in ((80, 10), (88, 9), (100, 8)):
        if sgprs <= limit:
            return min(waves, max_waves)
    return min(7, max_waves)


def _vector_file(processor: str, wave32: bool = False) -> VectorRegisterFile:
    """The processor's vector register file for waves of 32 lanes (``wave32``) or 64;
    :func:`supports_budget` says whether it has one we model (asking for another is a
    programming error)."""
    vector_file = subtarget_for(processor).vector_register_file(wave32)
    if vector_file is None:
        raise ValueError(f"no register budget model for {processor}")
    return vector_file


def vgpr_occupancy(vgprs: int, processor: str, wave32: bool = False) -> int:
    """Waves per SIMD a VGPR count allows (LLVM's getNumWavesPerEUWithNumVGPRs, with the
    allocation granule and file size of the wave's size)."""
    vector_file = _vector_file(processor, wave32)
    granule, total = vector_file.occupancy_granule, vector_file.total
    max_waves = vector_file.max_waves
    if vgprs < granule:
        return max_waves
    return min(max(total // _round_up(vgprs, granule), 1), max_waves)


def _wave32(processor: str, descriptor: KernelDescriptor) -> bool:
    """Whether the kernel's waves have 32 lanes (ENABLE_WAVEFRONT_SIZE32, GFX10+)."""
    return subtarget_for(processor).major >= 10 and \
        bool(descriptor.kernel_code_properties.enable_wavefront_size32)


@dataclass(frozen=True, slots=True)
class RegisterBudget:
    """What one kernel's descriptor allocates to each of its waves."""

    processor: str
    #: SGPRs the wave is allocated (the allocation granule, special SGPRs included).
    sgprs_allocated: int
    #: Generic SGPRs usable inside that allocation: ``s0`` .. ``s{sgprs - 1}``.
    sgprs: int
    #: Vector registers the wave is allocated per lane (VGPRs and AGPRs of a unified file).
    vgprs_allocated: int
    #: Architected VGPRs usable as the descriptor stands: ``v0`` .. ``v{vgprs - 1}``.
    vgprs: int
    #: AGPRs usable as the descriptor stands: ``a0`` .. ``a{agprs - 1}``.
    agprs: int
    #: Whether VGPRs and AGPRs share one file (GFX90A, GFX942), split at ``accum_offset``.
    unified: bool
    #: Waves per SIMD these counts allow (the register limit; LDS and workgroup size may
    #: allow fewer).
    waves_per_simd: int
    #: The kernel's waves have 32 lanes (GFX10+), which sizes the vector file's steps.
    wave32: bool = False

    @staticmethod
    def from_descriptor(processor: str, descriptor: KernelDescriptor,
                        uses_flat_scratch: bool = True,
                        xnack_reserved: bool = True) -> RegisterBudget:
        """The budget of a kernel; ``uses_flat_scratch`` says whether its code (or the
        descriptor's flat-scratch-init bit) uses FLAT_SCRATCH, which then takes two more
        SGPRs at the allocation's top (the default assumes it does); ``xnack_reserved``
        whether XNACK_MASK does (False for an ``xnack-`` code object)."""
        subtarget = subtarget_for(processor)
        wave32 = _wave32(processor, descriptor)
        vector_file = _vector_file(processor, wave32)
        granule, unified = vector_file.granule, vector_file.unified
        max_waves = vector_file.max_waves
        rsrc1 = descriptor.compute_pgm_rsrc1
        if subtarget.has_fixed_sgpr_allocation:
            # GFX10+: every wave has every SGPR, VCC and the others apart from them.
            sgprs = sgprs_allocated = subtarget.addressable_sgprs
        else:
            encoded_sgprs = (rsrc1.granulated_wavefront_sgpr_count + 1) * SGPR_ENCODING_GRANULE
            sgprs_allocated = _round_up(encoded_sgprs, SGPR_ALLOCATION_GRANULE)
            special = SPECIAL_SGPRS if xnack_reserved else SPECIAL_SGPRS - XNACK_MASK_SGPRS
            if uses_flat_scratch or subtarget.has_architected_flat_scratch:
                special += FLAT_SCRATCH_SGPRS
            sgprs = min(sgprs_allocated - special, ADDRESSABLE_SGPRS)
        vgprs_allocated = (rsrc1.granulated_workitem_vgpr_count + 1) * granule
        if unified:
            accum_offset = descriptor.compute_pgm_rsrc3.accum_offset_vgprs
            vgprs = min(accum_offset, vgprs_allocated, ADDRESSABLE_VGPRS)
            agprs = min(max(vgprs_allocated - accum_offset, 0), ADDRESSABLE_VGPRS)
        else:  # gfx908: an AGPR file as big as the VGPR one; RDNA: no AGPRs
            vgprs = min(vgprs_allocated, ADDRESSABLE_VGPRS)
            agprs = vgprs if subtarget.has_agprs else 0
        waves = min(sgpr_occupancy(sgprs_allocated, max_waves, subtarget.major),
                    vgpr_occupancy(vgprs_allocated, processor, wave32))
        return RegisterBudget(processor, sgprs_allocated, sgprs, vgprs_allocated, vgprs,
                              agprs, unified, waves, wave32)

    def grown(self, needs: dict[str, int]) -> RegisterBudget:
        """The budget of the smallest allocation, never less than this one, that holds
        ``needs`` registers of each file (``s``, ``v``, ``a``), and the occupancy it allows.
        In a unified file the AGPRs start at the VGPR count rounded up to 4
        (``accum_offset``); from GFX10 every wave already has every SGPR."""
        subtarget = subtarget_for(self.processor)
        granule = _vector_file(self.processor, self.wave32).granule
        if subtarget.has_fixed_sgpr_allocation:
            special = 0
            sgprs = sgprs_allocated = self.sgprs_allocated
        else:
            special = self.sgprs_allocated - self.sgprs
            sgprs = max(self.sgprs, needs["s"])
            sgprs_allocated = max(_round_up(sgprs + special, SGPR_ALLOCATION_GRANULE),
                                  self.sgprs_allocated)
        if self.unified:
            vgprs = _round_up(max(self.vgprs, needs["v"]), 4)
            vector = max(_round_up(vgprs + needs["a"], granule), self.vgprs_allocated)
            agprs = vector - vgprs
        else:
            wanted = max(needs["v"], needs["a"]) if subtarget.has_agprs else needs["v"]
            vgprs = vector = max(_round_up(wanted, granule), self.vgprs_allocated)
            agprs = vector if subtarget.has_agprs else 0
        if (sgprs_allocated, vector) == (self.sgprs_allocated, self.vgprs_allocated):
            waves = self.waves_per_simd
        else:
            waves = self.waves_with(sgprs + special, vector)
        usable = sgprs_allocated if subtarget.has_fixed_sgpr_allocation else min(
            sgprs_allocated - special, ADDRESSABLE_SGPRS)
        return RegisterBudget(self.processor, sgprs_allocated, usable, vector, vgprs, agprs,
                              self.unified, waves, self.wave32)

    def limit(self, prefix: str) -> int:
        """How many registers of file ``prefix`` (``s``, ``v``, ``a``) the budget holds."""
        return {"s": self.sgprs, "v": self.vgprs, "a": self.agprs}[prefix]

    def waves_with(self, sgprs: int, vgprs: int) -> int:
        """Waves per SIMD if the kernel needed ``sgprs`` SGPRs (special ones included) and
        ``vgprs`` vector registers per lane (VGPRs plus AGPRs where the file is unified)."""
        max_waves = _vector_file(self.processor, self.wave32).max_waves
        encoded = _round_up(max(sgprs, 1), SGPR_ENCODING_GRANULE)
        major = subtarget_for(self.processor).major
        return min(sgpr_occupancy(encoded, max_waves, major),
                   vgpr_occupancy(vgprs, self.processor, self.wave32))


def vector_granule(processor: str, descriptor: KernelDescriptor) -> tuple[int, bool]:
    """(VGPRs per descriptor step, whether VGPRs and AGPRs share one file) of a kernel:
    the step depends on its wave size on GFX10+."""
    vector_file = _vector_file(processor, _wave32(processor, descriptor))
    return vector_file.granule, vector_file.unified


def supports_budget(processor: str) -> bool:
    """Whether :class:`RegisterBudget` models the processor's register files."""
    try:
        return subtarget_for(processor).vector_register_file() is not None
    except UnknownProcessorError:
        return False
