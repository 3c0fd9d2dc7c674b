"""Hook templates: ``lower-hooks`` compiling each hook once per insertion shape.

The passes of :func:`~luthier.passes.instrument.pipeline.lowering_passes` lower every
payload on its own, so instrumenting every instruction of a library compiled the same hook
tens of thousands of times. Most of that work does not depend on the point:

* inlining, instruction selection, ``virtualize-phys-regs`` and ``lower-intrinsics`` give
  the same code to every payload of one *shape* (target, hook, bound arguments): they run
  once, on the shape's first payload, and a copy of the result is the :class:`Template`;
* ``save-payload-state`` only chooses which of SCC, VCC and M0 to save, from what is live at
  the point: the template plus those saves is the allocator's input, a :class:`_Code`,
  built once per (shape, saves);
* the allocator reads the point only through its pools of registers, and records which
  units its decisions looked at (:attr:`~.regalloc.Reusable.examined`). A later point with
  the same code whose pools agree with an earlier allocation's on those units would take
  the same decisions, so it gets that allocation's machine code and record: a few mask
  comparisons and a copy of the allocated body (or, packed, one op sharing it: see
  :func:`lower_hooks_with_templates`). A point that matches none of the latest masks runs
  the allocator, and when its outcome (homes, coalesced copies, budget growth) is one seen
  before, takes that allocation's code without rewriting or verifying it again;
* shapes whose templates are one code up to the addends of symbolic operands (a hook that
  indexes a tool global by a constant of the point: one shape per constant) are one
  family, lowered as its first shape's code, each point then given its own addends
  (:mod:`.template_families`);
* ``verify-payloads`` still checks every point against the application's liveness there;
  only the symbolic execution of a body is shared by the payloads that got it
  (:class:`~.verify_payloads.BodyCache`).

The IR is the one the passes give one by one (``test/unit/passes/instrument/
test_templates.py`` compares both on the corpus). Allocations that spill (the plan depends
on the function's stack) are not reused, and code objects whose hooks read the kernel's
entry state (the homes ``place-sva`` picks depend on every payload of the kernel and of its
callees) and modules whose payloads already have bodies are lowered by the passes.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import PassFailedException, VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder
from luthier.amdgpu_dialects.amdgpu_mc.copy import (
    block_of,
    copy_machine_ops,
    copy_machine_region,
)
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeAttr, PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.instr.points import describe_point, payloads
from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS, load_target
from luthier.lowering.isel.select import select_payloads
from luthier.lowering.progress import over
from luthier.lowering.timing import timed
from luthier.passes.analysis.liveness import Liveness
from luthier.passes.instrument.inline_hooks import inline_payloads
from luthier.passes.instrument.lower_intrinsics import lower_payload_intrinsics
from luthier.passes.instrument.payload_state import (
    insert_saves,
    intended_units,
    read_units,
    save_state,
    saved_registers,
    written_units,
)
from luthier.passes.instrument.regalloc import (
    PayloadAllocator,
    Site,
    body_key,
    has_payloads,
    payload_sites,
)
from luthier.passes.instrument.regalloc_assign import Pools
from luthier.passes.instrument.regalloc_model import PayloadCode
from luthier.passes.instrument.template_families import FamilyIndex, Member, Specializer
from luthier.passes.instrument.verify_payloads import BodyCache, check_payloads
from luthier.passes.instrument.virtualize import virtualize_payloads
from luthier.passes.preamble.sva import STATE_INTRINSICS, place_sva

#: What makes payloads lower alike: the target, the hook's name and the bound arguments.
Shape = tuple[str, str, Attribute]


@dataclass(frozen=True)
class AllocationOptions:
    """The allocator's options (see :class:`~.regalloc.AllocatePayloadRegistersPass`)."""

    allow_budget_growth: bool = True
    spill: bool = True
    spill_vgprs_to_agprs: bool = True
    assume_live: bool = False

    def allocator(self, code_object: CodeObjectOp,
                  liveness: Liveness | None = None) -> PayloadAllocator:
        return PayloadAllocator(code_object, self.allow_budget_growth, self.spill,
                                self.spill_vgprs_to_agprs, self.assume_live, liveness)


