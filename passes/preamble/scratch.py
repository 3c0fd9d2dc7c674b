"""The instrumentation stack: per-lane scratch memory above everything the application uses.

When a payload must borrow an application VGPR and no dead AGPR can hold its value (or
``spill_vgprs_to_agprs`` is off), the register allocator saves it to the wave's private
memory, in *slots* of 4 bytes. Where those slots go, and what a kernel must do so that a
``scratch_*`` instruction reaches them, is decided here:

* **Where.** A kernel's descriptor says how much private memory each lane of the
  application needs (``private_segment_fixed_size``: its own frame and, where the call
  graph is known, the deepest chain of its callees' frames). The instrumentation stack
  starts above that, rounded up to 16 bytes (the alignment LLVM keeps for stack frames):
  *the stack base*. Payloads never nest, so every payload's slots start at the base of the
  kernels that may run it; a payload in a device function uses the highest base among the
  kernels that may call it, so it is above every caller's memory.
* **When there is no fixed top.** A kernel with a dynamic stack (recursion, calls through
  unknown targets, ``uses_dynamic_stack``) grows its private memory at run time: nothing is
  provably above it, so a payload such a kernel may run cannot use the stack (the pass
  fails, naming the kernel). A device function that code we cannot see may call has no
  known callers, hence no base either.
* **How far.** ``scratch_*`` offsets are signed immediates of ``flat_offset_bits``
  (:func:`max_scratch_offset`: 4095 on GFX9 and GFX11, 2047 on GFX10, 2**23 - 1 on GFX12).
  Where the target has the "ST" form (GFX942, GFX11+) the allocator addresses slots with
  the immediate alone (``scratch_store_dword off, v3, off offset:K``), so a slot past the
  limit fails; GFX90A and GFX10 have no such form and need an SGPR address anyway, so the
  base goes into that SGPR.
* **Kernel setup** (``emit-preamble``, :func:`scratch_setup`): a kernel whose payloads (or
  those of functions it may call) use stack bytes enables its private segment. On GFX942
  the hardware initialises FLAT_SCRATCH itself (architected flat scratch), as on GFX11
  and GFX12. On GFX90A the preamble asks for the flat scratch init user SGPRs and the
  private segment wave offset system SGPR and computes FLAT_SCRATCH from them
  (AMDGPUUsage, "Flat Scratch", GFX9): ``s_add_u32 flat_scratch_lo, init_lo, wave_offset``
  / ``s_addc_u32 flat_scratch_hi, init_hi, 0``. GFX10 reaches FLAT_SCRATCH only as a
  hardware register: the same sum goes to two free SGPRs and from there through
  ``s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO)``/``_HI``. An application that sets up flat
  scratch itself computes the same value from the same SGPRs later, so doing it first
  changes nothing for it.
* **Descriptor** (``update-descriptors``, :func:`kernel_stack_tops`): the private segment
  grows to the base plus the most stack bytes any payload the kernel may run uses.
* **Homes.** A kernel whose entry-state homes are in the stack (``place-sva`` found no free
  vector register) keeps them in the first 16 bytes above its private segment; its spill
  slots start above those.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr

from luthier.amdgpu_dialects.amdgpu_mc.builder import OFF, BuildOperand, InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.copy import region_ops
from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.metadata import attr_to_metadata, kernel_entries
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr, VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    FunctionLikeOp,
    KernelOp,
    LabelOp,
)
from luthier.amdgpu_dialects.instr.ops import PayloadOp
from luthier.amdgpu_dialects.isa.target import TargetISA
from luthier.amdgpu_dialects.mc import operand_syntax
from luthier.amdgpu_dialects.target.subtarget import Subtarget
from luthier.passes.analysis.callgraph import CallGraph, Reach, payloads_set_aside
from luthier.passes.preamble.homes import HOME_AREA_BYTES, has_stack_homes

#: The stack base is the application's private segment rounded up to this.
STACK_ALIGNMENT = 16
#: Bytes per slot: one VGPR lane.
SLOT_BYTES = 4
#: Keys of the payload ``allocation`` attribute the stack is recorded in.
STACK_BYTES_KEY = "stack"
STACK_OFFSET_KEY = "stack_offset"
STACK_SAVED_KEY = "stack_saved"
#: Descriptor fields the preamble sets for scratch.
PRIVATE_SEGMENT = "rsrc2.enable_private_segment"
FLAT_SCRATCH_INIT = "properties.enable_sgpr_flat_scratch_init"


class StackError(ValueError):
    """The instrumentation stack has no place: ``where: reason`` (the caller adds the pass
    name)."""


class StackOffsetError(StackError):
    """A slot an instruction's immediate offset cannot reach: ``reason`` (the caller adds
    the pass name and the point)."""


def round_up(value: int, granule: int) -> int:
    return -(-value // granule) * granule


def metadata_entries(code_object: CodeObjectOp) -> dict[str, dict[str, Any]]:
    """The metadata entries of the kernels in ``code_object``'s body, by name, as Python
    values (only those are converted: a worker's chunk of a library holds a few of its
    kernels, and its metadata all of them)."""
    entries = kernel_entries(code_object.metadata)
    return {op.sym_name.data: attr_to_metadata(entries[op.sym_name.data][1])
            for op in code_object.body.ops
            if isinstance(op, KernelOp) and op.sym_name.data in entries}


def uses_dynamic_stack(kernel: KernelOp, entry: dict[str, Any] | None = None) -> bool:
    """Whether ``kernel``'s private memory grows at run time (descriptor bit or metadata)."""
    if kernel.descriptor.fields.get("properties.uses_dynamic_stack", 0):
        return True
    return bool(entry is not None and entry.get(".uses_dynamic_stack", False))


