"""Entry points: read a file or bytes, whatever it is, into a CodeObject or a bundle.

Users hand us code objects (``.co``/``.hsaco``), relocatable objects (``.o``), offload
bundles and host binaries with a ``.hip_fatbin`` section. The first bytes say which: an AMDGPU
ELF is read directly; a bundle (plain or compressed) or a host ELF's fat binary needs a target
(``offload_arch``), unless it holds a single device code object.
"""

from __future__ import annotations

from pathlib import Path

from luthier.frontend.codeobj.bundle import (
    OffloadBundle,
    fatbin_section,
    is_bundle,
    parse_bundle,
)
from luthier.frontend.codeobj.elf import elf_machine, is_elf, read_elf
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.frontend.codeobj.model import CodeObject
from luthier.frontend.codeobj.targets import EM_AMDGPU


def _load(source: str | Path | bytes, name: str | None) -> tuple[bytes, str]:
    if isinstance(source, bytes):
        return source, name or "<memory>"
    path = Path(source)
    label = name or str(path)
    try:
        return path.read_bytes(), label
    except OSError as error:
        raise CodeObjectError(label, f"cannot read: {error.strerror or error}") from error


def read_bundle(source: str | Path | bytes, *, name: str | None = None) -> OffloadBundle:
    """The offload bundle in a bundle file or a host ELF's ``.hip_fatbin`` section."""
    data, label = _load(source, name)
    if is_bundle(data):
        return parse_bundle(data, label)
    if is_elf(data) and elf_machine(data) != EM_AMDGPU:
        fatbin = fatbin_section(data, label)
        if fatbin is not None:
            return parse_bundle(fatbin, f"{label}:.hip_fatbin")
        raise CodeObjectError(label, "host ELF without a .hip_fatbin section")
    raise CodeObjectError(label, "not a clang offload bundle or a host ELF with a fat binary")


def read_code_object(
    source: str | Path | bytes,
    *,
    offload_arch: str | None = None,
    name: str | None = None,
) -> CodeObject:
    """Read one AMDGPU code object from a file or bytes.

    For a bundle or fat binary, ``offload_arch`` chooses the entry (``gfx90a``,
    ``gfx90a:xnack+``); without it, a bundle with exactly one device entry is accepted and any
    other is an error listing the entries.
    """
    data, label = _load(source, name)
    machine = elf_machine(data)
    if is_bundle(data):
        bundle = parse_bundle(data, label)
    elif machine is not None and machine != EM_AMDGPU:
        fatbin = fatbin_section(data, label)
        if fatbin is None:
            raise CodeObjectError(
                label,
                f"wrong machine {machine} (expected EM_AMDGPU, 224), "
                "and no .hip_fatbin section to take a code object from",
            )
        bundle = parse_bundle(fatbin, f"{label}:.hip_fatbin")
    else:
        return read_elf(data, label)
    if offload_arch is None:
        devices = bundle.device_entries
        if len(devices) != 1:
            listed = ", ".join(entry.id for entry in devices) or "none"
            raise CodeObjectError(
                bundle.path, f"choose a target with --offload-arch; bundle holds: {listed}"
            )
        entry = devices[0]
    else:
        entry = bundle.select(offload_arch)
    return read_elf(entry.data, f"{bundle.path}[{entry.id}]")
