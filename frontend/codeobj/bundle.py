"""Clang offload bundles and HIP fat binaries: find the code object for one target.

A bundle (what ``clang --offload-arch=... --offload-device-only`` or ``clang-offload-bundler``
writes, and what a host object's ``.hip_fatbin`` section holds) is, in little endian:
the 24-byte magic ``__CLANG_OFFLOAD_BUNDLE__``, a u64 entry count, then per entry a u64 offset,
u64 size, u64 ID length and the ID text (``hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+``,
``host-x86_64-unknown-linux--``); offsets are from the start of the bundle.

A compressed bundle starts with ``CCOB``, a u16 version and a u16 method (0 zlib, 1 zstd),
then (version 2, what clang-19 writes) a u32 total size, or (version 1) nothing, then a u32
uncompressed size and an 8-byte hash, then the compressed plain bundle. zlib needs only the
standard library; zstd (clang-19's default) needs the ``zstandard`` module, which is optional:
without it the error says so.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from elftools.elf.elffile import ELFFile  # pyright: ignore[reportMissingTypeStubs]

from luthier.amdgpu_dialects.target.target_id import TargetRequest
from luthier.frontend.codeobj.elf_format import align_up
from luthier.frontend.codeobj.errors import CodeObjectError

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_MAGIC = b"CCOB"
FATBIN_SECTION = ".hip_fatbin"
_U64 = struct.Struct("<Q")
_ENTRY_HEAD = struct.Struct("<QQQ")
#: Offload kinds whose entries are AMDGPU device code.
DEVICE_KINDS = ("hip", "hipv4", "openmp")


@dataclass(frozen=True)
class BundleEntry:
    """One entry of a bundle: its ID, where its bytes are, and the bytes."""

    id: str
    offset: int
    size: int
    data: bytes = field(repr=False)

    @property
    def kind(self) -> str:
        """The offload kind: ``hip``, ``hipv4``, ``openmp``, ``host``..."""
        return self.id.split("-", 1)[0]

    @property
    def triple(self) -> str:
        """``amdgcn-amd-amdhsa`` for device entries (the four fields after the kind)."""
        parts = self.id.split("-", 1)[1].split("--", 1)[0] if "-" in self.id else ""
        return parts

    @property
    def target_id(self) -> str:
        """What follows ``--``: ``gfx90a:xnack+`` (empty for the host entry)."""
        return self.id.split("--", 1)[1] if "--" in self.id else ""

    @property
    def is_device(self) -> bool:
        return (
            self.kind in DEVICE_KINDS and self.triple.startswith("amdgcn") and bool(self.target_id)
        )


@dataclass(frozen=True)
class BundleCompression:
    """How a ``CCOB`` bundle was compressed, so that a re-packed one is written alike."""

    #: :data:`ZLIB` or :data:`ZSTD`.
    method: int
    #: The header's version: 1 (no total size) or 2 (clang-19).
    version: int


ZLIB = 0
ZSTD = 1


@dataclass(frozen=True)
class OffloadBundle:
    """The entries of one bundle, with target selection by ``--offload-arch`` name."""

    path: str
    entries: tuple[BundleEntry, ...]
    #: Bytes of the input the bundle occupies (its compressed size for a CCOB bundle), which
    #: is where the next bundle of a fat binary may start.
    size: int = 0
    #: Where the bundle starts in its fat binary (0 for a bundle file).
    start: int = 0
    #: How it was compressed; None for a plain bundle.
    compression: BundleCompression | None = None

    @property
    def device_entries(self) -> tuple[BundleEntry, ...]:
        return tuple(entry for entry in self.entries if entry.is_device and entry.size)

    def matching(self, request: TargetRequest) -> tuple[BundleEntry, ...]:
        """The device entries for ``request``: the one whose target ID is exactly it, else
        every one whose processor matches and whose pinned features agree."""
        exact = [e for e in self.device_entries if TargetRequest.parse(e.target_id) == request]
        if len(exact) == 1:
            return (exact[0],)
        return tuple(
            entry
            for entry in self.device_entries
            if (offered := TargetRequest.parse(entry.target_id)) is not None
            and request.matches(offered)
        )

    def select(self, offload_arch: str) -> BundleEntry:
        """The device entry for ``offload_arch`` (``gfx90a``, ``gfx90a:xnack-``, a full ID).

        An exact target-ID match wins; otherwise the one entry whose processor matches and
        whose pinned features agree with the request. None or several: CodeObjectError
        listing what the bundle holds.
        """
        request = TargetRequest.parse(offload_arch)
        available = ", ".join(entry.id for entry in self.device_entries) or "none"
        if request is None:
            raise CodeObjectError(self.path, f"malformed target {offload_arch!r}")
        matching = self.matching(request)
        if len(matching) == 1:
            return matching[0]
        if not matching:
            raise CodeObjectError(
                self.path, f"no code object for target {offload_arch!r}; bundle holds: {available}"
            )
        raise CodeObjectError(
            self.path,
            f"target {offload_arch!r} matches several entries "
            f"({', '.join(e.id for e in matching)}); name the features too",
        )


def is_bundle(data: bytes) -> bool:
    return data.startswith(BUNDLE_MAGIC) or data.startswith(COMPRESSED_MAGIC)


def parse_bundle(data: bytes, path: str) -> OffloadBundle:
    """Parse a (possibly compressed) bundle at the start of ``data``; trailing bytes are
    ignored (a fat binary holds several bundles back to back)."""
    if data.startswith(COMPRESSED_MAGIC):
        plain, consumed = decompress_bundle(data, path)
        bundle = _parse_plain(plain, path)
        version, method = struct.unpack_from("<HH", data, 4)
        return OffloadBundle(path, bundle.entries, consumed,
                             compression=BundleCompression(method, version))
    return _parse_plain(data, path)


def _parse_plain(data: bytes, path: str) -> OffloadBundle:
    if not data.startswith(BUNDLE_MAGIC):
        raise CodeObjectError(path, "not a clang offload bundle (no __CLANG_OFFLOAD_BUNDLE__)")
    cursor = len(BUNDLE_MAGIC)
    if len(data) < cursor + _U64.size:
        raise CodeObjectError(path, "truncated offload bundle header")
    (count,) = _U64.unpack_from(data, cursor)
    cursor += _U64.size
    # Each entry needs at least its 24-byte head, which bounds a corrupt count cheaply.
    if count > (len(data) - cursor) // _ENTRY_HEAD.size:
        raise CodeObjectError(path, f"offload bundle claims {count} entries, more than fit")
    entries: list[BundleEntry] = []
    for index in range(count):
        if len(data) < cursor + _ENTRY_HEAD.size:
            raise CodeObjectError(path, f"truncated offload bundle entry {index}")
        offset, size, id_length = _ENTRY_HEAD.unpack_from(data, cursor)
        cursor += _ENTRY_HEAD.size
        if cursor + id_length > len(data):
            raise CodeObjectError(path, f"offload bundle entry {index}: ID runs past the end")
        raw_id = data[cursor : cursor + id_length]
        cursor += id_length
        try:
            entry_id = raw_id.decode("ascii")
        except UnicodeDecodeError as error:
            raise CodeObjectError(path, f"offload bundle entry {index}: ID is not ASCII") from error
        if offset + size > len(data):
            raise CodeObjectError(
                path,
                f"offload bundle entry {entry_id!r} (offset {offset}, size {size}) runs past "
                f"the end of the bundle ({len(data)} bytes)",
            )
        entries.append(BundleEntry(entry_id, offset, size, data[offset : offset + size]))
    end = max([cursor, *(entry.offset + entry.size for entry in entries)])
    return OffloadBundle(path, tuple(entries), end)


#: The most a compressed bundle may declare, or decompress to: 2 GiB, more than any device
#: code of one target in a library (a header that says more is a bomb or a corrupt file).
MAX_UNCOMPRESSED_BYTES = 1 << 31


def decompress_bundle(data: bytes, path: str) -> tuple[bytes, int]:
    """The plain bundle inside a ``CCOB`` compressed bundle, and the compressed size."""
    if len(data) < 8:
        raise CodeObjectError(path, "truncated compressed offload bundle header")
    version, method = struct.unpack_from("<HH", data, 4)
    if version == 1:
        header = struct.Struct("<4sHHIQ")
    elif version == 2:
        header = struct.Struct("<4sHHIIQ")
    else:
        raise CodeObjectError(path, f"compressed offload bundle version {version} is not supported")
    if len(data) < header.size:
        raise CodeObjectError(path, "truncated compressed offload bundle header")
    fields = header.unpack_from(data)
    uncompressed_size = fields[-2]
    if uncompressed_size > MAX_UNCOMPRESSED_BYTES:
        raise CodeObjectError(path, f"compressed offload bundle declares {uncompressed_size} "
                              f"bytes uncompressed, more than the {MAX_UNCOMPRESSED_BYTES} "
                              "luthier reads")
    end = fields[3] if version == 2 else len(data)
    if end > len(data) or end < header.size:
        raise CodeObjectError(path, f"compressed offload bundle size {end} is outside the file")
    payload = data[header.size : end]
    if method == ZLIB:
        try:
            # At most one byte more than the header says: a bomb stops there.
            plain = zlib.decompressobj().decompress(payload, uncompressed_size + 1)
        except zlib.error as error:
            raise CodeObjectError(path, f"corrupt zlib offload bundle ({error})") from error
    elif method == ZSTD:
        plain = _zstd_decompress(payload, uncompressed_size, path)
    else:
        raise CodeObjectError(path, f"compressed offload bundle method {method} is not supported")
    if len(plain) > uncompressed_size:
        raise CodeObjectError(path, "compressed offload bundle decompresses to more than the "
                              f"{uncompressed_size} bytes its header says")
    if len(plain) != uncompressed_size:
        raise CodeObjectError(path, f"compressed offload bundle decompressed to {len(plain)} "
                              f"bytes, its header says {uncompressed_size}")  # fmt: skip
    return plain, end


def _zstd_decompress(payload: bytes, size: int, path: str) -> bytes:
    try:
        zstandard = cast(Any, importlib.import_module("zstandard"))
    except ImportError as error:
        raise CodeObjectError(
            path,
            "compressed offload bundles (zstd, clang's --offload-compress) are not supported "
            "without the zstandard module: pip install zstandard, or rebuild without "
            "--offload-compress",
        ) from error
    try:
        # Read at most one byte more than the header says (a frame's own content size is
        # not trusted: decompress() would allocate it whole).
        with zstandard.ZstdDecompressor().stream_reader(payload) as reader:
            return bytes(reader.read(size + 1))
    except Exception as error:  # zstandard.ZstdError and friends
        raise CodeObjectError(path, f"corrupt zstd offload bundle ({error})") from error


def fatbin_section(data: bytes, path: str) -> bytes | None:
    """The ``.hip_fatbin`` section of a host ELF, or None when it has none."""
    try:
        elf = cast(Any, ELFFile(io.BytesIO(data)))
        section = elf.get_section_by_name(FATBIN_SECTION)
        if section is None:
            return None
        offset, size = int(section["sh_offset"]), int(section["sh_size"])
    except Exception as error:  # pyelftools raises many types on corrupt input
        reason = f"corrupt host ELF ({type(error).__name__}: {error})"
        raise CodeObjectError(path, reason) from error
    if offset + size > len(data):
        raise CodeObjectError(path, f"section {FATBIN_SECTION} runs past the end of the file")
    return data[offset : offset + size]


def split_fatbin(data: bytes, path: str) -> tuple[OffloadBundle, ...]:
    """Every bundle of a ``.hip_fatbin`` section.

    Linking several host objects concatenates their fat binaries, one bundle per translation
    unit, each aligned (4096 bytes by clang) with zero padding between them.
    """
    bundles: list[OffloadBundle] = []
    cursor = 0
    while cursor < len(data):
        start = cursor
        while start < len(data) and data[start] == 0:
            start += 1
        if start == len(data):
            break
        if not is_bundle(data[start:]):
            raise CodeObjectError(path, f"unrecognised bytes at offset {start} of the fat binary")
        bundle = replace(parse_bundle(data[start:], path), start=start)
        bundles.append(bundle)
        cursor = start + max(bundle.size, 1)
    if not bundles:
        raise CodeObjectError(path, "empty fat binary")
    return tuple(bundles)


# --- writing -----------------------------------------------------------------------------------

#: Where entries of a bundle and bundles of a fat binary start: at multiples of this. It is
#: what clang asks clang-offload-bundler for (``-bundle-align=4096``) and what the linker
#: keeps (each ``.hip_fatbin`` input section is 4096-aligned).
BUNDLE_ALIGNMENT = 4096
#: The zstd level that gives clang-19's own bytes back (``--offload-compress``).
ZSTD_LEVEL = 3


def pack_bundle(entries: Sequence[tuple[str, bytes]], alignment: int = BUNDLE_ALIGNMENT) -> bytes:
    """A plain bundle of ``entries`` (ID, bytes) in that order, laid out as
    clang-offload-bundler lays one out: the header, then each entry at the next multiple of
    ``alignment`` (an empty entry, the host entry of a device-only bundle, takes an offset
    and no bytes)."""
    raw_ids = [entry_id.encode("ascii") for entry_id, _ in entries]
    cursor = len(BUNDLE_MAGIC) + _U64.size + sum(_ENTRY_HEAD.size + len(raw) for raw in raw_ids)
    offsets: list[int] = []
    for _, data in entries:
        cursor = align_up(cursor, alignment)
        offsets.append(cursor)
        cursor += len(data)
    out = bytearray(BUNDLE_MAGIC + _U64.pack(len(entries)))
    for raw, (_, data), offset in zip(raw_ids, entries, offsets, strict=True):
        out += _ENTRY_HEAD.pack(offset, len(data), len(raw)) + raw
    for (_, data), offset in zip(entries, offsets, strict=True):
        out += bytes(offset - len(out))
        out += data
    return bytes(out)


def compress_bundle(plain: bytes, compression: BundleCompression, path: str) -> bytes:
    """``plain`` (a plain bundle) as a ``CCOB`` bundle compressed as ``compression`` says,
    with the header's truncated MD5 of the plain bytes, as clang writes it."""
    if compression.method == ZLIB:
        payload = zlib.compress(plain)
    elif compression.method == ZSTD:
        try:
            zstandard = cast(Any, importlib.import_module("zstandard"))
        except ImportError:
            raise CodeObjectError(path, "writing a zstd-compressed offload bundle needs the "
                                  "zstandard module: pip install zstandard") from None
        payload = bytes(zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(plain))
    else:
        raise CodeObjectError(path, f"compressed offload bundle method {compression.method} "
                              "is not supported")
    digest = hashlib.md5(plain, usedforsecurity=False).digest()[:8]
    if compression.version == 1:
        header = struct.pack("<4sHHI", COMPRESSED_MAGIC, 1, compression.method, len(plain))
    else:
        total = 4 + 2 + 2 + 4 + 4 + 8 + len(payload)
        if max(total, len(plain)) >= 1 << 32:
            raise CodeObjectError(path, f"a compressed offload bundle of {len(plain)} bytes "
                                  "does not fit the 32-bit sizes of its header")
        header = struct.pack("<4sHHII", COMPRESSED_MAGIC, 2, compression.method, total,
                             len(plain))
    return header + digest + payload


