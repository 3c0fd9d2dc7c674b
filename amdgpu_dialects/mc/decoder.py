"""Table-driven AMDGPU instruction decoder.

For each decoder namespace the candidates (instructions whose fixed bits match a word) are
found through a decision tree built from the tables' fixed-bit masks: each node switches on
the bits that all of its candidates fix, so a word reaches a short list of candidates in a
few dictionary look-ups. Namespaces are tried in the order LLVM's disassembler tries its
decoder tables for the target (64-bit encodings first, then 32-bit), and within a namespace
the candidate with the most fixed bits wins.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from luthier.amdgpu_dialects.isa.target import (
    InstrDef,
    MIMGInfo,
    OperandSlot,
    TargetISA,
    load_target,
)
from luthier.amdgpu_dialects.mc.implicit_bits import implicit_bits
from luthier.amdgpu_dialects.mc.operand_decoders import (
    DecodeState,
    Literal,
    Operand,
    OperandDecodeError,
    OperandDecoder,
    OperandDecoders,
)


class DecodeError(Exception):
    """The bytes are not a valid instruction of the target. The message is llvm-mc's
    (``invalid instruction encoding``); :attr:`detail` says, where it can, why: which
    instruction the bits match and which operand field none of its values fits."""

    def __init__(self, message: str, explain: Callable[[], str] | None = None) -> None:
        super().__init__(message)
        self._explain = explain

    @property
    def detail(self) -> str:
        """Worked out when asked (a disassembler that meets many invalid words, or a lifter
        probing data, never asks)."""
        return self._explain() if self._explain is not None else ""


@dataclass(slots=True)
class MCInst:
    """A decoded instruction: its definition and operand values, parallel to ``desc.operands``.

    ``literal`` is the trailing literal dword when the encoding has one; ``size`` counts it.
    ``encoding`` holds the bytes the instruction was decoded from (empty for instructions
    built otherwise): re-emitting an unchanged instruction reproduces them exactly, even
    where LLVM's canonical re-encoding would differ (an inline constant that the encoder
    would spell as a literal, don't-care bits that were set).
    """

    desc: InstrDef
    operands: list[Operand]
    size: int
    literal: int | None = None
    address: int = 0
    encoding: bytes = b""
    #: Where the word's bits that the record leaves undefined (``InstrDef.unknown``)
    #: differ from what the encoder writes there (``implicit_bits``), as a mask to XOR
    #: into the canonical word: 0 for compiled code, which LLVM encodes canonically; set
    #: when a newer compiler gives those bits a meaning LLVM 19's records lack (real
    #: true16's op_sel on ``v_cndmask_b16``) or a word was set by hand.
    unmodelled: int = 0

    def operand(self, name: str) -> Operand:
        index = self.desc.index.get(name)
        return None if index is None else self.operands[index]


# ---------------------------------------------------------------------------------------
# Candidate look-up
# ---------------------------------------------------------------------------------------


class _Node:
    """A decision-tree node: switch on ``mask`` bits, or scan ``candidates`` at a leaf."""

    __slots__ = ("mask", "children", "candidates")

    def __init__(self) -> None:
        self.mask = 0
        self.children: dict[int, _Node] = {}
        self.candidates: list[InstrDef] = []


def _build_tree(candidates: list[InstrDef], tested: int, word_mask: int) -> _Node:
    node = _Node()
    common = word_mask & ~tested
    for inst in candidates:
        common &= inst.mask
    if len(candidates) <= 2 or not common:
        node.candidates = candidates
        return node
    groups: dict[int, list[InstrDef]] = {}
    for inst in candidates:
        groups.setdefault(inst.value & common, []).append(inst)
    node.mask = common
    node.children = {
        key: _build_tree(group, tested | common, word_mask) for key, group in groups.items()
    }
    return node


def _lookup(node: _Node, word: int) -> InstrDef | None:
    while node.mask:
        child = node.children.get(word & node.mask)
        if child is None:
            return None
        node = child
    for inst in node.candidates:
        if word & inst.mask == inst.value:
            return inst
    return None


_PREFIX_SHIFT = 23
_PREFIX_MASK = 0x1FF << _PREFIX_SHIFT
#: Bound on memoised decodes per decoder (the memo is cleared when it fills).
_MEMO_LIMIT = 1 << 17


def _trees_by_prefix(trees: list[_Node], groups: list[list[InstrDef]]) -> list[list[_Node]]:
    """For each 9-bit prefix of the first dword, the trees that may match a word with it.

    A candidate fixes some prefix bits (``mask``) to ``value`` and leaves the others free,
    so it matches exactly the prefixes ``value | s`` for every subset ``s`` of its free
    bits: enumerating those per distinct (mask, value) pair visits each matching prefix
    once, instead of testing every candidate against all 512 prefixes."""
    out: list[list[_Node]] = [[] for _ in range(512)]
    for tree, group in zip(trees, groups, strict=True):
        prefixes: set[int] = set()
        for mask, value in {((inst.mask & _PREFIX_MASK) >> _PREFIX_SHIFT,
                             (inst.value & _PREFIX_MASK) >> _PREFIX_SHIFT) for inst in group}:
            free = ~mask & 0x1FF
            fixed = value & mask
            subset = free
            while True:
                prefixes.add(fixed | subset)
                if not subset:
                    break
                subset = (subset - 1) & free
        for prefix in prefixes:
            out[prefix].append(tree)
    return out


def _wider_first_dwords(by_ns: dict[tuple[str, int], list[InstrDef]], isa: TargetISA
                        ) -> tuple[tuple[tuple[int, frozenset[int]], ...], ...]:
    """Per prefix of the first dword, what the candidates wider than 32 bits fix in their
    first dword, over the namespaces the target tries: each mask, with the values fixed
    under it."""
    found: list[dict[int, set[int]]] = [{} for _ in range(512)]
    for width, namespaces in _namespace_order(isa):
        if width == 4:
            continue
        for namespace in namespaces:
            for inst in by_ns.get((namespace, width), []):
                mask, value = inst.mask & 0xFFFFFFFF, inst.value & 0xFFFFFFFF
                prefix_mask = (mask & _PREFIX_MASK) >> _PREFIX_SHIFT
                prefix_value = (value & _PREFIX_MASK) >> _PREFIX_SHIFT
                free = ~prefix_mask & 0x1FF
                subset = free
                while True:
                    found[(prefix_value & prefix_mask) | subset].setdefault(
                        mask, set()).add(value & mask)
                    if not subset:
                        break
                    subset = (subset - 1) & free
    return tuple(tuple((mask, frozenset(values)) for mask, values in masks.items())
                 for masks in found)


def _priority(inst: InstrDef) -> tuple[int, str]:
    """More fixed bits first: the more specific encoding wins an overlap."""
    return (-inst.mask.bit_count(), inst.name)


# ---------------------------------------------------------------------------------------
# Decoder
# ---------------------------------------------------------------------------------------


def _namespace_order(isa: TargetISA) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(encoding bytes, decoder namespaces) in the order LLVM's disassembler tries them.

    Wider encodings come first (GFX11+ has 96-bit VOP3 DPP encodings, which a 64-bit or
    32-bit reading would take for something else). Namespaces absent from the target's
    table hold nothing for it and cost nothing.
    """
    generation = isa.generation
    if generation >= 11:
        family = f"GFX{generation}"
        wide = (family, f"{family}_FAKE16", f"{family}W64")
        order96 = wide if generation >= 12 else wide[:2]
        return ((12, order96), (8, wide), (4, ("AMDGPU", family, f"{family}_FAKE16")))
    if generation == 10:
        return ((8, ("GFX10_B", "GFX10")), (4, ("AMDGPU", "GFX10_B", "GFX10")))
    order64: list[str] = []
    if isa.has_feature("FeatureFmaMixInsts"):
        order64.append("GFX9_DL")
    if isa.is_gfx940:
        order64.append("GFX940")
    if isa.is_gfx90a:
        order64.append("GFX90A")
    order64 += ["GFX8", "GFX9"]
    order32 = ["GFX8", "AMDGPU", "GFX9"]
    if isa.is_gfx90a:
        order32.append("GFX90A")
    return ((8, tuple(order64)), (4, tuple(order32)))


