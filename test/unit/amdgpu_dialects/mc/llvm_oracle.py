"""llvm-mc-19's answers on LLVM's MC test corpora, for the MC unit tests.

The answers come from the conformance harness's expectation cache when it is there (the
harness fills it), otherwise from running llvm-mc-19 through the harness's batch runner, so
the tests see exactly what the conformance check sees.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from luthier.conformance.batching import Mode, Outcome
from luthier.conformance.corpus import assembler_corpus, disassembler_corpus
from luthier.conformance.expectation_cache import ExpectationCache, cache_key, tool_version
from luthier.conformance.harness import asm_inputs, disasm_inputs, random_inputs
from luthier.conformance.runner import BatchRunner, ToolCommand

ROOT = Path(__file__).resolve().parents[4]
LLVM_SRC = ROOT / "third_party" / "llvm-19"
CACHE = ExpectationCache(ROOT / "build" / "conformance-cache")
ORACLE = ToolCommand(("llvm-mc-19",))


def available() -> bool:
    return shutil.which("llvm-mc-19") is not None and LLVM_SRC.is_dir()


def _outcomes(mode: Mode, mcpu: str, lines: list[str]) -> list[Outcome]:
    key = cache_key(mode, mcpu, tool_version(ORACLE.argv), lines)
    cached = CACHE.load(mode, mcpu, key, len(lines))
    if cached is not None:
        return cached
    outcomes = BatchRunner(ORACLE, mode, mcpu, jobs=4, batch_size=2000,
                           recovery_budget=None).run(lines)
    CACHE.store(mode, mcpu, key, outcomes)
    return outcomes


def disassembled(mcpu: str) -> list[tuple[bytes, Outcome]]:
    """Every disassembler-corpus word with llvm-mc's outcome for it."""
    words = [(case.data, case.origin) for case in disassembler_corpus(LLVM_SRC)]
    inputs = disasm_inputs(words, mcpu)
    outcomes = _outcomes(Mode.DISASSEMBLE, mcpu, [i.line for i in inputs])
    return [(data, outcome) for (data, _), outcome in zip(words, outcomes, strict=True)]


def assembled(mcpu: str) -> list[tuple[str, Outcome]]:
    """Every assembler-corpus statement with llvm-mc's outcome for it."""
    statements = [(case.statement, case.origin) for case in assembler_corpus(LLVM_SRC)]
    inputs = asm_inputs(statements)
    outcomes = _outcomes(Mode.ASSEMBLE, mcpu, [i.line for i in inputs])
    return [(s, outcome) for (s, _), outcome in zip(statements, outcomes, strict=True)]


def reassembled(mcpu: str, count_per_class: int, seed: int) -> list[tuple[str, Outcome]]:
    """The lines llvm-mc prints for seeded random words of every encoding class of
    ``mcpu`` (the conformance harness's ``random`` inputs), each with llvm-mc's outcome
    when it assembles the line again."""
    inputs = random_inputs(count_per_class, seed, mcpu)
    printed = _outcomes(Mode.DISASSEMBLE, mcpu, [i.line for i in inputs])
    lines = sorted({outcome.instructions[0].text for outcome in printed
                    if outcome.instructions and outcome.instructions[0].text})
    return list(zip(lines, _outcomes(Mode.ASSEMBLE, mcpu, lines), strict=True))
