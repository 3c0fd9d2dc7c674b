"""The ``instr`` dialect: hooks, intrinsics, insertions and payloads."""