@dataclass
class Template:
    """One shape lowered up to register allocation, detached from any point."""

    #: A payload holding the lowered body (not in any block).
    body: PayloadOp
    #: The ``writes`` attribute inlining gave (the registers the hook writes on purpose).
    writes: Attribute | None
    #: Units the code writes, the hook writes on purpose, and the code names as operands.
    written: int
    intended: int
    reads: int


@dataclass(frozen=True, eq=False)
class _Allocation:
    """An allocated body, for points whose pools agree with ``pools`` on ``examined``."""

    examined: int
    pools: tuple[int, int, int, int]
    body: PayloadOp
    record: Attribute
    #: The body as a value (its code and :meth:`~.regalloc.Attempt.key`, or
    #: :func:`~.regalloc.body_key`): allocations that gave the same code share one symbolic
    #: execution in the verifier.
    key: Hashable
    #: The body as packed code, when the points that reuse it get a packed op.
    packed: PackedCodeAttr | None = None


#: How many examined masks a point's pools are tried against before the allocator runs:
#: neighbouring points tend to share the latest ones, and a miss costs one run of the
#: allocator (whose outcome is looked up), not a new allocation.
_RECENT = 8


@dataclass
class _Code:
    """A template with one choice of saves: what the allocator allocates.

    ``allocations`` indexes the reusable allocations by the units they examined, then by
    the dead units among those (the pool that differs most between points), then by the
    rest of the pools there; only the latest examined masks are tried (:data:`_RECENT`).
    ``outcomes`` indexes them by what the allocator decided, for the points that missed."""

    body: PayloadOp
    analysis: PayloadCode
    allocations: dict[int, dict[int, list[_Allocation]]] = field(
        default_factory=dict[int, dict[int, list[_Allocation]]])
    #: The examined masks of the latest reuses and allocations, most recent first.
    recent: list[int] = field(default_factory=list[int])
    #: Allocations by outcome (:meth:`~.regalloc.Attempt.key`): the same homes and record
    #: found from other pools give the same code.
    outcomes: dict[Hashable, _Allocation] = field(default_factory=dict[Hashable, _Allocation])

    def reusable(self, pools: Pools) -> _Allocation | None:
        """An allocation these pools would make again, found among the examined masks
        used most recently (:data:`_RECENT`); None when none of those fits (the caller then
        runs the allocator, whose outcome may still be one of the known allocations)."""
        recent = self.recent
        for position, examined in enumerate(recent):
            found = self._find(pools, examined)
            if found is not None:
                if position:
                    del recent[position]
                    recent.insert(0, examined)
                return found
        return None

    def _find(self, pools: Pools, examined: int) -> _Allocation | None:
        candidates = self.allocations[examined].get(pools.dead & examined)
        if candidates is None:
            return None
        masked = _masked(pools, examined)
        return next((found for found in candidates if found.pools == masked), None)

    def add(self, allocation: _Allocation) -> None:
        examined = allocation.examined
        by_dead = self.allocations.setdefault(examined, {})
        by_dead.setdefault(allocation.pools[0], []).append(allocation)
        if examined in self.recent:
            self.recent.remove(examined)
        self.recent.insert(0, examined)
        del self.recent[_RECENT:]


def _masked(pools: Pools, examined: int) -> tuple[int, int, int, int]:
    return (pools.dead & examined, pools.allowed & examined, pools.budget & examined,
            pools.spillable & examined)


def shape_of(payload: PayloadOp, processor: str) -> Shape:
    return (processor, payload.hook.string_value(), payload.args)


def _reads_entry_state(payload: PayloadOp) -> bool:
    return any(isinstance(op, MCIntrinsicOp) and op.intrinsic.data in STATE_INTRINSICS
               for op in payload.body.walk())


def _clear_body(payload: PayloadOp) -> None:
    if payload.body.first_block is None:  # a point's payload before it gets its code
        return
    for block in list(payload.body.blocks):
        payload.body.detach_block(block)
        block.erase(safe_erase=False)


