"""luthier reads and disassembles code objects that someone else compiled, as LLVM does.

The corpus is Debian bookworm's ROCm 5.x binaries (built by Debian with ROCm's clang 15, code
object v4): rocRAND's HIP kernels and the HSA runtime's OpenCL image blit kernels, for gfx90a
and gfx908. ``test/corpus/thirdparty/fetch.sh`` downloads the packages and extracts the code
objects into ``build/thirdparty/codeobjects/`` (``scripts/setup.sh`` runs it); see
``test/corpus/thirdparty/README.md``. Without the corpus these tests skip, except under CI
(``CI=true``), where a missing or stale corpus fails.

Per code object:

* disassembly: every instruction of every sized ``STT_FUNC`` symbol, decoded with luthier's
  decoder and printed with its printer, against ``llvm-objdump-19 -d --mcpu=<processor>``:
  the same instruction boundaries, bytes, text (before the ``//`` comment) and branch
  targets. Functions and bytes come from pyelftools, not from luthier's reader, so that a
  reader bug cannot hide a decoder disagreement;
* reading: ``read_code_object`` gives the kernels (with descriptors and metadata) and device
  functions that the symbol table lists.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from elftools.elf.elffile import ELFFile  # pyright: ignore[reportMissingTypeStubs]

from luthier.amdgpu_dialects.mc.decoder import DecodeError, decoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.frontend.codeobj import read_code_object

ROOT = Path(__file__).resolve().parents[2]
FETCH = ROOT / "test" / "corpus" / "thirdparty" / "fetch.sh"
OUT = ROOT / "build" / "thirdparty"
STAMP = OUT / ".stamp"
MANIFEST = OUT / "MANIFEST.txt"
CODE_OBJECTS = sorted((OUT / "codeobjects").glob("*/*.co"))
OBJDUMP = "llvm-objdump-19"
IN_CI = os.environ.get("CI") == "true"

#: Disagreements with llvm-objdump-19 that are known and reported to the decoder's owner, per
#: code object: "<function>+<offset>: <what differs>" exactly as the test words them. Empty:
#: luthier agrees with llvm-objdump-19 on every instruction of the corpus. A new disagreement
#: fails the test; so does one that went away (then remove it here).
KNOWN_DIFFERENCES: dict[str, list[str]] = {}

#: ``<text>  // <ADDRESS>: <WORDS> [<sym+0xoff>]``: an instruction line of ``llvm-objdump -d``.
OBJDUMP_LINE = re.compile(
    r"^\s+(?P<text>\S.*?)\s*//\s*(?P<address>[0-9A-Fa-f]+):(?P<words>(?:\s+[0-9A-Fa-f]{8})+)"
    r"(?:\s*<(?P<symbol>[^>+]+)(?:\+0x(?P<offset>[0-9a-fA-F]+))?>)?\s*$"
)


def require_corpus() -> None:
    """Skip without the corpus; under CI, fail."""
    if CODE_OBJECTS and STAMP.is_file():
        return
    message = f"no third-party corpus in {OUT}: run bash {FETCH.relative_to(ROOT)}"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def require_objdump() -> None:
    if shutil.which(OBJDUMP) is None:
        if IN_CI:
            pytest.fail(f"{OBJDUMP} is not installed (scripts/setup.sh installs it)")
        pytest.skip(f"{OBJDUMP} is not installed (scripts/setup.sh installs it)")


def ids(paths: list[Path]) -> list[str]:
    return [f"{path.parent.name}/{path.name}" for path in paths]


def processor_of(path: Path) -> str:
    """``librocrand.xnack-.gfx90a.co`` -> ``gfx90a``."""
    return path.name.split(".")[-2]


@dataclass(frozen=True)
class ObjdumpInstruction:
    """What llvm-objdump shows for one instruction."""

    text: str
    encoding: bytes
    #: The branch target llvm-objdump resolved, as (symbol, offset), if it printed one.
    target: tuple[str, int] | None


def objdump_instructions(path: Path, mcpu: str) -> dict[int, ObjdumpInstruction]:
    """llvm-objdump's instructions by address, text normalised to single spaces."""
    done = subprocess.run(
        [OBJDUMP, "-d", f"--mcpu={mcpu}", str(path)], check=False, capture_output=True, text=True
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    found: dict[int, ObjdumpInstruction] = {}
    for line in done.stdout.splitlines():
        match = OBJDUMP_LINE.match(line)
        if match is None:
            continue
        encoding = b"".join(int(w, 16).to_bytes(4, "little") for w in match["words"].split())
        target = None
        if match["symbol"] is not None:
            target = (match["symbol"], int(match["offset"] or "0", 16))
        found[int(match["address"], 16)] = ObjdumpInstruction(
            " ".join(match["text"].split()), encoding, target
        )
    return found


@dataclass(frozen=True)
class ElfView:
    """What pyelftools sees: sized functions in .text, symbol addresses, kernels."""

    functions: list[tuple[str, int, bytes]]
    addresses: dict[str, int]
    kernels: list[str]
    device_functions: list[str]


def elf_view(path: Path) -> ElfView:
    with path.open("rb") as stream:
        elf = cast(Any, ELFFile(stream))
        text = elf.get_section_by_name(".text")
        base, data = int(text["sh_addr"]), bytes(text.data())
        text_index = int(elf.get_section_index(".text"))
        functions: dict[int, tuple[str, int, bytes]] = {}
        addresses: dict[str, int] = {}
        names: list[str] = []
        descriptors: set[str] = set()
        for symbol in elf.get_section_by_name(".symtab").iter_symbols():
            name, value, size = str(symbol.name), int(symbol["st_value"]), int(symbol["st_size"])
            addresses[name] = value
            kind = symbol["st_info"]["type"]
            if kind == "STT_FUNC" and symbol["st_shndx"] == text_index and size > 0:
                functions.setdefault(value, (name, value, data[value - base : value - base + size]))
                names.append(name)
            elif kind == "STT_OBJECT" and name.endswith(".kd"):
                descriptors.add(name.removesuffix(".kd"))
    kernels = sorted(name for name in names if name in descriptors)
    others = sorted(name for name in names if name not in descriptors)
    return ElfView(sorted(functions.values(), key=lambda f: f[1]), addresses, kernels, others)


def descriptor_bytes(path: Path) -> dict[str, bytes]:
    """The 64 bytes of each ``<kernel>.kd`` symbol, by kernel name (through pyelftools)."""
    found: dict[str, bytes] = {}
    with path.open("rb") as stream:
        elf = cast(Any, ELFFile(stream))
        for symbol in elf.get_section_by_name(".symtab").iter_symbols():
            name = str(symbol.name)
            if symbol["st_info"]["type"] != "STT_OBJECT" or not name.endswith(".kd"):
                continue
            section = elf.get_section(int(symbol["st_shndx"]))
            start = int(symbol["st_value"]) - int(section["sh_addr"])
            found[name.removesuffix(".kd")] = bytes(section.data())[start : start + 64]
    return found


# -- the corpus is there and current ------------------------------------------------------------


def test_corpus_is_present_and_current() -> None:
    """fetch.sh ran with the packages and extract.py it now names, and MANIFEST.txt is right."""
    require_corpus()
    expected = subprocess.run(
        ["bash", str(FETCH), "--stamp"], check=True, capture_output=True, text=True
    ).stdout
    assert STAMP.read_text() == expected, f"stale corpus: run bash {FETCH.relative_to(ROOT)}"
    listed: dict[str, int] = {}
    for line in MANIFEST.read_text().splitlines():
        if line.startswith("codeobjects/"):
            name, size = line.split()[:2]
            listed[name] = int(size)
    on_disk = {str(path.relative_to(OUT)): path.stat().st_size for path in CODE_OBJECTS}
    assert listed == on_disk
    processors = {processor_of(path) for path in CODE_OBJECTS}
    assert "gfx90a" in processors, "the corpus should hold gfx90a code objects"
    assert {path.parent.name for path in CODE_OBJECTS} == {"librocrand1", "libhsa-runtime64-1"}


# -- disassembly: luthier and llvm-objdump-19 agree ---------------------------------------------


@pytest.mark.parametrize("path", CODE_OBJECTS, ids=ids(CODE_OBJECTS))
def test_disassembly_matches_llvm_objdump(path: Path) -> None:
    """Every instruction of every function: same boundaries, bytes, text and branch target."""
    require_corpus()
    require_objdump()
    mcpu = processor_of(path)
    decoder, printer = decoder_for(mcpu), printer_for(mcpu)
    expected = objdump_instructions(path, mcpu)
    view = elf_view(path)
    differences: list[str] = []
    checked = 0
    for name, start, data in view.functions:
        offset = 0
        while offset < len(data):
            address = start + offset
            want = expected.get(address)
            where = f"{name}+{offset:#x}"
            if want is None:
                differences.append(f"{where}: llvm-objdump has no instruction here")
                break
            try:
                inst = decoder.decode(data, offset, address)
            except DecodeError as error:
                differences.append(
                    f"{where}: luthier cannot decode {want.encoding.hex()} "
                    f"({error}), llvm-objdump: {want.text!r}"
                )
                offset += len(want.encoding)
                continue
            text = " ".join(printer.print(inst).split())
            if inst.encoding != want.encoding:
                differences.append(
                    f"{where}: luthier consumed {inst.encoding.hex()}, "
                    f"llvm-objdump {want.encoding.hex()}"
                )
            if text != want.text:
                differences.append(
                    f"{where}: {want.encoding.hex()}: luthier {text!r}, llvm-objdump {want.text!r}"
                )
            if want.target is not None and inst.desc.has("simm16"):
                simm16 = inst.operand("simm16")
                assert isinstance(simm16, int)
                simm16 = simm16 - (1 << 16) if simm16 & 0x8000 else simm16
                symbol, symbol_offset = want.target
                if address + 4 + 4 * simm16 != view.addresses[symbol] + symbol_offset:
                    differences.append(
                        f"{where}: branch target differs from <{symbol}+{symbol_offset:#x}>"
                    )
            checked += 1
            offset += inst.size
    in_functions = sum(
        1
        for address in expected
        if any(start <= address < start + len(data) for _, start, data in view.functions)
    )
    known = KNOWN_DIFFERENCES.get(f"{path.parent.name}/{path.name}", [])
    assert differences == known, (
        f"{len(differences)} differences in {checked} instructions (known: {len(known)}):\n"
        + "\n".join(differences[:40])
    )
    assert checked == in_functions, "llvm-objdump shows instructions luthier did not reach"
    assert checked > 1000


# -- reading: luthier's reader sees what the symbol table says ----------------------------------


@pytest.mark.parametrize("path", CODE_OBJECTS, ids=ids(CODE_OBJECTS))
def test_reader_reads_kernels_descriptors_and_metadata(path: Path) -> None:
    require_corpus()
    code_object = read_code_object(path)
    view = elf_view(path)
    assert code_object.target.processor == processor_of(path)
    assert code_object.code_object_version == 4  # ROCm 5.x's clang default
    assert sorted(kernel.name for kernel in code_object.kernels) == view.kernels
    assert sorted(f.symbol.name for f in code_object.device_functions) == view.device_functions
    metadata = code_object.metadata
    assert metadata is not None and metadata.target == code_object.target.target_id
    assert sorted(k.name for k in metadata.kernels) == view.kernels
    raw_descriptors = descriptor_bytes(path)
    for kernel in code_object.kernels:
        meta, descriptor = kernel.metadata, kernel.descriptor
        assert meta is not None, kernel.name
        assert kernel.entry_address == view.addresses[kernel.name], kernel.name
        assert descriptor.code_entry(kernel.descriptor_symbol.value) == kernel.entry_address
        assert kernel.code, kernel.name
        assert descriptor.to_bytes() == raw_descriptors[kernel.name], kernel.name
        assert descriptor.kernarg_size == meta.kernarg_segment_size, kernel.name
        assert descriptor.group_segment_fixed_size == meta.group_segment_fixed_size, kernel.name
        assert descriptor.private_segment_fixed_size == meta.private_segment_fixed_size
