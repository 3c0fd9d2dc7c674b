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


def sgpr_occupancy(sgprs: int, max_waves: int) -> int:
    """Waves per SIMD the SGPR count allows on GFX8/GFX9 (LLVM's getOccupancyWithNumSGPRs)."""
    for limit, waves in ((80, 10), (88, 9), (100, 8)):
        if sgprs <= limit:
            return min(waves, max_waves)
    return min(7, max_waves)


def _vector_file(processor: str) -> VectorRegisterFile:
    """The processor's vector register file; :func:`supports_budget` says whether it has one
    we model (asking for another is a programming error)."""
    vector_file = subtarget_for(processor).vector_register_file
    if vector_file is None:
        raise ValueError(f"no register budget model for {processor}")
    return vector_file


def vgpr_occupancy(vgprs: int, processor: str) -> int:
    """Waves per SIMD a VGPR count allows (LLVM's getNumWavesPerEUWithNumVGPRs)."""
    vector_file = _vector_file(processor)
    granule, total, max_waves = vector_file.granule, vector_file.total, vector_file.max_waves
    if vgprs < granule:
        return max_waves
    return min(max(total // _round_up(vgprs, granule), 1), max_waves)


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

    @staticmethod
    def from_descriptor(processor: str, descriptor: KernelDescriptor,
                        uses_flat_scratch: bool = True,
                        xnack_reserved: bool = True) -> RegisterBudget:
        """The budget of a kernel; ``uses_flat_scratch`` says whether its code (or the
        descriptor's flat-scratch-init bit) uses FLAT_SCRATCH, which then takes two more
        SGPRs at the allocation's top (the default assumes it does); ``xnack_reserved``
        whether XNACK_MASK does (False for an ``xnack-`` code object)."""
        subtarget = subtarget_for(processor)
        vector_file = _vector_file(processor)
        granule, unified = vector_file.granule, vector_file.unified
        max_waves = vector_file.max_waves
        rsrc1 = descriptor.compute_pgm_rsrc1
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
        else:
            vgprs = agprs = min(vgprs_allocated, ADDRESSABLE_VGPRS)
        waves = min(sgpr_occupancy(encoded_sgprs, max_waves),
                    vgpr_occupancy(vgprs_allocated, processor))
        return RegisterBudget(processor, sgprs_allocated, sgprs, vgprs_allocated, vgprs,
                              agprs, unified, waves)

    def limit(self, prefix: str) -> int:
        """How many registers of file ``prefix`` (``s``, ``v``, ``a``) the budget holds."""
        return {"s": self.sgprs, "v": self.vgprs, "a": self.agprs}[prefix]

    def waves_with(self, sgprs: int, vgprs: int) -> int:
        """Waves per SIMD if the kernel needed ``sgprs`` SGPRs (special ones included) and
        ``vgprs`` vector registers per lane (VGPRs plus AGPRs where the file is unified)."""
        max_waves = _vector_file(self.processor).max_waves
        encoded = _round_up(max(sgprs, 1), SGPR_ENCODING_GRANULE)
        return min(sgpr_occupancy(encoded, max_waves), vgpr_occupancy(vgprs, self.processor))


def vector_granule(processor: str) -> tuple[int, bool]:
    """(VGPR allocation granule, whether VGPRs and AGPRs share one file) of a processor."""
    vector_file = _vector_file(processor)
    return vector_file.granule, vector_file.unified


def supports_budget(processor: str) -> bool:
    """Whether :class:`RegisterBudget` models the processor's register files."""
    try:
        return subtarget_for(processor).vector_register_file is not None
    except UnknownProcessorError:
        return False
