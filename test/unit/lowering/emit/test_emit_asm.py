"""``emit_assembly`` against llvm-mc-19 and ld.lld-19 as oracles.

Every code object that lifts is emitted as assembly, assembled with llvm-mc-19 (options from
the code object's target ID) and, for linked inputs, linked with ``ld.lld-19 -shared``:

* corpus ``.co`` files: the result is the original file, byte for byte;
* third-party code objects: the result is what :func:`emit_code_object` writes, byte for
  byte, and every function's instruction bytes, kernel descriptor and the metadata equal the
  original's (the files themselves differ in what the lifter does not keep, such as debug
  sections, and in what an older linker wrote);
* corpus ``.o`` files: ``.text``, descriptors and data equal :func:`emit_relocatable`'s; the
  relocations are the original clang object's exactly, and they reach the same places as ours
  (llvm-mc, like clang, refers to local symbols through their section).

Fallbacks to raw words must be real: llvm-mc itself must not give the instruction's bytes from
its text. Emission needs no LLVM tool, and what assembly cannot express raises EmitError.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, operand_array
from luthier.amdgpu_dialects.amdgpu_mc.registers import VirtRegAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    DataRelocationAttr,
    GlobalOp,
    KernelOp,
    SectionOp,
    int_attr,
)
from luthier.frontend.codeobj import CodeObject, read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.frontend.lift.errors import LiftError
from luthier.lowering.asm import llvm_mc_target_options
from luthier.lowering.emit import EmitError, emit_assembly, emit_code_object, emit_relocatable
from luthier.lowering.emit.asm import AssemblyOutput, assemble_listing

ROOT = Path(__file__).resolve().parents[4]
CORPUS = ROOT / "test" / "corpus" / "kernels"
LINKED = sorted(CORPUS.glob("*.co"))
RELOCATABLE = sorted(CORPUS.glob("*.o"))
THIRD_PARTY = sorted((ROOT / "build" / "thirdparty" / "codeobjects").glob("**/*.co"))
LLVM_MC, LLD = "llvm-mc-19", "ld.lld-19"

needs_llvm = pytest.mark.skipif(
    shutil.which(LLVM_MC) is None or shutil.which(LLD) is None,
    reason=f"{LLVM_MC} or {LLD} is not installed",
)


@dataclass(frozen=True)
class Reassembled:
    original: CodeObject
    module: CodeObjectOp
    listing: AssemblyOutput
    object_path: Path


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stderr[:3000]}"


def _lift(path: Path) -> tuple[CodeObject, CodeObjectOp]:
    original = read_code_object(path)
    try:
        return original, lift_code_object(original).module
    except LiftError as error:
        pytest.skip(f"does not lift: {error}")


@pytest.fixture(scope="module")
def reassemble(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Reassembled]:
    """Lift, emit assembly, run llvm-mc: once per file and mode."""
    folder = tmp_path_factory.mktemp("asm")
    cache: dict[tuple[Path, bool], Reassembled] = {}

    def run(path: Path, force_raw: bool = False) -> Reassembled:
        key = (path, force_raw)
        if key not in cache:
            original, module = _lift(path)
            listing = assemble_listing(module, force_raw=force_raw)
            stem = folder / f"{len(cache)}-{path.name}"
            source = stem.with_suffix(".s")
            source.write_text(listing.text)
            obj = stem.with_suffix(".mc.o")
            _run(
                [
                    LLVM_MC,
                    *llvm_mc_target_options(original.target),
                    "-filetype=obj",
                    str(source),
                    "-o",
                    str(obj),
                ]
            )
            cache[key] = Reassembled(original, module, listing, obj)
        return cache[key]

    return run


def _link(obj: Path) -> bytes:
    out = obj.with_suffix(".linked.co")
    _run([LLD, "-shared", str(obj), "-o", str(out)])
    return out.read_bytes()


def _function_code(code_object: CodeObject) -> dict[str, bytes]:
    code = {kernel.name: kernel.code for kernel in code_object.kernels}
    code.update({function.symbol.name: function.code for function in code_object.device_functions})
    return code


def _section_bytes(code_object: CodeObject, name: str) -> bytes:
    section = code_object.section(name)
    if section is None or section.type == 8:  # SHT_NOBITS: no bytes in the file
        return b""
    return code_object.data[section.offset : section.offset + section.size]


def _resolved_relocations(code_object: CodeObject) -> list[tuple[str, int, str, str, int]]:
    """(section, offset, type, target section, target offset): what a relocation reaches,
    whether it names a symbol or a section symbol plus an addend."""
    sections = {section.index: section.name for section in code_object.sections}
    symbols = {symbol.name: symbol for symbol in code_object.symbols if symbol.table == ".symtab"}
    resolved: list[tuple[str, int, str, str, int]] = []
    for relocation in code_object.relocations:
        symbol = symbols.get(relocation.symbol)
        if symbol is not None and isinstance(symbol.section_index, int):
            where, value = sections[symbol.section_index], symbol.value
        else:
            where, value = relocation.symbol, 0
        resolved.append(
            (
                relocation.target_section or "",
                relocation.offset,
                relocation.type_name,
                where,
                value + relocation.addend,
            )
        )
    return sorted(resolved)


def _relocations(code_object: CodeObject) -> list[tuple[str, int, str, str, int]]:
    return sorted(
        (r.target_section or "", r.offset, r.type_name, r.symbol, r.addend)
        for r in code_object.relocations
    )


def test_inputs_are_there() -> None:
    assert len(LINKED) >= 19 and len(RELOCATABLE) >= 16


@needs_llvm
@pytest.mark.parametrize("path", LINKED, ids=lambda p: p.name)
def test_corpus_code_object_reassembles_byte_identical(
    reassemble: Callable[..., Reassembled], path: Path
) -> None:
    result = reassemble(path)
    assert _link(result.object_path) == path.read_bytes()


@needs_llvm
@pytest.mark.parametrize("path", THIRD_PARTY, ids=lambda p: p.name)
def test_third_party_code_object_reassembles(
    reassemble: Callable[..., Reassembled], path: Path
) -> None:
    result = reassemble(path)
    linked = _link(result.object_path)
    # The text leaves out the debug sections carried from the input (an object still to be
    # linked cannot keep them, and says so); emitted without them, the bytes are the same.
    debug = [op.section.data for op in result.module.body.ops
             if isinstance(op, SectionOp) and op.section.data.startswith(".debug")]
    assert len(result.listing.warnings) == (1 if debug else 0)
    without_debug = result.module.clone()
    for op in list(without_debug.body.ops):
        if isinstance(op, SectionOp) and op.section.data.startswith(".debug"):
            without_debug.body.block.erase_op(op)
    # ld.lld 19 links the assembly: our emitter as that linker, not as the input's.
    assert linked == emit_code_object(without_debug, follow_input_linker=False)
    relinked = read_code_object(result.object_path.with_suffix(".linked.co"))
    original = result.original
    assert _function_code(relinked) == _function_code(original)
    assert [k.descriptor.to_bytes() for k in relinked.kernels] == [
        k.descriptor.to_bytes() for k in original.kernels
    ]
    assert relinked.metadata is not None and original.metadata is not None
    assert relinked.metadata.raw == original.metadata.raw


@needs_llvm
@pytest.mark.parametrize("path", RELOCATABLE, ids=lambda p: p.name)
def test_relocatable_matches_emit_relocatable(
    reassemble: Callable[..., Reassembled], path: Path, tmp_path: Path
) -> None:
    result = reassemble(path)
    assembled = read_code_object(result.object_path)
    ours_path = tmp_path / "ours.o"
    ours_path.write_bytes(emit_relocatable(result.module))
    ours = read_code_object(ours_path)
    assert assembled.text is not None and ours.text is not None
    assert assembled.text.data == ours.text.data
    assert [k.descriptor.to_bytes() for k in assembled.kernels] == [
        k.descriptor.to_bytes() for k in ours.kernels
    ]
    for name in (".rodata", ".data"):
        assert _section_bytes(assembled, name) == _section_bytes(ours, name), name
    assert _resolved_relocations(assembled) == _resolved_relocations(ours)
    # llvm-mc writes the relocations clang wrote, local targets through their section.
    assert _relocations(assembled) == _relocations(result.original)
    assert not [s.name for s in assembled.symbols if s.name.startswith(".L")]


@needs_llvm
@pytest.mark.parametrize(
    "path", [CORPUS / "globals.gfx942.o", CORPUS / "calls.gfx90a.o"], ids=lambda p: p.name
)
def test_raw_words_reassemble_with_relocations(
    reassemble: Callable[..., Reassembled], path: Path
) -> None:
    """Every instruction as ``.long`` words (symbolic literals as expressions): the same
    ``.text`` and relocations as the printed form."""
    raw = reassemble(path, force_raw=True)
    printed = reassemble(path)
    assert len(raw.listing.fallbacks) == raw.listing.instructions
    raw_object, printed_object = (
        read_code_object(raw.object_path),
        read_code_object(printed.object_path),
    )
    assert raw_object.text is not None and printed_object.text is not None
    assert raw_object.text.data == printed_object.text.data
    assert _relocations(raw_object) == _relocations(printed_object)


@needs_llvm
def test_fallbacks_are_needed(reassemble: Callable[..., Reassembled], tmp_path: Path) -> None:
    """llvm-mc assembles each fallback's text to other bytes than the instruction's: a
    fallback is never taken where the printed text would have done."""
    for path in LINKED + THIRD_PARTY:
        result = reassemble(path)
        fallbacks = result.listing.fallbacks
        if not fallbacks:
            continue
        source = tmp_path / f"{path.name}.fallbacks.s"
        source.write_text("".join(f"\t{fallback.text}\n" for fallback in fallbacks))
        shown = subprocess.run(
            [
                LLVM_MC,
                *llvm_mc_target_options(result.original.target),
                "-show-encoding",
                str(source),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        encodings = [_encoding(line) for line in shown.stdout.splitlines() if "encoding:" in line]
        assert len(encodings) == len(fallbacks), shown.stderr
        for fallback, got in zip(fallbacks, encodings, strict=True):
            assert got != fallback.data, fallback


def _encoding(line: str) -> bytes:
    """The bytes of llvm-mc's ``; encoding: [0x00,0xc0,...]`` (fixup bytes as zero)."""
    listed = line.split("encoding: [", 1)[1].split("]", 1)[0]
    return bytes(int(byte, 16) if byte.startswith("0x") else 0 for byte in listed.split(","))


