"""Offload bundles and HIP fat binaries: listing, selection, and agreement with the bundler."""

from __future__ import annotations

import struct
import subprocess

import pytest

from luthier.frontend.codeobj import (
    CodeObjectError,
    parse_bundle,
    read_bundle,
    read_code_object,
    read_code_objects,
    read_fatbin,
    split_fatbin,
)
from luthier.frontend.codeobj.bundle import BUNDLE_MAGIC

from . import oracle
from .conftest import COMMITTED, Compiled

needs_bundler = pytest.mark.skipif(
    not oracle.have(oracle.BUNDLER), reason=f"{oracle.BUNDLER} is not installed"
)


def make_bundle(entries: list[tuple[str, bytes]]) -> bytes:
    """A bundle laid out as the format describes: header, then the entries' bytes."""
    head = BUNDLE_MAGIC + struct.pack("<Q", len(entries))
    size = len(head) + sum(24 + len(entry_id) for entry_id, _ in entries)
    table, blobs = b"", b""
    for entry_id, data in entries:
        table += struct.pack("<QQQ", size + len(blobs), len(data), len(entry_id))
        table += entry_id.encode()
        blobs += data
    return head + table + blobs


def committed_pair() -> tuple[bytes, bytes]:
    by_name = {path.name: path.read_bytes() for path in COMMITTED}
    return by_name["vector_add.gfx90a.co"], by_name["vector_add.gfx942.co"]


def test_handmade_bundle_lists_and_selects() -> None:
    gfx90a, gfx942 = committed_pair()
    data = make_bundle(
        [
            ("host-x86_64-unknown-linux--", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a", gfx90a),
            ("hipv4-amdgcn-amd-amdhsa--gfx942", gfx942),
        ]
    )
    bundle = parse_bundle(data, "two.bundle")
    assert [entry.id for entry in bundle.entries] == [
        "host-x86_64-unknown-linux--",
        "hipv4-amdgcn-amd-amdhsa--gfx90a",
        "hipv4-amdgcn-amd-amdhsa--gfx942",
    ]
    assert [entry.target_id for entry in bundle.device_entries] == ["gfx90a", "gfx942"]
    assert bundle.select("gfx942").data == gfx942
    assert bundle.select("gfx90a:xnack+").data == gfx90a  # the entry leaves xnack open
    assert bundle.select("amdgcn-amd-amdhsa--gfx90a").data == gfx90a
    assert read_code_object(data, offload_arch="gfx942").target.processor == "gfx942"
    with pytest.raises(CodeObjectError, match="bundle holds: hipv4-amdgcn-amd-amdhsa--gfx90a"):
        bundle.select("gfx1100")
    with pytest.raises(CodeObjectError, match="choose a target with --offload-arch"):
        read_code_object(data, name="two.bundle")


def test_feature_specific_entries() -> None:
    gfx90a, _ = committed_pair()
    data = make_bundle(
        [
            ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", gfx90a),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", gfx90a + b"\0"),
        ]
    )
    bundle = parse_bundle(data, "features.bundle")
    assert bundle.select("gfx90a:xnack-").data == gfx90a + b"\0"
    assert bundle.select("gfx90a:xnack+").data == gfx90a
    with pytest.raises(CodeObjectError, match="matches several entries"):
        bundle.select("gfx90a")


def test_single_entry_bundle_needs_no_target() -> None:
    gfx90a, _ = committed_pair()
    data = make_bundle([("hipv4-amdgcn-amd-amdhsa--gfx90a", gfx90a)])
    assert read_code_object(data).kernels[0].name == "vector_add"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (BUNDLE_MAGIC, "truncated offload bundle header"),
        (BUNDLE_MAGIC + struct.pack("<Q", 1 << 40), "claims"),
        (BUNDLE_MAGIC + struct.pack("<QQQQ", 1, 0, 4, 99), "ID runs past the end"),
        (BUNDLE_MAGIC + struct.pack("<QQQQ", 1, 0, 999, 1) + b"x", "runs past the end"),
        (b"CCOB" + struct.pack("<HH", 9, 0) + bytes(20), "version 9 is not supported"),
        (b"CCOB" + struct.pack("<HHIQ", 1, 0, 5, 0) + b"junk", "corrupt zlib"),
        (b"CCOB\x02\x00", "truncated compressed"),
    ],
)
def test_bad_bundles(data: bytes, reason: str) -> None:
    with pytest.raises(CodeObjectError, match=reason) as caught:
        read_bundle(data, name="bad.bundle")
    assert str(caught.value).startswith("bad.bundle: ")


@pytest.mark.parametrize("method", [0, 1], ids=["zlib", "zstd"])
def test_a_decompression_bomb_stops_at_the_size_its_header_says(method: int) -> None:
    """200 MB of zeros in a few hundred kilobytes, declared as 1000 bytes: refused after
    1001 bytes of output, not after allocating the whole (was 2.1 GB for 1 MB of zlib)."""
    import resource
    import zlib

    chunk = bytes(1 << 20)  # made a megabyte at a time: the peak below is decompression's
    if method == 0:
        packer = zlib.compressobj(9)
        payload = b"".join(packer.compress(chunk) for _ in range(200)) + packer.flush()
    else:
        zstandard = pytest.importorskip("zstandard")
        stream = zstandard.ZstdCompressor().compressobj()
        payload = b"".join(stream.compress(chunk) for _ in range(200)) + stream.flush()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    data = b"CCOB" + struct.pack("<HHIQ", 1, method, 1000, 0) + payload
    with pytest.raises(CodeObjectError, match="decompresses to more than the 1000 bytes its "
                                              "header says"):
        read_bundle(data, name="bomb.hipfb")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 50_000, f"decompression took {grown_kib} KiB"


