#!/usr/bin/env python3
"""The compiler's own block live-in lists for the kernel corpora, at code offsets.

Our liveness analysis must never call a register dead that the compiler knows is live. The
compiler knows: after register allocation every machine basic block carries the physical
registers live on entry (``liveins:`` in MIR). This script recompiles each HIP source of
``test/corpus/kernels`` with the exact flags of ``test/corpus/kernels/build.sh`` (GFX9), and
of ``test/corpus/rdna`` with those of ``test/corpus/rdna/build.sh`` (RDNA, wave32 and, with
``-mwavefrontsize64``, wave64), prints the
machine IR after the last machine-function pass that runs before the AMDGPU assembly printer
(``stack-frame-layout``; see README.md for why that one), and maps every MIR block to the
code offset of its first instruction inside its function, so a test can ask our analysis for
the live set at exactly that point of the corpus ``.co``.

The mapping goes through the ``.s`` that the same clang run writes: the printer marks every
block with a ``.LBB<f>_<n>:`` label or a ``; %bb.<n>:`` comment, in MIR block order. We put a
label of our own in front of each block's first instruction, assemble with llvm-mc-19 and read
the labels' offsets. That is only trusted after a check: the assembled ``.text`` must equal the
corpus ``.o``'s, and each assembled function must have the corpus ``.co``'s instructions at the
same offsets (equal bytes outside relocated fields, or the same instruction where clang's
printer drops bits; see ``compare_code``); otherwise the script fails, because offsets into
different code would be meaningless.

    python3 test/corpus/liveness/make_liveins.py           # rewrite <theme>.<target>[.w64].json
    python3 test/corpus/liveness/make_liveins.py --check   # regenerate into a temp dir, diff
    python3 test/corpus/liveness/make_liveins.py --keep DIR  # also keep the .s/.mir files

Needs clang-19 and llvm-mc-19. The luthier package (installed editable) reads the objects.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from luthier.amdgpu_dialects.mc.decoder import Decoder, decoder_for
from luthier.amdgpu_dialects.mc.relocations import relocation_kind
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.model import CodeObject

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
KERNELS = ROOT / "test" / "corpus" / "kernels"
RDNA = ROOT / "test" / "corpus" / "rdna"
TARGETS = ("gfx908", "gfx90a", "gfx942")
#: Must stay equal to CLANG_FLAGS in both corpora's build.sh (checked at run time), or the
#: code we describe would not be the code in the corpus.
CLANG_FLAGS = ("-x", "hip", "--offload-device-only", "-nogpulib", "-nogpuinc", "-O2")
#: The flag test/corpus/rdna/build.sh compiles its ``.w64`` objects with (checked too).
WAVE64_FLAG = "-mwavefrontsize64"


@dataclass(frozen=True)
class Variant:
    """One compilation of the themes: a corpus folder, a processor, a wave size."""

    corpus: Path
    target: str
    #: ``""`` or ``".w64"``: what the corpus file names carry after the processor.
    suffix: str
    #: Extra clang flags (``-mwavefrontsize64``); the llvm-mc feature that goes with them.
    flags: tuple[str, ...]
    mattr: tuple[str, ...]
    #: The wave size written into the JSON (RDNA files only: GFX9's files predate it and
    #: have one wave size), None to leave the field out.
    wavefront_size: int | None

    @property
    def stem(self) -> str:
        return f"{self.target}{self.suffix}"


def variants() -> list[Variant]:
    """GFX9 in wave64; each RDNA processor in wave32 and in wave64, as the corpora hold."""
    found = [Variant(KERNELS, target, "", (), (), None) for target in TARGETS]
    for target in _build_array(RDNA, "TARGETS"):
        found.append(Variant(RDNA, target, "", (), (), 32))
        found.append(Variant(RDNA, target, ".w64", (WAVE64_FLAG,), ("+wavefrontsize64",), 64))
    return found


def _build_array(corpus: Path, name: str) -> tuple[str, ...]:
    """``NAME=(a b c)`` of ``corpus/build.sh``."""
    script = (corpus / "build.sh").read_text()
    match = re.search(rf"^{name}=\((.*)\)$", script, re.MULTILINE)
    if match is None:
        raise OracleError(f"{corpus.relative_to(ROOT)}/build.sh has no {name}=(...)")
    return tuple(match[1].split())
#: The last machine-function pass before the assembly printer whose dump still has block
#: live-ins (README.md says how it was found).
PRINT_AFTER = "stack-frame-layout"
#: Prefix of the labels we insert; a non-``.L`` name so that llvm-mc keeps it in the symtab.
LABEL_PREFIX = "__luthier_liveins_"


#: Per function name, its block rows as written to the JSON.
Rows = dict[str, list[dict[str, object]]]


def _patched_size(relocation_type: int) -> int:
    """Bytes a relocation patches; 8 (the widest) for a type we do not know."""
    kind = relocation_kind(relocation_type)
    return kind.size if kind is not None else 8


class OracleError(Exception):
    """The oracle cannot be built faithfully (wrong flags, code mismatch, unknown register)."""


# ---------------------------------------------------------------------------------------
# MIR register names -> LLVM assembly register names
# ---------------------------------------------------------------------------------------

#: MIR name prefix of numbered register files -> assembly prefix.
_FILES = {"sgpr": "s", "vgpr": "v", "agpr": "a", "ttmp": "ttmp"}
#: Special 32-bit (or 1-bit) registers: MIR name -> assembly name.
_SPECIAL_32 = {
    "vcc_lo": "vcc_lo",
    "vcc_hi": "vcc_hi",
    "exec_lo": "exec_lo",
    "exec_hi": "exec_hi",
    "flat_scr_lo": "flat_scratch_lo",
    "flat_scr_hi": "flat_scratch_hi",
    "xnack_mask_lo": "xnack_mask_lo",
    "xnack_mask_hi": "xnack_mask_hi",
    "tba_lo": "tba_lo",
    "tba_hi": "tba_hi",
    "tma_lo": "tma_lo",
    "tma_hi": "tma_hi",
    "scc": "scc",
    "m0": "m0",
    "sgpr_null": "null",
}
#: Special 64-bit registers: MIR name -> (assembly name, low half, high half).
_SPECIAL_64 = {
    "vcc": ("vcc", "vcc_lo", "vcc_hi"),
    "exec": ("exec", "exec_lo", "exec_hi"),
    "flat_scr": ("flat_scratch", "flat_scratch_lo", "flat_scratch_hi"),
    "xnack_mask": ("xnack_mask", "xnack_mask_lo", "xnack_mask_hi"),
    "tba": ("tba", "tba_lo", "tba_hi"),
    "tma": ("tma", "tma_lo", "tma_hi"),
    "sgpr_null64": ("null", "null", "null"),
}
_NUMBERED = re.compile(r"(sgpr|vgpr|agpr|ttmp)(\d+)")
_HALF = re.compile(r"(sgpr|vgpr|agpr|ttmp)(\d+)_(lo16|hi16)")
_SPECIAL_HALF = re.compile(r"(\w+?)_(lo16|hi16)")


@dataclass
class Converted:
    """One block's live-ins in assembly syntax, plus the 32-bit registers only half-live."""

    names: set[str] = field(default_factory=lambda: set[str]())
    #: 32-bit register (assembly name) -> "lo16" or "hi16" when only that half is live.
    halves: dict[str, str] = field(default_factory=lambda: dict[str, str]())

    def add_half(self, unit: str, half: str) -> None:
        """Record ``unit`` as live (we work at 32-bit granularity) and which half it was."""
        self.names.add(unit)
        if self.halves.get(unit, half) != half:
            del self.halves[unit]  # both halves live: the whole register, no note needed
            return
        if not any(unit in _units_of(name) for name in self.names - {unit}):
            self.halves[unit] = half