def home_area(kernel: KernelOp) -> int:
    """Where ``kernel``'s stack homes (if any) start: above its fixed private segment,
    16-byte aligned."""
    return round_up(kernel.descriptor.fields.get("private_segment_fixed_size", 0),
                    STACK_ALIGNMENT)


def kernel_stack_base(kernel: KernelOp) -> int:
    """Where the instrumentation stack's spill slots of ``kernel`` start: above its fixed
    private segment, 16-byte aligned, and above its stack homes (``place-sva``)."""
    return home_area(kernel) + (HOME_AREA_BYTES if has_stack_homes(kernel) else 0)


def dynamic_stack_error(kernel: str) -> StackError:
    return StackError(f"@{kernel}: the kernel uses a dynamic stack, so the instrumentation "
                      "stack has no fixed place above it")


def _has_labels(kernel: KernelOp) -> bool:
    """Whether another function's branch may enter ``kernel``'s code."""
    return any(type(op) is LabelOp for block in kernel.body.blocks for op in block.ops)


class StackLayout:
    """Which kernels may run each function, and the stack base of each function's
    payloads; built once per code object, the call graph only when a device function
    asks."""

    def __init__(self, code_object: CodeObjectOp) -> None:
        self.code_object = code_object
        self.kernels = {op.sym_name.data: op for op in code_object.body.ops
                        if isinstance(op, KernelOp)}
        self.entries = metadata_entries(code_object)
        self._reach: dict[str, Reach] | None = None
        self._runners: dict[str, list[str]] = {}

    def _kernel_reach(self) -> dict[str, Reach]:
        """What each kernel's application code may run (payloads set aside: call
        resolution cannot see through them)."""
        if self._reach is None:
            with payloads_set_aside(self.code_object):
                graph = CallGraph.build(self.code_object)
                self._reach = {name: graph.reach(name) for name in self.kernels}
        return self._reach

    def runners(self, function: str) -> list[str]:
        """The kernels that may run ``function`` (itself, for a kernel). StackError when
        code we cannot see may call it: no caller is known for sure."""
        known = self._runners.get(function)
        if known is not None:
            return known
        kernel = self.kernels.get(function)
        if kernel is not None:
            # Itself, and the kernels whose branches enter its code (hand-written code
            # sharing a tail between kernels; none in compiled code).
            found = [function]
            if _has_labels(kernel):
                found += [name for name, reach in self._kernel_reach().items()
                          if name != function and function in reach.functions]
            self._runners[function] = found
            return found
        found: list[str] = []
        for name, reach in self._kernel_reach().items():
            if function in reach.functions:
                found.append(name)
            elif reach.reaches_unknown:
                raise StackError(f"@{function}: @{name} calls code through an unknown "
                                 "target that may reach this function, so the kernels "
                                 "that run it (and the instrumentation stack's base) are "
                                 "not known")
        if not found:
            raise StackError(f"@{function}: no kernel of the code object is known to call "
                             "this function, so the instrumentation stack's base is not "
                             "known")
        self._runners[function] = found
        return found

    def base(self, function: str) -> int:
        """The first stack byte a payload of ``function`` may use: the highest base of the
        kernels that may run it. StackError for a kernel with a dynamic stack."""
        base = 0
        for name in self.runners(function):
            kernel = self.kernels[name]
            if uses_dynamic_stack(kernel, self.entries.get(name)):
                raise dynamic_stack_error(name)
            base = max(base, kernel_stack_base(kernel))
        return base


