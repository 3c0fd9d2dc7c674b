"""Fit parsed operand items to the instructions a mnemonic can mean, as LLVM's matcher does.

For every target we list, once, each mnemonic's candidate instructions in LLVM's variant
order (the 32-bit encoding first, then VOP3, SDWA, DPP), and make each candidate's operand
pattern from its AsmString when the mnemonic is first used: positional operands and
literal words (``off``, ``offen``, ``vcc``) in order, and named operands (``offset:``,
``glc``, ``clamp``...) that may come in any order. A statement matches the first
candidate whose pattern accepts all of its items; the MCInst gets every operand the
instruction has, with LLVM's defaults for the named operands that were not written.
"""

from __future__ import annotations

import functools
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from luthier.amdgpu_dialects.isa.buffer_formats import UNIFIED_FORMATS_GFX10, UNIFIED_FORMATS_GFX11
from luthier.amdgpu_dialects.isa.registers import INLINE_VALUE_REGISTERS
from luthier.amdgpu_dialects.isa.target import InstrDef, OperandKind, TargetISA, load_target
from luthier.amdgpu_dialects.mc import operand_printers as P
from luthier.amdgpu_dialects.mc import operand_syntax as S
from luthier.amdgpu_dialects.mc.asm_expr import Fixup, SymbolRefExpr, SymExpr
from luthier.amdgpu_dialects.mc.asm_operands import Item
from luthier.amdgpu_dialects.mc.decoder import MCInst
from luthier.amdgpu_dialects.mc.encoder import literal_dword, literal_encoding
from luthier.amdgpu_dialects.mc.operand_decoders import Operand
from luthier.amdgpu_dialects.mc.printer import print_immediate

_NEG, _ABS, _SEXT, _NEG_HI, _OP_SEL_0, _OP_SEL_1 = 1, 2, 1, 2, 4, 8

#: Print methods of operands written by name (``offset:4``, ``glc``), in any order.
_NAMED_PRINT = frozenset({
    "printCPol", "printDMask", "printDim", "printDPPCtrl", "printDppBankMask",
    "printDppBoundCtrl", "printDppFI", "printDPP8",
    "printDppRowMask", "printFORMAT", "printFlatOffset", "printOffset", "printOffset0",
    "printOffset1", "printSMEMOffsetMod", "printSwizzle", "printOModSI", "printOpSel",
    "printOpSelHi", "printNegLo", "printNegHi", "printABID", "printBLGP", "printCBSZ",
    "printR128A16", "printSDWADstSel", "printSDWADstUnused", "printSDWASrc0Sel",
    "printSDWASrc1Sel", *(
        # GFX11+ ``name:value`` integers, range-checked (see _NAMED_INTS).
        "printWaitVDST", "printWaitEXP", "printWaitVAVDst", "printWaitVMVSrc", "printByteSel",
        "printIndexKey8bit", "printIndexKey16bit"),
})
#: GFX11+ named integer operands (LLVM's NamedIntOperand): print method -> name, the
#: largest value, and whether an out-of-range value is "out of range" (index_key) rather
#: than "invalid <name> value.".
_NAMED_INTS: dict[str, tuple[str, int, bool]] = {
    "printWaitVDST": ("wait_vdst", 15, False), "printWaitEXP": ("wait_exp", 7, False),
    "printWaitVAVDst": ("wait_va_vdst", 15, False),
    "printWaitVMVSrc": ("wait_vm_vsrc", 1, False), "printByteSel": ("byte_sel", 3, False),
    "printIndexKey8bit": ("index_key", 3, True), "printIndexKey16bit": ("index_key", 1, True),
}

#: Words that are named operands (flags) rather than positional words.
_FLAGS = ("glc", "slc", "scc", "sc0", "sc1", "nt", "clamp", "unorm", "da", "tfe", "lwe",
          "d16", "a16", "r128", "gds", "lds", "dlc")
#: Every ``name:value`` operand the GFX9 syntax has; any other name is not an operand.
_KNOWN_NAMED_KEYS = frozenset({
    "offset", "offset0", "offset1", "dmask", "row_mask", "bank_mask", "bound_ctrl",
    "dst_sel", "src0_sel", "src1_sel", "dst_unused", "op_sel", "op_sel_hi", "neg_lo",
    "neg_hi", "cbsz", "abid", "blgp", "neg", "format", "dfmt", "nfmt", "mul", "div", "dim",
    "fi", "dpp8",
    *S.DPP_CTRL_NAMES,
    *(name for name, _, _ in _NAMED_INTS.values()),
})
_SDWA_KEYS = frozenset({"dst_sel", "src0_sel", "src1_sel", "dst_unused"})
_NAMED_KEYS_BY_PRINT: dict[str, frozenset[str]] = {
    "printDMask": frozenset({"dmask"}), "printDPPCtrl": frozenset(S.DPP_CTRL_NAMES),
    "printDppBankMask": frozenset({"bank_mask"}), "printDppRowMask": frozenset({"row_mask"}),
    "printDppBoundCtrl": frozenset({"bound_ctrl"}),
    "printDppFI": frozenset({"fi"}), "printDPP8": frozenset({"dpp8"}),
    "printFORMAT": frozenset({"format", "dfmt", "nfmt"}),
    "printDim": frozenset({"dim"}),
    "printFlatOffset": frozenset({"offset"}), "printOffset": frozenset({"offset"}),
    "printSMEMOffsetMod": frozenset({"offset"}), "printSwizzle": frozenset({"offset"}),
    "printOffset0": frozenset({"offset0"}), "printOffset1": frozenset({"offset1"}),
    "printOModSI": frozenset({"mul", "div"}), "printOpSel": frozenset({"op_sel"}),
    "printOpSelHi": frozenset({"op_sel_hi"}), "printNegLo": frozenset({"neg_lo"}),
    "printNegHi": frozenset({"neg_hi"}), "printABID": frozenset({"abid"}),
    "printCBSZ": frozenset({"cbsz"}), "printBLGP": frozenset({"blgp", "neg"}),
    "printSDWADstSel": _SDWA_KEYS, "printSDWASrc0Sel": _SDWA_KEYS,
    "printSDWASrc1Sel": _SDWA_KEYS, "printSDWADstUnused": _SDWA_KEYS,
    **{method: frozenset({name}) for method, (name, _, _) in _NAMED_INTS.items()},
}
#: Flags of other generations that llvm-mc names in its complaint.
_OTHER_GENERATION_FLAGS = frozenset({"dlc", "scc", "nv"})
_CPOL_WORDS = frozenset({"glc", "slc", "scc", "sc0", "sc1", "nt", "noglc", "noslc", "noscc",
                         "nosc0", "nosc1", "nont"})
FLAG_WORDS = frozenset({*_FLAGS, *("no" + f for f in _FLAGS), "bound_ctrl", "row_mirror",
                        "row_half_mirror"})

_VARIANT_ORDER = {"Default": 0, "VOP3": 1, "SDWA9": 2, "SDWA": 2, "SDWA10": 2, "DPP": 3,
                  "VOP3_DPP": 4}
_SUFFIX_VARIANT = {"_e64_dpp": "VOP3_DPP", "_e32": "Default", "_e64": "VOP3",
                   "_sdwa": "SDWA9", "_dpp": "DPP"}
