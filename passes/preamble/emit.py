"""``emit-preamble``: save, at kernel entry, the state the payloads read.

For each kernel with homes (``place-sva``), the preamble runs before anything else,
kernel-entry payloads included:

1. The descriptor asks the hardware for what the payloads need and the application did
   not: the kernarg segment pointer and the dispatch packet pointer (user SGPR pairs),
   workgroup ids (system SGPRs), work-item ids y/z (bits of the packed ``v0``).
2. Asking for more shifts the SGPRs after the new ones (AMDGPUUsage, "Initial Kernel
   Execution State": user SGPRs in a fixed order, then from ``user_sgpr_count`` the
   system SGPRs). The preamble reads the saved values from their new places into the
   homes (:mod:`.fill`: SVA lanes, launch sizes computed from the dispatch packet, the
   work-item home copied from ``v0``), then moves every shifted SGPR back to where the
   application expects it, in ascending order (each moves down, so no source is
   overwritten before it is read), and masks ``v0`` back to the work-item fields the
   application asked for.
3. These instructions never touch VCC, M0 or EXEC; SCC (written by the launch-size
   arithmetic) is not part of the initial state. The only registers written are the homes
   (free in the whole kernel) and SGPRs that are either the application's (given their
   entry values) or past the entry SGPRs (which the application writes before it reads):
   the application starts in exactly the state it was compiled for.

A kernel whose payloads (or those of the functions it may call) save registers to the
instrumentation stack also gets its private segment enabled, and where flat scratch is
not architected (GFX90A, GFX10) FLAT_SCRATCH computed first thing from the new flat
scratch init and wave offset SGPRs (:mod:`.scratch`), before anything moves them.

The preamble is an ``instr.payload @luthier.preamble`` at the top of the entry block (in
a kernel with preloaded kernel arguments, at byte 256, where the firmware enters it:
:mod:`luthier.passes.analysis.preload`), so
``update-descriptors`` counts its registers and ``splice-payloads`` places it like any
payload. A kernel without homes or stack gets nothing and stays byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, KernelOp, code_objects_in
from luthier.amdgpu_dialects.instr.ops import PayloadOp, ReturnOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.passes.analysis.preload import PreloadEntryError, preload_entry
from luthier.passes.preamble.fill import V0, copy_workitem_ids, fill_sva
from luthier.passes.preamble.scratch import (
    FLAT_SCRATCH_INIT,
    PRIVATE_SEGMENT,
    StackError,
    flat_scratch_setup,
    kernel_stack_tops,
    scratch_fields,
)
from luthier.passes.preamble.sva import (
    SVA_ATTR,
    WORKITEM_HOME_ATTR,
    home,
    saved_state,
)

#: The hook name of the preamble payload.
PREAMBLE = "luthier.preamble"
#: User SGPR fields in their hardware order: (descriptor field, SGPRs).
USER_SGPRS = (
    ("properties.enable_sgpr_private_segment_buffer", 4),
    ("properties.enable_sgpr_dispatch_ptr", 2),
    ("properties.enable_sgpr_queue_ptr", 2),
    ("properties.enable_sgpr_kernarg_segment_ptr", 2),
    ("properties.enable_sgpr_dispatch_id", 2),
    ("properties.enable_sgpr_flat_scratch_init", 2),
    ("kernarg_preload", 0),
    ("properties.enable_sgpr_private_segment_size", 1),
)
SYSTEM_SGPRS = (
    "rsrc2.enable_sgpr_workgroup_id_x",
    "rsrc2.enable_sgpr_workgroup_id_y",
    "rsrc2.enable_sgpr_workgroup_id_z",
    "rsrc2.enable_sgpr_workgroup_info",
    "rsrc2.enable_private_segment",
)
#: Work-item-id levels (``enable_vgpr_workitem_id``) -> the bits of packed ``v0`` they fill.
WORKITEM_MASKS = {0: 0x3FF, 1: 0xFFFFF, 2: 0x3FFFFFFF}
_DIMENSIONS = ("x", "y", "z")


def _fail(where: str, reason: str) -> PassFailedException:
    return PassFailedException(f"emit-preamble: {where}: {reason}")


def entry_sgprs(fields: dict[str, int], architected_scratch: bool) -> dict[str, tuple[int, int]]:
    """Field -> (first SGPR, count) of every SGPR the hardware fills at entry."""
    layout: dict[str, tuple[int, int]] = {}
    index = 0
    for field, count in USER_SGPRS:
        if field == "kernarg_preload":
            count = fields.get("preload.kernarg_preload_spec_length", 0)
        elif not fields.get(field, 0):
            continue
        if count:
            layout[field] = (index, count)
            index += count
    user = fields.get("rsrc2.user_sgpr_count", 0)
    if user > index:
        layout["user_sgpr_extra"] = (index, user - index)
    index = max(user, index)
    for field in SYSTEM_SGPRS:
        if not fields.get(field, 0):
            continue
        if field == "rsrc2.enable_private_segment" and architected_scratch:
            continue
        layout[field] = (index, 1)
        index += 1
    return layout


def emit_preamble(kernel: KernelOp, processor: str, needs_stack: bool = False,
                  wavefront_size: int | None = None) -> bool:
    """Emit ``kernel``'s preamble if it has homes or ``needs_stack``; returns whether it
    did."""
    sva = home(kernel, SVA_ATTR)
    workitem_home = home(kernel, WORKITEM_HOME_ATTR)
    if sva is None and workitem_home is None and not needs_stack:
        return False  # nothing to save (state intrinsics left unlowered: splice refuses them)
    name = kernel.sym_name.data
    if any(isinstance(op, PayloadOp) and op.hook.string_value() == PREAMBLE
           for op in kernel.walk()):
        raise _fail(f"@{name}", "the kernel already has a preamble")
    isa = load_target(processor)
    architected = isa.subtarget.has_architected_flat_scratch
    fields = kernel.descriptor.fields
    try:
        real_entry = preload_entry(kernel, isa)
    except PreloadEntryError as error:
        raise _fail(f"@{name}", str(error)) from None
    needs = saved_state(kernel)
    old_layout = entry_sgprs(fields, architected)
    new_fields = dict(fields)
    if needs.kernarg:
        new_fields["properties.enable_sgpr_kernarg_segment_ptr"] = 1
    if needs.launch_sizes:
        new_fields["properties.enable_sgpr_dispatch_ptr"] = 1
    for dim in needs.workgroup_ids:
        new_fields[f"rsrc2.enable_sgpr_workgroup_id_{dim}"] = 1
    if needs_stack:
        new_fields.update(scratch_fields(fields, isa))
    old_level = fields.get("rsrc2.enable_vgpr_workitem_id", 0)
    level = max([old_level] + [_DIMENSIONS.index(dim) for dim in needs.workitem_ids])
    new_fields["rsrc2.enable_vgpr_workitem_id"] = level
    user_before = entry_sgprs({**fields, "rsrc2.user_sgpr_count": 0}, architected)
    user_after = entry_sgprs({**new_fields, "rsrc2.user_sgpr_count": 0}, architected)
    added_user = sum(count for field, (_, count) in user_after.items()
                     if field.startswith("properties.")) - \
        sum(count for field, (_, count) in user_before.items()
            if field.startswith("properties."))
    # Where the compiler pads the user SGPRs (GFX11's UserSGPRInit16Bug: user plus system
    # SGPRs made 16), the padding holds no value the kernel reads: fields the preamble
    # enables take its place first, and it is not given back.
    padded = isa.subtarget.has_user_sgpr_init16_bug
    padding = old_layout.get("user_sgpr_extra", (0, 0))[1] if padded else 0
    new_fields["rsrc2.user_sgpr_count"] = fields.get("rsrc2.user_sgpr_count", 0) + max(
        0, added_user - padding)
    if new_fields["rsrc2.user_sgpr_count"] > 16:
        what = "the flat scratch init pair" if needs_stack and not needs.kernarg \
            and FLAT_SCRATCH_INIT in new_fields and not fields.get(FLAT_SCRATCH_INIT, 0) \
            else "the kernel arguments pointer"
        raise _fail(f"@{name}", f"{what} does not fit: the kernel "
                    f"would need {new_fields['rsrc2.user_sgpr_count']} user SGPRs (16 at "
                    "most)")
    new_layout = entry_sgprs(new_fields, architected)
    builder = InstBuilder(processor, wavefront_size)
    #: SGPRs from here on hold no entry value: the preamble's scratch registers.
    first_free = max((first + count for first, count in new_layout.values()), default=0)
    code: list[Operation] = []
    if needs_stack and not architected:
        code += flat_scratch_setup(builder, isa, new_layout[FLAT_SCRATCH_INIT][0],
                                   new_layout[PRIVATE_SEGMENT][0], first_free)
    if workitem_home is not None:
        packed = isa.subtarget.has_packed_work_item_ids
        code += copy_workitem_ids(builder, workitem_home, first_free, 0 if packed else level)
        if packed and level != old_level:
            # v0 holds the ids the kernel did not ask for too; where each id has its own
            # VGPR, v0 is x alone and the new ones land in v1/v2, which the application
            # writes before it reads (they held nothing at entry before).
            code.append(builder.inst("v_and_b32_e32", [V0, WORKITEM_MASKS[old_level], V0]))
    if sva is not None:
        code += fill_sva(builder, sva, needs, new_layout, first_free)
    for field, (old_first, count) in sorted(old_layout.items(), key=lambda item: item[1][0]):
        if field == "user_sgpr_extra" and padded:
            continue  # padding: nothing to give back
        new_first, _ = new_layout[field]
        for k in range(count):
            if new_first != old_first:
                code.append(builder.inst("s_mov_b32", [reg(f"s{old_first + k}"),
                                                       reg(f"s{new_first + k}")]))
    block = Block([*code, ReturnOp()])
    preamble = PayloadOp(PREAMBLE, [], Region(block))
    if real_entry is not None:  # preloaded arguments: entered 256 bytes in
        real_entry_block = real_entry.parent_block()
        assert real_entry_block is not None
        first = real_entry
        while isinstance(first.prev_op, PayloadOp):
            first = first.prev_op  # before the kernel-entry payloads too
        real_entry_block.insert_op_before(preamble, first)
    else:
        entry = kernel.body.blocks.first
        assert entry is not None and entry.first_op is not None
        entry.insert_op_before(preamble, entry.first_op)
    changed = {key: value for key, value in new_fields.items() if fields.get(key) != value}
    if changed:
        kernel.descriptor = kernel.descriptor.with_fields(
            **{key.replace(".", "__"): value for key, value in changed.items()})
    return True


def emit_preambles(code_object: CodeObjectOp) -> int:
    """Emit the preamble of every kernel that has homes or needs the instrumentation
    stack; returns how many."""
    try:
        stack = kernel_stack_tops(code_object)
    except StackError as error:
        raise PassFailedException(f"emit-preamble: {error}") from None
    processor, wavefront_size = code_object.target_key
    return sum(emit_preamble(kernel, processor, kernel.sym_name.data in stack, wavefront_size)
               for kernel in code_object.body.ops if isinstance(kernel, KernelOp))


@dataclass(frozen=True)
class EmitPreamblePass(ModulePass):
    """Set up the instrumentation state at the entry of the kernels that need it."""

    name = "emit-preamble"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in code_objects_in(op):
            emit_preambles(code_object)

