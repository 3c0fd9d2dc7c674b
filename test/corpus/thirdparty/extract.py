"""Take the AMDGPU code objects out of extracted Debian packages with luthier's own reader.

``fetch.sh`` runs this after ``dpkg-deb -x``::

    python test/corpus/thirdparty/extract.py OUT PACKAGE=ROOT [PACKAGE=ROOT ...]

For every regular ELF file under each ROOT it finds code objects two ways:

* a host ELF with a ``.hip_fatbin`` section (HIP libraries such as rocRAND): every bundle
  entry, through ``read_fatbin`` (one offload bundle per translation unit);
* AMDGPU ELF images embedded byte for byte in a host library's data (the HSA runtime's image
  blit kernels): a scan for the 64-bit AMDGPU ELF header, the image's size taken from the
  furthest of its program headers, section headers and section contents (images that are
  entries of a fat binary found above are not listed twice).

Every code object found, whatever its target, is read with ``read_elf`` (that is the
reader's measurement); those for gfx90a, gfx908 and gfx942 are written to
``OUT/codeobjects/<package>/<library>.<tag>.<processor>.co``, ``<tag>`` being the target-ID
features of a bundle entry (``xnack-``, or ``any``) or ``at-0x<offset>`` for an embedded
image (and ``.<n>`` for the bundle of a multi-bundle fat binary). ``OUT/MANIFEST.txt`` lists
the files with size, target, kernel, device-function and instruction counts (instructions
decoded by luthier's decoder over every function symbol), and what the reader made of the
rest.
"""

from __future__ import annotations

import argparse
import struct
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from luthier.amdgpu_dialects.mc.decoder import DecodeError, decoder_for
from luthier.amdgpu_dialects.target.target_id import EM_AMDGPU, MACH_TO_PROCESSOR
from luthier.frontend.codeobj import CodeObject, CodeObjectError, read_elf, read_fatbin
from luthier.frontend.codeobj.elf import elf_machine

#: The processors whose code objects we keep (the ones luthier has ISA tables for).
KEPT_PROCESSORS = ("gfx90a", "gfx908", "gfx942")
#: ``\x7fELF``, ELFCLASS64, ELFDATA2LSB: the start of every AMDGPU code object.
ELF64_LE = b"\x7fELF\x02\x01"


@dataclass(frozen=True)
class Found:
    """One code object found in a package."""

    package: str
    library: str
    tag: str
    data: bytes

    @property
    def label(self) -> str:
        return f"{self.package}:{self.library}[{self.tag}]"


def embedded_elf_size(data: bytes, start: int) -> int | None:
    """The size of the ELF image at ``start``: its furthest header or section, or None."""
    try:
        (phoff, shoff) = struct.unpack_from("<QQ", data, start + 32)
        (phentsize, phnum, shentsize, shnum) = struct.unpack_from("<HHHH", data, start + 54)
        end = max(64, phoff + phentsize * phnum, shoff + shentsize * shnum)
        for index in range(shnum):
            header = start + shoff + index * shentsize
            (kind,) = struct.unpack_from("<I", data, header + 4)
            (offset, size) = struct.unpack_from("<QQ", data, header + 24)
            if kind != 8:  # SHT_NOBITS takes no file space
                end = max(end, offset + size)
        for index in range(phnum):
            header = start + phoff + index * phentsize
            (offset, _vaddr, _paddr, file_size) = struct.unpack_from("<QQQQ", data, header + 8)
            end = max(end, offset + file_size)
    except struct.error:
        return None
    return end if start + end <= len(data) else None


def embedded_images(data: bytes) -> list[tuple[int, bytes]]:
    """(file offset, bytes) of every AMDGPU ELF image inside a host ELF's contents."""
    images: list[tuple[int, bytes]] = []
    start = data.find(ELF64_LE, 1)
    while start >= 0:
        if elf_machine(data[start : start + 64]) == EM_AMDGPU:
            size = embedded_elf_size(data, start)
            if size is not None:
                images.append((start, data[start : start + size]))
        start = data.find(ELF64_LE, start + 1)
    return images


