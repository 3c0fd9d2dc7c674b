"""Memory address trace: every 64-bit address each active lane loads from, stores to or
accesses atomically with a ``global_*`` or ``flat_*`` instruction.

The Python twin of memory_trace.mlir (see there for the forms of access it handles, what a
flat address may point to, and its limits; and README.md). Each wave reserves room for its
active lanes with one atomic on ``trace_cursor``; each lane stores the address it accesses
at its slot of ``trace_buffer`` when the slot is below ``CAPACITY``.

The traced insertions are optional, so a kernel lacking one kind of access (store-only,
atomic-only) is instrumented rather than refused. ``buffer_*``, ``tbuffer_*`` and
``scratch_*`` accesses have no 64-bit address operand: skip insertions make
``luthier-opt`` report, per kernel, how many were left out.
"""

from luthier.frontend.hooks import HookBuilder, HookModule, Operand, Value, i64

#: Addresses the buffer holds (u64 each).
CAPACITY = 65536
#: Accesses with a 64-bit address operand: traced.
TRACED = ("global_*", "flat_*")
#: Accesses without one: counted and reported, not traced.
SKIPPED = ("buffer_load*", "buffer_store*", "buffer_atomic*", "tbuffer_*", "scratch_*")
WHY = "buffer and scratch accesses are not traced: they have no 64-bit address operand"

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


for pattern in TRACED:
    hooks.insert(trace_address, at="instruction", mnemonic=pattern, optional=True,
                 args=[Operand("address")])
for pattern in SKIPPED:
    hooks.insert(trace_address, at="instruction", mnemonic=pattern, skip=WHY,
                 args=[Operand("address")])
# GFX12's cache controls are global_* instructions with no address: left out of global_*.
hooks.insert(trace_address, at="instruction", mnemonic="global_wb*",
             skip="cache controls (GFX12's global_wb, global_wbinv) access no address",
             args=[Operand("address")])
hooks.insert(trace_address, at="instruction", mnemonic="global_inv",
             skip="cache controls (GFX12's global_inv) access no address",
             args=[Operand("address")])
