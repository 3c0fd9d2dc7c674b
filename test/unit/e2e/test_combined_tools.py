"""Two tools at the same points: every example hook merged with every other (and with itself,
the same insertions twice) instruments a kernel, and in the emulator the kernel computes
what the original does while each tool counts what it counts alone (twice as much for a
tool inserted twice; the launch record is written twice with the same values).

Before the verifier knew that a payload writing a register under ``exec = 1`` (a
once-per-wave atomic) or inside an ``scf.if`` reads back just what it wrote, the second
payload at a point seemed to read the first one's temporaries: every combination with
``opcode_histogram`` or ``memory_trace`` after another tool was refused by
``verify-payloads``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from luthier.drivers.pipeline import instrument_bytes
from luthier.emulator.api import RunResult, load_program, run_kernel
from luthier.frontend.codeobj import read_code_object

from .cases import HOOKS, LAUNCHES, Launch
from .test_instrumented_corpus import TOOL_GLOBALS, check_counters, original_run

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "test" / "corpus" / "kernels"
HOOK_DIR = ROOT / "examples" / "hooks"
TARGET = "gfx90a"
#: A straight-line kernel, one with loops and branches, one whose atomics the hooks see.
CHOSEN = ("elementwise.vector_add", "control_flow.nested_branches", "atomics.atomic_add_int")
PAIRS = [(first, second) for first in HOOKS for second in HOOKS]


def _launch(launch_id: str) -> Launch:
    return next(launch for launch in LAUNCHES if launch.id == launch_id)


def _hooks_text(first: str, second: str) -> str:
    """The two tools in one hooks file; the same tool twice is its insertions twice."""
    text = (HOOK_DIR / f"{first}.mlir").read_text()
    if first == second:
        return text + "".join(line + "\n" for line in text.splitlines()
                              if line.startswith("instr.insert"))
    return text + (HOOK_DIR / f"{second}.mlir").read_text()


@functools.cache
def _instrumented(obj: str, first: str, second: str) -> bytes:
    data = (CORPUS / f"{obj}.{TARGET}.co").read_bytes()
    return instrument_bytes(data, f"{obj}.{TARGET}.co", _hooks_text(first, second))


def _halved(result: RunResult, tool: str) -> RunResult:
    """``result`` with ``tool``'s counters as one insertion would have left them (each
    count even, halved; each traced address recorded twice, once)."""
    counters = dict(result.globals)
    if tool in ("instr_count", "opcode_histogram"):
        for name in TOOL_GLOBALS[tool]:
            values = np.frombuffer(counters[name], np.uint64)
            assert not (values % 2).any(), f"{name}: a count that is not twice another"
            counters[name] = (values // 2).tobytes()
    elif tool == "memory_trace":
        cursor = int(np.frombuffer(counters["trace_cursor"], np.uint64)[0])
        assert cursor % 2 == 0
        recorded = Counter[int](int(address) for address in np.frombuffer(
            counters["trace_buffer"], np.uint64)[:cursor])
        assert all(count % 2 == 0 for count in recorded.values())
        once = [address for address, count in sorted(recorded.items())
                for _ in range(count // 2)]
        buffer = np.zeros(len(counters["trace_buffer"]) // 8, np.uint64)
        buffer[:len(once)] = once
        counters["trace_cursor"] = np.array([cursor // 2], np.uint64).tobytes()
        counters["trace_buffer"] = buffer.tobytes()
    return dataclasses.replace(result, globals=counters)


@pytest.mark.parametrize("launch_id", CHOSEN)
@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a}+{b}" for a, b in PAIRS])
def test_two_tools_at_the_same_points(launch_id: str, first: str, second: str) -> None:
    launch = _launch(launch_id)
    original = original_run(launch, TARGET)
    program = load_program(read_code_object(_instrumented(launch.obj, first, second)))
    both = run_kernel(program, launch.kernel, launch.grid, launch.block, launch.arguments(),
                      dynamic_lds=launch.dynamic_lds)
    for position, (before, after) in enumerate(zip(original.buffers, both.buffers,
                                                   strict=True)):
        assert (before is None) == (after is None), f"argument {position}"
        if before is not None and after is not None:
            assert before.tobytes() == after.tobytes(), f"buffer argument {position} differs"
    for tool in {first, second}:
        seen = _halved(both, tool) if first == second else both
        check_counters(tool, TARGET, launch, original, seen)
