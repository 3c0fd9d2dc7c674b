"""The AMDGPU metadata note: typed view, and a round trip that keeps every key."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import msgpack  # pyright: ignore[reportMissingTypeStubs]
import pytest

from luthier.frontend.codeobj import CodeObjectMetadata, read_code_object
from luthier.frontend.codeobj.metadata import MetadataFormatError
from luthier.frontend.codeobj.notes import NT_AMDGPU_METADATA, parse_notes

from .conftest import COMMITTED


def metadata_note(data: bytes, offset: int, size: int) -> bytes:
    notes = parse_notes(data[offset : offset + size])
    assert not isinstance(notes, str)
    return next(note.desc for note in notes if note.type == NT_AMDGPU_METADATA)


@pytest.mark.parametrize("path", COMMITTED, ids=lambda path: path.name)
def test_round_trip_is_byte_exact(path: Path) -> None:
    code_object = read_code_object(path)
    assert code_object.metadata is not None
    note = code_object.section(".note")
    assert note is not None
    original = metadata_note(path.read_bytes(), note.offset, note.size)
    # msgpack's encoder picks the same smallest encodings LLVM's does, so the bytes agree;
    # equivalence (same map after decoding) is what the runtime needs.
    assert code_object.metadata.to_msgpack() == original
    again = CodeObjectMetadata.from_msgpack(code_object.metadata.to_msgpack())
    assert again == code_object.metadata and again.raw == code_object.metadata.raw


def test_typed_view_of_the_sample() -> None:
    sample = next(path for path in COMMITTED if path.name == "vector_add.gfx90a.co")
    metadata = read_code_object(sample).metadata
    assert metadata is not None
    assert metadata.version == (1, 2)
    assert metadata.target == "amdgcn-amd-amdhsa--gfx90a"
    (kernel,) = metadata.kernels
    assert (kernel.name, kernel.symbol) == ("vector_add", "vector_add.kd")
    assert kernel.wavefront_size == 64 and kernel.agpr_count == 0
    assert kernel.kernarg_segment_size == 288
    assert [arg.value_kind for arg in kernel.args[:4]] == ["global_buffer"] * 3 + ["by_value"]
    assert [arg.offset for arg in kernel.args[:4]] == [0, 8, 16, 24]
    assert metadata.kernel("vector_add") is kernel
    assert metadata.kernel("vector_add.kd") is kernel


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (b"\xc1", "malformed metadata msgpack"),
        (b"\x93\x01\x02\x03", "expected a map"),
        ({"amdhsa.version": "1.2"}, "amdhsa.version"),
        ({"amdhsa.version": [1, 2], "amdhsa.kernels": {}}, "not an array"),
        ({"amdhsa.version": [1, 2], "amdhsa.kernels": [{".name": "k"}]}, "lacks .name or"),
        (
            {"amdhsa.version": [1, 2], "amdhsa.kernels": [
                {".name": "k", ".symbol": "k.kd", ".args": [{".offset": 0}]}]},
            "lacks .offset",
        ),
        (
            {"amdhsa.version": [1, 2], "amdhsa.kernels": [
                {".name": "k", ".symbol": "k.kd", ".sgpr_count": "many"}]},
            "expected an integer",
        ),
    ],
)  # fmt: skip
def test_malformed_metadata(value: object, reason: str) -> None:
    data = value if isinstance(value, bytes) else bytes(cast(Any, msgpack).packb(value))
    with pytest.raises(MetadataFormatError, match=reason):
        CodeObjectMetadata.from_msgpack(data)


def test_unknown_keys_survive() -> None:
    raw = {"amdhsa.version": [1, 2], "vendor.extra": {"x": [1, "y"]}, "amdhsa.kernels": []}
    metadata = CodeObjectMetadata.from_raw(raw)
    assert CodeObjectMetadata.from_msgpack(metadata.to_msgpack()).raw == raw
