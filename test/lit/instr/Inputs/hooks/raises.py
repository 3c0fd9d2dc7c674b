from luthier.frontend.hooks import HookBuilder, HookModule, i32, i64

hooks = HookModule()


@hooks.hook()
def bad(h: HookBuilder) -> None:
    h.const(1, i32) + h.const(2, i64)
