"""``place-sva``: where each kernel keeps the state its payloads read.

Hooks may read what the kernel had at entry: kernel arguments (through the kernarg segment
pointer), workgroup ids, work-item ids, and the launch sizes (kept in the hidden kernel
arguments). The application is free to overwrite the registers that held them, so a
preamble saves them at entry (``emit-preamble``) into homes no application instruction
touches:

* the **State Value Array** (SVA): one VGPR whose lanes hold wave-wide values (lane 0/1:
  kernarg segment pointer low/high; lanes 2-4: workgroup id x/y/z; lanes 5-7: the grid's
  size in workgroups x/y/z, HIP's ``gridDim``; lanes 8-10: the workgroup's size in
  work-items, ``blockDim``). A payload reads a lane with ``v_readlane_b32``, which ignores
  EXEC, so the values are there whatever lanes are active at the point;
* the **work-item home**: work-item ids differ per lane, so they get a VGPR of their own
  (a copy of the packed ``v0`` of GFX90A/GFX942: x in bits 0-9, y 10-19, z 20-29), only
  when a payload reads them.

A home is a vector register that no instruction of the kernel, of a function it may call,
or of a payload names, and that the hardware does not write at entry: a VGPR, the lowest
inside the kernel's budget first, else the lowest past it (the descriptor then grows);
when every VGPR is taken, an AGPR the same way. VALU instructions cannot read AGPRs
(``v_readlane_b32`` reads a VGPR), so a payload copies an AGPR home into a VGPR
temporary first (``v_accvgpr_read_b32``; for the SVA under a full EXEC, since the lanes
it reads may be switched off at the point). The homes are
recorded on the kernel (``instr.sva = "v9"``, ``instr.workitem_home = "v10"``), kept out of
payload register allocation (in the kernel and in every function it may call), and read by
``lower-intrinsics`` and ``emit-preamble``.

A kernel that may run code we cannot see (a call outside the code object, a jump to an
unknown address) has no register we can prove free: the pass fails, saying why, as it does
when every VGPR is taken. Payloads in device functions cannot read entry state (which
kernel's SVA would they read?): that fails too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    AGPR_MASK,
    VGPR_MASK,
    file_range,
    unit_bits,
    unit_names,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    FunctionOp,
    KernelOp,
    LabelOp,
    code_objects_in,
)
from luthier.amdgpu_dialects.instr.mc_ops import MCIntrinsicOp
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.instr.points import describe_point
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.passes.analysis.callgraph import CallGraph
from luthier.passes.analysis.cfg import FunctionCFG
from luthier.passes.analysis.register_budget import RegisterBudget
from luthier.passes.analysis.register_usage import RegisterUsage
from luthier.passes.preamble.homes import (
    ENTRY_STATE_ATTR,
    STACK_HOME_PREFIX,
    SVA_ATTR,
    WORKITEM_HOME_ATTR,
    home,
    stack_slot,
)
from luthier.passes.preamble.scratch import (
    SLOT_BYTES,
    STACK_ALIGNMENT,
    metadata_entries,
    round_up,
    uses_dynamic_stack,
)

#: SVA lanes.
KERNARG_LANES = (0, 1)
WORKGROUP_ID_LANES = {"x": 2, "y": 3, "z": 4}
GRID_DIM_LANES = {"x": 5, "y": 6, "z": 7}
BLOCK_DIM_LANES = {"x": 8, "y": 9, "z": 10}
#: The SVA lane of each per-dimension state intrinsic.
STATE_LANES = {"workgroup_id": WORKGROUP_ID_LANES, "grid_dim": GRID_DIM_LANES,
               "block_dim": BLOCK_DIM_LANES}

#: Intrinsics that read the kernel's entry state.
STATE_INTRINSICS = frozenset({"kernarg", "workgroup_id", "workitem_id", "grid_dim",
                              "block_dim"})


def _fail(where: str, reason: str) -> PassFailedException:
    return PassFailedException(f"place-sva: {where}: {reason}")


@dataclass(frozen=True, slots=True)
class StateNeeds:
    """What a kernel's payloads read of its entry state."""

    kernarg: bool = False
    #: Workgroup-id dimensions read (``"x"``, ``"y"``, ``"z"``).
    workgroup_ids: frozenset[str] = frozenset()
    #: Work-item-id dimensions read.
    workitem_ids: frozenset[str] = frozenset()
    #: Dimensions of the grid size in workgroups read (``grid_dim``).
    grid_dims: frozenset[str] = frozenset()
    #: Dimensions of the workgroup size read (``block_dim``).
    block_dims: frozenset[str] = frozenset()

    @property
    def any(self) -> bool:
        return self.sva or bool(self.workitem_ids)

    def names(self) -> list[str]:
        """The state as the kernel attribute lists it (``kernarg``, ``workgroup_id.x``...)."""
        return (["kernarg"] if self.kernarg else []) + [
            f"{kind}.{dim}" for kind, dims in self._dimensioned() for dim in sorted(dims)]

    def _dimensioned(self) -> tuple[tuple[str, frozenset[str]], ...]:
        return (("workgroup_id", self.workgroup_ids), ("workitem_id", self.workitem_ids),
                ("grid_dim", self.grid_dims), ("block_dim", self.block_dims))

    @staticmethod
    def from_names(names: list[str]) -> StateNeeds:
        def dims(kind: str) -> frozenset[str]:
            return frozenset(name.split(".")[1] for name in names
                             if name.startswith(kind + "."))

        return StateNeeds("kernarg" in names, dims("workgroup_id"), dims("workitem_id"),
                          dims("grid_dim"), dims("block_dim"))

    @property
    def launch_sizes(self) -> bool:
        """Whether the preamble reads the dispatch packet (grid or workgroup sizes)."""
        return bool(self.grid_dims) or bool(self.block_dims)

    @property
    def sva(self) -> bool:
        """Whether the SVA VGPR is needed (everything but work-item ids lives in it)."""
        return self.kernarg or bool(self.workgroup_ids) or self.launch_sizes


