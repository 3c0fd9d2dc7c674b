"""Shared fixtures: a tiny hand-made LLVM test tree, the fake tool, and where LLVM's tree is.

The tiny tree holds the awkward cases on purpose: inputs that print the same text as the
harness's sync markers, a byte sequence llvm-mc 19 segfaults on, a truncated instruction, a
two-instruction line, an instruction with a fixup, directive blocks and labels to drop.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FAKE_MC = Path(__file__).resolve().parent / "fake_mc.py"

DISASSEMBLER_SAMPLE = """\
# RUN: llvm-mc -triple=amdgcn -mcpu=gfx90a -disassemble -show-encoding %s | FileCheck %s
# CHECK: s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0) ; encoding: [0x00,0x00,0x8c,0xbf]
0x00,0x40,0x80,0xbf  # s_nop 0x4000: prints like the marker that follows it in a batch
0x00,0x00,0x8c,0xbf
0x05,0x40,0x80,0xbf  # s_nop 0x4005: prints like a later marker
0x01 0x03 0x00 0x7e
[0xff,0x02,0x00,0x7e,0x56,0x34,0x12,0x00]
0x02,0x05,0x02,0x02  # v_add_f32
0x00,0x00,0x80,0xbf  ; s_nop 0
0xcd,0xab,0x80,0xbf  // s_nop 0xabcd
0xff,0xff,0xff,0xff  # invalid
0xff,0x02,0x00,0x7e  # literal missing
0x00,0x00,0x8c,0xbf,0x00,0x00,0x81,0xbf  # two instructions
0xc1,0xa4,0x0a,0x7e  # llvm-mc 19 segfaults on this one
0x00,0x00,0x34,0xd8,0x01,0x02,0x00,0x00
0x01,0x00,0x80,0xbe
0x00,0x00,0x8c,0xbf  # a duplicate
  v_perm_b32 v14, v52, v51, 0x5040100
"""

ASSEMBLER_SAMPLE = """\
// RUN: llvm-mc -triple=amdgcn -mcpu=gfx90a -show-encoding %s | FileCheck %s
s_nop 0x4000 // prints like the marker that follows it in a batch
s_nop 0
s_nop 0x4001 // prints like the marker that follows the previous line
v_add_f32 v0, v1, v2
v_add_f32_e64 v0, v1, v2
s_mov_b32 s0, s1
s_mov_b32 s2, s3 // CHECK: something
s_branch label
label:
.text
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 1
.end_amdhsa_kernel
foo bar
v_mov_b32 v0, 0x12345678 ; comment
# a comment
x = 5
s_endpgm
"""


@pytest.fixture(scope="session")
def sample_llvm_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A minimal LLVM source root with one disassembler and one assembler test."""
    root = tmp_path_factory.mktemp("llvm")
    disassembler = root / "llvm/test/MC/Disassembler/AMDGPU"
    assembler = root / "llvm/test/MC/AMDGPU"
    disassembler.mkdir(parents=True)
    assembler.mkdir(parents=True)
    (disassembler / "sample.txt").write_text(DISASSEMBLER_SAMPLE)
    (assembler / "sample.s").write_text(ASSEMBLER_SAMPLE)
    return root


@pytest.fixture(scope="session")
def llvm_mc() -> str:
    """The oracle; tests that run tools need it."""
    path = shutil.which("llvm-mc-19")
    if path is None:
        pytest.skip("llvm-mc-19 is not installed (scripts/setup.sh installs it)")
    return path


@pytest.fixture(scope="session")
def real_llvm_src() -> Path:
    """LLVM's source tree: $LUTHIER_LLVM_SRC, else third_party/llvm-19 of this checkout."""
    return Path(os.environ.get("LUTHIER_LLVM_SRC", ROOT / "third_party" / "llvm-19"))


@pytest.fixture(scope="session")
def fake_tool() -> Callable[..., str]:
    """Make a ``--tool`` value that runs the fake llvm-mc with some faults enabled."""

    def command(*options: str) -> str:
        return shlex.join([sys.executable, str(FAKE_MC), *options])

    return command
