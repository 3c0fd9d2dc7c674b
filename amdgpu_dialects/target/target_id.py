"""AMDGPU targets as the ELF header's ``e_flags`` encodes them.

The processor of a code object V3+ is the ``EF_AMDGPU_MACH`` field of ``e_flags``; code object
V4+ adds a two-bit setting per target feature (xnack, sramecc) that can be unsupported, any,
off or on; V6 adds the generic-processor version in the top byte. The values below come from
the "ELF Header" tables of LLVM 19's ``AMDGPUUsage.rst``. The target ID string
(``amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-``) is what the metadata note's ``amdhsa.target``
and the clang offload bundle entry IDs carry, so we can cross-check the two.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: e_machine of every AMDGPU code object.
EM_AMDGPU = 224
#: e_ident[EI_OSABI] of code objects for the ROCm (HSA) runtime.
ELFOSABI_AMDGPU_HSA = 64

#: e_ident[EI_ABIVERSION] (for ELFOSABI_AMDGPU_HSA) -> code object version. V2 and V3 can no
#: longer be emitted by LLVM 19 and have other e_flags layouts, so they are not accepted.
ABI_VERSION_TO_CODE_OBJECT_VERSION: dict[int, int] = {2: 4, 3: 5, 4: 6}
CODE_OBJECT_VERSION_TO_ABI_VERSION: dict[int, int] = {
    version: abi for abi, version in ABI_VERSION_TO_CODE_OBJECT_VERSION.items()
}

EF_AMDGPU_MACH = 0x0FF
EF_AMDGPU_FEATURE_XNACK_V4 = 0x300
EF_AMDGPU_FEATURE_SRAMECC_V4 = 0xC00
EF_AMDGPU_GENERIC_VERSION = 0xFF000000
EF_AMDGPU_GENERIC_VERSION_SHIFT = 24

#: EF_AMDGPU_MACH value -> processor name (the amdgcn part of the table; r600 processors use
#: 32-bit ELF and are rejected earlier).
MACH_TO_PROCESSOR: dict[int, str] = {
    0x020: "gfx600",
    0x021: "gfx601",
    0x022: "gfx700",
    0x023: "gfx701",
    0x024: "gfx702",
    0x025: "gfx703",
    0x026: "gfx704",
    0x028: "gfx801",
    0x029: "gfx802",
    0x02A: "gfx803",
    0x02B: "gfx810",
    0x02C: "gfx900",
    0x02D: "gfx902",
    0x02E: "gfx904",
    0x02F: "gfx906",
    0x030: "gfx908",
    0x031: "gfx909",
    0x032: "gfx90c",
    0x033: "gfx1010",
    0x034: "gfx1011",
    0x035: "gfx1012",
    0x036: "gfx1030",
    0x037: "gfx1031",
    0x038: "gfx1032",
    0x039: "gfx1033",
    0x03A: "gfx602",
    0x03B: "gfx705",
    0x03C: "gfx805",
    0x03D: "gfx1035",
    0x03E: "gfx1034",
    0x03F: "gfx90a",
    0x040: "gfx940",
    0x041: "gfx1100",
    0x042: "gfx1013",
    0x043: "gfx1150",
    0x044: "gfx1103",
    0x045: "gfx1036",
    0x046: "gfx1101",
    0x047: "gfx1102",
    0x048: "gfx1200",
    0x04A: "gfx1151",
    0x04B: "gfx941",
    0x04C: "gfx942",
    0x04E: "gfx1201",
    0x051: "gfx9-generic",
    0x052: "gfx10-1-generic",
    0x053: "gfx10-3-generic",
    0x054: "gfx11-generic",
    0x055: "gfx1152",
    0x059: "gfx12-generic",
}

PROCESSOR_TO_MACH: dict[str, int] = {name: mach for mach, name in MACH_TO_PROCESSOR.items()}


class FeatureSetting(enum.Enum):
    """A V4+ target feature setting: the two bits of EF_AMDGPU_FEATURE_*_V4."""

    UNSUPPORTED = 0
    ANY = 1
    OFF = 2
    ON = 3

    @property
    def suffix(self) -> str:
        """The target-ID suffix: ``+`` on, ``-`` off, nothing for any or unsupported."""
        return {FeatureSetting.ON: "+", FeatureSetting.OFF: "-"}.get(self, "")


@dataclass(frozen=True)
class Target:
    """The processor and feature settings of a code object, from its e_flags."""

    processor: str
    xnack: FeatureSetting
    sramecc: FeatureSetting
    #: EF_AMDGPU_GENERIC_VERSION (V6+, generic processors); 0 for specific processors.
    generic_version: int = 0

    @property
    def target_id(self) -> str:
        """``amdgcn-amd-amdhsa--<processor>[:sramecc±][:xnack±]``, as ``amdhsa.target``."""
        return "amdgcn-amd-amdhsa--" + self.offload_arch

    @property
    def offload_arch(self) -> str:
        """The ``--offload-arch`` spelling: ``gfx90a:sramecc+:xnack-`` (features sorted)."""
        text = self.processor
        for name, setting in (("sramecc", self.sramecc), ("xnack", self.xnack)):
            if setting.suffix:
                text += f":{name}{setting.suffix}"
        return text


def decode_e_flags(e_flags: int, code_object_version: int) -> Target | str:
    """The target in ``e_flags``, or the reason it is not one we know (never raises).

    Returning the reason rather than raising keeps this module free of paths; the ELF reader
    adds the path and raises.
    """
    mach = e_flags & EF_AMDGPU_MACH
    processor = MACH_TO_PROCESSOR.get(mach)
    if processor is None:
        return f"unknown target in e_flags: EF_AMDGPU_MACH 0x{mach:03x} (e_flags 0x{e_flags:x})"
    xnack = FeatureSetting((e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8)
    sramecc = FeatureSetting((e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10)
    generic = 0
    if code_object_version >= 6:
        generic = (e_flags & EF_AMDGPU_GENERIC_VERSION) >> EF_AMDGPU_GENERIC_VERSION_SHIFT
        if processor.endswith("-generic") and generic == 0:
            return f"generic target {processor} without a generic version in e_flags"
    known = EF_AMDGPU_MACH | EF_AMDGPU_FEATURE_XNACK_V4 | EF_AMDGPU_FEATURE_SRAMECC_V4
    if code_object_version >= 6:
        known |= EF_AMDGPU_GENERIC_VERSION
    if e_flags & ~known:
        return f"unknown bits 0x{e_flags & ~known:x} in e_flags 0x{e_flags:x}"
    return Target(processor, xnack, sramecc, generic)


@dataclass(frozen=True)
class TargetRequest:
    """An ``--offload-arch`` style request: a processor and the features it pins down."""

    processor: str
    features: tuple[tuple[str, bool], ...] = ()

    @staticmethod
    def parse(text: str) -> TargetRequest | None:
        """Parse ``gfx90a``, ``gfx90a:xnack+``, or a full ID ``...--gfx90a:xnack+``."""
        text = text.strip()
        if "--" in text:
            text = text.rsplit("--", 1)[1]
        processor, *parts = text.split(":")
        features: list[tuple[str, bool]] = []
        for part in parts:
            if len(part) < 2 or part[-1] not in "+-":
                return None
            features.append((part[:-1], part[-1] == "+"))
        if not processor:
            return None
        return TargetRequest(processor, tuple(sorted(features)))

    def matches(self, offered: TargetRequest) -> bool:
        """True when code built for ``offered`` can serve this request.

        A feature that the offered code leaves unspecified works either way; one it pins must
        agree with what the request pins, and a request that leaves a feature open accepts
        either value.
        """
        if offered.processor != self.processor:
            return False
        wanted = dict(self.features)
        return all(wanted.get(name, value) == value for name, value in offered.features)