def dimension(op: MCIntrinsicOp) -> str:
    attr = op.param("dim")
    assert isinstance(attr, StringAttr)
    return attr.data


def state_intrinsics(function: FunctionLikeOp) -> list[tuple[PayloadOp, MCIntrinsicOp]]:
    found: list[tuple[PayloadOp, MCIntrinsicOp]] = []
    for payload in (op for op in function.walk() if isinstance(op, PayloadOp)):
        for op in payload.body.walk():
            if isinstance(op, MCIntrinsicOp) and op.intrinsic.data in STATE_INTRINSICS:
                found.append((payload, op))
    return found


def state_needs(kernel: KernelOp) -> StateNeeds:
    """What the payloads of ``kernel`` read of its entry state."""
    names = {op.intrinsic.data if op.intrinsic.data == "kernarg"
             else f"{op.intrinsic.data}.{dimension(op)}"
             for _, op in state_intrinsics(kernel)}
    return StateNeeds.from_names(sorted(names))


def saved_state(kernel: KernelOp) -> StateNeeds:
    """The entry state ``place-sva`` found the kernel's payloads read (empty if it did
    not run)."""
    attr = kernel.attributes.get(ENTRY_STATE_ATTR)
    if not isinstance(attr, ArrayAttr):
        return StateNeeds()
    items: tuple[Attribute, ...] = cast(ArrayAttr[Attribute], attr).data
    return StateNeeds.from_names([item.data for item in items if isinstance(item, StringAttr)])


def _payload_units(function: FunctionLikeOp) -> int:
    """Physical registers payload code names (the application registers it reads or
    writes, copied at entry/exit by virtualization)."""
    mask = 0
    for payload in (op for op in function.walk() if isinstance(op, PayloadOp)):
        for op in payload.body.walk():
            if isinstance(op, InstructionOpBase):
                for attr in op.mc_operands.data:
                    if isinstance(attr, PhysRegAttr):
                        mask |= units_of(attr.data)
    return mask


def reserved_units(code_object: CodeObjectOp) -> dict[str, int]:
    """Function name -> the home registers no payload of it may allocate: the homes of
    every kernel that may run it."""
    kernels = [op for op in code_object.body.ops if isinstance(op, KernelOp)]
    homes = {kernel.sym_name.data: mask_of_homes(kernel) for kernel in kernels}
    if not any(homes.values()):
        return {}
    graph = CallGraph.build(code_object)
    reserved: dict[str, int] = {}
    for kernel in kernels:
        name = kernel.sym_name.data
        if not homes[name]:
            continue
        reach = graph.reach(name)
        functions = set(reach.functions) | {name}
        if reach.reaches_unknown:
            functions |= {op.sym_name.data for op in code_object.body.ops
                          if isinstance(op, FunctionOp)}
        for function in functions:
            reserved[function] = reserved.get(function, 0) | homes[name]
    return reserved