def test_a_declared_size_past_the_limit_is_refused_before_decompressing() -> None:
    data = b"CCOB" + struct.pack("<HHIIQ", 2, 1, 34, 0xFFFFFFFF, 0) + bytes(10)
    with pytest.raises(CodeObjectError, match="declares 4294967295 bytes uncompressed, more "
                                              "than the 2147483648 luthier reads"):
        read_bundle(data, name="big.hipfb")


def test_zlib_compressed_bundle() -> None:
    """Method 0 (zlib) in both header versions, as clang writes when built without zstd."""
    import zlib

    gfx90a, _ = committed_pair()
    plain = make_bundle([("hipv4-amdgcn-amd-amdhsa--gfx90a", gfx90a)])
    packed = zlib.compress(plain)
    v1 = b"CCOB" + struct.pack("<HHIQ", 1, 0, len(plain), 0) + packed
    v2_size = 24 + len(packed)
    v2 = b"CCOB" + struct.pack("<HHIIQ", 2, 0, v2_size, len(plain), 0) + packed
    for data in (v1, v2):
        assert read_code_object(data, offload_arch="gfx90a").kernels[0].name == "vector_add"


@needs_bundler
def test_compiled_bundle_agrees_with_bundler(compiled: Compiled) -> None:
    listed = oracle.run(oracle.BUNDLER, "--list", "--type=o", f"--input={compiled.bundle}")
    bundle = read_bundle(compiled.bundle)
    assert sorted(entry.id for entry in bundle.entries) == sorted(listed.split())
    for entry in bundle.device_entries:
        out = compiled.folder / f"{entry.target_id}.unbundled.co"
        subprocess.run(
            [oracle.BUNDLER, "--unbundle", "--type=o", f"--input={compiled.bundle}",
             f"--targets={entry.id}", f"--output={out}"],
            check=True,
        )  # fmt: skip
        assert out.read_bytes() == entry.data
        code_object = read_code_object(compiled.bundle, offload_arch=entry.target_id)
        assert code_object.target.processor == entry.target_id
        assert sorted(k.name for k in code_object.kernels) == ["_Z4fillPff", "_Z5scalePii"]


def test_host_object_fatbin(compiled: Compiled) -> None:
    bundle = read_bundle(compiled.host)
    assert sorted(entry.target_id for entry in bundle.device_entries) == ["gfx90a", "gfx942"]
    code_object = read_code_object(compiled.host, offload_arch="gfx942")
    assert code_object.target.processor == "gfx942"
    assert code_object.name.endswith("[hipv4-amdgcn-amd-amdhsa--gfx942]")


def test_compressed_clang_bundle(compiled: Compiled) -> None:
    """clang-19's --offload-compress writes zstd; without zstandard that is a clear error."""
    out = compiled.folder / "compressed.bundle"
    subprocess.run(
        [oracle.CLANG, "-x", "hip", "-nogpulib", "-nogpuinc", "--offload-device-only",
         "--offload-arch=gfx90a", "--offload-arch=gfx942", "--offload-compress", "-o", str(out),
         str(compiled.folder / "k.hip")],
        check=True, capture_output=True,
    )  # fmt: skip
    assert out.read_bytes()[:4] == b"CCOB"
    try:
        import zstandard  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]
    except ImportError:
        with pytest.raises(CodeObjectError, match="compressed offload bundles .* not supported"):
            read_code_object(out, offload_arch="gfx90a")
    else:
        assert read_code_object(out, offload_arch="gfx90a").target.processor == "gfx90a"


def test_linked_fatbin_has_a_bundle_per_translation_unit(compiled: Compiled) -> None:
    if compiled.linked_host is None:
        pytest.skip(f"{oracle.LINKER} is not installed; cannot link two host objects")
    bundles = read_fatbin(compiled.linked_host)
    assert len(bundles) == 2
    code_objects = read_code_objects(compiled.linked_host, offload_arch="gfx90a")
    assert [sorted(k.name for k in c.kernels) for c in code_objects] == [
        ["_Z4fillPff", "_Z5scalePii"],
        ["_Z5clearPff", "_Z5twicePii"],
    ]
    with pytest.raises(CodeObjectError, match="holds 2 offload bundles"):
        read_code_object(compiled.linked_host, offload_arch="gfx90a")


def test_split_fatbin_padding_and_garbage() -> None:
    gfx90a, gfx942 = committed_pair()
    first = make_bundle([("hipv4-amdgcn-amd-amdhsa--gfx90a", gfx90a)])
    second = make_bundle([("hipv4-amdgcn-amd-amdhsa--gfx942", gfx942)])
    padded = first + bytes(-len(first) % 4096) + second + bytes(100)
    assert [b.entries[0].target_id for b in split_fatbin(padded, "fatbin")] == [
        "gfx90a",
        "gfx942",
    ]
    with pytest.raises(CodeObjectError, match="unrecognised bytes at offset"):
        split_fatbin(first + b"\1junk", "fatbin")
    with pytest.raises(CodeObjectError, match="empty fat binary"):
        split_fatbin(bytes(64), "fatbin")
