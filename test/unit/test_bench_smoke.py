"""The decode/print benchmark runs, and luthier agrees with llvm-objdump on its code objects.

Two checks:

* the benchmark script (``bench/bench_decode.py``) runs end to end on a tiny input with one
  run and writes its JSON; it is a measurement script, so only that it works is asserted,
  never a speed;
* a differential test on real compiler output: every instruction of every function of the
  benchmark corpus (``test/corpus/bench/kernels.<target>.co``, about ten thousand
  instructions per target: MFMA, DPP, LDS, atomics, scratch, 64-bit math...) decodes to the
  same bytes and prints the same text as ``llvm-objdump-19 -d`` shows for it.

The differential test reads the ELF itself rather than importing the benchmark, so that a bug
in the benchmark's function extraction cannot hide a disagreement.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from elftools.elf.elffile import ELFFile  # pyright: ignore[reportMissingTypeStubs]

from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "bench_decode.py"
CORPUS = ROOT / "test" / "corpus" / "bench"
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"
OBJDUMP = "llvm-objdump-19"
CODE_OBJECTS = sorted(CORPUS.glob("kernels.*.co"))

#: ``<text>  // <ADDRESS>: <WORDS> [<sym+0xoff>]``: an instruction line of ``llvm-objdump -d``.
#: The ``<sym+0xoff>`` comment is there for branches: the target, resolved symbolically.
OBJDUMP_LINE = re.compile(
    r"^\s+(?P<text>\S.*?)\s*//\s*(?P<address>[0-9A-Fa-f]+):(?P<words>(?:\s+[0-9A-Fa-f]{8})+)"
    r"(?:\s*<(?P<symbol>[^>+]+)(?:\+0x(?P<offset>[0-9a-fA-F]+))?>)?\s*$"
)

needs_objdump = pytest.mark.skipif(
    shutil.which(OBJDUMP) is None, reason=f"{OBJDUMP} is not installed (scripts/setup.sh)"
)


@dataclass(frozen=True)
class ObjdumpInstruction:
    """What llvm-objdump shows for one instruction."""

    text: str
    encoding: bytes
    #: The branch target llvm-objdump resolved, as (symbol, offset), if it printed one.
    target: tuple[str, int] | None


def objdump_instructions(path: Path, mcpu: str) -> dict[int, ObjdumpInstruction]:
    """llvm-objdump's instructions by address, text normalised to single spaces."""
    output = subprocess.run(
        [OBJDUMP, "-d", f"--mcpu={mcpu}", str(path)], check=True, capture_output=True, text=True
    ).stdout
    found: dict[int, ObjdumpInstruction] = {}
    for line in output.splitlines():
        match = OBJDUMP_LINE.match(line)
        if match is None:
            continue
        encoding = b"".join(int(w, 16).to_bytes(4, "little") for w in match["words"].split())
        target = None
        if match["symbol"] is not None:
            target = (match["symbol"], int(match["offset"] or "0", 16))
        found[int(match["address"], 16)] = ObjdumpInstruction(
            " ".join(match["text"].split()), encoding, target
        )
    return found


def function_symbols(path: Path) -> tuple[list[tuple[str, int, bytes]], dict[str, int]]:
    """(name, address, bytes) of each sized function in ``.text``; every symbol's address."""
    with path.open("rb") as stream:
        elf = cast(Any, ELFFile(stream))
        text = elf.get_section_by_name(".text")
        base, data = int(text["sh_addr"]), bytes(text.data())
        text_index = int(elf.get_section_index(".text"))
        functions: list[tuple[str, int, bytes]] = []
        addresses: dict[str, int] = {}
        for symbol in elf.get_section_by_name(".symtab").iter_symbols():
            name, value, size = str(symbol.name), int(symbol["st_value"]), int(symbol["st_size"])
            addresses[name] = value
            if symbol["st_info"]["type"] == "STT_FUNC" and symbol["st_shndx"] == text_index \
                    and size > 0:
                functions.append((name, value, data[value - base : value - base + size]))
    return sorted(functions, key=lambda f: f[1]), addresses