def _replace_body(payload: PayloadOp, source: PayloadOp) -> dict[Operation, Operation]:
    """Give ``payload`` a copy of ``source``'s body instead of its own; returns each op
    of ``source`` -> its copy."""
    _clear_body(payload)
    return copy_machine_region(source.body, payload.body)


#: An ``instr.return``, copied into each payload of packed code.
_RETURN: list[Operation] = []


def _give_packed(payload: PayloadOp, code: PackedCodeAttr) -> None:
    """Make ``payload``'s body one packed op of ``code`` (and its ``instr.return``),
    made directly (tens of thousands of points: ``Operation.create`` costs several times
    this)."""
    if not _RETURN:
        _RETURN.append(ReturnOp.create())
    _clear_body(payload)
    payload.body.add_block(block_of([PackedCodeOp.of(code), *copy_machine_ops(_RETURN)]))


def _pack(payload: PayloadOp,
          known: PackedCodeAttr | None) -> tuple[PayloadOp, PackedCodeAttr] | None:
    """Move ``payload``'s allocated body into a payload of its own, kept as the code of
    later points, and give ``payload`` a packed op of it instead (of ``known``, a code
    equal to the body, when there is one); None, changing nothing, when the body cannot
    be packed (control flow, not straight machine code)."""
    blocks = list(payload.body.blocks)
    if len(blocks) != 1:
        return None
    code = PackedCode.of_block(blocks[0]) if known is None else known.data
    if code is None:
        return None
    kept = PayloadOp.empty(payload.hook, payload.args)
    payload.body.detach_block(blocks[0])
    kept.body.add_block(blocks[0])
    attr = PackedCodeAttr(code) if known is None else known
    _give_packed(payload, attr)
    return kept, attr


@dataclass
class AllocationMemo:
    """The allocations :func:`lower_hooks_with_templates` made, kept for its next call.

    A worker that lowers a code object's functions a few at a time (``luthier-opt
    --jobs``, :mod:`~luthier.drivers.function_workers`) gives every call one memo, so that
    a point reuses an allocation made for a function of an earlier call as it would one
    made in the same call. That is exact for the same reason reuse within a call is: an
    allocation is reused only for pools that agree with it on every unit the allocator
    examined, and the code it allocates is the shape's, whichever call compiled it (the
    key is the shape, target included, and the saves). A memo holds for one set of
    allocation options: a call with other options starts it afresh."""

    options: AllocationOptions | None = None
    codes: dict[tuple[Shape, tuple[str, ...]], _Code] = field(
        default_factory=dict[tuple[Shape, tuple[str, ...]], _Code])
    packed_codes: dict[Hashable, PackedCodeAttr] = field(
        default_factory=dict[Hashable, PackedCodeAttr])
    #: The verifier's symbolic executions of the allocated bodies, by the same keys.
    bodies: BodyCache = field(default_factory=lambda: BodyCache(keys={}))
    #: Each compiled shape's template (stateful shapes, lowered by the passes, are not kept):
    #: a hook with a shape per opcode compiled hundreds of them per call.
    templates: dict[Shape, Template] = field(default_factory=dict[Shape, Template])
    #: The families of the shapes seen so far (:mod:`.template_families`), and the
    #: members' codes made from their leaders' allocations.
    families: FamilyIndex[Shape] = field(default_factory=FamilyIndex[Shape])
    specializer: Specializer = field(default_factory=Specializer)

    def for_options(self, options: AllocationOptions) -> AllocationMemo:
        """This memo, emptied first when it was kept for other options."""
        if self.options != options:
            self.options = options
            self.codes.clear()
            self.packed_codes.clear()
            self.bodies = BodyCache(keys={})
            self.templates.clear()
            self.families = FamilyIndex[Shape]()
            self.specializer = Specializer()
        return self


@dataclass
class TemplateStats:
    """What the templates saved: payloads, shapes compiled, allocations run and reused."""

    points: int = 0
    shapes: int = 0
    #: Shapes compiled in this call (the others, an earlier call's: :class:`AllocationMemo`).
    compiled: int = 0
    #: Shapes lowered as another shape's code with other addends (:mod:`.template_families`),
    #: and the codes made for them.
    members: int = 0
    variants: int = 0
    allocated: int = 0
    reused: int = 0


