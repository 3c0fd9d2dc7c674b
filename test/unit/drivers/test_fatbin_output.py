"""A HIP library instrumented in place: ``luthier-opt lib.so --hooks H -o out/lib.so``.

The host binaries of test/corpus/host (built by its build.sh with clang-19) are instrumented
as a user would, and the output is checked as the HIP runtime and the emulator see it:

* every host section keeps its bytes, but for the pointers to the fat binary, which now
  point at the new bundles (and the old fat binary's bytes are zeroed);
* each bundle lists the same entries; an instrumented entry is what ``-o X.co`` writes for
  it alone; an entry not selected keeps its bytes;
* the dynamic loader, loading the output with a stand-in HIP runtime, registers the new
  bundles; the emulator runs the instrumented kernels with exact counters.
"""

from __future__ import annotations

import io
import os
import platform
import shutil
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile  # pyright: ignore[reportMissingTypeStubs]

from luthier.emulator.api import RunResult, load_program, run_kernel
from luthier.frontend.codeobj.bundle import FATBIN_SECTION, fatbin_section, split_fatbin

ROOT = Path(__file__).resolve().parents[3]
HOST = ROOT / "test" / "corpus" / "host"
HOOK = ROOT / "examples" / "hooks" / "instr_count.mlir"
#: Each host binary of the corpus, by what it exercises.
BINARIES = ["libelementwise.so", "libelementwise.zstd.so", "libelementwise.bfd.so",
            "libtwo.so", "elementwise.exe", "elementwise.host.o"]
#: Sections whose bytes may change: the fat binary and what points at it.
POINTING = {".hipFatBinSegment", ".rela.dyn", ".symtab", ".dynsym", ".rela.hipFatBinSegment"}


def _opt(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["luthier-opt", *map(str, args), "--no-progress"],
                          capture_output=True, text=True)


Instrument = Callable[..., Path]


@pytest.fixture(scope="module")
def instrumented(tmp_path_factory: pytest.TempPathFactory) -> Instrument:
    """``instrumented(name, *flags)``: the corpus's host binary ``name`` instrumented with
    instr_count (and ``flags``), as a user would do it; each once per module."""
    folder = tmp_path_factory.mktemp("fatbin")
    done: dict[tuple[str, ...], Path] = {}

    def instrument(name: str, *flags: str) -> Path:
        key = (name, *flags)
        if key not in done:
            path = folder / f"{len(done)}.{name}"
            result = _opt(HOST / name, "--hooks", HOOK, "--inline-hooks", "--emit-preamble",
                          "--emit=host", "-o", path, *flags)
            assert result.returncode == 0, result.stderr
            done[key] = path
        return done[key]

    return instrument


def _sections(data: bytes) -> dict[str, tuple[int, int, bytes]]:
    """Name -> (address, file offset, bytes) of every section."""
    elf = cast(Any, ELFFile(io.BytesIO(data)))
    return {section.name: (int(section["sh_addr"]), int(section["sh_offset"]),
                           b"" if section["sh_type"] == "SHT_NOBITS" else bytes(section.data()))
            for section in elf.iter_sections()}


def _fatbin_range(data: bytes) -> tuple[int, int, int]:
    """Address, file offset and size of ``.hip_fatbin``."""
    elf = cast(Any, ELFFile(io.BytesIO(data)))
    section = elf.get_section_by_name(FATBIN_SECTION)
    return int(section["sh_addr"]), int(section["sh_offset"]), int(section["sh_size"])


