"""File-level fidelity of a round trip: what lifting does not interpret is carried through.

A linked code object's debug sections, ``.comment``, undefined symbols and every symbol's
binding and visibility come back from ``lift -> emit``; the identity round trip of an object
clang-19 compiled with ``-g`` (linked by ld.lld-19) is byte-identical. Where instrumentation
moves code, the sections holding addresses are dropped, named in one warning line, and
``--strict`` makes that line an error with no output; what cannot be carried at all is named
in a warning when lifting; a kernel descriptor that cannot be matched to its code is an
error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp, StringAttr
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    ExternOp,
    KernelOp,
    SectionOp,
)
from luthier.drivers.luthier_opt import main
from luthier.frontend.codeobj import read_elf
from luthier.frontend.codeobj.compare import file_differences
from luthier.frontend.codeobj.elf_format import SHF_ALLOC, SHF_WRITE, SHT_PROGBITS
from luthier.frontend.codeobj.spec import SectionSpec, SymbolSpec
from luthier.frontend.lift import LiftError, LiftResult, lift_code_object
from luthier.lowering.elf import link_shared
from luthier.lowering.emit import emit_assembly, emit_code_object, emit_relocatable, object_spec

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "test" / "corpus" / "kernels"
CALLS = CORPUS / "calls.gfx90a.co"
HOOKS = ROOT / "examples" / "hooks" / "instr_count.mlir"
HIP = ROOT / "examples" / "sample" / "vector_add.hip"
IN_CI = os.environ.get("CI") == "true"
#: The sections of clang-19's ``-g`` output that hold addresses, in file order.
ADDRESS_SECTIONS = [".debug_loclists", ".debug_info", ".debug_addr", ".debug_frame",
                    ".debug_line"]
#: Those that do not (kept when code moves).
ADDRESS_FREE = [".debug_abbrev", ".debug_str_offsets", ".debug_str", ".comment",
                ".debug_line_str"]


def _require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if IN_CI:
            pytest.fail(f"{tool} is not installed")
        pytest.skip(f"{tool} is not installed (scripts/setup.sh installs it)")
    return path


@pytest.fixture(scope="module")
def debug_object(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """vector_add.hip compiled with ``-g``: DWARF 5 sections, linked by ld.lld-19."""
    clang = _require("clang-19")
    out = tmp_path_factory.mktemp("debug") / "vector_add.g.gfx90a.co"
    subprocess.run([clang, "-x", "hip", "--offload-device-only", "--offload-arch=gfx90a",
                    "-nogpulib", "-nogpuinc", "-O2", "-g", "--no-gpu-bundle-output",
                    "-o", str(out), str(HIP)], check=True, capture_output=True, timeout=120)
    return out


def _lift(data: bytes, name: str = "in.co") -> LiftResult:
    return lift_code_object(read_elf(data, name))


def _code_object(module: ModuleOp | CodeObjectOp) -> CodeObjectOp:
    if isinstance(module, CodeObjectOp):
        return module
    return next(op for op in module.ops if isinstance(op, CodeObjectOp))


def _text(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def _parse(text: str) -> ModuleOp:
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    return Parser(context, text, "<text>").parse_module()


def _section_names(data: bytes) -> list[str]:
    return [section.name for section in read_elf(data, "<out>").sections[1:]]


def _symbol(data: bytes, table: str, name: str) -> tuple[str, str, str, int | str]:
    found = next(s for s in read_elf(data, "<out>").symbols if s.table == table
                 and s.name == name)
    return found.type, found.binding, found.visibility, found.section_index


# -- carried sections ----------------------------------------------------------------------


def test_a_debug_object_round_trips_byte_for_byte(debug_object: Path) -> None:
    data = debug_object.read_bytes()
    result = _lift(data)
    assert result.warnings == []
    sections = [op.section.data for op in _code_object(result.module).body.ops
                if isinstance(op, SectionOp)]
    assert sorted(sections) == sorted(ADDRESS_SECTIONS + ADDRESS_FREE)
    assert emit_code_object(result.module) == data
    # Through the IR's text too (the sections are printed and parsed back).
    module = ModuleOp([result.module])
    text = _text(module)
    parsed = _parse(text)
    parsed.verify()
    assert _text(parsed) == text
    assert emit_code_object(parsed) == data


def test_instrumenting_drops_the_address_sections_in_one_warning(
        debug_object: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.co"
    status = main(["--lift", "--inline-hooks", "--emit-preamble", "--no-progress",
                   str(debug_object), "--hooks", str(HOOKS), "-o", str(out)])
    assert status == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"luthier-opt: warning: {debug_object}: dropped "
                     f"{', '.join(ADDRESS_SECTIONS)} ({_sizes(debug_object)} bytes): they hold "
                     "the input's code and data addresses, and the code or data moved"]
    names = _section_names(out.read_bytes())
    assert all(name in names for name in ADDRESS_FREE)
    assert not any(name in names for name in ADDRESS_SECTIONS)
    original = read_elf(debug_object.read_bytes(), "in")
    for name in ADDRESS_FREE[:3]:
        section = original.section(name)
        assert section is not None
        kept = original.data[section.offset:section.offset + section.size]
        assert _bytes_of(out.read_bytes(), name) == kept


def _sizes(path: Path) -> int:
    original = read_elf(path.read_bytes(), "in")
    return sum(section.size for section in original.sections if section.name in ADDRESS_SECTIONS)


def _bytes_of(data: bytes, name: str) -> bytes:
    section = read_elf(data, "<out>").section(name)
    assert section is not None
    return data[section.offset:section.offset + section.size]


def test_strict_makes_the_warning_an_error_and_writes_nothing(
        debug_object: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.co"
    status = main(["--lift", "--inline-hooks", "--emit-preamble", "--no-progress", "--strict",
                   str(debug_object), "--hooks", str(HOOKS), "-o", str(out)])
    assert status == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"luthier-opt: error: {debug_object}: dropped .debug_loclists")
    assert lines[0].endswith("and the code or data moved (--strict)")
    assert not out.exists()


def test_strict_accepts_an_identity_round_trip(debug_object: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.co"
    assert main(["--lift", "--strict", "--no-progress", str(debug_object), "-o",
                 str(out)]) == 0
    assert capsys.readouterr().err == ""
    assert out.read_bytes() == debug_object.read_bytes()


def test_relocatable_and_assembly_outputs_drop_the_debug_sections(debug_object: Path) -> None:
    """An object still to be linked has no addresses for the debug information, and a link
    would merge ``.debug_str`` again under ``.debug_str_offsets``: both outputs leave every
    debug section out, in the same one warning, and keep ``.comment``."""
    module = _lift(debug_object.read_bytes()).module
    object_warnings: list[str] = []
    relocatable = emit_relocatable(module, warnings=object_warnings)
    text_warnings: list[str] = []
    text = emit_assembly(module, warnings=text_warnings)
    assert object_warnings == text_warnings
    debug = [name for name in _section_names(debug_object.read_bytes())
             if name.startswith(".debug")]
    assert len(object_warnings) == 1
    assert object_warnings[0].startswith(f"dropped {', '.join(debug)} (")
    assert object_warnings[0].endswith("which an object still to be linked cannot keep")
    names = _section_names(relocatable)
    assert ".comment" in names and not any(name.startswith(".debug") for name in names)
    llvm_mc = _require("llvm-mc-19")
    assembled = subprocess.run([llvm_mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a",
                                "-filetype=obj", "-o", "-"], input=text.encode(),
                               capture_output=True, check=True, timeout=120).stdout
    assert _bytes_of(assembled, ".comment") == _bytes_of(relocatable, ".comment")


# -- symbols ---------------------------------------------------------------------------------


def _with_externs_and_default_descriptor() -> tuple[ModuleOp, str]:
    """calls.gfx90a lifted, with two undefined symbols and a kernel whose ``.kd`` has
    default visibility (what clang 15 made), as a module and the kernel's name."""
    code_object = _code_object(_lift(CALLS.read_bytes()).module)
    kernel = next(op for op in code_object.body.ops if isinstance(op, KernelOp))
    kernel.descriptor_visibility = StringAttr("DEFAULT")
    for name, binding, visibility in (("undefined_global", "GLOBAL", "DEFAULT"),
                                      ("undefined_weak", "WEAK", "PROTECTED")):
        code_object.body.block.add_op(ExternOp.create(properties={
            "sym_name": StringAttr(name), "symbol_type": StringAttr("NOTYPE"),
            "binding": StringAttr(binding), "visibility": StringAttr(visibility)}))
    return ModuleOp([code_object]), kernel.sym_name.data


