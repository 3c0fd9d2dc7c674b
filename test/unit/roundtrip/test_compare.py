"""compare_code_objects finds each kind of difference it promises to find."""

from __future__ import annotations

from pathlib import Path

from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.compare import compare_code_objects
from luthier.frontend.codeobj.model import CodeObject

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "kernels"
SAMPLE = CORPUS / "calls.gfx90a.co"


def _patched(offset: int, data: bytes) -> CodeObject:
    original = bytearray(SAMPLE.read_bytes())
    original[offset:offset + len(data)] = data
    return read_code_object(bytes(original), name="patched")


def test_an_object_equals_itself() -> None:
    original = read_code_object(SAMPLE)
    comparison = compare_code_objects(original, read_code_object(SAMPLE))
    assert comparison.identical
    functions = len(original.kernels) + len(original.device_functions)
    assert comparison.functions == comparison.identical_functions == functions
    assert comparison.descriptors == comparison.identical_descriptors == len(original.kernels)
    assert comparison.metadata_equivalent


def test_a_changed_instruction_word_is_a_function_difference() -> None:
    original = read_code_object(SAMPLE)
    kernel = original.kernels[1]
    text = original.text
    assert text is not None
    file_offset = next(s for s in original.sections if s.name == text.name).offset
    at = file_offset + kernel.function.value - text.address + 8
    word = SAMPLE.read_bytes()[at:at + 4]
    comparison = compare_code_objects(original, _patched(at, bytes(b ^ 0xFF for b in word)))
    assert [(d.kind, d.name) for d in comparison.differences] == [("function", kernel.name)]
    assert "1 of" in comparison.differences[0].detail and "+0x8" in comparison.differences[0].detail


def test_a_changed_descriptor_field_is_a_descriptor_difference() -> None:
    original = read_code_object(SAMPLE)
    kernel = original.kernels[0]
    rodata = next(s for s in original.sections if s.name == ".rodata")
    at = rodata.offset + kernel.descriptor_symbol.value - rodata.address
    # group_segment_fixed_size, the first field.
    comparison = compare_code_objects(original, _patched(at, (12345).to_bytes(4, "little")))
    assert [(d.kind, d.name, d.detail) for d in comparison.differences] == [
        ("descriptor", kernel.name, "fields differ")]


def test_a_moved_code_entry_is_a_descriptor_difference() -> None:
    original = read_code_object(SAMPLE)
    kernel = original.kernels[0]
    rodata = next(s for s in original.sections if s.name == ".rodata")
    at = rodata.offset + kernel.descriptor_symbol.value - rodata.address + 16
    entry = int.from_bytes(SAMPLE.read_bytes()[at:at + 8], "little", signed=True)
    comparison = compare_code_objects(
        original, _patched(at, (entry + 4).to_bytes(8, "little", signed=True)))
    assert len(comparison.differences) == 1
    assert comparison.differences[0].kind == "descriptor"
    assert "code entry points at" in comparison.differences[0].detail


def test_a_missing_kernel_is_named() -> None:
    original = read_code_object(SAMPLE)
    other = read_code_object(CORPUS / "scratch.gfx90a.co")
    comparison = compare_code_objects(original, other)
    kinds = {difference.kind for difference in comparison.differences}
    assert {"kernels", "functions", "metadata"} <= kinds
    assert not comparison.metadata_equivalent
    missing = {d.name for d in comparison.differences if d.kind == "kernels"}
    assert {kernel.name for kernel in original.kernels} <= missing
