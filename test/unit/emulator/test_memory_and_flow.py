"""Memory and control-flow semantics against hand-computed results: global addressing
(SGPR base + VGPR offset + signed immediate), sign extension, stores under partial EXEC,
clear errors outside buffers, LDS pair forms and atomics in lane order, per-lane scratch,
flat addressing into LDS, branches on EXEC/SCC, ``s_getpc_b64``, missing semantics."""

from __future__ import annotations

import numpy as np
import pytest

from luthier.emulator.errors import EmulationError
from luthier.emulator.memory import PRIVATE_APERTURE, SHARED_APERTURE, GlobalMemory
from luthier.emulator.state import Wave

from .asm import assemble, execute

U32 = np.uint32
LANES = np.arange(64, dtype=np.uint32)


def _with_buffer(data: bytes) -> tuple[GlobalMemory, int]:
    memory = GlobalMemory()
    return memory, memory.allocate(len(data), "buf", data).base


def _pointer(wave: Wave, index: int, address: int) -> None:
    wave.s[index], wave.s[index + 1] = address & 0xFFFFFFFF, address >> 32


def test_global_load_saddr_vaddr_and_negative_offset() -> None:
    values = np.arange(100, 200, dtype=np.int32)
    memory, base = _with_buffer(values.tobytes())

    def setup(wave: Wave) -> None:
        _pointer(wave, 0, base)
        wave.v[0] = 4 * LANES + 8

    wave = execute("global_load_dword v1, v0, s[0:1] offset:-4", setup, memory=memory)
    np.testing.assert_array_equal(wave.v[1], values[1:65])


def test_sub_dword_loads_extend() -> None:
    memory, base = _with_buffer(bytes([0x80, 0x7F, 0xFF, 0xFF]))

    def setup(wave: Wave) -> None:
        wave.v[0], wave.v[1] = base & 0xFFFFFFFF, base >> 32

    wave = execute("""
        global_load_sbyte v2, v[0:1], off
        global_load_ubyte v3, v[0:1], off
        global_load_sshort v4, v[0:1], off offset:2
    """, setup, memory=memory)
    assert wave.v[2][0] == 0xFFFFFF80 and wave.v[3][0] == 0x80 and wave.v[4][0] == 0xFFFFFFFF


def test_store_writes_active_lanes_only() -> None:
    memory, base = _with_buffer(bytes(256))

    def setup(wave: Wave) -> None:
        _pointer(wave, 0, base)
        wave.v[0] = 4 * LANES
        wave.v[1] = LANES + 1
        wave.exec_bits = 0x8000_0000_0000_0001

    execute("global_store_dword v0, v1, s[0:1]", setup, memory=memory)
    stored = np.frombuffer(memory.read(base, 256), np.uint32)
    assert stored[0] == 1 and stored[63] == 64 and not stored[1:63].any()


def test_access_outside_every_buffer_is_a_clear_error() -> None:
    memory, base = _with_buffer(bytes(64))

    def setup(wave: Wave) -> None:
        _pointer(wave, 0, base)
        wave.v[0] = 4 * LANES  # lanes 16+ run past the 64-byte buffer

    with pytest.raises(EmulationError, match=r"'global_load_dword' in f at offset 0x0: global "
                       r"load of 4 bytes at 0x[0-9a-f]+ \(lane 16\) is outside every buffer"):
        execute("global_load_dword v1, v0, s[0:1]", setup, memory=memory)


def test_lds_pair_forms() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 8 * LANES
        wave.v[1] = LANES
        wave.v[2] = LANES + 1000

    wave = execute("""
        ds_write2_b32 v0, v1, v2 offset1:1
        ds_read2_b32 v[4:5], v0 offset0:1 offset1:2
    """, setup)
    np.testing.assert_array_equal(wave.v[4], LANES + 1000)
    np.testing.assert_array_equal(wave.v[5][:63], LANES[1:])  # next lane's first word


def test_lds_atomic_return_values_follow_lane_order() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 0   # every lane hits offset 0
        wave.v[1] = 1

    wave = execute("ds_add_rtn_u32 v2, v0, v1", setup)
    np.testing.assert_array_equal(wave.v[2], LANES)
    assert wave.workgroup.lds.data[:4].view(np.uint32)[0] == 64