def test_undefined_symbols_and_descriptor_visibility_round_trip() -> None:
    module, kernel = _with_externs_and_default_descriptor()
    data = emit_code_object(module)
    for table in (".symtab", ".dynsym"):
        assert _symbol(data, table, f"{kernel}.kd")[:3] == ("OBJECT", "GLOBAL", "DEFAULT")
        assert _symbol(data, table, kernel)[:3] == ("FUNC", "GLOBAL", "PROTECTED")
        assert _symbol(data, table, "undefined_global") == ("NOTYPE", "GLOBAL", "DEFAULT",
                                                            "SHN_UNDEF")
        assert _symbol(data, table, "undefined_weak") == ("NOTYPE", "WEAK", "PROTECTED",
                                                          "SHN_UNDEF")
    again = _lift(data)
    assert again.warnings == []
    code_object = _code_object(again.module)
    lifted = next(op for op in code_object.body.ops
                  if isinstance(op, KernelOp) and op.sym_name.data == kernel)
    assert lifted.descriptor_visibility == StringAttr("DEFAULT")
    assert lifted.descriptor_binding is None
    externs = {op.sym_name.data: (op.elf_type, op.elf_binding, op.elf_visibility)
               for op in code_object.body.ops if isinstance(op, ExternOp)}
    assert externs == {"undefined_global": ("NOTYPE", "GLOBAL", "DEFAULT"),
                       "undefined_weak": ("NOTYPE", "WEAK", "PROTECTED")}
    assert emit_code_object(again.module) == data
    text = _text(ModuleOp([again.module]))
    assert 'descriptor_visibility = "DEFAULT"' in text
    parsed = _parse(text)
    parsed.verify()
    assert _text(parsed) == text
    assert emit_code_object(parsed) == data