@pytest.mark.parametrize("name", BINARIES)
def test_host_sections_keep_their_bytes_but_the_pointers_to_the_fat_binary(
        name: str, instrumented: Instrument) -> None:
    before = (HOST / name).read_bytes()
    after = instrumented(name).read_bytes()
    old_sections, new_sections = _sections(before), _sections(after)
    assert list(old_sections) == list(new_sections)
    old_address, old_offset, old_size = _fatbin_range(before)
    new_address, _, new_size = _fatbin_range(after)
    assert new_size > old_size  # instrumented code is larger
    relocatable = name.endswith(".o")
    changed: list[str] = []
    for section, (address, offset, old_bytes) in old_sections.items():
        if section == FATBIN_SECTION:
            continue
        new_address_of, new_offset_of, new_bytes = new_sections[section]
        assert (new_address_of, new_offset_of) == (address, offset), section
        if old_bytes == new_bytes:
            continue
        changed.append(section)
        assert section in POINTING, f"{section} changed"
        assert len(old_bytes) == len(new_bytes)
        # Only aligned 8-byte words that pointed into the old fat binary changed, each to
        # a place in the new one (offsets within the section for a relocatable object).
        base_old, base_new = (0, 0) if relocatable else (old_address, new_address)
        for at in range(0, len(old_bytes) - 7, 8):
            old_word, = struct.unpack_from("<Q", old_bytes, at)
            new_word, = struct.unpack_from("<Q", new_bytes, at)
            if old_word != new_word:
                assert base_old <= old_word <= base_old + old_size, (section, hex(at))
                assert base_new <= new_word <= base_new + new_size, (section, hex(at))
    if not relocatable:
        # The wrapper's pointer (a RELATIVE relocation's addend, or the pointer itself in
        # a position-dependent executable) follows the fat binary. (In an object file the
        # relocations are against the section's start, which the one bundle keeps.)
        assert changed, "nothing points at the new fat binary"
        # The old fat binary's bytes are zeroed: no loader finds the uninstrumented code.
        assert after[old_offset : old_offset + old_size] == bytes(old_size)


@pytest.mark.parametrize("name", BINARIES)
def test_each_bundle_lists_the_same_entries(name: str, instrumented: Instrument) -> None:
    before = split_fatbin(fatbin_section((HOST / name).read_bytes(), name) or b"", name)
    after = split_fatbin(fatbin_section(instrumented(name).read_bytes(), name) or b"", name)
    assert [[e.id for e in b.entries] for b in after] == \
        [[e.id for e in b.entries] for b in before]
    assert [b.compression for b in after] == [b.compression for b in before]
    for old, new in zip(before, after, strict=True):
        for old_entry, new_entry in zip(old.entries, new.entries, strict=True):
            # Every device entry was instrumented, the empty host entry kept.
            assert (old_entry.data == new_entry.data) == (not old_entry.is_device)


def _entry(path: Path, bundle: int, target: str) -> bytes:
    data = path.read_bytes()
    bundles = split_fatbin(fatbin_section(data, path.name) or b"", path.name)
    return next(e.data for e in bundles[bundle].entries if e.target_id == target)


def test_an_instrumented_entry_is_what_luthier_opt_writes_for_it_alone(
        tmp_path: Path, instrumented: Instrument) -> None:
    alone = tmp_path / "alone.co"
    entry = _entry(HOST / "libelementwise.so", 0, "gfx942")
    (tmp_path / "entry.co").write_bytes(entry)
    done = _opt("--lift", "--inline-hooks", "--emit-preamble", tmp_path / "entry.co",
                "--hooks", HOOK, "-o", alone)
    assert done.returncode == 0, done.stderr
    assert _entry(instrumented("libelementwise.so"), 0, "gfx942") == alone.read_bytes()


def test_offload_arch_leaves_the_other_entries_byte_identical(instrumented: Instrument) -> None:
    path = instrumented("libtwo.so", "--offload-arch", "gfx90a")
    for bundle in (0, 1):
        assert _entry(path, bundle, "gfx942") == _entry(HOST / "libtwo.so", bundle, "gfx942")
        assert _entry(path, bundle, "gfx90a") != _entry(HOST / "libtwo.so", bundle, "gfx90a")


