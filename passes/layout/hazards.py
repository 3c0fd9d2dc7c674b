"""Wait states where spliced code meets code it depends on.

GFX9 hardware does not interlock every dependency: some pairs of instructions need a
number of *wait states* (independent instructions or ``s_nop N``, which counts ``N + 1``)
between them, which the compiler inserts. The application's own pairs are already far
enough apart, and splicing only moves them further apart. A payload, though, is new code
right before an instruction, so it can read what an application instruction just wrote,
or write what the application (or another payload) reads next. After splicing, every pair
with at least one inserted instruction is checked against the rules below (the hazards of
LLVM's ``GCNHazardRecognizer`` that apply to GFX908/GFX90A/GFX942 code of the kinds payloads
contain), and an ``s_nop`` goes right before the reader when the distance is short:

==========================================  =============================================  ====
writer                                      reader                                         wait
==========================================  =============================================  ====
VALU writing an SGPR                        VMEM/FLAT reading that SGPR                     5
VALU writing an SGPR                        ``v_readlane``/``v_writelane`` lane select      4
VALU writing VCC                            ``v_div_fmas`` (reads VCC)                      4
VALU writing EXEC                           DPP                                             5
VALU writing a VGPR                         DPP reading it                                  2
SALU writing M0                             a non-SALU instruction reading M0               1
transcendental VALU (GFX942)                non-transcendental VALU reading its result      1
MFMA                                        anything reading or writing its registers      19
==========================================  =============================================  ====

The MFMA row is deliberately coarse: the exact counts depend on the operation's passes,
the operand (SrcC, SrcA/B, destination) and the target; 19 covers the longest of them. The
walk back follows control flow into every predecessor of a block, so a reader at a block
start is checked against each path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import cast

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeOp, unpack
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    AGPR_MASK,
    SGPR_MASK,
    VGPR_MASK,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.passes.analysis.cfg import FunctionCFG
from luthier.passes.analysis.effects import Effect, EffectTable

_VCC = units_of("vcc")
_EXEC = units_of("exec")
_M0 = units_of("m0")
_VECTOR = VGPR_MASK | AGPR_MASK
#: The most wait states any rule asks for: how far back a reader looks.
LONGEST = 19
#: ``s_nop`` counts up to 16 wait states (``s_nop 15``).
_NOP_MAX = 16


@dataclass(frozen=True, slots=True)
class Kind:
    """What the rules ask of an instruction's kind (its op class, which names its
    mnemonic, and its opcode's record), found once per kind: a library has tens of
    thousands of distinct operand arrays but a few hundred kinds."""

    valu: bool
    salu: bool
    #: FLAT, MUBUF or MTBUF.
    vmem: bool
    dpp: bool
    trans: bool
    #: An MFMA (``IsMAI``, but not the ``v_accvgpr`` moves).
    mfma: bool
    #: ``v_readlane_b32`` / ``v_writelane_b32`` (operand 2 is the lane select).
    lane_select: bool
    div_fmas: bool


#: A rule's side: the units an instruction (with its kind and its effect) exposes to it.
Side = Callable[[InstructionOpBase, Kind, Effect], int]


@dataclass(frozen=True, slots=True)
class Rule:
    """One hazard: ``reads(reader, ...)`` are the units the reader is sensitive to;
    ``writes(writer, ...)`` those the writer makes unsafe for ``wait`` wait states."""

    name: str
    wait: int
    reads: Side
    writes: Side


def _lane_select(op: InstructionOpBase, kind: Kind, effect: Effect) -> int:
    if not kind.lane_select:
        return 0
    lane = op.mc_operands.data[2]
    return units_of(lane.data) & SGPR_MASK if isinstance(lane, PhysRegAttr) else 0


def _valu_defs(mask: int) -> Side:
    return lambda op, kind, effect: effect.defs & mask if kind.valu else 0


def _vector_touches(op: InstructionOpBase, kind: Kind, effect: Effect) -> int:
    return (effect.uses | effect.defs) & _VECTOR


_RULES = (
    Rule("VALU writes an SGPR that VMEM reads", 5,
         lambda op, kind, effect: effect.uses & SGPR_MASK if kind.vmem else 0,
         _valu_defs(SGPR_MASK)),
    Rule("VALU writes a lane select", 4, _lane_select, _valu_defs(SGPR_MASK)),
    Rule("VALU writes VCC for v_div_fmas", 4,
         lambda op, kind, effect: _VCC if kind.div_fmas else 0, _valu_defs(_VCC)),
    Rule("VALU writes EXEC before DPP", 5,
         lambda op, kind, effect: _EXEC if kind.dpp else 0, _valu_defs(_EXEC)),
    Rule("VALU writes a VGPR that DPP reads", 2,
         lambda op, kind, effect: effect.uses & VGPR_MASK if kind.dpp else 0,
         _valu_defs(VGPR_MASK)),
    Rule("SALU writes M0", 1,
         lambda op, kind, effect: effect.uses & _M0 if not kind.salu else 0,
         lambda op, kind, effect: effect.defs & _M0 if kind.salu else 0),
    Rule("MFMA registers in flight", LONGEST, _vector_touches,
         lambda op, kind, effect: _vector_touches(op, kind, effect) if kind.mfma else 0),
)
#: GFX942's forwarding hazard, where the subtarget has it.
_TRANS_RULE = Rule(
    "transcendental result", 1,
    lambda op, kind, effect: effect.uses & _VECTOR if kind.valu and not kind.trans else 0,
    lambda op, kind, effect: effect.defs & _VECTOR if kind.trans else 0)


class HazardModel:
    """The rules for one target, over its ISA tables and register effects."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.effects = EffectTable.shared(isa)
        # From GFX10 the hardware resolves these dependencies itself (the hazards that
        # remain there are :mod:`.mitigations`').
        self.rules = [] if isa.subtarget.has_no_data_dep_hazard else [
            *_RULES, *([_TRANS_RULE] if isa.subtarget.has_trans_forwarding_hazard else [])]
        #: Per distinct instruction (its class, opcode and operand array, by identity:
        #: the attributes are interned, and kept here so that their ids stay theirs), the
        #: units each rule's writer and reader side see. Instrumented code repeats a few
        #: payload instructions tens of thousands of times.
        self._masks: dict[tuple[type, int, int], tuple[
            object, object, tuple[tuple[int, ...], tuple[int, ...]]]] = {}
        self._kinds: dict[tuple[type, str], Kind] = {}

    @staticmethod
    def shared(isa: TargetISA) -> HazardModel:
        """The process's model for ``isa``: a worker that splices a library's functions a
        few at a time (``luthier-opt --jobs``) finds each distinct instruction's masks
        once, as one call over all of them would (the memo is bounded, as the effect
        table's is: it keeps the operand arrays it has seen alive)."""
        key = (isa.name, isa.wavefront_size)
        model = _SHARED_MODELS.get(key)
        if model is None or model.isa is not isa:
            model = _SHARED_MODELS[key] = HazardModel(isa)
        return model

    def masks(self, op: InstructionOpBase) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(writes, reads)``: per rule, the units ``op`` makes unsafe and reads."""
        opcode, operands = op.opcode, op.mc_operands
        key = (type(op), id(opcode), id(operands))
        known = self._masks.get(key)
        if known is not None and known[0] is opcode and known[1] is operands:
            return known[2]
        kind = self.kind(op)
        effect = self.effects.of(op)
        found = (tuple(rule.writes(op, kind, effect) for rule in self.rules),
                 tuple(rule.reads(op, kind, effect) for rule in self.rules))
        if len(self._masks) >= _MASKS_LIMIT:
            self._masks.clear()
        self._masks[key] = (opcode, operands, found)
        return found

    def kind(self, op: InstructionOpBase) -> Kind:
        """The :class:`Kind` of ``op`` (memoised per op class and opcode)."""
        key = (type(op), op.opcode.data)
        known = self._kinds.get(key)
        if known is not None:
            return known
        desc = op.instr_def(self.isa)
        classes = desc.classes if desc is not None else frozenset[str]()
        mnemonic = op.mnemonic
        known = self._kinds[key] = Kind(
            valu="VALU" in classes, salu="SALU" in classes,
            vmem=bool(classes & {"FLAT", "MUBUF", "MTBUF"}), dpp="DPP" in classes,
            trans="TRANS" in classes,
            mfma="IsMAI" in classes and "ACCVGPR" not in op.opcode.data.upper(),
            lane_select=mnemonic in ("v_readlane_b32", "v_writelane_b32"),
            div_fmas=mnemonic.startswith("v_div_fmas"))
        return known


def wait_states(op: InstructionOpBase) -> int:
    """Wait states ``op`` provides: ``s_nop N`` N + 1, any other instruction one
    (instruction immediates are ``IntAttr``, lifted or built)."""
    if op.mnemonic == "s_nop":
        count = op.mc_operands.data[0]
        if isinstance(count, IntAttr):
            return cast(int, count.data) + 1  # pyright: ignore[reportUnknownMemberType]
    return 1


class _Function:
    """One function's instructions per block (kept current as ``s_nop`` go in), each
    instruction's masks per rule, and backward walks over them.

    A packed op's instructions stand in its block's list (the shared ops themselves, so
    their masks are found once per code); :attr:`owners` says which packed op each entry
    belongs to, so that an ``s_nop`` needed between two of them can unpack it first, and
    :attr:`settled` marks the entries known to need nothing: a packed instruction whose
    hazard window lies inside its code, which needs no wait state there (found once per
    code)."""

    def __init__(self, cfg: FunctionCFG, model: HazardModel,
                 inserted: set[InstructionOpBase]) -> None:
        self.cfg = cfg
        self.model = model
        self.ops: list[list[InstructionOpBase]] = []
        #: For each entry of :attr:`ops`, the packed op it is in (None: in the block).
        self.owners: list[list[PackedCodeOp | None]] = []
        #: For each entry of :attr:`ops`, whether it is known to need no wait state.
        self.settled: list[list[bool]] = []
        #: Ids of the instructions that are inserted code (payloads, packed or not).
        self.inserted = {id(op) for op in inserted}
        codes: dict[PackedCode, None] = {}
        #: Per block, its instructions and packed ops (one item each), and whether each
        #: is inserted code.
        items: list[list[InstructionOpBase | PackedCodeOp]] = []
        flags: list[list[bool]] = []
        for block in cfg.blocks:
            ops: list[InstructionOpBase] = []
            owners: list[PackedCodeOp | None] = []
            block_items: list[InstructionOpBase | PackedCodeOp] = []
            block_flags: list[bool] = []
            for op in block_ops(block):
                kind = type(op)
                if is_instruction_class(kind):
                    op = cast(InstructionOpBase, op)
                    ops.append(op)
                    owners.append(None)
                    block_items.append(op)
                    block_flags.append(id(op) in self.inserted)
                elif kind is PackedCodeOp:
                    op = cast(PackedCodeOp, op)
                    code = op.code.data
                    codes[code] = None
                    ops.extend(code.ops)
                    owners.extend([op] * len(code.ops))
                    block_items.append(op)
                    block_flags.append(True)
            self.ops.append(ops)
            self.owners.append(owners)
            items.append(block_items)
            flags.append(block_flags)
        #: Readers that may need a wait state: inserted code, and the application's
        #: instructions close after it (an application reader only waits for inserted
        #: writers). Masks are found for those and for the instructions close before
        #: inserted code (the writers an inserted reader waits for): the application code
        #: far from every payload, most of a library, is never looked at.
        readers = _near(cfg, flags, forward=True)
        nearby = _near(cfg, flags, forward=False)
        masks: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        for block_items, block_flags, after, ahead in zip(items, flags, readers, nearby,
                                                          strict=True):
            for item, is_inserted, is_after, is_ahead in zip(block_items, block_flags, after,
                                                             ahead, strict=True):
                if (is_inserted or is_after or is_ahead) and type(item) is not PackedCodeOp:
                    masks[id(item)] = model.masks(cast(InstructionOpBase, item))
        #: Only rules with a writer that some reader can wait for can fire.
        writers = 0
        for both in masks.values():
            for k, units in enumerate(both[0]):
                if units:
                    writers |= 1 << k
        for code in codes:
            writers |= _code_writers(code, model)
        self.rules = [k for k in range(len(model.rules)) if writers >> k & 1]
        self.writes: dict[int, tuple[int, ...]] = {key: both[0] for key, both in masks.items()}
        #: Per instruction, the (rule, units) it is sensitive to among :attr:`rules`.
        self.sensitive: dict[int, list[tuple[int, int]]] = {
            key: [(k, both[1][k]) for k in self.rules if both[1][k]]
            for key, both in masks.items()}
        settled: dict[PackedCode, tuple[bool, ...]] = {}
        for code in codes:
            view = _code_view(code, model, tuple(self.rules))
            ids = tuple(map(id, code.ops))
            self.writes.update(zip(ids, view.writes, strict=True))
            self.sensitive.update(zip(ids, view.sensitive, strict=True))
            self.inserted.update(ids)
            settled[code] = view.settled
        for block_items, block_flags, after in zip(items, flags, readers, strict=True):
            # An application instruction that no inserted code precedes closely needs
            # nothing (it waits for no application writer: those were far enough apart).
            marks: list[bool] = []
            for item, is_inserted, is_after in zip(block_items, block_flags, after,
                                                   strict=True):
                if type(item) is PackedCodeOp:
                    marks.extend(settled[item.code.data])
                else:
                    marks.append(not (is_inserted or is_after))
            self.settled.append(marks)

    def before(self, index: int, position: int,
               window: int = LONGEST) -> Iterator[tuple[InstructionOpBase, int]]:
        """Every (instruction, wait states between it and the reader) on some path back
        from ``position`` in block ``index``, up to ``window`` wait states away."""
        yield from self._walk(index, position, 0, {}, window)

    def _walk(self, index: int, end: int, distance: int, seen: dict[int, int],
              window: int) -> Iterator[tuple[InstructionOpBase, int]]:
        ops = self.ops[index]
        for position in range(end - 1, -1, -1):
            op = ops[position]
            yield op, distance
            distance += wait_states(op)
            if distance >= window:
                return
        for predecessor in self.cfg.predecessors[index]:
            # a block already entered as close to the reader has nothing nearer to give
            if seen.get(predecessor, LONGEST) <= distance:
                continue
            seen[predecessor] = distance
            yield from self._walk(predecessor, len(self.ops[predecessor]), distance, seen,
                                  window)

    def place_before(self, index: int, position: int) -> Operation:
        """The op of block ``index`` an ``s_nop`` for the reader at ``position`` goes
        right before: the reader, or the packed op it opens; a packed op with the reader
        inside is unpacked first (its copies take its entries)."""
        ops, owners = self.ops[index], self.owners[index]
        owner = owners[position]
        if owner is None:
            return ops[position]
        first = position
        while first > 0 and owners[first - 1] is owner:
            first -= 1
        if first == position:
            return owner
        settled = self.settled[index]
        for offset, copy in enumerate(unpack(owner)):
            original = ops[first + offset]
            key, copied = id(original), id(copy)
            self.writes[copied] = self.writes[key]
            self.sensitive[copied] = self.sensitive[key]
            self.inserted.add(copied)
            ops[first + offset] = copy
            owners[first + offset] = None
            settled[first + offset] = False
        return ops[position]


def _near(cfg: FunctionCFG, flags: list[list[bool]], forward: bool) -> list[list[bool]]:
    """Per block and item (an instruction, or a packed op: one or more instructions),
    whether an item flagged in ``flags`` lies at most :data:`LONGEST` items before it
    (``forward``) or after it on some path through the CFG. Every instruction gives at
    least one wait state, so no rule's writer further than that from its reader can need
    one (the ``s_nop`` this pass adds only put more
    between them). A fixed point over the blocks: what is left of the distance at a block's
    end (start, backward) carries into its successors (predecessors)."""
    count = len(flags)
    marks = [[False] * len(block) for block in flags]
    carried = [0] * count
    onward = cfg.successors if forward else cfg.predecessors
    work = list(range(count))
    queued = [True] * count
    while work:
        index = work.pop()
        queued[index] = False
        block, mark = flags[index], marks[index]
        budget = carried[index]
        positions = range(len(block)) if forward else range(len(block) - 1, -1, -1)
        for position in positions:
            if budget > 0:
                mark[position] = True
                budget -= 1
            if block[position]:
                budget = LONGEST
        if not budget:
            continue
        for other in onward[index]:
            if carried[other] < budget:
                carried[other] = budget
                if not queued[other]:
                    queued[other] = True
                    work.append(other)
    return marks


@dataclass(frozen=True, slots=True)
class _CodeView:
    """What the wait-state walk needs of a packed code's instructions, for one set of
    rules that can fire: their writer masks, the (rule, units) each reads, and which
    need no wait state wherever the code is (:func:`_settled_inside`). None of it reads
    an addend: it is found once per family of codes (:meth:`~.packed.PackedCode.shared`)."""

    writes: tuple[tuple[int, ...], ...]
    sensitive: tuple[list[tuple[int, int]], ...]
    settled: tuple[bool, ...]


def _code_view(code: PackedCode, model: HazardModel, rules: tuple[int, ...]) -> _CodeView:
    """The code's :class:`_CodeView` for ``rules`` (memoised in the code's family)."""

    def view(family: PackedCode) -> _CodeView:
        masks = _code_masks(family, model)
        sensitive = tuple([(k, both[1][k]) for k in rules if both[1][k]] for both in masks)
        writes = tuple(both[0] for both in masks)
        return _CodeView(writes, sensitive, _settled_inside(writes, sensitive, family, model))

    return code.shared(("hazard view", model.isa.name, rules), view)


def _settled_inside(writes: tuple[tuple[int, ...], ...],
                    sensitive: tuple[list[tuple[int, int]], ...], code: PackedCode,
                    model: HazardModel) -> tuple[bool, ...]:
    """Per instruction of ``code``, whether it needs no wait state wherever the code is:
    it reads nothing a rule of the function watches, or its window (the longest wait of
    the rules it is sensitive to) ends inside the code with no writer there too close
    (the writers before the code are further than the window)."""
    rules = model.rules
    marks: list[bool] = []
    for position, reads in enumerate(sensitive):
        if not reads:
            marks.append(True)
            continue
        window = max(rules[k].wait for k, _ in reads)
        distance = needed = 0
        inside = False
        for earlier in range(position - 1, -1, -1):
            for k, mask in reads:
                if distance < rules[k].wait and writes[earlier][k] & mask:
                    needed = max(needed, rules[k].wait - distance)
            distance += wait_states(code.ops[earlier])
            if distance >= window:
                inside = True
                break
        marks.append(inside and not needed)
    return tuple(marks)


_SHARED_MODELS: dict[tuple[str, int], HazardModel] = {}

#: Distinct instructions whose masks a model keeps (then it starts again).
_MASKS_LIMIT = 1 << 18


def _code_writers(code: PackedCode, model: HazardModel) -> int:
    """Bit ``k`` set when an instruction of ``code`` writes under rule ``k``."""

    def writers(family: PackedCode) -> int:
        found = 0
        for both in _code_masks(family, model):
            for k, units in enumerate(both[0]):
                if units:
                    found |= 1 << k
        return found

    return code.shared(("hazard writers", model.isa.name), writers)


def _code_masks(code: PackedCode, model: HazardModel) -> tuple[
        tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """The masks of each instruction of ``code`` (memoised in the code's family: they
    read registers, never an addend)."""
    return code.shared(("hazard masks", model.isa.name),
                       lambda family: tuple(model.masks(op) for op in family.ops))


def insert_wait_states(cfg: FunctionCFG, model: HazardModel,
                       inserted: set[InstructionOpBase]) -> int:
    """Put ``s_nop`` before every reader too close to its writer, for the pairs with an
    instruction of ``inserted`` or of a packed op; returns the wait states added."""
    if not model.rules:
        return 0
    function = _Function(cfg, model, inserted)
    if not function.inserted or not function.rules:
        return 0
    build = InstBuilder(model.isa.name, model.isa.wavefront_size)
    sensitive = function.sensitive
    added = 0
    for index, block in enumerate(cfg.blocks):
        ops, owners = function.ops[index], function.owners[index]
        settled = function.settled[index]
        position = 0
        while position < len(ops):
            if settled[position]:
                position += 1
                continue
            reads = sensitive.get(id(ops[position]))
            needed = _needed(function, index, position, reads) if reads else 0
            while needed > 0:
                chunk = min(needed, _NOP_MAX)
                nop = build.inst("s_nop", [chunk - 1])
                block.insert_op_before(nop, function.place_before(index, position))
                ops.insert(position, nop)
                owners.insert(position, None)
                settled.insert(position, True)
                position += 1
                added += chunk
                needed -= chunk
            position += 1
    return added


def _needed(function: _Function, index: int, position: int,
            sensitive: list[tuple[int, int]]) -> int:
    rules = function.model.rules
    inserted = function.inserted
    needed = 0
    reader_inserted = id(function.ops[index][position]) in inserted
    window = max(rules[k].wait for k, _ in sensitive)
    for writer, distance in function.before(index, position, window):
        key = id(writer)
        if not reader_inserted and key not in inserted:
            continue
        writes = function.writes.get(key)
        if writes is None:
            continue  # an s_nop this pass added
        for k, mask in sensitive:
            wait = rules[k].wait
            if distance < wait and writes[k] & mask:
                needed = max(needed, wait - distance)
    return needed
