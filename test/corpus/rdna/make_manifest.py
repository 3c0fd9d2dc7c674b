"""Write MANIFEST.md for the RDNA kernel corpus: each file's target, wave size, kind, size,
instruction count and kernels.

    python make_manifest.py FOLDER -o FOLDER/MANIFEST.md

FOLDER holds the outputs of build.sh. The facts come from llvm-readelf-19 and llvm-objdump-19
through the kernel corpus's own manifest script (../kernels/make_manifest.py), whose sources
and kernel descriptions these objects share.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "kernels"))

from make_manifest import row, run, summarize_elf  # noqa: E402

TARGETS = ("gfx1030", "gfx1100", "gfx1201")


def manifest(folder: Path) -> str:
    clang = run("clang-19", "--version").splitlines()[0]
    files = ["| file | target | wave | kind | bytes | instructions | kernels |",
             "|---|---|---|---|---|---|---|"]
    paths = sorted(p for p in folder.iterdir() if p.suffix in {".co", ".o"})
    kernels = dict.fromkeys(TARGETS, 0)
    for path in paths:
        summary = summarize_elf(path, TARGETS)
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
        "flags), in wave32 and wave64 (`.w64.`). Written by `make_manifest.py`; do not edit by",
        "hand. What each kernel exercises is in `../kernels/MANIFEST.md`.",
        "",
        f"- compiler: {clang}",
        "- kernels per wave size: " + ", ".join(f"{kernels[t]} for {t}" for t in TARGETS),
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
    args = parser.parse_args()
    args.output.write_text(manifest(args.folder))


if __name__ == "__main__":
    main()
