"""Random integer and float expressions, compiled by clang-19 for every GPU target and for
the host: the kernel run in the emulator gives the host's results bit for bit.

A differential test of the emulator's semantics on the instruction sequences clang
really emits for C (:mod:`.expression_kernels` says how every result is made defined):
8- to 64-bit integer arithmetic, shifts, division and remainder (the GPU has no integer
divider: clang expands them), the high halves of full products, bit counts, reversals,
byte swaps and rotates (``v_bcnt``, ``v_ffbh``/``v_ffbl``, ``v_bfrev``, ``v_perm``,
``v_alignbit``), comparisons and selections, conversions between every pair
of types (``uint64_t`` to ``float`` is a software sequence on the GPU), and ``_Float16``,
``float`` and ``double`` arithmetic with correctly rounded division (``v_div_scale``/
``v_div_fmas``/``v_div_fixup``; halves are divided in f32 and fixed up by
``v_div_fixup_f16``).

Inputs are random 64-bit words with edge values mixed in; a NaN result
matches any NaN (which NaN is not pinned down).

Differences known to be LLVM's, not the emulator's: at -O2, LLVM 19 compiles a 64-bit
unsigned division or remainder whose operands are sign-extended from a narrow type
(``(uint64_t)(int8_t)x / ((uint64_t)(int16_t)y | 1)``) or are negative constants to the
24-bit float division of the low words (``v_rcp_iflag_f32`` ... ``v_and_b32 0x7fff``):
wrong for such values, which are near 2**64. The -O0 code gives the right quotients in the
same emulator. This seed does not generate the pattern.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from luthier.amdgpu_dialects.isa.target import SUPPORTED_TARGETS
from luthier.emulator.api import run_kernel

from .arithmetic_kernels import compile_kernels
from .expression_kernels import INPUTS, TYPES, Expression, expressions, hip_source, host_source

LANES = 64
#: Expressions per kernel, and the depth of each: a few hundred instructions per target.
COUNT, DEPTH = 64, 4
SEED = 20261128

_EDGES = [0, 1, 0xFFFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF,
          0x0000_0000_8000_0000, 0x0000_0000_7F80_0000, 0x7FF0_0000_0000_0000,
          0x0000_0000_0000_0001, 0x3FF0_0000_3F80_0000, 0xC000_0000_C000_0000,
          0x0000_0000_FFFF_FFFF, 0x0010_0000_0080_0000, 0x7FEF_FFFF_7F7F_FFFF]


def _inputs() -> npt.NDArray[np.uint64]:
    rng = np.random.default_rng(SEED)
    words = rng.integers(0, 1 << 64, (LANES, INPUTS), dtype=np.uint64, endpoint=False)
    small = rng.integers(-300, 300, (LANES // 4, INPUTS)).astype(np.int64).view(np.uint64)
    words[LANES // 2: LANES // 2 + LANES // 4] = small  # values that divide and shift evenly
    for lane, word in enumerate(_EDGES):
        words[lane, lane % INPUTS] = word
        words[lane, (lane + 1) % INPUTS] = _EDGES[(lane * 7) % len(_EDGES)]
    return words


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory
         ) -> tuple[list[Expression], dict[str, Path], npt.NDArray[np.uint64]]:
    """The expressions, the kernel for every target, and the host's results."""
    clang = shutil.which("clang++-19")
    if clang is None:
        pytest.skip("clang-19 is not installed (scripts/setup.sh installs it)")
    folder = tmp_path_factory.mktemp("expressions")
    found = expressions(SEED, COUNT, DEPTH)
    kernels = compile_kernels(folder, "expressions", hip_source(found))
    (folder / "host.cpp").write_text(host_source(found, LANES))
    # Each _Float16 operation rounds to half, as the GPU's do (not computed in float).
    subprocess.run([clang, "-x", "c++", "-O1", "-ffp-contract=off", "-Xclang",
                    "-ffloat16-excess-precision=none", "-o", str(folder / "host"),
                    str(folder / "host.cpp")], check=True)
    done = subprocess.run([str(folder / "host")], input=_inputs().tobytes(),
                          capture_output=True, check=True)
    host = np.frombuffer(done.stdout, np.uint64).reshape(LANES, COUNT)
    return found, kernels, host


def _is_nan(kind: str, bits: int) -> bool:
    width = TYPES[kind][0]
    if width == 16:
        return (bits >> 10) & 0x1F == 0x1F and bits & 0x3FF != 0
    if width == 32:
        return (bits >> 23) & 0xFF == 0xFF and bits & 0x7F_FFFF != 0
    return (bits >> 52) & 0x7FF == 0x7FF and bits & ((1 << 52) - 1) != 0


@pytest.mark.parametrize("target", SUPPORTED_TARGETS)
def test_kernel_gives_the_hosts_results(
        case: tuple[list[Expression], dict[str, Path], npt.NDArray[np.uint64]],
        target: str) -> None:
    found, kernels, host = case
    run = run_kernel(kernels[target], "expressions", 1, LANES,
                     [_inputs().reshape(-1), np.zeros(LANES * COUNT, np.uint64)])
    out = run.buffers[1]
    assert out is not None
    got = out.view(np.uint64).reshape(LANES, COUNT)
    wrong: list[str] = []
    for index, expression in enumerate(found):
        is_float = TYPES[expression.type][2]
        for lane in range(LANES):
            mine, theirs = int(got[lane, index]), int(host[lane, index])
            if mine == theirs or (is_float and _is_nan(expression.type, mine)
                                  and _is_nan(expression.type, theirs)):
                continue
            wrong.append(f"expression {index} ({expression.type}) lane {lane}: "
                         f"{mine:#x}, host {theirs:#x}: {expression.text[:300]}")
            break
    assert not wrong, f"{len(wrong)} of {COUNT} expressions differ on {target}:\n" + \
        "\n".join(wrong[:5])