def lower_hooks_with_templates(ctx: Context, module: ModuleOp, options: AllocationOptions,
                               packed: bool = False,
                               memo: AllocationMemo | None = None) -> TemplateStats | None:
    """Lower every payload of ``module`` (inserted, not inlined yet) through templates;
    None, doing nothing, when some payload already has a body (the passes handle that).

    With ``packed``, a payload whose allocated body is straight-line code gets a packed
    op of it (:mod:`~luthier.amdgpu_dialects.amdgpu_mc.packed`) instead of a copy: every
    point that reuses one allocation shares its code. For callers that go on to
    ``finalize-instrumentation`` and emission, which take packed ops; other passes and
    the IR printer need the copies.

    ``memo`` keeps the allocations for later calls (see :class:`AllocationMemo`); by
    default they last for this call."""
    memo = (AllocationMemo() if memo is None else memo).for_options(options)
    code_objects = [op for op in module.ops if isinstance(op, CodeObjectOp)]
    found = [(code_object, _function_payloads(code_object)) for code_object in code_objects]
    if any(payload.body.blocks for _, members in found for payload in members):
        return None
    stats = TemplateStats(points=sum(len(members) for _, members in found))
    firsts: dict[Shape, PayloadOp] = {}
    for code_object, members in found:
        processor = code_object.processor  # parsed from the target id at each read
        for payload in members:
            firsts.setdefault(shape_of(payload, processor), payload)
    stats.shapes = len(firsts)
    # Shapes an earlier call compiled (never stateful ones) are not compiled again.
    fresh = {shape: first for shape, first in firsts.items() if shape not in memo.templates}
    with timed("compile-shapes"):
        # Stage by stage over the leaders, so that a failing hook fails as the passes fail.
        _select(module, list(fresh.values()))
        stateful = {shape for shape, first in fresh.items() if _reads_entry_state(first)}
        if stateful and len(fresh) < len(firsts):
            # The passes start from every shape's selected code: the known ones too.
            _select(module, [first for shape, first in firsts.items() if shape not in fresh])
            fresh = firsts
        # What code objects lowered by the passes start from (those with stateful hooks).
        selected = {shape: first.clone() for shape, first in firsts.items()} if stateful \
            else {}
        for shape, first in fresh.items():
            if shape not in stateful:
                lower_payload_intrinsics(first)
                _verify_template(first)
        stats.compiled = len(fresh)
    # The payloads and liveness of this call, the executions of every call.
    bodies = BodyCache(keys={}, executions=memo.bodies.executions,
                       classes=memo.bodies.classes)
    templated: list[tuple[CodeObjectOp, dict[Shape, Template]]] = []
    by_passes: list[CodeObjectOp] = []
    for code_object, members in found:
        if not members:
            continue
        processor = code_object.processor
        shapes = {shape_of(payload, processor) for payload in members}
        if shapes & stateful:
            for payload in members:
                if not payload.body.blocks:
                    _replace_body(payload, selected[shape_of(payload, processor)])
                    _copy_writes(payload, selected[shape_of(payload, processor)])
            by_passes.append(code_object)
        else:
            # In payload order: a family's first shape is the same in every run.
            ordered = dict.fromkeys(shape_of(payload, processor)
                                    for payload in members)
            templated.append((code_object, {shape: _known_template(memo, shape, firsts[shape],
                                                                   code_object)
                                            for shape in ordered}))
    if by_passes:
        with timed("lower-by-passes"):
            for code_object in by_passes:
                place_sva(code_object)
            for code_object in by_passes:
                _lower_by_passes(code_object, options)
    with timed("allocate-points"):
        for code_object, templates in templated:
            _PointLowering(code_object, templates, options, bodies, stats, packed,
                           memo).run()
    with timed("verify-payloads"):
        check_payloads(module, bodies)
    return stats


def _function_payloads(code_object: CodeObjectOp) -> list[PayloadOp]:
    """The payloads in the blocks of ``code_object``'s functions, in layout order: what
    :func:`~luthier.amdgpu_dialects.instr.points.payloads` gives while no payload has a
    body (the caller checks that; machine code ops have no regions to hold others), without
    walking into every instruction of a library."""
    return [op for function in code_object.body.ops if isinstance(function, FunctionLikeOp)
            for block in function.body.blocks for op in block.ops if type(op) is PayloadOp]