#: ``{text}`` in an AsmString's mnemonic: text of the default variant (``v_cmpx_f_f32{_e64}``
#: is spelled ``v_cmpx_f_f32_e64`` or ``v_cmpx_f_f32``).
_VARIANT_TEXT = re.compile(r"\{([^{}|$]*)(?:\|[^{}$]*)?\}")
#: ``::`` separates the two halves of a GFX11+ dual-issue (VOPD) instruction; ``[``
#: and ``]`` enclose an image's non-sequential address list.
_TOKEN = re.compile(r"\$\{(\w+)\}|\$(\w+)|([A-Za-z_][\w]*|::|\[|\])")


class MatchError(Exception):
    """No candidate accepts the operands; ``column`` points at the culprit (or -1)."""

    def __init__(self, message: str, column: int = -1, rank: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.rank = rank


@dataclass(slots=True)
class Pattern:
    """A candidate's operand layout: positional steps and named operand slots."""

    inst: InstrDef
    #: ("slot", index) or ("word", text), in AsmString order.
    positional: list[tuple[str, int | str]]
    named: list[int]
    vcc_first: bool = False
    vcc_last: bool = False
    literal_ok: bool = True
    #: GFX10+ carry forms write the implied VCC too: it follows vdst (``v, vcc_lo, ...``).
    vcc_after_dst: bool = False
    #: How the implied VCC is spelled: ``vcc`` in wave64, ``vcc_lo`` in wave32.
    vcc: str = "vcc"
    named_by_key: dict[str, int] = field(default_factory=lambda: {})


#: Stand-ins for symbolic operands until the fixup is resolved: a branch offset and a
#: literal that no real operand is likely to print.
BRANCH_PLACEHOLDER = 0x5EAD
LITERAL_PLACEHOLDER = 0x5EADF1C5


@dataclass(slots=True)
class Matched:
    """A matched statement: the instruction and the fixups its symbolic operands need."""

    inst: MCInst
    fixups: list[Fixup]
    #: Operand index -> column where it was written (for diagnostics).
    columns: dict[int, int] = field(default_factory=lambda: dict[int, int]())


@dataclass(slots=True)
class _State:
    """Per-candidate matching state: the literal dword in use and pending fixups."""

    literals: set[int] = field(default_factory=lambda: set[int]())
    fixups: list[Fixup] = field(default_factory=lambda: list[Fixup]())
    columns: dict[int, int] = field(default_factory=lambda: dict[int, int]())


_BOOL_SPECIALS = frozenset({"vcc", "exec", "flat_scratch", "xnack_mask", "tba", "tma",
                            "src_vccz", "src_execz", "src_scc", "src_shared_base",
                            "src_shared_limit", "src_private_base", "src_private_limit",
                            "src_pops_exiting_wave_id",
                            # GFX10+'s null is as wide as the operand it stands for.
                            "null"})


def _is_64bit_register(name: str) -> bool:
    if name in _BOOL_SPECIALS:
        return True
    if "[" in name:
        first, last = name[name.index("[") + 1 : -1].split(":")
        return int(last) - int(first) == 1
    return False


def is_vopd(inst: InstrDef) -> bool:
    """A GFX11+ dual-issue instruction (``v_dual_X ... :: v_dual_Y ...``): the only
    instructions with a second destination, ``vdstY``."""
    return inst.has("vdstY")


def _is_named(kind: OperandKind) -> bool:
    method = kind.print_method
    return method in _NAMED_PRINT or method.startswith("printNamedBit:")


def _pattern(inst: InstrDef, asm: str | None = None, generation: int = 9,
             vcc: str = "vcc") -> Pattern:
    asm = _VARIANT_TEXT.sub(lambda m: m.group(1), inst.asm if asm is None else asm)
    first_space = re.search(r"[\s$]", asm)
    body = asm[first_space.start():] if first_space else ""
    positional: list[tuple[str, int | str]] = []
    named: list[int] = []
    for match in _TOKEN.finditer(body):
        name = match.group(1) or match.group(2)
        if name is not None:
            index = inst.index[name]
            if inst.operands[index].kind.print_method == "printInterpAttrChan":
                continue  # written together with the attribute: attr0.x
            if _is_named(inst.operands[index].kind):
                named.append(index)
            else:
                positional.append(("slot", index))
        else:
            positional.append(("word", match.group(3)))
    classes = inst.classes
    vcc_first = "VOPC" in classes and "VCC" in inst.defs and "SDWA" not in classes \
        and "VOP3" not in classes
    # GFX10+ VOP2 forms that read VCC without an operand for it (v_cndmask_b32 and the
    # carry-in adds, in e32/DPP/SDWA forms) spell it after src1, and after vdst too when
    # they write it (the printer's rule, InstPrinter.implied_vcc).
    implied = generation >= 10 and "VALU" in classes \
        and not classes & {"VOP3", "VOPC", "VOP3P"} and "VCC" in inst.uses \
        and "vcc" not in inst.asm
    vcc_last = inst.name.startswith("V_CNDMASK_B32_e32") or implied
    vcc_after_dst = implied and "VCC" in inst.defs
    literal_ok = inst.size == 4 or (inst.has("imm") and "VOP3" not in inst.classes) \
        or (generation >= 10 and ("VOP3" in classes or ("VALU" in classes and inst.size == 8))
            and not classes & {"DPP", "SDWA"}) \
        or is_vopd(inst)
    return Pattern(inst, positional, named, vcc_first, vcc_last, literal_ok, vcc_after_dst,
                   vcc=vcc)


class Matcher:
    """Per-target candidate lists and operand matching."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.gfx940 = isa.is_gfx940
        self.gfx90a = isa.is_gfx90a
        self.wave64 = isa.wavefront_size == 64
        self.has_gds = isa.has_feature("FeatureGDS")
        self.flat_offset_bits = isa.subtarget.flat_offset_bits
        #: Mnemonic -> its candidates as (instruction, alias AsmString or None), in
        #: variant order; a candidate's Pattern is made when its mnemonic is first looked
        #: up (a one-line assembly needs a few of the target's 3,000-odd patterns).
        entries: dict[str, list[tuple[InstrDef, str | None]]] = {}
        for inst in isa.instructions:
            if not inst.parsable:
                continue
            asm = _VARIANT_TEXT.sub(lambda m: m.group(1), inst.asm)
            asm_mnemonic = asm.split("$", 1)[0].split()[0] if asm.strip() else ""
            keys = {_VARIANT_TEXT.sub(lambda m: m.group(1), inst.mnemonic), asm_mnemonic}
            keys |= {k[: -len(suffix)] for k in keys for suffix in _SUFFIX_VARIANT
                     if k.endswith(suffix)}
            for key in sorted(keys):
                if key:
                    entries.setdefault(key.lower(), []).append((inst, None))
        for alias in isa.aliases:
            mnemonic = alias.asm.split()[0] if alias.asm.split() else ""
            target = isa.by_name.get(alias.inst)
            names = [a or b for a, b in re.findall(r"\$\{(\w+)\}|\$(\w+)", alias.asm)]
            if target is None or mnemonic != mnemonic.lower() or \
                    any(not target.has(n) for n in names):
                continue
            entries.setdefault(mnemonic, []).append((target, alias.asm))
        for candidates in entries.values():
            candidates.sort(key=lambda entry: _VARIANT_ORDER.get(entry[0].variant, 4))
        self._entries = entries
        self._patterns: dict[str, list[Pattern]] = {}
        #: (instruction, alias AsmString) -> its Pattern, shared by every mnemonic key.
        self._pattern_of: dict[tuple[str, str | None], Pattern] = {}
        self._keys_cache: dict[str, frozenset[str]] = {}

    def candidates(self, mnemonic: str) -> list[Pattern] | None:
        """The patterns of a lower-case mnemonic as written (no suffix handling), in
        variant order; None if the target has no such mnemonic."""
        found = self._patterns.get(mnemonic)
        if found is not None:
            return found
        entries = self._entries.get(mnemonic)
        if entries is None:
            return None
        found = list[Pattern]()
        for inst, asm in entries:
            pattern = self._pattern_of.get((inst.name, asm))
            if pattern is None:
                pattern = self._pattern_of[inst.name, asm] = _pattern(
                    inst, asm, self.isa.generation, "vcc" if self.wave64 else "vcc_lo")
            found.append(pattern)
        self._patterns[mnemonic] = found
        return found

    def lookup(self, mnemonic: str) -> list[Pattern] | None:
        """Candidates of a mnemonic, honouring a forced ``_e32``/``_e64``/... suffix."""
        mnemonic = mnemonic.lower()
        found = self.candidates(mnemonic)
        if found is not None:
            return found
        alias = self.isa.mnemonic_aliases.get(mnemonic)
        for suffix, variant in _SUFFIX_VARIANT.items():
            if mnemonic.endswith(suffix):
                base = mnemonic[: -len(suffix)]
                base_candidates = self.candidates(base)
                if base_candidates is None and base in self.isa.mnemonic_aliases:
                    # A renamed mnemonic with an encoding suffix: v_cvt_flr_i32_f32_e64_dpp.
                    base_candidates = self.candidates(self.isa.mnemonic_aliases[base].lower())
                if base_candidates is None:
                    return None
                chosen = [p for p in base_candidates if p.inst.variant == variant
                          or (variant == "SDWA9" and p.inst.variant in ("SDWA", "SDWA10"))]
                if variant == "Default":
                    chosen = [p for p in chosen if "VOP3" not in p.inst.classes]
                return chosen or None
        if alias is not None:
            # LLVM's aliases name their target's mnemonic, some in upper case.
            return self.candidates(alias.lower())
        return None

    def match(self, mnemonic: str, items: list[Item]) -> Matched:
        patterns = self.lookup(mnemonic)
        if not patterns:
            raise MatchError("invalid instruction", 0, 100)
        keys = self._named_keys(mnemonic.lower(), patterns)
        for item in items:
            if item.kind == "named" and item.text.lower() not in keys:
                # llvm-mc only tries the operand parsers the mnemonic's instructions use.
                raise MatchError("not a valid operand.", item.column, 100)
        best: MatchError | None = None
        for pattern in patterns:
            try:
                return self._match_one(pattern, items)
            except MatchError as error:
                if best is None or error.rank > best.rank:
                    best = error
        assert best is not None
        raise best

    def _named_keys(self, mnemonic: str, patterns: list[Pattern]) -> frozenset[str]:
        """The ``name:`` operands any candidate of ``mnemonic`` accepts."""
        cached = self._keys_cache.get(mnemonic)
        if cached is None:
            keys: set[str] = set()
            for pattern in patterns:
                for index in pattern.named:
                    method = pattern.inst.operands[index].kind.print_method
                    keys |= _NAMED_KEYS_BY_PRINT.get(method, frozenset())
                    if method == "printCPol" and self.isa.generation >= 12:
                        keys |= {"th", "scope"}
            cached = frozenset(keys)
            self._keys_cache[mnemonic] = cached
        return cached

    # -- one candidate ------------------------------------------------------------------

    def _match_one(self, pattern: Pattern, items: list[Item]) -> Matched:
        inst = pattern.inst
        operands: list[Operand] = [None] * len(inst.operands)
        assigned = [False] * len(inst.operands)
        named_items: list[Item] = []
        pos = 0
        state = _State()
        steps = list(pattern.positional)
        rest = [i for i in items if i.kind != "named" and i.text not in FLAG_WORDS]
        vcc = pattern.vcc
        if pattern.vcc_first and rest and rest[0].kind == "reg" and rest[0].text == vcc \
                and len(rest) > len(steps):
            steps.insert(0, ("word", vcc))
        if pattern.vcc_after_dst and len(rest) > len(steps) + 1 and steps:
            steps.insert(1, ("word", vcc))
        if pattern.vcc_last and len(rest) > len(steps):
            steps.append(("word", vcc))
        matched = 0
        for step_kind, step in steps:
            while pos < len(items) and pattern.named \
                    and _is_named_item(items[pos], step_kind, step, inst):
                if items[pos].text == "format" and step == inst.index.get("soffset") \
                        and self.isa.generation < 10:
                    # GFX10+ also takes the format before soffset (``s[0:3], format:22, 0``).
                    raise MatchError("not a valid operand.", items[pos].column, 60)
                named_items.append(items[pos])
                pos += 1
            if pos >= len(items):
                if step_kind == "slot" and isinstance(step, int) and \
                        inst.operands[step].kind.optional:
                    continue
                raise MatchError("too few operands for instruction", -1, 10 + matched)
            item = items[pos]
            if step_kind == "word":
                if item.text.lower() != step:
                    message = "invalid VOPDY instruction" if pos and \
                        items[pos - 1].text == "::" else "invalid operand for instruction"
                    raise MatchError(message, item.column, matched)
            else:
                assert isinstance(step, int)
                self._positional(pattern, step, item, operands, assigned, state)
            pos += 1
            matched += 1
        named_items.extend(items[pos:])
        seen: set[str] = set()
        for item in named_items:
            key = item.text.lower()
            if key in seen and key not in _CPOL_WORDS:
                raise MatchError("not a valid operand.", item.column, 95)
            seen.add(key)
            if item.kind == "reg" and item.text == "a16" and not item.has_modifiers:
                item = Item("word", item.column, "a16")
            if item.kind not in ("named", "word"):
                raise MatchError("invalid operand for instruction", item.column, matched)
            self._named(pattern, item, operands, assigned)
            matched += 1
        self._check_required(inst, operands, assigned, matched)
        if inst.has("en") and inst.has("compr"):
            _export_enables(inst, operands, assigned)
        self._defaults(inst, operands, assigned)
        return Matched(MCInst(inst, operands, inst.size), state.fixups, state.columns)

    def _positional(self, pattern: Pattern, index: int, item: Item, operands: list[Operand],
                    assigned: list[bool], state: _State) -> None:
        inst = pattern.inst
        slot = inst.operands[index]
        kind = slot.kind
        if item.expr is not None and item.has_modifiers:
            raise MatchError("expected an absolute expression", item.column + 1, 60)
        if kind.operand_type == "OPERAND_INPUT_MODS":
            source = index + 1
            fp = "FP" in kind.match_class or kind.print_method == "printOperandAndFPInputMods"
            mods = 0
            if item.neg or item.abs:
                if not fp:
                    raise MatchError("invalid operand for instruction", item.column, 1)
                mods |= (_NEG if item.neg else 0) | (_ABS if item.abs else 0)
            if item.sext:
                if fp:
                    raise MatchError("invalid operand for instruction", item.column, 1)
                mods |= _SEXT
            operands[index] = mods
            assigned[index] = True
            state.columns[source] = item.column
            plain = Item(item.kind, item.column, item.text, item.value, item.real,
                         symbolic=item.symbolic, expr=item.expr, virtual=item.virtual)
            operands[source] = self._value(pattern, inst.operands[source].kind, plain,
                                           state, kind.match_class)
            assigned[source] = True
            return
        if kind.print_method in ("printInterpAttr", "printInterpSlot"):
            self._interp(inst, index, item, operands, assigned)
            return
        if kind.print_method == "printExpTgt":
            if item.kind != "word" and not (item.kind == "reg" and item.text == "null"):
                raise MatchError("invalid operand for instruction", item.column, 5)
            try:
                target = S.exp_target(item.text, self.isa.generation)
            except S.OperandSyntaxError as error:
                raise MatchError(str(error), item.column, 60) from None
            operands[index], assigned[index] = target, True
            return
        if kind.print_method.startswith("printExpSrc") and item.kind == "word" \
                and item.text == "off":
            operands[index], assigned[index] = None, True
            return
        if item.has_modifiers:
            item = _fold_fp_modifiers(item, kind)
        state.columns[index] = item.column
        operands[index] = self._value(pattern, kind, item, state)
        assigned[index] = True

    def _interp(self, inst: InstrDef, index: int, item: Item, operands: list[Operand],
                assigned: list[bool]) -> None:
        """``attr<N>.<x|y|z|w>`` (attribute and channel) or an interpolation slot."""
        text = item.text.lower() if item.kind == "word" else ""
        if inst.operands[index].kind.print_method == "printInterpSlot":
            slot = {"p10": 0, "p20": 1, "p0": 2}.get(text)
            if slot is None:
                raise MatchError("invalid interpolation slot", item.column, 5)
            operands[index], assigned[index] = slot, True
            return
        match = re.fullmatch(r"attr(\d+)\.([xyzw])", text)
        if match is None or int(match.group(1)) > 32:
            raise MatchError("invalid operand for instruction", item.column, 5)
        operands[index], assigned[index] = int(match.group(1)), True
        chan = inst.index.get("attrchan")
        if chan is not None:
            operands[chan], assigned[chan] = "xyzw".index(match.group(2)), True

    def _value(self, pattern: Pattern, kind: OperandKind, item: Item,
               state: _State, mods_class: str = "") -> Operand:
        """``mods_class``: the match class of the source's modifiers operand, if any
        (``RegOrImmWith...`` sources take literals even where their type is inline-only:
        v_fma_mix)."""
        rc = kind.register_class
        literals = state.literals
        if item.kind == "word" and item.text != "scc" and (
                kind.operand_type == "OPERAND_PCREL" or rc is not None):
            item = Item("imm", item.column, item.text,
                        expr=SymbolRefExpr.from_identifier(item.text))
        if item.expr is not None:
            if item.has_modifiers:
                raise MatchError("expected an absolute expression", item.column + 1, 60)
            return self._symbolic(pattern, kind, item.expr, item.column, state)
        if item.virtual:
            return self._virtual(kind, item)
        if item.kind == "reg" or (item.kind == "word" and item.text == "scc" and rc):
            name = "src_scc" if item.kind == "word" else item.text
            if rc is None or not (rc.contains(name) or (
                    name in INLINE_VALUE_REGISTERS and "s" in rc.files)):
                raise MatchError("invalid operand for instruction", item.column, 2)
            if rc.is_lane_mask and self.wave64 and not _is_64bit_register(name):
                if name in ("vcc_lo", "vcc_hi") and kind.print_method != "printOperand":
                    raise MatchError("operands are not valid for this GPU or mode", -1, 2)
                raise MatchError("invalid operand for instruction", item.column, 2)
            if rc.is_lane_mask and not self.wave64 and name != "null" \
                    and _is_64bit_register(name):
                # A lane mask is one SGPR in wave32: vcc, exec, s[0:1] are wave64's (null
                # is either).
                if name == "vcc" and kind.print_method != "printOperand":
                    raise MatchError("operands are not valid for this GPU or mode", -1, 2)
                raise MatchError("invalid operand for instruction", item.column, 2)
            return name
        if item.kind != "imm":
            raise MatchError("invalid operand for instruction", item.column, 2)
        operand_type = kind.operand_type
        if operand_type in ("OPERAND_KIMM32", "OPERAND_KIMM16"):
            bits = 32 if operand_type == "OPERAND_KIMM32" else 16
            value = _fp_bits(item.real, bits) if item.real is not None else item.value
            value &= (1 << bits) - 1
            _add_literal(literals, value, item.column)
            return value
        if rc is not None:
            if item.symbolic:
                raise MatchError("invalid operand for instruction", item.column, 2)
            value = _source_immediate(item, operand_type)
            if value is None:
                raise MatchError("invalid operand for instruction", item.column, 2)
            encoding = literal_encoding(value, operand_type)
            if encoding is None:
                raise MatchError("invalid operand for instruction", item.column, 2)
            if encoding == 255:
                if kind.decoder_method.startswith("decodeSDWA") or (
                        "_INLINE_" in operand_type and not mods_class.startswith("RegOrImm")):
                    raise MatchError("invalid operand for instruction", item.column, 3)
                if not pattern.literal_ok:
                    raise MatchError("literal operands are not supported", item.column, 3)
                _add_literal(literals, literal_dword(value, operand_type), item.column)
            return value
        if operand_type == "OPERAND_INLINE_SPLIT_BARRIER_INT32":
            # GFX12's named-barrier id (LLVM's ``isSplitBarrier``): any inline constant of
            # a 32-bit operand, an integer or a float one (``s_barrier_signal -2.0``), and
            # never a literal.
            value = _source_immediate(item, operand_type) if not item.symbolic else None
            if value is None or not encoding_inline(value, operand_type):
                raise MatchError("invalid operand for instruction", item.column, 2)
            return value
        if item.real is not None:
            raise MatchError("invalid operand for instruction", item.column, 2)
        method = kind.print_method
        if method == "printSMEMOffset":
            check_offset_range(pattern.inst, item.value, item.column, self.flat_offset_bits,
                               self.isa.generation)
        if operand_type == "OPERAND_PCREL" and not -(1 << 15) <= item.value < (1 << 16):
            raise MatchError("expected a 16-bit signed jump offset", item.column, 60)
        if method == "printU16ImmOperand":
            low = 0 if kind.match_class == "U16Imm" else -(1 << 15)
            if not low <= item.value < (1 << 16):
                raise MatchError("invalid operand for instruction", item.column, 5)
        if method == "printGPRIdxMode" and not 0 <= item.value < 16:
            raise MatchError("invalid immediate: only 4-bit values are legal", item.column, 60)
        if method in ("printHwreg", "printSendMsg", "printSWaitCnt") and \
                not -(1 << 15) <= item.value < (1 << 16):
            raise MatchError("invalid immediate: only 16-bit values are legal", item.column, 5)
        return item.value

    def _virtual(self, kind: OperandKind, item: Item) -> str:
        """A virtual register fits a register slot of its file and width (a lane-mask
        slot is as wide as the wave); the allocator picks a member of the class later."""
        rc = kind.register_class
        if rc is None or item.text[:1] not in rc.files:
            raise MatchError("invalid operand for instruction", item.column, 2)
        width = self.isa.wavefront_size if rc.is_lane_mask else rc.width
        if item.virtual != width:
            raise MatchError("invalid operand for instruction", item.column, 2)
        return item.text

    def _symbolic(self, pattern: Pattern, kind: OperandKind, expr: SymExpr, column: int,
                  state: _State) -> Operand:
        """A symbolic operand: a placeholder value now, a fixup for the bytes."""
        operand_type = kind.operand_type
        if operand_type == "OPERAND_PCREL":
            if not isinstance(expr, SymbolRefExpr):
                raise MatchError("expected an absolute expression or a label", column, 60)
            state.fixups.append(Fixup(0, 2, expr, "fixup_si_sopp_br",
                                      print_immediate(BRANCH_PLACEHOLDER, operand_type)))
            return BRANCH_PLACEHOLDER
        if kind.register_class is None or literal_encoding(0, operand_type) is None \
                or "64" in operand_type or "16" in operand_type:
            raise MatchError("invalid operand for instruction", column, 2)
        if not pattern.literal_ok:
            raise MatchError("literal operands are not supported", column, 3)
        _add_literal(state.literals, -(1 << 40) - len(state.fixups), column)
        kind_name = "FK_PCRel_4" if expr.needs_pc_relative() else "FK_Data_4"
        state.fixups.append(Fixup(pattern.inst.size, 4, expr, kind_name,
                                  print_immediate(LITERAL_PLACEHOLDER, operand_type)))
        return LITERAL_PLACEHOLDER

    # -- named operands -------------------------------------------------------------------

    def _named(self, pattern: Pattern, item: Item, operands: list[Operand],
               assigned: list[bool]) -> None:
        inst = pattern.inst
        key = item.text.lower()
        for index in pattern.named:
            slot = inst.operands[index]
            handler = _NAMED_HANDLERS.get(slot.kind.print_method)
            if handler is None and slot.kind.print_method.startswith("printNamedBit:"):
                handler = _named_bit(slot.kind.print_method.split(":", 1)[1])
            if handler is None:
                continue
            if handler(self, inst, index, key, item, operands, assigned):
                return
        if item.kind == "named" and key not in _KNOWN_NAMED_KEYS:
            raise MatchError("not a valid operand.", item.column, 90)
        if item.kind == "word" and key in _OTHER_GENERATION_FLAGS:
            raise MatchError(f"{key} modifier is not supported on this GPU", item.column, 90)
        raise MatchError("invalid operand for instruction", item.column, 4)

    def _check_required(self, inst: InstrDef, operands: list[Operand], assigned: list[bool],
                        matched: int) -> None:
        """Named operands that select a variant: an SMEM ``offset:`` next to an SGPR
        offset, and the ``glc`` that distinguishes a returning atomic."""
        for index, slot in enumerate(inst.operands):
            kind = slot.kind
            if kind.print_method == "printSMEMOffsetMod" and not assigned[index] \
                    and kind.match_class != "OptSMEMOffsetMod":
                raise MatchError("too few operands for instruction", -1, matched)
            if kind.print_method == "printCPol" and self.isa.generation >= 12:
                value = operands[index]
                operands[index] = _finish_th_scope(
                    inst, value if isinstance(value, int) and assigned[index] else 0)
            if kind.match_class in ("CPol_GLC", "CPol_NonGLC"):
                value = operands[index] if assigned[index] else 0
                glc = isinstance(value, int) and bool(value & 1)
                if glc != (kind.match_class == "CPol_GLC"):
                    raise MatchError("invalid operand for instruction", -1, matched)

    def _defaults(self, inst: InstrDef, operands: list[Operand], assigned: list[bool]) -> None:
        # A packed instruction's op_sel_hi defaults to all ones (LLVM's cvtVOP3P); one
        # without the operand (GFX11 v_dot2_f16_f16, WMMA) keeps OP_SEL_1 for op_sel's
        # destination bit.
        packed = "IsPacked" in inst.classes and inst.has("op_sel_hi")
        for index, slot in enumerate(inst.operands):
            if assigned[index]:
                continue
            kind = slot.kind
            partner = inst.tied.get(slot.name)
            if partner is not None and inst.has(partner) and assigned[inst.index[partner]]:
                operands[index] = operands[inst.index[partner]]
                continue
            if kind.operand_type == "OPERAND_INPUT_MODS":
                operands[index] = 0
            elif kind.print_method in ("printSDWADstSel", "printSDWASrc0Sel",
                                       "printSDWASrc1Sel"):
                operands[index] = 6
            elif kind.print_method == "printSDWADstUnused":
                operands[index] = 2
            elif kind.print_method == "printDPPCtrl":
                operands[index] = 0xE4
            elif kind.print_method == "printFORMAT":
                operands[index] = 1
            elif kind.decoder_method == "decodeDpp8FI":
                operands[index] = DPP8_FI_0
            elif not kind.is_register and kind.default is not None:
                operands[index] = int(str(kind.default), 0)
            elif kind.is_register:
                operands[index] = None
            else:
                operands[index] = 0
        if packed:
            for src in ("src0", "src1", "src2"):
                mods_name = src + "_modifiers"
                if inst.has(mods_name) and not _explicit(inst, assigned, "op_sel_hi"):
                    value = operands[inst.index[mods_name]]
                    operands[inst.index[mods_name]] = (value if isinstance(value, int)
                                                       else 0) | _OP_SEL_1


def _export_enables(inst: InstrDef, operands: list[Operand], assigned: list[bool]) -> None:
    """``exp``'s enable mask from the sources that are not ``off``; ``compr`` exports
    pack the third source into the second slot (LLVM's ``cvtExp``)."""
    sources = [inst.index[f"src{i}"] for i in range(4)]
    compr = bool(operands[inst.index["compr"]]) and assigned[inst.index["compr"]]
    if compr:
        operands[sources[1]] = operands[sources[2]]
        operands[sources[2]] = operands[sources[3]] = None
    enabled = 0
    for i, index in enumerate(sources):
        if operands[index] is not None:
            enabled |= (3 << 2 * i) if compr else 1 << i
    operands[inst.index["en"]], assigned[inst.index["en"]] = enabled, True


def _explicit(inst: InstrDef, assigned: list[bool], name: str) -> bool:
    """Whether a named operand (``op_sel_hi``) was written."""
    return inst.has(name) and assigned[inst.index[name]]


def _add_literal(literals: set[int], value: int, column: int) -> None:
    """GFX9 instructions hold at most one literal dword (shared by equal constants)."""
    if literals and value not in literals:
        raise MatchError("only one unique literal operand is allowed", column, 50)
    literals.add(value)


def _fold_fp_modifiers(item: Item, kind: OperandKind) -> Item:
    """``neg()``/``abs()`` on an immediate for an operand without modifier bits: LLVM
    applies them to the value's sign bit (of a double for reals, else of the operand)."""
    if item.kind == "reg":
        raise MatchError("not a valid operand.", item.column, 1)
    if item.kind != "imm" or item.sext or "FP" not in kind.operand_type:
        raise MatchError("invalid operand for instruction", item.column, 1)
    if item.real is None and "FP64" in kind.operand_type:
        # Sign bits of an integer token cannot mean the same in 32 and 64 bits.
        raise MatchError("invalid operand for instruction", item.column, 1)
    if item.real is not None:
        real = abs(item.real) if item.abs else item.real
        return Item("imm", item.column, item.text, real=-real if item.neg else real)
    bits = _type_bits(kind.operand_type)
    sign = 1 << (bits - 1)
    value = item.value & ((1 << bits) - 1)
    if item.abs:
        value &= ~sign
    if item.neg:
        value ^= sign
    return Item("imm", item.column, item.text, value=value)


def _is_named_item(item: Item, step_kind: str, step: int | str, inst: InstrDef) -> bool:
    if item.kind == "named":
        return True
    if item.kind == "word" and item.text == "scc" and step_kind == "slot" \
            and isinstance(step, int):
        kind = inst.operands[step].kind
        if kind.operand_type == "OPERAND_INPUT_MODS" and step + 1 < len(inst.operands):
            kind = inst.operands[step + 1].kind
        rc = kind.register_class
        if rc is not None and "s" in rc.files:
            return False
    if item.kind == "word" and item.text.lower() in FLAG_WORDS:
        return not (step_kind == "word" and item.text.lower() == step)
    return False


def _fp_bits(value: float, bits: int) -> int:
    """IEEE bits of ``value`` rounded to ``bits``; like LLVM, a value that overflows or
    underflows to zero in the narrower format is not a valid literal."""
    try:
        if bits == 64:
            return struct.unpack("<Q", struct.pack("<d", value))[0]
        if bits == 32:
            packed = struct.pack("<f", value)
            result: int = struct.unpack("<I", packed)[0]
        else:
            packed = struct.pack("<e", value)
            result = struct.unpack("<H", packed)[0]
    except (OverflowError, struct.error):
        raise MatchError("invalid operand for instruction", -1, 2) from None
    if value != 0 and result & ((1 << (bits - 1)) - 1) == 0:
        raise MatchError("invalid operand for instruction", -1, 2)
    return result


_INV_2PI_DOUBLE = 0x3FC45F306725FEED


def _bf16_bits(value: float) -> int:
    """bfloat16 bits of ``value``, rounded to nearest even; like :func:`_fp_bits`, a
    value that overflows or underflows to zero is not a valid literal."""
    if struct.pack("<d", value) == struct.pack("<Q", _INV_2PI_DOUBLE):
        # LLVM keeps the idiomatic fp32 1/(2*pi), 0.15915494, as the inline bf16 constant
        # (truncated, not rounded).
        return 0x3E22
    single = _fp_bits(value, 32)
    rounded = (single + 0x7FFF + ((single >> 16) & 1)) >> 16
    if rounded & 0x7FFF == 0x7F80 or (value != 0 and rounded & 0x7FFF == 0):
        raise MatchError("invalid operand for instruction", -1, 2)
    return rounded & 0xFFFF


def _type_bits(operand_type: str) -> int:
    if "64" in operand_type:
        return 64
    if "16" in operand_type:
        return 16
    return 32


def _source_immediate(item: Item, operand_type: str) -> int | None:
    """An immediate for a register-or-immediate source, as LLVM's parser stores it."""
    bits = _type_bits(operand_type)
    is_fp = "FP" in operand_type
    if item.real is not None:
        if bits == 64 and "INT64" in operand_type:
            value = _fp_bits(item.real, 64)
            return value if encoding_inline(value, operand_type) else None
        if bits == 64:
            value = _fp_bits(item.real, 64)
            encoding = literal_encoding(value, operand_type)
            if encoding == 255:
                value &= 0xFFFFFFFF00000000
            return value
        if "INT16" in operand_type:
            return _fp_bits(item.real, 32)
        if "BF16" in operand_type:
            return _bf16_bits(item.real)
        return _fp_bits(item.real, bits)
    value = item.value
    if bits == 64:
        if encoding_inline(value, operand_type):
            return value
        if not -(1 << 31) <= value < (1 << 32):
            return None  # a 64-bit operand's literal is one 32-bit dword
        return (value & 0xFFFFFFFF) << 32 if is_fp else value & 0xFFFFFFFF
    if bits == 16 and "V2" in operand_type:
        bits = 32  # integer tokens for packed halves are 32-bit values
    if bits == 16 and "INT16" in operand_type:
        if -16 <= value <= 64:
            return value
        if not -(1 << 15) <= value < (1 << 16):
            return None
        return value & 0xFFFF
    if bits == 16:
        if not -(1 << 15) <= value < (1 << 16):
            return None
        if encoding_inline(value & 0xFFFF, operand_type):
            return value
        return value & 0xFFFF
    if not -(1 << 31) <= value < (1 << 32):
        return None
    if encoding_inline(value, operand_type):
        return value
    return value & 0xFFFFFFFF


def encoding_inline(value: int, operand_type: str) -> bool:
    encoding = literal_encoding(value, operand_type)
    return encoding is not None and encoding != 255


# -- named operand handlers ---------------------------------------------------------------

NamedHandler = Callable[[Matcher, InstrDef, int, str, Item, list[Operand], list[bool]], bool]


def _set(operands: list[Operand], assigned: list[bool], index: int, value: int) -> bool:
    operands[index] = value
    assigned[index] = True
    return True


def _int_arg(item: Item) -> int:
    if not isinstance(item.arg, int):
        raise MatchError("expected absolute expression", item.column, 5)
    return item.arg


def _named_bit(name: str) -> NamedHandler:
    def handle(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
               operands: list[Operand], assigned: list[bool]) -> bool:
        if item.kind != "word" or key not in (name, "no" + name):
            return False
        if key == "gds" and not m.has_gds:
            raise MatchError("gds modifier is not supported on this GPU", item.column, 60)
        return _set(operands, assigned, index, 0 if key.startswith("no") else 1)

    return handle


def _cpol(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
          operands: list[Operand], assigned: list[bool]) -> bool:
    if m.isa.generation >= 12:
        return _th_scope(index, key, item, operands, assigned)
    if item.kind != "word":
        return False
    if m.gfx940:
        bits = {"sc0": 1, "nt": 2, "sc1": 16}
    elif m.isa.generation in (10, 11):
        bits = {"glc": 1, "slc": 2, "dlc": 4}
    else:
        bits = {"glc": 1, "slc": 2, "scc": 16} if m.gfx90a else {"glc": 1, "slc": 2}
    if "SMRD" in inst.classes:
        if key in ("slc", "scc", "nt", "sc1", "sc0"):
            raise MatchError("invalid cache policy for SMEM instruction", -1, 60)
        bits = {"glc": 1, "dlc": 4} if m.isa.generation in (10, 11) else {"glc": 1}
    if key.startswith("no") and key[2:] in bits:
        value = operands[index]
        current = value if isinstance(value, int) and assigned[index] else 0
        return _set(operands, assigned, index, current & ~bits[key[2:]])
    bit = bits.get(key)
    if bit is None:
        return False
    value = operands[index]
    current = value if isinstance(value, int) and assigned[index] else 0
    if current & bit:
        raise MatchError("duplicate cache policy modifier", item.column, 6)
    return _set(operands, assigned, index, current | bit)


def _th_scope(index: int, key: str, item: Item, operands: list[Operand],
              assigned: list[bool]) -> bool:
    """GFX12 cache policy: ``th:TH_<LOAD|STORE|ATOMIC>_<hint>`` and ``scope:SCOPE_<..>``
    (LLVM's ``parseTH``/``parseScope``). The value keeps LLVM's helper bits (kind of hint,
    BYPASS) until :func:`_finish_th_scope` has checked them."""
    if item.kind != "named" or key not in ("th", "scope"):
        return False
    current = operands[index] if assigned[index] and isinstance(operands[index], int) else 0
    assert isinstance(current, int)
    if not isinstance(item.arg, str):
        raise MatchError(f"invalid {key} value", item.column, 60)
    try:
        if key == "scope":
            value = (current & ~S.CPOL_SCOPE_MASK) | S.cpol_scope(item.arg)
        else:
            value = (current & S.CPOL_SCOPE_MASK) | S.cpol_th(item.arg)
    except S.OperandSyntaxError as error:
        raise MatchError(str(error), item.column, 60) from None
    return _set(operands, assigned, index, value)


def _finish_th_scope(inst: InstrDef, value: int) -> int:
    """The GFX12 cache policy's checks once th and scope are both known (LLVM's
    ``validateTHAndScopeBits``); returns the encoded bits without the helper bits."""
    th, scope = value & S.CPOL_TH_MASK, value & S.CPOL_SCOPE_MASK
    classes = inst.classes
    if "IsAtomicRet" in classes and classes & {"FLAT", "MUBUF"} and not th & 1:
        raise MatchError("instruction must use th:TH_ATOMIC_RETURN", -1, 70)
    if th:
        if "SMRD" in classes and th in (4, 5, 6):
            raise MatchError("invalid th value for SMEM instruction", -1, 70)
        bypass = bool(value & S.CPOL_TH_REAL_BYPASS)
        if th == 3 and (scope == S.CPOL_SCOPE_SYS) != bypass:
            raise MatchError("scope and th combination is not valid", -1, 70)
        if classes & {"IsAtomicRet", "IsAtomicNoRet"}:
            expected, kind_bit = "atomic", S.CPOL_TH_TYPE_ATOMIC
        elif "mayStore" in inst.flags:
            expected, kind_bit = "store", S.CPOL_TH_TYPE_STORE
        else:
            expected, kind_bit = "load", S.CPOL_TH_TYPE_LOAD
        if not value & kind_bit:
            raise MatchError(f"invalid th value for {expected} instructions", -1, 70)
    return th | scope


def _keyed(name: str, transform: Callable[[int], int] = lambda v: v) -> NamedHandler:
    def handle(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
               operands: list[Operand], assigned: list[bool]) -> bool:
        if item.kind != "named" or key != name:
            return False
        return _set(operands, assigned, index, transform(_int_arg(item)))

    return handle


def _omod(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
          operands: list[Operand], assigned: list[bool]) -> bool:
    if item.kind != "named" or key not in ("mul", "div"):
        return False
    value = _int_arg(item)
    table = {("mul", 1): 0, ("mul", 2): 1, ("mul", 4): 2, ("div", 1): 0, ("div", 2): 3}
    code = table.get((key, value))
    if code is None:
        raise MatchError("invalid " + key + " value.", item.column, 6)
    return _set(operands, assigned, index, code)


def _clamp_like(word: str) -> NamedHandler:
    def handle(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
               operands: list[Operand], assigned: list[bool]) -> bool:
        return item.kind == "word" and key == word and _set(operands, assigned, index, 1)

    return handle


def _packed(name: str, bit: int) -> NamedHandler:
    def handle(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
               operands: list[Operand], assigned: list[bool]) -> bool:
        if item.kind != "named" or key != name:
            return False
        values = item.arg
        if not isinstance(values, list) or any(v not in (0, 1) for v in values):
            raise MatchError("invalid " + name + " value.", item.column, 6)
        sources = [s for s in ("src0", "src1", "src2") if inst.has(s)]
        has_dst = name == "op_sel" and "VOP3_OPSEL" in inst.classes
        if not 1 <= len(values) <= 4:
            raise MatchError("invalid " + name + " value.", item.column, 6)
        for i, src in enumerate(sources):
            mods_index = inst.index.get(src + "_modifiers")
            if mods_index is None or i >= len(values):
                continue
            current = operands[mods_index]
            current = current if isinstance(current, int) else 0
            operands[mods_index] = (current | bit) if values[i] else current & ~bit
            assigned[mods_index] = True
        if has_dst and len(values) > len(sources):
            mods_index = inst.index["src0_modifiers"]
            current = operands[mods_index]
            current = current if isinstance(current, int) else 0
            if values[-1]:
                operands[mods_index] = current | _OP_SEL_1
        return _set(operands, assigned, index, 0)

    return handle


def _dpp(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
         operands: list[Operand], assigned: list[bool]) -> bool:
    if key not in S.DPP_CTRL_NAMES:
        return False
    arg = item.arg if item.kind == "named" else None
    if isinstance(arg, str):
        return False
    try:
        value = S.dpp_ctrl(key, arg, m.gfx90a, m.isa.generation >= 10)
    except S.OperandSyntaxError as error:
        raise MatchError(str(error), item.column, 6) from None
    return _set(operands, assigned, index, value)


#: DPP8's fetch-inactive flag lives in the src0 field: 0xE9 (off) or 0xEA (fi:1).
DPP8_FI_0, DPP8_FI_1 = 0xE9, 0xEA


def _dpp_fi(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
            operands: list[Operand], assigned: list[bool]) -> bool:
    if key != "fi" or item.kind != "named":
        return False
    if item.arg not in (0, 1):
        raise MatchError("invalid fi value", item.column, 6)
    if inst.operands[index].kind.decoder_method == "decodeDpp8FI":
        return _set(operands, assigned, index, DPP8_FI_1 if item.arg else DPP8_FI_0)
    return _set(operands, assigned, index, int(bool(item.arg)))


def _dpp8(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
          operands: list[Operand], assigned: list[bool]) -> bool:
    if key != "dpp8" or item.kind != "named":
        return False
    lanes = item.arg
    if not isinstance(lanes, list) or len(lanes) != 8 or any(not 0 <= x < 8 for x in lanes):
        raise MatchError("invalid dpp8 value", item.column, 6)
    return _set(operands, assigned, index, sum(x << (3 * i) for i, x in enumerate(lanes)))


def _bound_ctrl(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
                operands: list[Operand], assigned: list[bool]) -> bool:
    if key != "bound_ctrl":
        return False
    if item.kind == "named" and item.arg not in (0, 1):
        raise MatchError("invalid bound_ctrl value", item.column, 6)
    # Before GFX11 both bound_ctrl:0 and bound_ctrl:1 set the bit (sp3's spelling);
    # from GFX11 on the value is the bit.
    if item.kind == "named" and m.isa.generation >= 11:
        return _set(operands, assigned, index, int(item.arg == 1))
    return _set(operands, assigned, index, 1)


def _sdwa_sel(name: str, table: dict[str, int]) -> NamedHandler:
    def handle(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
               operands: list[Operand], assigned: list[bool]) -> bool:
        if item.kind != "named" or key != name:
            return False
        value = table.get(str(item.arg)) if isinstance(item.arg, str) else None
        if value is None:
            raise MatchError("invalid " + name + " value", item.column, 6)
        return _set(operands, assigned, index, value)

    return handle


def _format(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
            operands: list[Operand], assigned: list[bool]) -> bool:
    if item.kind != "named" or key not in ("format", "dfmt", "nfmt"):
        return False
    current = operands[index] if assigned[index] and isinstance(operands[index], int) else 1
    assert isinstance(current, int)
    if key == "dfmt":
        return _set(operands, assigned, index, (current & ~0xF) | (_int_arg(item) & 0xF))
    if key == "nfmt":
        return _set(operands, assigned, index, (current & 0xF) | (_int_arg(item) & 7) << 4)
    if isinstance(item.arg, int):
        return _set(operands, assigned, index, item.arg)
    if m.isa.generation >= 10:
        unified = UNIFIED_FORMATS_GFX10 if m.isa.generation == 10 else UNIFIED_FORMATS_GFX11
        name = str(item.arg).strip()
        if name in unified:
            return _set(operands, assigned, index, unified.index(name))
        # GFX9's split names name the unified format of that data and numeric format.
        try:
            dfmt, nfmt = S.split_format(name.split(","))
        except S.OperandSyntaxError as error:
            raise MatchError(str(error), item.column, 6) from None
        data = P.DFMT_NAMES[dfmt].removeprefix("BUF_DATA_FORMAT_")
        numeric = P.NFMT_NAMES_GFX9[nfmt].removeprefix("BUF_NUM_FORMAT_")
        name = "BUF_FMT_INVALID" if data == "INVALID" and numeric == "UNORM" \
            else f"BUF_FMT_{data}_{numeric}"
        if name in unified:
            return _set(operands, assigned, index, unified.index(name))
        raise MatchError("unsupported format", item.column, 6)
    try:
        dfmt, nfmt = S.split_format(str(item.arg).split(","))
    except S.OperandSyntaxError as error:
        raise MatchError(str(error), item.column, 6) from None
    return _set(operands, assigned, index, dfmt | nfmt << 4)


def _dim(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
         operands: list[Operand], assigned: list[bool]) -> bool:
    """GFX10+ image ``dim:``: ``SQ_RSRC_IMG_2D``, its suffix alone, or the encoding."""
    if item.kind != "named" or key != "dim":
        return False
    if isinstance(item.arg, int):
        return _set(operands, assigned, index, item.arg)
    suffix = str(item.arg).upper().removeprefix("SQ_RSRC_IMG_")
    for encoding, dim in m.isa.mimg_dims.items():
        if dim.suffix == suffix:
            return _set(operands, assigned, index, encoding)
    raise MatchError("invalid dim value", item.column, 6)


def _blgp(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
          operands: list[Operand], assigned: list[bool]) -> bool:
    neg_spelling = m.gfx940 and inst.name.startswith(("V_MFMA_F64_16X16X4F64_gfx940",
                                                      "V_MFMA_F64_4X4X4F64_gfx940"))
    if key == "blgp" and item.kind == "named":
        if neg_spelling:
            raise MatchError("invalid modifier: blgp is not supported", item.column, 60)
        return _set(operands, assigned, index, _int_arg(item))
    if key == "neg" and item.kind == "named" and isinstance(item.arg, list) and neg_spelling:
        bits = item.arg
        return _set(operands, assigned, index, sum(b << i for i, b in enumerate(bits)))
    return False


def _r128(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
          operands: list[Operand], assigned: list[bool]) -> bool:
    """One bit, spelled ``a16`` on targets with FeatureR128A16 and ``r128`` elsewhere."""
    if item.kind != "word" or key not in ("r128", "a16"):
        return False
    if (key == "a16") != m.isa.has_feature("FeatureR128A16"):
        if key == "a16" and inst.has("a16") and inst.index["a16"] != index:
            return False  # GFX10+ images: a16 is an operand of its own
        raise MatchError(f"{key} modifier is not supported on this GPU", item.column, 60)
    return _set(operands, assigned, index, 1)


def _offset_handler(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
                    operands: list[Operand], assigned: list[bool]) -> bool:
    if item.kind != "named" or key != "offset":
        return False
    value = _int_arg(item)
    check_offset_range(inst, value, item.column, m.flat_offset_bits, m.isa.generation)
    return _set(operands, assigned, index, value)


def check_offset_range(inst: InstrDef, value: int, column: int, flat_bits: int,
                       generation: int = 9) -> None:
    """The offset ranges LLVM's parser enforces, with its messages (``flat_bits``: the
    target's signed global/scratch offset width; GFX12 made FLAT, SMEM and buffer offsets
    24-bit signed)."""
    classes = inst.classes
    if classes & {"FlatGlobal", "FlatScratch"} or ("FLAT" in classes and generation >= 12):
        half = 1 << (flat_bits - 1)
        ok, message = -half <= value < half, f"expected a {flat_bits}-bit signed offset"
    elif "FLAT" in classes:
        ok = 0 <= value < (1 << (flat_bits - 1))
        message = f"expected a {flat_bits - 1}-bit unsigned offset"
    elif "SMRD" in classes and generation >= 12:
        ok, message = -(1 << 23) <= value < (1 << 23), "expected a 24-bit signed offset"
    elif "SMRD" in classes:
        sbase = inst.operands[inst.index["sbase"]] if inst.has("sbase") else None
        if sbase is not None and sbase.kind.width == 128:
            ok, message = 0 <= value < (1 << 20), "expected a 20-bit unsigned offset"
        else:
            ok = -(1 << 20) <= value < (1 << 20)
            message = "expected a 21-bit signed offset"
    elif classes & {"MUBUF", "MTBUF"} and generation >= 12:
        ok, message = -(1 << 23) <= value < (1 << 23), "expected a 24-bit signed offset"
    else:
        ok, message = 0 <= value < (1 << 16), "expected a 16-bit unsigned offset"
    if not ok:
        raise MatchError(message, column, 60)


def _named_int(name: str, maximum: int, out_of_range: bool) -> NamedHandler:
    def handle(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
               operands: list[Operand], assigned: list[bool]) -> bool:
        if item.kind != "named" or key != name:
            return False
        value = _int_arg(item)
        if not 0 <= value <= maximum:
            raise MatchError(f"out of range {name}" if out_of_range
                             else f"invalid {name} value.", item.column, 60)
        return _set(operands, assigned, index, value)

    return handle


def _offset8(name: str) -> NamedHandler:
    def handle(m: Matcher, inst: InstrDef, index: int, key: str, item: Item,
               operands: list[Operand], assigned: list[bool]) -> bool:
        if item.kind != "named" or key != name:
            return False
        value = _int_arg(item)
        if not 0 <= value < 256:
            raise MatchError(f"invalid {name} value.", item.column, 60)
        return _set(operands, assigned, index, value)

    return handle


_NAMED_HANDLERS: dict[str, NamedHandler] = {
    "printCPol": _cpol,
    "printDMask": _keyed("dmask"),
    "printDPPCtrl": _dpp,
    "printDppBankMask": _keyed("bank_mask"),
    "printDppRowMask": _keyed("row_mask"),
    "printDppBoundCtrl": _bound_ctrl,
    "printDppFI": _dpp_fi,
    "printDPP8": _dpp8,
    "printFORMAT": _format,
    "printDim": _dim,
    "printFlatOffset": _offset_handler,
    "printOffset": _offset_handler,
    "printSMEMOffsetMod": _offset_handler,
    "printSwizzle": _offset_handler,
    "printOffset0": _offset8("offset0"),
    "printOffset1": _offset8("offset1"),
    "printOModSI": _omod,
    "printOpSel": _packed("op_sel", _OP_SEL_0),
    "printOpSelHi": _packed("op_sel_hi", _OP_SEL_1),
    "printNegLo": _packed("neg_lo", _NEG),
    "printNegHi": _packed("neg_hi", _NEG_HI),
    "printABID": _keyed("abid"),
    "printCBSZ": _keyed("cbsz"),
    "printBLGP": _blgp,
    "printR128A16": lambda m, i, x, k, it, o, a: _r128(m, i, x, k, it, o, a),
    "printSDWADstSel": _sdwa_sel("dst_sel", S.SDWA_SELS),
    "printSDWASrc0Sel": _sdwa_sel("src0_sel", S.SDWA_SELS),
    "printSDWASrc1Sel": _sdwa_sel("src1_sel", S.SDWA_SELS),
    "printSDWADstUnused": _sdwa_sel("dst_unused", S.SDWA_DST_UNUSED),
    **{method: _named_int(name, maximum, out_of_range)
       for method, (name, maximum, out_of_range) in _NAMED_INTS.items()},
}
del _clamp_like


@functools.cache
def matcher_for(target: str) -> Matcher:
    return Matcher(load_target(target))