def mask_of_homes(kernel: KernelOp) -> int:
    """The registers among the kernel's homes (stack homes take none)."""
    mask = 0
    for attribute in (SVA_ATTR, WORKITEM_HOME_ATTR):
        register = home(kernel, attribute)
        if register is not None and stack_slot(register) is None:
            mask |= units_of(register)
    return mask


def _check_shared_code(kernel: KernelOp) -> None:
    """A payload that another function's branch into this kernel's code may run (after
    an ``amdgpu_mc.label``: hand-written code sharing a tail) cannot read entry state: on
    that path the wave was launched as the other kernel, whose homes are elsewhere."""
    found = state_intrinsics(kernel)
    if not found:
        return
    cfg = FunctionCFG.build(kernel)
    if not cfg.foreign_entries:
        return
    labels = {number: next(op for op in cfg.blocks[number].ops if isinstance(op, LabelOp))
              for number in cfg.foreign_entries}
    # Blocks control reaches from a label through at least one edge.
    later: set[int] = set()
    pending = [successor for number in labels for successor in cfg.successors[number]]
    while pending:
        current = pending.pop()
        if current not in later:
            later.add(current)
            pending.extend(cfg.successors[current])
    for payload, op in found:
        block = payload.parent_block()
        number = cfg.index_of(block) if block is not None else None
        if number is None:
            continue
        label = labels.get(number)
        if number in later:
            label = label or next(iter(labels.values()))
        elif label is None or not _after(label, payload):
            continue  # only this kernel's own path runs it
        raise _fail(describe_point(payload),
                    f"\"{op.intrinsic.data}\" reads the kernel's entry state, and a branch "
                    f"of another function into this code (label \"{label.label.data}\") "
                    "runs it too, whose entry state is another kernel's; insert the hook "
                    "where only this kernel runs")


def _after(label: LabelOp, payload: PayloadOp) -> bool:
    """Whether ``payload`` comes after ``label`` in their block."""
    current = label.next_op
    while current is not None:
        if current is payload:
            return True
        current = current.next_op
    return False


def place_sva(code_object: CodeObjectOp,
              prefer: str = "vgpr") -> dict[str, tuple[str | None, str | None]]:
    """Choose the homes of every kernel whose payloads read entry state; returns kernel ->
    (SVA, work-item home)."""
    for function in (op for op in code_object.body.ops if isinstance(op, FunctionOp)):
        found = state_intrinsics(function)
        if found:
            payload, op = found[0]
            raise _fail(describe_point(payload),
                        f"\"{op.intrinsic.data}\" reads the kernel's entry state, which a "
                        "device function cannot reach (it is kept per kernel); instrument "
                        "the kernel instead")
    kernels = [op for op in code_object.body.ops if isinstance(op, KernelOp)]
    for kernel in kernels:
        _check_shared_code(kernel)
    needy = [(kernel, state_needs(kernel)) for kernel in kernels]
    needy = [(kernel, needs) for kernel, needs in needy if needs.any]
    if not needy:
        return {}
    usage = RegisterUsage(code_object)
    placed: dict[str, tuple[str | None, str | None]] = {}
    for kernel, needs in needy:
        name = kernel.sym_name.data
        kernel_usage = usage.kernel(name)
        if kernel_usage.unknown_code is not None:
            raise _fail(f"@{name}", f"no home for the State Value Array: "
                        f"{kernel_usage.unknown_code}, so no register can be proven free")
        taken = kernel_usage.touched | kernel_usage.entry_defined | _payload_units(kernel) \
            | _workitem_id_vgprs(kernel, needs, code_object.processor)
        for function in kernel_usage.functions:
            if function != name:
                callee = code_object_function(code_object, function)
                taken |= _payload_units(callee)
        roles = (["sva"] if needs.sva else []) + (["workitem"] if needs.workitem_ids else [])
        registers = [] if prefer == "stack" else [
            unit_names(1 << bit)[0]
            for bit in _candidates(taken, kernel_usage.budget, prefer == "agpr")]
        homes = dict(zip(roles, registers, strict=False))
        if len(homes) < len(roles):
            slots = _stack_homes(code_object, kernel, len(registers), len(roles))
            homes.update({role: slots[role] for role in roles if role not in homes})
        sva, workitem = homes.get("sva"), homes.get("workitem")
        if sva is not None:
            kernel.attributes[SVA_ATTR] = StringAttr(sva)
        if workitem is not None:
            kernel.attributes[WORKITEM_HOME_ATTR] = StringAttr(workitem)
        kernel.attributes[ENTRY_STATE_ATTR] = ArrayAttr(
            [StringAttr(item) for item in needs.names()])
        placed[name] = (sva, workitem)
    return placed


