"""Which registers each kernel touches, with everything it calls, and what it is allocated.

A register no instruction of a kernel (or of a function it can call) reads or writes is free
for the kernel's whole run: the home the State Value Array needs. The hardware also writes
some registers before the first instruction (user and system SGPRs, workitem-id VGPRs, as
the descriptor's enable bits ask); those are reported apart, because the application may
never read them (then they are free too) and the preamble may need their values.

A kernel that reaches a call with an unknown target may run any device function of the code
object whose address is taken, and the code object is closed (nothing outside it is called
through a pointer: HIP has no such calls across code objects), so its usage then includes
every device function of the object and ``complete`` is False. A callee that is not in the
object at all (an undefined symbol of a relocatable object), or a branch to an address we do
not know (an ``s_setpc_b64`` that is neither a return nor a tail call), could run anything:
the usage is then every register.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    AGPR_MASK,
    ALL_UNITS,
    SGPR_MASK,
    VGPR_MASK,
    file_range,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    FunctionOp,
    KernelOp,
)
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.target.kernel_descriptor import KernelDescriptor
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.amdgpu_dialects.target.target_id import FeatureSetting, Target, decode_e_flags
from luthier.passes.analysis.callgraph import CallGraph
from luthier.passes.analysis.cfg import ExitKind
from luthier.passes.analysis.effects import EffectError, EffectTable
from luthier.passes.analysis.liveness import instructions
from luthier.passes.analysis.register_budget import (
    ADDRESSABLE_SGPRS,
    ADDRESSABLE_VGPRS,
    RegisterBudget,
    supports_budget,
)

#: Registers of each file an instruction can name (generic SGPRs only) on GFX9.
ADDRESSABLE = {"s": ADDRESSABLE_SGPRS, "v": ADDRESSABLE_VGPRS, "a": ADDRESSABLE_VGPRS}


def addressable_registers(processor: str) -> dict[str, int]:
    """Registers of each file (``s``, ``v``, ``a``) that ``processor`` has and instructions
    can name: generic SGPRs as the subtarget counts them, no AGPRs where there are none
    (RDNA), so nothing reports or hands out a register the target lacks."""
    subtarget = subtarget_for(processor)
    return {"s": subtarget.addressable_sgprs, "v": ADDRESSABLE_VGPRS,
            "a": ADDRESSABLE_VGPRS if subtarget.has_agprs else 0}


@dataclass(frozen=True, slots=True)
class KernelRegisterUsage:
    """The registers one kernel's code touches, and its allocation."""

    kernel: str
    #: Units some instruction of the kernel or of a function it may call reads or writes.
    touched: int
    #: Units the hardware initialises before the first instruction (descriptor enable bits).
    entry_defined: int
    #: The kernel and the device functions its code may run.
    functions: tuple[str, ...]
    #: False when a call target is unknown or outside the code object (see the module doc).
    complete: bool
    budget: RegisterBudget | None
    #: Why ``touched`` is every register (code we cannot see may run), or None.
    unknown_code: str | None = None
    #: Registers per file the target has (:func:`addressable_registers`).
    addressable: dict[str, int] = field(default_factory=lambda: dict(ADDRESSABLE))

    def highest(self, prefix: str) -> int:
        """The highest index of file ``prefix`` (``s``, ``v``, ``a``) touched, or -1."""
        mask = {"s": SGPR_MASK, "v": VGPR_MASK, "a": AGPR_MASK}[prefix] & self.touched
        if not mask:
            return -1
        low = file_range(prefix, 0, 1).bit_length() - 1
        return mask.bit_length() - 1 - low

    def unused(self, prefix: str, within_budget: bool = True) -> int:
        """Units of file ``prefix`` no instruction touches, inside the budget by default."""
        limit = self.addressable[prefix]
        if within_budget and self.budget is not None:
            limit = min(limit, self.budget.limit(prefix))
        return file_range(prefix, 0, limit) & ~self.touched


