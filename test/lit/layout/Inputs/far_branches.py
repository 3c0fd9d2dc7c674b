"""Print a code object whose branches jump over more than the 128 KiB a SOPP branch
reaches (``python far_branches.py``), for relax_branches.mlir.

* ``@natural``: ``s_cbranch_scc1`` over 16,000 + 17,000 ``s_nop 0`` in two blocks that each
  end in ``s_endpgm``; the island fits after the first one, where control never falls.
* ``@skip``: ``s_cbranch_scc1`` over one block of 33,000 ``s_nop 0``: no block within reach
  ends in an unconditional transfer, so the island needs an ``s_branch`` over it.
* ``@backward``: a loop whose back edge (``s_cbranch_scc0``) climbs over 33,000 ``s_nop 0``.
* ``@near``: branches in range, left alone.
"""

from __future__ import annotations

HEADER = ('amdgpu_mc.code_object "gfx90a" <{code_object_version = 5 : i64, elf_type = "dyn", '
          'e_flags = 1343 : i64, abi_version = 3 : i64}> {')
KERNEL = ('  amdgpu_mc.kernel @{name} <{{alignment = 256 : i64, binding = "GLOBAL", '
          'visibility = "PROTECTED", descriptor = #amdgpu_mc.kernel_descriptor<>}}> {{')


def nops(count: int) -> list[str]:
    return ["    amdgpu_mc.s_nop 0"] * count


def kernel(name: str, body: list[str]) -> list[str]:
    return [KERNEL.format(name=name), *body, "  }"]


def main() -> None:
    lines = [HEADER]
    lines += kernel("natural", [
        "    amdgpu_mc.s_cmp_eq_u32 s0, 0",
        "    amdgpu_mc.s_cbranch_scc1 ^bb3, ^bb1",
        "  ^bb1:", *nops(16_000), "    amdgpu_mc.s_endpgm",
        "  ^bb2:", *nops(17_000), "    amdgpu_mc.s_endpgm",
        "  ^bb3:", "    amdgpu_mc.s_mov_b32 s1, 1", "    amdgpu_mc.s_endpgm",
    ])
    lines += kernel("skip", [
        "    amdgpu_mc.s_cmp_eq_u32 s0, 0",
        "    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1",
        "  ^bb1:", *nops(33_000), "    amdgpu_mc.s_endpgm",
        "  ^bb2:", "    amdgpu_mc.s_mov_b32 s1, 1", "    amdgpu_mc.s_endpgm",
    ])
    lines += kernel("backward", [
        "    amdgpu_mc.s_mov_b32 s2, 2",
        "    amdgpu_mc.fallthrough ^bb1",
        "  ^bb1:", "    amdgpu_mc.s_sub_u32 s2, s2, 1", *nops(33_000),
        "    amdgpu_mc.s_cmp_eq_u32 s2, 0",
        "    amdgpu_mc.s_cbranch_scc0 ^bb1, ^bb2",
        "  ^bb2:", "    amdgpu_mc.s_endpgm",
    ])
    lines += kernel("near", [
        "    amdgpu_mc.s_cmp_eq_u32 s0, 0",
        "    amdgpu_mc.s_cbranch_scc1 ^bb2, ^bb1",
        "  ^bb1:", *nops(100), "    amdgpu_mc.s_endpgm",
        "  ^bb2:", "    amdgpu_mc.s_endpgm",
    ])
    lines.append("}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