#: Per encoded operand: (operand index, shift, mask of the first field run, further runs as
#: (shift, mask, destination bit), decoder). Most operands are one run starting at bit 0.
_Step = tuple[int, int, int, tuple[tuple[int, int, int], ...], OperandDecoder]
_Plan = tuple[_Step, ...]


class _FieldError(Exception):
    """Operand field ``index`` of an instruction holds no valid operand of its kind."""

    def __init__(self, index: int, error: OperandDecodeError) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


def _outside_its_class(inst: MCInst) -> bool:
    """Whether a VGPR operand of ``inst`` is not in its slot's register class."""
    for slot, value in zip(inst.desc.operands, inst.operands, strict=True):
        rc = slot.kind.register_class
        if rc is not None and isinstance(value, str) and value[:1] == "v" \
                and value[1:].isdigit() and not rc.contains(value):
            return True
    return False


def _decode_fields(plan: _Plan, word: int, state: DecodeState, count: int) -> list[Operand]:
    """The ``count`` operands ``plan`` reads from ``word`` (and from ``state``'s bytes after
    it: a literal); raises :class:`_FieldError` naming the field that holds no operand."""
    operands: list[Operand] = [None] * count
    state.operands = operands
    for index, shift, mask, rest, decode in plan:
        raw = (word >> shift) & mask
        for lo, run_mask, var_lo in rest:
            raw |= ((word >> lo) & run_mask) << var_lo
        try:
            operands[index] = decode(raw, state)
        except OperandDecodeError as error:
            raise _FieldError(index, error) from None
    return operands