# -- no LLVM tool needed -----------------------------------------------------------------


def test_emission_needs_no_llvm_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    module = lift_code_object(read_code_object(CORPUS / "calls.gfx942.co")).module

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"emission ran a process: {args}")

    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    text = emit_assembly(ModuleOp([module]))
    assert ".amdhsa_kernel call_device_function" in text
    assert text.endswith("\t.end_amdgpu_metadata\n")


# -- what assembly cannot express ------------------------------------------------------------


def _module(name: str = "globals.gfx942.o") -> CodeObjectOp:
    return lift_code_object(read_code_object(CORPUS / name)).module


def _first_kernel(module: CodeObjectOp) -> KernelOp:
    return next(op for op in module.body.ops if isinstance(op, KernelOp))


def _variable(properties: dict[str, object]) -> GlobalOp:
    base: dict[str, object] = {
        "sym_name": StringAttr("table"),
        "section": StringAttr(".data"),
        "size": int_attr(8),
        "alignment": int_attr(8),
    }
    base.update(properties)
    return GlobalOp.create(properties=base)  # pyright: ignore[reportArgumentType]


def _with_variable(properties: dict[str, object]) -> CodeObjectOp:
    module = _module()
    module.body.block.add_op(_variable(properties))
    return module


def _expect(module: ModuleOp | CodeObjectOp, message: str) -> None:
    with pytest.raises(EmitError, match=message) as caught:
        emit_assembly(module)
    assert "\n" not in str(caught.value)


