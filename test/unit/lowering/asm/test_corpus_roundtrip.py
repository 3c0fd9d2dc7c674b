"""llvm-mc-19 rebuilds every corpus kernel descriptor and metadata note from our directives.

For each code object of ``test/corpus/kernels`` (linked and relocatable, code object v4/v5/v6,
kernarg preload, and the xnack+/sramecc- entries of ``elementwise.features.hipfb``) we print an
assembly file made of the target directives, one label + ``s_endpgm`` per kernel, the
``.amdhsa_kernel`` blocks and the ``.amdgpu_metadata`` block; llvm-mc-19 assembles it with the
options of the code object's target ID, and the frontend reader reads the result back:

* every descriptor byte but KERNEL_CODE_ENTRY_BYTE_OFFSET (bytes 16-23) is the original's;
* that field is an R_AMDGPU_REL64 relocation to the kernel symbol (addend 16, the field's offset
  in the descriptor), as in a relocatable object from clang;
* the metadata map equals the original, key for key, with the same value types (bool is not
  int). llvm-mc writes map keys sorted, which a map comparison does not see.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from luthier.amdgpu_dialects.target.kernel_descriptor import CODE_ENTRY_FIELD_OFFSET
from luthier.frontend.codeobj import CodeObject, read_code_object
from luthier.lowering.asm import (
    kernel_descriptor_directives,
    llvm_mc_target_options,
    metadata_directives,
    target_directives,
)

LLVM_MC = "llvm-mc-19"
CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"

needs_llvm_mc = pytest.mark.skipif(
    shutil.which(LLVM_MC) is None, reason=f"{LLVM_MC} is not installed"
)


@dataclass(frozen=True)
class Source:
    """A corpus code object: a file, and for a fat binary the bundle entry."""

    path: Path
    offload_arch: str | None = None

    @property
    def label(self) -> str:
        return self.path.name + (f"[{self.offload_arch}]" if self.offload_arch else "")

    def read(self) -> CodeObject:
        return read_code_object(self.path, offload_arch=self.offload_arch)


SOURCES = [
    *(Source(path) for path in sorted(CORPUS.glob("*.co"))),
    *(Source(path) for path in sorted(CORPUS.glob("*.o"))),
    Source(CORPUS / "elementwise.features.hipfb", "gfx90a:xnack+"),
    Source(CORPUS / "elementwise.features.hipfb", "gfx942:sramecc-:xnack-"),
]
KERNELS = [(source, kernel.name) for source in SOURCES for kernel in source.read().kernels]


def assembly_for(code_object: CodeObject) -> str:
    """The whole code object minus instructions: what the IR printer adds around the code."""
    assert code_object.metadata is not None
    lines = ["\t.text", *target_directives(code_object.target, code_object.code_object_version)]
    for kernel in code_object.kernels:
        name = kernel.name
        lines += [
            "\t.text",
            f"\t.globl\t{name}",
            "\t.p2align\t8",
            f"\t.type\t{name},@function",
            f"{name}:",
            "\ts_endpgm",
            '\t.section\t.rodata,"a",@progbits',
            "\t.p2align\t6, 0x0",
            *kernel_descriptor_directives(name, kernel.descriptor, code_object.target.offload_arch),
        ]
    lines += metadata_directives(code_object.metadata.raw)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Rebuilt:
    original: CodeObject
    assembled: CodeObject
    assembly: str


@pytest.fixture(scope="session")
def rebuild(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Source], Rebuilt]:
    """Assemble a corpus code object's directives once per session, read the object back."""
    cache: dict[Source, Rebuilt] = {}
    folder = tmp_path_factory.mktemp("asm")

    def run(source: Source) -> Rebuilt:
        if source not in cache:
            original = source.read()
            assembly = assembly_for(original)
            stem = f"{len(cache)}-{source.path.stem}"
            asm_path = folder / f"{stem}.s"
            obj_path = folder / f"{stem}.o"
            asm_path.write_text(assembly)
            command = [LLVM_MC, *llvm_mc_target_options(original.target), "-filetype=obj"]
            result = subprocess.run(
                [*command, str(asm_path), "-o", str(obj_path)],
                capture_output=True,
                text=True,
                check=False,
            )
            assert result.returncode == 0, f"{source.label}: llvm-mc failed:\n{result.stderr}"
            cache[source] = Rebuilt(original, read_code_object(obj_path), assembly)
        return cache[source]

    return run


