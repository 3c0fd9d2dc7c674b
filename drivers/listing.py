"""``luthier-opt --list``: what a code object, bundle or fat binary holds, one line each.

Like ``clang-offload-bundler --list`` with what a tool writer needs next: per device code
object, the offload entry ID (what ``--offload-arch`` selects), its target, size, code object
version and kernels; host entries are listed too, marked as such, so nothing is hidden.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.target.target_id import EM_AMDGPU
from luthier.frontend.codeobj import read_code_object, read_fatbin
from luthier.frontend.codeobj.bundle import is_bundle
from luthier.frontend.codeobj.elf import elf_machine
from luthier.frontend.codeobj.model import CodeObject


def _describe(code_object: CodeObject, size: int) -> str:
    kernels = [kernel.name for kernel in code_object.kernels]
    # Hand-written assembly without .size: the lifter infers these functions' extents.
    unsized = [symbol.name for symbol in sorted(
        [kernel.function for kernel in code_object.kernels]
        + [function.symbol for function in code_object.device_functions],
        key=lambda symbol: symbol.value) if symbol.size == 0]
    return (f"{code_object.target.offload_arch}, code object v{code_object.code_object_version},"
            f" {size} bytes, {len(kernels)} kernel{'s' if len(kernels) != 1 else ''}"
            + (f": {', '.join(kernels)}" if kernels else "")
            + (f"; without a size (extent inferred when lifted): {', '.join(unsized)}"
               if unsized else ""))


def list_contents(data: bytes, name: str) -> list[str]:
    """One line per code object (or bundle entry) in ``data``; raises CodeObjectError."""
    if elf_machine(data) == EM_AMDGPU and not is_bundle(data):
        return [f"{name}: {_describe(read_code_object(data, name=name), len(data))}"]
    lines: list[str] = []
    bundles = read_fatbin(data, name=name)
    for index, bundle in enumerate(bundles):
        label = f"{bundle.path}#{index}" if len(bundles) > 1 else bundle.path
        for entry in bundle.entries:
            if not entry.is_device:
                lines.append(f"{label}: {entry.id}: host entry, {entry.size} bytes")
                continue
            code_object = read_code_object(entry.data, name=f"{label}[{entry.id}]")
            lines.append(f"{label}: {entry.id}: {_describe(code_object, entry.size)}")
    return lines