def _units_of(name: str) -> tuple[str, ...]:
    """32-bit units of an assembly name we produce (only used to drop redundant half notes)."""
    match = re.fullmatch(r"(s|v|a|ttmp)\[(\d+):(\d+)\]", name)
    if match is None:
        return (name,)
    return tuple(f"{match[1]}{i}" for i in range(int(match[2]), int(match[3]) + 1))


def _run_name(prefix: str, first: int, last: int) -> str:
    return f"{prefix}{first}" if first == last else f"{prefix}[{first}:{last}]"


def convert_livein(text: str, out: Converted) -> None:
    """Add one MIR live-in (``$sgpr4_sgpr5``, ``$vgpr0_vgpr1:0x000000000000000C``) to ``out``.

    A lane mask narrows a tuple to the sub-registers it covers: on AMDGPU every 32-bit part
    ``sub<i>`` of a register has two lane bits, ``0x3 << 2i``, of which the lower one is its
    *hi16* half and the upper one its *lo16* half (``SubRegIndexLaneMaskTable`` that
    ``llvm-tblgen-19 -gen-register-info`` makes from ``AMDGPU.td``: ``hi16`` 0x1, ``lo16`` 0x2,
    ``sub1`` 0xC, ``sub1_hi16`` 0x4, ``sub1_lo16`` 0x8). So ``$vgpr0_vgpr1:0xC`` is ``v1`` and
    ``$sgpr0_sgpr1_sgpr2_sgpr3:0xF0`` is ``s[2:3]``. Unknown register kinds raise, so a new
    kind is looked at by a person before it lands in the data.
    """
    reg, _, mask_text = text.partition(":")
    if not reg.startswith("$"):
        raise OracleError(f"live-in {text!r} is not a physical register")
    reg = reg[1:]
    parts = reg.split("_")
    numbered = [_NUMBERED.fullmatch(part) for part in parts]
    if all(match is not None for match in numbered):
        matches = [match for match in numbered if match is not None]
        kinds = {match[1] for match in matches}
        indices = [int(match[2]) for match in matches]
        if len(kinds) != 1 or indices != list(range(indices[0], indices[0] + len(indices))):
            raise OracleError(f"live-in {text!r}: not a contiguous register tuple")
        prefix = _FILES[kinds.pop()]
        _add_masked(
            out,
            [f"{prefix}{i}" for i in indices],
            mask_text,
            text,
            lambda a, b: _run_name(prefix, indices[a], indices[b]),
        )
        return
    half = _HALF.fullmatch(reg)
    if half is not None:
        _no_mask(mask_text, text)
        out.add_half(f"{_FILES[half[1]]}{half[2]}", half[3])
        return
    if reg in _SPECIAL_32:
        special = _SPECIAL_32[reg]
        _add_masked(out, [special], mask_text, text, lambda a, b: special)
        return
    if reg in _SPECIAL_64:
        whole, low, high = _SPECIAL_64[reg]
        _add_masked(
            out,
            [low, high],
            mask_text,
            text,
            lambda a, b: whole if (a, b) == (0, 1) else (low, high)[a],
        )
        return
    special_half = _SPECIAL_HALF.fullmatch(reg)
    if special_half is not None and special_half[1] in _SPECIAL_32:
        _no_mask(mask_text, text)
        out.add_half(_SPECIAL_32[special_half[1]], special_half[2])
        return
    raise OracleError(f"live-in {text!r}: register kind not known to make_liveins.py")