def slot_offset(base: int, slot: int) -> int:
    """The byte offset of ``slot`` (from the wave's private base)."""
    return base + SLOT_BYTES * slot


def max_scratch_offset(subtarget: Subtarget) -> int:
    """The largest ``offset:`` of a ``scratch_*`` instruction: its signed immediate is
    ``flat_offset_bits`` wide (4095 on GFX9 and GFX11, 2047 on GFX10, 2**23 - 1 on GFX12)."""
    return (1 << (subtarget.flat_offset_bits - 1)) - 1


def check_immediate_offset(offset: int, limit: int) -> None:
    """StackError when a ``scratch_*`` immediate that reaches ``limit``
    (:func:`max_scratch_offset`) cannot hold ``offset``."""
    if offset > limit:
        raise StackOffsetError(f"the instrumentation stack slot at byte {offset} is past the "
                         f"{limit} a scratch instruction's offset reaches (the "
                         "application's private segment is too large; addressing the stack "
                         "through an SGPR is not supported on this target yet)")


@dataclass(frozen=True, slots=True)
class PayloadStack:
    """What one payload uses of the stack: its first byte and how many bytes."""

    offset: int
    size: int

    @property
    def top(self) -> int:
        return self.offset + self.size


def _int_entry(attr: DictionaryAttr, key: str) -> int:
    value = attr.data.get(key)
    return value.value.data if isinstance(value, IntegerAttr) else 0


def payload_stack(payload: PayloadOp) -> PayloadStack | None:
    """The stack a payload's allocation recorded, or None if it uses none."""
    attr = payload.attributes.get("allocation")
    if not isinstance(attr, DictionaryAttr):
        return None
    size = _int_entry(attr, STACK_BYTES_KEY)
    if size <= 0:
        return None
    return PayloadStack(_int_entry(attr, STACK_OFFSET_KEY), size)


def _payloads(function: FunctionLikeOp) -> Iterator[PayloadOp]:
    for op in region_ops(function.body):
        if type(op) is PayloadOp:  # by class: ``isinstance`` goes through ABCMeta
            yield op


def function_stack_top(function: FunctionLikeOp) -> int:
    """The highest stack byte (exclusive) any payload of ``function`` uses; 0 if none."""
    top = 0
    # Payloads that reuse an allocation share its record: each distinct one is read once.
    read: set[int] = set()
    for payload in _payloads(function):
        record = payload.attributes.get("allocation")
        if record is None or id(record) in read:
            continue
        read.add(id(record))  # the payload holds it: no other record takes its id here
        stack = payload_stack(payload)
        if stack is not None:
            top = max(top, stack.top)
    return top