class Decoder:
    """Decodes instruction bytes of one target into :class:`MCInst`."""

    def __init__(self, isa: TargetISA, *, real_true16: bool = False) -> None:
        self.isa = isa
        self.operand_decoders = OperandDecoders(isa)
        by_ns: dict[tuple[str, int], list[InstrDef]] = {}
        for inst in isa.instructions:
            if inst.decodable:
                by_ns.setdefault((inst.namespace, inst.size), []).append(inst)
        #: Per width (widest encodings first, as LLVM's disassembler tries them) and per
        #: value of the first dword's bits 31:23 (the encoding prefix), the namespace trees
        #: that hold a candidate with that prefix, in namespace order. Skipping the others
        #: leaves the result unchanged and saves most look-ups.
        trees_by_width: list[tuple[int, list[list[_Node]]]] = []
        for width, namespaces in _namespace_order(isa):
            groups = [by_ns.get((ns, width), []) for ns in namespaces]
            trees = [self._tree(g, 8 * width) for g in groups]
            trees_by_width.append((width, _trees_by_prefix(trees, groups)))
        self._trees_by_width = tuple(trees_by_width)
        self._plans: dict[str, tuple[_Plan, tuple[Fixup, ...]]] = {}
        #: GFX9 instructions are at most 8 bytes: only 32-bit encodings can carry a literal.
        self.max_instruction_bytes = (
            20 if isa.has_feature("FeatureNSAEncoding")
            else 12 if isa.has_feature("FeatureVOP3Literal") else 8
        )
        self._fixup_cache: dict[str, tuple[Fixup, ...]] = {}
        self._nsa_cache: dict[str, tuple[tuple[int, int], ...]] = {}
        self._implicit_cache: dict[str, int] = {}
        self._mimg_siblings: dict[tuple[str, str], dict[tuple[int, int], InstrDef]] = {}
        #: Per encoding prefix, how many leading bytes choosing the instruction reads: the
        #: widest encoding with a candidate for that prefix (see :meth:`decode_shared`).
        self._chosen_from = tuple(
            max((width for width, trees in self._trees_by_width if trees[prefix]),
                default=4)
            for prefix in range(512))
        #: Per prefix, the first-dword (mask, value) of every wider candidate: a word that
        #: matches none of them is chosen from its first dword alone.
        self._wider_first_dwords = _wider_first_dwords(by_ns, isa)
        #: Decoded instructions by the bytes they were decoded from (see
        #: :meth:`decode_shared`); read-only, shared by every occurrence.
        self._memo: dict[bytes, MCInst] = {}
        #: The decoder of the target's real-true16 twins (:meth:`_twin_reading`).
        self._twins: Decoder | None = None
        #: With ``real_true16`` (see :func:`decoder_for`), the twins' decoder reads what
        #: the default records refuse, and the default records that have a twin.
        self.real_true16 = real_true16 and bool(isa.real_true16)
        self._twinned = frozenset(twin.fake16 for twin in isa.real_true16) \
            if self.real_true16 else frozenset[str]()

    @staticmethod
    def _tree(candidates: list[InstrDef], bits: int) -> _Node:
        return _build_tree(sorted(candidates, key=_priority), 0, (1 << bits) - 1)

    def _compiled(self, inst: InstrDef) -> tuple[_Plan, tuple[Fixup, ...]]:
        """How to decode each encoded operand, and the fix-ups to apply afterwards."""
        compiled = self._plans.get(inst.name)
        if compiled is None:
            steps: list[_Step] = []
            for index, slot in enumerate(inst.operands):
                fields = _fields_of(inst, slot)
                if not fields:
                    continue
                runs = sorted(fields, key=lambda f: f[1])
                first_lo, first_var, first_width = runs[0]
                rest = tuple((lo, (1 << w) - 1, var) for lo, var, w in runs[1:])
                if first_var:
                    rest = ((first_lo, (1 << first_width) - 1, first_var), *rest)
                    first_lo, first_width = 0, 0
                steps.append((index, first_lo, (1 << first_width) - 1, rest,
                              self.operand_decoders.for_kind(slot.kind)))
            compiled = (tuple(steps), self._fixups(inst))
            self._plans[inst.name] = compiled
        return compiled

    def decode(self, data: bytes, offset: int = 0, address: int = 0) -> MCInst:
        """Decode the instruction at ``data[offset:]``; raises :class:`DecodeError`.

        A new MCInst each call, which the caller may change (see :meth:`decode_shared`)."""
        shared = self.decode_shared(data, offset)
        return MCInst(shared.desc, list(shared.operands), shared.size, shared.literal,
                      address, shared.encoding, shared.unmodelled)

    def decode_shared(self, data: bytes, offset: int = 0) -> MCInst:
        """The instruction at ``data[offset:]``, as one MCInst shared by every occurrence of
        its bytes: read it, never change it (its ``address`` is 0); raises
        :class:`DecodeError`.

        Code repeats a lot (a 55k-instruction library holds 17k distinct encodings), so
        decodes are memoised by the bytes they depend on: those that choose the
        instruction (the widest encoding tried for the first dword's prefix,
        :attr:`_chosen_from`: a narrower instruction depends on the wider reading failing)
        and those it is made of (a literal, NSA address bytes). A word that no wider
        encoding could match (:attr:`_wider_first_dwords`) is chosen by its first dword
        alone. A look-up tries the choosing bytes, the first dword, then the choosing
        bytes plus a literal; anything else is decoded and kept.
        """
        if len(data) - offset >= 4:
            prefix = (data[offset + 3] << 1) | (data[offset + 2] >> 7)
            chosen = self._chosen_from[prefix]
            memo = self._memo
            # The look-ups, as decode_all_shared inlines them.
            hit = memo.get(data[offset : offset + chosen])
            if hit is None and chosen > 4:
                hit = memo.get(data[offset : offset + 4])
            if hit is None:
                hit = memo.get(data[offset : offset + chosen + 4])
            if hit is not None:
                return hit
            return self._decode_and_remember(data, offset, prefix, chosen)
        return self._decode(data, offset, 0)

    def _decode_and_remember(self, data: bytes, offset: int, prefix: int,
                             chosen: int) -> MCInst:
        """A memo miss of :meth:`decode_shared`: decode, and keep it under the bytes it
        depends on."""
        decoded = self._decode(data, offset, 0)
        if decoded.size == 4 and chosen > 4:
            word = int.from_bytes(data[offset : offset + 4], "little")
            if not any(word & mask in values
                       for mask, values in self._wider_first_dwords[prefix]):
                chosen = 4  # no wider reading could have matched, whatever follows
        depends = max(chosen, decoded.size)
        if len(data) - offset >= depends:  # else the wider reading was not tried
            memo = self._memo
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[data[offset : offset + depends]] = decoded
        return decoded

    def decode_all_shared(self, data: bytes) -> list[MCInst]:
        """:meth:`decode_shared` of each instruction of ``data`` in turn, from its start to
        its end; raises :class:`DecodeError` (without the offset: decode that instruction
        again for it).

        A lifter decodes every instruction of a library this way, and most are memo hits:
        the look-ups of :meth:`decode_shared` are done here, in the loop, and only a miss
        pays a method call."""
        memo = self._memo
        chosen_from = self._chosen_from
        decoded: list[MCInst] = []
        append = decoded.append
        offset = 0
        end = len(data)
        while offset < end:
            if end - offset < 4:
                hit = self._decode(data, offset, 0)
            else:
                prefix = (data[offset + 3] << 1) | (data[offset + 2] >> 7)
                chosen = chosen_from[prefix]
                hit = memo.get(data[offset : offset + chosen])
                if hit is None and chosen > 4:
                    hit = memo.get(data[offset : offset + 4])
                if hit is None:
                    hit = memo.get(data[offset : offset + chosen + 4])
                if hit is None:
                    hit = self._decode_and_remember(data, offset, prefix, chosen)
            append(hit)
            offset += hit.size
        return decoded

    def clear_memo(self) -> None:
        """Forget memoised decodes (benchmarks start each run cold)."""
        self._memo.clear()

    def _decode(self, data: bytes, offset: int, address: int) -> MCInst:
        available = len(data) - offset
        prefix = int.from_bytes(data[offset : offset + 4], "little") >> 23 \
            if available >= 4 else 0
        for width, trees_by_prefix in self._trees_by_width:
            if available < width:
                continue
            word = int.from_bytes(data[offset : offset + width], "little")
            for tree in trees_by_prefix[prefix]:
                inst = _lookup(tree, word)
                if inst is not None:
                    decoded = self._operands(inst, word, data, offset, address)
                    if decoded is not None:
                        if inst.name in self._twinned and _outside_its_class(decoded):
                            # LLVM 19 reads such a source with the full VGPR decoder
                            # (``v_cmp_gt_f16_e32 vcc_lo, v0, v128/*Invalid register*/``);
                            # the hardware reads the field as a half (``v0.h``).
                            return self._twin_reading(data, offset, address) or decoded
                        return decoded
        twin = self._twin_reading(data, offset, address)
        if twin is not None:
            return twin
        raise DecodeError("invalid instruction encoding",
                          functools.partial(self._why_invalid,
                                            bytes(data[offset:offset + 32]), 0))

    def _twin_reading(self, data: bytes, offset: int, address: int) -> MCInst | None:
        """The word read with the target's real-true16 twins, when the decoder reads real
        true16 (:func:`decoder_for`) and a twin takes it: what newer LLVM's real-true16
        code holds (a VGPR field of a 16-bit VOP1/VOP2/VOPC encoding with bit 7 set names
        a high half). Asked only where the default records refuse the word or misread a
        VGPR, so what LLVM 19 decodes is decoded as LLVM 19 does. The twins' decoder is
        made on first use."""
        if not self.real_true16:
            return None
        if self._twins is None:
            self._twins = Decoder(replace(self.isa, instructions=self.isa.real_true16,
                                          real_true16=[]))
        try:
            return self._twins._decode(data, offset, address)  # pyright: ignore[reportPrivateUsage]
        except DecodeError:
            return None

    def _why_invalid(self, data: bytes, offset: int) -> str:
        """Why no instruction takes the bytes at ``offset`` (for messages: run once, after
        every candidate failed): the first candidate whose fixed bits match, and the
        operand field that no value of its kind fits."""
        available = len(data) - offset
        prefix = int.from_bytes(data[offset : offset + 4], "little") >> 23 \
            if available >= 4 else 0
        for width, trees_by_prefix in self._trees_by_width:
            if available < width:
                continue
            word = int.from_bytes(data[offset : offset + width], "little")
            for tree in trees_by_prefix[prefix]:
                inst = _lookup(tree, word)
                if inst is None:
                    continue
                state = DecodeState(data, offset + inst.size,
                                    min(len(data), offset + self.max_instruction_bytes))
                try:
                    _decode_fields(self._compiled(inst)[0], word, state, len(inst.operands))
                except _FieldError as failed:
                    return self._invalid_operand(inst, inst.operands[failed.index].name,
                                                 failed.error)
        return ""

    def _invalid_operand(self, inst: InstrDef, slot: str, error: OperandDecodeError) -> str:
        return f"the bits match {inst.mnemonic}, but not its {slot} field ({error})"

    def _operands(
        self, inst: InstrDef, word: int, data: bytes, offset: int, address: int
    ) -> MCInst | None:
        state = DecodeState(data, offset + inst.size,
                            min(len(data), offset + self.max_instruction_bytes))
        plan, fixups = self._compiled(inst)
        try:
            operands = _decode_fields(plan, word, state, len(inst.operands))
        except _FieldError:
            return None
        size = inst.size + (4 if state.literal is not None else 0)
        nsa = self._nsa_slots(inst)
        if nsa:
            # Non-sequential addresses: one byte per further address VGPR, in dwords after
            # the 64-bit instruction.
            words = (len(nsa) + 3) // 4
            start = offset + inst.size
            if start + 4 * words > state.limit:
                return None
            for i, (index, dwords) in enumerate(nsa):
                name = self.operand_decoders.names.vector("v", data[start + i], dwords)
                if name is None:
                    return None
                operands[index] = name
            size += 4 * words
        decoded = MCInst(inst, operands, size, state.literal, address,
                         data[offset : offset + size])
        if inst.unknown:
            decoded.unmodelled = (word ^ self._implicit(inst)) & inst.unknown
        for fixup in fixups:
            fixup(decoded)
        return decoded

    def _implicit(self, inst: InstrDef) -> int:
        found = self._implicit_cache.get(inst.name)
        if found is None:
            found = self._implicit_cache[inst.name] = implicit_bits(inst, self.isa.generation)
        return found

    def _nsa_slots(self, inst: InstrDef) -> tuple[tuple[int, int], ...]:
        found = self._nsa_cache.get(inst.name)
        if found is None:
            found = self._nsa_cache[inst.name] = nsa_address_slots(inst)
        return found

    def _fixups(self, inst: InstrDef) -> tuple[Fixup, ...]:
        """Post-decoding adjustments LLVM's disassembler makes for this instruction."""
        fixups = self._fixup_cache.get(inst.name)
        if fixups is None:
            isa = self.isa
            fixups = tuple(f for f in (
                _atomic_return_glc(inst),
                _agpr_data_follows_dst(inst) if isa.is_gfx90a else None,
                _deferred_literal(inst),
                _zero_operand(inst, "gds") if not isa.has_feature("FeatureGDS") else None,
                _zero_operand(inst, "tfe") if isa.is_gfx90a and inst.classes & {
                    "MUBUF", "MTBUF"} else None,
                self._mimg_variant(inst),
                _signed_flat_offset(inst, isa.subtarget.flat_offset_bits,
                                    isa.generation >= 12),
            ) if f is not None)
            self._fixup_cache[inst.name] = fixups
        return fixups

    def _siblings(self, info: MIMGInfo) -> dict[tuple[int, int], InstrDef]:
        """Image instructions of one family and encoding by (vdata, vaddr) dwords; like
        LLVM's searchable table, the first by name wins a tie."""
        key = (info.base, info.encoding)
        found = self._mimg_siblings.get(key)
        if found is None:
            found = dict[tuple[int, int], InstrDef]()
            for other in sorted(self.isa.instructions, key=lambda i: i.name):
                if other.mimg is not None and other.mimg.base == info.base \
                        and other.mimg.encoding == info.encoding:
                    found.setdefault((other.mimg.vdata_dwords, other.mimg.vaddr_dwords), other)
            self._mimg_siblings[key] = found
        return found

    def _mimg_variant(self, inst: InstrDef) -> Fixup | None:
        """Image instructions: switch to the sibling whose vdata width dmask/d16/tfe imply
        and, from GFX10 on, whose address width the base opcode, ``dim`` and ``a16`` imply
        (LLVM's ``convertMIMGInst``)."""
        info = inst.mimg
        if info is None or not inst.has("vdata"):
            return None
        isa = self.isa
        base = isa.mimg_bases.get(info.base)
        if base is not None and base.bvh:
            if not inst.has("a16"):
                return None
            a16_index, a16 = inst.index["a16"], int(base.a16)

            def set_a16(mc: MCInst) -> None:
                mc.operands[a16_index] = a16

            return set_a16
        if not inst.has("dmask"):
            return None
        siblings = self._siblings(info)
        gather4 = "Gather4" in inst.classes
        vsample = "VSAMPLE" in inst.classes
        packed_d16 = not isa.has_feature("FeatureUnpackedD16VMem")
        gfx10_plus = isa.generation >= 10
        nsa = info.encoding in ("MIMGEncGfx10NSA", "MIMGEncGfx11NSA", "MIMGEncGfx12")
        partial_nsa_allowed = isa.has_feature("FeaturePartialNSAEncoding")
        has_nsa = isa.has_feature("FeatureNSAEncoding")
        g16 = isa.has_feature("FeatureG16")
        names = self.operand_decoders.names
        rsrc_name = "srsrc" if inst.has("srsrc") else "rsrc"

        def address_size(mc: MCInst) -> int:
            if base is None or not inst.has("dim"):
                return info.vaddr_dwords
            dim_value = mc.operand("dim")
            dim = isa.mimg_dims.get(dim_value if isinstance(dim_value, int) else 0)
            a16_on = bool(mc.operand("a16")) if inst.has("a16") else False
            components = (dim.coordinates if dim is not None and base.coordinates else 0) \
                + (1 if base.lod_clamp_mip else 0)
            words = base.num_extra_args + ((components + 1) // 2 if a16_on else components)
            if base.gradients and dim is not None:
                if (a16_on and not g16) or base.g16:
                    half = dim.gradients // 2
                    words += half + (half & 1)
                else:
                    words += dim.gradients
            return words

        def convert(mc: MCInst) -> None:
            addr_size = info.vaddr_dwords
            partial = False
            if gfx10_plus:
                addr_size = address_size(mc)
                if not nsa:
                    if not vsample and addr_size > 12:
                        addr_size = 16
                elif addr_size > info.vaddr_dwords:
                    if not partial_nsa_allowed:
                        return
                    partial = True
            dmask = mc.operand("dmask")
            dmask = dmask & 0xF if isinstance(dmask, int) else 0
            size = 4 if gather4 else max(dmask.bit_count(), 1)
            if mc.operand("d16") and packed_d16:
                size = (size + 1) // 2
            if mc.operand("tfe"):
                size += 1
            if size == info.vdata_dwords and addr_size == info.vaddr_dwords:
                return
            other = siblings.get((size, addr_size))
            if other is None:
                return
            vdata = mc.operand("vdata")
            widened: str | None = None
            if size != info.vdata_dwords:
                if not isinstance(vdata, str):
                    return
                widened = names.vector(vdata[0], _first_register(vdata),
                                       other.slot("vdata").kind.width // 32)
                if widened is None:
                    return
            address_name = ""
            new_address: str | None = None
            if has_nsa and (not nsa or partial) and addr_size != info.vaddr_dwords:
                address_index = (inst.index[rsrc_name] - 1) if partial \
                    else inst.index["vaddr0"]
                address_name = inst.operands[address_index].name
                address = mc.operands[address_index]
                if not isinstance(address, str) or not other.has(address_name):
                    return
                new_address = names.vector(address[0], _first_register(address),
                                           other.slot(address_name).kind.width // 32)
                if new_address is None:
                    return
            old = mc.desc
            mc.desc = other
            operands: list[Operand] = [None] * len(other.operands)
            for slot, value in zip(old.operands, mc.operands, strict=True):
                if other.has(slot.name):
                    operands[other.index[slot.name]] = value
            if widened is not None:
                operands[other.index["vdata"]] = widened
                if other.has("vdst"):
                    operands[other.index["vdst"]] = widened
            if new_address is not None:
                operands[other.index[address_name]] = new_address
            mc.operands = operands

        return convert

    def decode_all(self, data: bytes, address: int = 0) -> list[MCInst]:
        """Decode a whole buffer; raises :class:`DecodeError` naming the first bad offset."""
        out: list[MCInst] = []
        offset = 0
        while offset < len(data):
            try:
                inst = self.decode(data, offset, address + offset)
            except DecodeError as err:
                raise DecodeError(f"offset {offset:#x}: {err}") from None
            out.append(inst)
            offset += inst.size
        return out


Fixup = Callable[[MCInst], None]


def _atomic_return_glc(inst: InstrDef) -> Fixup | None:
    """Returning atomics have GLC implied by the opcode; it is part of the cache policy."""
    if "IsAtomicRet" not in inst.classes or not inst.has("cpol"):
        return None
    if not inst.classes & {"MUBUF", "FLAT", "SMRD"}:
        return None
    index = inst.index["cpol"]

    def set_glc(mc: MCInst) -> None:
        value = mc.operands[index]
        mc.operands[index] = (value if isinstance(value, int) else 0) | 1

    return set_glc


def _agpr_data_follows_dst(inst: InstrDef) -> Fixup | None:
    """gfx90a: a memory data operand is an AGPR when the destination is one.

    Atomics with return encode the AGPR bit once, in ``vdst``; ``vdata`` (``data0`` for
    DS) follows it, and a DS ``data1`` follows ``data0``.
    """
    data = "data0" if "DS" in inst.classes else "vdata"
    pairs = [(p, d) for p, d in (("vdst", data), (data, "data1"))
             if inst.has(p) and inst.has(d)
             and inst.slot(d).kind.decoder_method.startswith("decodeAVLdSt")]
    if not pairs:
        return None
    indexed = [(inst.index[p], inst.index[d]) for p, d in pairs]

    def to_agpr(mc: MCInst) -> None:
        for leader, follower in indexed:
            lead, value = mc.operands[leader], mc.operands[follower]
            if isinstance(lead, str) and lead.startswith("a") and isinstance(value, str) \
                    and value.startswith("v"):
                mc.operands[follower] = "a" + value[1:]

    return to_agpr


def _signed_flat_offset(inst: InstrDef, bits: int, flat_signed: bool = False) -> Fixup | None:
    """Global and scratch instructions (and, from GFX12 on, flat ones) hold a signed
    immediate offset: the MC operand is its value (``offset:-28`` is -28, as the parser
    makes it), not the encoded field, so every reader (the emulator, an address computed
    for a hook) sees one number."""
    is_flat = "FLAT" in inst.classes and flat_signed
    if not (inst.classes & {"FlatGlobal", "FlatScratch"} or is_flat) or not inst.has("offset"):
        return None
    index = inst.index["offset"]
    sign = 1 << (bits - 1)

    def sign_extend(mc: MCInst) -> None:
        value = mc.operands[index]
        if isinstance(value, int) and value & sign:
            mc.operands[index] = (value & (2 * sign - 1)) - 2 * sign

    return sign_extend


def _zero_operand(inst: InstrDef, name: str) -> Fixup | None:
    """An operand the target does not encode reads as zero whatever its bits hold."""
    if not inst.has(name):
        return None
    index = inst.index[name]

    def clear(mc: MCInst) -> None:
        mc.operands[index] = 0

    return clear


def _deferred_literal(inst: InstrDef) -> Fixup | None:
    """``v_madmk``/``v_madak``-style K operands: sources that said "literal" read the K, and
    a second K operand the encoding does not hold (VOPD's ``immDeferred``) is the same K."""
    if not inst.has("imm") or "SOPK" in inst.classes:
        return None
    k_index = inst.index["imm"]
    deferred = [i for i, s in enumerate(inst.operands) if s.kind.operand_type.endswith(
        "_DEFERRED")]
    k_copies = [i for i, s in enumerate(inst.operands)
                if i != k_index and not s.fields
                and s.kind.decoder_method == "decodeOperand_KImmFP"]

    def resolve(mc: MCInst) -> None:
        k = mc.operands[k_index]
        for i in deferred:
            value = mc.operands[i]
            if isinstance(value, Literal) and value == 255 and isinstance(k, int):
                mc.operands[i] = Literal(k)
        for i in k_copies:
            mc.operands[i] = k

    return resolve


def nsa_address_slots(inst: InstrDef) -> tuple[tuple[int, int], ...]:
    """The image address operands after ``vaddr0`` that an NSA (non-sequential address)
    encoding stores as one byte each in dwords after the 64-bit instruction: (operand
    index, dwords), in order; empty for every other instruction."""
    if inst.mimg is None or "MIMG" not in inst.classes or not inst.has("vaddr0") \
            or not inst.has("srsrc"):
        return ()
    first, rsrc = inst.index["vaddr0"], inst.index["srsrc"]
    return tuple((i, max(1, (inst.operands[i].kind.width or 32) // 32))
                 for i in range(first + 1, rsrc) if not inst.operands[i].fields)


def _first_register(name: str) -> int:
    """The index of a register or of a tuple's first register (``v[4:7]`` -> 4)."""
    return int(name[1:].split(":")[0].lstrip("["))


def _fields_of(inst: InstrDef, slot: OperandSlot) -> tuple[tuple[int, int, int], ...]:
    """An operand's encoding fields; a tied operand without bits reuses its partner's."""
    if slot.fields:
        return slot.fields
    partner = inst.tied.get(slot.name)
    if partner is not None and inst.has(partner):
        return inst.slot(partner).fields
    return ()


def decoder_for(target: str, wavefront_size: int | None = None, *,
                real_true16: bool = False) -> Decoder:
    """The (cached) decoder of a processor, in its default wave size or
    ``wavefront_size`` (64 for an RDNA processor in wave64); raises ``UnknownTargetError``.

    By default it decodes as llvm-mc-19 does (``luthier-mc``'s contract). With
    ``real_true16`` it also reads what newer LLVM's real-true16 code holds, with the
    target's twins (``TargetISA.real_true16``): the lifter's decoder, since the code it
    lifts may come from any compiler."""
    return _cached_decoder(target, wavefront_size, real_true16)


@functools.cache
def _cached_decoder(target: str, wavefront_size: int | None, real_true16: bool) -> Decoder:
    return Decoder(load_target(target, wavefront_size), real_true16=real_true16)


def decode_words(target: str, words: Sequence[int]) -> MCInst:
    """Decode an instruction given as little-endian dwords (a test convenience)."""
    data = b"".join(w.to_bytes(4, "little") for w in words)
    return decoder_for(target).decode(data)