def _no_mask(mask_text: str, text: str) -> None:
    if mask_text:
        raise OracleError(f"live-in {text!r}: a lane mask on a 16-bit register is not handled")


def _add_masked(
    out: Converted,
    units: Sequence[str],
    mask_text: str,
    text: str,
    name_of_run: Callable[[int, int], str],
) -> None:
    """Add the parts of a tuple its lane mask covers: full runs as tuples, halves noted.

    ``name_of_run(i, j)`` spells units ``i..j`` as one assembly name (``s[2:3]``, ``vcc``).
    """
    mask = int(mask_text, 16) if mask_text else (1 << (2 * len(units))) - 1
    if mask >> (2 * len(units)):
        raise OracleError(f"live-in {text!r}: lane mask wider than the register")
    full = [(mask >> (2 * i)) & 0x3 == 0x3 for i in range(len(units))]
    i = 0
    while i < len(units):
        lanes = (mask >> (2 * i)) & 0x3
        if lanes == 0:
            i += 1
            continue
        if lanes != 0x3:
            out.add_half(units[i], "hi16" if lanes == 0x1 else "lo16")
            i += 1
            continue
        j = i
        while j + 1 < len(units) and full[j + 1]:
            j += 1
        out.names.add(name_of_run(i, j))
        i = j + 1


