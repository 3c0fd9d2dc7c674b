"""PC-relative recovery follows forward branches: a payload with a branch of its own,
placed between an application's ``s_getpc_b64`` and its ``s_add_u32``/``s_addc_u32``,
leaves the pair symbolic when the instrumented object is lifted again (which the emulator
and a second instrumentation do). Before, the payload's branch ended the search and the
literals stayed numbers, silently: code that moved then addressed the wrong bytes.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import KernelOp
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object

ROOT = Path(__file__).resolve().parents[4]
CALLS = ROOT / "test" / "corpus" / "kernels" / "calls.gfx90a.co"

#: A hook whose payload branches (a per-lane scf.if), placed before instruction 26 of
#: indirect_call_table: the s_add_u32 after `s_getpc_b64 s[4:5]` (op_table's address).
HOOKS = """
instr.global @counter {size = 8 : i64}
instr.hook @first_lane_counts() {
  %exec = instr.read_reg "exec" : i64
  %lane = instr.lane_id : i32
  %first = instr.first_active_lane : i32
  %mine = arith.cmpi eq, %lane, %first : i32
  scf.if %mine {
    %one = arith.constant 1 : i64
    %address = instr.global_addr @counter : i64
    %old = instr.atomic "add" %address, %one : i64
  }
  instr.return
}
instr.insert @first_lane_counts {at = "instruction", kernel = "indirect_call_table",
                                 first = 26 : i64, last = 26 : i64, args = []}
"""


def _symbols(path: Path) -> list[tuple[str, str]]:
    """(mnemonic, symbolic operand) of indirect_call_table's symbolic literals."""
    module = lift_code_object(read_code_object(path)).module
    kernel = next(op for op in module.body.block.ops
                  if isinstance(op, KernelOp) and op.sym_name.data == "indirect_call_table")
    return [(op.mnemonic, attr.data.text()) for op in kernel.body.walk()
            if isinstance(op, InstructionOpBase)
            for attr in op.mc_operands.data if isinstance(attr, SymbolOperandAttr)]


def test_a_payload_branch_between_getpc_and_add_keeps_the_pair_symbolic(
        tmp_path: Path, luthier_opt: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    hooks = tmp_path / "hooks.mlir"
    hooks.write_text(HOOKS)
    output = tmp_path / "out.co"
    done = luthier_opt(["--no-progress", "--lift", "--inline-hooks", "--emit-preamble", CALLS,
                        "--hooks", hooks, "-o", output])
    assert done.returncode == 0, done.stderr
    before = [pair for pair in _symbols(CALLS) if "op_table" in pair[1]]
    assert [mnemonic for mnemonic, _ in before] == ["s_add_u32", "s_addc_u32"]
    after = _symbols(output)
    # The application's pair is still op_table's, its addends grown by the payload in
    # between (they count from the address after s_getpc_b64); the payload's own pair
    # names the tool's counter.
    table = [pair for pair in after if "op_table" in pair[1]]
    assert [mnemonic for mnemonic, _ in table] == ["s_add_u32", "s_addc_u32"]
    assert table != before
    assert [mnemonic for mnemonic, text in after if "counter" in text] == \
        ["s_add_u32", "s_addc_u32"]
