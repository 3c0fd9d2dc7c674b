"""Verdicts and metrics on hand-made outcomes."""

from __future__ import annotations

from luthier.conformance.batching import Failure, ItemDiagnostic, Outcome
from luthier.conformance.harness import CaseResult, Check, CheckInput, metrics_of
from luthier.conformance.mc_output import PrintedInstruction
from luthier.conformance.verdicts import (
    AssembleVerdict,
    DecodeVerdict,
    judge_assembly,
    judge_decoding,
)

NOP = PrintedInstruction("s_nop 0", ("0x00", "0x00", "0x80", "0xbf"))
NOP_OTHER_BYTES = PrintedInstruction("s_nop 0", ("0x00", "0x01", "0x80", "0xbf"))
NOP1 = PrintedInstruction("s_nop 1", ("0x01", "0x00", "0x80", "0xbf"))
LONG = PrintedInstruction(
    "s_nop 0", ("0x00", "0x00", "0x80", "0xbf", "0x00", "0x00", "0x00", "0x00")
)
INVALID = ItemDiagnostic("warning", "invalid instruction encoding", 0)
INVALID_AT_4 = ItemDiagnostic("warning", "invalid instruction encoding", 4)
ERROR = ItemDiagnostic("error", "invalid instruction", 1)

valid = Outcome((NOP,))
invalid = Outcome((), (INVALID,))


def decode(expected: Outcome, ours: Outcome, size: int = 4, *, first_only: bool = False) -> str:
    """The verdict on a ``size``-byte input."""
    return judge_decoding(expected, ours, input_size=size, first_only=first_only)


def test_decoding_verdicts() -> None:
    assert decode(valid, valid) == DecodeVerdict.AGREE
    # The printed encoding is LLVM's re-encoding: text and size matter, bytes do not.
    assert decode(valid, Outcome((NOP_OTHER_BYTES,))) == "agree"
    assert decode(valid, Outcome((NOP1,))) == "disagree"
    assert decode(invalid, invalid) == "both-invalid"
    assert decode(valid, invalid) == "we-invalid-llvm-valid"
    assert decode(invalid, valid) == "we-valid-llvm-invalid"
    assert decode(valid, Outcome(failure=Failure("crash", "x"))) == "crash"
    assert decode(valid, Outcome(failure=Failure("timeout", "x"))) == "timeout"
    assert decode(Outcome(failure=Failure("crash", "SIGSEGV")), valid) == "llvm-crash"


def test_sizes_are_the_bytes_consumed() -> None:
    # llvm-mc re-encodes s_setpc_b64 with an invalid literal as 4 bytes, having consumed 8.
    setpc = "s_setpc_b64 0x3f717273/*Invalid immediate*/"
    short = PrintedInstruction(setpc, ("0x73", "0x1d", "0x80", "0xbe"))
    full = PrintedInstruction(
        setpc, ("0xff", "0x1d", "0x80", "0xbe", "0x73", "0x72", "0x71", "0x3f")
    )
    assert decode(Outcome((short,)), Outcome((full,)), 8) == "agree"
    # Same text, but one tool stopped after 4 bytes and found the rest invalid.
    partial = Outcome((NOP,), (INVALID_AT_4,))
    assert decode(partial, Outcome((LONG,)), 8) == "disagree"
    assert decode(partial, partial, 8) == "agree"


def test_whole_sequence_versus_first_instruction() -> None:
    expected = Outcome((NOP, NOP1))
    ours = Outcome((NOP, NOP))
    assert decode(expected, ours, 8) == "disagree"
    assert decode(expected, ours, 8, first_only=True) == "agree"
    # The first instruction took the spare dword as a literal in one tool only.
    assert decode(expected, Outcome((LONG,)), 8, first_only=True) == "disagree"


def test_assembly_verdicts() -> None:
    rejected = Outcome((), (ERROR,))
    assert judge_assembly(valid, valid) == AssembleVerdict.IDENTICAL
    assert judge_assembly(valid, Outcome((NOP_OTHER_BYTES,))) == "encoding-differs"
    renamed = PrintedInstruction("s_nop   0x0", NOP.encoding)
    assert judge_assembly(valid, Outcome((renamed,))) == "text-differs"
    assert judge_assembly(valid, Outcome((NOP1,))) == "both-differ"
    assert judge_assembly(valid, rejected) == "we-reject-llvm-accepts"
    assert judge_assembly(rejected, rejected) == "both-reject"
    assert judge_assembly(rejected, valid) == "we-accept-llvm-rejects"
    # An instruction printed together with an error is not accepted.
    assert judge_assembly(valid, Outcome((NOP,), (ERROR,))) == "we-reject-llvm-accepts"
    fixup = PrintedInstruction("s_branch l", ("A", "A", "0x82", "0xbf"), ("fixup A - ...",))
    no_fixup = PrintedInstruction("s_branch l", ("A", "A", "0x82", "0xbf"))
    assert judge_assembly(Outcome((fixup,)), Outcome((no_fixup,))) == "encoding-differs"


def _case(verdict: str, expected: Outcome) -> CaseResult:
    llvm_valid = bool(expected.instructions)
    return CaseResult(CheckInput("x", "t", "SOPP"), verdict, llvm_valid, expected, Outcome())


def test_metrics_exclude_oracle_crashes() -> None:
    crashed = Outcome(failure=Failure("crash", "SIGSEGV"))
    results = [
        _case("agree", valid),
        _case("disagree", valid),
        _case("both-invalid", invalid),
        _case("we-valid-llvm-invalid", invalid),
        _case("llvm-crash", crashed),
    ]
    assert metrics_of(Check.DISASM, results) == {"disasm": 50.0, "disasm-invalid": 50.0}
    assert metrics_of(Check.RANDOM, results) == {
        "random": 50.0,
        "random-valid": 50.0,
        "random-invalid": 50.0,
    }
    assert metrics_of(Check.ASM, [_case("identical", valid), _case("crash", valid)]) == {
        "asm": 50.0
    }
    assert metrics_of(Check.ASM, []) == {"asm": None}
