"""Write instrumentation hooks in Python: the ``instr`` IR a tool writer would write in MLIR.

    from luthier.frontend.hooks import HookBuilder, HookModule, i64

    tool = HookModule()
    counter = tool.global_var("wave_count", size=8)

    @tool.hook()
    def count_wave(h: HookBuilder) -> None:
        h.atomic("add", h.global_addr(counter), h.const(1, i64))

    tool.insert(count_wave, at="instruction")

See docs/hooks.md for the semantics (a payload runs once per wave; uniform and per-lane
values) and examples/hooks/ for complete tools.
"""

from xdsl.dialects.builtin import IntegerType, f32, f64, i1, i32, i64

from luthier.frontend.hooks.args import Const, InsertionArg, Operand, Reg, Site
from luthier.frontend.hooks.builder import HookBuilder
from luthier.frontend.hooks.module import HookModule
from luthier.frontend.hooks.opcodes import opcode_count, opcode_names
from luthier.frontend.hooks.symbols import Global, Hook
from luthier.frontend.hooks.values import Value

__all__ = [
    "Const",
    "Global",
    "Hook",
    "HookBuilder",
    "HookModule",
    "InsertionArg",
    "IntegerType",
    "Operand",
    "Reg",
    "Site",
    "Value",
    "f32",
    "f64",
    "i1",
    "i32",
    "i64",
    "opcode_count",
    "opcode_names",
]
