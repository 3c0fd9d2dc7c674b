"""The kernel corpus (test/corpus/kernels) is current, well formed and what MANIFEST.md says.

The corpus holds HIP kernels compiled with clang-19 for gfx908, gfx90a and gfx942 as linked code
objects (.co), relocatable objects (.o), clang offload bundles (.hipfb) and assembly (.s) with
its llvm-mc object (.mc.o). Run test/corpus/kernels/build.sh after changing a source.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "test" / "corpus" / "kernels"
MANIFEST = CORPUS / "MANIFEST.md"
TARGETS = ("gfx908", "gfx90a", "gfx942")
# clang-19 writes code object v5 unless told otherwise: ELF ABI version 3, metadata 1.2.
DEFAULT_CODE_OBJECT_VERSION = 5
ABI_VERSION = {4: 2, 5: 3, 6: 4}
METADATA_VERSION = {4: (1, 1), 5: (1, 2), 6: (1, 2)}
MAX_CORPUS_BYTES = 3 * 1024 * 1024
MIN_KERNELS_PER_TARGET = 15


@dataclass(frozen=True)
class Entry:
    """One row of MANIFEST.md's file table."""

    name: str
    target: str
    kind: str
    code_object_version: str
    size: int
    kernels: tuple[str, ...]

    @property
    def path(self) -> Path:
        return CORPUS / self.name


def read_manifest() -> list[Entry]:
    entries: list[Entry] = []
    in_files = False
    for line in MANIFEST.read_text().splitlines():
        if line.startswith("## "):
            in_files = line == "## Files"
            continue
        if not in_files or not line.startswith("| ") or line.startswith("| file "):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        name, target, kind, cov, size, _instructions, kernels = cells
        entries.append(Entry(name, target, kind, cov, int(size), tuple(kernels.split(", "))))
    return entries


ENTRIES = read_manifest()
ELF_ENTRIES = [e for e in ENTRIES if e.name.endswith((".co", ".o"))]
RELOCATABLE = [e for e in ELF_ENTRIES if e.name.endswith(".o")]
BUNDLES = [e for e in ENTRIES if e.name.endswith(".hipfb")]
ASSEMBLY = [e for e in ENTRIES if e.name.endswith(".s")]


def ids(entries: list[Entry]) -> list[str]:
    return [e.name for e in entries]


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (scripts/setup.sh installs it)")


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, check=False, capture_output=True, text=True)


def checked(*command: str) -> str:
    done = run(*command)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stderr}"
    assert "warning" not in done.stderr and "error" not in done.stderr, done.stderr
    return done.stdout


def kernel_symbols(path: Path) -> list[str]:
    """Kernels in .symtab: function symbols NAME with an object symbol NAME.kd."""
    funcs: list[str] = []
    descriptors: set[str] = set()
    table = ""
    for line in checked("llvm-readelf-19", "--symbols", "--wide", str(path)).splitlines():
        if line.startswith("Symbol table"):
            table = line.split("'")[1]
        fields = line.split()
        if table != ".symtab" or len(fields) != 8 or not fields[0].rstrip(":").isdigit():
            continue
        kind, name = fields[3], fields[7]
        if kind == "FUNC":
            funcs.append(name)
        elif kind == "OBJECT" and name.endswith(".kd"):
            descriptors.add(name[: -len(".kd")])
    return [name for name in funcs if name in descriptors]


def unbundle(bundle: Path, target_id: str, output: Path) -> None:
    checked(
        "clang-offload-bundler-19",
        "--unbundle",
        "--type=o",
        f"--targets=hipv4-amdgcn-amd-amdhsa--{target_id}",
        f"--input={bundle}",
        f"--output={output}",
    )


# -- the manifest and the files agree ---------------------------------------------------------


def test_manifest_lists_every_file() -> None:
    kinds = (".co", ".o", ".hipfb", ".s")
    on_disk = sorted(p.name for p in CORPUS.iterdir() if p.name.endswith(kinds))
    assert sorted(ids(ENTRIES)) == on_disk
    for entry in ENTRIES:
        assert entry.path.stat().st_size == entry.size, f"{entry.name}: size differs from manifest"