def _run(path: Path, kernel: str, args: list[Any], grid: int,
         target: str = "gfx90a") -> RunResult:
    """Run ``kernel`` of the ``target`` entry of the host binary ``path``."""
    program = load_program(path, offload_arch=target, kernel=kernel)
    return run_kernel(program, kernel, grid, 256, args)


def _waves(result: RunResult) -> int:
    """instr_count's per-wave count: 0 for a code object without it."""
    if "instr_count_wave" not in result.globals:
        return 0
    return int(result.global_values("instr_count_wave", np.uint64)[0])


def _vector_add_args() -> list[Any]:
    return [np.arange(1024, dtype=np.float32), np.arange(1024, dtype=np.float32) * 3,
            np.zeros(1024, dtype=np.float32), 1000]


def _reduce_args() -> list[Any]:
    return [np.arange(256, dtype=np.float32), np.zeros(1, dtype=np.float32), 256]


@pytest.mark.parametrize(("kernel", "args", "grid"), [("vector_add", _vector_add_args(), 4),
                                                      ("block_reduce_sum", _reduce_args(), 1)])
def test_the_emulator_counts_exactly_in_every_translation_unit(
        kernel: str, args: list[Any], grid: int, instrumented: Instrument) -> None:
    """vector_add is in libtwo.so's first bundle, block_reduce_sum in its second: each
    instrumented kernel computes what the original does and counts every instruction the
    original ran."""
    original = _run(HOST / "libtwo.so", kernel, args, grid)
    counted = _run(instrumented("libtwo.so"), kernel, args, grid)
    assert _waves(original) == 0
    assert _waves(counted) == original.instructions > 0
    for before, after in zip(original.buffers, counted.buffers, strict=True):
        assert (before is None) == (after is None)
        if before is not None and after is not None:
            assert np.array_equal(before, after)


def test_kernel_restricts_the_hooks_to_the_named_kernels(instrumented: Instrument) -> None:
    path = instrumented("libelementwise.so", "--kernel", "saxpy")
    original = _run(HOST / "libelementwise.so", "vector_add", _vector_add_args(), 4)
    uncounted = _run(path, "vector_add", _vector_add_args(), 4)
    assert _waves(uncounted) == 0
    assert uncounted.instructions == original.instructions
    saxpy = [np.float32(2.0), np.arange(1024, dtype=np.float32),
             np.ones(1024, dtype=np.float32), 1000]
    assert _waves(_run(path, "saxpy", saxpy, 4)) == \
        _run(HOST / "libelementwise.so", "saxpy", saxpy, 4).instructions


def test_a_target_without_tables_is_left_as_it_was(instrumented: Instrument) -> None:
    path = instrumented("libelementwise.gfx1150.so")
    library = HOST / "libelementwise.gfx1150.so"
    assert _entry(path, 0, "gfx1150") == _entry(library, 0, "gfx1150")
    assert _entry(path, 0, "gfx90a") != _entry(library, 0, "gfx90a")
    original = _run(library, "vector_add", _vector_add_args(), 4)
    counted = _run(path, "vector_add", _vector_add_args(), 4)
    assert _waves(counted) == original.instructions


@pytest.mark.parametrize("target", ["gfx90a", "gfx1030"])
def test_cdna_and_rdna_entries_are_both_instrumented(instrumented: Instrument,
                                                     target: str) -> None:
    """gfx1030 in wave32: 256 work-items are 8 waves per workgroup, each counted."""
    path = instrumented("libelementwise.rdna.so")
    library = HOST / "libelementwise.rdna.so"
    assert _entry(path, 0, target) != _entry(library, 0, target)
    original = _run(library, "vector_add", _vector_add_args(), 4, target)
    counted = _run(path, "vector_add", _vector_add_args(), 4, target)
    assert _waves(counted) == original.instructions > 0
    assert counted.buffers[2] is not None and original.buffers[2] is not None
    assert counted.buffers[2].tobytes() == original.buffers[2].tobytes()


