"""Every piece of entry state, read at the end of the kernel through homes in VGPRs, in
AGPRs and in the instrumentation stack, run in the emulator.

``Inputs/record_ids.mlir`` makes every work-item write its work-item ids and its
workgroup's ids to a slot computed from all of them and from the launch sizes, just
before ``s_endpgm``, when the application has overwritten whatever registers it uses.
The kernels run on a 3-D grid of 3-D workgroups; the test checks that each work-item's
slot holds its own ids (a wrong lane, dimension or size sends the record elsewhere) and
that the application computed what it computes uninstrumented. ``place-sva`` takes VGPR
homes where it can; ``prefer=agpr`` sends them to AGPRs (what a kernel without a free
VGPR gets), ``prefer=stack`` to per-lane stack slots (what a kernel without a free vector
register gets); payloads copy the SVA out under a full EXEC.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from luthier.emulator import KernelArgument
from luthier.emulator.api import run_kernel

ROOT = Path(__file__).resolve().parents[4]
#: The ``luthier_opt`` fixture (test/unit/conftest.py): a run of the command.
LuthierOpt = Callable[..., subprocess.CompletedProcess[str]]
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOOK = Path(__file__).resolve().parent / "Inputs" / "record_ids.mlir"
GRID, BLOCK = (3, 2, 2), (8, 4, 2)
THREADS = int(np.prod(GRID)) * int(np.prod(BLOCK))


def _lowering(prefer: str) -> str:
    place = f"place-sva{{prefer={prefer}}}"
    return ("insert-hooks,inline-hooks,select-instructions,virtualize-phys-regs,"
            f"{place},lower-intrinsics,save-payload-state,allocate-payload-registers,"
            "verify-payloads")


def _vector_add() -> list[KernelArgument]:
    rng = np.random.default_rng(5)
    return [rng.standard_normal(THREADS).astype(np.float32),
            rng.standard_normal(THREADS).astype(np.float32),
            np.zeros(THREADS, np.float32), THREADS]


def _mfma() -> list[KernelArgument]:
    rng = np.random.default_rng(6)
    return [rng.integers(-4, 5, 64).astype(np.float32),
            rng.integers(-4, 5, 64).astype(np.float32), np.zeros(256, np.float32)]


def _expected_records() -> np.ndarray:
    records = np.zeros((THREADS, 2), np.uint32)
    size = int(np.prod(BLOCK))
    for gz in range(GRID[2]):
        for gy in range(GRID[1]):
            for gx in range(GRID[0]):
                group = (gz * GRID[1] + gy) * GRID[0] + gx
                for z in range(BLOCK[2]):
                    for y in range(BLOCK[1]):
                        for x in range(BLOCK[0]):
                            local = (z * BLOCK[1] + y) * BLOCK[0] + x
                            records[group * size + local] = (x | y << 10 | z << 20,
                                                             gx | gy << 10 | gz << 20)
    return records


@pytest.mark.parametrize("prefer", ["vgpr", "agpr", "stack"])
@pytest.mark.parametrize("target", ["gfx908", "gfx90a", "gfx942"])
@pytest.mark.parametrize(("object_name", "kernel", "arguments"), [
    ("elementwise", "vector_add", _vector_add),
    ("mfma", "mfma_f32_16x16x4f32", _mfma),  # uses AGPRs itself; no hidden size arguments
])
def test_every_work_item_records_its_own_ids(
        object_name: str, kernel: str, arguments: Callable[[], list[KernelArgument]],
        target: str, prefer: str, tmp_path: Path, luthier_opt: LuthierOpt) -> None:
    original = KERNELS / f"{object_name}.{target}.co"
    command = ["--lift", original, "--hooks", HOOK, "--no-progress"]
    lowering = _lowering(prefer)
    done = luthier_opt([*command, "-p", lowering])
    assert done.returncode == 0, done.stderr
    placed = done.stdout
    file = {"vgpr": "v", "agpr": "a", "stack": "stack:"}[prefer]
    assert f'@{kernel} <' in placed
    homes = placed.split(f"@{kernel} <", 1)[1].split("\n", 1)[0]
    assert f'instr.sva = "{file}' in homes and f'instr.workitem_home = "{file}' in homes

    instrumented = tmp_path / "record_ids.co"
    done = luthier_opt([*command, "-p", lowering + ",finalize-instrumentation", "-o",
                        instrumented])
    assert done.returncode == 0, done.stderr
    before = run_kernel(str(original), kernel, GRID, BLOCK, arguments())
    after = run_kernel(str(instrumented), kernel, GRID, BLOCK, arguments())
    for position, (old, new) in enumerate(zip(before.buffers, after.buffers, strict=True)):
        assert (old is None) == (new is None)
        if old is not None and new is not None:
            assert old.tobytes() == new.tobytes(), f"buffer argument {position} differs"
    records = np.frombuffer(after.globals["ids"], np.uint32)[:2 * THREADS].reshape(-1, 2)
    np.testing.assert_array_equal(records, _expected_records())