def same_typed(left: object, right: object, where: str = "metadata") -> str | None:
    """Where two decoded msgpack values differ in value or type (bool vs int), else None."""
    if type(left) is not type(right):
        return f"{where}: {left!r} ({type(left).__name__}) vs {right!r} ({type(right).__name__})"
    if isinstance(left, dict):
        left_map = cast(dict[object, object], left)
        right_map = cast(dict[object, object], right)
        if left_map.keys() != right_map.keys():
            return f"{where}: keys {sorted(map(str, left_map))} vs {sorted(map(str, right_map))}"
        for key, value in left_map.items():
            found = same_typed(value, right_map[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(left, list):
        left_list = cast(list[object], left)
        right_list = cast(list[object], right)
        if len(left_list) != len(right_list):
            return f"{where}: {len(left_list)} items vs {len(right_list)}"
        for index, (a, b) in enumerate(zip(left_list, right_list, strict=True)):
            found = same_typed(a, b, f"{where}[{index}]")
            if found:
                return found
        return None
    return None if left == right else f"{where}: {left!r} vs {right!r}"


def test_corpus_is_complete() -> None:
    """The parametrisation sees the whole corpus (40 code objects, 214 kernels when written)."""
    assert len(SOURCES) >= 40
    assert len(KERNELS) >= 214
    # gfx908 has no f64 MFMA: mfma.hip leaves mfma_f64_16x16x4f64 out there.
    for target, count in (("gfx908", 47), ("gfx90a", 48), ("gfx942", 48)):
        linked = [k for s, k in KERNELS if s.path.name.endswith(f".{target}.co")]
        assert len(linked) == count, target


@needs_llvm_mc
@pytest.mark.parametrize(
    ("source", "kernel_name"),
    KERNELS,
    ids=[f"{source.label}:{name}" for source, name in KERNELS],
)
def test_descriptor_reassembles(
    rebuild: Callable[[Source], Rebuilt], source: Source, kernel_name: str
) -> None:
    rebuilt = rebuild(source)
    original = rebuilt.original.kernel(kernel_name)
    assembled = rebuilt.assembled.kernel(kernel_name)
    want = original.descriptor.to_bytes()
    got = assembled.descriptor.to_bytes()
    entry = slice(CODE_ENTRY_FIELD_OFFSET, CODE_ENTRY_FIELD_OFFSET + 8)
    assert got[: entry.start] + got[entry.stop :] == want[: entry.start] + want[entry.stop :], (
        f"{source.label}:{kernel_name}\n want {want.hex()}\n got  {got.hex()}"
    )
    # The code entry comes from a relocation to the kernel symbol, field left zero.
    assert got[entry] == bytes(8)
    symbol = assembled.descriptor_symbol
    relocations = [
        relocation
        for relocation in rebuilt.assembled.relocations
        if relocation.target_section == ".rodata"
        and relocation.offset == symbol.value + CODE_ENTRY_FIELD_OFFSET
    ]
    assert len(relocations) == 1, relocations
    relocation = relocations[0]
    assert relocation.type_name == "R_AMDGPU_REL64"
    assert relocation.symbol == kernel_name
    assert relocation.addend == CODE_ENTRY_FIELD_OFFSET
    assert symbol.name == f"{kernel_name}.kd"


@needs_llvm_mc
@pytest.mark.parametrize("source", SOURCES, ids=[source.label for source in SOURCES])
def test_metadata_and_target_reassemble(
    rebuild: Callable[[Source], Rebuilt], source: Source
) -> None:
    rebuilt = rebuild(source)
    original, assembled = rebuilt.original, rebuilt.assembled
    assert original.metadata is not None and assembled.metadata is not None
    assert same_typed(original.metadata.raw, assembled.metadata.raw) is None
    assert assembled.target == original.target
    assert assembled.e_flags == original.e_flags
    assert assembled.code_object_version == original.code_object_version
    assert [k.name for k in assembled.kernels] == [k.name for k in original.kernels]


def test_same_typed_sees_bool_versus_int() -> None:
    assert same_typed({"a": [1, True]}, {"a": [1, 1]}) is not None
    assert same_typed({"a": [1, "x"]}, {"a": [1, "x"]}) is None