def _verify_template(first: PayloadOp) -> None:
    """xDSL's verification of a lowered shape, once: every point's code is a copy of it
    with saves the builder added and registers the allocator checks
    (:meth:`~luthier.amdgpu_dialects.amdgpu_mc.instructions.InstructionOpBase.verify_operands`),
    so a driver need not verify the whole lowered module again."""
    try:
        first.verify()
    except VerifyException as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        raise PassFailedException(
            f"lower-hooks: {describe_point(first)}: the lowered hook does not verify: "
            f"{lines[0] if lines else type(error).__name__}") from None


def _copy_writes(payload: PayloadOp, source: PayloadOp) -> None:
    writes = source.attributes.get("writes")
    if writes is not None:
        payload.attributes["writes"] = writes


def _select(module: ModuleOp, leaders: list[PayloadOp]) -> None:
    """Inline, select and virtualize the leaders' hooks (stage by stage over them all)."""
    inline_payloads(module, leaders)
    select_payloads(leaders)
    virtualize_payloads(leaders)


def _known_template(memo: AllocationMemo, shape: Shape, first: PayloadOp,
                    code_object: CodeObjectOp) -> Template:
    """The template of ``shape``: an earlier call's, or made from ``first`` (compiled in
    this call) and kept for later calls."""
    template = memo.templates.get(shape)
    if template is None:
        template = memo.templates[shape] = _template(first, code_object)
    return template


def _template(first: PayloadOp, code_object: CodeObjectOp) -> Template:
    isa = load_target(*code_object.target_key)
    return Template(first.clone(), first.attributes.get("writes"), written_units(first, isa),
                    intended_units(first), read_units(first))


def _lower_by_passes(code_object: CodeObjectOp, options: AllocationOptions) -> None:
    """``lower-intrinsics``, ``save-payload-state`` and ``allocate-payload-registers`` on
    one code object, as the passes do."""
    members = list(payloads(code_object))
    for payload in members:
        lower_payload_intrinsics(payload)
    save_state(code_object, Liveness(code_object), members)
    if code_object.processor in SUPPORTED_TARGETS and has_payloads(code_object):
        options.allocator(code_object).run()