def find_code_objects(package: str, root: Path) -> list[Found]:
    """Every code object of the package's ELF files, in path order."""
    found: list[Found] = []
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        machine = elf_machine(data[:64])
        if machine is None or machine == EM_AMDGPU:
            continue
        library = path.name.split(".so")[0]
        try:
            bundles = read_fatbin(data, name=str(path))
        except CodeObjectError:
            bundles = ()
        for index, bundle in enumerate(bundles):
            suffix = f".{index}" if len(bundles) > 1 else ""
            for entry in bundle.device_entries:
                target_id = entry.id.split("--", 1)[1]
                features = ":".join(target_id.split(":")[1:]) or "any"
                found.append(Found(package, library, features + suffix, entry.data))
        in_bundles = {item.data for item in found}
        for offset, image in embedded_images(data):
            if image not in in_bundles:  # the fat binary's own entries are found again here
                found.append(Found(package, library, f"at-{offset:#x}", image))
    return found


def processor_of(image: bytes) -> str:
    """The processor named by e_flags' EF_AMDGPU_MACH (``mach-0x..`` when unknown)."""
    (flags,) = struct.unpack_from("<I", image, 48)
    return MACH_TO_PROCESSOR.get(flags & 0xFF, f"mach-{flags & 0xFF:#x}")


def count_instructions(code_object: CodeObject, processor: str) -> tuple[int, int]:
    """(instructions, words the decoder rejected) over every sized function symbol."""
    text = code_object.text
    if text is None:
        return 0, 0
    decoder = decoder_for(processor)
    functions = sorted(
        {
            (symbol.value, symbol.size)
            for symbol in code_object.symbols
            if symbol.type == "FUNC" and symbol.size > 0
        }
    )
    instructions = rejected = 0
    for start, size in functions:
        data = text.data[start - text.address : start - text.address + size]
        offset = 0
        while offset < len(data):
            try:
                offset += decoder.decode(data, offset, start + offset).size
                instructions += 1
            except DecodeError:
                offset += 4
                rejected += 1
    return instructions, rejected


#: MANIFEST.txt's columns.
HEADER = ("file", "bytes", "target", "cov", "kernels", "functions", "instructions", "bad_words")


def write(out: Path, item: Found, code_object: CodeObject, processor: str) -> tuple[str, ...]:
    """Write one kept code object; its MANIFEST.txt row."""
    name = f"{item.library}.{item.tag}.{processor}.co"
    path = out / "codeobjects" / item.package / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(item.data)
    instructions, rejected = count_instructions(code_object, processor)
    metadata = code_object.metadata
    kernels = len(code_object.kernels)
    if metadata is None or len(metadata.kernels) != kernels:
        raise SystemExit(
            f"error: {item.label}: {kernels} kernels, metadata lists "
            f"{0 if metadata is None else len(metadata.kernels)}"
        )
    return (
        f"codeobjects/{item.package}/{name}",
        str(len(item.data)),
        code_object.target.offload_arch,
        f"v{code_object.code_object_version}",
        str(kernels),
        str(len(code_object.device_functions)),
        str(instructions),
        str(rejected),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Extract AMDGPU code objects from unpacked Debian packages."
    )
    parser.add_argument("out", type=Path, help="output folder (build/thirdparty)")
    parser.add_argument("packages", nargs="+", metavar="PACKAGE=ROOT")
    args = parser.parse_args(argv)
    out: Path = args.out
    rows: list[tuple[str, ...]] = [HEADER]
    read_ok: Counter[str] = Counter()
    rejected: list[str] = []
    for spec in args.packages:
        package, _, root = str(spec).partition("=")
        found = find_code_objects(package, Path(root))
        if not found:
            print(f"error: no AMDGPU code object in {package}", file=sys.stderr)
            return 1
        for item in found:
            processor = processor_of(item.data)
            try:
                code_object = read_elf(item.data, item.label)
            except CodeObjectError as error:
                rejected.append(f"{item.label} ({processor}): {error.reason}")
                continue
            read_ok[processor] += 1
            if processor in KEPT_PROCESSORS:
                rows.append(write(out, item, code_object, processor))
    if len(rows) == 1:
        print("error: no gfx90a/gfx908/gfx942 code object found", file=sys.stderr)
        return 1
    widths = [max(len(row[column]) for row in rows) for column in range(len(HEADER))]
    read = ", ".join(f"{processor} {count}" for processor, count in sorted(read_ok.items()))
    lines = [
        "# Third-party AMDGPU code objects: test/corpus/thirdparty/fetch.sh and extract.py",
        f"# reader: {sum(read_ok.values())} code objects of all targets read ({read})",
        f"# reader: {len(rejected)} rejected",
        *(f"#   {line}" for line in rejected),
        *(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows
        ),
    ]
    (out / "MANIFEST.txt").write_text("\n".join(lines) + "\n")
    print(f"extract.py: {len(rows) - 1} code objects in {out / 'codeobjects'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