def entry_registers(descriptor: KernelDescriptor, processor: str) -> int:
    """Units the hardware writes before a kernel's first instruction (AMDGPUUsage, "Initial
    Kernel Execution State"): the user SGPRs, then the enabled system SGPRs, and the
    workitem-id VGPRs (packed into ``v0`` on GFX90A and GFX11+). With architected SGPRs
    (GFX12) the workgroup ids are in ``ttmp9``/``ttmp7`` instead, though the descriptor
    still enables them: counting them as SGPRs would call an SGPR defined that the
    hardware leaves alone."""
    rsrc2 = descriptor.compute_pgm_rsrc2
    properties = descriptor.kernel_code_properties
    subtarget = subtarget_for(processor)
    workgroup_ids = (rsrc2.enable_sgpr_workgroup_id_x + rsrc2.enable_sgpr_workgroup_id_y
                     + rsrc2.enable_sgpr_workgroup_id_z)
    system = rsrc2.enable_sgpr_workgroup_info + rsrc2.enable_private_segment
    mask = 0
    if subtarget.has_architected_sgprs:
        if rsrc2.enable_sgpr_workgroup_id_x:
            mask |= units_of("ttmp9")
        if rsrc2.enable_sgpr_workgroup_id_y or rsrc2.enable_sgpr_workgroup_id_z:
            mask |= units_of("ttmp7")
    else:
        system += workgroup_ids
    mask |= file_range("s", 0, rsrc2.user_sgpr_count + system)
    if properties.enable_sgpr_flat_scratch_init and not subtarget.has_architected_flat_scratch:
        mask |= units_of("flat_scratch")
    ids = rsrc2.enable_vgpr_workitem_id
    mask |= file_range("v", 0, 1 if subtarget.has_packed_work_item_ids else ids + 1)
    return mask


_FLAT_SCRATCH = units_of("flat_scratch")
_UNFOLLOWED_EXITS = frozenset({ExitKind.INDIRECT_BRANCH, ExitKind.UNKNOWN})


class RegisterUsage:
    """Register usage of every kernel of a code object."""

    def __init__(self, code_object: CodeObjectOp, graph: CallGraph | None = None,
                 effects: EffectTable | None = None) -> None:
        processor = code_object.processor
        self.code_object = code_object
        self.effects = effects if effects is not None \
            else EffectTable.shared(load_target(*code_object.target_key))
        self.graph = graph if graph is not None else CallGraph.build(code_object)
        functions = {op.sym_name.data: op for op in code_object.body.ops
                     if isinstance(op, FunctionLikeOp)}
        own: dict[str, int] = {}
        for name, function in functions.items():
            mask = 0
            try:
                for op in instructions(function):
                    effect = self.effects.of(op)
                    mask |= effect.uses | effect.defs
            except EffectError as error:
                raise EffectError(f"@{name}: {error}") from None
            own[name] = mask
        #: Units each function's own instructions touch (not its payloads', nor what it
        #: calls): update-descriptors compares the payloads' registers with these.
        self.function_units = own
        device_functions = tuple(name for name, op in functions.items()
                                 if isinstance(op, FunctionOp))
        self.kernels: dict[str, KernelRegisterUsage] = {}
        target = decode_e_flags(code_object.e_flags.value.data,
                                code_object.code_object_version.value.data)
        # An xnack- object's kernels have no XNACK_MASK at the top of their SGPRs.
        xnack_reserved = not (isinstance(target, Target)
                              and target.xnack is FeatureSetting.OFF)
        for name in self.graph.kernels:
            kernel = functions[name]
            assert isinstance(kernel, KernelOp)
            reach = self.graph.reach(name)
            reached = [f for f in functions if f in reach.functions]
            if reach.reaches_unknown:
                reached.extend(f for f in device_functions if f not in reached)
            touched = 0
            for function in reached:
                touched |= own[function]
            unknown_code = None
            jumping = [function for function in reached if self._jumps_away(function)]
            if reach.external:
                unknown_code = "it calls " + ", ".join(f"@{e}" for e in sorted(reach.external)) \
                    + ", outside the code object"
            elif jumping:
                unknown_code = f"@{jumping[0]} branches to an unknown address"
            if unknown_code is not None:
                touched = ALL_UNITS
            descriptor = kernel.descriptor.data
            flat_scratch = bool(touched & _FLAT_SCRATCH) or \
                descriptor.kernel_code_properties.enable_sgpr_flat_scratch_init
            budget = (RegisterBudget.from_descriptor(processor, descriptor, flat_scratch,
                                                     xnack_reserved)
                      if supports_budget(processor) else None)
            self.kernels[name] = KernelRegisterUsage(
                name, touched, entry_registers(descriptor, processor), tuple(reached),
                reach.complete and unknown_code is None, budget, unknown_code,
                addressable_registers(processor))

    def kernel(self, name: str) -> KernelRegisterUsage:
        return self.kernels[name]

    def _jumps_away(self, function: str) -> bool:
        """Whether ``function`` has a branch to an address we do not know (not a call or a
        tail call, which go to function entries): that code could be anywhere."""
        exits = self.graph.cfgs[function].exits.values()
        return any(kind in _UNFOLLOWED_EXITS for kind in exits)
