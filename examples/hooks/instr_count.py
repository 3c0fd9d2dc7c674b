"""Instruction counter: how many instructions the kernels execute, per wave and per thread.

The Python twin of instr_count.mlir (see there and README.md). Before every instruction of
every kernel, each wave adds 1 to ``instr_count_wave`` (uniform operands: once per wave)
and its active lane count, ``popcount(exec)``, to ``instr_count_thread``.
"""

from luthier.frontend.hooks import HookBuilder, HookModule, i64

hooks = HookModule()
waves = hooks.global_var("instr_count_wave", size=8)
threads = hooks.global_var("instr_count_thread", size=8)


@hooks.hook()
def count_instruction(h: HookBuilder) -> None:
    h.atomic("add", h.global_addr(waves), h.const(1, i64))
    threads_addr = h.global_addr(threads)
    active = h.popcount(h.read_reg("exec"))
    h.atomic("add", threads_addr, active.zext(i64))


hooks.insert(count_instruction, at="instruction")
