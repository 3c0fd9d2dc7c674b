"""The ISA of one AMDGPU target, loaded from the generated tables.

Everything the decoder, printer, encoder and parser know about instructions comes from here;
they hold no per-instruction knowledge of their own. Loading is done once per target and
cached, because the tables are a few megabytes of JSON.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from luthier.amdgpu_dialects.target.subtarget import Subtarget, subtarget_for

TABLES_DIR = Path(__file__).resolve().parent / "tables"

#: Processor names accepted for ``--mcpu``, mapped to the table that serves them.
SUPPORTED_TARGETS = ("gfx908", "gfx90a", "gfx942")


class UnknownTargetError(ValueError):
    """Raised for a processor name we have no tables for."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"unknown target '{name}' (supported: {', '.join(SUPPORTED_TARGETS)})"
        )
        self.name = name


@dataclass(frozen=True, slots=True)
class RegisterClass:
    """A register class: its width in bits, the register files it draws from, its members."""

    name: str
    width: int
    files: str
    align2: bool
    members: frozenset[str]

    def contains(self, register: str) -> bool:
        return register in self.members


def _expand_members(raw: dict[str, Any]) -> frozenset[str]:
    """Expand the tables' compressed member runs back to register names."""
    names: set[str] = set(cast(list[str], raw.get("special", [])))
    for key, runs in raw.items():
        if key == "special":
            continue
        prefix, dwords_text = key.split(":")
        dwords = int(dwords_text)
        for first, last, step in cast(list[list[int]], runs):
            for start in range(first, last + 1, step or 1):
                names.add(f"{prefix}{start}" if dwords == 1
                          else f"{prefix}[{start}:{start + dwords - 1}]")
    return frozenset(names)


@dataclass(frozen=True, slots=True)
class OperandKind:
    """How one kind of operand is decoded, printed and parsed (a TableGen operand record)."""

    name: str
    is_register: bool
    register_class: RegisterClass | None
    print_method: str
    decoder_method: str
    operand_type: str
    value_type: str
    match_class: str
    optional: bool
    default: int | None
    imm_ty: str

    @property
    def width(self) -> int:
        """The operand's register width in bits (0 for pure immediates)."""
        return self.register_class.width if self.register_class else 0


@dataclass(frozen=True, slots=True)
class OperandSlot:
    """One operand of an instruction: its name, kind and where its bits live."""

    name: str
    kind: OperandKind
    is_def: bool
    #: ``(inst_lo, var_lo, width)`` runs in the instruction word.
    fields: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True, slots=True)
class MIMGInfo:
    """An image instruction's family and widths (for choosing the variant after decoding)."""

    base: str
    encoding: str
    vdata_dwords: int
    vaddr_dwords: int


@dataclass(slots=True)
class InstrDef:
    """One encodable instruction of the target (an LLVM "real" instruction record)."""

    name: str
    mnemonic: str
    asm: str
    size: int
    namespace: str
    variant: str
    decodable: bool
    parsable: bool
    mask: int
    value: int
    operands: tuple[OperandSlot, ...]
    num_defs: int
    tied: dict[str, str]
    defs: tuple[str, ...]
    uses: tuple[str, ...]
    classes: frozenset[str]
    flags: frozenset[str]
    asm_match_converter: str
    pseudo: str
    extra_fields: dict[str, tuple[tuple[int, int, int], ...]] = field(
        default_factory=lambda: {}
    )
    mimg: MIMGInfo | None = None
    #: Operand name -> index in ``operands``.
    index: dict[str, int] = field(default_factory=lambda: {})

    def has(self, name: str) -> bool:
        return name in self.index

    def slot(self, name: str) -> OperandSlot:
        return self.operands[self.index[name]]


@dataclass(frozen=True, slots=True)
class Alias:
    """An ``InstAlias``: another spelling of an instruction, for the parser and printer."""

    asm: str
    inst: str
    operands: tuple[tuple[str, Any], ...]
    priority: int
    variant: str


@dataclass(slots=True)
class TargetISA:
    """Everything the MC layer knows about one processor."""

    name: str
    features: frozenset[str]
    wavefront_size: int
    register_classes: dict[str, RegisterClass]
    operand_kinds: dict[str, OperandKind]
    instructions: list[InstrDef]
    by_name: dict[str, InstrDef]
    aliases: list[Alias]
    mnemonic_aliases: dict[str, str]
    #: prefix ("s", "ttmp", "v", "a") -> dwords -> (count, stride)
    register_tuples: dict[str, dict[int, tuple[int, int]]]
    implicit_registers: dict[str, str]
    #: Mnemonics that exist only on other processors (for "not supported on this GPU").
    foreign_mnemonics: frozenset[str] = frozenset()

    def has_feature(self, feature: str) -> bool:
        return feature in self.features

    @property
    def subtarget(self) -> Subtarget:
        """What this processor has: every target question outside the MC layer's encodings
        goes through it (tests check it against :attr:`features`)."""
        return subtarget_for(self.name)

    @property
    def is_gfx90a(self) -> bool:
        return "FeatureGFX90AInsts" in self.features

    @property
    def is_gfx940(self) -> bool:
        return "FeatureGFX940Insts" in self.features


