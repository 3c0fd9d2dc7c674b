"""Directives beyond what the corpus uses, each input assembled by us and by llvm-mc-19.

The inputs exercise data with symbol expressions (ABS/REL relocations, section-symbol
conversion of local targets, differences folded to constants), alignment padding in code and
data (``s_nop`` in code, fill patterns, max-bytes), ``.fill``/``.zero``/strings, symbol
bindings and visibility, ``.set``, section flags and types, ``.ident``/``.addrsig``, and
instruction literals with every relocation variant. The objects must be identical.

Not covered: ``.bss`` alignment that needs padding after the previous section's end. llvm-mc
advances the file offset over that padding, our ELF writer (``lowering/elf/relocatable.py``)
does not, so such objects differ in section offsets only (reported; llvm-mc's object read
with ``read_elf`` and written back with ``write_relocatable`` shows it too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .common import check_against_llvm_mc

HEADER = '\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n\t.amdhsa_code_object_version {cov}\n'

INPUTS: dict[str, str] = {
    "data_and_alignment": """\t.text
foo:
\ts_nop 0
.Lx:
\ts_endpgm
\t.section .rodata,"a",@progbits
bar:
\t.long 5
\t.quad .Lx
\t.p2align 3
\t.quad .Ly
\t.data
\t.quad .Lx
\t.quad bar+3
\t.quad foo
\t.text
\t.p2align 4, 0
.Ly:
\t.p2align 5
\ts_branch .Lx
\t.p2alignl 3, 0x11223344
\t.fill 3, 4, 0x55667788
\t.fill 2, 2
\t.zero 3, 7
\t.short 0x1234, .Lx - .Ly
\t.long .Lx@rel32@lo+4
\t.ascii "ab\\n\\101", "c"
\t.asciz "x"
\t.string "yz"
\t.globl ext
\t.long ext2
\t.section .mydata,"aw",@progbits
\t.byte 1
\t.balign 8
\t.byte 2
\t.p2align 4,,2
\t.p2align 3,,7
\t.p2alignw 2, 0x1234
\t.quad bar@rel64
\t.long bar-.
\t.byte (3 << 4) | 1, ~0 & 0xff, 7 % 3, 100 / 7
""",
    "symbols": """\t.text
\t.globl gfun
\t.p2align 8
\t.type gfun,@function
gfun:
\ts_getpc_b64 s[0:1]
\ts_add_u32 s0, s0, gvar@rel32@lo+4
\ts_addc_u32 s1, s1, gvar@rel32@hi+12
\ts_add_u32 s0, s0, lfun@rel32@lo+4
\ts_addc_u32 s1, s1, lfun@rel32@hi+12
\ts_add_u32 s0, s0, ext@gotpcrel32@lo+4
\ts_addc_u32 s1, s1, ext@gotpcrel32@hi+12
\ts_mov_b32 s2, wvar@abs32@lo
\ts_mov_b32 s3, wvar@abs32@hi
\ts_cbranch_scc1 .LBB0_2
\ts_nop 1
.LBB0_2:
\ts_setpc_b64 s[30:31]
.Lfunc_end0:
\t.size gfun, .Lfunc_end0-gfun
\t.p2align 2
\t.type lfun,@function
lfun:
\ts_setpc_b64 s[30:31]
.Lfunc_end1:
\t.size lfun, .Lfunc_end1-lfun
\t.weak wvar
\t.hidden wvar
\t.type wvar,@object
\t.data
\t.p2align 2
wvar:
\t.long 1
\t.size wvar, 4
\t.protected gvar
\t.globl gvar
\t.type gvar,@object
\t.section .bss,"aw",@nobits
\t.p2align 2
gvar:
\t.zero 64
\t.size gvar, 64
\t.set alias, gvar+8
\t.set answer, 6 * 7
\t.globl answer
\t.local hidden_local
\t.section .rodata.str1.1,"aMS",@progbits,1
hidden_local:
\t.asciz "hello"
\t.ident "an assembler test"
\t.ident "twice"
\t.section ".note.GNU-stack","",@progbits
\t.addrsig
\t.addrsig_sym gfun
\t.addrsig_sym lfun
\t.addrsig_sym gvar
\t.addrsig_sym .Lfunc_end0
""",
    "addrsig_temporary": """\t.text
f:
\ts_endpgm
\t.data
\t.long 1
.Lq:
\t.long 2
\t.addrsig
\t.addrsig_sym .Lq
\t.addrsig_sym f
\t.addrsig_sym undefined_one
""",
}


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_directives_match_llvm_mc(name: str, target: str, tmp_path: Path) -> None:
    check_against_llvm_mc(HEADER.format(target=target, cov=5) + INPUTS[name], target, tmp_path)


@pytest.mark.parametrize("cov", [4, 5, 6])
def test_code_object_versions(cov: int, tmp_path: Path) -> None:
    check_against_llvm_mc(
        HEADER.format(target="gfx942", cov=cov) + INPUTS["symbols"], "gfx942", tmp_path
    )


@pytest.mark.parametrize("target", ["gfx90a:xnack+", "gfx942:sramecc-:xnack-", "gfx90a:sramecc+"])
def test_target_features_in_e_flags(target: str, tmp_path: Path) -> None:
    """The target ID's features become e_flags; llvm-mc gets them from -mattr."""
    processor, *features = target.split(":")
    text = HEADER.format(target=target, cov=5) + "\t.text\n\ts_endpgm\n"
    import subprocess

    from .common import LLVM_MC, require

    source = tmp_path / "features.s"
    source.write_text(text)
    attrs = ",".join(f[-1] + f[:-1] for f in features)
    result = subprocess.run(
        [
            require(LLVM_MC),
            "-triple=amdgcn-amd-amdhsa",
            f"-mcpu={processor}",
            f"-mattr={attrs}",
            "-filetype=obj",
            "-o",
            str(tmp_path / "f.o"),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    from luthier.lowering.elf.relocatable import assemble_relocatable

    from .common import assert_same_object

    assert_same_object(assemble_relocatable(text, "features.s"), (tmp_path / "f.o").read_bytes())
