"""Bad input gives one CodeObjectError whose message names the input and the reason.

Each case damages the sample code object in one documented way (or builds a wrong file) and
checks the reason's wording, so the messages users see stay specific.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from luthier.frontend.codeobj import CodeObjectError, read_code_object

from .conftest import COMMITTED

SAMPLE = next(path for path in COMMITTED if path.name == "vector_add.gfx90a.co")
NAME = "bad.co"

#: ELF header field offsets (Elf64_Ehdr).
E_MACHINE, E_PHOFF, E_SHOFF, E_FLAGS, E_SHNUM = 18, 32, 40, 48, 60


def sample() -> bytearray:
    return bytearray(SAMPLE.read_bytes())


def section_header(data: bytearray, index: int) -> int:
    (shoff,) = struct.unpack_from("<Q", data, E_SHOFF)
    return shoff + 64 * index


def section_index(name: str) -> int:
    code_object = read_code_object(SAMPLE)
    section = code_object.section(name)
    assert section is not None
    return section.index


def put(data: bytearray, offset: int, fmt: str, value: int) -> bytearray:
    struct.pack_into(fmt, data, offset, value)
    return data


def with_note_descsz(data: bytearray) -> bytearray:
    (note_offset,) = struct.unpack_from("<Q", data, section_header(data, 1) + 24)
    return put(data, note_offset + 4, "<I", 0x7FFFFFFF)


def with_bad_msgpack(data: bytearray) -> bytearray:
    (note_offset,) = struct.unpack_from("<Q", data, section_header(data, 1) + 24)
    namesz = struct.unpack_from("<I", data, note_offset)[0]
    desc = note_offset + 12 + (namesz + 3) // 4 * 4
    data[desc] = 0xC1  # never used by msgpack
    return data


def with_kd_outside(data: bytearray) -> bytearray:
    """Point the .kd symbol of .symtab past the end of .rodata."""
    symtab = section_header(data, section_index(".symtab"))
    (offset,) = struct.unpack_from("<Q", data, symtab + 24)
    code_object = read_code_object(SAMPLE)
    kd = next(s for s in code_object.symbols if s.table == ".symtab" and s.name.endswith(".kd"))
    return put(data, offset + 24 * kd.index + 8, "<Q", kd.value + 32)


CASES: list[tuple[str, Callable[[], bytes | bytearray], str]] = [
    ("text", lambda: b"hello, world", "not an ELF file"),
    ("empty", lambda: b"", "not an ELF file"),
    ("header only", lambda: sample()[:40], "truncated file"),
    ("class32", lambda: put(sample(), 4, "<B", 1), "wrong ELF class 1"),
    ("big endian", lambda: put(sample(), 5, "<B", 2), "little endian"),
    ("x86", lambda: put(sample(), E_MACHINE, "<H", 62), "wrong machine 62"),
    ("v3", lambda: put(sample(), 8, "<B", 1), "unsupported code object version"),
    ("v7", lambda: put(sample(), 8, "<B", 5), "unsupported code object version"),
    ("os abi", lambda: put(sample(), 7, "<B", 0), "unsupported OS ABI 0"),
    ("exec", lambda: put(sample(), 16, "<H", 2), "unsupported ELF type 2"),
    ("mach", lambda: put(sample(), E_FLAGS, "<I", 0x54D), "unknown target in e_flags"),
    ("flags", lambda: put(sample(), E_FLAGS, "<I", 0x1053F), "unknown bits"),
    ("shoff", lambda: put(sample(), E_SHOFF, "<Q", 1 << 40), "section header table"),
    ("shnum", lambda: put(sample(), E_SHNUM, "<H", 999), "runs past the end of the file"),
    ("phoff", lambda: put(sample(), E_PHOFF, "<Q", 1 << 33), "program header table"),
    ("truncated", lambda: sample()[:3000], "runs past the end of the file"),
    (
        "section offset",
        lambda: (lambda d: put(d, section_header(d, 7) + 24, "<Q", 1 << 30))(sample()),
        "section [7]",
    ),
    (
        "section size",
        lambda: (lambda d: put(d, section_header(d, 7) + 32, "<Q", 1 << 62))(sample()),
        "section [7]",
    ),
    ("note size", lambda: with_note_descsz(sample()), "truncated note"),
    ("msgpack", lambda: with_bad_msgpack(sample()), "malformed metadata msgpack"),
    ("kd outside", lambda: with_kd_outside(sample()), "kernel descriptor 'vector_add.kd'"),
    (
        "symtab entsize",
        lambda: (lambda d: put(d, section_header(d, section_index(".symtab")) + 56, "<Q", 7))(
            sample()
        ),
        "symbol table .symtab has entry size 7",
    ),
]


@pytest.mark.parametrize(("label", "make", "reason"), CASES, ids=[case[0] for case in CASES])
def test_bad_input(label: str, make: Callable[[], bytes | bytearray], reason: str) -> None:
    with pytest.raises(CodeObjectError) as caught:
        read_code_object(bytes(make()), name=NAME)
    message = str(caught.value)
    assert reason in message, (label, message)
    assert message.startswith(f"{NAME}: ")
    assert "\n" not in message
    assert caught.value.path == NAME


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.co"
    with pytest.raises(CodeObjectError, match="cannot read") as caught:
        read_code_object(missing)
    assert caught.value.path == str(missing)


def test_kernel_lookup_lists_kernels() -> None:
    code_object = read_code_object(SAMPLE)
    assert code_object.kernel("vector_add.kd").name == "vector_add"
    with pytest.raises(CodeObjectError, match=r"no kernel named 'vectoradd'; kernels: vector_add"):
        code_object.kernel("vectoradd")


def test_host_elf_without_fatbin() -> None:
    data = put(sample(), E_MACHINE, "<H", 62)
    with pytest.raises(CodeObjectError, match="wrong machine 62 .*no .hip_fatbin section"):
        read_code_object(bytes(data), name=NAME)


def test_error_pickles() -> None:
    import pickle

    error = CodeObjectError("a.co", "bad\nthing")
    again = pickle.loads(pickle.dumps(error))
    assert (again.path, again.reason, str(again)) == ("a.co", "bad thing", "a.co: bad thing")


def test_lds_variable_symbol() -> None:
    """A symbol in SHN_AMDGPU_LDS is a variable with a named special section, not an error."""
    data = sample()
    symtab = section_header(data, section_index(".symtab"))
    (offset,) = struct.unpack_from("<Q", data, symtab + 24)
    code_object = read_code_object(SAMPLE)
    cuid = next(s for s in code_object.symbols if s.table == ".symtab" and "cuid" in s.name)
    put(data, offset + 24 * cuid.index + 6, "<H", 0xFF00)
    again = read_code_object(bytes(data), name=NAME)
    variable = next(s for s in again.variables if s.name == cuid.name)
    assert variable.section_index == "SHN_AMDGPU_LDS"
