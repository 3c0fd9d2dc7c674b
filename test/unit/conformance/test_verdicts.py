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


def test_decoding_verdicts() -> None:
    assert judge_decoding(valid, valid, first_only=False) == DecodeVerdict.AGREE
    # The printed encoding is LLVM's re-encoding: text and size matter, bytes do not.
    assert judge_decoding(valid, Outcome((NOP_OTHER_BYTES,)), first_only=False) == "agree"
    assert judge_decoding(valid, Outcome((NOP1,)), first_only=False) == "disagree"
    assert judge_decoding(valid, Outcome((LONG,)), first_only=False) == "disagree"
    assert judge_decoding(invalid, invalid, first_only=False) == "both-invalid"
    assert judge_decoding(valid, invalid, first_only=False) == "we-invalid-llvm-valid"
    assert judge_decoding(invalid, valid, first_only=False) == "we-valid-llvm-invalid"
    assert judge_decoding(valid, Outcome(failure=Failure("crash", "x")), first_only=False) == (
        "crash"
    )
    assert judge_decoding(valid, Outcome(failure=Failure("timeout", "x")), first_only=False) == (
        "timeout"
    )
    llvm_crashed = Outcome(failure=Failure("crash", "SIGSEGV"))
    assert judge_decoding(llvm_crashed, valid, first_only=False) == "llvm-crash"


def test_whole_sequence_versus_first_instruction() -> None:
    expected = Outcome((NOP, NOP1))
    ours = Outcome((NOP, NOP))
    assert judge_decoding(expected, ours, first_only=False) == "disagree"
    assert judge_decoding(expected, ours, first_only=True) == "agree"
    partial = Outcome((NOP,), (INVALID_AT_4,))
    assert judge_decoding(partial, Outcome((NOP,)), first_only=False) == "disagree"
    assert judge_decoding(partial, partial, first_only=False) == "agree"


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
