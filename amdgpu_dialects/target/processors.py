"""What the ``.amdhsa_*`` directives depend on, per processor (LLVM 19's AMDGPU facts).

llvm-mc's handling of a kernel descriptor block changes with the processor: which directives
exist (architected flat scratch removes three, GFX10 adds wave32 and WGP mode, GFX12 removes the
DX10 clamp and IEEE mode), how next_free_vgpr/next_free_sgpr become granulated register counts,
and which extra SGPRs (VCC, FLAT_SCRATCH, XNACK_MASK) it adds. Inverting those formulas needs the
same facts, which come from ``AMDGPU.td``/``GCNProcessors.td`` (feature sets) and
``AMDGPUUsage.rst`` (processor table) of LLVM 19. Only what the directives need is kept here.
"""

from __future__ import annotations

from dataclasses import dataclass

from luthier.amdgpu_dialects.target.subtarget import (
    Subtarget,
    UnknownProcessorError,
    subtarget_for,
)
from luthier.amdgpu_dialects.target.target_id import FeatureSetting, TargetRequest

#: Largest SGPR count the wavefront can address (getAddressableNumSGPRs): GFX6-GFX7 104, GFX8+
#: 102 (GFX10+ never checks it in the assembler), 96 with the SGPR init bug.
ADDRESSABLE_SGPRS_GFX6_GFX7 = 104
ADDRESSABLE_SGPRS_GFX8_PLUS = 102
FIXED_SGPRS_FOR_INIT_BUG = 96
#: COMPUTE_PGM_RSRC1 encodes SGPRs in granules of 8 on every target.
SGPR_ENCODING_GRANULE = 8
#: User SGPRs a kernel can have preloaded with kernel arguments (getMaxNumUserSGPRs).
MAX_USER_SGPRS = 16


class TargetIdError(ValueError):
    """A target ID (``amdgcn-amd-amdhsa--gfx90a:xnack+``) that names no processor we know,
    or a feature that processor does not have; the message is one line."""


@dataclass(frozen=True)
class Processor:
    """A processor and the feature settings of the target ID it was named with.

    What the processor has is its :class:`Subtarget`'s; ``xnack``/``sramecc`` are what LLVM's
    target ID holds: UNSUPPORTED when the processor has no such feature, ANY when the name did
    not pin it down, else ON or OFF.
    """

    subtarget: Subtarget
    xnack: FeatureSetting
    sramecc: FeatureSetting

    @property
    def name(self) -> str:
        return self.subtarget.name

    @property
    def major(self) -> int:
        return self.subtarget.major

    @property
    def xnack_on_or_any(self) -> bool:
        """What llvm-mc requires ``.amdhsa_reserve_xnack_mask`` to be, and counts SGPRs with."""
        return self.xnack in (FeatureSetting.ON, FeatureSetting.ANY)

    def extra_sgprs(self, vcc: bool, flat_scratch: bool) -> int:
        """SGPRs llvm-mc adds to next_free_sgpr for VCC, FLAT_SCRATCH and XNACK_MASK.

        Not a sum: the special registers sit at the top of the SGPR file, so the count is the
        distance to the highest one in use (getNumExtraSGPRs).
        """
        extra = 2 if vcc else 0
        if self.major >= 10:
            return extra
        if self.major < 8:
            return 4 if flat_scratch else extra
        if self.xnack_on_or_any:
            extra = 4
        if flat_scratch or self.subtarget.has_architected_flat_scratch:
            extra = 6
        return extra


def parse_processor(text: str) -> Processor:
    """Read ``gfx90a``, ``gfx90a:xnack-`` or ``amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-``.

    A feature the text does not mention is ANY when the processor supports it, as in LLVM.
    """
    request = TargetRequest.parse(text)
    if request is None:
        raise TargetIdError(f"malformed target ID {text!r}")
    try:
        subtarget = subtarget_for(request.processor)
    except UnknownProcessorError as error:
        raise TargetIdError(str(error)) from None
    supported = {"xnack": subtarget.supports_xnack, "sramecc": subtarget.supports_sramecc}
    settings = {feature: FeatureSetting.ANY if supported[feature] else FeatureSetting.UNSUPPORTED
                for feature in supported}
    for feature, on in request.features:
        if feature not in settings:
            raise TargetIdError(f"unknown target feature {feature!r} in {text!r}")
        if settings[feature] is FeatureSetting.UNSUPPORTED:
            raise TargetIdError(f"{request.processor} does not support {feature} ({text!r})")
        settings[feature] = FeatureSetting.ON if on else FeatureSetting.OFF
    return Processor(subtarget, settings["xnack"], settings["sramecc"])
