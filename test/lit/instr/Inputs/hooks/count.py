"""count.mlir, written with the Python API."""

from luthier.frontend.hooks import HookBuilder, HookModule, Site, Value, i32, i64

hooks = HookModule()
calls = hooks.global_var("calls", size=8)


@hooks.hook(args=[i32])
def count(h: HookBuilder, index: Value) -> None:
    h.atomic("add", h.global_addr(calls), index.zext(i64))


hooks.insert(count, at="kernel_entry", args=[Site("index")])
hooks.insert(count, at="instruction", mnemonic="global_*", args=[Site("index")])
