"""``update-descriptors``: register counts that cover the instrumented code.

The hardware gives each wave the registers its kernel descriptor asks for and no more, so
after payloads have used registers past a kernel's old counts (the allocator grows budgets
when the registers dead at a point are not enough), the descriptor must ask for them, and
the metadata note, which the runtime reads for the same counts, must agree:

* SGPRs: ``COMPUTE_PGM_RSRC1.GRANULATED_WAVEFRONT_SGPR_COUNT`` encodes the generic SGPRs
  plus the special ones at the allocation's top (VCC, XNACK_MASK, and FLAT_SCRATCH where
  used or architected), in blocks of 8; ``.sgpr_count`` counts the same. From GFX10 the
  field is reserved (every wave has every SGPR): only ``.sgpr_count`` grows, with VCC
  its one special pair.
* Vector registers: ``GRANULATED_WORKITEM_VGPR_COUNT`` counts, in blocks of 8 on GFX90A
  and GFX942, the unified file: the architected VGPRs up to ``ACCUM_OFFSET`` (a multiple
  of 4), then the AGPRs. A payload that needs a VGPR at or past the old accum offset
  moves the AGPRs up (their numbering in the code is relative to the offset, so the code
  does not change). ``.vgpr_count`` is that total, ``.agpr_count`` the AGPRs. GFX908 has
  separate files of equal size: the count is the larger of the two. RDNA has no AGPRs,
  and counts VGPRs in blocks of 8 in wave32 and 4 in wave64.

Counts only grow, and only by what the payloads add: the pass runs before the payloads
are spliced, compares the highest register of each file the application's instructions
touch (in the kernel and the functions it may call) with the highest the payloads touch
too, and raises the old count by the difference (plus two SGPRs for VCC or FLAT_SCRATCH
when only payloads use them). The old count's own extras (LLVM's special SGPRs) are kept
as they were, so a kernel whose payloads stay below its application's registers keeps its
descriptor and metadata byte for byte.

Private memory grows the same way: a kernel whose payloads (or those of the functions it
may call) save registers to the instrumentation stack (:mod:`luthier.passes.preamble.
scratch`) asks for ``private_segment_fixed_size`` up to the top of the highest slot, in the
descriptor and in the metadata's ``.private_segment_fixed_size``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from luthier.amdgpu_dialects.amdgpu_mc.copy import region_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, is_instruction_class
from luthier.amdgpu_dialects.amdgpu_mc.metadata import (
    attr_to_metadata,
    kernel_entries,
    metadata_to_attr,
    with_kernel_entries,
)
from luthier.amdgpu_dialects.amdgpu_mc.packed import PackedCode, PackedCodeOp
from luthier.amdgpu_dialects.amdgpu_mc.register_units import (
    AGPR_MASK,
    SGPR_MASK,
    VGPR_MASK,
    file_range,
    units_of,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    KernelOp,
    code_objects_in,
)
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.passes.analysis.callgraph import payloads_set_aside
from luthier.passes.analysis.effects import EffectTable
from luthier.passes.analysis.register_budget import (
    SGPR_ENCODING_GRANULE,
    supports_budget,
    vector_granule,
)
from luthier.passes.analysis.register_usage import RegisterUsage
from luthier.passes.preamble.scratch import StackError, kernel_stack_tops

#: The accumulation offset is a multiple of 4 VGPRs.
ACCUM_GRANULE = 4
_FLAT_SCRATCH = units_of("flat_scratch")
_VCC = units_of("vcc")


def _round_up(value: int, granule: int) -> int:
    return -(-value // granule) * granule


def _highest(mask: int, file_mask: int, prefix: str) -> int:
    """Registers of file ``prefix`` needed to cover ``mask``: highest index + 1."""
    mask &= file_mask
    if not mask:
        return 0
    low = file_range(prefix, 0, 1).bit_length() - 1
    return mask.bit_length() - low


def _new_special_sgprs(application: int, instrumented: int, processor: str) -> int:
    """SGPRs that count because a payload uses VCC or FLAT_SCRATCH and the application
    did not (LLVM counts each pair only when used; FLAT_SCRATCH is always counted where
    it is architected)."""
    extra = 0
    subtarget = subtarget_for(processor)
    # GFX10+ counts VCC alone (getNumExtraSGPRs): FLAT_SCRATCH is no SGPR pair there.
    flat_scratch_counted = not subtarget.has_architected_flat_scratch and subtarget.major < 10
    for units, counted in ((_VCC, True), (_FLAT_SCRATCH, flat_scratch_counted)):
        if counted and instrumented & units and not application & units:
            extra += 2
    return extra


@dataclass(frozen=True, slots=True)
class RegisterCounts:
    """What a kernel's descriptor and metadata say about its registers."""

    #: SGPRs with the special ones (the metadata's ``.sgpr_count``).
    sgprs: int
    #: Architected VGPRs (up to the accumulation offset where AGPRs are used).
    vgprs: int
    agprs: int
    #: Private (scratch) bytes per lane.
    private: int = 0


