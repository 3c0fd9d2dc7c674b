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
