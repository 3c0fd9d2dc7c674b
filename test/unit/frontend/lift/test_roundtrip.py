"""Identity round trips over the whole kernel corpus.

Lifting a linked code object and emitting it again must give the same file, byte for byte
(instructions, descriptors, symbols, metadata, layout); printing the IR and parsing it back
must give the same text; and verification must accept every lifted module.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from luthier.amdgpu_dialects.amdgpu_mc.dialect import make_dialect
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object
from luthier.lowering.emit import emit_code_object

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "kernels"
LINKED = sorted(CORPUS.glob("*.co"))
RELOCATABLE = sorted(CORPUS.glob("*.o"))
#: The RDNA corpus (wave32 and wave64): its byte-level round trips are test_rdna.py's; its
#: IR text round trips here.
RDNA = sorted((CORPUS.parent / "rdna").glob("*.co")) + sorted((CORPUS.parent / "rdna").glob("*.o"))


def _text(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def test_corpus_is_there() -> None:
    assert len(LINKED) >= 19 and len(RELOCATABLE) >= 16


@pytest.mark.parametrize("path", LINKED, ids=lambda p: p.name)
def test_linked_code_object_is_byte_identical(path: Path) -> None:
    code_object = read_code_object(path)
    result = lift_code_object(code_object)
    assert result.warnings == []
    assert emit_code_object(result.module) == path.read_bytes()


@pytest.mark.parametrize("path", LINKED + RELOCATABLE + RDNA, ids=lambda p: p.name)
def test_ir_text_round_trip(path: Path) -> None:
    module = ModuleOp([lift_code_object(read_code_object(path)).module])
    module.verify()
    text = _text(module)
    context = Context()
    context.load_dialect(Builtin)
    context.load_dialect(make_dialect())
    parsed = Parser(context, text, path.name).parse_module()
    parsed.verify()
    assert _text(parsed) == text
