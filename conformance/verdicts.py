"""Judge what the tool under test said about an input against what llvm-mc said.

The comparison rules, in one place so that every mode reports the same thing the same way:

* Text is compared whitespace-normalized (llvm-mc pads the encoding comment to a column).
* Disassembly: the instructions a byte sequence decodes to must match in text and size (the
  printed encoding is LLVM's *re-encoding*, e.g. ``v_nop`` with junk operand bits prints the
  canonical bytes, so requiring equal bytes would test the encoder instead of the decoder);
  an invalid instruction must be reported at the same byte.
* Random words: only the first instruction counts (the extra dword is a possible literal).
* Assembly: printed text, encoding bytes and fixup annotations must all match.
"""

from __future__ import annotations

from enum import StrEnum

from luthier.conformance.batching import Outcome
from luthier.conformance.mc_output import PrintedInstruction


class DecodeVerdict(StrEnum):
    """How the tool's decoding of one input compares with llvm-mc's."""

    AGREE = "agree"  # both decode, identically
    DISAGREE = "disagree"  # both decode, differently
    BOTH_INVALID = "both-invalid"
    WE_INVALID = "we-invalid-llvm-valid"
    WE_VALID = "we-valid-llvm-invalid"  # the bad case: we accept garbage
    CRASH = "crash"
    TIMEOUT = "timeout"
    UNUSABLE = "unusable"  # the tool failed the probe; the input was never run
    NOT_ISOLATED = "not-isolated"  # in a crashing batch, past the crash-recovery budget
    ORACLE_FAILED = "llvm-crash"  # llvm-mc itself crashed: no expectation, not scored


class AssembleVerdict(StrEnum):
    """How the tool's assembly of one line compares with llvm-mc's."""

    IDENTICAL = "identical"
    TEXT_DIFFERS = "text-differs"  # same encoding, different printed text
    ENCODING_DIFFERS = "encoding-differs"
    BOTH_DIFFER = "both-differ"
    WE_REJECT = "we-reject-llvm-accepts"
    BOTH_REJECT = "both-reject"
    WE_ACCEPT = "we-accept-llvm-rejects"
    CRASH = "crash"
    TIMEOUT = "timeout"
    UNUSABLE = "unusable"
    NOT_ISOLATED = "not-isolated"
    ORACLE_FAILED = "llvm-crash"


def _failure_verdict(kind: str) -> str:
    """The verdict for a failure kind of :class:`luthier.conformance.batching.Failure`."""
    return kind if kind in ("timeout", "unusable", "not-isolated") else "crash"


def decoded_shape(outcome: Outcome) -> tuple[tuple[str, int | None], ...]:
    """What must match for a decoded input: each instruction's text and size."""
    return tuple((instruction.text, instruction.size) for instruction in outcome.instructions)


def diagnostic_shape(outcome: Outcome) -> tuple[tuple[str, str, int | None], ...]:
    """What must match of the disassembler warnings: severity, message and byte position."""
    return tuple(
        (diagnostic.severity, diagnostic.message, diagnostic.position)
        for diagnostic in outcome.diagnostics
    )


def judge_decoding(expected: Outcome, ours: Outcome, *, first_only: bool) -> DecodeVerdict:
    """Compare decodings; with ``first_only``, compare just the first instruction."""
    if expected.failure is not None:
        return DecodeVerdict.ORACLE_FAILED
    if ours.failure is not None:
        return DecodeVerdict(_failure_verdict(ours.failure.kind))
    llvm_valid = bool(expected.instructions)
    we_valid = bool(ours.instructions)
    if not llvm_valid:
        return DecodeVerdict.WE_VALID if we_valid else DecodeVerdict.BOTH_INVALID
    if not we_valid:
        return DecodeVerdict.WE_INVALID
    if first_only:
        same = decoded_shape(expected)[0] == decoded_shape(ours)[0]
    else:
        same = decoded_shape(expected) == decoded_shape(ours) and diagnostic_shape(
            expected
        ) == diagnostic_shape(ours)
    return DecodeVerdict.AGREE if same else DecodeVerdict.DISAGREE


def accepted(outcome: Outcome) -> bool:
    """An assembler accepted a line: it printed an instruction and reported no error."""
    return bool(outcome.instructions) and not any(
        diagnostic.severity == "error" for diagnostic in outcome.diagnostics
    )


def _encoding_shape(
    instructions: tuple[PrintedInstruction, ...],
) -> tuple[tuple[tuple[str, ...] | None, tuple[str, ...]], ...]:
    return tuple(
        (
            None if item.encoding is None else tuple(token.lower() for token in item.encoding),
            item.annotations,
        )
        for item in instructions
    )


def judge_assembly(expected: Outcome, ours: Outcome) -> AssembleVerdict:
    """Compare the assembly of one line."""
    if expected.failure is not None:
        return AssembleVerdict.ORACLE_FAILED
    if ours.failure is not None:
        return AssembleVerdict(_failure_verdict(ours.failure.kind))
    llvm_accepts = accepted(expected)
    we_accept = accepted(ours)
    if not llvm_accepts:
        return AssembleVerdict.WE_ACCEPT if we_accept else AssembleVerdict.BOTH_REJECT
    if not we_accept:
        return AssembleVerdict.WE_REJECT
    same_text = [item.text for item in expected.instructions] == [
        item.text for item in ours.instructions
    ]
    same_encoding = _encoding_shape(expected.instructions) == _encoding_shape(ours.instructions)
    if same_text and same_encoding:
        return AssembleVerdict.IDENTICAL
    if same_encoding:
        return AssembleVerdict.TEXT_DIFFERS
    if same_text:
        return AssembleVerdict.ENCODING_DIFFERS
    return AssembleVerdict.BOTH_DIFFER
