"""The whole harness, run on the tiny tree against llvm-mc-19 itself and against fake tools.

llvm-mc against itself must agree everywhere; the fake tools break known inputs in known ways,
and the counts must say exactly that, with every other input still judged.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from luthier.conformance.cli import main

FakeTool = Callable[..., str]


def run_harness(
    tmp_path: Path, llvm_tree: Path, tool: str, *extra: str
) -> tuple[int, dict[str, Any], str]:
    """Run the CLI; return (exit status, JSON summary, mismatch file text)."""
    summary = tmp_path / "summary.json"
    mismatches = tmp_path / "mismatches.txt"
    status = main(
        [
            "--llvm-src",
            str(llvm_tree),
            "--tool",
            tool,
            "--mcpu",
            "gfx90a",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--json",
            str(summary),
            "--mismatches",
            str(mismatches),
            "--batch-size",
            "4",  # several batches, so that alignment across markers is exercised
            "--random",
            "4",
            "--quiet",
            *extra,
        ]
    )
    data = cast(dict[str, Any], json.loads(summary.read_text())) if summary.exists() else {}
    text = mismatches.read_text() if mismatches.exists() else ""
    return status, data, text


def verdicts(summary: dict[str, Any], check: str) -> dict[str, int]:
    """Verdict counts of one check of gfx90a."""
    return cast(dict[str, int], summary["targets"]["gfx90a"][check]["verdicts"])


def test_llvm_mc_agrees_with_itself(tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str) -> None:
    status, summary, mismatches = run_harness(tmp_path, sample_llvm_tree, llvm_mc)
    assert status == 0
    metrics = summary["metrics"]["gfx90a"]
    assert metrics == {
        "disasm": 100.0,
        "disasm-invalid": 100.0,
        "asm": 100.0,
        "random": 100.0,
        "random-valid": 100.0,
        "random-invalid": 100.0,
    }
    # llvm-mc 19 segfaults on one sample word: listed apart, not scored.
    assert verdicts(summary, "disasm") == {"agree": 10, "both-invalid": 3, "llvm-crash": 1}
    assert verdicts(summary, "asm") == {"identical": 10}
    assert summary["targets"]["gfx90a"]["asm"]["not_run_llvm_rejected"] == 1
    assert "llvm-mc crashed, not scored" in mismatches
    assert "[0xc1,0xa4,0x0a,0x7e]" in mismatches


def test_expectations_come_from_the_cache_the_second_time(
    tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str
) -> None:
    run_harness(tmp_path, sample_llvm_tree, llvm_mc, "--mode", "disasm")
    _, summary, _ = run_harness(tmp_path, sample_llvm_tree, llvm_mc, "--mode", "disasm")
    assert summary["targets"]["gfx90a"]["disasm"]["timing"]["oracle_cached"] is True


def test_wrong_answers_are_counted(
    tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str, fake_tool: FakeTool
) -> None:
    tool = fake_tool(
        "--rename=v_add_=v_sub_",  # text of every v_add
        "--flip-encoding=s_mov_b32",  # bytes of every assembled s_mov_b32
        "--substitute=0xff,0xff,0xff,0xff",  # an invalid word decodes
        "--substitute=0x12345678",  # another instruction entirely
        "--invalidate=0x01,0x00,0x80,0xbe",  # a valid word (s_mov_b32) becomes invalid
        "--invalidate=s_endpgm",  # a valid statement is rejected
    )
    status, summary, mismatches = run_harness(tmp_path, sample_llvm_tree, tool, "--mode", "disasm")
    assert status == 0
    assert verdicts(summary, "disasm") == {
        "agree": 8,
        "disagree": 1,  # v_add_f32_e32 printed as v_sub_f32_e32
        "we-valid-llvm-invalid": 1,
        "we-invalid-llvm-valid": 1,  # s_mov_b32
        "both-invalid": 2,
        "llvm-crash": 1,
    }
    assert summary["metrics"]["gfx90a"]["disasm"] == 80.0
    assert "ours: v_sub_f32_e32 v1, v2, v2" in mismatches
    _, summary, mismatches = run_harness(tmp_path, sample_llvm_tree, tool, "--mode", "asm")
    assert verdicts(summary, "asm") == {
        "identical": 4,
        "text-differs": 2,  # v_add_f32 and v_add_f32_e64
        "encoding-differs": 2,  # two s_mov_b32 lines
        "both-differ": 1,  # v_mov_b32 v0, 0x12345678 assembled as s_nop 1
        "we-reject-llvm-accepts": 1,  # s_endpgm
    }
    assert summary["metrics"]["gfx90a"]["asm"] == 40.0
    assert "=== gfx90a asm SOP1: 2 mismatches" in mismatches


def test_crashes_are_counted_and_do_not_hide_the_rest(
    tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str, fake_tool: FakeTool
) -> None:
    # A Python exception (output flushed) on one word, SIGABRT (output lost) on another.
    tool = fake_tool("--crash-on=0x00,0x00,0x8c,0xbf,0x00", "--abort-on=0x02,0x05,0x02,0x02")
    status, summary, mismatches = run_harness(tmp_path, sample_llvm_tree, tool, "--mode", "disasm")
    assert status == 0
    counts = verdicts(summary, "disasm")
    assert counts == {"agree": 8, "crash": 2, "both-invalid": 3, "llvm-crash": 1}
    assert "Python exception: RuntimeError: fake crash" in mismatches
    assert "killed by SIGABRT" in mismatches
    timing = summary["targets"]["gfx90a"]["disasm"]["timing"]
    assert timing["tool_crashed_processes"] >= 2


def test_a_hang_is_a_timeout_verdict(
    tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str, fake_tool: FakeTool
) -> None:
    tool = fake_tool("--hang-on=s_endpgm")
    status, summary, _ = run_harness(
        tmp_path,
        sample_llvm_tree,
        tool,
        "--mode=asm",
        "--timeout-base=1.5",
        "--timeout-per-input=0",
    )
    assert status == 0
    assert verdicts(summary, "asm") == {"identical": 9, "timeout": 1}


def test_the_crash_budget_bounds_recovery(
    tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str, fake_tool: FakeTool
) -> None:
    tool = fake_tool("--abort-on=0x00,0x00")  # dies on 4 inputs (and never on a marker)
    _, summary, _ = run_harness(
        tmp_path, sample_llvm_tree, tool, "--mode=disasm", "--crash-budget=2"
    )
    counts = verdicts(summary, "disasm")
    assert sum(counts.values()) == 14  # every input still has a verdict
    assert counts["not-isolated"] > 0
    timing = summary["targets"]["gfx90a"]["disasm"]["timing"]
    assert timing["tool_recovery_runs"] <= 2 + 2  # the budget, give or take a racing thread


def test_a_tool_that_cannot_work_is_reported_once(
    tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str
) -> None:
    false = shutil.which("false")
    assert false is not None
    floors = tmp_path / "floors.json"
    floors.write_text(json.dumps({"gfx90a": {"asm": 0.0, "disasm": 50.0}}))
    status, summary, mismatches = run_harness(
        tmp_path, sample_llvm_tree, false, "--mode=disasm", f"--floors={floors}"
    )
    assert status == 1  # below the disasm floor
    assert verdicts(summary, "disasm") == {"unusable": 13, "llvm-crash": 1}
    assert summary["floor_failures"] == ["gfx90a disasm: 0.000% is below the floor 50.0%"]
    assert "tool failed the sync probe" in mismatches


def test_a_missing_tool_is_a_setup_error(
    tmp_path: Path, sample_llvm_tree: Path, llvm_mc: str
) -> None:
    status, _, _ = run_harness(tmp_path, sample_llvm_tree, "/nonexistent/luthier-mc")
    assert status == 2


def test_a_missing_llvm_tree_is_a_setup_error(tmp_path: Path) -> None:
    status, _, _ = run_harness(tmp_path, tmp_path / "nowhere", "llvm-mc-19")
    assert status == 2


def test_llvm_mc_agrees_with_itself_on_real_llvm_tests(
    tmp_path: Path, real_llvm_src: Path, llvm_mc: str
) -> None:
    """A small subset of LLVM's own tests (the gfx90a ones), as the harness will see them."""
    assembler = real_llvm_src / "llvm/test/MC/AMDGPU"
    disassembler = real_llvm_src / "llvm/test/MC/Disassembler/AMDGPU"
    if not assembler.is_dir() or not disassembler.is_dir():
        pytest.skip(f"no LLVM source tree at {real_llvm_src} (scripts/setup.sh extracts it)")
    subset = tmp_path / "llvm"
    for source, pattern in ((assembler, "gfx90a*.s"), (disassembler, "gfx90a*.txt")):
        target = subset / source.relative_to(real_llvm_src)
        target.mkdir(parents=True)
        for path in sorted(source.glob(pattern)):
            shutil.copy(path, target / path.name)
    status, summary, _ = run_harness(tmp_path, subset, llvm_mc, "--batch-size=500")
    assert status == 0
    measured = {value for value in summary["metrics"]["gfx90a"].values() if value is not None}
    assert measured == {100.0}
    assert summary["targets"]["gfx90a"]["asm"]["inputs"] > 500
    assert summary["targets"]["gfx90a"]["disasm"]["inputs"] > 500
