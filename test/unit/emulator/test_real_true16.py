"""Real-true16 semantics (GFX11): operands that name VGPR halves, op_sel bits a lifted word
keeps where LLVM 19's record has no op_sel, GFX11's D16 loads, and the refusal of undefined
bits the emulator cannot give a meaning to.

The words are what clang-22 compiles (``test/corpus/real_true16``; its e2e test runs whole
kernels against clang-19's build of the same source); these tests pin each rule alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from luthier.emulator.errors import EmulationError
from luthier.emulator.state import Wave

from .asm import execute

U32 = np.uint32


def _h(value: float) -> int:
    return int(np.float16(value).view(np.uint16))


def test_halves_are_read_and_written_apart() -> None:
    """``v_fmac_f16_e32 v0.h, v1.l, v0.l`` reads two halves and accumulates into the high
    one; the low half of v0 is a source and stays as it was."""
    def setup(wave: Wave) -> None:
        wave.v[0] = U32((_h(10.0) << 16) | _h(3.0))
        wave.v[1] = U32((0x7777 << 16) | _h(2.0))

    wave = execute("""
        v_fmac_f16_e32 v0.h, v1.l, v0.l
        v_cvt_f32_f16_e32 v2, v0.h
        v_add_f16_e32 v3.l, v0.h, v1.l
    """, setup, target="gfx1100", lanes=32)
    assert int(wave.v[0][0]) & 0xFFFF == _h(3.0)
    assert wave.v[2].view(np.float32)[0] == 16.0  # 2 * 3 + 10
    assert int(wave.v[3][0]) & 0xFFFF == _h(18.0)


def test_a_compare_reads_a_high_half() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = U32((_h(5.0) << 16) | _h(1.0))

    wave = execute("v_cmp_gt_f16_e32 vcc_lo, v0.h, v0.l", setup, target="gfx1100", lanes=32)
    assert wave.s[106] == 0xFFFFFFFF  # vcc_lo: 5 > 1 in every lane


def test_op_sel_kept_in_undefined_bits_picks_halves() -> None:
    """LLVM 19's v_cndmask_b16 has no op_sel; real-true16 code sets it (the lifter keeps
    the bits, ``unmodelled_bits``): 0x5000 is op_sel [0,1,0,1], src1 and the destination
    high."""
    def setup(wave: Wave) -> None:
        wave.v[1] = U32(0xAAAA_1111)
        wave.v[2] = U32(0xBBBB_2222)
        wave.s[106] = 0x0000FFFF  # vcc_lo: the low 16 lanes take src1

    wave = execute(
        'v_cndmask_b16 <{opcode = "V_CNDMASK_B16_e64_gfx11", mc_operands = ['
        '#amdgpu_mc.reg<v1>, #builtin.int<0>, #amdgpu_mc.reg<v2>, #builtin.int<0>, '
        '#amdgpu_mc.reg<v1>, #amdgpu_mc.reg<vcc_lo>], unmodelled_bits = #builtin.int<20480>}>',
        setup, target="gfx1100", lanes=32)
    # lanes 0-15: src1 = v1.h (0xaaaa); lanes 16-31: src0 = v2.l (0x2222); into v1.h
    assert int(wave.v[1][0]) == 0xAAAA_1111
    assert int(wave.v[1][31]) == 0x2222_1111


def test_undefined_bits_without_a_meaning_stop_the_run() -> None:
    """An instruction whose kept undefined bits its semantics do not read (op_sel on the
    32-bit v_add_f32 of GFX11, whose record has none) is refused when it runs, naming
    them, rather than run as if they were clear."""
    with pytest.raises(EmulationError, match=r"v_add_f32_e64.*leaves undefined \(0x800\)"):
        execute(
            'v_add_f32_e64 <{opcode = "V_ADD_F32_e64_gfx11", mc_operands = ['
            '#amdgpu_mc.reg<v1>, #builtin.int<0>, #amdgpu_mc.reg<v2>, #builtin.int<0>, '
            '#amdgpu_mc.reg<v3>, #builtin.int<0>, #builtin.int<0>], '
            'unmodelled_bits = #builtin.int<2048>}>', target="gfx1100", lanes=32)


def test_gfx11_d16_loads_fill_one_half() -> None:
    from luthier.emulator.memory import GlobalMemory

    memory = GlobalMemory()
    buffer = memory.allocate(4, "data", np.array([_h(1.5), _h(-2.0)], np.uint16).tobytes())

    def setup(wave: Wave) -> None:
        wave.v[0] = U32(0x1234_5678)
        wave.v[2] = U32(buffer.base & 0xFFFFFFFF)
        wave.v[3] = U32(buffer.base >> 32)

    wave = execute("""
        global_load_d16_b16 v0, v[2:3], off
        global_load_d16_hi_b16 v0, v[2:3], off offset:2
        s_waitcnt vmcnt(0)
    """, setup, target="gfx1100", lanes=32, memory=memory)
    assert int(wave.v[0][0]) == (_h(-2.0) << 16) | _h(1.5)


def test_op_sel_in_undefined_bits_picks_the_halves_a_compare_reads() -> None:
    """A VOP3 f16 compare of GFX11 reads the halves its OPSEL field names (LLVM 19's fake16
    record has no op_sel; 0x800 is op_sel[0], src0 high), with neg on that half."""
    def setup(wave: Wave) -> None:
        wave.v[0] = U32((_h(5.0) << 16) | _h(0.5))
        wave.v[1] = U32(_h(1.0))

    def compare(modifiers: int) -> int:
        wave = execute(
            'v_cmp_gt_f16_e64 <{opcode = "V_CMP_GT_F16_t16_e64_gfx11", mc_operands = ['
            f'#amdgpu_mc.reg<s0>, #builtin.int<{modifiers}>, #amdgpu_mc.reg<v0>, '
            '#builtin.int<0>, #amdgpu_mc.reg<v1>, #builtin.int<0>], '
            'unmodelled_bits = #builtin.int<2048>}>',
            setup, target="gfx1100", lanes=32)
        return int(wave.s[0])

    assert compare(0) == 0xFFFFFFFF  # v0.h = 5 > 1 (v0.l = 0.5 is not)
    assert compare(1) == 0  # -5 > 1 is false