def test_assembly_keeps_undefined_symbols_and_a_default_descriptor() -> None:
    """llvm-mc gives ``.kd`` the kernel's visibility, then makes a default kernel protected:
    the text declares such a kernel default, and the object llvm-mc makes of the text
    holds the symbols the object we write holds."""
    llvm_mc = _require("llvm-mc-19")
    module, kernel = _with_externs_and_default_descriptor()
    text = emit_assembly(module)
    assembled = subprocess.run([llvm_mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a",
                                "-filetype=obj", "-o", "-"], input=text.encode(),
                               capture_output=True, check=True, timeout=120).stdout
    ours = emit_relocatable(module)
    for name in (kernel, f"{kernel}.kd", "undefined_global", "undefined_weak"):
        assert _symbol(assembled, ".symtab", name) == _symbol(ours, ".symtab", name)


# -- what cannot be carried ------------------------------------------------------------------


def test_what_cannot_be_carried_is_named_and_unknown_sections_are_carried() -> None:
    """An allocated section nothing in the IR describes and a symbol of a kind the lifter
    does not model are named, one line per kind; an unknown non-allocated section is
    carried (as holding addresses: nothing says it does not) and kept by a round trip."""
    spec = object_spec(_code_object(_lift(CALLS.read_bytes()).module))
    extra = (SectionSpec(".luthier_alloc", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 4, b"\1\2\3\4",
                         4),
             SectionSpec(".luthier_info", SHT_PROGBITS, 0, 1, b"info", 4))
    label = SymbolSpec("label_in_text", ".text", 0, 0, "NOTYPE", "GLOBAL", "PROTECTED")
    spec = spec.__class__(spec.e_flags, spec.os_abi, spec.abi_version,
                          (*spec.sections, *extra), (*spec.symbols, label), spec.comment)
    data = link_shared(spec)
    result = _lift(data)
    assert result.warnings == [
        "not carried: 1 symbol(s) the lifter does not model (NOTYPE label_in_text)",
        "not carried: 1 dynamic symbol(s) the output does not export (label_in_text)",
        "not carried: .luthier_alloc (allocated sections the lifter does not interpret, or "
        "sections that refer to others by index)",
    ]
    carried = [op for op in _code_object(result.module).body.ops if isinstance(op, SectionOp)]
    assert [op.section.data for op in carried] == [".luthier_info", ".comment"]
    assert carried[0].layout is not None and carried[1].layout is None
    # The unmodelled symbol changes the layout: the unknown section cannot be trusted.
    warnings: list[str] = []
    out = emit_code_object(result.module, warnings=warnings)
    assert ".luthier_info" not in _section_names(out)
    assert warnings and warnings[0].startswith("dropped .luthier_info (4 bytes)")


