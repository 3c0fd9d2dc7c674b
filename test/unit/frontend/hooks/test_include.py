"""Python inserts hooks of another hook file (HookModule.include): a HIP tool's hooks
placed by Python, as issue 18 asks ("insertion from the same file or from Python")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerType

import luthier
from luthier.amdgpu_dialects.instr.ops import InsertOp
from luthier.frontend.hooks import Const, Global, Hook, HookModule, i1

ROOT = Path(__file__).resolve().parents[4]
HOOKS = ROOT / "examples" / "hooks"


def test_included_mlir_hooks_are_this_modules_own() -> None:
    hooks = HookModule()
    names = hooks.include(luthier.load_hooks(HOOKS / "instr_count.mlir"))
    assert isinstance(names["count_instruction"], Hook)
    assert isinstance(names["instr_count_wave"], Global)
    count = names["count_instruction"]
    assert isinstance(count, Hook)
    hooks.insert(count, at="kernel_entry")
    inserts = [op for op in hooks.module.ops if isinstance(op, InsertOp)]
    assert [op.at.data for op in inserts] == ["instruction", "kernel_entry"]
    with pytest.raises(ValueError, match="already declared"):
        hooks.include(luthier.load_hooks(HOOKS / "instr_count.mlir"))


@pytest.mark.skipif(shutil.which("clang-19") is None, reason="needs clang-19")
def test_python_inserts_a_hip_hook(tmp_path: Path) -> None:
    hooks = HookModule()
    names = hooks.include(luthier.load_hooks(HOOKS / "instr_count_vector.hip"))
    vector = names["countInstructionsVector"]
    assert isinstance(vector, Hook) and vector.arg_types == (IntegerType(1),)
    hooks.insert(vector, at="instruction", mnemonic="global_store*", args=[Const(0, i1)])
    with pytest.raises(TypeError, match="takes 1 arguments"):
        hooks.insert(vector, at="instruction")
    tool = tmp_path / "tool.mlir"
    hooks.write(str(tool))
    data = luthier.instrument(ROOT / "examples" / "sample" / "vector_add.gfx90a.co", tool)
    assert data[:4] == b"\x7fELF"
