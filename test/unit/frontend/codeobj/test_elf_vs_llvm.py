"""The reader agrees with llvm-readelf-19 and llvm-objdump-19 on real code objects.

Committed objects (the sample and the benchmark corpus, code object v5, gfx90a and gfx942) and
objects compiled here (ET_REL with relocations, v4 with xnack+/sramecc-, v6 generic, gfx908)
are each read by us and by LLVM's tools, and every header field, section, segment, symbol,
relocation, note and kernel descriptor field is compared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.target_id import FeatureSetting
from luthier.frontend.codeobj import CodeObject, ElfType, read_code_object

from . import oracle
from .conftest import COMMITTED, Compiled

needs_readelf = pytest.mark.skipif(
    not oracle.have(oracle.READELF), reason=f"{oracle.READELF} is not installed"
)
needs_objdump = pytest.mark.skipif(
    not oracle.have(oracle.OBJDUMP), reason=f"{oracle.OBJDUMP} is not installed"
)

_FEATURE_TOKENS = {FeatureSetting.ANY: "", FeatureSetting.ON: "+", FeatureSetting.OFF: "-"}


def _all_paths(compiled: Compiled | None) -> list[Path]:
    return COMMITTED + (compiled.code_objects if compiled is not None else [])


@pytest.fixture(params=["committed", "compiled"])
def paths(request: pytest.FixtureRequest) -> list[Path]:
    if request.param == "committed":
        assert COMMITTED, "the committed code objects are missing"
        return COMMITTED
    compiled: Compiled = request.getfixturevalue("compiled")
    return compiled.code_objects


def expected_flag_names(code_object: CodeObject) -> set[str]:
    target = code_object.target
    names = {target.processor}
    for feature, setting in (("xnack", target.xnack), ("sramecc", target.sramecc)):
        if setting is not FeatureSetting.UNSUPPORTED:
            names.add(feature + _FEATURE_TOKENS[setting])
    if target.generic_version:
        names.add(f"generic_v{target.generic_version}")
    return names


@needs_readelf
def test_file_header(paths: list[Path]) -> None:
    for path in paths:
        ours = read_code_object(path)
        theirs = oracle.header(path)
        assert ours.abi_version == theirs.abi_version, path
        assert ours.code_object_version == theirs.abi_version + 2, path
        assert ours.elf_type.name.removeprefix("ET_") == theirs.elf_type, path
        assert ours.e_flags == theirs.flags_value, path
        assert expected_flag_names(ours) == set(theirs.flag_names), path


@needs_readelf
def test_target_matches_metadata(paths: list[Path]) -> None:
    for path in paths:
        ours = read_code_object(path)
        assert ours.metadata is not None, path
        assert ours.metadata.target == ours.target.target_id, path


@needs_readelf
def test_sections_and_segments(paths: list[Path]) -> None:
    for path in paths:
        ours = read_code_object(path)
        theirs = oracle.sections(path)
        assert [
            (s.index, s.name, s.address, s.offset, s.size, s.link, s.info, s.alignment)
            for s in ours.sections
        ] == [
            (s.index, s.name, s.address, s.offset, s.size, s.link, s.info, s.alignment)
            for s in theirs
        ], path
        assert [
            (s.offset, s.virtual_address, s.file_size, s.memory_size, s.alignment)
            for s in ours.segments
        ] == [
            (s.offset, s.virtual_address, s.file_size, s.memory_size, s.alignment)
            for s in oracle.segments(path)
        ], path
        if ours.elf_type is ElfType.ET_REL:
            assert not ours.segments


@needs_readelf
def test_symbols(paths: list[Path]) -> None:
    for path in paths:
        ours = read_code_object(path)
        section_names = {s.index: s.name for s in ours.sections}
        ndx_names = {"SHN_UNDEF": "UND", "SHN_ABS": "ABS", "SHN_COMMON": "COM"}
        mine = [
            (
                s.table,
                s.index,
                s.value,
                s.size,
                s.type,
                s.binding,
                s.visibility,
                str(s.section_index) if isinstance(s.section_index, int) and s.section_index
                else ndx_names.get(str(s.section_index), "UND"),
                s.name or (section_names.get(s.section_index, "")
                           if isinstance(s.section_index, int) else ""),
            )
            for s in ours.symbols
        ]  # fmt: skip
        theirs = [
            (s.table, s.index, s.value, s.size, s.type, s.binding, s.visibility, s.ndx, s.name)
            for s in oracle.symbols(path)
        ]
        assert mine == theirs, path


@needs_readelf
def test_relocations(paths: list[Path]) -> None:
    for path in paths:
        ours = read_code_object(path)
        mine = [(r.section, r.offset, r.type_name, r.symbol, r.addend) for r in ours.relocations]
        theirs = [
            (r.section, r.offset, r.type_name, r.symbol, r.addend) for r in oracle.relocations(path)
        ]
        assert mine == theirs, path


@needs_readelf
def test_metadata_note_matches_readelf_yaml(paths: list[Path]) -> None:
    for path in paths:
        ours = read_code_object(path)
        theirs = oracle.metadata_yaml(path)
        if theirs is None:
            pytest.skip("PyYAML is not installed; llvm-readelf's metadata YAML cannot be read")
        assert ours.metadata is not None
        assert ours.metadata.raw == theirs, path


@needs_objdump
def test_text_bytes(paths: list[Path]) -> None:
    for path in paths:
        ours = read_code_object(path)
        assert ours.text is not None and ours.text.name == ".text"
        assert ours.text.data == oracle.section_hex(path, ".text"), path


def descriptor_directives(descriptor: KernelDescriptor) -> dict[str, int]:
    """What llvm-objdump prints for a gfx9 (wave64) descriptor, computed from our fields."""
    rsrc1 = descriptor.compute_pgm_rsrc1
    rsrc2 = descriptor.compute_pgm_rsrc2
    rsrc3 = descriptor.compute_pgm_rsrc3
    props = descriptor.kernel_code_properties
    return {
        ".amdhsa_group_segment_fixed_size": descriptor.group_segment_fixed_size,
        ".amdhsa_private_segment_fixed_size": descriptor.private_segment_fixed_size,
        ".amdhsa_kernarg_size": descriptor.kernarg_size,
        ".amdhsa_accum_offset": rsrc3.accum_offset_vgprs,
        ".amdhsa_tg_split": int(rsrc3.tg_split),
        ".amdhsa_float_round_mode_32": rsrc1.float_round_mode_32,
        ".amdhsa_float_round_mode_16_64": rsrc1.float_round_mode_16_64,
        ".amdhsa_float_denorm_mode_32": rsrc1.float_denorm_mode_32,
        ".amdhsa_float_denorm_mode_16_64": rsrc1.float_denorm_mode_16_64,
        ".amdhsa_dx10_clamp": int(rsrc1.enable_dx10_clamp),
        ".amdhsa_ieee_mode": int(rsrc1.enable_ieee_mode),
        ".amdhsa_fp16_overflow": int(rsrc1.fp16_ovfl),
        ".amdhsa_system_sgpr_private_segment_wavefront_offset": int(rsrc2.enable_private_segment),
        # Targets with architected flat scratch (gfx942) name the same RSRC2 bit this way.
        ".amdhsa_enable_private_segment": int(rsrc2.enable_private_segment),
        ".amdhsa_system_sgpr_workgroup_id_x": int(rsrc2.enable_sgpr_workgroup_id_x),
        ".amdhsa_system_sgpr_workgroup_id_y": int(rsrc2.enable_sgpr_workgroup_id_y),
        ".amdhsa_system_sgpr_workgroup_id_z": int(rsrc2.enable_sgpr_workgroup_id_z),
        ".amdhsa_system_sgpr_workgroup_info": int(rsrc2.enable_sgpr_workgroup_info),
        ".amdhsa_system_vgpr_workitem_id": rsrc2.enable_vgpr_workitem_id,
        ".amdhsa_exception_fp_ieee_invalid_op": int(
            rsrc2.enable_exception_ieee_754_fp_invalid_operation
        ),
        ".amdhsa_exception_fp_denorm_src": int(rsrc2.enable_exception_fp_denormal_source),
        ".amdhsa_exception_fp_ieee_div_zero": int(
            rsrc2.enable_exception_ieee_754_fp_division_by_zero
        ),
        ".amdhsa_exception_fp_ieee_overflow": int(rsrc2.enable_exception_ieee_754_fp_overflow),
        ".amdhsa_exception_fp_ieee_underflow": int(rsrc2.enable_exception_ieee_754_fp_underflow),
        ".amdhsa_exception_fp_ieee_inexact": int(rsrc2.enable_exception_ieee_754_fp_inexact),
        ".amdhsa_exception_int_div_zero": int(rsrc2.enable_exception_int_divide_by_zero),
        ".amdhsa_user_sgpr_private_segment_buffer": int(props.enable_sgpr_private_segment_buffer),
        ".amdhsa_user_sgpr_dispatch_ptr": int(props.enable_sgpr_dispatch_ptr),
        ".amdhsa_user_sgpr_queue_ptr": int(props.enable_sgpr_queue_ptr),
        ".amdhsa_user_sgpr_kernarg_segment_ptr": int(props.enable_sgpr_kernarg_segment_ptr),
        ".amdhsa_user_sgpr_dispatch_id": int(props.enable_sgpr_dispatch_id),
        ".amdhsa_user_sgpr_flat_scratch_init": int(props.enable_sgpr_flat_scratch_init),
        ".amdhsa_user_sgpr_private_segment_size": int(props.enable_sgpr_private_segment_size),
        ".amdhsa_uses_dynamic_stack": int(props.uses_dynamic_stack),
        ".amdhsa_user_sgpr_kernarg_preload_length": (
            descriptor.kernarg_preload.kernarg_preload_spec_length
        ),
        ".amdhsa_user_sgpr_kernarg_preload_offset": (
            descriptor.kernarg_preload.kernarg_preload_spec_offset
        ),
        ".amdhsa_user_sgpr_count": rsrc2.user_sgpr_count,
        ".amdhsa_next_free_sgpr": (rsrc1.granulated_wavefront_sgpr_count + 1) * 8,
    }


#: Directives llvm-objdump derives with a rule we do not model (it prints fixed values for
#: the reserve_* flags and recomputes the VGPR count from a target-dependent granule).
_DERIVED = {
    ".amdhsa_next_free_vgpr",
    ".amdhsa_reserve_vcc",
    ".amdhsa_reserve_flat_scratch",
    ".amdhsa_reserve_xnack_mask",
}


@needs_objdump
def test_kernel_descriptors_match_objdump(paths: list[Path]) -> None:
    checked = 0
    for path in paths:
        ours = read_code_object(path)
        if ours.elf_type is ElfType.ET_REL:
            continue  # llvm-objdump does not disassemble .rodata descriptors of ET_REL
        theirs = oracle.kernel_descriptor_directives(path)
        assert sorted(theirs) == sorted(k.name for k in ours.kernels), path
        for kernel in ours.kernels:
            expected = theirs[kernel.name]
            mine = descriptor_directives(kernel.descriptor)
            for directive, value in expected.items():
                if directive in _DERIVED:
                    continue
                assert directive in mine, f"{path}: {directive} is not modelled"
                assert mine[directive] == value, f"{path} {kernel.name} {directive}"
            checked += 1
    assert checked


def test_descriptors_round_trip_byte_exact(compiled_or_committed: list[Path]) -> None:
    for path in compiled_or_committed:
        ours = read_code_object(path)
        data = path.read_bytes()
        for kernel in ours.kernels:
            section = ours.sections[int(kernel.descriptor_symbol.section_index)]
            start = kernel.descriptor_symbol.value
            if ours.elf_type is ElfType.ET_DYN:
                start += section.offset - section.address
            else:
                start += section.offset
            raw = data[start : start + 64]
            assert kernel.descriptor.to_bytes() == raw
            assert KernelDescriptor.from_bytes(raw) == kernel.descriptor


@pytest.fixture
def compiled_or_committed(request: pytest.FixtureRequest) -> list[Path]:
    try:
        compiled: Compiled | None = request.getfixturevalue("compiled")
    except pytest.skip.Exception:
        compiled = None
    return _all_paths(compiled)


def test_entry_points_are_the_kernel_functions(compiled_or_committed: list[Path]) -> None:
    """The descriptor's code entry (or its REL64 in an ET_REL) lands on the kernel symbol."""
    kernels = 0
    for path in compiled_or_committed:
        ours = read_code_object(path)
        for kernel in ours.kernels:
            assert kernel.entry_address == kernel.function.value, (path, kernel.name)
            assert len(kernel.code) == kernel.function.size
            assert kernel.metadata is not None and kernel.metadata.symbol == kernel.name + ".kd"
            assert kernel.metadata.kernarg_segment_size == kernel.descriptor.kernarg_size
            assert (
                kernel.metadata.group_segment_fixed_size
                == kernel.descriptor.group_segment_fixed_size
            )
            kernels += 1
    assert kernels >= 27