_ORDER = {"s": 0, "v": 1, "a": 2, "ttmp": 3}


def register_sort_key(name: str) -> tuple[int, int, str]:
    """Order SGPRs, VGPRs, AGPRs, TTMPs by number, then special registers by name."""
    match = re.fullmatch(r"(s|v|a|ttmp)\[?(\d+)", name.split(":")[0])
    if match is None:
        return (9, 0, name)
    return (_ORDER[match[1]], int(match[2]), name)


# ---------------------------------------------------------------------------------------
# MIR dump
# ---------------------------------------------------------------------------------------


@dataclass
class MirBlock:
    number: int
    liveins: list[str]


_FUNCTION_START = re.compile(r"^# Machine code for function (\S+?):")
_BLOCK = re.compile(r"^bb\.(\d+)\b")


def parse_mir(text: str) -> dict[str, list[MirBlock]]:
    """Blocks and their ``liveins:`` per function of a ``-print-after`` dump, in MIR order."""
    functions: dict[str, list[MirBlock]] = {}
    blocks: list[MirBlock] | None = None
    for line in text.splitlines():
        start = _FUNCTION_START.match(line)
        if start is not None:
            if start[1] in functions:
                raise OracleError(f"MIR dump has function {start[1]} twice")
            blocks = functions.setdefault(start[1], [])
            continue
        if line.startswith("# End machine code for function"):
            blocks = None
            continue
        if blocks is None:
            continue
        block = _BLOCK.match(line)
        if block is not None:
            blocks.append(MirBlock(int(block[1]), []))
        elif line.startswith("  liveins: ") and blocks:
            blocks[-1].liveins = [item.strip() for item in line[11:].split(",") if item.strip()]
    return functions


# ---------------------------------------------------------------------------------------
# Assembly: find each block's first instruction, label it
# ---------------------------------------------------------------------------------------

_TYPE_FUNCTION = re.compile(r"^\s*\.type\s+([^,\s]+)\s*,\s*@function")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")
_LBB = re.compile(r"^\.LBB(\d+)_(\d+):")
_BB_COMMENT = re.compile(r"^; %bb\.(\d+):")
_FUNC_END = re.compile(r"^\.Lfunc_end\d+:")


def is_instruction(line: str) -> bool:
    """An instruction statement: not blank, a comment, a directive or a label."""
    code = line.split(";", 1)[0].strip()
    return bool(code) and not code.startswith(".") and _LABEL.match(code) is None


def label_blocks(asm: str) -> tuple[str, dict[str, list[tuple[int, str]]]]:
    """Insert a label before each block's first instruction; return text and labels per block.

    A block without instructions gets the label of the next instruction, which is where
    execution goes on; the per-function lists are in assembly order, which is MIR order.
    """
    lines = asm.splitlines()
    out: list[str] = []
    blocks: dict[str, list[tuple[int, str]]] = {}
    function_types: set[str] = set()
    current: str | None = None
    pending: list[str] = []
    for line in lines:
        typed = _TYPE_FUNCTION.match(line)
        if typed is not None:
            function_types.add(typed[1])
        label = _LABEL.match(line)
        if label is not None and label[1] in function_types and current is None:
            current = str(label[1])
            blocks[current] = []
            out.append(line)
            continue
        if current is not None:
            if _FUNC_END.match(line):
                if pending:
                    raise OracleError(f"{current}: blocks {pending} have no instruction after")
                current = None
                out.append(line)
                continue
            marker = _LBB.match(line) or _BB_COMMENT.match(line)
            if marker is not None:
                number = int(marker[marker.lastindex or 1])
                name = f"{LABEL_PREFIX}{len(blocks) - 1}_{number}"
                blocks[current].append((number, name))
                pending.append(name)
            elif is_instruction(line) and pending:
                out.extend(f"{name}:" for name in pending)
                pending = []
        out.append(line)
    if current is not None:
        raise OracleError(f"{current}: no .Lfunc_end label")
    return "\n".join(out) + "\n", blocks