@dataclass(frozen=True, slots=True)
class DescriptorUpdate:
    """One kernel's counts before and after."""

    kernel: str
    before: RegisterCounts
    after: RegisterCounts

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _count(entry: dict[str, Attribute] | None, key: str, default: int) -> int:
    value = entry.get(key) if entry is not None else None
    return default if value is None else int(attr_to_metadata(value))


def _touched(functions: dict[str, FunctionLikeOp], usage: RegisterUsage, kernel: str,
             effects: EffectTable, payloads: dict[str, int]) -> tuple[int, int]:
    """Units the code of ``kernel`` and the functions it may call touch: the application's
    instructions alone (what the register usage found per function), and with the
    payloads' (from the instructions: a call to unknown code cannot make us raise counts
    we cannot know). ``payloads`` holds the units of each function's payloads found so
    far (a function that several kernels call is looked at once)."""
    application = instrumented = 0
    for name in usage.kernel(kernel).functions:
        application |= usage.function_units[name]
        units = payloads.get(name)
        if units is None:
            units = 0
            for op in region_ops(functions[name].body):
                if type(op) is PayloadOp:
                    units |= _payload_units(op, effects)
            payloads[name] = units
        instrumented |= units
    return application, application | instrumented


def _payload_units(payload: PayloadOp, effects: EffectTable) -> int:
    """Units the instructions of ``payload`` touch."""
    units = 0
    for block in payload.body.blocks:
        for op in block.ops:
            kind = type(op)
            if kind is PackedCodeOp:  # packed payload code: units found once
                units |= _packed_units(cast(PackedCodeOp, op).code.data, effects)
            elif is_instruction_class(kind):
                effect = effects.of(cast(InstructionOpBase, op))
                units |= effect.uses | effect.defs
    return units


def _packed_units(code: PackedCode, effects: EffectTable) -> int:
    """Units the instructions of ``code`` touch (memoised in the code's family: an
    addend touches no register)."""

    def touched(family: PackedCode) -> int:
        units = 0
        for op in family.ops:
            effect = effects.of(op)
            units |= effect.uses | effect.defs
        return units

    return code.shared(("touched units", effects.isa.name), touched)


def _grown(count: int, application: int, instrumented: int, file_mask: int,
           prefix: str) -> int:
    """``count`` raised by how far the payloads reach past the application's highest
    register of the file (the count's own extras, such as LLVM's special SGPRs, stay)."""
    extra = _highest(instrumented, file_mask, prefix) - _highest(application, file_mask, prefix)
    return count + extra if extra > 0 else count


