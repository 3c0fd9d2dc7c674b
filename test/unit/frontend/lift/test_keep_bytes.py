"""``LiftOptions.keep_bytes``: a function whose bytes can be written back as they are gets
no ops, and the object written from the kept bytes is the one written from the full IR.

``luthier-opt --lift X.co -o Y.co`` lifts this way (nothing reads a body); so the equality
checked here, on every code object of the corpus (linked and relocatable, CDNA, RDNA, real
true16, hand-written ones with labels, data and unnamed code), is what keeps that fast
path exact. What a function must satisfy to be kept (every instruction encodes back to its
bytes, no PC-relative operand, no branch to or from another function's code) is checked
on functions that break each condition.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.ir import Operation

from luthier.amdgpu_dialects.amdgpu_mc.instructions import InstructionOpBase, branch_label
from luthier.amdgpu_dialects.amdgpu_mc.operands import SymbolOperandAttr
from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp, FunctionLikeOp, LabelOp
from luthier.amdgpu_dialects.amdgpu_mc.target_context import target_key
from luthier.amdgpu_dialects.isa.target import load_target
from luthier.amdgpu_dialects.mc.decoder import decoder_for
from luthier.amdgpu_dialects.mc.encoder import encoder_for
from luthier.frontend.codeobj import CodeObject, ElfType, read_code_object, read_code_objects
from luthier.frontend.codeobj.spec import RelocationColumns
from luthier.frontend.lift import LiftOptions, LiftResult, lift_code_object
from luthier.lowering.emit.errors import EmitError
from luthier.lowering.emit.object_spec import emit_code_object, emit_relocatable
from luthier.lowering.emit.text import EncodedFunction, TextEncoder, kept_functions

ROOT = Path(__file__).resolve().parents[4]
CORPUS = ROOT / "test" / "corpus"
OBJECTS = sorted([*CORPUS.glob("kernels/*.co"), *CORPUS.glob("kernels/*.o"),
                  *CORPUS.glob("rdna/*.co"), *CORPUS.glob("rdna/*.o"),
                  *CORPUS.glob("real_true16/*.co"),
                  *(path for path in CORPUS.glob("handwritten/*.co")
                    if path.stem != "unsupported_target"),
                  *CORPUS.glob("bench/kernels.*.co"), *ROOT.glob("examples/sample/*.co")])


def _lift(code_object: CodeObject, keep_bytes: bool) -> LiftResult:
    return lift_code_object(code_object, LiftOptions(keep_bytes=keep_bytes))


def _encoded(result: LiftResult) -> dict[str, EncodedFunction]:
    return kept_functions(result.kept)


def _functions(module: CodeObjectOp) -> dict[str, FunctionLikeOp]:
    return {op.sym_name.data: op for op in module.body.ops if isinstance(op, FunctionLikeOp)}


def _written(module: CodeObjectOp, encoded: dict[str, EncodedFunction] | None) -> list[object]:
    """What each writer makes of ``module``: bytes, or the error's text."""
    outputs: list[object] = []
    for emit in (emit_code_object, emit_relocatable):
        try:
            outputs.append(emit(module, encoded))
        except EmitError as error:
            outputs.append(str(error))
    return outputs


def test_the_corpus_is_there() -> None:
    assert len(OBJECTS) >= 100