# ---------------------------------------------------------------------------------------
# Building one theme/target
# ---------------------------------------------------------------------------------------


def check_flags() -> None:
    """Fail unless both build.sh still compile their corpus with CLANG_FLAGS, and the RDNA
    one its ``.w64`` objects with WAVE64_FLAG."""
    for corpus in (KERNELS, RDNA):
        script = (corpus / "build.sh").read_text()
        match = re.search(r"^CLANG_FLAGS=\((.*)\)$", script, re.MULTILINE)
        if match is None or tuple(match[1].split()) != CLANG_FLAGS:
            raise OracleError(
                f"{corpus.relative_to(ROOT)}/build.sh CLANG_FLAGS changed; update CLANG_FLAGS "
                f"in make_liveins.py to match (found {match[1] if match else 'nothing'})"
            )
    wave64 = re.search(r'compile "\$out" "\$theme" "\$target" "\.w64" (.*)$',
                       (RDNA / "build.sh").read_text(), re.MULTILINE)
    if wave64 is None or tuple(wave64[1].split()) != (WAVE64_FLAG,):
        raise OracleError(
            "test/corpus/rdna/build.sh no longer builds .w64 objects with "
            f"{WAVE64_FLAG} alone; update make_liveins.py to match")


def themes(corpus: Path = KERNELS) -> list[str]:
    """The themes a corpus compiles: every source for GFX9, build.sh's THEMES for RDNA
    (which has no MFMA theme)."""
    if corpus == KERNELS:
        return sorted(path.stem for path in KERNELS.glob("*.hip"))
    return sorted(_build_array(corpus, "THEMES"))