def test_error_two_code_objects() -> None:
    _expect(ModuleOp([_module(), _module("calls.gfx942.o")]), "holds one amdgpu_mc.code_object")


def test_error_default_visibility_kernel() -> None:
    module = _module()
    _first_kernel(module).properties["visibility"] = StringAttr("DEFAULT")
    _expect(module, "default visibility cannot be assembled")


def test_error_unknown_binding() -> None:
    module = _module()
    _first_kernel(module).properties["binding"] = StringAttr("UNIQUE")
    _expect(module, "binding UNIQUE has no assembler directive")


def test_error_symbol_that_would_be_a_local_label() -> None:
    module = _module()
    _first_kernel(module).properties["sym_name"] = StringAttr(".Lhidden")
    _expect(module, "cannot be written as an assembly symbol name")


def test_error_alignment_not_a_power_of_two() -> None:
    module = _module()
    _first_kernel(module).properties["alignment"] = int_attr(96)
    _expect(module, "alignment 96 is not a power of two")


def test_error_virtual_register() -> None:
    module = _module()
    kernel = _first_kernel(module)
    op = next(
        op
        for op in kernel.walk()
        if isinstance(op, InstructionOpBase) and op.mnemonic == "v_mov_b32_e32"
    )
    operands = list(op.mc_operands.data)
    operands[0] = VirtRegAttr((0, "VGPR_32"))
    op.properties["mc_operands"] = operand_array(operands)
    _expect(module, "virtual register .* is not allocated")


def test_error_unsupported_code_object_version() -> None:
    module = _module()
    module.properties["code_object_version"] = int_attr(3)
    _expect(module, "code object version 3 cannot be emitted")


def test_error_target_differs_from_e_flags() -> None:
    module = _module()
    module.properties["target"] = StringAttr("gfx942:xnack+")
    _expect(module, "differs from the e_flags target")


def test_error_unknown_data_relocation() -> None:
    relocation = DataRelocationAttr((0, "R_AMDGPU_RELATIVE64", "read_global", 0))
    _expect(
        _with_variable({"relocations": ArrayAttr([relocation])}),
        "relocation R_AMDGPU_RELATIVE64 has no assembler expression",
    )


