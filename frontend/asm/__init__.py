"""An assembler for LLVM-syntax AMDGPU assembly (what ``clang -S`` writes), in pure Python.

``assemble(text, filename)`` gives the :class:`~luthier.frontend.codeobj.spec.ObjectSpec` that
``llvm-mc -filetype=obj`` would write (sections, symbols, relocations, kernel descriptors, the
metadata note); :func:`luthier.lowering.elf.relocatable.assemble_relocatable` writes its ``ET_REL``
bytes, which the code-object reader and the lifter take like any relocatable object. Errors are
:class:`AsmError`, one line ``file:line:col: error: message``. See docs/asm-frontend.md.
"""

from luthier.frontend.asm.assembler import assemble
from luthier.frontend.asm.errors import AsmError

__all__ = ["AsmError", "assemble"]