def _run(command: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise OracleError(f"{' '.join(command)} failed:\n{result.stderr[-4000:]}")
    return result


def compile_theme(theme: str, variant: Variant, work: Path) -> tuple[str, str]:
    """clang -S of one theme as build.sh builds it; returns (assembly, MIR dump)."""
    asm = work / f"{theme}.{variant.stem}.s"
    result = _run(
        ["clang-19", *CLANG_FLAGS, *variant.flags, f"--offload-arch={variant.target}",
         "--no-gpu-bundle-output", f"-cuid={theme}", "-S", "-o", asm.name, f"{theme}.hip",
         "-mllvm", f"-print-after={PRINT_AFTER}"],
        work,
    )  # fmt: skip
    return asm.read_text(), result.stderr


def _function_code(co: CodeObject) -> dict[str, tuple[str, bytes]]:
    code = {kernel.name: ("kernel", kernel.code) for kernel in co.kernels}
    code.update({fn.name: ("device_function", fn.code) for fn in co.device_functions})
    return code


def _masked(data: bytes, masked: Iterable[range]) -> bytes:
    out = bytearray(data)
    for span in masked:
        for i in span:
            if 0 <= i < len(out):
                out[i] = 0
    return bytes(out)


def compare_code(
    ours: bytes, corpus: bytes, relocated: Sequence[range], decoder: Decoder, where: str
) -> tuple[set[int], list[tuple[int, str]]]:
    """Check that the assembled function is the corpus function, instruction by instruction.

    Bytes must be equal outside relocated fields, with one tolerated exception: an
    instruction whose bytes differ but that decodes to the same instruction definition with
    the same size on both sides. clang's integrated assembler path (straight to the ``.co``)
    and its printed text can disagree in bits the printer does not print (clang-19 prints
    gfx90a's ``buffer_wbl2`` without its cache-policy bits), which moves no offset and
    changes no register operand. Returns the instruction start offsets and the tolerated
    differences (offset, what), so the JSON records each one.
    """
    if len(ours) != len(corpus):
        raise OracleError(f"{where}: {len(ours)} assembled bytes, {len(corpus)} in the .co")
    mine, theirs = _masked(ours, relocated), _masked(corpus, relocated)
    ours_insts = decoder.decode_all(mine)
    corpus_insts = decoder.decode_all(theirs)
    boundaries: set[int] = set()
    lossy: list[tuple[int, str]] = []
    offset = 0
    for a, b in zip(ours_insts, corpus_insts, strict=False):
        if a.size != b.size or a.desc.name != b.desc.name:
            raise OracleError(
                f"{where}+{offset}: assembled {a.desc.name} ({a.size} bytes), "
                f".co has {b.desc.name} ({b.size} bytes)"
            )
        boundaries.add(offset)
        if mine[offset : offset + a.size] != theirs[offset : offset + b.size]:
            lossy.append(
                (
                    offset,
                    f"{a.desc.name} {mine[offset : offset + a.size].hex()} "
                    f"in the .s, {theirs[offset : offset + b.size].hex()} in the .co",
                )
            )
        offset += a.size
    if len(ours_insts) != len(corpus_insts):
        raise OracleError(
            f"{where}: {len(ours_insts)} assembled instructions, {len(corpus_insts)} in the .co"
        )
    return boundaries, lossy


def build_one(theme: str, variant: Variant, work: Path) -> str:
    """The oracle JSON text of one theme and variant (see README.md for its fields)."""
    target = variant.target
    asm, mir_text = compile_theme(theme, variant, work)
    mir = parse_mir(mir_text)
    labelled, asm_blocks = label_blocks(asm)
    where = f"{theme}.{variant.stem}"
    source = work / f"{where}.labelled.s"
    source.write_text(labelled)
    (work / f"{where}.mir").write_text(mir_text)
    obj = work / f"{where}.labelled.o"
    mattr = [f"-mattr={','.join(variant.mattr)}"] if variant.mattr else []
    _run(["llvm-mc-19", "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", *mattr,
          "-filetype=obj", "-o", obj.name, source.name], work)  # fmt: skip
    ours = read_code_object(obj)
    corpus_o = read_code_object(variant.corpus / f"{where}.o")
    corpus_co = read_code_object(variant.corpus / f"{where}.co")
    if ours.text is None or corpus_o.text is None or ours.text.data != corpus_o.text.data:
        raise OracleError(
            f"{where}: the -S output assembles to a .text that differs from "
            f"the corpus .o: the corpus is stale or the flags differ"
        )
    symbols = {sym.name: sym.value for sym in ours.symbols}
    relocated = [
        range(rel.offset, rel.offset + _patched_size(rel.type))
        for rel in ours.relocations
        if rel.target_section == ours.text.name
    ]
    corpus_functions = _function_code(corpus_co)
    if set(mir) != set(asm_blocks) or set(mir) != set(corpus_functions):
        raise OracleError(
            f"{where}: functions differ: MIR {sorted(mir)}, assembly {sorted(asm_blocks)}, "
            f"corpus .co {sorted(corpus_functions)}"
        )
    decoder = decoder_for(target, variant.wavefront_size)
    tolerated: list[str] = []
    functions: Rows = {}
    kinds: dict[str, list[str]] = {"kernel": [], "device_function": []}
    for name in sorted(mir):
        kind, code = corpus_functions[name]
        kinds[kind].append(name)
        start = symbols[name]
        mine = ours.text.data[start : start + len(code)]
        local = [range(r.start - start, r.stop - start) for r in relocated]
        boundaries, lossy = compare_code(mine, code, local, decoder, f"{where}: {name}")
        tolerated.extend(f"{name}+{offset}: {what}" for offset, what in lossy)
        mir_blocks = mir[name]
        labels = asm_blocks[name]
        if [b.number for b in mir_blocks] != [number for number, _ in labels]:
            raise OracleError(
                f"{where}: {name}: MIR blocks {[b.number for b in mir_blocks]} are not the "
                f"assembly's blocks {[number for number, _ in labels]}"
            )
        rows: list[dict[str, object]] = []
        for block, (_, label) in zip(mir_blocks, labels, strict=True):
            converted = Converted()
            for item in block.liveins:
                convert_livein(item, converted)
            offset = symbols[label] - start
            if offset not in boundaries:
                raise OracleError(
                    f"{where}: {name}: bb.{block.number} at {offset} is not at "
                    "an instruction of the corpus .co"
                )
            row: dict[str, object] = {
                "block": f"bb.{block.number}",
                "offset": offset,
                "liveins": sorted(converted.names, key=register_sort_key),
            }
            if converted.halves:
                row["halves"] = dict(sorted(converted.halves.items()))
            row["mir"] = block.liveins
            rows.append(row)
        functions[name] = rows
    header: dict[str, object] = {"theme": theme, "target": target}
    if variant.wavefront_size is not None:
        header["wavefront_size"] = variant.wavefront_size
    header |= {
        "printed_after": PRINT_AFTER,
        "kernels": kinds["kernel"],
        "device_functions": kinds["device_function"],
        "encoding_differences": tolerated,
    }
    return dump(header, functions)


def dump(header: dict[str, object], functions: Rows) -> str:
    """JSON with one block per line: readable in review and in a diff."""
    lines = ["{"]
    lines.extend(f"  {json.dumps(key)}: {json.dumps(value)}," for key, value in header.items())
    lines.append('  "functions": {')
    for i, (name, rows) in enumerate(functions.items()):
        lines.append(f"    {json.dumps(name)}: [")
        lines.extend(
            f"      {json.dumps(row)}{',' if j + 1 < len(rows) else ''}"
            for j, row in enumerate(rows)
        )
        lines.append("    ]" + ("," if i + 1 < len(functions) else ""))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(out: Path, keep: Path | None = None) -> list[Path]:
    """Write every ``<theme>.<target>[.w64].json`` into ``out``; return the paths
    written."""
    check_flags()
    for tool in ("clang-19", "llvm-mc-19"):
        if shutil.which(tool) is None:
            raise OracleError(f"{tool} not found (scripts/setup.sh installs it)")
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="liveins.") as scratch:
        work = Path(scratch)
        for path in [*KERNELS.glob("*.hip"), *KERNELS.glob("*.h")]:
            shutil.copy(path, work / path.name)
        for variant in variants():
            for theme in themes(variant.corpus):
                path = out / f"{theme}.{variant.stem}.json"
                path.write_text(build_one(theme, variant, work))
                written.append(path)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for path in work.glob("*.*.*"):
                shutil.copy(path, keep / path.name)
    return written


def check() -> int:
    """Regenerate into a temp dir; 1 if any committed JSON is missing, extra or different."""
    with tempfile.TemporaryDirectory(prefix="liveins-check.") as scratch:
        fresh = {path.name: path for path in generate(Path(scratch))}
        committed = {path.name: path for path in HERE.glob("*.json")}
        status = 0
        for name in sorted(set(fresh) | set(committed)):
            if name not in committed:
                print(f"{name}: missing (run make_liveins.py)", file=sys.stderr)
                status = 1
            elif name not in fresh:
                print(f"{name}: no longer generated (delete it)", file=sys.stderr)
                status = 1
            elif fresh[name].read_text() != committed[name].read_text():
                print(f"{name}: differs from a fresh build", file=sys.stderr)
                status = 1
        if status == 0:
            print(f"all {len(fresh)} live-in files are current")
        return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="regenerate into a temp dir and exit 1 if the JSON differs",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="also copy the .s, .mir and labelled objects into this folder",
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            return check()
        written = generate(HERE, args.keep)
    except OracleError as error:
        print(f"make_liveins.py: {error}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files into {HERE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