def test_lds_out_of_range_is_an_error() -> None:
    with pytest.raises(EmulationError, match="outside the 1024-byte LDS"):
        execute("ds_read_b32 v1, v0 offset:1024")


def test_global_atomics_return_old_values() -> None:
    memory, base = _with_buffer(np.array([5, 0], np.uint32).tobytes())

    def setup(wave: Wave) -> None:
        _pointer(wave, 0, base)
        wave.v[0] = 0
        wave.v[2] = 9     # new value
        wave.v[3] = 5     # compare: only the first lane finds 5
        wave.v[4] = 2
        wave.exec_bits = 0b111

    wave = execute("""
        global_atomic_cmpswap v1, v0, v[2:3], s[0:1] glc
        global_atomic_add v5, v0, v4, s[0:1] offset:4 glc
    """, setup, memory=memory)
    np.testing.assert_array_equal(wave.v[1][:3], [5, 9, 9])
    np.testing.assert_array_equal(wave.v[5][:3], [0, 2, 4])
    assert np.frombuffer(memory.read(base, 8), np.uint32).tolist() == [9, 6]


def test_scratch_is_private_per_lane_on_gfx942() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = 16  # the same private offset in every lane
        wave.v[1] = LANES * 3

    wave = execute("""
        scratch_store_dword v0, v1, off offset:4
        scratch_load_dword v2, v0, off offset:4
    """, setup, target="gfx942")
    np.testing.assert_array_equal(wave.v[2], LANES * 3)


def test_scratch_on_gfx90a_needs_flat_scratch_set_up_by_the_kernel() -> None:
    """Without architected flat scratch, FLAT_SCRATCH is the kernel's to compute (flat
    scratch init + wave offset): an access before that is an error; after it, each lane
    reaches its own private memory."""
    def setup(wave: Wave) -> None:
        wave.v[0] = 16
        wave.v[1] = LANES * 5

    with pytest.raises(EmulationError, match=r"FLAT_SCRATCH = 0x0, not the wave's private "
                                             r"segment .*did not set it up"):
        execute("scratch_store_dword v0, v1, off offset:4", setup, target="gfx90a")

    def set_up(wave: Wave) -> None:
        setup(wave)
        wave.s[4], wave.s[5] = PRIVATE_APERTURE & 0xFFFFFFFF, PRIVATE_APERTURE >> 32
        wave.s[6] = 0  # the wave offset

    wave = execute("""
        s_add_u32 flat_scratch_lo, s4, s6
        s_addc_u32 flat_scratch_hi, s5, 0
        scratch_store_dword v0, v1, off offset:4
        scratch_load_dword v2, v0, off offset:4
    """, set_up, target="gfx90a")
    np.testing.assert_array_equal(wave.v[2], LANES * 5)


def test_flat_access_in_the_shared_aperture_reaches_lds() -> None:
    def setup(wave: Wave) -> None:
        address = SHARED_APERTURE + 4 * LANES.astype(np.uint64)
        wave.v[0] = (address & np.uint64(0xFFFFFFFF)).astype(U32)
        wave.v[1] = (address >> np.uint64(32)).astype(U32)
        wave.v[2] = LANES + 7

    wave = execute("""
        flat_store_dword v[0:1], v2
        ds_read_b32 v3, v0
    """, setup)
    np.testing.assert_array_equal(wave.v[3], LANES + 7)


def test_divergent_branch_skips_when_exec_is_zero() -> None:
    def setup(wave: Wave) -> None:
        wave.v[0] = LANES

    wave = execute("""
        v_cmp_gt_u32_e32 vcc, 0, v0
        s_and_saveexec_b64 s[0:1], vcc
        s_cbranch_execz ^bb2, ^bb1
    ^bb1:
        v_mov_b32_e32 v1, 1
        s_branch ^bb2
    ^bb2:
        s_or_b64 exec, exec, s[0:1]
        v_add_u32_e32 v1, 2, v1
    """, setup)
    np.testing.assert_array_equal(wave.v[1], 2)  # the then-block ran with no lane, skipped
    assert wave.executed == 6