def _parse_fields(raw: Any) -> tuple[tuple[int, int, int], ...]:
    return tuple((int(a), int(b), int(c)) for a, b, c in cast(list[list[int]], raw))


def _tied_operands(constraints: str) -> dict[str, str]:
    """``"$vdst = $src2"`` -> ``{"src2": "vdst", "vdst": "src2"}``: each operand's partner."""
    tied: dict[str, str] = {}
    for part in constraints.split(","):
        if "=" not in part:
            continue
        lhs, rhs = (s.strip().lstrip("$") for s in part.split("=", 1))
        tied[rhs] = lhs
        tied[lhs] = rhs
    return tied


def _load(path: Path) -> TargetISA:
    raw = cast(dict[str, Any], json.loads(path.read_text()))
    classes = {
        name: RegisterClass(name, int(rc["width"]), str(rc["files"]), bool(rc["align2"]),
                            _expand_members(cast(dict[str, Any], rc["members"])))
        for name, rc in cast(dict[str, dict[str, Any]], raw["register_classes"]).items()
    }
    kinds: dict[str, OperandKind] = {}
    for name, k in cast(dict[str, dict[str, Any]], raw["operand_kinds"]).items():
        match = cast(dict[str, Any] | None, k.get("match")) or {}
        kinds[name] = OperandKind(
            name=name,
            is_register=k["class"] == "reg",
            register_class=classes.get(cast(str, k.get("rc", ""))),
            print_method=str(k["print"]),
            decoder_method=str(k["decode"]),
            operand_type=str(k["type"]),
            value_type=str(k.get("vt", "")),
            match_class=str(match.get("name", "")),
            optional=bool(match.get("optional", False)),
            default=cast(int | None, k.get("default")),
            imm_ty=str(k.get("imm_ty", "")),
        )
    instructions: list[InstrDef] = []
    for e in cast(list[dict[str, Any]], raw["instructions"]):
        fields = {str(n): _parse_fields(f) for n, f in
                  cast(dict[str, Any], e.get("fields", {})).items()}
        slots: list[OperandSlot] = []
        outs = cast(list[list[str]], e["outs"])
        for i, (op_name, kind) in enumerate(outs + cast(list[list[str]], e["ins"])):
            slots.append(OperandSlot(op_name, kinds[kind], i < len(outs),
                                     fields.pop(op_name, ())))
        inst = InstrDef(
            name=e["name"],
            mnemonic=e["mnemonic"],
            asm=e["asm"],
            size=int(e["size"]),
            namespace=e["ns"],
            variant=e["variant"],
            decodable=bool(e["decodable"]),
            parsable=bool(e["parsable"]),
            mask=int(e.get("mask", "0"), 16),
            value=int(e.get("value", "0"), 16),
            operands=tuple(slots),
            num_defs=len(outs),
            tied=_tied_operands(e.get("constraints", "")),
            defs=tuple(e["defs"]),
            uses=tuple(e["uses"]),
            classes=frozenset(e["class"]),
            flags=frozenset(e["flags"]),
            asm_match_converter=e.get("asmMatchConverter", ""),
            pseudo=e.get("pseudoInstr", ""),
            extra_fields=fields,
            mimg=MIMGInfo(**e["mimg"]) if "mimg" in e else None,
        )
        inst.index = {s.name: i for i, s in enumerate(slots)}
        instructions.append(inst)
    aliases: list[Alias] = []
    mnemonic_aliases: dict[str, str] = {}
    for a in cast(list[dict[str, Any]], raw["aliases"]):
        if "from" in a:
            mnemonic_aliases[a["from"]] = a["to"]
        else:
            aliases.append(Alias(a["asm"], a["inst"],
                                 tuple((str(n), v) for n, v in a["operands"]),
                                 int(a["priority"]), a["variant"]))
    tuples = {
        prefix: {int(n): (int(c), int(s)) for n, (c, s) in sizes.items()}
        for prefix, sizes in cast(dict[str, dict[str, list[int]]],
                                  raw["register_tuples"]).items()
    }
    return TargetISA(
        name=raw["target"],
        features=frozenset(raw["features"]),
        wavefront_size=int(raw["wavefront_size"]),
        register_classes=classes,
        operand_kinds=kinds,
        instructions=instructions,
        by_name={i.name: i for i in instructions},
        aliases=aliases,
        mnemonic_aliases=mnemonic_aliases,
        register_tuples=tuples,
        implicit_registers={
            name: str(r["asm"])
            for name, r in cast(dict[str, dict[str, Any]], raw["registers"]).items()
        },
        foreign_mnemonics=frozenset(cast(list[str], raw.get("foreign_mnemonics", []))),
    )


@functools.cache
def load_target(name: str) -> TargetISA:
    """The ISA of processor ``name`` (``gfx90a``...); raises :class:`UnknownTargetError`."""
    if name not in SUPPORTED_TARGETS:
        raise UnknownTargetError(name)
    return _load(TABLES_DIR / f"{name}.json")
