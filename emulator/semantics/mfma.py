"""Matrix cores (MFMA): ``D = A x B + C`` over the lanes of a wave.

The operands are spread over lanes as the CDNA ISA guides lay them out for single-block
instructions: lane l holds A[i][k] with i = l mod M and k = E * (l div M) + e for its E
packed elements e, and B[k][j] likewise with j = l mod N. The result's item r of lane l is
D[row][l mod N] with row = 4 * (l div 16) + r for 16x16 shapes and
row = 8 * (r div 4) + 4 * (l div 32) + (r mod 4) for 32x32 shapes. Products are summed in
float64 (exact for the formats involved up to rounding of the final sum) and rounded once
to the result type; the broadcast controls ``cbsz``/``abid``/``blgp`` must be zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from luthier.emulator.semantics.registry import Instruction, Step, semantics
from luthier.emulator.state import Vec, Wave

U32 = np.uint32


@dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    #: Input element format: f32, f64, f16, bf16, i8.
    element: str
    #: Elements per lane in A and B.
    per_lane: int
    #: Result format: f32, f64, i32.
    result: str


SHAPES: dict[str, Shape] = {
    "v_mfma_f32_32x32x2f32": Shape(32, 32, 2, "f32", 1, "f32"),
    "v_mfma_f32_32x32x2_f32": Shape(32, 32, 2, "f32", 1, "f32"),
    "v_mfma_f32_16x16x4f32": Shape(16, 16, 4, "f32", 1, "f32"),
    "v_mfma_f32_16x16x4_f32": Shape(16, 16, 4, "f32", 1, "f32"),
    "v_mfma_f64_16x16x4f64": Shape(16, 16, 4, "f64", 1, "f64"),
    "v_mfma_f64_16x16x4_f64": Shape(16, 16, 4, "f64", 1, "f64"),
    "v_mfma_f32_32x32x8f16": Shape(32, 32, 8, "f16", 4, "f32"),
    "v_mfma_f32_32x32x8_f16": Shape(32, 32, 8, "f16", 4, "f32"),
    "v_mfma_f32_16x16x16f16": Shape(16, 16, 16, "f16", 4, "f32"),
    "v_mfma_f32_16x16x16_f16": Shape(16, 16, 16, "f16", 4, "f32"),
    # gfx908's bf16 forms (before the _1k ones): two bf16 per lane.
    "v_mfma_f32_16x16x8bf16": Shape(16, 16, 8, "bf16", 2, "f32"),
    "v_mfma_f32_32x32x4bf16": Shape(32, 32, 4, "bf16", 2, "f32"),
    "v_mfma_f32_16x16x16bf16_1k": Shape(16, 16, 16, "bf16", 4, "f32"),
    "v_mfma_f32_16x16x16_bf16": Shape(16, 16, 16, "bf16", 4, "f32"),
    "v_mfma_f32_32x32x8bf16_1k": Shape(32, 32, 8, "bf16", 4, "f32"),
    "v_mfma_f32_32x32x8_bf16": Shape(32, 32, 8, "bf16", 4, "f32"),
    "v_mfma_i32_16x16x16i8": Shape(16, 16, 16, "i8", 4, "i32"),
    "v_mfma_i32_16x16x32_i8": Shape(16, 16, 32, "i8", 8, "i32"),
    "v_mfma_i32_32x32x8i8": Shape(32, 32, 8, "i8", 4, "i32"),
    "v_mfma_i32_32x32x16_i8": Shape(32, 32, 16, "i8", 8, "i32"),
}

_ELEMENT_BITS = {"f32": 32, "f64": 64, "f16": 16, "bf16": 16, "i8": 8}


def _elements(registers: Vec, element: str, per_lane: int) -> Vec:
    """``(lanes, per_lane)`` float64 (or int64) elements from ``(dwords, lanes)`` bits."""
    raw = np.ascontiguousarray(registers.T.astype("<u4")).view(np.uint8)
    if element == "f32":
        return raw.view("<f4")[:, :per_lane].astype(np.float64)
    if element == "f64":
        return raw.view("<f8")[:, :per_lane].astype(np.float64)
    if element == "f16":
        return raw.view("<f2")[:, :per_lane].astype(np.float64)
    if element == "bf16":
        halves = raw.view("<u2")[:, :per_lane].astype(U32) << U32(16)
        return halves.view(np.float32).astype(np.float64)
    return raw.view(np.int8)[:, :per_lane].astype(np.int64)


def _layout(shape: Shape, lanes: int) -> tuple[Vec, Vec, Vec, Vec, Vec]:
    """Index arrays: A's (row, k) and B's (k, col) per (lane, element); D's (row, col)
    per (lane, item)."""
    lane = np.arange(lanes)[:, None]
    element = np.arange(shape.per_lane)[None, :]
    k = shape.per_lane * (lane // shape.m) + element
    a_row = np.broadcast_to(lane % shape.m, k.shape)
    b_col = np.broadcast_to(lane % shape.n, k.shape)
    items = shape.m * shape.n // lanes
    item = np.arange(items)[None, :]
    if shape.m == 32:
        d_row = 8 * (item // 4) + 4 * (lane // 32) + item % 4
    else:
        d_row = 4 * (lane // 16) + item
    d_col = np.broadcast_to(lane % shape.n, d_row.shape)
    return a_row, k, b_col, d_row, d_col


@semantics(*SHAPES)
def _mfma(inst: Instruction) -> Step:
    shape = SHAPES[inst.mnemonic]
    if inst.wave_size != 64:
        raise inst.unsupported("MFMA needs wave64")
    for control in ("cbsz", "abid", "blgp"):
        if inst.get(control, 0):
            raise inst.unsupported(f"MFMA with {control} != 0 is not modelled")
    a_row, a_k, b_col, d_row, d_col = _layout(shape, 64)
    if int(a_k.max()) >= shape.k:
        raise inst.unsupported("multi-block MFMA layouts are not modelled")
    in_dwords = max(1, _ELEMENT_BITS[shape.element] * shape.per_lane // 32)
    items = shape.m * shape.n // 64
    out_dwords = items * (2 if shape.result == "f64" else 1)
    a_file, a_index, _ = inst.vdst("src0")
    b_file, b_index, _ = inst.vdst("src1")
    d_file, d_index, _ = inst.vdst()
    c_value = inst.get("src2")
    c_file, c_index = ("", 0)
    if isinstance(c_value, str):
        c_file, c_index, _ = inst.vdst("src2")
    raw_constant = int(c_value) if isinstance(c_value, int) else 0
    constant: float | int
    if shape.result == "i32":
        constant = raw_constant
    elif shape.result == "f64":
        constant = float(np.uint64(raw_constant & (2**64 - 1)).view(np.float64))
    else:
        constant = float(np.uint32(raw_constant & 0xFFFFFFFF).view(np.float32))
    following = inst.next_pc

    def registers(wave: Wave, file: str, index: int, count: int) -> Vec:
        return (wave.v if file == "v" else wave.a)[index:index + count]

    def step(wave: Wave) -> int:
        a_values = _elements(registers(wave, a_file, a_index, in_dwords), shape.element,
                             shape.per_lane)
        b_values = _elements(registers(wave, b_file, b_index, in_dwords), shape.element,
                             shape.per_lane)
        dtype = np.int64 if shape.result == "i32" else np.float64
        a = np.zeros((shape.m, shape.k), dtype)
        b = np.zeros((shape.k, shape.n), dtype)
        a[a_row, a_k] = a_values
        b[a_k, b_col] = b_values
        product = a @ b
        if c_file:
            c_bits = registers(wave, c_file, c_index, out_dwords)
            c_items = _elements(c_bits, "f64" if shape.result == "f64" else
                                "f32" if shape.result == "f32" else "i32", items) \
                if shape.result != "i32" else c_bits.T.view(np.int32).astype(np.int64)
        else:
            c_items = np.full((64, items), constant, dtype)
        total: Vec = np.asarray(product[d_row, d_col] + c_items)
        bits: Vec
        if shape.result == "f32":
            bits = total.astype(np.float32).view(U32)
        elif shape.result == "i32":
            bits = (total.astype(np.int64) & 0xFFFFFFFF).astype(U32)
        else:
            bits = np.ascontiguousarray(total.astype(np.float64)).view(U32)
        target = wave.v if d_file == "v" else wave.a
        target[d_index:d_index + out_dwords] = bits.T
        return following

    return step