def _workitem_id_vgprs(kernel: KernelOp, needs: StateNeeds, processor: str) -> int:
    """The VGPRs the hardware writes at entry once ``emit-preamble`` enables the work-item
    ids the payloads read: ``v0`` where the ids are packed, else ``v0`` up to ``v2`` (one
    per dimension up to the highest read or enabled): the preamble reads them before it
    fills a home, so no home may be one of them."""
    if subtarget_for(processor).has_packed_work_item_ids:
        return file_range("v", 0, 1)
    dims = ("x", "y", "z")
    level = max([kernel.descriptor.fields.get("rsrc2.enable_vgpr_workitem_id", 0)]
                + [dims.index(dim) for dim in needs.workitem_ids])
    return file_range("v", 0, level + 1)


def _stack_homes(code_object: CodeObjectOp, kernel: KernelOp, free: int,
                 wanted: int) -> dict[str, str]:
    """Homes in the instrumentation stack, just above the application's private segment:
    the SVA at +0, the work-item ids at +4 (per-lane slots)."""
    name = kernel.sym_name.data
    entry = metadata_entries(code_object).get(name)
    if uses_dynamic_stack(kernel, entry):
        raise _fail(f"@{name}", f"no home for the State Value Array: the kernel needs "
                    f"{wanted} vector register(s) that no instruction touches, {free} "
                    "are free, and its dynamic stack leaves no fixed place in memory")
    base = round_up(kernel.descriptor.fields.get("private_segment_fixed_size", 0),
                    STACK_ALIGNMENT)
    return {"sva": f"{STACK_HOME_PREFIX}{base}",
            "workitem": f"{STACK_HOME_PREFIX}{base + SLOT_BYTES}"}


def _candidates(taken: int, budget: RegisterBudget | None, prefer_agprs: bool) -> list[int]:
    """Units that may be homes, best first: free VGPRs inside the budget, then past it,
    then free AGPRs inside the budget, then past it (an AGPR home costs the payloads that
    read it a copy to a VGPR under a full EXEC); AGPRs first if ``prefer_agprs``."""
    files = [(VGPR_MASK, "v", budget.vgprs if budget is not None else 256),
             (AGPR_MASK, "a", budget.agprs if budget is not None else 256)]
    if prefer_agprs:
        files.reverse()
    ordered: list[int] = []
    for mask, prefix, inside_count in files:
        free = unit_bits(mask & ~taken)
        inside = file_range(prefix, 0, inside_count)
        ordered += [bit for bit in free if (1 << bit) & inside] + \
            [bit for bit in free if not (1 << bit) & inside]
    return ordered


def code_object_function(code_object: CodeObjectOp, name: str) -> FunctionLikeOp:
    for op in code_object.body.ops:
        if isinstance(op, FunctionLikeOp) and op.sym_name.data == name:
            return op
    raise KeyError(name)


@dataclass(frozen=True)
class PlaceSVAPass(ModulePass):
    """Choose, per kernel whose payloads read entry state, the VGPR homes of the State
    Value Array and of the work-item ids."""

    name = "place-sva"

    #: Where to look first: ``vgpr`` (the default: free VGPRs, then AGPRs, then the
    #: instrumentation stack), ``agpr`` (AGPRs, then VGPRs, then the stack) or ``stack``
    #: (the stack only). What a kernel with no free VGPR (or no free vector register) gets,
    #: chosen on purpose: to keep homes out of the architected VGPRs, or to test those
    #: paths on any kernel.
    prefer: str = "vgpr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.prefer not in ("vgpr", "agpr", "stack"):
            raise PassFailedException(f"place-sva: prefer is vgpr, agpr or stack, not "
                                      f"'{self.prefer}'")
        for code_object in code_objects_in(op):
            place_sva(code_object, self.prefer)
