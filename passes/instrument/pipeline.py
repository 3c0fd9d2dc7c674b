"""``lower-hooks``: the whole hook lowering as one pass.

``insert-hooks`` (when the module has insertions), ``inline-hooks``,
``select-instructions``, ``virtualize-phys-regs``, ``place-sva`` (homes for the entry
state payloads read, kept out of allocation), ``lower-intrinsics``,
``save-payload-state``, ``allocate-payload-registers`` and ``verify-payloads``, in that
order: what ``luthier-opt --inline-hooks`` runs, and what a pass developer can spell out
with ``-p`` to stop at any stage. The allocator's options pass through
(``lower-hooks{spill_vgprs_to_agprs=false}`` sends saved VGPRs to the instrumentation stack
rather than to AGPRs).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.collector import collector_paused
from luthier.amdgpu_dialects.instr.ops import InsertOp
from luthier.lowering.isel.select import SelectInstructionsPass
from luthier.lowering.progress import over
from luthier.lowering.timing import timed
from luthier.passes.instrument.inline_hooks import InlineHooksPass
from luthier.passes.instrument.insert_hooks import InsertHooksPass
from luthier.passes.instrument.lower_intrinsics import LowerIntrinsicsPass
from luthier.passes.instrument.payload_state import SavePayloadStatePass
from luthier.passes.instrument.regalloc import AllocatePayloadRegistersPass
from luthier.passes.instrument.templates import (
    AllocationMemo,
    AllocationOptions,
    lower_hooks_with_templates,
)
from luthier.passes.instrument.verify_payloads import VerifyPayloadsPass
from luthier.passes.instrument.virtualize import VirtualizePhysRegsPass
from luthier.passes.preamble.sva import PlaceSVAPass


def lowering_passes(allow_budget_growth: bool = True, spill: bool = True,
                    spill_vgprs_to_agprs: bool = True,
                    assume_live: bool = False) -> list[ModulePass]:
    """The passes after insertion, in order."""
    return [InlineHooksPass(), SelectInstructionsPass(), VirtualizePhysRegsPass(),
            PlaceSVAPass(), LowerIntrinsicsPass(), SavePayloadStatePass(),
            AllocatePayloadRegistersPass(allow_budget_growth=allow_budget_growth, spill=spill,
                                         spill_vgprs_to_agprs=spill_vgprs_to_agprs,
                                         assume_live=assume_live),
            VerifyPayloadsPass()]


@dataclass(frozen=True)
class LowerHooksPass(ModulePass):
    """Insert, inline and lower every hook into verified machine code."""

    name = "lower-hooks"

    allow_budget_growth: bool = True
    spill: bool = True
    spill_vgprs_to_agprs: bool = True
    #: Testing aid of ``allocate-payload-registers``: almost every register live.
    assume_live: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_hooks(ctx, op, AllocationOptions(self.allow_budget_growth, self.spill,
                                               self.spill_vgprs_to_agprs, self.assume_live))


def lower_hooks(ctx: Context, module: ModuleOp,
                options: AllocationOptions | None = None, packed: bool = False,
                memo: AllocationMemo | None = None) -> bool:
    """What :class:`LowerHooksPass` does. With ``packed``, straight-line payload code
    that many points share is packed (see
    :func:`~luthier.passes.instrument.templates.lower_hooks_with_templates`): for drivers
    that finalize and emit the module right after, with no pass or printer in between.

    Returns whether the hook templates lowered the module: then every lowered shape was
    verified once and every allocated body's operands checked, so a driver that built the
    rest of the module from verified parts need not verify it all again; the passes'
    path (hooks that read the kernel's entry state, payloads that had bodies) is verified
    by the caller as any pass's output. ``memo`` keeps the hook templates' allocations
    for a later call (:class:`~luthier.passes.instrument.templates.AllocationMemo`)."""
    with collector_paused():
        # The tool's ops sit beside the code objects (whose bodies hold an op per
        # instruction): only they are walked.
        if any(isinstance(op, InsertOp) for child in module.ops
               if not isinstance(child, CodeObjectOp) for op in child.walk()):
            with timed("insert-hooks"):
                InsertHooksPass().apply(ctx, module)
        options = AllocationOptions() if options is None else options
        with timed("lower-hooks"):
            if lower_hooks_with_templates(ctx, module, options, packed, memo) is not None:
                return True
            for stage in over("lower-hooks", lowering_passes(
                    options.allow_budget_growth, options.spill, options.spill_vgprs_to_agprs,
                    options.assume_live), "pass"):
                with timed(stage.name):
                    stage.apply(ctx, module)
            return False