def test_scalar_loop_counts() -> None:
    wave = execute("""
        s_mov_b32 s0, 0
        s_mov_b32 s1, 0
        s_branch ^bb1
    ^bb1:
        s_add_i32 s1, s1, s0
        s_add_i32 s0, s0, 1
        s_cmp_lt_u32 s0, 10
        s_cbranch_scc1 ^bb1, ^bb2
    ^bb2:
        s_nop 0
    """)
    assert wave.s[1] == sum(range(10)) and wave.s[0] == 10


def test_getpc_returns_the_next_instruction_address() -> None:
    program = assemble("""
        s_nop 0
        s_getpc_b64 s[0:1]
    """)
    wave = execute("""
        s_nop 0
        s_getpc_b64 s[0:1]
    """)
    getpc = program.instructions[1]
    assert wave.s[0] | (wave.s[1] << 32) == getpc.address + 4
    assert program.pc_of_address[getpc.address + 4] == 2  # s_endpgm follows


def test_instruction_without_semantics_stops_the_run() -> None:
    with pytest.raises(EmulationError, match=r"^'s_sethalt' in f at offset 0x4: has no "
                       r"semantics in the emulator$"):
        execute("""
            s_nop 0
            s_sethalt 1
        """)


def test_trap_aborts_with_its_id() -> None:
    with pytest.raises(EmulationError, match=r"^'s_trap' in f at offset 0x0: the kernel "
                       r"trapped \(s_trap 0x2\)$"):
        execute("s_trap 2")


def test_hardware_registers_and_clock() -> None:
    def setup(wave: Wave) -> None:
        wave.hwregs[1] = 0x3F0
        wave.s[0] = 0x2

    wave = execute("""
        s_getreg_b32 s1, hwreg(HW_REG_MODE, 4, 4)
        s_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s0
        s_getreg_b32 s2, hwreg(HW_REG_MODE)
        s_memrealtime s[4:5]
        s_memrealtime s[6:7]
    """, setup)
    assert wave.s[1] == 0xF and wave.s[2] == 0x3F2
    assert (wave.s[6] | wave.s[7] << 32) >= (wave.s[4] | wave.s[5] << 32) > 0


def test_buffer_access_through_a_raw_v_sharp_checks_its_range() -> None:
    data = np.arange(16, dtype=np.uint32)
    memory, base = _with_buffer(data.tobytes())

    def setup(wave: Wave) -> None:
        wave.s[0], wave.s[1] = base & 0xFFFFFFFF, base >> 32  # stride 0
        wave.s[2], wave.s[3] = 40, 0  # num_records: 40 bytes
        wave.s[4] = 8
        wave.v[0] = 4 * LANES

    wave = execute("buffer_load_dword v1, v0, s[0:3], s4 offen offset:4", setup,
                   memory=memory)
    # byte offset 4 * lane + 4 is checked against 40 (soffset is not): lanes 0-8 read
    expected = np.where(4 * LANES + 4 < 40, LANES + 3, 0)
    np.testing.assert_array_equal(wave.v[1][:16], expected[:16])


def test_a_wave_that_never_ends_is_stopped() -> None:
    with pytest.raises(EmulationError, match=r"wave 0 ran more than the limit of "
                       r"instructions; stopped at 's_branch' in f at offset 0x4"):
        execute("""
            s_branch ^bb1
        ^bb1:
            s_branch ^bb1
        ^bb2:
        """)


def test_gpr_index_mode_moves_through_an_indexed_vgpr() -> None:
    """LLVM's dynamic indexing of a register array on GFX9: extract then insert."""
    def setup(wave: Wave) -> None:
        for k in range(8):
            wave.v[10 + k] = 100 + k
        wave.s[0] = 3
        wave.v[1] = 77

    wave = execute("""
        s_set_gpr_idx_on s0, gpr_idx(SRC0)
        v_mov_b32_e32 v2, v10
        s_set_gpr_idx_off
        s_set_gpr_idx_on s0, gpr_idx(DST)
        v_mov_b32_e32 v10, v1
        s_set_gpr_idx_off
        v_mov_b32_e32 v3, v10
    """, setup)
    np.testing.assert_array_equal(wave.v[2], 103)  # v[10 + 3]
    np.testing.assert_array_equal(wave.v[13], 77)  # written through the index
    np.testing.assert_array_equal(wave.v[3], 100)  # outside the region: not indexed
