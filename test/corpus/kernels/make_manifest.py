"""Write MANIFEST.md for the kernel corpus: what each file is and what its kernels exercise.

    python make_manifest.py FOLDER -o FOLDER/MANIFEST.md
    python make_manifest.py --rdna ../rdna -o ../rdna/MANIFEST.md   # the RDNA corpus's

FOLDER holds the outputs of build.sh. Kernels come from the symbol tables (a kernel is a
function symbol NAME with an object symbol NAME.kd, its kernel descriptor), instruction counts
from llvm-objdump-19 -d, bundle entries from clang-offload-bundler-19, and what each kernel
exercises from the `// exercises:` comment above it in the .hip sources next to this script.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ("gfx908", "gfx90a", "gfx942")
# ELF e_ident[EI_ABIVERSION] of an AMDHSA object -> code object version.
ABI_VERSION_TO_COV = {2: 4, 3: 5, 4: 6}
INSTRUCTION = re.compile(r"//\s+([0-9A-F]{12}):")
KERNEL_COMMENT = re.compile(
    r'// exercises: (?P<what>.*)\n(?:.*\n)*?extern "C" __global__ void (?P<name>\w+)\('
)


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    size: int
    kind: str


@dataclass(frozen=True)
class ElfSummary:
    elf_type: str
    code_object_version: int
    target: str
    kernels: tuple[str, ...]
    instructions: int
    kernel_instructions: dict[str, int]


def run(*command: str) -> str:
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def symbols(path: Path) -> list[Symbol]:
    """The symbols of .symtab (a linked object repeats the kernels in .dynsym)."""
    found: list[Symbol] = []
    table = ""
    for line in run("llvm-readelf-19", "--symbols", "--wide", str(path)).splitlines():
        if line.startswith("Symbol table"):
            table = line.split("'")[1]
        fields = line.split()
        numbered = len(fields) == 8 and fields[0].endswith(":") and fields[0][:-1].isdigit()
        if table == ".symtab" and numbered:
            size = int(fields[2], 16) if fields[2].startswith("0x") else int(fields[2])
            found.append(Symbol(fields[7], int(fields[1], 16), size, fields[3]))
    return found


def kernels_of(syms: list[Symbol]) -> list[Symbol]:
    """Function symbols that have a NAME.kd kernel descriptor, in address order."""
    descriptors = {s.name[:-3] for s in syms if s.kind == "OBJECT" and s.name.endswith(".kd")}
    return sorted(
        (s for s in syms if s.kind == "FUNC" and s.name in descriptors),
        key=lambda s: (s.value, s.name),
    )


def header_field(header: str, field: str) -> str:
    match = re.search(rf"^\s*{field}:\s*(.*)$", header, re.MULTILINE)
    if match is None:
        raise ValueError(f"llvm-readelf-19 printed no {field!r}")
    return match.group(1).strip()


def summarize_elf(path: Path, targets: tuple[str, ...] = TARGETS) -> ElfSummary:
    header = run("llvm-readelf-19", "--file-header", str(path))
    elf_type = header_field(header, "Type").split()[0]
    abi_version = int(header_field(header, "ABI Version"))
    flags = header_field(header, "Flags")
    target = next((t for t in targets if t in flags), flags)
    addresses = [
        int(match.group(1), 16)
        for line in run("llvm-objdump-19", "-d", str(path)).splitlines()
        if (match := INSTRUCTION.search(line))
    ]
    kernels = kernels_of(symbols(path))
    per_kernel: dict[str, int] = {}
    if elf_type == "DYN":  # in a relocatable object every function starts at offset 0
        for kernel in kernels:
            end = kernel.value + kernel.size
            per_kernel[kernel.name] = sum(kernel.value <= a < end for a in addresses)
    return ElfSummary(
        elf_type=elf_type,
        code_object_version=ABI_VERSION_TO_COV.get(abi_version, -abi_version),
        target=target,
        kernels=tuple(k.name for k in kernels),
        instructions=len(addresses),
        kernel_instructions=per_kernel,
    )


def bundle_entries(path: Path) -> list[str]:
    listing = run("clang-offload-bundler-19", "--list", "--type=o", f"--input={path}")
    return [line.strip() for line in listing.splitlines() if line.strip()]


def unbundle(path: Path, entry: str, output: Path) -> None:
    run(
        "clang-offload-bundler-19",
        "--unbundle",
        "--type=o",
        f"--targets={entry}",
        f"--input={path}",
        f"--output={output}",
    )


def kernel_descriptions() -> dict[str, tuple[str, str]]:
    """Kernel name -> (source file, what it exercises)."""
    found: dict[str, tuple[str, str]] = {}
    for source in sorted(HERE.glob("*.hip")):
        for match in KERNEL_COMMENT.finditer(source.read_text()):
            found[match.group("name")] = (source.name, match.group("what").strip())
    return found


def kind_of(path: Path, summary: ElfSummary) -> str:
    if path.name.endswith(".mc.o"):
        return "relocatable (llvm-mc of the .s)"
    if ".preload." in path.name:
        return "linked (kernarg preload)"
    return {"DYN": "linked", "REL": "relocatable"}.get(summary.elf_type, summary.elf_type)


def row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def manifest(folder: Path) -> str:
    described = kernel_descriptions()
    clang = run("clang-19", "--version").splitlines()[0] if _has("clang-19") else "clang-19"
    files: list[str] = [
        "| file | target | kind | COV | bytes | instructions | kernels |",
        "|---|---|---|---|---|---|---|",
    ]
    linked: dict[tuple[str, str], ElfSummary] = {}
    kernel_count: dict[str, int] = dict.fromkeys(TARGETS, 0)
    paths = sorted(p for p in folder.iterdir() if p.suffix in {".co", ".o", ".hipfb", ".s"})
    for path in paths:
        size = path.stat().st_size
        if path.suffix in {".co", ".o"}:
            summary = summarize_elf(path)
            name_parts = path.name.split(".")
            if path.suffix == ".co" and len(name_parts) == 3:
                linked[(name_parts[0], summary.target)] = summary
                kernel_count[summary.target] += len(summary.kernels)
            files.append(
                row(
                    path.name,
                    summary.target,
                    kind_of(path, summary),
                    f"v{summary.code_object_version}",
                    size,
                    summary.instructions,
                    ", ".join(summary.kernels),
                )
            )
        elif path.suffix == ".hipfb":
            entries = bundle_entries(path)
            with tempfile.TemporaryDirectory() as scratch:
                parts: list[ElfSummary] = []
                for entry in entries:
                    if entry.startswith("host-"):
                        continue
                    out = Path(scratch) / "entry.co"
                    unbundle(path, entry, out)
                    parts.append(summarize_elf(out))
            kernels = sorted({k for part in parts for k in part.kernels})
            files.append(
                row(
                    path.name,
                    ", ".join(e.split("--")[-1] for e in entries if not e.startswith("host-")),
                    "bundle (" + ", ".join(entries) + ")",
                    "/".join(f"v{part.code_object_version}" for part in parts),
                    size,
                    " / ".join(str(part.instructions) for part in parts),
                    ", ".join(kernels),
                )
            )
        else:
            text = path.read_text()
            kernels = re.findall(r"^\s*\.amdhsa_kernel (\w+)", text, re.MULTILINE)
            target = next((t for t in TARGETS if f"--{t}" in text), "?")
            assembled = path.with_name(path.name[: -len(".s")] + ".mc.o")
            count = summarize_elf(assembled).instructions if assembled.exists() else "-"
            version = re.search(r"^\s*\.amdhsa_code_object_version (\d+)", text, re.MULTILINE)
            cov = f"v{version.group(1)}" if version else "?"
            files.append(row(path.name, target, "asm", cov, size, count, ", ".join(kernels)))
    kernels_table = [
        row("kernel", "source", "exercises", *(f"instructions {t}" for t in TARGETS)),
        "|---|---|---|" + "---|" * len(TARGETS),
    ]
    for name, (source, what) in sorted(described.items(), key=lambda kv: (kv[1][0], kv[0])):
        theme = source[: -len(".hip")]
        counts = [
            str(linked[(theme, t)].kernel_instructions.get(name, "missing"))
            if (theme, t) in linked
            else "-"
            for t in TARGETS
        ]
        kernels_table.append(row(name, source, what, *counts))
    total = sum(p.stat().st_size for p in paths)
    return "\n".join(
        [
            "# Kernel corpus",
            "",
            "Real AMDGPU code objects for the frontend's tests, built by `build.sh` from the HIP",
            "sources here (see its header for the flags and forms). Written by `make_manifest.py`;",
            "do not edit by hand.",
            "",
            f"- compiler: {clang}",
            "- code object version: clang-19's default is v5 (ELF ABI version 3, metadata",
            "  `amdhsa.version` 1.2); `elementwise.gfx90a.cov4.co` and",
            "  `elementwise.gfx942.cov6.co` are built with `-mcode-object-version=4` (ABI version",
            "  2, metadata 1.1) and `=6` (ABI version 4, metadata 1.2).",
            "- `elementwise.gfx942.preload.co` preloads kernel arguments into SGPRs (each",
            "  kernel starts with a 256-byte `s_trap 2` + `s_nop` block that firmware with",
            "  preload skips);",
            "  `elementwise.features.hipfb` bundles target IDs with features (`gfx90a:xnack+`,",
            "  `gfx942:sramecc-:xnack-`).",
            "- kernels: " + ", ".join(f"{kernel_count[t]} for {t}" for t in TARGETS)
            + " (in the `THEME.TARGET.co` files)",
            f"- {len(paths)} binary and assembly files, {total} bytes",
            "- instructions: every instruction llvm-objdump-19 -d decodes in the file, padding",
            "  after the last function included; for a `.s`, the count of its llvm-mc object; per",
            "  kernel (below), the instructions inside the kernel symbol of the linked `.co`",
            "  (`missing` where the source leaves the kernel out for that target).",
            "",
            "## Files",
            "",
            *files,
            "",
            "## Kernels",
            "",
            *kernels_table,
            "",
        ]
    )


def _has(tool: str) -> bool:
    try:
        subprocess.run([tool, "--version"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


#: The processors of the RDNA corpus (test/corpus/rdna/build.sh).
RDNA_TARGETS = ("gfx1030", "gfx1100", "gfx1201")


def rdna_manifest(folder: Path) -> str:
    """MANIFEST.md of the RDNA corpus (test/corpus/rdna): each object's target, wave size
    (``.w64.`` files are wave64), kind, size, instruction count and kernels; what each
    kernel exercises is this folder's manifest's."""
    clang = run("clang-19", "--version").splitlines()[0]
    files = ["| file | target | wave | kind | bytes | instructions | kernels |",
             "|---|---|---|---|---|---|---|"]
    paths = sorted(p for p in folder.iterdir() if p.suffix in {".co", ".o"})
    kernels = dict.fromkeys(RDNA_TARGETS, 0)
    for path in paths:
        summary = summarize_elf(path, RDNA_TARGETS)
        wave = 64 if ".w64." in path.name else 32
        kind = {"DYN": "linked", "REL": "relocatable"}.get(summary.elf_type, summary.elf_type)
        if path.suffix == ".co" and wave == 32 and summary.target in kernels:
            kernels[summary.target] += len(summary.kernels)
        files.append(row(path.name, summary.target, wave, kind, path.stat().st_size,
                         summary.instructions, ", ".join(summary.kernels)))
    total = sum(p.stat().st_size for p in paths)
    return "\n".join([
        "# RDNA kernel corpus",
        "",
        "The themes of `../kernels` compiled for RDNA by `build.sh` (see its header for the",
        "flags), in wave32 and wave64 (`.w64.`). Written by `../kernels/make_manifest.py",
        "--rdna`; do not edit by hand. What each kernel exercises is in",
        "`../kernels/MANIFEST.md`.",
        "",
        f"- compiler: {clang}",
        "- kernels per wave size: " + ", ".join(f"{kernels[t]} for {t}" for t in RDNA_TARGETS),
        f"- {len(paths)} files, {total} bytes",
        "- instructions: every instruction llvm-objdump-19 -d decodes in the file, padding",
        "  after the last function included.",
        "",
        "## Files",
        "",
        *files,
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--rdna", action="store_true",
                        help="the RDNA corpus's manifest (test/corpus/rdna)")
    args = parser.parse_args()
    folder: Path = args.folder
    output: Path = args.output
    output.write_text(rdna_manifest(folder) if args.rdna else manifest(folder))


if __name__ == "__main__":
    main()
