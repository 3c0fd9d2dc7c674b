from luthier.frontend.hooks import HookBuilder, HookModule, i32, i64

hooks = HookModule()


@hooks.hook()
def bad(h: HookBuilder) -> None:
    _ = h.const(1, i32) + h.const(2, i64)  # mixed widths: the builder raises