def test_an_unknown_section_survives_an_identity_round_trip() -> None:
    spec = object_spec(_code_object(_lift(CALLS.read_bytes()).module))
    extra = SectionSpec(".luthier_info", SHT_PROGBITS, 0, 1, b"info", 4)
    spec = spec.__class__(spec.e_flags, spec.os_abi, spec.abi_version,
                          (*spec.sections, extra), spec.symbols, spec.comment)
    data = link_shared(spec)
    result = _lift(data)
    assert result.warnings == []
    assert emit_code_object(result.module) == data


def test_section_flags_with_the_top_bit_set_round_trip() -> None:
    # A fuzz campaign's find: an input section's sh_flags with bit 63 set became a negative
    # i64 in the IR, and the ELF writer refused it ("argument out of range") as an internal
    # error. The flags are the same 64 bits in the output, and through the IR's text.
    flags = 0x8815_D5B7_7ACF_89E5
    spec = object_spec(_code_object(_lift(CALLS.read_bytes()).module))
    extra = SectionSpec(".luthier_flags", SHT_PROGBITS, flags & ~SHF_ALLOC, 1, b"bits", 4)
    spec = spec.__class__(spec.e_flags, spec.os_abi, spec.abi_version,
                          (*spec.sections, extra), spec.symbols, spec.comment)
    data = link_shared(spec)
    result = _lift(data)
    carried = [op for op in _code_object(result.module).body.ops
               if isinstance(op, SectionOp) and op.section.data == ".luthier_flags"]
    assert len(carried) == 1 and carried[0].section_flags == flags & ~SHF_ALLOC
    assert emit_code_object(result.module) == data
    reparsed = _code_object(_parse(_text(ModuleOp([result.module]))))
    assert emit_code_object(reparsed) == data


# -- descriptors -------------------------------------------------------------------------------


def _patched(data: bytes, offset: int, new: bytes) -> bytes:
    out = bytearray(data)
    out[offset:offset + len(new)] = new
    return bytes(out)


def test_a_descriptor_without_its_function_is_an_error() -> None:
    data = CALLS.read_bytes()
    code_object = read_elf(data, "calls")
    kernel = code_object.kernels[0]
    strtab = code_object.section(".strtab")
    assert strtab is not None
    table = data[strtab.offset:strtab.offset + strtab.size]
    at = table.index(b"\0" + kernel.name.encode() + b"\0") + 1
    renamed = _patched(data, strtab.offset + at, b"X")
    with pytest.raises(LiftError, match=rf"kernel descriptor {kernel.name}\.kd cannot be "
                                        rf"matched to its code: there is no function "
                                        rf"{kernel.name}$"):
        _lift(renamed)


def test_a_descriptor_pointing_elsewhere_is_an_error() -> None:
    data = CALLS.read_bytes()
    code_object = read_elf(data, "calls")
    kernel = code_object.kernels[0]
    rodata = code_object.section(".rodata")
    assert rodata is not None
    field = rodata.offset + kernel.descriptor_symbol.value - rodata.address + 16
    entry = int.from_bytes(data[field:field + 8], "little", signed=True)
    moved = _patched(data, field, (entry + 0x100).to_bytes(8, "little", signed=True))
    with pytest.raises(LiftError, match=rf"kernel descriptor {kernel.name}\.kd cannot be "
                                        r"matched to its code: its code entry is 0x"):
        _lift(moved)


# -- the ops' syntax and verification ----------------------------------------------------------


_CODE_OBJECT = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, '
                'elf_type = "dyn", e_flags = 1343 : i64, abi_version = 3 : i64}> {\n'
                "  OP\n}\n")


