"""Every answer of :class:`Subtarget` agrees with LLVM's TableGen features of the processor.

The ISA tables (generated from LLVM 19's records, checked current by
test_isa_tables_current.py) carry each supported processor's feature list; the subtarget's
hand-kept facts must say the same for every one of them, so a processor added to one cannot
silently disagree with the other. The architected-flat-scratch answer once disagreed between
two modules ({gfx940, gfx941, gfx942} and {gfx942}): this is the test that pins it.
"""

from __future__ import annotations

import pytest

from luthier.amdgpu_dialects.isa.target import TABLE_TARGETS, load_target
from luthier.amdgpu_dialects.mc.asm_parser import AsmParseError, parser_for
from luthier.amdgpu_dialects.target.processors import TargetIdError, parse_processor
from luthier.amdgpu_dialects.target.subtarget import (
    UnknownProcessorError,
    VectorRegisterFile,
    subtarget_for,
)

#: Subtarget predicate -> the LLVM feature that decides it on GFX9.
FEATURE_OF = {
    "has_gfx90a_insts": "FeatureGFX90AInsts",
    "has_gfx940_insts": "FeatureGFX940Insts",
    "has_agprs": "FeatureMAIInsts",
    "has_architected_flat_scratch": "FeatureArchitectedFlatScratch",
    "has_kernarg_preload": "FeatureKernargPreload",
    "has_packed_work_item_ids": "FeaturePackedTID",
    "supports_sramecc": "FeatureSupportsSRAMECC",
    "supports_xnack": "FeatureSupportsXNACK",
    "has_no_data_dep_hazard": "FeatureNoDataDepHazard",
    "has_vcmpx_permlane_hazard": "FeatureVcmpxPermlaneHazard",
    "has_valu_trans_use_hazard": "FeatureVALUTransUseHazard",
    "has_user_sgpr_init16_bug": "FeatureUserSGPRInit16Bug",
    "has_gfx10_3_insts": "FeatureGFX10_3Insts",
    "has_1_5x_vgprs": "Feature1_5xVGPRs",
}


@pytest.mark.parametrize("processor", TABLE_TARGETS)
def test_answers_equal_the_tablegen_features(processor: str) -> None:
    """Every processor with tables: the answers that are TableGen features are those
    features (a wrong fact for one family, such as packed work-item ids on GFX11+, fails
    here)."""
    isa = load_target(processor)
    subtarget = isa.subtarget
    for predicate, feature in FEATURE_OF.items():
        assert getattr(subtarget, predicate) == (feature in isa.features), predicate
    assert subtarget.default_wave_size == isa.wavefront_size
    assert subtarget.has_trans_forwarding_hazard == ("FeatureGFX940Insts" in isa.features)
    assert subtarget.needs_aligned_vgpr_tuples == ("FeatureGFX90AInsts" in isa.features)
    assert subtarget.has_unified_vector_file == ("FeatureGFX90AInsts" in isa.features)
    # hasFlatScratchSTMode: GFX940 and GFX11+
    assert subtarget.has_flat_scratch_st_mode == (
        "FeatureGFX940Insts" in isa.features or subtarget.major >= 11)


@pytest.mark.parametrize("processor", TABLE_TARGETS)
def test_flat_scratch_is_reached_as_the_assembler_says(processor: str) -> None:
    """The target's assembler takes ``flat_scratch_lo`` as an operand before GFX10, and
    ``hwreg(HW_REG_FLAT_SCR_LO)`` exactly where the subtarget says FLAT_SCRATCH is a
    hardware register (what the preamble writes on gfx1030)."""
    subtarget = subtarget_for(processor)
    parser = parser_for(processor)

    def takes(statement: str) -> bool:
        try:
            parser.parse(statement)
        except AsmParseError:
            return False
        return True

    assert takes("s_mov_b32 flat_scratch_lo, 0") == (subtarget.major < 10)
    assert takes("s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO), s2") == \
        subtarget.has_flat_scratch_in_hwregs


def test_vector_register_files() -> None:
    # LLVM 19 AMDGPUBaseInfo: getVGPREncodingGranule, getVGPRAllocGranule,
    # getTotalNumVGPRs (per lane of the kernel's wave size), getMaxWavesPerEU
    assert subtarget_for("gfx908").vector_register_file() == VectorRegisterFile(4, 256, False, 10)
    assert subtarget_for("gfx90a").vector_register_file() == VectorRegisterFile(8, 512, True, 8)
    assert subtarget_for("gfx942").vector_register_file() == VectorRegisterFile(8, 512, True, 8)
    gfx1030 = subtarget_for("gfx1030")
    assert gfx1030.vector_register_file(wave32=True) == VectorRegisterFile(8, 1024, False, 16, 16)
    assert gfx1030.vector_register_file(wave32=False) == VectorRegisterFile(4, 512, False, 16, 8)
    for processor in ("gfx1100", "gfx1200", "gfx1201"):
        subtarget = subtarget_for(processor)
        assert subtarget.vector_register_file(wave32=True) == \
            VectorRegisterFile(8, 1536, False, 16, 24)
        assert subtarget.vector_register_file(wave32=False) == \
            VectorRegisterFile(4, 768, False, 16, 12)
    # RDNA1 (no tables of ours, the facts still hold): 20 waves, no bigger steps
    assert subtarget_for("gfx1010").vector_register_file(wave32=True) == \
        VectorRegisterFile(8, 1024, False, 20, 8)
    assert subtarget_for("gfx1102").vector_register_file(wave32=True) == \
        VectorRegisterFile(8, 1024, False, 16, 16)


def test_generations() -> None:
    assert subtarget_for("gfx1030").major == 10
    assert subtarget_for("gfx1201").major == 12
    assert subtarget_for("gfx1100").has_architected_flat_scratch
    assert not subtarget_for("gfx1030").has_architected_flat_scratch
    assert subtarget_for("gfx1100").default_wave_size == 32
    assert subtarget_for("gfx940").has_architected_flat_scratch


def test_unknown_processor() -> None:
    with pytest.raises(UnknownProcessorError, match="unknown amdgcn processor 'gfx9999'"):
        subtarget_for("gfx9999")
    with pytest.raises(TargetIdError, match="unknown amdgcn processor 'gfx9999'"):
        parse_processor("gfx9999")


def test_processor_pairs_a_subtarget_with_feature_settings() -> None:
    processor = parse_processor("amdgcn-amd-amdhsa--gfx90a:xnack-")
    assert processor.subtarget is subtarget_for("gfx90a")
    assert (processor.name, processor.major) == ("gfx90a", 9)
    assert not processor.xnack_on_or_any