def _entry_alignment(bundle: OffloadBundle) -> int:
    """The alignment ``bundle``'s entries were laid out with: the largest power of two, at
    most :data:`BUNDLE_ALIGNMENT`, that divides every offset of an entry with bytes."""
    alignment = BUNDLE_ALIGNMENT
    for entry in bundle.entries:
        while entry.size and entry.offset % alignment:
            alignment //= 2
    return alignment


@dataclass(frozen=True)
class BundleMove:
    """Where one bundle of a fat binary went when the fat binary was packed again."""

    old_start: int
    old_size: int
    new_start: int
    #: Whether it kept its bytes (then every offset inside it moved with it).
    kept: bool

    def moved(self, offset: int) -> int | None:
        """Where ``offset`` (of the old fat binary) is now, if it is this bundle's start or,
        for a bundle that kept its bytes, inside it."""
        if offset == self.old_start:
            return self.new_start
        if self.kept and self.old_start <= offset < self.old_start + self.old_size:
            return self.new_start + offset - self.old_start
        return None


def repack_fatbin(fatbin: bytes, bundles: Sequence[OffloadBundle],
                  replaced: Mapping[tuple[int, str], bytes]) -> tuple[bytes, list[BundleMove]]:
    """``fatbin`` (a bundle file or a ``.hip_fatbin`` section, whose ``bundles`` these are)
    with the entries of ``replaced`` ((bundle index, entry ID) -> new bytes) swapped in, and
    where each bundle went.

    A bundle none of whose entries changed keeps its bytes; one that has is packed again
    in its entries' order and alignment, and compressed again as it was. The first bundle
    stays where it was; each other starts at the next multiple of :data:`BUNDLE_ALIGNMENT`.
    """
    out = bytearray()
    moves: list[BundleMove] = []
    for index, bundle in enumerate(bundles):
        changed = [entry.id for entry in bundle.entries
                   if replaced.get((index, entry.id), entry.data) != entry.data]
        if changed:
            plain = pack_bundle([(entry.id, replaced.get((index, entry.id), entry.data))
                                 for entry in bundle.entries], _entry_alignment(bundle))
            data = plain if bundle.compression is None else \
                compress_bundle(plain, bundle.compression, bundle.path)
        else:
            data = fatbin[bundle.start : bundle.start + bundle.size]
        start = bundle.start if index == 0 else align_up(len(out), BUNDLE_ALIGNMENT)
        out += bytes(start - len(out))
        moves.append(BundleMove(bundle.start, bundle.size, start, not changed))
        out += data
    return bytes(out), moves

