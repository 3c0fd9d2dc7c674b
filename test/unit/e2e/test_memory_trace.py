"""``memory_trace`` on kernels that lack some kind of access: each is instrumented, not
refused, and in the emulator its trace equals the addresses the original run accessed.

The corpus kernels all load from global memory, so the tool's old ``global_load*``
insertion always matched something there; a kernel that only stores, or only does atomics,
or reaches memory through ``flat_*`` pointers, was refused ("the insertion matches
nothing"). The kernels here are written in assembly, one per code object, so that each
really lacks the other kinds:

* ``store_only``: two SADDR-form ``global_store_dword`` (one with an offset);
* ``atomic_only``: a SADDR-form atomic and a returning 64-bit-address one with a negative
  offset, under an EXEC that leaves some lanes (and the second wave) out;
* ``flat_only``: a ``flat_*`` load, store (with an offset) and atomic;
* ``with_buffer``: a ``buffer_store_dword`` through a V# built from the argument (not
  traced, and reported as such on stderr) beside a traced global store.

Plus the corpus's store-only ``write_global`` lifted alone (``--kernel``). The truth is the
original run's trace (:mod:`luthier.emulator.trace`), compared as in the corpus suite
(:func:`check_counters`): the cursor counts every lane access, the buffer holds their
addresses, named by buffer and offset.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.emulator.api import load_program, run_kernel

from .cases import GLOBALS, TARGETS, Launch, corpus_file
from .test_instrumented_corpus import (
    HOOK_DIR,
    LuthierOpt,
    check_counters,
    run_instrumentation,
)

#: Two waves in one workgroup.
BLOCK = 128
#: The buffer argument: room for every lane's dword at 4 * tid plus the offsets used.
WORDS = 1024
#: The warning the skip insertions of memory_trace give for ``with_buffer``.
BUFFER_WARNING = ("@with_buffer: @trace_address skips 1 buffer_store*: buffer and scratch "
                  "accesses are not traced: they have no 64-bit address operand")

#: Every kernel starts so: s[2:3] = the buffer, v1 = 4 * work-item id.
PROLOGUE = """\
\ts_load_dwordx2 s[2:3], s[0:1], 0x0
\ts_waitcnt lgkmcnt(0)
\tv_lshlrev_b32_e32 v1, 2, v0
\tv_mov_b32_e32 v2, 7
\tv_mov_b32_e32 v5, s3
\tv_add_co_u32_e32 v4, vcc, s2, v1
\tv_addc_co_u32_e32 v5, vcc, 0, v5, vcc
"""

#: The bodies after the prologue (v[4:5] = the lane's 64-bit address); ``{rtn}`` is the
#: target's spelling of "return the old value".
BODIES = {
    "store_only": """\
\tglobal_store_dword v1, v2, s[2:3]
\tglobal_store_dword v1, v2, s[2:3] offset:512
""",
    "atomic_only": """\
\tv_cmp_gt_u32_e32 vcc, 40, v0
\ts_and_saveexec_b64 s[4:5], vcc
\tglobal_atomic_add v1, v2, s[2:3]
\tv_add_co_u32_e32 v4, vcc, 8, v4
\tv_addc_co_u32_e32 v5, vcc, 0, v5, vcc
\tglobal_atomic_add v3, v[4:5], v2, off offset:-4 {rtn}
""",
    "flat_only": """\
\tflat_load_dword v3, v[4:5]
\ts_waitcnt vmcnt(0) lgkmcnt(0)
\tflat_store_dword v[4:5], v3 offset:512
\tflat_atomic_add v[4:5], v2 offset:1024
""",
    "with_buffer": """\
