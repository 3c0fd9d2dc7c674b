"""Judge what the tool under test said about an input against what llvm-mc said.

The comparison rules, in one place so that every mode reports the same thing the same way:

* Text is compared whitespace-normalized (llvm-mc pads the encoding comment to a column).
* Disassembly: the instructions a byte sequence decodes to must match in text and size, and
  an invalid instruction must be reported at the same byte. "Size" means the bytes an
  instruction consumed. llvm-mc does not print that: its encoding comment is the instruction
  *re-encoded* by LLVM's code emitter, which is usually the input (then its length is the
  size) but not always: ``v_nop`` with junk operand bits prints canonical bytes, and
  ``s_setpc_b64`` with an (invalid) literal prints 4 bytes for the 8 it consumed. So sizes are
  taken from the printed encodings only when these add up to the bytes the group consumed
  (its length, or the position of the invalid instruction); otherwise a lone instruction's
  size is that total, and several instructions' sizes are unknown and not compared.
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


def consumed_bytes(outcome: Outcome, input_size: int) -> int:
    """Where decoding of a ``[...]`` group stopped: at its first invalid instruction, or end."""
    for diagnostic in outcome.diagnostics:
        if "invalid" in diagnostic.message and diagnostic.position is not None:
            return diagnostic.position
    return input_size


def instruction_sizes(outcome: Outcome, input_size: int) -> tuple[int | None, ...]:
    """The bytes each decoded instruction consumed, None where that cannot be told."""
    printed = [instruction.size for instruction in outcome.instructions]
    consumed = consumed_bytes(outcome, input_size)
    known = [size for size in printed if size is not None]
    if len(known) == len(printed) and sum(known) == consumed:
        return tuple(known)
    if len(printed) == 1:
        return (consumed,)
    return tuple(None for _ in printed)


def _sizes_match(ours: tuple[int | None, ...], expected: tuple[int | None, ...]) -> bool:
    return len(ours) == len(expected) and all(
        a is None or b is None or a == b for a, b in zip(ours, expected, strict=True)
    )


def diagnostic_shape(outcome: Outcome) -> tuple[tuple[str, str, int | None], ...]:
    """What must match of the disassembler warnings: severity, message and byte position."""
    return tuple(
        (diagnostic.severity, diagnostic.message, diagnostic.position)
        for diagnostic in outcome.diagnostics
    )


def judge_decoding(
    expected: Outcome, ours: Outcome, *, input_size: int, first_only: bool
) -> DecodeVerdict:
    """Compare decodings of a group of ``input_size`` bytes; with ``first_only``, compare just
    the first instruction (text and size)."""
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
    expected_sizes = instruction_sizes(expected, input_size)
    our_sizes = instruction_sizes(ours, input_size)
    if first_only:
        same = expected.instructions[0].text == ours.instructions[0].text and _sizes_match(
            expected_sizes[:1], our_sizes[:1]
        )
    else:
        same = (
            [item.text for item in expected.instructions]
            == [item.text for item in ours.instructions]
            and _sizes_match(expected_sizes, our_sizes)
            and diagnostic_shape(expected) == diagnostic_shape(ours)
        )
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
