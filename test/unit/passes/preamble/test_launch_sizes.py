"""The preamble's launch-size arithmetic, run in the emulator: ``ceil_divide`` is exact over
the whole 32-bit range (HIP's ``gridDim`` from the packet's work-item counts)."""

from __future__ import annotations

import random

import pytest
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Block, Region

from luthier.amdgpu_dialects.amdgpu_mc.builder import InstBuilder, reg
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionOp
from luthier.emulator.dispatch import Workgroup, run_wave
from luthier.emulator.memory import GlobalMemory, LocalMemory, PrivateMemory
from luthier.emulator.program import Program, compile_program
from luthier.emulator.state import Wave
from luthier.passes.preamble.fill import ceil_divide

M32 = 0xFFFFFFFF


def _pairs() -> list[tuple[int, int]]:
    rng = random.Random(11)
    edges = [(0, 1), (1, 1), (M32, 1), (M32, M32), (M32 - 1, M32), (M32, 2), (M32, 3),
             (1, M32), (0x80000000, 0x80000001), (1023 * 1024, 1024), (1023 * 1024 + 1, 1024)]
    workgroups = [(rng.randrange(1, 1 << 22) * size + rng.randrange(size), size)
                  for size in (1, 3, 7, 64, 96, 255, 256, 1000, 1024) for _ in range(8)]
    anything = [(rng.getrandbits(32), rng.randrange(1, 1 << rng.randrange(1, 33)))
                for _ in range(150)]
    return edges + workgroups + anything


def _division_program(target: str) -> Program:
    """A device function: ``s10 = ceil(s0 / s1)``, then ``s_endpgm``."""
    build = InstBuilder(target)
    code = [*ceil_divide(build, reg("s10"), reg("s0"), reg("s1"), reg("v3"),
                          [reg("s11"), reg("s12"), reg("s13")]),
            build.inst("s_endpgm")]
    function = FunctionOp.create(properties={"sym_name": StringAttr("f")},
                                 regions=[Region(Block(code))])
    code_object = CodeObjectOp.create(
        properties={"target": StringAttr(target), "code_object_version": IntegerAttr(5, 64),
                    "elf_type": StringAttr("dyn"), "e_flags": IntegerAttr(0, 64),
                    "abi_version": IntegerAttr(3, 64)},
        regions=[Region(Block([function]))])
    code_object.verify()
    return compile_program(code_object)


@pytest.mark.parametrize("target", ["gfx908", "gfx90a", "gfx942"])
def test_ceil_divide_is_exact_on_32_bits(target: str) -> None:
    program = _division_program(target)
    for dividend, divisor in _pairs():
        wave = Wave(64, Workgroup((0, 0, 0), LocalMemory(64, "LDS")))
        wave.memory = GlobalMemory()
        wave.private = PrivateMemory(64, 16)
        wave.exec_bits = wave.full
        wave.s[0], wave.s[1] = dividend, divisor
        run_wave(wave, program, 1000)
        assert wave.done
        assert int(wave.s[10]) == -(-dividend // divisor), (dividend, divisor)
        assert (int(wave.s[0]), int(wave.s[1])) == (dividend, divisor)  # inputs kept
