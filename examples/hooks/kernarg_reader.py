"""Launch reader: the grid and block sizes of the dispatch and its first kernel argument.

The Python twin of kernarg_reader.mlir (see there for the record's layout, and
README.md). At each kernel's entry every wave stores the same uniform values, once per
wave.
"""

from luthier.frontend.hooks import HookBuilder, HookModule, i64

hooks = HookModule()
record = hooks.global_var("kernarg_record", size=32)


@hooks.hook()
def read_launch(h: HookBuilder) -> None:
    base = h.global_addr(record)
    sizes = [(h.grid_dim, dim) for dim in "xyz"] + [(h.block_dim, dim) for dim in "xyz"]
    for position, (size_of, dim) in enumerate(sizes):
        value = size_of(dim)
        h.store(value, base + 4 * position if position else base)
    h.store(h.kernarg(0, i64), base + 24)


hooks.insert(read_launch, at="kernel_entry")
