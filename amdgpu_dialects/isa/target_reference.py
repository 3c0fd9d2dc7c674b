"""``docs/targets.md``: what differs per target, written from the target objects themselves
(every :class:`~luthier.amdgpu_dialects.target.subtarget.Subtarget` answer, and which ISA
tables exist), so the table cannot drift from what the passes ask.

    python -m luthier.amdgpu_dialects.isa.target_reference           # rewrite the file
    python -m luthier.amdgpu_dialects.isa.target_reference --check   # exit 1 when stale

``test/unit/amdgpu_dialects/isa/test_target_reference.py`` runs the check.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from pathlib import Path
from typing import cast

from luthier.amdgpu_dialects.isa.target import (
    EMULATED_TARGETS,
    LIFT_TARGETS,
    SUPPORTED_TARGETS,
    TABLE_TARGETS,
)
from luthier.amdgpu_dialects.target.generated_doc import generated_doc_main
from luthier.amdgpu_dialects.target.subtarget import (
    Subtarget,
    VectorRegisterFile,
    subtarget_for,
)

REFERENCE = Path("docs") / "targets.md"
#: Every processor a HIP user compiles for that the project aims at, in ISA order.
TARGETS = ("gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200", "gfx1201")


def _facts() -> list[tuple[str, str]]:
    """(property name, first docstring line) of every Subtarget property, in source order."""
    facts: list[tuple[str, str]] = []
    for name, member in vars(Subtarget).items():
        if isinstance(member, property) and not name.startswith("_"):
            doc = inspect.getdoc(member) or ""
            facts.append((name, " ".join(doc.split("\n\n")[0].split())))
    return facts


def _value(subtarget: Subtarget, name: str) -> str:
    value = getattr(subtarget, name)
    if isinstance(value, bool):
        return "yes" if value else "-"
    if value is None:
        return "-"
    if isinstance(value, tuple):
        return ", ".join(map(str, cast(tuple[object, ...], value)))
    if isinstance(value, VectorRegisterFile):
        return ", ".join(f"{field.name} {getattr(value, field.name)}"
                         for field in dataclasses.fields(value))
    return str(cast(object, value))


def reference() -> str:
    subtargets = [subtarget_for(name) for name in TARGETS]
    lines = [
        "# Targets: what differs per processor",
        "",
        "Written by `python -m luthier.amdgpu_dialects.isa.target_reference` from the target",
        "objects (`Subtarget`, `amdgpu_dialects/target/subtarget.py`) and the ISA tables; a test",
        "checks it is current. Every pass, emitter and the emulator ask these questions of the",
        "target object, never of a processor name.",
        "",
        "## Status",
        "",
        "| | " + " | ".join(TARGETS) + " |",
        "|---|" + "---|" * len(TARGETS),
        "| ISA family | " + " | ".join(f"GFX{s.major}" for s in subtargets) + " |",
        "| instruction tables (decode, print) | "
        + " | ".join("yes" if s.name in TABLE_TARGETS else "-" for s in subtargets) + " |",
        "| lift, print and parse IR, write back (wave32 and wave64) | "
        + " | ".join("yes" if s.name in LIFT_TARGETS else "-" for s in subtargets) + " |",
        "| emulate (luthier-run) | "
        + " | ".join("yes" if s.name in EMULATED_TARGETS else "-" for s in subtargets)
        + " |",
        "| instrument | "
        + " | ".join("yes" if s.name in SUPPORTED_TARGETS else "-" for s in subtargets)
        + " |",
        "",
        "A code object of any other processor is refused in one line naming its target and",
        "the supported ones; instrumenting or emulating code of a processor that is not",
        "instrumented or emulated yet is refused in one line naming the processors that are.",
        "",
        "True16 (GFX11+): `luthier-mc` decodes, prints and assembles what llvm-mc-19 does",
        "without `-mattr=+real-true16`. There `v_mov_b16` is the one instruction whose",
        "operands name 16-bit halves of VGPRs (`v_mov_b16_e32 v25.h, v4.l`): the IR spells",
        "them so, liveness counts a half in the unit of its VGPR (writing one keeps the other",
        "half, so it ends nothing), and the emulator runs its VOP1 form.",
        "",
        "Real true16 (what LLVM 21 and later compile for GFX11, GFX12 from 2026): the 16-bit",
        "VOP1/VOP2/VOPC encodings name halves (`v_fmac_f16_e32 v0.h, s2, v0.l`; bit 7 of an",
        "8-bit VGPR field is the high half of a VGPR below v128), which LLVM 19's default",
        "records refuse or misread (`v128/*Invalid register*/`). The tables hold a",
        "real-true16 twin of every such record, derived from it with the operand kinds of",
        "LLVM's real-true16 records (checked against every one LLVM 19 has); the lifter",
        "decodes a word with a twin when the default records refuse it or read a VGPR outside",
        "a 16-bit operand's class, and the IR parser accepts what the twins print. A twin has",
        "its default record's opcode number. Bits a record leaves undefined that a word sets",
        "(real true16's op_sel on `v_cndmask_b16`, which LLVM 19's record lacks) are kept on",
        "the op (`unmodelled_bits`, printed in its properties), so the word re-encodes to",
        "itself. The emulator runs halves, and op_sel kept in a VOP3 word's undefined bits;",
        "other undefined bits a word sets stop its run in one line. Test inputs:",
        "`test/corpus/real_true16` (clang-22 for gfx1100, llc-22 `-mattr=+real-true16` for",
        "gfx1201, wave32 and wave64, beside clang-19's fake16 builds of the same source).",
        "",
        "## Facts",
        "",
        "| fact | " + " | ".join(TARGETS) + " | meaning |",
        "|---|" + "---|" * len(TARGETS) + "---|",
    ]
    for name, doc in _facts():
        values = " | ".join(_value(s, name) for s in subtargets)
        lines.append(f"| `{name}` | {values} | {doc.replace('|', '/')} |")
    granules = " | ".join(
        f"{s.vgpr_encoding_granule(wave32=False)}"
        + (f" / {s.vgpr_encoding_granule(wave32=True)}" if s.major >= 10 else "")
        for s in subtargets)
    lines.append(f"| `vgpr_encoding_granule` | {granules} | VGPRs per "
                 "GRANULATED_WORKITEM_VGPR_COUNT step (wave64 / wave32) |")

    def vector_file(subtarget: Subtarget, wave32: bool) -> str:
        found = subtarget.vector_register_file(wave32)
        if found is None:
            return "-"
        return f"{found.occupancy_granule}, {found.total}, {found.max_waves}"

    files = " | ".join(vector_file(s, False) + (f" / {vector_file(s, True)}"
                                                 if s.major >= 10 else "")
                       for s in subtargets)
    lines.append(f"| `vector_register_file` | {files} | Occupancy: VGPRs per allocation "
                 "step, VGPRs per SIMD lane, most waves per SIMD (wave64 / wave32; "
                 "``getVGPRAllocGranule``, ``getTotalNumVGPRs``, ``getMaxWavesPerEU``) |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return generated_doc_main(argv, (__doc__ or "").splitlines()[0], REFERENCE, reference,
                              "luthier.amdgpu_dialects.isa.target_reference")


if __name__ == "__main__":
    sys.exit(main())
