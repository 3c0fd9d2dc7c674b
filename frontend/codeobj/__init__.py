"""Pure-Python reader of AMDGPU code objects, offload bundles and HIP fat binaries.

``read_code_object(path)`` gives a typed :class:`CodeObject`: target and code object version
from the ELF header, sections, segments, symbols (kernels with their ``.kd`` descriptors,
device functions, variables), relocations, the metadata note and decoded kernel descriptors.
Every bad input raises :class:`CodeObjectError` with a one-line message. No LLVM tool is needed.

Offload bundles and host objects/programs with a ``.hip_fatbin`` section: ``read_bundle`` and
``read_fatbin`` list entries (a linked program has one bundle per translation unit),
``read_code_object(path, offload_arch="gfx90a")`` picks one code object, and
``read_code_objects`` gives one per bundle.
"""

from luthier.frontend.codeobj.bundle import BundleEntry, OffloadBundle, parse_bundle, split_fatbin
from luthier.frontend.codeobj.elf import read_elf
from luthier.frontend.codeobj.elf_format import ElfType
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.frontend.codeobj.metadata import (
    CodeObjectMetadata,
    KernelArgMetadata,
    KernelMetadata,
)
from luthier.frontend.codeobj.model import (
    CodeObject,
    CodeSection,
    DeviceFunction,
    Kernel,
    Relocation,
    Section,
    Segment,
    Symbol,
)
from luthier.frontend.codeobj.reader import (
    read_bundle,
    read_code_object,
    read_code_objects,
    read_fatbin,
)

__all__ = [
    "BundleEntry",
    "CodeObject",
    "CodeObjectError",
    "CodeObjectMetadata",
    "CodeSection",
    "DeviceFunction",
    "ElfType",
    "Kernel",
    "KernelArgMetadata",
    "KernelMetadata",
    "OffloadBundle",
    "Relocation",
    "Section",
    "Segment",
    "Symbol",
    "parse_bundle",
    "split_fatbin",
    "read_bundle",
    "read_code_object",
    "read_code_objects",
    "read_elf",
    "read_fatbin",
]