class _PointLowering:
    """The per-point part of the lowering for one code object: saves, allocation."""

    def __init__(self, code_object: CodeObjectOp, templates: dict[Shape, Template],
                 options: AllocationOptions, bodies: BodyCache, stats: TemplateStats,
                 packed: bool = False, memo: AllocationMemo | None = None) -> None:
        self.code_object = code_object
        self.processor = code_object.processor
        self.packed = packed
        self.stats = stats
        self.templates = dict(templates)
        self.isa = load_target(*code_object.target_key)
        self.builder = InstBuilder(*code_object.target_key)
        self.liveness = bodies.liveness[code_object] = Liveness(code_object)
        self.allocator = options.allocator(code_object, self.liveness)
        self.bodies = bodies
        memo = AllocationMemo() if memo is None else memo
        #: Shapes lowered as an earlier shape's code (this call's or an earlier one's: the
        #: memo's templates hold every leader), and what gives them their addends.
        for shape, template in templates.items():
            memo.families.add(shape, template.body)
        self.members = {shape: member for shape in templates
                        if (member := memo.families.members.get(shape)) is not None}
        for member in self.members.values():
            if member.leader not in self.templates:
                self.templates[member.leader] = memo.templates[member.leader]
        stats.members += len(self.members)
        self.specializer = memo.specializer
        self.variants_before = memo.specializer.made
        self.codes = memo.codes
        #: Packed code per body (:func:`~.regalloc.body_key`): allocations that gave the
        #: same code share it, so later stages derive its facts once.
        self.packed_codes = memo.packed_codes

    def run(self) -> None:
        # Per point, not per function: one kernel of a library can hold most of its points.
        points = [group for function in self.code_object.body.ops
                  if isinstance(function, FunctionLikeOp)
                  for group in _points(payload_sites(function))]
        for group in over("lower-hooks", points, "point"):
            self._lower_point(group)
        self.stats.variants += self.specializer.made - self.variants_before

    def _lower_point(self, group: Sequence[tuple[PayloadOp, Site]]) -> None:
        """The payloads in front of one instruction: what a later one reads, an earlier
        one keeps (its saves) or leaves alone (its allocation)."""
        live = self.liveness.live_before(group[0][1].point)
        state_reads = allocation_reads = 0
        planned: list[tuple[PayloadOp, Site, Template, _Code, int, Member[Shape] | None]] = []
        for payload, site in reversed(group):
            shape = shape_of(payload, self.processor)
            member = self.members.get(shape)
            if member is not None:
                shape = member.leader
            template = self.templates[shape]
            clobbered = template.written & (live | state_reads) & ~template.intended
            state_reads |= template.reads
            code = self._code(shape, site, template, saved_registers(clobbered))
            planned.append((payload, site, template, code, allocation_reads, member))
            allocation_reads |= code.analysis.physical_reads()
        for payload, site, template, code, later, member in reversed(planned):
            self._allocate(payload, site, template, code, later)
            if member is not None:
                self.specializer.specialize(payload, member.addends)

    def _code(self, shape: Shape, site: Site, template: Template,
              saves: tuple[str, ...]) -> _Code:
        key = (shape, saves)
        code = self.codes.get(key)
        if code is None:
            body = template.body.clone()
            insert_saves(body, saves, self.builder)
            code = self.codes[key] = _Code(body, self.allocator.analyze(body, site))
        return code

    def _allocate(self, payload: PayloadOp, site: Site, template: Template, code: _Code,
                  later: int) -> None:
        pools = self.allocator.pools(site, code.analysis, later, False)
        if template.writes is not None:
            payload.attributes["writes"] = template.writes
        allocation = code.reusable(pools)
        if allocation is not None:
            self._reuse(payload, allocation)
            return
        # Not known from the pools: the allocator decides, and an outcome seen before
        # (other pools, same homes and record) gives that allocation's code.
        attempt = self.allocator.attempt(code.analysis, pools)
        outcome = attempt.key(code.analysis)
        key = None if outcome is None else (id(code), outcome)
        known = code.outcomes.get(key) if key is not None else None
        if known is not None:
            code.add(replace(known, examined=attempt.examined,
                             pools=_masked(attempt.pools, attempt.examined)))
            self._reuse(payload, known)
            return
        self.stats.allocated += 1
        copies = _replace_body(payload, code.body)
        reusable = self.allocator.allocate(payload, site, code.analysis, later, copies,
                                           attempt, key)
        if reusable is None:
            return
        key = body_key(payload) if key is None else key
        packing = _pack(payload, self.packed_codes.get(key)) if self.packed else None
        if packing is not None:
            kept, packed = packing
            self.packed_codes.setdefault(key, packed)
        else:
            kept, packed = PayloadOp.empty(payload.hook, payload.args), None
            copy_machine_region(payload.body, kept.body)
        allocation = _Allocation(reusable.examined, _masked(reusable.pools, reusable.examined),
                                 kept, payload.attributes["allocation"], key, packed)
        code.add(allocation)
        if outcome is not None:
            code.outcomes[key] = allocation
        self.bodies.keys[payload] = allocation.key

    def _reuse(self, payload: PayloadOp, allocation: _Allocation) -> None:
        """Give ``payload`` the code and record of an allocation made at another point."""
        if allocation.packed is not None:
            _give_packed(payload, allocation.packed)
        else:
            _replace_body(payload, allocation.body)
        payload.attributes["allocation"] = allocation.record
        self.bodies.keys[payload] = allocation.key
        self.stats.reused += 1


def _points(sites: list[tuple[PayloadOp, Site]]) -> list[list[tuple[PayloadOp, Site]]]:
    """``sites`` grouped by instrumented instruction, in layout order."""
    groups: list[list[tuple[PayloadOp, Site]]] = []
    for entry in sites:
        if groups and groups[-1][0][1].point is entry[1].point:
            groups[-1].append(entry)
        else:
            groups.append([entry])
    return groups