def test_error_bytes_under_a_relocation() -> None:
    relocation = DataRelocationAttr((0, "R_AMDGPU_ABS64", "read_global", 0))
    _expect(
        _with_variable({"data": StringAttr("01" * 8), "relocations": ArrayAttr([relocation])}),
        "non-zero bytes under relocation",
    )


def test_error_data_in_bss() -> None:
    _expect(
        _with_variable({"section": StringAttr(".bss"), "data": StringAttr("01" * 8)}),
        "zero-filled section",
    )


# -- variables with every data relocation kind ----------------------------------------------

DATA_RELOCATIONS = [
    "R_AMDGPU_ABS64",
    "R_AMDGPU_ABS32",
    "R_AMDGPU_ABS32_LO",
    "R_AMDGPU_ABS32_HI",
    "R_AMDGPU_REL64",
    "R_AMDGPU_REL32",
    "R_AMDGPU_REL32_LO",
    "R_AMDGPU_REL32_HI",
    "R_AMDGPU_GOTPCREL",
    "R_AMDGPU_GOTPCREL32_LO",
    "R_AMDGPU_GOTPCREL32_HI",
]


@needs_llvm
def test_data_relocations_reassemble(tmp_path: Path) -> None:
    relocations: list[DataRelocationAttr] = []
    at = 0
    for index, kind in enumerate(DATA_RELOCATIONS):
        relocations.append(DataRelocationAttr((at, kind, "read_global", 4 * index - 8)))
        at += 8 if kind.endswith("64") else 4
    module = _with_variable(
        {
            "size": int_attr(at + 4),
            "data": StringAttr("00" * at + "01020304"),
            "relocations": ArrayAttr(relocations),
        }
    )
    source, obj, ours = tmp_path / "v.s", tmp_path / "v.o", tmp_path / "ours.o"
    source.write_text(emit_assembly(module))
    original = read_code_object(CORPUS / "globals.gfx942.o")
    _run(
        [
            LLVM_MC,
            *llvm_mc_target_options(original.target),
            "-filetype=obj",
            str(source),
            "-o",
            str(obj),
        ]
    )
    ours.write_bytes(emit_relocatable(module))
    assembled, emitted = read_code_object(obj), read_code_object(ours)
    assert _relocations(assembled) == _relocations(emitted)
    assert _section_bytes(assembled, ".data") == _section_bytes(emitted, ".data")
    kinds = {r.type_name for r in assembled.relocations if r.target_section == ".data"}
    assert kinds == set(DATA_RELOCATIONS)


RDNA = sorted((ROOT / "test" / "corpus" / "rdna").glob("*.co"))


@needs_llvm
@pytest.mark.parametrize("path", RDNA, ids=lambda p: p.name)
def test_rdna_code_object_reassembles(tmp_path: Path, path: Path) -> None:
    """An RDNA object's assembly goes through llvm-mc-19 and ld.lld-19 with every function
    and descriptor as it was, except GRANULATED_WAVEFRONT_SGPR_COUNT: from GFX10 on the
    assembler always encodes 0 there (the hardware does not read it), which one warning
    says, naming the kernels that had another count."""
    original, module = _lift(path)
    listing = assemble_listing(module)
    nonzero = [kernel.name for kernel in original.kernels
               if kernel.descriptor.compute_pgm_rsrc1.granulated_wavefront_sgpr_count]
    assert len(listing.warnings) == (1 if nonzero else 0)
    if nonzero:
        assert listing.warnings[0].startswith(
            f"GRANULATED_WAVEFRONT_SGPR_COUNT of {len(nonzero)} kernel")
        assert f"@{nonzero[0]}" in listing.warnings[0]
    source = tmp_path / "listing.s"
    source.write_text(listing.text)
    options = llvm_mc_target_options(original.target)
    if module.wavefront_size is not None:  # RDNA in wave64: the listing's first line says how
        assert listing.text.startswith("// wave64: assemble with llvm-mc "
                                       "-mattr=+wavefrontsize64\n")
        options.append("-mattr=+wavefrontsize64")
    obj = tmp_path / "listing.o"
    _run([LLVM_MC, *options, "-filetype=obj", str(source), "-o", str(obj)])
    relinked = read_code_object(_link(obj))
    assert _function_code(relinked) == _function_code(original)
    for before, after in zip(original.kernels, relinked.kernels, strict=True):
        rsrc1 = before.descriptor.compute_pgm_rsrc1
        zeroed = replace(before.descriptor, compute_pgm_rsrc1=replace(
            rsrc1, granulated_wavefront_sgpr_count=0))
        assert (before.name, after.descriptor.to_bytes()) == (before.name, zeroed.to_bytes())
