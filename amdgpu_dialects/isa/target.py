"""The ISA of one AMDGPU target, loaded from the generated tables.

Everything the decoder, printer, encoder and parser know about instructions comes from here;
they hold no per-instruction knowledge of their own. A target is loaded the first time it is
used, from its compact table (``compact.py``), and cached.
"""

from __future__ import annotations

import functools
import marshal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from luthier.amdgpu_dialects.isa.compact import SCHEMA, compact_path
from luthier.amdgpu_dialects.target.subtarget import Subtarget, subtarget_for

#: Processors the whole stack serves (lifting, instrumentation, assembly, emulation): CDNA
#: (gfx908, gfx90a, gfx942) and RDNA 2, 3 and 4 (gfx1030, gfx1100, gfx1200, gfx1201), the
#: RDNA ones in wave32 and wave64.
SUPPORTED_TARGETS = ("gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1200", "gfx1201")
#: Processors whose kernels the emulator runs.
EMULATED_TARGETS = SUPPORTED_TARGETS
#: Every processor :func:`load_target` accepts.
TABLE_TARGETS = SUPPORTED_TARGETS
#: Processors whose code objects lift (``amdgpu_mc`` IR, and a code object again).
LIFT_TARGETS = TABLE_TARGETS
#: Processors served by another processor's table because LLVM gives both exactly the same
#: feature set (``generate.SHARED_TABLES``; every generator run compares the feature lists).
SHARED_TABLES = {"gfx1201": "gfx1200"}


class UnknownTargetError(ValueError):
    """Raised for a processor name we have no tables for."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"unknown target '{name}' (supported: {', '.join(TABLE_TARGETS)})"
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

    @property
    def is_lane_mask(self) -> bool:
        """A class of ``i1`` per lane (``SReg_1``...): one SGPR in wave32, a pair in
        wave64, whatever its members say."""
        return self.width == 1


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


@dataclass(frozen=True, slots=True)
class MIMGBase:
    """An image base opcode's address layout (LLVM's ``MIMGBaseOpcode`` fields)."""

    num_extra_args: int
    gradients: bool
    g16: bool
    coordinates: bool
    lod_clamp_mip: bool
    bvh: bool
    a16: bool


@dataclass(frozen=True, slots=True)
class MIMGDim:
    """An image ``dim`` encoding: its suffix and how many coordinates/gradients it takes."""

    suffix: str
    coordinates: int
    gradients: int


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
    #: Bits of the encoding that the record neither fixes nor gives to an operand
    #: (TableGen's ``?`` bits: op_sel of a VOP3 record without one...). LLVM's decoder
    #: ignores them and its encoder writes them canonically (:mod:`..mc.implicit_bits`);
    #: a decoded instruction keeps where its word differs (``MCInst.unmodelled``).
    unknown: int = 0
    #: For a real-true16 twin (:attr:`TargetISA.real_true16`), the name of the default
    #: record of the same encoding, whose opcode it is; "" for every other instruction.
    fake16: str = ""

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
    #: Image base opcode name -> its address layout; ``dim`` encoding -> its dimensions.
    mimg_bases: dict[str, MIMGBase] = field(default_factory=lambda: {})
    mimg_dims: dict[int, MIMGDim] = field(default_factory=lambda: {})
    #: The real-true16 forms of the 16-bit VOP1/VOP2/VOPC encodings (GFX11+), whose VGPR
    #: fields name 16-bit halves (``v_add_f16_e32 v1.h, v2.l, v3.h``): what newer LLVM
    #: compiles. They are in :attr:`by_name` but not in :attr:`instructions`, which is
    #: LLVM 19's default decode and match order: the decoder and the IR parser try them
    #: only for what the default records refuse (``generate.real_true16_entries``).
    real_true16: list[InstrDef] = field(default_factory=lambda: [])

    def has_feature(self, feature: str) -> bool:
        return feature in self.features

    @property
    def subtarget(self) -> Subtarget:
        """What this processor has: every target question outside the MC layer's encodings
        goes through it (tests check it against :attr:`features`)."""
        return subtarget_for(self.name)

    @property
    def generation(self) -> int:
        """The ISA generation the encodings follow: 9 (GCN3/CDNA), 10, 11 or 12 (RDNA), from
        the generation feature (``FeatureGFX9``... ``FeatureGFX12``)."""
        for major in (12, 11, 10):
            if f"FeatureGFX{major}" in self.features:
                return major
        return 9

    @property
    def is_gfx90a(self) -> bool:
        return "FeatureGFX90AInsts" in self.features

    @property
    def is_gfx940(self) -> bool:
        return "FeatureGFX940Insts" in self.features


_INSTRUCTION_CLASSES: dict[str, frozenset[str]] = {}


def instruction_classes(isa: TargetISA) -> frozenset[str]:
    """Every class some instruction record of ``isa`` has, as LLVM's TableGen gives them
    (``SALU``, ``VALU``, ``SMRD``, ``MUBUF``, ``DS``, ``FLAT``, ``FlatGlobal``, ``IsMAI``...):
    what an insertion's ``class`` selector may name."""
    found = _INSTRUCTION_CLASSES.get(isa.name)
    if found is None:
        found = _INSTRUCTION_CLASSES[isa.name] = frozenset(
            name for desc in isa.instructions for name in desc.classes)
    return found


