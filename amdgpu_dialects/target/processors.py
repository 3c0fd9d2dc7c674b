"""What the ``.amdhsa_*`` directives depend on, per processor (LLVM 19's AMDGPU facts).

llvm-mc's handling of a kernel descriptor block changes with the processor: which directives
exist (architected flat scratch removes three, GFX10 adds wave32 and WGP mode, GFX12 removes the
DX10 clamp and IEEE mode), how next_free_vgpr/next_free_sgpr become granulated register counts,
and which extra SGPRs (VCC, FLAT_SCRATCH, XNACK_MASK) it adds. Inverting those formulas needs the
same facts, which come from ``AMDGPU.td``/``GCNProcessors.td`` (feature sets) and
``AMDGPUUsage.rst`` (processor table) of LLVM 19. Only what the directives need is kept here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from luthier.amdgpu_dialects.target.target_id import (
    PROCESSOR_TO_MACH,
    FeatureSetting,
    TargetRequest,
)

#: Processors with the GFX90A instructions: unified VGPR/AGPR file, ACCUM_OFFSET and TG_SPLIT in
#: COMPUTE_PGM_RSRC3, VGPRs encoded in granules of 8 in either wave size.
_GFX90A_INSTS = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942"})
#: Processors whose flat scratch base is set up by hardware (FeatureArchitectedFlatScratch),
#: besides every GFX11+ processor: no private segment buffer / flat scratch init user SGPRs.
_ARCHITECTED_FLAT_SCRATCH = frozenset({"gfx940", "gfx941", "gfx942"})
#: Processors that can preload kernel arguments into user SGPRs (FeatureKernargPreload).
_KERNARG_PRELOAD = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942"})
#: GFX8 processors with the SGPR init bug: the SGPR count is fixed at 96 whatever is used.
_SGPR_INIT_BUG = frozenset({"gfx802", "gfx805"})
#: Processors with XNACK replay (FeatureSupportsXNACK): GFX8.0.1, GFX8.1, all of GFX9, GFX10.1.
_XNACK_GFX8_GFX10 = frozenset(
    {"gfx801", "gfx810", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx10-1-generic"}
)
#: Processors with SRAM ECC (FeatureSupportsSRAMECC).
_SRAMECC = frozenset({"gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"})

#: The ISA major version in a processor name: gfx6xx..gfx9xx, gfx10xx..gfx12xx, generics.
_MAJOR = re.compile(
    r"gfx(?:(1[0-2])(?:\d\d|-\d+-generic|-generic)|([6-9])(?:[0-9a-z]{2}|-generic))$"
)

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

    ``xnack``/``sramecc`` are what LLVM's target ID holds: UNSUPPORTED when the processor has no
    such feature, ANY when the name did not pin it down, else ON or OFF.
    """

    name: str
    major: int
    xnack: FeatureSetting
    sramecc: FeatureSetting

    @property
    def has_gfx90a_insts(self) -> bool:
        return self.name in _GFX90A_INSTS

    @property
    def has_architected_flat_scratch(self) -> bool:
        return self.name in _ARCHITECTED_FLAT_SCRATCH or self.major >= 11

    @property
    def has_kernarg_preload(self) -> bool:
        return self.name in _KERNARG_PRELOAD

    @property
    def has_sgpr_init_bug(self) -> bool:
        return self.name in _SGPR_INIT_BUG

    @property
    def xnack_on_or_any(self) -> bool:
        """What llvm-mc requires ``.amdhsa_reserve_xnack_mask`` to be, and counts SGPRs with."""
        return self.xnack in (FeatureSetting.ON, FeatureSetting.ANY)

    def vgpr_encoding_granule(self, wave32: bool) -> int:
        """VGPRs per GRANULATED_WORKITEM_VGPR_COUNT step (getVGPREncodingGranule)."""
        if self.has_gfx90a_insts:
            return 8
        return 8 if wave32 else 4

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
        if flat_scratch or self.has_architected_flat_scratch:
            extra = 6
        return extra


def _major(name: str) -> int:
    match = _MAJOR.match(name)
    if match is None or name not in PROCESSOR_TO_MACH:
        raise TargetIdError(f"unknown amdgcn processor {name!r}")
    return int(match.group(1) or match.group(2))


def _supports(name: str, major: int, feature: str) -> bool:
    if feature == "xnack":
        return major == 9 or name in _XNACK_GFX8_GFX10
    return name in _SRAMECC


def parse_processor(text: str) -> Processor:
    """Read ``gfx90a``, ``gfx90a:xnack-`` or ``amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-``.

    A feature the text does not mention is ANY when the processor supports it, as in LLVM.
    """
    request = TargetRequest.parse(text)
    if request is None:
        raise TargetIdError(f"malformed target ID {text!r}")
    major = _major(request.processor)
    settings: dict[str, FeatureSetting] = {}
    for feature in ("xnack", "sramecc"):
        settings[feature] = (
            FeatureSetting.ANY
            if _supports(request.processor, major, feature)
            else FeatureSetting.UNSUPPORTED
        )
    for feature, on in request.features:
        if feature not in settings:
            raise TargetIdError(f"unknown target feature {feature!r} in {text!r}")
        if settings[feature] is FeatureSetting.UNSUPPORTED:
            raise TargetIdError(f"{request.processor} does not support {feature} ({text!r})")
        settings[feature] = FeatureSetting.ON if on else FeatureSetting.OFF
    return Processor(request.processor, major, settings["xnack"], settings["sramecc"])
