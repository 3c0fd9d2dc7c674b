"""Hooks with f32/f64 arithmetic, instrumented into a corpus kernel and run in the emulator.

Per-lane float values (from the lane id) and uniform ones (from EXEC's popcount) go through
conversions, products, sums, an f64 subtraction, an unordered compare, a select and a
negation; the counters the hook leaves are compared with the same arithmetic done by NumPy
in float32/float64, exactly, and the kernel's own output must be what the original gives.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from .vector_add_runs import instrumented_vector_add

HOOK = """
instr.global @out {size = 16 : i64}
instr.hook @floats() {
  %lane = instr.lane_id : i32
  %x = arith.uitofp %lane : i32 to f32
  %half = arith.constant 0.5 : f32
  %y = arith.mulf %x, %half : f32
  %z = arith.addf %y, %x : f32
  %d = arith.extf %z : f32 to f64
  %k = arith.constant 3.25 : f64
  %s = arith.subf %d, %k : f64
  %big = arith.cmpf ugt, %s, %k : f64
  %one = arith.constant 1.0 : f64
  %r = arith.select %big, %s, %one : f64
  %i = arith.fptosi %r : f64 to i32
  %addr = instr.global_addr @out : i64
  %old = instr.atomic "add" %addr, %i {per_lane} : i32
  %exec = instr.read_reg "exec" : i64
  %n = instr.popcount %exec : i64
  %f = arith.sitofp %n : i32 to f32
  %third = arith.constant 0.333333343 : f32
  %t = arith.mulf %f, %third : f32
  %neg = arith.negf %t : f32
  %bits = arith.bitcast %neg : f32 to i32
  %a8 = arith.constant 8 : i64
  %addr8 = arith.addi %addr, %a8 : i64
  %old8 = instr.atomic "add" %addr8, %bits : i32
  instr.return
}
instr.insert @floats {at = "kernel_entry", args = []}
"""


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_float_hook_counts_what_numpy_computes(target: str, tmp_path: Path) -> None:
    hook = tmp_path / "floats.mlir"
    hook.write_text(HOOK)
    after = instrumented_vector_add(hook, target, tmp_path)
    data = after.globals["out"]
    total, bits = struct.unpack_from("<iI", data, 0)[0], struct.unpack_from("<I", data, 8)[0]
    expected_total = 0
    expected_bits = 0
    for _wave in range(4):
        for lane in range(64):
            x = np.float32(lane)
            z = np.float32(np.float32(x * np.float32(0.5)) + x)
            s = np.float64(z) - np.float64(3.25)
            expected_total += int(s if not s <= 3.25 else 1.0)
        third = np.float32(64) * np.float32(0.333333343)
        expected_bits += int(np.array(-third, np.float32).view(np.uint32))
    assert total == expected_total
    assert bits == expected_bits & 0xFFFFFFFF


#: fma rounds once: with a = 1 + 2^-12 and c = -(1 + 2^-11), a * a + c is exactly 2^-24,
#: but a * a rounded first (half an ulp above 1 + 2^-11, a tie to even) leaves 0. The same in
#: f64 with a = 1 + 2^-30, c = -(1 + 2^-29): 2^-60 against 0. The inputs come from EXEC's
#: popcount (64 at the kernel entry), so nothing folds them before selection.
FMA_HOOK = """
instr.global @out {size = 16 : i64}
instr.hook @fused() {
  %exec = instr.read_reg "exec" : i64
  %n = instr.popcount %exec : i64
  %nf = arith.sitofp %n : i32 to f32
  %step = arith.constant 0.000003814697265625 : f32
  %e = arith.mulf %nf, %step : f32
  %one = arith.constant 1.0 : f32
  %a = arith.addf %e, %one : f32
  %c = arith.constant -1.00048828125 : f32
  %fused = math.fma %a, %a, %c : f32
  %square = arith.mulf %a, %a : f32
  %separate = arith.addf %square, %c : f32
  %addr = instr.global_addr @out : i64
  %fused_bits = arith.bitcast %fused : f32 to i32
  %o0 = instr.atomic "add" %addr, %fused_bits : i32
  %separate_bits = arith.bitcast %separate : f32 to i32
  %four = arith.constant 4 : i64
  %addr4 = arith.addi %addr, %four : i64
  %o4 = instr.atomic "add" %addr4, %separate_bits : i32
  %lane = instr.lane_id : i32
  %lf = arith.uitofp %lane : i32 to f32
  %zero = arith.constant 0.0 : f32
  %z = arith.mulf %lf, %zero : f32
  %al = arith.addf %a, %z : f32
  %lane_fused = math.fma %al, %al, %c : f32
  %scale = arith.constant 16777216.0 : f32
  %unit = arith.mulf %lane_fused, %scale : f32
  %ones = arith.fptosi %unit : f32 to i32
  %eight = arith.constant 8 : i64
  %addr8 = arith.addi %addr, %eight : i64
  %o8 = instr.atomic "add" %addr8, %ones {per_lane} : i32
  %nd = arith.sitofp %n : i32 to f64
  %step64 = arith.constant 1.4551915228366851806640625e-11 : f64
  %e64 = arith.mulf %nd, %step64 : f64
  %one64 = arith.constant 1.0 : f64
  %a64 = arith.addf %e64, %one64 : f64
  %c64 = arith.constant -1.00000000186264514923095703125 : f64
  %fused64 = math.fma %a64, %a64, %c64 : f64
  %scale64 = arith.constant 1152921504606846976.0 : f64
  %unit64 = arith.mulf %fused64, %scale64 : f64
  %one_int = arith.fptosi %unit64 : f64 to i32
  %twelve = arith.constant 12 : i64
  %addr12 = arith.addi %addr, %twelve : i64
  %o12 = instr.atomic "add" %addr12, %one_int : i32
  instr.return
}
instr.insert @fused {at = "kernel_entry", args = []}
"""


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_fma_rounds_once(target: str, tmp_path: Path) -> None:
    hook = tmp_path / "fma.mlir"
    hook.write_text(FMA_HOOK)
    data = instrumented_vector_add(hook, target, tmp_path).globals["out"]
    fused, separate, lanes, fused64 = struct.unpack_from("<IIII", data, 0)
    waves = 4
    tiny = int(np.array(np.float32(2.0**-24), np.float32).view(np.uint32))
    assert fused == (waves * tiny) & 0xFFFFFFFF  # once per wave: 2^-24 each
    assert separate == 0  # the product rounded first: the sum is 0 (what fma avoids)
    assert lanes == waves * 64  # per lane: 2^-24 * 2^24 = 1 in every lane
    assert fused64 == waves
