"""Global-memory address trace: every address each active lane loads from or stores to.

The Python twin of memory_trace.mlir (see there for the form of global access it handles
and its limits, and README.md). Each wave reserves room for its active lanes with one
atomic on ``trace_cursor``; each lane stores the address it accesses at its slot of
``trace_buffer`` when the slot is below ``CAPACITY``.
"""

from luthier.frontend.hooks import HookBuilder, HookModule, Operand, Value, i64

#: Addresses the buffer holds (u64 each).
CAPACITY = 65536

hooks = HookModule()
cursor = hooks.global_var("trace_cursor", size=8)
buffer = hooks.global_var("trace_buffer", size=CAPACITY * 8)


@hooks.hook(args=[i64])
def trace_address(h: HookBuilder, address: Value) -> None:
    exec_mask = h.read_reg("exec")
    active = h.popcount(exec_mask).zext(i64)
    base = h.atomic("add", h.global_addr(cursor), active)  # once per wave: uniform
    lane = h.lane_id().zext(i64)
    one = h.const(1, i64)
    rank = h.popcount(exec_mask & ((one << lane) - one)).zext(i64)  # active lanes below
    slot = base + rank
    with h.if_(slot < CAPACITY):
        entry = h.global_addr(buffer) + slot * 8
        h.store(address, entry)  # per-lane operands: once per lane


for pattern in ("global_load*", "global_store*"):
    hooks.insert(trace_address, at="instruction", mnemonic=pattern,
                 args=[Operand("address")])
