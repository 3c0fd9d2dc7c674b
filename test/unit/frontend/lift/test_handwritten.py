"""Hand-written code objects (``test/corpus/handwritten``): what compilers never make and
LLVM's tools accept — function symbols without ``.size``, data and filler words between and
after functions, a table before the first one, kernels that branch into another's code or
into code no symbol names, and GFX11's true16 operands (16-bit halves of VGPRs).

Each one lifts, comes back byte for byte through both outputs (ELF, and assembly that
llvm-mc-19 and ld.lld-19 turn into the same file), says which extents it inferred, and is
instrumented by every example hook into kernels that compute what the originals compute.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, branch_label
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    S_NOP_0,
    CodeObjectOp,
    FunctionLikeOp,
    LabelOp,
)
from luthier.emulator.api import RunResult, run_kernel
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.compare import compare_code_objects
from luthier.frontend.lift import lift_code_object
from luthier.frontend.lift.extents import s_nop_suffix
from luthier.lowering.emit import emit_code_object

ROOT = Path(__file__).resolve().parents[4]
HANDWRITTEN = ROOT / "test" / "corpus" / "handwritten"
HOOKS = ("instr_count", "opcode_histogram", "memory_trace", "kernarg_reader")
OBJECTS = ("no_size", "data_between", "filler", "leading_data", "shared_tail", "unnamed_code",
           "true16")
LANES = 64
#: Every kernel, and what it stores in out[tid] with count = 1 (the comments in the .s).
EXPECTED = {
    ("no_size", "no_size"): np.arange(LANES) + 7,
    ("data_between", "with_data"): np.arange(LANES) * 3,
    ("data_between", "second"): np.full(LANES, -1),
    ("filler", "filled"): np.arange(LANES) + 100,
    ("filler", "after_filler"): np.full(LANES, 5),
    ("leading_data", "after_table"): np.arange(LANES) + 7,
    ("shared_tail", "first"): np.arange(LANES) + 1,
    ("shared_tail", "second"): np.arange(LANES) * 2,
    ("shared_tail", "third"): np.arange(LANES) + 100,
    ("unnamed_code", "first"): np.arange(LANES) + 1,
    ("unnamed_code", "second"): np.arange(LANES) * 2,
    ("true16", "halves"): np.arange(LANES) << 16 | 0x5678,
}
needs_llvm = pytest.mark.skipif(shutil.which("llvm-mc-19") is None
                                or shutil.which("ld.lld-19") is None,
                                reason="needs llvm-mc-19 and ld.lld-19 (scripts/setup.sh)")


def _lifted(name: str) -> CodeObjectOp:
    module = lift_code_object(read_code_object(HANDWRITTEN / f"{name}.co")).module
    assert isinstance(module, CodeObjectOp)
    return module


def _functions(module: CodeObjectOp) -> dict[str, FunctionLikeOp]:
    return {op.sym_name.data: op for op in module.body.ops if isinstance(op, FunctionLikeOp)}


@needs_llvm
def test_the_objects_are_what_build_sh_makes() -> None:
    subprocess.run(["bash", str(HANDWRITTEN / "build.sh"), "--check"], check=True)


@pytest.mark.parametrize("name", OBJECTS)
def test_the_elf_round_trip_is_byte_identical(name: str) -> None:
    assert emit_code_object(_lifted(name)) == (HANDWRITTEN / f"{name}.co").read_bytes()


@needs_llvm
@pytest.mark.parametrize("name", OBJECTS)
def test_the_assembly_round_trip_is_byte_identical(name: str, tmp_path: Path) -> None:
    source, obj, linked = tmp_path / "out.s", tmp_path / "out.o", tmp_path / "out.co"
    subprocess.run([sys.executable, "-m", "luthier.drivers.luthier_opt", "--lift",
                    str(HANDWRITTEN / f"{name}.co"), "-o", str(source)], check=True)
    processor = read_code_object(HANDWRITTEN / f"{name}.co").processor
    subprocess.run(["llvm-mc-19", "-triple=amdgcn-amd-amdhsa", f"-mcpu={processor}",
                    "-filetype=obj", str(source), "-o", str(obj)], check=True, timeout=60)
    subprocess.run(["ld.lld-19", "-shared", str(obj), "-o", str(linked)], check=True)
    assert linked.read_bytes() == (HANDWRITTEN / f"{name}.co").read_bytes()


@pytest.mark.parametrize("name", OBJECTS)
def test_inferred_extents_and_trailing_data_are_what_the_file_holds(name: str) -> None:
    original = read_code_object(HANDWRITTEN / f"{name}.co")
    text = original.text
    assert text is not None
    symbols = sorted([kernel.function for kernel in original.kernels]
                     + [function.symbol for function in original.device_functions],
                     key=lambda symbol: symbol.value)
    functions = _functions(_lifted(name))
    named = {function: op for function, op in functions.items() if op.anonymous is None}
    assert set(named) == {symbol.name for symbol in symbols}
    assert all(op.inferred_extent is not None for op in functions.values()
               if op.anonymous is not None)
    for symbol in symbols:
        op = functions[symbol.name]
        assert (op.inferred_extent is not None) == (symbol.size == 0), symbol.name
    # Code, trailing data and padding tile .text: every byte is somewhere in the IR.
    emitted = read_code_object(emit_code_object(_lifted(name)))
    assert emitted.text is not None and emitted.text.data == text.data


def test_the_extents_stop_where_control_flow_does() -> None:
    functions = _functions(_lifted("no_size"))
    # The v_mov_b32 after s_endpgm is unreachable: data after the kernel, not its code.
    assert functions["no_size"].trailing_bytes == bytes.fromhex("8002027e")
    assert functions["helper"].trailing_bytes == b""
    filled = _functions(_lifted("filler"))["filled"]
    # The block s_branch jumps over is inside the extent; the filler words are not.
    assert filled.trailing_bytes.startswith(bytes.fromhex("00009fbf") * 6)
    # The table before the first function is the code object's, the alignment gap after
    # it s_nop padding again.
    assert _lifted("leading_data").leading_bytes == bytes.fromhex(
        "0df0feca020000000300000004000000")
    assert _lifted("data_between").leading_bytes == b""


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("name", OBJECTS)
def test_every_example_hook_instruments_them(
        name: str, hook: str, tmp_path: Path,
        luthier_opt: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    instrumented = tmp_path / "out.co"
    done = luthier_opt(["--lift", "--inline-hooks", "--emit-preamble",
                        HANDWRITTEN / f"{name}.co", "--hooks",
                        ROOT / "examples" / "hooks" / f"{hook}.mlir", "-o", instrumented,
                        "--no-progress"])
    assert done.returncode == 0, done.stderr
    lifted = _functions(_lifted(name))
    again = _functions(lift_code_object(read_code_object(instrumented)).module)
    for function, op in lifted.items():
        if op.anonymous is None:
            assert again[function].trailing_bytes == op.trailing_bytes, function
    # Code no symbol names moved with the code before it: its name (its address) changed.
    assert [op.trailing_bytes for op in lifted.values() if op.anonymous is not None] \
        == [op.trailing_bytes for op in again.values() if op.anonymous is not None]
    before, after = _lifted(name), lift_code_object(read_code_object(instrumented)).module
    assert isinstance(after, CodeObjectOp) and after.leading_bytes == before.leading_bytes
    for (obj, kernel), expected in EXPECTED.items():
        if obj != name:
            continue
        outputs: list[np.ndarray] = []
        results: list[RunResult] = []
        for code in (HANDWRITTEN / f"{name}.co", instrumented):
            out = np.zeros(LANES, np.int32)
            result = run_kernel(code, kernel, 1, LANES, [out, 1])
            stored = result.buffers[0]
            assert stored is not None
            outputs.append(stored)
            results.append(result)
        assert np.array_equal(outputs[0], expected), kernel
        assert np.array_equal(outputs[1], outputs[0]), kernel
        if hook == "instr_count":  # every instruction the wave ran, on whichever path
            counted = results[1].global_values("instr_count_wave", np.uint64)
            assert int(counted[0]) == results[0].instructions, kernel


def test_the_s_nop_tail_is_counted_in_whole_words() -> None:
    """The tail's s_nop padding is the run of whole words that ends it; anything before is
    trailing data (a linear scan: a hostile file's tail can be megabytes)."""
    word = S_NOP_0
    assert s_nop_suffix(b"\x01\x02" + word * 3) == 3 * len(word)
    assert s_nop_suffix(word[1:] + word) == len(word)
    assert s_nop_suffix(b"") == 0 and s_nop_suffix(bytes(3)) == 0
    assert s_nop_suffix(word * 1_000_000) == 4_000_000


def test_a_branch_into_another_function_lands_on_its_label() -> None:
    """``first`` and ``third`` branch into ``second``'s store (unconditionally, and when
    count == 1): each branch names the label, which starts a block of ``second`` right
    before the instruction it went to."""
    functions = _functions(_lifted("shared_tail"))
    ops = {name: [op for block in function.body.blocks for op in block.ops]
           for name, function in functions.items()}
    labels = [op for op in ops["second"] if isinstance(op, LabelOp)]
    assert [label.label.data for label in labels] == ["second+0x10"]
    label = labels[0]
    block = label.parent_block()
    assert block is not None and block.first_op is label
    assert isinstance(label.next_op, InstructionOpBase) and label.next_op.mnemonic == "s_waitcnt"
    for name, mnemonic, blocks in (("first", "s_branch", 0), ("third", "s_cbranch_scc1", 1)):
        (branch,) = [op for op in ops[name] if isinstance(op, InstructionOpBase)
                     and op.KIND == "branch"]
        found = branch_label(branch)
        assert branch.mnemonic == mnemonic and found is not None
        assert found.data == "second+0x10" and len(branch.successors) == blocks


def test_entry_state_is_refused_where_another_kernel_runs_the_code(tmp_path: Path) -> None:
    """A hook reading the kernarg pointer before every instruction would read the SVA of
    ``second`` in its tail on ``first``'s path too: refused in one line, no output."""
    hook = tmp_path / "every.mlir"
    hook.write_text((ROOT / "examples" / "hooks" / "kernarg_reader.mlir").read_text()
                    .replace('at = "kernel_entry"', 'at = "instruction"'))
    output = tmp_path / "out.co"
    run = subprocess.run([sys.executable, "-m", "luthier.drivers.luthier_opt", "--lift",
                          "--inline-hooks", "--emit-preamble",
                          str(HANDWRITTEN / "shared_tail.co"), "--hooks", str(hook), "-o",
                          str(output), "--no-progress"], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 1 and not output.exists()
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert "label \"second+0x10\"" in run.stderr and "entry state" in run.stderr


def test_code_no_symbol_names_is_lifted_where_a_branch_goes() -> None:
    """``first`` (sized up to its branch) goes to code after a data word that no symbol
    covers: an anonymous function at that address, its label at its start, the data word
    ``first``'s trailing data and the two words after the code the anonymous function's;
    the output's symbol tables gain nothing."""
    functions = _functions(_lifted("unnamed_code"))
    anonymous = [op for op in functions.values() if op.anonymous is not None]
    assert [op.sym_name.data for op in anonymous] == ["text.code.1718"]
    code = anonymous[0]
    assert functions["first"].trailing_bytes == bytes.fromhex("0df0feca")
    assert code.trailing_bytes == bytes.fromhex("1111111122222222")
    first_op = next(iter(code.body.blocks)).first_op
    assert isinstance(first_op, LabelOp) and first_op.label.data == "text.code.1718+0x0"
    emitted = read_code_object(emit_code_object(_lifted("unnamed_code")))
    assert sorted(symbol.name for symbol in emitted.symbols) == sorted(
        symbol.name for symbol in read_code_object(HANDWRITTEN / "unnamed_code.co").symbols)


SHARED_BY_OVERLAP = """\
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl	kernel_a
	.p2align	8
	.type	kernel_a,@function
kernel_a:
	v_mov_b32 v1, 1
	.globl	kernel_b
	.type	kernel_b,@function
kernel_b:
	s_endpgm
.Lend:
{sizes}
"""


@needs_llvm
@pytest.mark.parametrize("sizes", [
    "\t.size\tkernel_a, .Lend-kernel_a\n\t.size\tkernel_b, .Lend-kernel_b",  # overlapping
    "\t.size\tkernel_b, .Lend-kernel_b",  # kernel_a has no size and falls into kernel_b
], ids=["overlapping-sizes", "falls-into-the-next"])
def test_code_two_symbols_share_is_copied_with_a_warning(sizes: str, tmp_path: Path) -> None:
    """Two symbols over the same code (one falling into the other): each function gets
    its own copy, so every function's bytes come back and each runs what it ran; the
    output is larger, which one warning says (an error with --strict, and no output)."""
    source, obj, linked = tmp_path / "in.s", tmp_path / "in.o", tmp_path / "in.co"
    source.write_text(SHARED_BY_OVERLAP.format(sizes=sizes))
    subprocess.run(["llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a",
                    "-filetype=obj", str(source), "-o", str(obj)], check=True)
    subprocess.run(["ld.lld-19", "-shared", str(obj), "-o", str(linked)], check=True)
    command = [sys.executable, "-m", "luthier.drivers.luthier_opt", "--lift", str(linked)]
    run = subprocess.run([*command, "-o", str(tmp_path / "out.co")], capture_output=True,
                         text=True, check=True)
    assert run.stderr.splitlines() == [
        f"luthier-opt: warning: {linked}: kernel_a [0x1300, 0x1308) overlaps kernel_b at "
        "0x1304: each is lifted with its own copy of the 4 bytes they share, written one "
        "after the other (the output's code is larger)"]
    comparison = compare_code_objects(read_code_object(linked),
                                      read_code_object(tmp_path / "out.co"))
    assert comparison.functions == comparison.identical_functions == 2
    strict = subprocess.run([*command, "--strict", "-o", str(tmp_path / "strict.co")],
                            capture_output=True, text=True, check=False)
    assert strict.returncode == 1 and not (tmp_path / "strict.co").exists()
    assert strict.stderr.endswith("(--strict)\n") and strict.stderr.count("\n") == 1
