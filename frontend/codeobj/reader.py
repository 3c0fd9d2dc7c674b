"""Entry points: read a file or bytes, whatever it is, into a CodeObject or a bundle.

Users hand us code objects (``.co``/``.hsaco``), relocatable objects (``.o``), offload
bundles and host binaries with a ``.hip_fatbin`` section. The first bytes say which: an AMDGPU
ELF is read directly; a bundle (plain or compressed) or a host ELF's fat binary needs a target
(``offload_arch``), unless it holds a single device code object.
"""

from __future__ import annotations

from pathlib import Path

from luthier.amdgpu_dialects.target.target_id import EM_AMDGPU
from luthier.frontend.codeobj.bundle import (
    OffloadBundle,
    fatbin_section,
    is_bundle,
    parse_bundle,
    split_fatbin,
)
from luthier.frontend.codeobj.elf import elf_machine, is_elf, read_elf
from luthier.frontend.codeobj.errors import CodeObjectError
from luthier.frontend.codeobj.model import CodeObject


def _load(source: str | Path | bytes, name: str | None) -> tuple[bytes, str]:
    if isinstance(source, bytes):
        return source, name or "<memory>"
    path = Path(source)
    label = name or str(path)
    try:
        return path.read_bytes(), label
    except OSError as error:
        raise CodeObjectError(label, f"cannot read: {error.strerror or error}") from error


def read_fatbin(
    source: str | Path | bytes, *, name: str | None = None
) -> tuple[OffloadBundle, ...]:
    """Every offload bundle of a bundle file or of a host ELF's ``.hip_fatbin`` section.

    A bundle file gives one; a linked host program gives one per translation unit.
    """
    data, label = _load(source, name)
    if is_bundle(data):
        return (parse_bundle(data, label),)
    machine = elf_machine(data)
    if machine is not None and machine != EM_AMDGPU:
        fatbin = fatbin_section(data, label)
        if fatbin is None:
            raise CodeObjectError(
                label,
                f"wrong machine {machine} (expected EM_AMDGPU, 224), and no .hip_fatbin "
                "section to take a code object from",
            )
        return split_fatbin(fatbin, f"{label}:.hip_fatbin")
    raise CodeObjectError(label, "not a clang offload bundle or a host ELF with a fat binary")


def read_bundle(source: str | Path | bytes, *, name: str | None = None) -> OffloadBundle:
    """The one offload bundle of a bundle file or of a host ELF's fat binary."""
    bundles = read_fatbin(source, name=name)
    if len(bundles) != 1:
        raise CodeObjectError(
            bundles[0].path,
            f"holds {len(bundles)} offload bundles (one per translation unit); read them "
            "with read_fatbin or read_code_objects",
        )
    return bundles[0]


def _select(bundle: OffloadBundle, offload_arch: str | None) -> CodeObject:
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
    if is_elf(data) and elf_machine(data) == EM_AMDGPU:
        return read_elf(data, label)
    if not is_bundle(data) and elf_machine(data) is None:
        return read_elf(data, label)  # neither ELF nor bundle: the ELF reader says why
    return _select(read_bundle(data, name=label), offload_arch)


def read_code_objects(
    source: str | Path | bytes,
    *,
    offload_arch: str | None = None,
    name: str | None = None,
) -> list[CodeObject]:
    """Every code object for ``offload_arch`` in a file: one per bundle of a fat binary."""
    data, label = _load(source, name)
    if is_elf(data) and elf_machine(data) == EM_AMDGPU:
        return [read_elf(data, label)]
    if not is_bundle(data) and elf_machine(data) is None:
        return [read_elf(data, label)]
    bundles = read_fatbin(data, name=label)
    return [
        _select(OffloadBundle(f"{bundle.path}#{index}" if len(bundles) > 1 else bundle.path,
                              bundle.entries, bundle.size), offload_arch)
        for index, bundle in enumerate(bundles)
    ]  # fmt: skip
