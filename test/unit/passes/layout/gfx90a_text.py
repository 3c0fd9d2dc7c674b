"""One gfx90a code object from the text of its functions: what the layout tests build their
inputs from (relaxation, packed code)."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from luthier.amdgpu_dialects.amdgpu_mc.structure import CodeObjectOp
from luthier.amdgpu_dialects.dialects import LUTHIER_DIALECTS

HEADER = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", '
          'e_flags = 1343 : i64, abi_version = 3 : i64}> {\n')


def parse_code_object(body: str) -> CodeObjectOp:
    """The gfx90a code object whose body (functions, kernels) is ``body``."""
    context = Context()
    context.load_dialect(Builtin)
    for name, factory in LUTHIER_DIALECTS.items():
        context.register_dialect(name, factory)
    module = Parser(context, HEADER + body + "\n}\n").parse_module()
    assert isinstance(module, ModuleOp)
    code_object = module.body.block.first_op
    assert isinstance(code_object, CodeObjectOp)
    return code_object
