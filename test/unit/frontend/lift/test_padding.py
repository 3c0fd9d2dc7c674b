"""Bytes between and around functions: s_nop or zero alignment padding survives a round trip,
and anything else between functions is kept as the preceding function's opaque trailing data.

Compilers pad with ``s_nop 0``; a linker that joins separately compiled ``.text`` sections
(``-fgpu-rdc`` builds such as rocRAND's) pads with zeros and may leave a section of pure
padding before the first function. These tests make such objects from a corpus object by
rewriting its padding, then lift and emit them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    S_NOP_0,
    CodeObjectOp,
    KernelOp,
    int_attr,
)
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.compare import compare_code_objects
from luthier.frontend.codeobj.model import CodeObject
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit import emit_code_object

SAMPLE = Path(__file__).resolve().parents[3] / "corpus" / "kernels" / "control_flow.gfx90a.co"


def _text_file_offset(code_object: CodeObject) -> int:
    text = code_object.text
    assert text is not None
    section = next(s for s in code_object.sections if s.name == text.name)
    return section.offset - text.address


def _gaps(code_object: CodeObject) -> list[tuple[int, int, str]]:
    """(start address, end address, next function) of each non-empty gap between functions."""
    symbols = sorted((kernel.function for kernel in code_object.kernels),
                     key=lambda symbol: symbol.value)
    return [(a.value + a.size, b.value, b.name) for a, b in zip(symbols, symbols[1:],
                                                                 strict=False)
            if b.value > a.value + a.size]


def _rewrite(fill: bytes, pick: int = 0) -> tuple[bytes, str]:
    original = read_code_object(SAMPLE)
    start, end, name = _gaps(original)[pick]
    data = bytearray(SAMPLE.read_bytes())
    base = _text_file_offset(original)
    data[base + start:base + end] = (fill * (end - start))[:end - start]
    return bytes(data), name


def _kernel(module: CodeObjectOp, name: str) -> KernelOp:
    return next(op for op in module.body.ops
                if isinstance(op, KernelOp) and op.sym_name.data == name)


def test_zero_padding_is_a_property_of_the_next_function_and_round_trips() -> None:
    data, name = _rewrite(b"\0")
    module = lift_code_object(read_code_object(data, name="zero-gap")).module
    assert isinstance(module, CodeObjectOp)
    kernel = _kernel(module, name)
    assert kernel.padding_fill is not None and kernel.padding_fill.data == "zero"
    others = [op for op in module.body.ops if isinstance(op, KernelOp) and op is not kernel]
    assert all(op.padding_fill is None for op in others)
    assert emit_code_object(module) == data


def test_padding_before_the_first_function_round_trips() -> None:
    original = read_code_object(SAMPLE)
    module = lift_code_object(original).module
    assert isinstance(module, CodeObjectOp) and module.text_leading_padding is None
    module.properties["text_leading_padding"] = int_attr(1024)
    emitted = read_code_object(emit_code_object(module), name="leading")
    text = emitted.text
    assert text is not None
    assert text.data[:1024] == S_NOP_0 * 256
    assert min(kernel.function.value for kernel in emitted.kernels) == text.address + 1024
    again = lift_code_object(emitted).module
    assert isinstance(again, CodeObjectOp)
    assert again.text_leading_padding is not None
    assert again.text_leading_padding.value.data == 1024
    assert compare_code_objects(original, emitted).identical


def _function_before(module: CodeObjectOp, name: str) -> KernelOp:
    kernels = [op for op in module.body.ops if isinstance(op, KernelOp)]
    return kernels[[op.sym_name.data for op in kernels].index(name) - 1]


@pytest.mark.parametrize("fill", [bytes.fromhex("01020304"), S_NOP_0 + bytes(4)],
                         ids=["junk", "s_nop-and-zero"])
def test_a_gap_that_is_not_padding_is_kept_as_trailing_data(fill: bytes) -> None:
    data, name = _rewrite(fill)
    original = read_code_object(data, name="odd-gap")
    module = lift_code_object(original).module
    assert isinstance(module, CodeObjectOp)
    before = _function_before(module, name)
    trailing = before.trailing_bytes
    assert trailing and set(trailing) - {0}, "the gap's data is carried, not dropped"
    start, end, _ = _gaps(original)[0]
    assert len(trailing) <= end - start
    assert emit_code_object(module) == data


def test_a_head_of_data_is_kept() -> None:
    """Bytes before the first function that are not s_nop padding (data no symbol names)
    are the code object's text_leading_data: the first 4 bytes here, the rest the s_nop
    padding up to the function's alignment, and the file comes back byte for byte."""
    module = lift_code_object(read_code_object(SAMPLE)).module
    assert isinstance(module, CodeObjectOp)
    module.properties["text_leading_padding"] = int_attr(8)
    data = bytearray(emit_code_object(module))
    emitted = read_code_object(bytes(data), name="leading")
    text = emitted.text
    assert text is not None and text.data[:8] == S_NOP_0 * 2
    at = _text_file_offset(emitted) + text.address
    data[at:at + 4] = bytes.fromhex("01020304")
    lifted = lift_code_object(read_code_object(bytes(data), name="data-head")).module
    assert isinstance(lifted, CodeObjectOp)
    assert lifted.leading_bytes == bytes.fromhex("01020304")
    assert lifted.text_leading_padding is None
    assert emit_code_object(lifted) == bytes(data)
