"""Hooks with f32/f64 arithmetic, instrumented into a corpus kernel and run in the emulator.

Per-lane float values (from the lane id) and uniform ones (from EXEC's popcount) go through
conversions, products, sums, an f64 subtraction, an unordered compare, a select and a
negation; the counters the hook leaves are compared with the same arithmetic done by NumPy
in float32/float64, exactly, and the kernel's own output must be what the original gives.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from .test_instrumented_corpus import LuthierOpt
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
def test_float_hook_counts_what_numpy_computes(target: str, tmp_path: Path,
                                               luthier_opt: LuthierOpt) -> None:
    hook = tmp_path / "floats.mlir"
    hook.write_text(HOOK)
    after = instrumented_vector_add(hook, target, tmp_path, luthier_opt)
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
def test_fma_rounds_once(target: str, tmp_path: Path, luthier_opt: LuthierOpt) -> None:
    hook = tmp_path / "fma.mlir"
    hook.write_text(FMA_HOOK)
    data = instrumented_vector_add(hook, target, tmp_path, luthier_opt).globals["out"]
    fused, separate, lanes, fused64 = struct.unpack_from("<IIII", data, 0)
    waves = 4
    tiny = int(np.array(np.float32(2.0**-24), np.float32).view(np.uint32))
    assert fused == (waves * tiny) & 0xFFFFFFFF  # once per wave: 2^-24 each
    assert separate == 0  # the product rounded first: the sum is 0 (what fma avoids)
    assert lanes == waves * 64  # per lane: 2^-24 * 2^24 = 1 in every lane
    assert fused64 == waves


#: A hook of an f32 and an f64 parameter, given constants at the insertion: each lane stores
#: its id times the f32 and its id over the f64 at its own place. The same tool in MLIR,
#: Python and HIP (compiled with clang-19 by luthier-opt).
CONST_ARGS_MLIR = """
instr.global @Scaled {size = 256 : i64}
instr.global @Divided {size = 512 : i64}
instr.hook @scale(%k: f32, %d: f64) {
  %lane = instr.lane_id : i32
  %lane64 = arith.extui %lane : i32 to i64
  %x = arith.uitofp %lane : i32 to f32
  %y = arith.mulf %x, %k : f32
  %four = arith.constant 4 : i64
  %o4 = arith.muli %lane64, %four : i64
  %s = instr.global_addr @Scaled : i64
  %sa = arith.addi %s, %o4 : i64
  instr.store %y, %sa {per_lane} : f32
  %xd = arith.extf %x : f32 to f64
  %q = arith.divf %xd, %d : f64
  %eight = arith.constant 8 : i64
  %o8 = arith.muli %lane64, %eight : i64
  %v = instr.global_addr @Divided : i64
  %va = arith.addi %v, %o8 : i64
  instr.store %q, %va {per_lane} : f64
  instr.return
}
instr.insert @scale {at = "kernel_entry", args = [#instr.const<0.1 : f32>, #instr.const<3.0 : f64>]}
"""

CONST_ARGS_PYTHON = """
from luthier.frontend.hooks import Const, HookBuilder, HookModule, Value, f32, f64, i64

hooks = HookModule()
scaled = hooks.global_var("Scaled", size=256)
divided = hooks.global_var("Divided", size=512)


@hooks.hook([f32, f64])
def scale(h: HookBuilder, k: Value, d: Value) -> None:
    lane = h.lane_id()
    x = lane.uitofp(f32)
    h.store(x * k, h.global_addr(scaled) + lane.zext(i64) * 4, per_lane=True)
    h.store(x.extf(f64) / d, h.global_addr(divided) + lane.zext(i64) * 8, per_lane=True)


hooks.insert(scale, at="kernel_entry", args=[Const(0.1, f32), Const(3.0, f64)])
"""

CONST_ARGS_HIP = """
#include "luthier_hooks.h"
LUTHIER_GLOBAL float Scaled[64];
LUTHIER_GLOBAL double Divided[64];
LUTHIER_HOOK void scale(float K, double D) {
  unsigned Lane = luthier_lane_id();
  float X = (float)Lane;
  Scaled[Lane] = X * K;
  Divided[Lane] = (double)X / D;
}
LUTHIER_INSERT(scale, at = "kernel_entry",
               args = [#instr.const<0.1 : f32>, #instr.const<3.0 : f64>]);
"""


@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
@pytest.mark.parametrize("source,suffix", [(CONST_ARGS_MLIR, ".mlir"), (CONST_ARGS_PYTHON, ".py"),
                                           (CONST_ARGS_HIP, ".hip")],
                         ids=["mlir", "python", "hip"])
def test_float_constant_arguments(target: str, source: str, suffix: str,
                                  tmp_path: Path, luthier_opt: LuthierOpt) -> None:
    if suffix == ".hip" and shutil.which("clang-19") is None:
        pytest.skip("clang-19 is not installed (scripts/setup.sh installs it)")
    hook = tmp_path / f"scale{suffix}"
    hook.write_text(source)
    after = instrumented_vector_add(hook, target, tmp_path, luthier_opt)
    lanes = np.arange(64)
    scaled = np.frombuffer(after.globals["Scaled"], np.float32)
    divided = np.frombuffer(after.globals["Divided"], np.float64)
    # 0.1 rounded to f32 once, at the insertion; each product rounded once.
    assert np.array_equal(scaled, lanes.astype(np.float32) * np.float32(0.1))
    assert np.array_equal(divided, lanes.astype(np.float64) / 3.0)