def test_corpus_is_small_and_large_enough() -> None:
    assert sum(e.size for e in ENTRIES) < MAX_CORPUS_BYTES
    for target in TARGETS:
        linked = [e for e in ENTRIES if e.name.endswith(f".{target}.co") and e.kind == "linked"]
        default = [e for e in linked if e.name.count(".") == 2]
        count = sum(len(e.kernels) for e in default)
        assert count >= MIN_KERNELS_PER_TARGET, f"{target}: only {count} kernels"


def test_build_is_reproducible_and_current() -> None:
    """build.sh --check rebuilds everything in a temporary folder and compares the bytes."""
    need("clang-19", "llvm-mc-19", "llvm-readelf-19", "llvm-objdump-19", "clang-offload-bundler-19")
    done = run("bash", str(CORPUS / "build.sh"), "--check")
    assert done.returncode == 0, f"the corpus is stale, run build.sh:\n{done.stdout}{done.stderr}"


# -- LLVM's tools accept every object and see the manifest's kernels ----------------------------


@pytest.mark.parametrize("entry", ELF_ENTRIES, ids=ids(ELF_ENTRIES))
def test_llvm_tools_accept_object(entry: Entry) -> None:
    need("llvm-readelf-19", "llvm-objdump-19")
    checked("llvm-readelf-19", "--all", str(entry.path))
    disassembly = checked("llvm-objdump-19", "-d", str(entry.path))
    assert "<unknown>" not in disassembly, f"{entry.name}: llvm-objdump-19 cannot decode a word"


@pytest.mark.parametrize("entry", ELF_ENTRIES, ids=ids(ELF_ENTRIES))
def test_object_has_manifest_kernels(entry: Entry) -> None:
    need("llvm-readelf-19")
    assert kernel_symbols(entry.path) == list(entry.kernels)
    header = checked("llvm-readelf-19", "--file-header", str(entry.path))
    assert entry.target in header
    expected_type = "REL" if entry.name.endswith(".o") else "DYN"
    assert re.search(rf"Type:\s+{expected_type} ", header), f"{entry.name}: not ET_{expected_type}"


@pytest.mark.parametrize("entry", ELF_ENTRIES, ids=ids(ELF_ENTRIES))
def test_code_object_version(entry: Entry) -> None:
    need("llvm-readelf-19")
    version = int(entry.code_object_version.removeprefix("v"))
    if ".cov" not in entry.name:
        assert version == DEFAULT_CODE_OBJECT_VERSION, f"{entry.name}: clang-19's default changed"
    header = checked("llvm-readelf-19", "--file-header", str(entry.path))
    assert re.search(rf"ABI Version:\s+{ABI_VERSION[version]}$", header, re.MULTILINE)
    notes = checked("llvm-readelf-19", "--notes", str(entry.path))
    assert "NT_AMDGPU_METADATA" in notes
    major, minor = METADATA_VERSION[version]
    assert re.search(rf"amdhsa\.version:\s+- {major}\s+- {minor}\s", notes), notes[:2000]


@pytest.mark.parametrize("entry", RELOCATABLE, ids=ids(RELOCATABLE))
def test_relocatable_object_has_relocations(entry: Entry) -> None:
    need("llvm-readelf-19")
    relocations = checked("llvm-readelf-19", "--relocations", "--wide", str(entry.path))
    assert "Relocation section '.rela" in relocations, f"{entry.name}: no relocations"
    if entry.name.startswith("globals."):
        # s_getpc_b64 + s_add_u32/s_addc_u32 against each __device__ variable
        for variable in ("scale_factor", "call_counter", "lookup_table"):
            for kind in ("R_AMDGPU_REL32_LO", "R_AMDGPU_REL32_HI"):
                assert re.search(rf"{kind}\s+\S+\s+{variable}\b", relocations), (variable, kind)


def test_linked_function_pointer_table_is_relocated() -> None:
    need("llvm-readelf-19")
    for target in TARGETS:
        calls = CORPUS / f"calls.{target}.co"
        relocations = checked("llvm-readelf-19", "--relocations", str(calls))
        assert relocations.count("R_AMDGPU_RELATIVE64") == 3  # op_table's three entries


# -- bundles and assembly -----------------------------------------------------------------------


