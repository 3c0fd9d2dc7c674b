"""Assembler directives that describe a code object and its kernels, in LLVM's syntax.

The instruction printer writes the code; this package writes the rest, so that ``llvm-mc``
rebuilds the same code object: the target ID and code object version
(:func:`target_directives`), one ``.amdhsa_kernel`` block per kernel that reproduces its 64-byte
descriptor (:func:`kernel_descriptor_directives`), and the metadata note as YAML
(:func:`metadata_directives`). Whatever the directives cannot express raises
:class:`DirectiveError` instead of being approximated. See docs/asm-directives.md.
"""

from luthier.lowering.asm.amdhsa import (
    kernel_descriptor_directives,
    llvm_mc_target_options,
    target_directives,
)
from luthier.lowering.asm.errors import DirectiveError
from luthier.lowering.asm.metadata_yaml import metadata_directives, metadata_yaml

__all__ = [
    "DirectiveError",
    "kernel_descriptor_directives",
    "llvm_mc_target_options",
    "metadata_directives",
    "metadata_yaml",
    "target_directives",
]