@pytest.mark.parametrize(("op", "message"), [
    ('amdgpu_mc.section ".x" <{section_type = 1 : i64, flags = 0 : i64, data = "zz"}>',
     "section .x: data is not hex"),
    ('amdgpu_mc.section ".x" <{section_type = 8 : i64, flags = 0 : i64, data = "00"}>',
     "section .x: an SHT_NOBITS section has no data"),
    ('amdgpu_mc.section ".x" <{section_type = 1 : i64, flags = 0 : i64, size = 4 : i64}>',
     "section .x: size is for SHT_NOBITS sections"),
    ('amdgpu_mc.section ".x" <{section_type = 1 : i64, flags = 2 : i64, layout = "0"}>',
     "section .x: an allocated section cannot depend on the layout"),
    ('amdgpu_mc.section ".x" <{section_type = 1 : i64, flags = 0 : i64, alignment = 3 : i64}>',
     "section .x: alignment 3 is not a power of two"),
    ('amdgpu_mc.section ".x" <{section_type = 4294967296 : i64, flags = 0 : i64}>',
     "section .x: section_type 4294967296 is not a 32-bit sh_type"),
    ('amdgpu_mc.section ".x" <{section_type = 1 : i64, flags = 0 : i64, alignment = -8 : i64}>',
     "section .x: alignment 18446744073709551608 is not a power of two"),
    ('amdgpu_mc.extern @e <{binding = "LOCAL"}>',
     "@e: binding is one of GLOBAL, WEAK, not 'LOCAL'"),
    ('amdgpu_mc.extern @e <{symbol_type = "SECTION"}>',
     "@e: symbol_type is one of NOTYPE, OBJECT, FUNC, not 'SECTION'"),
    ('amdgpu_mc.extern @e <{visibility = "SECRET"}>',
     "@e: visibility is one of DEFAULT, PROTECTED, HIDDEN, INTERNAL, not 'SECRET'"),
])
def test_the_verifier_refuses(op: str, message: str) -> None:
    module = _parse(_CODE_OBJECT.replace("OP", op))
    with pytest.raises(VerifyException, match=message):
        module.verify()


def test_the_ops_print_as_they_parse() -> None:
    text = _CODE_OBJECT.replace(
        "OP", 'amdgpu_mc.extern @e <{symbol_type = "OBJECT", binding = "WEAK", '
           'visibility = "HIDDEN"}>\n'
           '  amdgpu_mc.section ".debug_str" <{section_type = 1 : i64, flags = 48 : i64, '
           'entry_size = 1 : i64, data = "6100"}>\n'
           '  amdgpu_mc.section ".x" <{section_type = 8 : i64, flags = 0 : i64, '
           'size = 16 : i64, layout = "abc"}>')
    module = _parse(text)
    module.verify()
    printed = _text(module)
    assert _text(_parse(printed)) == printed
    ops = list(_code_object(module).body.ops)
    assert isinstance(ops[1], SectionOp) and ops[1].contents == b"a\0"
    assert isinstance(ops[2], SectionOp) and ops[2].section_size == 16


# -- --report of an identity round trip --------------------------------------------------------


def test_report_says_an_identity_round_trip_has_no_differences(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lift", "--report", "--no-progress", str(CALLS), "-o",
                 str(tmp_path / "out.co")]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == "file: no differences from the input"


def test_file_differences_name_each_difference() -> None:
    """A section, a segment and a symbol that differ are each one line (a file that is not
    the input's size says so too); where sections lie in the file is not a difference."""
    data = CALLS.read_bytes()
    original = read_elf(data, "calls")
    kernel = original.kernels[0]
    symtab = original.section(".symtab")
    assert symtab is not None
    row = next(s for s in original.symbols if s.table == ".symtab" and s.name == kernel.name)
    visibility = symtab.offset + row.index * 24 + 5  # st_other
    changed = _patched(data, visibility, b"\0")  # protected -> default
    rodata = original.section(".rodata")
    assert rodata is not None
    changed = _patched(changed, rodata.offset, b"\xff")
    differences = [str(difference) for difference in
                   file_differences(original, read_elf(changed + b"\0" * 8, "changed"))]
    assert differences == [
        f"file size: {len(data)} bytes, now {len(data) + 8}",
        "section .rodata: bytes differ",
        "section .symtab: bytes differ",
        f"symbol .symtab:{kernel.name}: visibility PROTECTED, now DEFAULT",
    ]


def test_a_relocatable_object_keeps_its_unrelocated_sections() -> None:
    """A compiler's object holds linker hints: ``.note.GNU-stack`` and ``.AMDGPU.csdata``
    (empty, kept) and ``.llvm_addrsig`` (symbol indexes: named in the warning); its debug
    sections, which relocations apply to, would be named too."""
    source = CORPUS / "control_flow.gfx90a.o"
    result = _lift(source.read_bytes(), "in.o")
    assert result.warnings == [
        "not carried: .llvm_addrsig (allocated sections the lifter does not interpret, or "
        "sections that refer to others by index or that relocations apply to)"]
    carried = [op.section.data for op in _code_object(result.module).body.ops
               if isinstance(op, SectionOp)]
    assert carried == [".AMDGPU.csdata", ".comment", ".note.GNU-stack"]  # input order
    out = emit_relocatable(result.module)
    kept = set(_section_names(source.read_bytes())) - {".llvm_addrsig"}
    assert set(_section_names(out)) == kept