def kernel_stack_tops(code_object: CodeObjectOp) -> dict[str, int]:
    """Kernel -> the top of the instrumentation stack its payloads and those of the
    functions it may call use (kernels that use none are left out). StackError for a
    kernel with a dynamic stack that needs it."""
    tops = {op.sym_name.data: function_stack_top(op) for op in code_object.body.ops
            if isinstance(op, FunctionLikeOp)}
    needs = {op.sym_name.data: home_area(op) + HOME_AREA_BYTES for op in code_object.body.ops
             if isinstance(op, KernelOp) and has_stack_homes(op)}
    if not any(tops.values()) and not needs:
        return {}
    layout = StackLayout(code_object)
    for function, top in tops.items():
        if not top:
            continue
        for kernel in layout.runners(function):
            needs[kernel] = max(needs.get(kernel, 0), top)
    for kernel in needs:
        if uses_dynamic_stack(layout.kernels[kernel], layout.entries.get(kernel)):
            raise dynamic_stack_error(kernel)
    return needs


def scratch_fields(fields: dict[str, int], isa: TargetISA) -> dict[str, int]:
    """The descriptor fields that give a kernel a private segment that ``scratch_*``
    instructions reach (changes only)."""
    wanted = {PRIVATE_SEGMENT: 1}
    if not isa.subtarget.has_architected_flat_scratch:
        wanted[FLAT_SCRATCH_INIT] = 1
    return {key: value for key, value in wanted.items() if fields.get(key, 0) != value}


def flat_scratch_setup(builder: InstBuilder, isa: TargetISA, init: int, wave_offset: int,
                       temporary: int) -> list[InstructionOpBase]:
    """FLAT_SCRATCH = flat scratch init + the wave's private segment offset, for a target
    without architected flat scratch; ``init`` is the first of the two init SGPRs.

    GFX9 writes the FLAT_SCRATCH pair directly. From GFX10 it is a hardware register: the
    sum goes to ``s[temporary:temporary+1]`` (SGPRs no entry value lives in) and from there
    through ``s_setreg_b32`` to HW_REG_FLAT_SCR_LO/HI. The init SGPRs keep their values,
    so an application that sets up flat scratch itself computes the same base later."""
    if not isa.subtarget.has_flat_scratch_in_hwregs:
        return [builder.inst("s_add_u32", [reg("flat_scratch_lo"), reg(f"s{init}"),
                                           reg(f"s{wave_offset}")]),
                builder.inst("s_addc_u32", [reg("flat_scratch_hi"), reg(f"s{init + 1}"), 0])]
    generation = isa.subtarget.major
    low, high = reg(f"s{temporary}"), reg(f"s{temporary + 1}")
    return [builder.inst("s_add_u32", [low, reg(f"s{init}"), reg(f"s{wave_offset}")]),
            builder.inst("s_addc_u32", [high, reg(f"s{init + 1}"), 0]),
            builder.inst("s_setreg_b32", [_hwreg("HW_REG_FLAT_SCR_LO", generation), low]),
            builder.inst("s_setreg_b32", [_hwreg("HW_REG_FLAT_SCR_HI", generation), high])]


def _hwreg(name: str, generation: int) -> int:
    """The ``hwreg(name)`` operand: all 32 bits of the hardware register."""
    return operand_syntax.hwreg(operand_syntax.hwreg_id(name, generation))


def slot_access(builder: InstBuilder, isa: TargetISA, store: bool,
                vgpr: PhysRegAttr | VirtRegAttr, offset: int,
                address: PhysRegAttr | VirtRegAttr) -> list[InstructionOpBase]:
    """Store ``vgpr`` to (or load it from) the per-lane slot at byte ``offset``, under the
    EXEC in force: targets with "ST" addressing (GFX942, GFX11+) address it with the
    immediate alone (StackOffsetError past :func:`max_scratch_offset`); the other targets
    need an SGPR, ``address``, which gets the offset first."""
    code: list[InstructionOpBase] = []
    if isa.subtarget.has_flat_scratch_st_mode:
        check_immediate_offset(offset, max_scratch_offset(isa.subtarget))
        base: BuildOperand = OFF
        named = offset if offset else None
    else:
        code.append(builder.inst("s_mov_b32", [address, offset]))
        base, named = address, None
    if store:
        code.append(builder.inst("scratch_store_dword", [OFF, vgpr, base], offset=named))
    else:
        code += [builder.inst("scratch_load_dword", [vgpr, OFF, base], offset=named),
                 builder.wait_vector_loads()]
    return code