@pytest.mark.parametrize("name", BINARIES)
def test_the_identity_round_trip_gives_the_file_back(name: str, tmp_path: Path) -> None:
    out = tmp_path / name
    done = _opt(HOST / name, "--emit=host", "-o", out)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == (HOST / name).read_bytes()


def test_a_fat_binary_is_written_as_a_bundle_file(tmp_path: Path,
                                                 instrumented: Instrument) -> None:
    out = tmp_path / "elementwise.hipfb"
    done = _opt(HOST / "libelementwise.zstd.so", "--hooks", HOOK, "--inline-hooks",
                "--emit-preamble", "-o", out)
    assert done.returncode == 0, done.stderr
    section = fatbin_section(instrumented("libelementwise.zstd.so").read_bytes(), "x")
    assert out.read_bytes() == section
    assert out.read_bytes().startswith(b"CCOB")


needs_loader = pytest.mark.skipif(
    platform.machine() != "x86_64" or sys.platform != "linux",
    reason="the corpus's host binaries are x86-64 Linux ones")


def _registered(run: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> list[bytes]:
    """The bundles the host binary's module constructor registers, as the stand-in HIP
    runtime (stub_runtime.c) saw them."""
    prefix = tmp_path / "registered"
    done = subprocess.run(run, env={**os.environ, **(env or {}),
                                    "LUTHIER_FATBIN_DUMP": str(prefix)},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [path.read_bytes() for path in sorted(tmp_path.glob("registered.*"))]


@needs_loader
@pytest.mark.parametrize("name", [n for n in BINARIES if n.endswith(".so")])
def test_the_dynamic_loader_registers_the_new_bundles(name: str, tmp_path: Path,
                                                      instrumented: Instrument) -> None:
    library = instrumented(name)
    load = [sys.executable, "-c", "import ctypes, sys; "
            "ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL); ctypes.CDLL(sys.argv[2])",
            str(HOST / "libstub_runtime.so"), str(library)]
    data = library.read_bytes()
    fatbin = fatbin_section(data, name) or b""
    expected = [fatbin[b.start : b.start + b.size] for b in split_fatbin(fatbin, name)]
    assert _registered(load, tmp_path) == expected


@needs_loader
def test_an_instrumented_executable_runs_and_registers_the_new_bundle(
        tmp_path: Path, instrumented: Instrument) -> None:
    program = instrumented("elementwise.exe")
    assert os.access(program, os.X_OK)  # the output keeps the input's execute permission
    fatbin = fatbin_section(program.read_bytes(), "exe") or b""
    registered = _registered([str(program)], tmp_path, {"LD_LIBRARY_PATH": str(HOST)})
    assert registered == [fatbin[: split_fatbin(fatbin, "exe")[0].size]]


@needs_loader
@pytest.mark.skipif(shutil.which("clang-19") is None, reason="clang-19 links the object")
def test_an_instrumented_relocatable_object_links_into_a_library_that_registers_it(
        tmp_path: Path, instrumented: Instrument) -> None:
    library = tmp_path / "relinked.so"
    subprocess.run(["clang-19", "-fuse-ld=lld", "-shared", "-o", str(library),
                    str(instrumented("elementwise.host.o"))], check=True)
    load = [sys.executable, "-c", "import ctypes, sys; "
            "ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL); ctypes.CDLL(sys.argv[2])",
            str(HOST / "libstub_runtime.so"), str(library)]
    fatbin = fatbin_section(instrumented("elementwise.host.o").read_bytes(), "o") or b""
    assert _registered(load, tmp_path) == [fatbin[: split_fatbin(fatbin, "o")[0].size]]


@pytest.mark.skipif(shutil.which("clang-19") is None, reason="build.sh needs clang-19")
def test_the_host_corpus_is_current() -> None:
    done = subprocess.run(["bash", str(HOST / "build.sh"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, f"the host corpus is stale, run build.sh:\n{done.stderr}"
