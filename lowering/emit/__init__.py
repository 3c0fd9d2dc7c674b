"""``amdgpu_mc`` IR -> object files: the relocatable object spec, then ELF bytes.

:func:`object_spec` lowers a code object op to what an assembler would write (``.text`` with
relocations for symbolic operands, kernel descriptors in ``.rodata`` pointing at their
kernels, variables, the metadata note); :mod:`luthier.lowering.elf` writes it as an ``ET_REL``
object or links it into a loadable ``ET_DYN`` code object, as ``ld.lld -shared`` would.
:func:`emit_assembly` writes the same object as LLVM-syntax assembly for ``llvm-mc``.
"""

from typing import TYPE_CHECKING

from luthier.lowering.emit.errors import EmitError
from luthier.lowering.emit.object_spec import emit_code_object, emit_relocatable, object_spec

if TYPE_CHECKING:
    from luthier.lowering.emit.asm import emit_assembly


def __getattr__(name: str) -> object:
    """``emit_assembly`` on first use: the assembly writer loads the assembler (it checks
    what it writes assembles back), which writing a binary does without."""
    if name == "emit_assembly":
        from luthier.lowering.emit.asm import emit_assembly

        return emit_assembly
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["EmitError", "emit_assembly", "emit_code_object", "emit_relocatable", "object_spec"]