_Fields = tuple[tuple[int, int, int], ...]
#: The compact table's rows (``compact.py`` writes them in this order).
_ClassRow = tuple[str, int, str, bool, tuple[str, ...]]
_KindRow = tuple[str, bool, str, str, str, str, str, str, bool, Any, str]
_SlotRow = tuple[str, int, bool, _Fields]
#: name, mnemonic, asm, size, namespace, variant, decodable, parsable, mask, value, then
#: indexes into the shared operand lists, defs/uses/classes/flags name sets, tied maps
#: and field maps, then the converter, the pseudo, the image info, the wave size it is
#: only in (0: every one), the mask of its unknown bits.
_InstrRow = tuple[str, str, str, int, str, str, bool, bool, int, int, int, int, int, int, int,
                  int, int, str, str, int, tuple[str, str, int, int] | None, int, int]


_WAVE_FEATURES = {32: "FeatureWavefrontSize32", 64: "FeatureWavefrontSize64"}


def _load(path: Path, wavefront_size: int | None = None) -> TargetISA:
    """Build the model from a compact table (``compact.py`` documents why it exists and
    makes it from the JSON table). Objects the table de-duplicates are built once and
    shared: every instruction with the same operands holds the same slot tuple and index.

    ``wavefront_size`` picks one of the wave sizes the table covers (the processor's
    default when None): instructions and aliases of the other wave size are left out."""
    (schema, target, features, default_wave, raw_classes, raw_kinds, raw_slots,
     operand_lists, name_sets, field_maps, tied_maps, raw_instructions, raw_aliases,
     mnemonic_aliases, register_tuples, implicit_registers,
     foreign_mnemonics, mimg_bases, mimg_dims, wave_sizes, raw_real_true16) = cast(
        tuple[Any, ...], marshal.loads(path.read_bytes()))
    if schema != SCHEMA:
        raise ValueError(f"{path}: compact table schema {schema}, expected {SCHEMA} "
                         "(regenerate with python -m luthier.amdgpu_dialects.isa.compact)")
    wave = default_wave if wavefront_size is None else wavefront_size
    if wave not in wave_sizes:
        raise UnknownTargetError(f"{target} with wavefrontsize{wave}")
    features = (frozenset(features) - set(_WAVE_FEATURES.values())) | {_WAVE_FEATURES[wave]}
    classes = {name: RegisterClass(name, width, files, align2, frozenset(members))
               for name, width, files, align2, members in cast(list[_ClassRow], raw_classes)}
    kind_list = [
        OperandKind(name, is_register, classes.get(rc), print_method, decoder_method,
                    operand_type, value_type, match_class, optional, default, imm_ty)
        for (name, is_register, rc, print_method, decoder_method, operand_type, value_type,
             match_class, optional, default, imm_ty) in cast(list[_KindRow], raw_kinds)
    ]
    slots = [OperandSlot(name, kind_list[kind], is_def, fields)
             for name, kind, is_def, fields in cast(list[_SlotRow], raw_slots)]
    operands = [tuple(slots[i] for i in indices)
                for indices in cast(list[tuple[int, ...]], operand_lists)]
    indexes = [{slot.name: i for i, slot in enumerate(slot_tuple)} for slot_tuple in operands]
    strings = cast(list[tuple[str, ...]], name_sets)
    sets = [frozenset(names) for names in strings]
    ties = cast(list[tuple[tuple[str, str], ...]], tied_maps)
    extras = cast(list[tuple[tuple[str, _Fields], ...]], field_maps)

    def instruction(row: _InstrRow, fake16: str = "") -> InstrDef | None:
        (name, mnemonic, asm, size, namespace, variant, decodable, parsable, mask, value,
         operand_list, num_defs, tied, defs, uses, inst_classes, flags, converter, pseudo,
         extra_fields, mimg, only_wave, unknown) = row
        if only_wave and only_wave != wave:
            return None
        return InstrDef(
            name, mnemonic, asm, size, namespace, variant, decodable, parsable, mask, value,
            operands[operand_list], num_defs, dict(ties[tied]), strings[defs],
            strings[uses], sets[inst_classes], sets[flags], converter, pseudo,
            dict(extras[extra_fields]), None if mimg is None else MIMGInfo(*mimg),
            indexes[operand_list], unknown, fake16,
        )

    instructions = [i for row in cast(list[_InstrRow], raw_instructions)
                    if (i := instruction(row)) is not None]
    real_true16 = [i for *row, fake16 in cast(list[tuple[Any, ...]], raw_real_true16)
                   if (i := instruction(cast(_InstrRow, tuple(row)), fake16)) is not None]
    return TargetISA(
        name=target,
        features=features,
        wavefront_size=wave,
        register_classes=classes,
        operand_kinds={kind.name: kind for kind in kind_list},
        instructions=instructions,
        by_name={i.name: i for i in (*instructions, *real_true16)},
        aliases=[Alias(*alias[:5]) for alias in raw_aliases if not alias[5] or alias[5] == wave],
        mnemonic_aliases=dict(mnemonic_aliases),
        register_tuples={prefix: {n: (count, stride) for n, count, stride in sizes}
                         for prefix, sizes in register_tuples},
        implicit_registers=dict(implicit_registers),
        foreign_mnemonics=frozenset(foreign_mnemonics),
        mimg_bases={base: MIMGBase(values[0], *(bool(v) for v in values[1:]))
                    for base, values in cast(list[tuple[str, tuple[int, ...]]], mimg_bases)},
        mimg_dims={encoding: MIMGDim(suffix, coords, gradients)
                   for encoding, suffix, coords, gradients in
                   cast(list[tuple[int, str, int, int]], mimg_dims)},
        real_true16=real_true16,
    )


def load_target(name: str, wavefront_size: int | None = None) -> TargetISA:
    """The ISA of processor ``name`` (``gfx90a``...) in its default wave size, or in
    ``wavefront_size`` (64 on an RDNA processor: LLVM's ``-mattr=+wavefrontsize64``);
    raises :class:`UnknownTargetError` for a processor or wave size without tables. One
    object per (processor, wave size), however the call spells them."""
    return _cached_target(name, wavefront_size)


@functools.cache
def _cached_target(name: str, wavefront_size: int | None) -> TargetISA:
    if name not in TABLE_TARGETS:
        raise UnknownTargetError(name)
    isa = _load(compact_path(SHARED_TABLES.get(name, name)), wavefront_size)
    isa.name = name
    return isa
