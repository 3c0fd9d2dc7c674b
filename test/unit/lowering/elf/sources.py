"""Assembly for what the kernel corpus lacks, assembled with llvm-mc-19 at test time."""

from __future__ import annotations

from pathlib import Path

from .common import LLVM_MC, run_tool

#: Assembly with what the corpus lacks: GOT relocations against preemptible, protected and local
#: symbols, a .data.rel.ro table and absolute pointers in .data.
_GOT = """
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
\t.text
\t.globl f
\t.p2align 8
\t.type f,@function
\t.protected f
f:
\ts_getpc_b64 s[0:1]
\ts_add_u32 s0, s0, gvar@gotpcrel32@lo+4
\ts_addc_u32 s1, s1, gvar@gotpcrel32@hi+12
\ts_getpc_b64 s[0:1]
\ts_add_u32 s0, s0, pvar@gotpcrel32@lo+4
\ts_addc_u32 s1, s1, pvar@gotpcrel32@hi+12
\ts_getpc_b64 s[0:1]
\ts_add_u32 s0, s0, lvar@gotpcrel32@lo+4
\ts_addc_u32 s1, s1, lvar@gotpcrel32@hi+12
\ts_endpgm
.Lfe:
\t.size f, .Lfe-f
\t.section .data.rel.ro,"aw"
\t.p2align 3
\t.globl tab
\t.protected tab
tab:
\t.quad f
\t.quad gvar
\t.quad pvar+8
\t.quad lvar
\t.section .data,"aw"
\t.globl gvar
gvar:
\t.long 1
\t.quad pvar
\t.globl pvar
\t.protected pvar
pvar:
\t.long 2
lvar:
\t.long 3
"""

#: Hidden, weak-undefined and absolute symbols, ``.text.*``/``.rodata.*``/``.data.rel.ro.*``
#: input sections merged by name, ``.bss.rel.ro``, an allocated note, a branch across sections.
_MIXED = """
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
\t.section .text.f,"ax",@progbits
\t.globl f
\t.p2align 8
\t.type f,@function
\t.hidden f
f:
\ts_getpc_b64 s[0:1]
\ts_add_u32 s0, s0, hv@rel32@lo+4
\ts_addc_u32 s1, s1, hv@rel32@hi+12
\ts_branch g
\ts_endpgm
\t.section .text.g,"ax",@progbits
\t.globl g
\t.protected g
\t.p2align 2
\t.type g,@function
g:
\ts_endpgm
\t.section .rodata.cst4,"aM",@progbits,4
\t.p2align 2
\t.long 7
\t.section .data.rel.ro.local,"aw"
\t.p2align 3
lp:
\t.quad f+4
\t.quad g
\t.quad absv
\t.section .bss.rel.ro,"aw",@nobits
\t.p2align 3
\t.zero 16
\t.bss
\t.globl hv
\t.hidden hv
hv:
\t.zero 8
\t.weak wk
\t.set absv, 0x1234
\t.globl absv
\t.section .note.x,"a",@note
\t.p2align 2
\t.long 4, 4, 1
\t.asciz "ABC"
\t.long 5
"""

#: Mergeable strings (a duplicate, a relocation into them through an ``.L`` label) next to
#: plain read-only data, and a compiler identification for ``.comment``.
_STRINGS = """
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
\t.text
\t.globl f
\t.protected f
\t.p2align 8
f:
\ts_getpc_b64 s[0:1]
\ts_add_u32 s0, s0, .Lstr2@rel32@lo+4
\ts_addc_u32 s1, s1, .Lstr2@rel32@hi+12
\ts_endpgm
\t.section .rodata.str1.1,"aMS",@progbits,1
.Lstr1:
\t.asciz "hello world"
.Lstr2:
\t.asciz "second string"
.Lstr3:
\t.asciz "hello world"
\t.section .rodata,"a"
\t.long 42
\t.ident "x40"
"""

#: Empty sections (kept by lld, but no PT_LOAD for a segment spanning nothing).
_EMPTY = """
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
\t.section .rodata.x,"a",@progbits
\t.section .data.y,"aw",@progbits
\t.section .foo,"",@progbits
\t.section .bar,"a",@progbits
\t.long 1
"""


def _many_strings() -> str:
    """Strings of every XXH3 length class (1 to 1100 bytes), so that their order in the
    merged section checks our hash against lld's."""
    lengths = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 20, 31, 32, 33, 50, 64, 65, 90, 96, 97]
    lengths += [120, 128, 129, 150, 200, 240, 241, 300, 500, 1100]
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 "
    lines = ['\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"']
    lines.append('\t.section .rodata.str1.1,"aMS",@progbits,1')
    for number, length in enumerate(lengths):
        text = "".join(alphabet[(number * 7 + i * i) % len(alphabet)] for i in range(length))
        lines.append(f'\t.asciz "{text}"')
    return "\n".join(lines) + "\n"


SOURCES: dict[str, str] = {
    "empty": _EMPTY,
    "got": _GOT,
    "mixed": _MIXED,
    "many_strings": _many_strings(),
    "strings": _STRINGS,
}


def assemble(name: str, folder: Path) -> Path:
    """``SOURCES[name]`` assembled by llvm-mc-19 for gfx90a (skips without the tool)."""
    source = folder / f"{name}.s"
    source.write_text(SOURCES[name])
    obj = folder / f"{name}.o"
    mc_args = ("-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-filetype=obj")
    run_tool(LLVM_MC, *mc_args, source, "-o", obj)
    return obj