# Bundles of target IDs with features: the features llvm-readelf-19 shows in each entry's
# e_flags (a feature left out of the target ID is "any": plain `sramecc`).
FEATURE_BUNDLES = {
    "elementwise.features.hipfb": {
        "gfx90a:xnack+": ["xnack+", "sramecc"],
        "gfx942:sramecc-:xnack-": ["xnack-", "sramecc-"],
    },
}


@pytest.mark.parametrize("entry", BUNDLES, ids=ids(BUNDLES))
def test_bundle_holds_every_target(entry: Entry) -> None:
    """Each entry holds the kernels of that target's linked object (a source may leave a kernel
    out for a target, as mfma.hip does mfma_f64_16x16x4f64 on gfx908); the manifest's kernel
    list is their union."""
    need("clang-offload-bundler-19", "llvm-readelf-19")
    listing = checked("clang-offload-bundler-19", "--list", "--type=o", f"--input={entry.path}")
    target_ids = list(FEATURE_BUNDLES.get(entry.name, {t: [] for t in TARGETS}))
    assert sorted(listing.split()) == sorted(
        [f"hipv4-amdgcn-amd-amdhsa--{t}" for t in target_ids] + ["host-x86_64-unknown-linux--"]
    )
    assert entry.target == ", ".join(target_ids)
    theme = entry.name.split(".")[0]
    union: set[str] = set()
    with tempfile.TemporaryDirectory() as scratch:
        for target_id in target_ids:
            out = Path(scratch) / "entry.co"
            unbundle(entry.path, target_id, out)
            linked = CORPUS / f"{theme}.{target_id.split(':')[0]}.co"
            assert sorted(kernel_symbols(out)) == sorted(kernel_symbols(linked))
            union |= set(kernel_symbols(out))
            if entry.name in FEATURE_BUNDLES:
                flags = checked("llvm-readelf-19", "--file-header", str(out))
                flags = re.search(r"Flags:\s+(.*)$", flags, re.MULTILINE)
                assert flags is not None
                parts = flags.group(1).split(", ")
                assert parts[1] == target_id.split(":")[0]
                assert parts[2:] == FEATURE_BUNDLES[entry.name][target_id]
            else:
                # the bundle's code object is the one built for that target alone
                alone = CORPUS / f"{theme}.{target_id}.co"
                assert out.read_bytes() == alone.read_bytes()
    assert sorted(union) == sorted(entry.kernels)


@pytest.mark.parametrize("entry", ASSEMBLY, ids=ids(ASSEMBLY))
def test_assembly_reassembles_to_identical_bytes(entry: Entry) -> None:
    """llvm-mc-19 turns clang's .s into the committed .mc.o, byte for byte the same as .o."""
    need("llvm-mc-19")
    text = entry.path.read_text()
    assert re.findall(r"^\s*\.amdhsa_kernel (\w+)", text, re.MULTILINE) == list(entry.kernels)
    stem = entry.name.removesuffix(".s")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "out.o"
        checked(
            "llvm-mc-19",
            "-triple=amdgcn-amd-amdhsa",
            f"-mcpu={entry.target}",
            "-filetype=obj",
            "-o",
            str(out),
            str(entry.path),
        )
        assembled = out.read_bytes()
    assert assembled == (CORPUS / f"{stem}.mc.o").read_bytes()
    assert assembled == (CORPUS / f"{stem}.o").read_bytes()


def test_kernarg_preload_kernels_start_with_the_compatibility_block() -> None:
    """Each kernel of the preload object opens with s_trap 2 and 63 s_nop (256 bytes)."""
    need("llvm-objdump-19")
    path = CORPUS / "elementwise.gfx942.preload.co"
    disassembly = checked("llvm-objdump-19", "-d", str(path))
    kernels = [e for e in ENTRIES if e.name == path.name][0].kernels
    for kernel in kernels:
        body = disassembly.split(f"<{kernel}>:\n", 1)[1].splitlines()
        mnemonics = [line.split()[0] for line in body[:65]]
        assert mnemonics[0] == "s_trap" and mnemonics[1:64] == ["s_nop"] * 63, kernel
        assert mnemonics[64] != "s_nop", kernel
