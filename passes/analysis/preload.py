"""Kernels with preloaded kernel arguments: where they really start.

On GFX940 and later a kernel may ask the firmware to load its first kernel arguments into
SGPRs (``kernarg_preload_spec_length``). Firmware that does so enters the kernel 256 bytes
after its start; the first 256 bytes are a fallback for firmware that does not (LLVM puts
``s_trap 2`` and padding there; AMDGPUUsage, "Preloaded Kernel Arguments"). So in such a
kernel the instruction at byte 256 is the real entry, and nothing may be inserted in
front of it: the fallback must stay exactly 256 bytes long. ``insert-hooks`` places no
payload before it (``kernel_entry`` means it), and ``emit-preamble`` puts the preamble
there.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.layout import UnsizedError, function_layout
from luthier.amdgpu_dialects.amdgpu_mc.structure import KernelOp
from luthier.amdgpu_dialects.isa.target import TargetISA

#: Bytes of the fallback entry before the real one.
PRELOAD_ENTRY_OFFSET = 256


class PreloadEntryError(ValueError):
    """No instruction starts at byte 256 of a kernel with preloaded arguments."""


def preload_entry(kernel: KernelOp, isa: TargetISA) -> InstructionOpBase | None:
    """The instruction at byte 256 of ``kernel`` if it preloads kernel arguments (the
    application's instructions only: payloads not yet spliced take no room), else None."""
    if not kernel.descriptor.fields.get("preload.kernarg_preload_spec_length", 0):
        return None
    where = f"@{kernel.sym_name.data} preloads kernel arguments, but"
    try:
        layout = function_layout(kernel, isa, payloads_take_no_room=True)
    except UnsizedError as error:
        raise PreloadEntryError(f"{where} its byte {PRELOAD_ENTRY_OFFSET}, where such a "
                                f"kernel is entered, is not known: {error}") from None
    for op, offset in layout.instructions():
        if offset == PRELOAD_ENTRY_OFFSET:
            return op
        if offset > PRELOAD_ENTRY_OFFSET:
            break
    raise PreloadEntryError(
        f"{where} no instruction starts at byte {PRELOAD_ENTRY_OFFSET}, where such a kernel "
        "is entered")


def fallback_instructions(kernel: KernelOp, isa: TargetISA) -> set[InstructionOpBase]:
    """The instructions of the 256-byte fallback entry (empty without preloading)."""
    entry = preload_entry(kernel, isa)
    if entry is None:
        return set()
    found: set[InstructionOpBase] = set()
    for block in kernel.body.blocks:
        for op in block.ops:
            if op is entry:
                return found
            if isinstance(op, InstructionOpBase):
                found.add(op)
    return found
