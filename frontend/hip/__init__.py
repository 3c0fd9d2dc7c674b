"""Hooks written in HIP: compiled by clang-19 to LLVM IR, read, and imported into ``instr``.

``luthier-opt --hooks tool.hip`` (or its ``.ll``/``.bc``) goes through
:func:`load_hip_hooks`: :mod:`.compile` gives the LLVM IR text, :mod:`.llvm_text` reads it,
:mod:`.importer` builds the ``instr`` module (globals, hooks, insertions) through the
Python frontend's builder. See docs/hip-hooks.md and ``include/luthier_hooks.h``.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from luthier.frontend.hip.compile import DEFAULT_PROCESSOR, llvm_text_of
from luthier.frontend.hip.importer import import_llvm_hooks
from luthier.frontend.hip.llvm_text import read_llvm_text
from luthier.frontend.hip.llvm_types import LLVMTextError


def load_hip_hooks(ctx: Context, path: str, processor: str | None = None) -> ModuleOp:
    """The ``instr`` module of the hook file ``path`` (``.hip``, ``.ll`` or ``.bc``),
    compiled for ``processor`` (a wave64 target; the default when None). Raises a
    :class:`~luthier.amdgpu_dialects.errors.LuthierError` in one line naming ``path``."""
    text = llvm_text_of(path, processor or DEFAULT_PROCESSOR)
    try:
        module = read_llvm_text(text)
    except LLVMTextError as error:
        raise LLVMTextError(f"{path}: LLVM IR {error}") from None
    return import_llvm_hooks(module, path, ctx)


__all__ = ["load_hip_hooks"]
