"""RDNA code objects (gfx1030, gfx1100, gfx1201; wave32 and wave64) lift and go back.

The RDNA corpus (``test/corpus/rdna``) is the GFX9 kernel themes compiled for RDNA. Its
objects lift, verify, and are written again (their IR text round trip is
``test_roundtrip.py``'s, over both corpora):
a linked object byte for byte; a relocatable one with every function's bytes unchanged
when it is written as an object again or linked. A wave64 object is read in wave64 (its IR
says ``wavefront_size = 64`` and names ``vcc``, an SGPR pair), a wave32 one in the
processor's default (``vcc_lo``).
"""

from __future__ import annotations

import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.registers import PhysRegAttr
from luthier.amdgpu_dialects.isa.target import LIFT_TARGETS, SUPPORTED_TARGETS
from luthier.frontend.codeobj import read_code_object, read_elf
from luthier.frontend.codeobj.compare import compare_code_objects
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit import emit_code_object, emit_relocatable

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "rdna"
LINKED = sorted(CORPUS.glob("*.co"))
RELOCATABLE = sorted(CORPUS.glob("*.o"))
TARGETS = ("gfx1030", "gfx1100", "gfx1201")


def _text(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def test_corpus_covers_every_rdna_target_in_both_wave_sizes() -> None:
    for target in TARGETS:
        assert target in LIFT_TARGETS and target in SUPPORTED_TARGETS
        wave32 = [p for p in LINKED if p.name.endswith(f".{target}.co")]
        wave64 = [p for p in LINKED if p.name.endswith(f".{target}.w64.co")]
        assert len(wave32) == len(wave64) >= 8, target
    assert len(RELOCATABLE) == len(LINKED)


def test_manifest_lists_every_file() -> None:
    manifest = (CORPUS / "MANIFEST.md").read_text()
    listed = {line.split("|")[1].strip() for line in manifest.splitlines()
              if line.startswith("| ") and line.split("|")[1].strip().endswith((".co", ".o"))}
    assert listed == {path.name for path in LINKED + RELOCATABLE}


def test_build_is_reproducible_and_current() -> None:
    """build.sh --check rebuilds every object with clang-19 and compares the bytes."""
    if shutil.which("clang-19") is None or shutil.which("llvm-readelf-19") is None:
        pytest.skip("clang-19 and llvm-readelf-19 are not installed (scripts/setup.sh)")
    done = subprocess.run(["bash", str(CORPUS / "build.sh"), "--check"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, f"the RDNA corpus is stale, run build.sh:\n{done.stderr}"


@pytest.mark.parametrize("path", LINKED, ids=lambda p: p.name)
def test_linked_code_object_is_byte_identical(path: Path) -> None:
    result = lift_code_object(read_code_object(path))
    assert result.warnings == []
    assert emit_code_object(result.module) == path.read_bytes()


@pytest.mark.parametrize("path", LINKED, ids=lambda p: p.name)
def test_wave_size_comes_from_the_descriptors(path: Path) -> None:
    module = lift_code_object(read_code_object(path)).module
    wave64 = ".w64." in path.name
    assert module.wave_size == (64 if wave64 else 32)
    assert (module.wavefront_size is not None) == wave64
    text = _text(ModuleOp([module]))
    # VOPC and carry-out operands name the wave's mask: an SGPR pair in wave64.
    assert ("vcc_lo" in text) != wave64


@pytest.mark.parametrize("path", RELOCATABLE, ids=lambda p: p.name)
def test_relocatable_object_keeps_every_function(path: Path) -> None:
    module = lift_code_object(read_code_object(path)).module
    again = compare_code_objects(read_elf(path.read_bytes(), str(path)),
                                 read_elf(emit_relocatable(module), "<relocatable>"))
    assert again.functions > 0 and again.identical_functions == again.functions
    linked = compare_code_objects(read_code_object(path.with_suffix(".co")),
                                  read_elf(emit_code_object(module), "<linked>"))
    assert linked.functions > 0 and linked.identical_functions == linked.functions


def test_a_lane_mask_operand_has_the_wave_size() -> None:
    """The verifier holds each lane-mask operand to the code object's wave size: a wave32
    object's carry-out is vcc_lo; the pair vcc there (an op built or edited, not parsed,
    which the assembler would refuse) is refused, and so is vcc_lo in wave64."""
    for name, wrong in (("elementwise.gfx1100.co", "vcc"),
                        ("elementwise.gfx1100.w64.co", "vcc_lo")):
        module = lift_code_object(read_code_object(CORPUS / name)).module
        op = next(op for op in module.walk() if isinstance(op, InstructionOpBase)
                  and op.mnemonic == "v_add_co_u32")
        operands = list(op.mc_operands.data)
        assert operands[1] == PhysRegAttr.get_register(
            "vcc" if wrong == "vcc_lo" else "vcc_lo")
        operands[1] = PhysRegAttr.get_register(wrong)
        op.properties["mc_operands"] = ArrayAttr(operands)
        with pytest.raises(VerifyException, match=f"operand 'sdst' of 'v_add_co_u32': "
                                                  f"{wrong} is not a lane mask of a"):
            op.verify()


@pytest.mark.parametrize("path", [p for p in LINKED if p.name.startswith(("calls.", "globals."))],
                         ids=lambda p: p.name)
def test_pc_relative_sequences_are_symbolic(path: Path) -> None:
    """Every s_getpc_b64 sequence of a linked object names its target (so code can move):
    s_add_u32/s_addc_u32 through GFX11, and GFX12's s_sext_i32_i16 of the high half, then
    s_add_co_u32/s_add_co_ci_u32."""
    module = lift_code_object(read_code_object(path)).module
    sequences = 0
    for block in (block for op in module.walk() for region in op.regions
                  for block in region.blocks):
        ops = [op for op in block.ops if isinstance(op, InstructionOpBase)]
        for at, op in enumerate(ops):
            if op.mnemonic != "s_getpc_b64":
                continue
            following = [o for o in ops[at + 1:at + 4] if o.mnemonic != "s_sext_i32_i16"][:2]
            assert [o.mnemonic for o in following] in (
                ["s_add_u32", "s_addc_u32"], ["s_add_co_u32", "s_add_co_ci_u32"])
            for add in following:
                assert isinstance(add.mc_operands.data[-1], SymbolOperandAttr), add.mnemonic
            sequences += 1
    assert sequences > 0


@pytest.mark.parametrize("path", sorted(CORPUS.glob("calls.*.o")), ids=lambda p: p.name)
def test_section_relative_calls_of_an_object_are_named_after_the_callee(path: Path) -> None:
    """clang relocates a call to a local function against ``.text`` + addend; both literals
    of the sequence (GFX12's s_add_co_u32 and s_add_co_ci_u32 too) are renamed after the
    function there, so that the call survives code moving and the emulator can place it."""
    module = lift_code_object(read_code_object(path)).module
    named = [attr.data.reference.symbol for op in module.walk()
             if isinstance(op, InstructionOpBase) and op.mnemonic.startswith("s_add")
             for attr in op.mc_operands.data
             if isinstance(attr, SymbolOperandAttr) and attr.data.reference is not None]
    assert named and ".text" not in named
