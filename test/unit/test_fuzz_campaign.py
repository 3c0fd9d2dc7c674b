"""A short fuzz campaign over every input surface (test/fuzz/campaign.py): mutants of real
inputs are accepted or refused in one line (exit 1, no output file, input untouched),
never a traceback, a hang, a memory blow-up or a crash. The long campaign runs on demand
(``python test/fuzz/campaign.py --count 10000``); ``LUTHIER_FUZZ_COUNT`` raises this one."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
COUNT = int(os.environ.get("LUTHIER_FUZZ_COUNT", "25"))


def _campaign() -> ModuleType:
    path = ROOT / "test" / "fuzz" / "campaign.py"
    spec = importlib.util.spec_from_file_location("fuzz_campaign", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_campaign"] = module
    spec.loader.exec_module(module)
    return module


def test_short_campaign_finds_nothing() -> None:
    campaign = _campaign()
    surfaces = [*campaign.SURFACES, "lifted-ir"]
    tallies = campaign.campaign(surfaces, COUNT, 20261126, 120.0, 4096, keep=True)
    print(campaign.table(tallies))
    assert set(tallies) == set(surfaces)
    for surface, tally in tallies.items():
        assert tally.runs == COUNT
        failures = {kind: tally.outcomes[kind] for kind in campaign.FAILURES
                    if tally.outcomes[kind]}
        assert not failures, f"{surface}: {failures} (reproducers in build/fuzz/{surface})"
        assert tally.outcomes["refused"], f"{surface}: no mutant was refused"


def test_a_hang_is_cpu_time_spent_or_a_wait_past_four_times_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The campaign's own clock: a run that computes past the limit is a hang (its CPU
    limit ends it), and so is one that waits forever (four times the limit by the clock);
    a run that only waits for a core on a loaded machine is not."""
    campaign = _campaign()
    case = campaign.Case("luthier-opt", [], b"", ".co")

    def spin(argv: list[str]) -> int:
        while True:
            pass

    def block(argv: list[str]) -> int:
        time.sleep(3600)
        return 0

    def quick(argv: list[str]) -> int:
        return 0

    tools: list[tuple[Callable[[list[str]], int], str]] = [
        (spin, "hang"), (block, "hang"), (quick, "accepted")]
    for tool, expected in tools:
        monkeypatch.setattr(campaign, "_main", _returning(tool))
        start = time.monotonic()
        outcome, _ = campaign.run_case(case, tmp_path, 1.0, 4096)
        assert outcome == expected, tool.__name__
        assert time.monotonic() - start < 10


def _returning(tool: Callable[[list[str]], int]) -> Callable[[str], Callable[[list[str]], int]]:
    """A stand-in for the campaign's ``_main``: every tool name runs ``tool``."""
    return lambda name: tool


@pytest.mark.skipif(shutil.which("llvm-readelf-19") is None, reason="needs llvm-readelf-19")
def test_an_accepted_run_whose_output_llvm_readelf_refuses_is_a_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exit 0 is not enough: an ELF output llvm-readelf-19 finds more wrong with than the
    input is ``unreadable-output``; an output as readable as the input is accepted."""
    campaign = _campaign()
    library = (ROOT / "test" / "corpus" / "host" / "libelementwise.so").read_bytes()
    case = campaign.Case("luthier-opt", ["{out}.so"], library, ".so")

    def writing(data: bytes) -> Callable[[list[str]], int]:
        def tool(argv: list[str]) -> int:
            Path(argv[0]).write_bytes(data)
            return 0
        return tool

    for output, expected in ((library[:3000], "unreadable-output"), (library, "accepted")):
        monkeypatch.setattr(campaign, "_main", _returning(writing(output)))
        outcome, _ = campaign.run_case(case, tmp_path, 10.0, 4096)
        assert outcome == expected
    # An output complained of as its input is, with other offsets and sizes, is no worse.
    moved = bytearray(library)
    moved[40:48] = (len(library) + 0x100).to_bytes(8, "little")  # e_shoff past the end
    case = campaign.Case("luthier-opt", ["{out}.so"], bytes(moved), ".so")
    further = bytearray(moved)
    further[40:48] = (len(library) + 0x200).to_bytes(8, "little")
    monkeypatch.setattr(campaign, "_main", _returning(writing(bytes(further))))
    assert campaign.run_case(case, tmp_path, 10.0, 4096)[0] == "accepted"


def test_an_output_llvm_readelf_spins_on_is_a_finding_and_the_campaign_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """llvm-readelf runs under a CPU limit, not a clock one (nice'd beside a test suite, it
    may wait for a core for a minute: that once ended a campaign with TimeoutExpired). One
    that spends its CPU limit on the output, and not on the input, is ``unreadable-output``."""
    campaign = _campaign()
    readelf = tmp_path / "readelf"
    readelf.write_text('#!/bin/sh\ncase "$3" in */output*) while :; do :; done;; esac\nexit 0\n')
    readelf.chmod(0o755)
    monkeypatch.setattr(campaign, "READELF", str(readelf))
    monkeypatch.setattr(campaign, "READELF_CPU_SECONDS", 1)
    library = (ROOT / "test" / "corpus" / "host" / "libelementwise.so").read_bytes()
    case = campaign.Case("luthier-opt", ["{out}.so"], library, ".so")

    def tool(argv: list[str]) -> int:
        Path(argv[0]).write_bytes(library)
        return 0

    monkeypatch.setattr(campaign, "_main", _returning(tool))
    work = tmp_path / "work"
    work.mkdir()
    assert campaign.run_case(case, work, 10.0, 4096)[0] == "unreadable-output"
