"""``allocate-payload-registers``: give every payload temporary a physical register.

After instruction selection and ``virtualize-phys-regs`` a payload's code names virtual
registers for its temporaries and physical registers only for what it shares with the
application (entry/exit copies, EXEC, VCC, SCC, M0). This pass replaces each virtual
register, payload by payload, with a register that no lane of the application reads again
from the instrumented instruction on (the *point*), so the application computes what it
computed before:

* candidates are dead before the point (:class:`~luthier.passes.analysis.free_registers.
  FreeRegisters`), not read by a later payload at the same point, legal for the register's
  class and every operand slot it is used in, and free of interference inside the payload
  (:mod:`.regalloc_model`, :mod:`.regalloc_assign`);
* registers inside the kernel's budget come first, then (``allow_budget_growth``) dead
  registers past it, lowest first: using one grows the kernel's allocation and may cost
  occupancy, which the report (:mod:`.report`) shows;
* when neither is enough (``spill``), live application registers the payload does not name
  are saved around it, SGPRs to VGPR lanes and VGPRs to AGPRs or, when no AGPR is dead
  (or ``spill_vgprs_to_agprs`` is off, like LLVM's ``-amdgpu-spill-vgpr-to-agpr=0``), to
  slots of the instrumentation stack in scratch memory (:mod:`.regalloc_spill`,
  :mod:`luthier.passes.preamble.scratch`);
* a temporary copied from (or to) an application register takes that register when that
  keeps every value right, and the copy, now a no-op, is deleted.

What was decided is recorded on each payload as a dictionary attribute, for the report and
for the passes after (the SVA and preamble need to know which registers payloads use)::

    allocation = {registers = ["s20", "v[4:5]"], coalesced = ["s7"], spilled = ["s9"],
                  spill_registers = ["v6"], budget_growth = ["v8"]}

``registers`` are the homes of the temporaries (coalesced ones included), ``spilled`` the
application registers saved and restored, ``spill_registers`` the dead registers that hold
them (lane VGPRs, AGPRs, the SGPR pair holding EXEC, the stack address SGPR),
``budget_growth`` the units used past the kernel's budget. A payload that saves VGPRs to
the instrumentation stack also records ``stack`` (its bytes), ``stack_offset`` (the byte
of its first slot) and ``stack_saved`` (the VGPRs, slot by slot); ``update-descriptors``
and ``emit-preamble`` read them. When nothing can make room, the pass fails with one line
naming the hook, the function and the instruction.

``assume_live`` is a testing aid: it pretends every application SGPR, VGPR and AGPR is live
at every point except one dead SGPR pair and one more dead SGPR (what saving to memory
needs), so that ordinary kernels exercise every spill path (lanes, saved lane holders,
stack slots). Saving a register that was in fact dead changes nothing the application
sees; it only costs time.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException, VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.copy import block_ops, successor_blocks
from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    is_instruction_class,
    operand_array,
)
from luthier.amdgpu_dialects.amdgpu_mc.register_units import file_range, unit_names, units_of
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
)
from luthier.amdgpu_dialects.amdgpu_mc.target_context import TargetKey
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.instr.points import format_point, instruction_text
from luthier.amdgpu_dialects.isa.registers import tuple_name
from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS, TargetISA, load_target
from luthier.lowering.progress import over
from luthier.passes.analysis.effects import EffectError
from luthier.passes.analysis.free_registers import FreeRegisters
from luthier.passes.analysis.liveness import Liveness, instructions
from luthier.passes.instrument.regalloc_assign import Allocator, Assignment, Pools
from luthier.passes.instrument.regalloc_model import (
    COPY_MNEMONICS,
    PayloadCode,
    PayloadError,
    VirtualRegister,
    analyze_payload,
)
from luthier.passes.instrument.regalloc_spill import (
    SpillError,
    SpillPlan,
    StackAccess,
    emit_spill_code,
    plan_spills,
)
from luthier.passes.preamble.scratch import (
    STACK_BYTES_KEY,
    STACK_OFFSET_KEY,
    STACK_SAVED_KEY,
    StackError,
    StackLayout,
    StackOffsetError,
    max_scratch_offset,
)
from luthier.passes.preamble.sva import reserved_units

PASS_NAME = "allocate-payload-registers"
_FILE_NAMES = {"s": "SGPR", "v": "VGPR", "a": "AGPR"}
_FILES = ("s", "v", "a")
_SPILLABLE_FILES = file_range("s", 0, 102) | file_range("v", 0, 256)


@dataclass(frozen=True, slots=True)
class Site:
    """Where a payload runs: its function, the instrumented instruction and its index."""

    function: FunctionLikeOp
    point: InstructionOpBase
    index: int

    def describe(self, payload: PayloadOp) -> str:
        return format_point(payload.hook.string_value(), self.function.sym_name.data,
                            instruction_text(self.point), self.index)


def payload_sites(function: FunctionLikeOp) -> list[tuple[PayloadOp, Site]]:
    """Every payload of ``function`` with its point, in layout order."""
    index_of = {id(op): index for index, op in enumerate(instructions(function))}
    found: list[tuple[PayloadOp, Site]] = []
    for block in function.body.blocks:
        pending: list[PayloadOp] = []
        for op in block_ops(block):
            if isinstance(op, PayloadOp):
                pending.append(op)
            elif isinstance(op, InstructionOpBase) and pending:
                found.extend((payload, Site(function, op, index_of[id(op)]))
                             for payload in pending)
                pending = []
        if pending:
            raise PassFailedException(
                f"{PASS_NAME}: @{pending[0].hook.string_value()} in "
                f"@{function.sym_name.data}: a payload with no instruction after it")
    return found


@dataclass(frozen=True, slots=True)
class Reusable:
    """What an allocation that spilled nothing read of its point: the pools, and the units
    whose pool bits any decision (or the record's budget growth) depended on. Another
    point of the same payload code whose pools agree on ``examined`` gets the same homes
    and the same record (:mod:`.allocation_memo`)."""

    pools: Pools
    examined: int


@dataclass(frozen=True, slots=True)
class Attempt:
    """The allocator's first try at a point, without spilling: its pools, its result and
    the units its decisions examined (with the record's budget growth's)."""

    pools: Pools
    result: Assignment
    examined: int

    def key(self, code: PayloadCode) -> Hashable | None:
        """What the allocated body and its record are a function of, for one payload
        code: the homes, the copies that took their hints and the budget growth; None
        when the try failed or spills (the spill plan depends on the function's stack)."""
        result = self.result
        if result.failed is not None or result.spilled:
            return None
        growth = (result.used | code.physical_units) & ~self.pools.budget & _ALLOCATABLE
        return (tuple(sorted(result.homes.items())), tuple(sorted(result.coalesced)), growth)


class _Failure(Exception):
    """Allocation of one payload failed: the reason, for the diagnostic."""


class PayloadAllocator:
    """Allocates the payloads of one code object."""

    def __init__(self, code_object: CodeObjectOp, allow_budget_growth: bool = True,
                 spill: bool = True, spill_vgprs_to_agprs: bool = True,
                 assume_live: bool = False, liveness: Liveness | None = None) -> None:
        self.code_object = code_object
        self.processor = code_object.processor
        #: The processor and wave size (an RDNA code object in wave64 has 64-bit masks).
        self.target = code_object.target_key
        self.isa: TargetISA = load_target(*self.target)
        self.allow_budget_growth = allow_budget_growth
        self.spill = spill
        self.spill_vgprs_to_agprs = spill_vgprs_to_agprs
        self.assume_live = assume_live
        #: Where the instrumentation stack starts per function (built on first use).
        self.stack = StackLayout(code_object)
        try:
            self.free = FreeRegisters(code_object, liveness)
        except EffectError as error:
            raise PassFailedException(f"{PASS_NAME}: {error}") from None
        #: FunctionLikeOp -> the SVA and work-item homes of the kernels that may run it: dead
        #: for the application, but holding the state payloads read.
        self.reserved = reserved_units(code_object)
        #: Allocated bodies that verified (see :meth:`_verify`).
        self.verified: set[Hashable] = set()
        #: Per function, the (budget, allowed) masks of the register files.
        self._file_masks: dict[FunctionLikeOp, tuple[int, int]] = {}

    def run(self) -> None:
        functions = [op for op in self.code_object.body.ops if isinstance(op, FunctionLikeOp)]
        for function in over("allocate-payload-registers", functions, "function"):
            self.run_function(function)

    def run_function(self, function: FunctionLikeOp) -> None:
        """Allocate the payloads of one function."""
        sites = payload_sites(function)
        codes = [self.analyze(payload, site) for payload, site in sites]
        for position, ((payload, site), code) in enumerate(zip(sites, codes, strict=True)):
            later = 0
            for (_, other_site), other in zip(sites[position + 1:], codes[position + 1:],
                                              strict=True):
                if other_site.point is site.point:
                    later |= other.physical_reads()
            self.allocate(payload, site, code, later)

    def analyze(self, payload: PayloadOp, site: Site) -> PayloadCode:
        try:
            return analyze_payload(payload, self.isa)
        except PayloadError as error:
            raise PassFailedException(f"{PASS_NAME}: {site.describe(payload)}: {error}") \
                from None

    def pools(self, site: Site, code: PayloadCode, later_reads: int, spill: bool) -> Pools:
        """What the allocator may draw from at ``site`` (with ``spill``, also the live
        application registers that may be saved)."""
        point = site.point
        dead_here = self.free.dead_before(point) & ~self.reserved.get(
            site.function.sym_name.data, 0)
        if self.assume_live:
            dead_here = _scarce(dead_here)
        masks = self._file_masks.get(site.function)
        if masks is None:  # the files' limits are the function's: found once per function
            budget = allowed = 0
            for prefix in _FILES:
                budget |= self.free.allocatable(point, prefix, True)
                allowed |= self.free.allocatable(point, prefix, not self.allow_budget_growth)
            masks = self._file_masks[site.function] = (budget, allowed)
        budget, allowed = masks
        spillable = 0
        if spill:
            spillable = ~dead_here & budget & _SPILLABLE_FILES & ~code.physical_units \
                & ~self.reserved.get(site.function.sym_name.data, 0)
        return Pools(dead_here & ~later_reads, allowed, budget, spillable)

    def attempt(self, code: PayloadCode, pools: Pools) -> Attempt:
        """The allocator's try with ``pools`` (a point's, without spilling), changing
        nothing: what :meth:`allocate` starts from."""
        allocator = Allocator(code, self.isa, pools)
        result = allocator.run()
        return Attempt(pools, result, allocator.examined | code.physical_units & _ALLOCATABLE)

    def allocate(self, payload: PayloadOp, site: Site, code: PayloadCode,
                 later_reads: int,
                 copies: Mapping[Operation, Operation] | None = None,
                 first: Attempt | None = None,
                 key: Hashable | None = None) -> Reusable | None:
        """Replace the payload's virtual registers by homes at ``site``, verify and record
        the allocation; what made the choice, when nothing had to be spilled (a spill plan
        depends on the function's stack, so it is not reused). ``code`` is the analysis of
        the payload's ops, or of the ops ``copies`` maps to them; ``first``, the
        :meth:`attempt` at this point when the caller made it; ``key``, the body's key
        when the caller knows it (:func:`body_key` otherwise), for verifying each distinct
        body once."""
        plan = SpillPlan()
        if first is None:
            first = self.attempt(code, self.pools(site, code, later_reads, False))
        pools, result = first.pools, first.result
        reusable: Reusable | None = None
        if result.failed is None:
            reusable = Reusable(pools, first.examined)
        try:
            if result.failed is not None:
                failed = result.failed
                if not self.spill:
                    raise _Failure(self._shortage(code, pools, failed, "spilling is off"))
                pools = self.pools(site, code, later_reads, True)
                result = Allocator(code, self.isa, pools).run()
                if result.failed is not None:
                    raise _Failure(self._shortage(code, pools, result.failed,
                                                  "nothing to spill"))
                try:
                    plan = plan_spills(result.spilled, result.used, code.physical_units,
                                       pools, self.isa.wavefront_size,
                                       self.spill_vgprs_to_agprs, self._stack_access(site))
                except SpillError as error:
                    raise _Failure(self._shortage(code, pools, failed, str(error))) from None
                except StackOffsetError as error:
                    raise _Failure(str(error)) from None
                except StackError as error:
                    raise PassFailedException(f"{PASS_NAME}: {error}") from None
        except _Failure as failure:
            raise PassFailedException(f"{PASS_NAME}: {site.describe(payload)}: {failure}") \
                from None
        _rewrite(code, result, copies)
        emit_spill_code(plan, list(payload.body.blocks), *self.target)
        self._verify(payload, site, key)
        payload.attributes["allocation"] = _record(code, result, plan, pools)
        return reusable

    def _verify(self, payload: PayloadOp, site: Site, key: Hashable | None = None) -> None:
        """Verify the allocated ops, once per distinct body (payloads of one hook often get
        the same homes, and op verification is a large share of allocating)."""
        key = body_key(payload) if key is None else key
        if key in self.verified:
            return
        _verify(payload, site, self.target)
        self.verified.add(key)

    def _stack_access(self, site: Site) -> StackAccess:
        """The stack of the payloads of ``site``'s function: GFX942 reaches slots with the
        immediate alone (architected flat scratch, "ST" addressing); GFX90A needs an SGPR."""
        name = site.function.sym_name.data
        needs_sgpr = not self.isa.subtarget.has_flat_scratch_st_mode
        return StackAccess(lambda: self.stack.base(name), needs_sgpr,
                           max_scratch_offset(self.isa.subtarget))

    def _shortage(self, code: PayloadCode, pools: Pools, vreg: VirtualRegister,
                  reason: str) -> str:
        prefix = vreg.prefixes[0]
        needs = max(code.pressure(prefix), vreg.units)
        free = (pools.dead & pools.allowed & file_range(prefix, 0, 256)).bit_count()
        plural = "" if needs == 1 else "s"
        return f"needs {needs} {_FILE_NAMES[prefix]}{plural}, {free} free, {reason}"


#: A virtual register operand: (its number, its first unit in the register, its units).
_VirtualPart = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class _InstructionRewrite:
    """An instruction of the code that names virtual registers: its operands, where the
    virtual ones are, and whether it is a move that vanishes when both sides get one home."""

    item: int
    operands: tuple[Attribute, ...]
    virtual: tuple[tuple[int, _VirtualPart], ...]
    move: bool


@dataclass(frozen=True, slots=True)
class _IntrinsicRewrite:
    """An intrinsic of the code: its defs and uses, virtual ones by their part."""

    item: int
    defs: tuple[Attribute | _VirtualPart, ...]
    uses: tuple[Attribute | _VirtualPart, ...]


def _part(code: PayloadCode, attr: VirtRegAttr) -> _VirtualPart:
    first, count = attr.sub_units or (0, code.vregs[attr.number].units)
    return attr.number, first, count


def rewrite_plan(code: PayloadCode) -> list[_InstructionRewrite | _IntrinsicRewrite]:
    """What :func:`_rewrite` changes in ``code``'s ops, found once per code (the same code
    is rewritten with other homes at every point that needs a new allocation)."""
    if code.rewrites is not None:
        return cast(list[_InstructionRewrite | _IntrinsicRewrite], code.rewrites)
    plan: list[_InstructionRewrite | _IntrinsicRewrite] = []
    for index, item in enumerate(code.items):
        op = item.op
        if isinstance(op, InstructionOpBase):
            operands = op.mc_operands.data
            virtual = tuple((position, _part(code, attr))
                            for position, attr in enumerate(operands)
                            if isinstance(attr, VirtRegAttr))
            if virtual:
                plan.append(_InstructionRewrite(
                    index, operands, virtual,
                    item.copy is not None or op.mnemonic in COPY_MNEMONICS))
        elif isinstance(op, MCIntrinsicOp):
            plan.append(_IntrinsicRewrite(
                index, *(tuple(_part(code, attr) if isinstance(attr, VirtRegAttr) else attr
                               for attr in attrs) for attrs in (op.defs.data, op.uses.data))))
    code.rewrites = plan
    return plan


def _home(homes: Mapping[int, str], part: _VirtualPart) -> PhysRegAttr:
    """The register the units of ``part`` are, once its register has a home."""
    number, first, count = part
    name = homes[number]
    key = (name, first, count)
    found = _PARTS.get(key)
    if found is None:
        start = int(name[1:].lstrip("[").split(":", 1)[0])
        found = _PARTS[key] = PhysRegAttr.get_register(
            tuple_name(name[0], start + first, count))
    return found


#: (home, first unit, units) -> the register those units of the home are.
_PARTS: dict[tuple[str, int, int], PhysRegAttr] = {}




def _rewrite(code: PayloadCode, result: Assignment,
             copies: Mapping[Operation, Operation] | None = None) -> None:
    """Virtual registers become their homes (in the analysed ops, or in their ``copies``);
    copies that became no-ops are deleted."""
    homes = result.homes
    items = code.items
    for change in rewrite_plan(code):
        op = items[change.item].op
        if copies is not None:
            op = copies[op]
        if isinstance(change, _InstructionRewrite):
            operands = list(change.operands)
            for position, part in change.virtual:
                operands[position] = _home(homes, part)
            if change.move and operands[0] == operands[1]:
                op.detach()
                op.erase()
                continue
            op.properties["mc_operands"] = operand_array(operands)
        else:
            op.properties["defs"] = ArrayAttr([
                attr if isinstance(attr, Attribute) else _home(homes, attr)
                for attr in change.defs])
            op.properties["uses"] = ArrayAttr([
                attr if isinstance(attr, Attribute) else _home(homes, attr)
                for attr in change.uses])


def body_key(payload: PayloadOp) -> Hashable:
    """A payload body as a value: each op's name, properties, attributes and successor
    blocks (by index), block by block. Equal keys, equal code."""
    index = {block: position for position, block in enumerate(payload.body.blocks)}
    return tuple(tuple((op.name, tuple(op.properties.items()), tuple(op.attributes.items()),
                        tuple(index.get(block, -1) for block in successor_blocks(op)))
                       for op in block.ops) for block in payload.body.blocks)


def _verify(payload: PayloadOp, site: Site, target: TargetKey) -> None:
    for block in payload.body.blocks:
        for op in block.ops:
            instruction = is_instruction_class(type(op))
            if not instruction and not isinstance(op, MCIntrinsicOp):
                continue
            try:
                # The rewrite only replaced operands: what the op's own verifier checks
                # (each operand against its slot); the generic structure is unchanged.
                if instruction:
                    cast(InstructionOpBase, op).verify_operands(target)
                else:
                    op.verify()
            except VerifyException as error:
                raise PassFailedException(f"{PASS_NAME}: {site.describe(payload)}: the "
                                          f"allocated code does not verify: {error}") from None


def _strings(names: list[str]) -> ArrayAttr[StringAttr]:
    """The names as an array attribute, shared between records that list the same names
    (attributes are immutable; a library's allocations repeat a few lists thousands of
    times, and building an attribute checks it)."""
    key = tuple(names)
    found = _STRING_ARRAYS.get(key)
    if found is None:
        if len(_STRING_ARRAYS) >= 1 << 16:
            _STRING_ARRAYS.clear()
        found = _STRING_ARRAYS[key] = ArrayAttr([StringAttr(name) for name in names])
    return found


_STRING_ARRAYS: dict[tuple[str, ...], ArrayAttr[StringAttr]] = {}


def _register_order(name: str) -> tuple[int, int]:
    units = units_of(name)
    return (units & -units).bit_length(), 0


def _record(code: PayloadCode, result: Assignment, plan: SpillPlan,
            pools: Pools) -> DictionaryAttr:
    used = result.used
    for name in plan.registers:
        used |= units_of(name)
    growth = (used | code.physical_units) & ~pools.budget & _ALLOCATABLE
    homes_set = frozenset(result.homes.values())
    coalesced_set = frozenset(result.homes[n] for n in result.coalesced)
    # Without spills the record is these three sets: allocations of a library repeat a
    # few thousand records tens of thousands of times (attributes are immutable: shared).
    key = None if plan.registers or plan.memory or plan.spilled \
        else (homes_set, coalesced_set, growth)
    if key is not None and (known := _RECORDS.get(key)) is not None:
        return known
    homes = sorted(homes_set, key=_register_order)
    coalesced = sorted(coalesced_set, key=_register_order)
    record: dict[str, Attribute] = {
        "registers": _strings(homes),
        "coalesced": _strings(coalesced),
        "spilled": _strings(plan.spilled),
        "spill_registers": _strings(plan.registers),
        "budget_growth": _strings(unit_names(growth)),
    }
    if plan.memory:
        record[STACK_BYTES_KEY] = IntegerAttr(plan.stack_bytes, 64)
        record[STACK_OFFSET_KEY] = IntegerAttr(plan.stack_offset, 64)
        record[STACK_SAVED_KEY] = _strings(plan.memory)
    found = DictionaryAttr(record)
    if key is not None:
        if len(_RECORDS) >= 1 << 16:
            _RECORDS.clear()
        _RECORDS[key] = found
    return found


#: Allocation records without spills, by (homes, coalesced homes, budget growth).
_RECORDS: dict[tuple[frozenset[str], frozenset[str], int], DictionaryAttr] = {}


_SCARCE_FILES = file_range("s", 0, 106) | file_range("v", 0, 256) | file_range("a", 0, 256)


def _scarce(dead: int) -> int:
    """``dead`` without its SGPRs, VGPRs and AGPRs, but for the lowest dead even SGPR pair
    and the lowest other dead SGPR (``assume_live``)."""
    keep = 0
    for start in range(0, 102, 2):
        pair = file_range("s", start, 2)
        if dead & pair == pair:
            keep = pair
            break
    others = dead & file_range("s", 0, 102) & ~keep
    keep |= others & -others
    return (dead & ~_SCARCE_FILES) | keep


_ALLOCATABLE = file_range("s", 0, 102) | file_range("v", 0, 256) | file_range("a", 0, 256)


@dataclass(frozen=True)
class AllocatePayloadRegistersPass(ModulePass):
    """Replace every payload's virtual registers with registers dead at its point; record
    the allocation on each payload (see the module documentation)."""

    name = PASS_NAME

    allow_budget_growth: bool = True
    spill: bool = True
    #: Save VGPRs to dead AGPRs before the stack (LLVM's ``-amdgpu-spill-vgpr-to-agpr``).
    spill_vgprs_to_agprs: bool = True
    #: Testing aid: pretend almost every register is live (see the module documentation).
    assume_live: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in op.ops:
            if not isinstance(code_object, CodeObjectOp) \
                    or code_object.processor not in SUPPORTED_TARGETS \
                    or not has_payloads(code_object):
                continue
            PayloadAllocator(code_object, self.allow_budget_growth, self.spill,
                             self.spill_vgprs_to_agprs, self.assume_live).run()


def has_payloads(code_object: CodeObjectOp) -> bool:
    """Whether a payload sits in any function (payloads are ops of function blocks)."""
    return any(isinstance(child, PayloadOp)
               for function in code_object.body.ops if isinstance(function, FunctionLikeOp)
               for block in function.body.blocks for child in block.ops)


def allocation_of(payload: PayloadOp) -> dict[str, list[str]]:
    """The ``allocation`` attribute of a payload as plain lists (empty when absent)."""
    attr = payload.attributes.get("allocation")
    if not isinstance(attr, DictionaryAttr):
        return {}
    out: dict[str, list[str]] = {}
    for key, value in attr.data.items():
        if isinstance(value, ArrayAttr):
            items = cast(tuple[Attribute, ...], value.data)  # pyright: ignore[reportUnknownMemberType]
            out[key] = [item.data for item in items if isinstance(item, StringAttr)]
    return out


