"""``code_objects_in`` finds the code objects ``walk()`` finds, in the same order, without
visiting what is inside them (passes look for code objects in modules that hold a
library's instructions)."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, code_objects_in
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"


def _lifted(name: str) -> CodeObjectOp:
    return lift_code_object(read_code_object((CORPUS / name).read_bytes())).module


def test_nested_modules_in_walk_order() -> None:
    first, second, third = (_lifted(name) for name in
                            ("lds.gfx90a.co", "calls.gfx90a.co", "scratch.gfx942.co"))
    module = ModuleOp([first, ModuleOp([second, ModuleOp([])]), third])
    walked = [op for op in module.walk() if isinstance(op, CodeObjectOp)]
    assert code_objects_in(module) == walked == [first, second, third]
    assert code_objects_in(first) == [first]
    assert code_objects_in(ModuleOp([])) == []


def test_does_not_look_inside_code_objects() -> None:
    # Nothing valid nests a code object in another; put one there anyway, where only a walk
    # into the outer one's body would find it.
    outer, inner = _lifted("lds.gfx90a.co"), _lifted("calls.gfx90a.co")
    outer.body.block.add_op(ModuleOp([inner]))
    module = ModuleOp([outer])
    assert [op for op in module.walk() if isinstance(op, CodeObjectOp)] == [outer, inner]
    assert code_objects_in(module) == [outer]