def update_descriptors(code_object: CodeObjectOp) -> list[DescriptorUpdate]:
    """Raise each kernel's register counts to what its code touches; returns the counts
    of every kernel, before and after."""
    processor = code_object.processor
    if not supports_budget(processor):
        return []
    isa = load_target(processor)
    effects = EffectTable.shared(isa)
    with payloads_set_aside(code_object):  # what the application itself may call
        usage = RegisterUsage(code_object, effects=effects)
    metadata = code_object.metadata
    entries = kernel_entries(metadata)
    replaced: dict[int, Attribute] = {}
    fixed_sgprs = subtarget_for(processor).has_fixed_sgpr_allocation
    try:
        stack_tops = kernel_stack_tops(code_object)
    except StackError as error:
        raise PassFailedException(f"update-descriptors: {error}") from None
    updates: list[DescriptorUpdate] = []
    functions = {op.sym_name.data: op for op in code_object.body.ops
                 if isinstance(op, FunctionLikeOp)}
    payload_units: dict[str, int] = {}
    for kernel in (op for op in code_object.body.ops if isinstance(op, KernelOp)):
        name = kernel.sym_name.data
        descriptor = kernel.descriptor.data
        rsrc1 = descriptor.compute_pgm_rsrc1
        granule, unified = vector_granule(processor, descriptor)
        application, instrumented = _touched(functions, usage, name, effects, payload_units)
        found = entries.get(name)
        entry = dict(found[1].data) if found is not None else None
        encoded_sgprs = (rsrc1.granulated_wavefront_sgpr_count + 1) * SGPR_ENCODING_GRANULE
        old_agprs = _count(entry, ".agpr_count", 0)
        encoded_vgprs = (rsrc1.granulated_workitem_vgpr_count + 1) * granule
        if unified:
            accum = descriptor.compute_pgm_rsrc3.accum_offset_vgprs
            old_vgprs = accum if old_agprs else _count(entry, ".vgpr_count", encoded_vgprs)
        else:
            old_vgprs = _count(entry, ".vgpr_count", encoded_vgprs)
        private = descriptor.private_segment_fixed_size
        before = RegisterCounts(_count(entry, ".sgpr_count", encoded_sgprs), old_vgprs,
                                old_agprs, private)
        after = RegisterCounts(
            _grown(before.sgprs, application, instrumented, SGPR_MASK, "s")
            + _new_special_sgprs(application, instrumented, processor),
            _grown(before.vgprs, application, instrumented, VGPR_MASK, "v"),
            _grown(before.agprs, application, instrumented, AGPR_MASK, "a"),
            max(private, stack_tops.get(name, 0)))
        updates.append(DescriptorUpdate(name, before, after))
        if after == before:
            continue
        fields: dict[str, int] = {}
        if after.private != private:
            fields["private_segment_fixed_size"] = after.private
        sgpr_blocks = _round_up(after.sgprs, SGPR_ENCODING_GRANULE) // SGPR_ENCODING_GRANULE - 1
        if not fixed_sgprs and sgpr_blocks > rsrc1.granulated_wavefront_sgpr_count:
            fields["rsrc1__granulated_wavefront_sgpr_count"] = sgpr_blocks
        if unified:
            accum = max(descriptor.compute_pgm_rsrc3.accum_offset_vgprs,
                        _round_up(max(after.vgprs, 1), ACCUM_GRANULE))
            total = accum + after.agprs if after.agprs else after.vgprs
            if accum != descriptor.compute_pgm_rsrc3.accum_offset_vgprs:
                fields["rsrc3__accum_offset"] = accum // ACCUM_GRANULE - 1
            vector_count = total
        else:
            vector_count = max(after.vgprs, after.agprs)
        vgpr_blocks = _round_up(max(vector_count, 1), granule) // granule - 1
        if vgpr_blocks > rsrc1.granulated_workitem_vgpr_count:
            fields["rsrc1__granulated_workitem_vgpr_count"] = vgpr_blocks
        if fields:
            kernel.descriptor = kernel.descriptor.with_fields(**fields)
        if found is not None and entry is not None:
            if after.private != private:
                entry[".private_segment_fixed_size"] = metadata_to_attr(after.private)
            entry[".sgpr_count"] = metadata_to_attr(after.sgprs)
            entry[".vgpr_count"] = metadata_to_attr(vector_count if unified else after.vgprs)
            entry[".agpr_count"] = metadata_to_attr(after.agprs)
            replaced[found[0]] = DictionaryAttr(entry)
    if metadata is not None and replaced:
        # Only the entries of kernels whose counts were set are rebuilt: converting a
        # library's whole note cost more than the rest of the pass, once per chunk.
        code_object.metadata = with_kernel_entries(metadata, replaced)
    return updates


@dataclass(frozen=True)
class UpdateDescriptorsPass(ModulePass):
    """Raise every kernel's descriptor and metadata register counts to cover its code."""

    name = "update-descriptors"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for code_object in code_objects_in(op):
            update_descriptors(code_object)
