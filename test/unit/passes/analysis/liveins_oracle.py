"""The compiler's block live-ins as a soundness oracle for our liveness analysis (test helper).

``test/corpus/liveness/<theme>.<variant>.json`` (made by ``make_liveins.py`` there) holds, for
every block of every kernel and device function of the kernel corpora (GFX9 in
``test/corpus/kernels``, variant ``gfx90a``...; RDNA in ``test/corpus/rdna``, variant
``gfx1100`` in wave32 and ``gfx1100.w64`` in wave64), clang-19's own
post-register-allocation live-in registers and the code offset of the block's first
instruction inside its function. A sound liveness analysis reports every one of them live
before that instruction; it may report more (it is conservative), and how many more is the
figure issue 4 asks for.

Registers are compared in 32-bit units (``s[4:5]`` is ``s4`` and ``s5``), because that is the
granularity both the analysis and the allocator work at and because the compiler and we may
spell the same registers differently (``s[4:5]`` against ``s4, s5``, or ``vcc`` against
``vcc_lo, vcc_hi``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[4]
LIVENESS = ROOT / "test" / "corpus" / "liveness"
KERNELS = ROOT / "test" / "corpus" / "kernels"
RDNA = ROOT / "test" / "corpus" / "rdna"
#: The GFX9 processors of test/corpus/kernels (wave64 only).
GFX9_TARGETS = ("gfx908", "gfx90a", "gfx942")


def oracle_variants() -> list[tuple[str, str]]:
    """Every (theme, variant) the oracle must describe, from the corpora themselves (not
    from the JSON files, so a missing file fails): each GFX9 HIP theme on each GFX9
    processor, and each linked RDNA object (``calls.gfx1100.w64.co`` is ``("calls",
    "gfx1100.w64")``)."""
    pairs = [(path.stem, target) for path in sorted(KERNELS.glob("*.hip"))
             for target in GFX9_TARGETS]
    for path in sorted(RDNA.glob("*.co")):
        theme, _, variant = path.name.removesuffix(".co").partition(".")
        pairs.append((theme, variant))
    return pairs


def corpus_path(theme: str, variant: str, extension: str = ".co") -> Path:
    """The corpus object a variant describes (``.co`` or ``.o``)."""
    folder = KERNELS if variant in GFX9_TARGETS else RDNA
    return folder / f"{theme}.{variant}{extension}"


def variant_wave_size(variant: str) -> int | None:
    """64 for a ``.w64`` variant, None (the processor's default) otherwise."""
    return 64 if variant.endswith(".w64") else None

_TUPLE = re.compile(r"(s|v|a|ttmp)\[(\d+)(?::(\d+))?\]")
_SINGLE = re.compile(r"(s|v|a|ttmp)(\d+)")
#: 64-bit special registers and their 32-bit halves, in LLVM assembly spelling.
_PAIRS = {
    "vcc": ("vcc_lo", "vcc_hi"),
    "exec": ("exec_lo", "exec_hi"),
    "flat_scratch": ("flat_scratch_lo", "flat_scratch_hi"),
    "xnack_mask": ("xnack_mask_lo", "xnack_mask_hi"),
    "tba": ("tba_lo", "tba_hi"),
    "tma": ("tma_lo", "tma_hi"),
}
#: Special registers that are one unit (SCC is one bit, but it is one thing to keep alive).
_SINGLES = frozenset(
    {"scc", "m0", "null", "vccz", "execz", "lds_direct", "mode"}
    | {half for pair in _PAIRS.values() for half in pair}
)


def register_units(name: str) -> tuple[str, ...]:
    """The 32-bit units of one register in LLVM assembly syntax.

    ``s[4:5]`` -> ``("s4", "s5")``, ``v0`` -> ``("v0",)``, ``vcc`` -> ``("vcc_lo", "vcc_hi")``.
    Raises ValueError on a name it does not know, so that a typo in an analysis' output fails
    loudly rather than counting as a register nobody reports.
    """
    tuple_match = _TUPLE.fullmatch(name)
    if tuple_match is not None:
        prefix, first = tuple_match[1], int(tuple_match[2])
        last = int(tuple_match[3]) if tuple_match[3] is not None else first
        if last < first:
            raise ValueError(f"register {name!r}: range runs backwards")
        return tuple(f"{prefix}{i}" for i in range(first, last + 1))
    if _SINGLE.fullmatch(name) is not None:
        return (name,)
    if name in _PAIRS:
        return _PAIRS[name]
    if name in _SINGLES:
        return (name,)
    raise ValueError(f"register {name!r}: not a register name this oracle knows")


def units_of(names: Iterable[str]) -> frozenset[str]:
    """The union of the 32-bit units of ``names``."""
    return frozenset(unit for name in names for unit in register_units(name))


@dataclass(frozen=True)
class BlockLiveIns:
    """One MIR block: its name (``bb.3``), first-instruction offset, compiler live-ins."""

    block: str
    offset: int
    liveins: frozenset[str]


def oracle_path(theme: str, target: str) -> Path:
    return LIVENESS / f"{theme}.{target}.json"


def load_document(theme: str, target: str) -> dict[str, object]:
    """The whole JSON document (kernels, device functions, provenance fields)."""
    return cast(dict[str, object], json.loads(oracle_path(theme, target).read_text()))


def load_oracle(theme: str, target: str) -> dict[str, list[BlockLiveIns]]:
    """Per function name, its blocks in layout order with the compiler's live-in registers."""
    functions = cast(dict[str, list[dict[str, object]]], load_document(theme, target)["functions"])
    return {
        name: [
            BlockLiveIns(
                block=str(row["block"]),
                offset=cast(int, row["offset"]),
                liveins=frozenset(cast(list[str], row["liveins"])),
            )
            for row in rows
        ]
        for name, rows in functions.items()
    }


@dataclass(frozen=True)
class Unsound:
    """A block where the compiler has a register live on entry and we do not."""

    function: str
    block: str
    offset: int
    #: The 32-bit units the compiler has live and we miss, sorted.
    missing: tuple[str, ...]


@dataclass
class Report:
    """What ``compare`` found: unsound blocks, and how conservative we are, in 32-bit units."""

    unsound: list[Unsound] = field(default_factory=lambda: list[Unsound]())
    #: (function, block) -> units we report live that the compiler does not.
    extra_per_block: dict[tuple[str, str], int] = field(
        default_factory=lambda: dict[tuple[str, str], int]()
    )
    blocks: int = 0
    #: Units the compiler has live, summed over blocks.
    oracle_units: int = 0

    @property
    def sound(self) -> bool:
        return not self.unsound

    @property
    def extra_units(self) -> int:
        return sum(self.extra_per_block.values())

    def summary(self) -> str:
        """One paragraph for a test failure message or a note."""
        text = (
            f"{self.blocks} blocks, {self.oracle_units} live-in units by the compiler, "
            f"{self.extra_units} more units by us "
            f"({self.extra_units / max(self.blocks, 1):.1f} per block)"
        )
        if self.unsound:
            shown = "; ".join(
                f"{u.function} {u.block} @{u.offset}: {', '.join(u.missing)}"
                for u in self.unsound[:10]
            )
            text += f"; UNSOUND in {len(self.unsound)} blocks: {shown}"
        return text


def compare(
    oracle: Mapping[str, Sequence[BlockLiveIns]],
    ours: Callable[[str, int], frozenset[str]],
) -> Report:
    """Check ``ours(function, offset)`` (live before that instruction) against the oracle.

    Every oracle register missing from ours is an unsoundness, listed per block; registers we
    have and the compiler does not are counted, per block and in total, as conservativeness.
    Both sides are compared as 32-bit units, so the spelling of tuples does not matter.
    """
    report = Report()
    for function, blocks in oracle.items():
        for block in blocks:
            expected = units_of(block.liveins)
            got = units_of(ours(function, block.offset))
            report.blocks += 1
            report.oracle_units += len(expected)
            missing = expected - got
            if missing:
                report.unsound.append(
                    Unsound(function, block.block, block.offset, tuple(sorted(missing)))
                )
            report.extra_per_block[(function, block.block)] = len(got - expected)
    return report
