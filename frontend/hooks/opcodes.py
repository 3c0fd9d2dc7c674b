"""Opcode numbers as ``#instr.site<"opcode">`` passes them, mapped back to mnemonics.

A hook that counts per opcode indexes its table by the instrumented instruction's record
number in the target's ISA table. The host reads the table back and needs the names:
:func:`opcode_names` lists them in that same order, spelt as the IR and ``llvm-objdump``
print them (with LLVM's encoding suffix, ``v_add_f32_e64``), so different encodings of one
mnemonic stay apart.
"""

from __future__ import annotations

import functools

from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS, load_target
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.amdgpu_dialects.target.subtarget import subtarget_for


@functools.cache
def _names(processor: str, wavefront_size: int | None) -> tuple[str, ...]:
    printer = printer_for(processor, wavefront_size)
    return tuple(printer.mnemonic(desc)
                 for desc in load_target(processor, wavefront_size).instructions)


def opcode_names(processor: str, wavefront_size: int | None = None) -> list[str]:
    """The mnemonic of each opcode number of ``processor`` (``gfx90a``, ``gfx942``...) in
    ``wavefront_size`` lanes (None: its default). An RDNA processor has one table per wave
    size (wave32 alone has VOPD, wave64 its own lane-mask forms): the numbers of a wave64
    code object are positions in the wave64 table."""
    if processor not in SUPPORTED_TARGETS:
        raise ValueError(f"opcode_names: {processor!r} is not a supported target "
                         f"({', '.join(sorted(SUPPORTED_TARGETS))})")
    if wavefront_size == subtarget_for(processor).default_wave_size:
        wavefront_size = None
    return list(_names(processor, wavefront_size))


def opcode_count(*processors: str) -> int:
    """How many opcode numbers the largest table of ``processors`` (in either wave size)
    has: the entries a per-opcode table needs to serve them all."""
    return max(len(opcode_names(processor, size)) for processor in processors
               for size in subtarget_for(processor).wave_sizes)
