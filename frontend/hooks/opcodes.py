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


@functools.cache
def _names(processor: str) -> tuple[str, ...]:
    printer = printer_for(processor)
    return tuple(printer.mnemonic(desc) for desc in load_target(processor).instructions)


def opcode_names(processor: str) -> list[str]:
    """The mnemonic of each opcode number of ``processor`` (``gfx90a``, ``gfx942``...)."""
    if processor not in SUPPORTED_TARGETS:
        raise ValueError(f"opcode_names: {processor!r} is not a supported target "
                         f"({', '.join(sorted(SUPPORTED_TARGETS))})")
    return list(_names(processor))


def opcode_count(*processors: str) -> int:
    """How many opcode numbers the largest of ``processors`` has: the entries a
    per-opcode table needs to serve them all."""
    return max(len(opcode_names(processor)) for processor in processors)
