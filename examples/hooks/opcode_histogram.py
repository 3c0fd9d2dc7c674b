"""Opcode histogram: how many times waves execute each opcode.

The Python twin of opcode_histogram.mlir (see there and README.md): a table of
``ENTRIES`` u64 counters indexed by ``Site("opcode")``; ``opcode_names(processor)`` maps
an index back to its mnemonic.
"""

from luthier.frontend.hooks import HookBuilder, HookModule, Site, Value, i32, i64

#: Counters in the table: more than any supported target has opcodes (8603 on gfx1030).
ENTRIES = 16384

hooks = HookModule()
histogram = hooks.global_var("opcode_histogram", size=ENTRIES * 8)


@hooks.hook(args=[i32])
def count_opcode(h: HookBuilder, opcode: Value) -> None:
    with h.if_(opcode < ENTRIES):
        table = h.global_addr(histogram)
        slot = table + opcode.zext(i64) * 8
        h.atomic("add", slot, h.const(1, i64))


hooks.insert(count_opcode, at="instruction", args=[Site("opcode")])
