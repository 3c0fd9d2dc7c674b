"""Pure-Python ELF writers for AMDGPU code objects (no LLVM tool needed).

- :func:`write_relocatable`: an :class:`ObjectSpec` as an ``ET_REL`` object in ``llvm-mc``'s
  layout;
- :func:`link_shared`: an :class:`ObjectSpec` linked into a loadable ``ET_DYN`` code object the
  way ``ld.lld -shared`` links clang's AMDGPU objects (:func:`link_shared_object` also says
  which sections holding a linked input's addresses it left out, the layout having moved).

Reading is not done here: :func:`luthier.frontend.codeobj.read_elf` is the one ELF reader.

Every bad input raises :class:`ElfWriteError`. See ``docs/elf-writer.md``.
"""

from luthier.frontend.codeobj.spec import (
    ABSOLUTE_SECTION,
    ElfWriteError,
    ObjectSpec,
    RelocationSpec,
    SectionSpec,
    SymbolSpec,
)
from luthier.lowering.elf.relocatable import write_relocatable
from luthier.lowering.elf.shared import (
    LLD_COMMENT,
    SharedObject,
    link_shared,
    link_shared_object,
)

__all__ = [
    "ABSOLUTE_SECTION",
    "LLD_COMMENT",
    "ElfWriteError",
    "ObjectSpec",
    "RelocationSpec",
    "SectionSpec",
    "SharedObject",
    "SymbolSpec",
    "link_shared",
    "link_shared_object",
    "write_relocatable",
]