def test_bench_code_objects_are_committed() -> None:
    assert {path.name for path in CODE_OBJECTS} >= {"kernels.gfx90a.co", "kernels.gfx942.co"}
    for path in CODE_OBJECTS:
        assert path.stat().st_size < 1 << 20, f"{path.name} should stay under 1 MB"


@pytest.mark.skipif(shutil.which("clang-19") is None, reason="clang-19 is not installed")
def test_bench_code_objects_match_their_source() -> None:
    """The committed objects are what build.sh makes of kernels.hip, byte for byte."""
    run = subprocess.run(["bash", str(CORPUS / "build.sh"), "--check"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr + "\nrun test/corpus/bench/build.sh"


@pytest.mark.skipif(shutil.which("clang-19") is None, reason="clang-19 is not installed")
def test_branchy_code_objects_match_their_generator() -> None:
    """The committed relaxation kernels (branchy.<size>.gfx90a.co) are what
    build_branchy.sh makes of gen_branchy.py, byte for byte: bench_relaxation.py measures
    what the generator describes."""
    run = subprocess.run(["bash", str(CORPUS / "build_branchy.sh"), "--check"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr
                                 + "\nrun test/corpus/bench/build_branchy.sh")


def test_benchmark_runs_on_a_tiny_input(tmp_path: Path) -> None:
    report = tmp_path / "bench.json"
    command = [sys.executable, str(BENCH), "--runs", "1", "--top", "3",
               "--input", f"gfx90a={SAMPLE}", "--json", str(report)]
    if shutil.which(OBJDUMP) is None:
        command.append("--no-objdump")
    else:
        command += ["--objdump-repeat", "2"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "dec+print" in run.stdout
    document = json.loads(report.read_text())
    (result,) = document["results"]
    assert result["target"] == "gfx90a"
    assert result["instructions"] > 10
    assert result["profile_by_own"], "the profile should list functions"
    for clock in ("wall", "cpu"):
        figures = result[clock]
        assert figures["decode_rate"] > 0 and figures["decode_print_rate"] > 0
        if shutil.which(OBJDUMP) is not None:
            assert figures["ratio"] > 0
    if shutil.which(OBJDUMP) is not None:
        assert result["objdump_instructions"] >= result["instructions"]


LIFT_BENCH = ROOT / "bench" / "bench_lift.py"
BIG_OBJECT = CORPUS / "big_object.py"


def test_lift_benchmark_reports_the_round_trip_and_the_scaling(tmp_path: Path) -> None:
    """bench_lift.py measures ``luthier-opt --lift X -o Y`` in a child (CPU, peak memory,
    same bytes as emitting in-process) and prints how time grows with size; only that the
    figures are there is asserted, never a speed."""
    report = tmp_path / "lift.json"
    small = ROOT / "test" / "corpus" / "kernels" / "elementwise.gfx90a.co"
    command = [sys.executable, str(LIFT_BENCH), "--runs", "1", "--input", str(small),
               "--scaling", "--no-big", "--json", str(report)]
    if shutil.which(OBJDUMP) is None:
        command.append("--no-objdump")
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "round trip (luthier-opt --lift X -o Y" in run.stdout
    assert "output: the same bytes as emission in this process" in run.stdout
    assert "how time grows with size" in run.stdout
    assert "growth exponent" in run.stdout
    document = json.loads(report.read_text())
    (result,) = document["results"]
    assert result["round_trip_cpu"] > 0 and result["round_trip_identical"] is True
    rows = document["scaling"]
    assert len(rows) >= 2
    assert [row["instructions"] for row in rows] == sorted(row["instructions"] for row in rows)


def test_big_object_generator_scales_with_its_arguments() -> None:
    """The big object's HIP source (built on demand, not committed) grows with the kernel
    and step counts, and is the same text every time (its cache key)."""
    spec = importlib.util.spec_from_file_location("big_object", BIG_OBJECT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    hip_source = cast(Callable[[int, int], str], module.hip_source)
    small, larger = hip_source(2, 10), hip_source(2, 40)
    assert small == hip_source(2, 10)
    assert small.count("__global__ void big_") == 2
    assert hip_source(5, 10).count("__global__ void big_") == 5
    assert len(larger) > 3 * len(small) // 2


@needs_objdump
@pytest.mark.parametrize("code_object", CODE_OBJECTS, ids=[path.name for path in CODE_OBJECTS])
def test_decode_and_print_agree_with_objdump(code_object: Path) -> None:
    """Instruction by instruction over every function: same boundaries, bytes and text.

    What is compared and what is not:

    * only bytes inside ``STT_FUNC`` symbols: llvm-objdump also disassembles the ``s_nop``
      padding between functions (alignment to 256 bytes), which no function executes and
      the benchmark does not decode;
    * the text before ``//``: llvm-objdump appends the address and the instruction words
      (compared separately with the bytes luthier consumed) and, for branches, the target
      as ``<symbol+offset>``. Branch operands themselves are printed by both as the raw
      signed dword offset, so they compare as text; the symbolic target is checked against
      the address luthier's decoded offset gives (address + 4 + 4 * simm16).
    """
    mcpu = code_object.name.split(".")[1]
    decoder, printer = decoder_for(mcpu), printer_for(mcpu)
    expected = objdump_instructions(code_object, mcpu)
    functions, symbols = function_symbols(code_object)
    mismatches: list[str] = []
    checked = 0
    for name, start, data in functions:
        offset = 0
        while offset < len(data):
            address = start + offset
            want = expected.get(address)
            if want is None:
                mismatches.append(f"{name}+{offset:#x}: llvm-objdump has no instruction here")
                break
            inst = decoder.decode(data, offset, address)
            text = " ".join(printer.print(inst).split())
            if inst.encoding != want.encoding:
                mismatches.append(f"{name}+{offset:#x}: luthier consumed "
                                  f"{inst.encoding.hex()}, llvm-objdump {want.encoding.hex()}")
            if text != want.text:
                mismatches.append(f"{name}+{offset:#x}: {text!r} != {want.text!r}")
            if want.target is not None and inst.desc.has("simm16"):
                simm16 = inst.operand("simm16")
                assert isinstance(simm16, int)
                simm16 = simm16 - (1 << 16) if simm16 & 0x8000 else simm16
                target_symbol, target_offset = want.target
                if address + 4 + 4 * simm16 != symbols[target_symbol] + target_offset:
                    mismatches.append(f"{name}+{offset:#x}: branch target differs from "
                                      f"<{target_symbol}+{target_offset:#x}>")
            checked += 1
            offset += inst.size
    assert not mismatches, f"{len(mismatches)} of {checked} differ:\n" + "\n".join(
        mismatches[:40])
    assert checked > 5000, "the corpus should hold several thousand instructions"


@needs_objdump
@pytest.mark.parametrize("code_object", CODE_OBJECTS, ids=[path.name for path in CODE_OBJECTS])
def test_corpus_covers_the_common_encoding_classes(code_object: Path) -> None:
    """The corpus is only a useful benchmark and oracle if the kernels still compile to these."""
    mcpu = code_object.name.split(".")[1]
    mnemonics = {inst.text.split()[0] for inst in objdump_instructions(code_object, mcpu).values()}

    def has(pattern: str) -> bool:
        return any(re.search(pattern, mnemonic) for mnemonic in mnemonics)

    for pattern in (r"^s_load_", r"^s_cbranch_", r"^v_mfma_", r"_dpp$", r"_sdwa$", r"^v_pk_",
                    r"^ds_read2_", r"^ds_bpermute_", r"^ds_(add|max)_", r"^global_atomic_",
                    r"^global_load_", r"_e64$", r"^v_fma_f64", r"^(buffer|scratch)_store_"):
        assert has(pattern), f"no instruction matches {pattern} in {code_object.name}"


def test_startup_benchmark_runs() -> None:
    """bench/bench_startup.py times each start-up case and prints a row for each."""
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_startup.py"), "--runs",
                          "1", "--importtime"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    for label in ("luthier-opt --help", "luthier-mc one-word assembly",
                  "luthier-mc one-word disassembly", "slowest imports of"):
        assert label in run.stdout
    rows = [line for line in run.stdout.splitlines() if line.startswith("luthier-")]
    assert len(rows) == 3 and all(" ms " in row for row in rows)