@pytest.mark.parametrize("path", OBJECTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_kept_bytes_write_what_the_ir_writes(path: Path) -> None:
    for code_object in read_code_objects(path.read_bytes(), name=str(path)):
        full, kept = _lift(code_object, False), _lift(code_object, True)
        assert kept.warnings == full.warnings
        assert kept.instruction_count == full.instruction_count
        ops, shells = _functions(full.module), _functions(kept.module)
        assert list(ops) == list(shells)
        target = full.module.target_key
        text_encoder = TextEncoder(load_target(*target), encoder_for(*target))
        for name, code in kept.kept.items():
            assert not shells[name].body.blocks  # no op was built for it
            apart = text_encoder.encode_apart(ops[name])
            assert apart == EncodedFunction(code, RelocationColumns().table()), name
        for name in set(shells) - set(kept.kept):
            assert shells[name].body.blocks
        assert _written(kept.module, _encoded(kept)) == _written(full.module, None)


@pytest.mark.parametrize("path", OBJECTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_a_function_is_kept_unless_its_bytes_may_change(path: Path) -> None:
    """Kept exactly when the full lift's ops write the input's bytes with nothing to
    relocate or patch: no symbolic (PC-relative) operand, no label, no branch to a
    label, and every instruction encoded back to its bytes."""
    code_object = read_code_object(path)
    text = code_object.text
    assert text is not None
    full, kept = _lift(code_object, False), _lift(code_object, True)
    target = full.module.target_key
    text_encoder = TextEncoder(load_target(*target), encoder_for(*target))
    addresses = {symbol.name: symbol.value for symbol in code_object.symbols}
    for name, op in _functions(full.module).items():
        if name not in addresses:
            continue  # code no symbol names (unnamed_code.co): found by the lift
        movable = any(_has_symbol(inner) or isinstance(inner, LabelOp)
                      or (isinstance(inner, InstructionOpBase)
                          and branch_label(inner) is not None) for inner in op.walk())
        written = text_encoder.encode_apart(op).data
        start = addresses[name] - (0 if code_object.elf_type is ElfType.ET_REL
                                   else text.address)
        same = written == text.data[start:start + len(written)]
        assert (name in kept.kept) == (not movable and same), name


def _has_symbol(op: Operation) -> bool:
    return isinstance(op, InstructionOpBase) and any(
        isinstance(attr, SymbolOperandAttr) for attr in op.mc_operands.data)


def test_pc_relative_code_is_not_kept() -> None:
    """A function that calls or reads a global computes an address with ``s_getpc_b64``:
    that operand becomes symbolic, so the function's bytes depend on where things land
    and its ops are built."""
    found = 0
    for path in OBJECTS:
        if path.suffix == ".co" and path.parent.name == "kernels":
            full, kept = (_lift(read_code_object(path), keep) for keep in (False, True))
            for name, op in _functions(full.module).items():
                if any(_has_symbol(inner) for inner in op.walk()):
                    assert name not in kept.kept
                    found += 1
    assert found >= 10


def test_compiled_code_is_mostly_kept() -> None:
    """What is not kept in compiled code: the functions that call (``s_getpc_b64``, a
    symbolic call target) or read a global."""
    kept = sum(len(_lift(read_code_object(path), True).kept) for path in OBJECTS
               if path.parent.name == "kernels" and path.suffix == ".co")
    assert kept >= 100


def test_code_other_functions_branch_into_is_not_kept() -> None:
    """shared_tail.s: a kernel branches into another one's code, which gets a label."""
    code_object = read_code_object(CORPUS / "handwritten" / "shared_tail.co")
    full, kept = _lift(code_object, False), _lift(code_object, True)
    labelled = {name for name, op in _functions(full.module).items()
                if any(isinstance(inner, LabelOp) for inner in op.walk())}
    assert labelled
    assert not labelled & set(kept.kept)


def test_an_encoding_that_does_not_come_back_is_not_kept() -> None:
    """An odd SGPR in a 64-bit pair's field decodes as the even pair and encodes back to
    it: the written code differs from the input there, so the function's ops are built
    and written (as the full lift writes it), not its input bytes."""
    path = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"
    data = bytearray(path.read_bytes())
    code_object = read_code_object(bytes(data))
    key = target_key(code_object.processor, None)
    decoder, encoder = decoder_for(*key), encoder_for(*key)
    text = code_object.text
    assert text is not None
    kernel = code_object.kernels[0].function
    start = kernel.value - text.address
    offset, patched = start, None
    while offset < start + kernel.size:
        inst = decoder.decode(text.data, offset, offset)
        if inst.desc.name.startswith("S_") and inst.desc.name.endswith("B64_vi") \
                and inst.size == 4:
            word = int.from_bytes(text.data[offset:offset + 4], "little")
            sdst = (word >> 16) & 0x7F
            if sdst < 100 and sdst % 2 == 0:
                patched = offset
                new = (word | 1 << 16).to_bytes(4, "little")
                file_offset = code_object.sections[text.index].offset + offset
                data[file_offset:file_offset + 4] = new
                odd = decoder.decode(new, 0, 0)
                assert encoder.encode(odd, keep_literals=True) != new
                break
        offset += inst.size
    assert patched is not None, "no 64-bit scalar op with an SGPR pair in the sample"
    mutated = read_code_object(bytes(data))
    full, kept = _lift(mutated, False), _lift(mutated, True)
    assert kernel.name not in kept.kept
    written = _written(kept.module, _encoded(kept))
    assert written == _written(full.module, None)
    assert written[0] != bytes(data)  # the odd register is written as its pair