\ts_mov_b32 s4, s2
\ts_and_b32 s5, s3, 0xffff
\ts_mov_b32 s6, -1
\ts_mov_b32 s7, 0x27000
\tbuffer_store_dword v2, v1, s[4:7], 0 offen offset:512
\tglobal_store_dword v1, v2, s[2:3]
""",
}

KERNEL = """\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"
\t.amdhsa_code_object_version 5
\t.text
\t.globl {name}
\t.p2align 8
\t.type {name},@function
{name}:
{body}\ts_endpgm
.Lfunc_end0:
\t.size {name}, .Lfunc_end0-{name}
\t.section .rodata,"a",@progbits
\t.p2align 6
\t.amdhsa_kernel {name}
\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1
\t\t.amdhsa_kernarg_size 8
\t\t.amdhsa_next_free_vgpr 8
\t\t.amdhsa_next_free_sgpr 8
{accum_offset}\t.end_amdhsa_kernel
\t.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: {block}
    .name:           {name}
    .private_segment_fixed_size: 0
    .sgpr_count:     10
    .symbol:         {name}.kd
    .vgpr_count:     8
    .wavefront_size: 64
amdhsa.version:
  - 1
  - 2
...
\t.end_amdgpu_metadata
"""


def _original(folder: Path, name: str, target: str, luthier_opt: LuthierOpt) -> Path:
    """The kernel assembled and written as a code object, as ``luthier-opt`` does."""
    subtarget = subtarget_for(target)
    body = PROLOGUE + BODIES[name].format(rtn="sc0" if subtarget.has_gfx940_insts else "glc")
    # Only a unified VGPR/AGPR file (not gfx908's) has an accum_offset.
    accum = "\t\t.amdhsa_accum_offset 8\n" if subtarget.has_unified_vector_file else ""
    source = folder / f"{name}.{target}.s"
    source.write_text(KERNEL.format(target=target, name=name, body=body, block=BLOCK,
                                    accum_offset=accum))
    output = folder / f"{name}.{target}.co"
    done = luthier_opt(["--no-progress", "--lift", source, "-o", output])
    assert done.returncode == 0, done.stderr
    return output


def _launch(name: str) -> Launch:
    return Launch(name, name, 1, BLOCK,
                  lambda rng: [rng.integers(0, 100, WORDS).astype(np.int32)])


@pytest.mark.parametrize("hooks", ["memory_trace.mlir", "memory_trace.py"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(BODIES))
def test_kernels_lacking_an_access_kind_are_traced(tmp_path: Path, luthier_opt: LuthierOpt,
                                                   name: str, target: str,
                                                   hooks: str) -> None:
    original = _original(tmp_path, name, target, luthier_opt)
    output, done = run_instrumentation(original, HOOK_DIR / hooks,
                                       tmp_path / f"{name}.{target}.traced.co", luthier_opt)
    assert done.returncode == 0 and output.is_file(), done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == ([f"luthier-opt: warning: {original}: {BUFFER_WARNING}"]
                        if name == "with_buffer" else [])
    launch = _launch(name)
    before = run_kernel(load_program(original), name, 1, BLOCK, launch.arguments(),
                        trace=True)
    after = run_kernel(load_program(output), name, 1, BLOCK, launch.arguments())
    for first, second in zip(before.buffers, after.buffers, strict=True):
        assert first is not None and second is not None
        assert first.tobytes() == second.tobytes()
    assert before.trace is not None
    assert before.trace.global_addresses(), "the kernel accessed nothing traced"
    check_counters("memory_trace", target, launch, before, after)


@pytest.mark.parametrize("target", TARGETS)
def test_a_store_only_corpus_kernel_lifted_alone_is_traced(tmp_path: Path,
                                                           luthier_opt: LuthierOpt,
                                                           target: str) -> None:
    """``write_global`` stores and never loads: lifted alone, the tool used to find no
    ``global_load*`` and refuse the object."""
    launch = next(launch for launch in GLOBALS if launch.kernel == "write_global")
    output = tmp_path / f"write_global.{target}.co"
    done = luthier_opt(["--no-progress", "--lift", "--kernel", "write_global",
                        "--inline-hooks", "--emit-preamble", corpus_file("globals", target),
                        "--hooks", HOOK_DIR / "memory_trace.mlir", "-o", output])
    assert (done.returncode, done.stderr) == (0, "")
    before = run_kernel(load_program(corpus_file("globals", target)), launch.kernel,
                        launch.grid, launch.block, launch.arguments(), trace=True)
    after = run_kernel(load_program(output), launch.kernel, launch.grid, launch.block,
                       launch.arguments())
    assert before.trace is not None
    assert before.trace.global_addresses("global_load*") == {}
    check_counters("memory_trace", target, launch, before, after)
