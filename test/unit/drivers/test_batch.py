"""``luthier-batch``: every device entry of several fat binaries instrumented in worker
processes and on a local Dask cluster, with the bytes ``luthier-opt`` gives each entry
alone; failures are one line naming the code object, and nothing is written."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from luthier.drivers.batch import Task, local_engine, run_batch, run_task, tasks_of
from luthier.drivers.luthier_batch import main

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOOK = ROOT / "examples" / "hooks" / "instr_count.mlir"
INPUTS = [str(KERNELS / "control_flow.hipfb"), str(KERNELS / "calls.hipfb"),
          str(KERNELS / "lds.gfx942.co")]


def _digests(directory: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.iterdir())}


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("serial")
    assert main([*INPUTS, "--hooks", str(HOOK), "-o", str(out), "--jobs", "1"]) == 0
    return _digests(out)


def test_every_entry_is_an_output(serial: dict[str, str]) -> None:
    assert sorted(serial) == ["calls.hipfb.0.gfx908.co", "calls.hipfb.1.gfx90a.co",
                              "calls.hipfb.2.gfx942.co", "control_flow.hipfb.0.gfx908.co",
                              "control_flow.hipfb.1.gfx90a.co",
                              "control_flow.hipfb.2.gfx942.co", "lds.gfx942.co"]


def test_outputs_are_what_luthier_opt_writes(serial: dict[str, str], tmp_path: Path) -> None:
    for source, arch, name in [(KERNELS / "calls.hipfb", "gfx942", "calls.hipfb.2.gfx942.co"),
                               (KERNELS / "calls.hipfb", "gfx908", "calls.hipfb.0.gfx908.co"),
                               (KERNELS / "lds.gfx942.co", None, "lds.gfx942.co")]:
        out = tmp_path / name
        command = ["luthier-opt", "--lift", "--inline-hooks", "--emit-preamble", str(source),
                   "--hooks", str(HOOK), "-o", str(out), "--no-progress"]
        if arch is not None:
            command += ["--offload-arch", arch]
        subprocess.run(command, check=True)
        assert hashlib.sha256(out.read_bytes()).hexdigest() == serial[name]


def test_worker_processes_give_the_same_bytes(serial: dict[str, str], tmp_path: Path) -> None:
    assert main([*INPUTS, "--hooks", str(HOOK), "-o", str(tmp_path), "--jobs", "2"]) == 0
    assert _digests(tmp_path) == serial


def test_a_local_dask_cluster_gives_the_same_bytes(serial: dict[str, str],
                                                   tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert main([*INPUTS, "--hooks", str(HOOK), "-o", str(tmp_path),
                     "--scheduler", cluster.scheduler_address]) == 0
    assert _digests(tmp_path) == serial


def test_identity_round_trip(tmp_path: Path) -> None:
    """Without hooks every entry is lifted and written back with its own bytes' code."""
    assert main([str(KERNELS / "lds.gfx942.co"), "-o", str(tmp_path), "--jobs", "1"]) == 0
    assert (tmp_path / "lds.gfx942.co").stat().st_size > 0


def test_a_failing_object_is_one_line_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corrupt = tmp_path / "broken.co"
    corrupt.write_bytes((KERNELS / "lds.gfx942.co").read_bytes()[:200])
    out = tmp_path / "out"
    assert main([str(KERNELS / "calls.hipfb"), str(corrupt), "--hooks", str(HOOK),
                 "-o", str(out), "--jobs", "2"]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith(f"luthier-batch: error: {corrupt}")
    assert not out.exists()


def test_a_hook_that_fails_names_the_object_and_function() -> None:
    """A pass failure inside a worker comes back with the code object's name before the
    pass's own message (which names the function and instruction)."""
    hooks = ('instr.hook @h() {\n  %a = instr.lane_id : i32\n  %z = arith.constant 0 : i32\n'
             '  %b = arith.divui %a, %z : i32\n  instr.return\n}\n'
             'instr.insert @h {at = "kernel_entry", args = []}\n')
    source = KERNELS / "lds.gfx942.co"
    outcome = run_task(Task("lds.gfx942.co", "lds.gfx942.co", source.read_bytes(), hooks))
    assert outcome.data is None and outcome.error is not None
    assert outcome.error.startswith("lds.gfx942.co: ")
    assert outcome.error.endswith("arith.divui divides by the constant 0")
    assert "@h in @block_reduce_sum before 's_load_dword" in outcome.error


def test_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(KERNELS / "lds.gfx942.co"), "-o", str(tmp_path / "o"),
                 "--jobs", "0"]) == 1
    assert "--jobs 0" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.co"), "-o", str(tmp_path / "o")]) == 1
    assert "missing.co" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_tasks_keep_input_order() -> None:
    tasks = tasks_of(INPUTS, None)
    assert [task.output for task in tasks] == [
        "control_flow.hipfb.0.gfx908.co", "control_flow.hipfb.1.gfx90a.co",
        "control_flow.hipfb.2.gfx942.co", "calls.hipfb.0.gfx908.co", "calls.hipfb.1.gfx90a.co",
        "calls.hipfb.2.gfx942.co", "lds.gfx942.co"]
    outputs = run_batch(tasks[-1:], local_engine(1))
    assert list(outputs) == ["lds.gfx942.co"]


HOST = ROOT / "test" / "corpus" / "host"


def test_same_kind_writes_each_input_back_as_luthier_opt_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--same-kind``: a library (two translation units), a compressed one, a bundle and a
    code object come back under their own names, each the bytes ``luthier-opt IN -o OUT``
    writes for it; libraries keep their execute permission; the gfx1150 entry left out is
    warned about, named by its library."""
    inputs = [HOST / "libtwo.so", HOST / "libelementwise.gfx1150.so", KERNELS / "lds.hipfb",
              KERNELS / "lds.gfx942.co"]
    out = tmp_path / "out"
    assert main([*map(str, inputs), "--hooks", str(HOOK), "-o", str(out), "--jobs", "2",
                 "--same-kind", "--no-progress"]) == 0
    assert sorted(path.name for path in out.iterdir()) == sorted(path.name for path in inputs)
    for source in inputs:
        reference = tmp_path / f"reference.{source.name}"
        subprocess.run(["luthier-opt", str(source), "--hooks", str(HOOK), "--inline-hooks",
                        "--emit-preamble", "-o", str(reference), "--no-progress"],
                       check=True, capture_output=True)
        assert (out / source.name).read_bytes() == reference.read_bytes(), source.name
    assert os.access(out / "libtwo.so", os.X_OK)
    assert "libelementwise.gfx1150.so: gfx1150 device code left as it was" in \
        capsys.readouterr().err


def test_same_kind_refuses_two_inputs_of_one_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "lds.hipfb").write_bytes((KERNELS / "lds.hipfb").read_bytes())
    assert main([str(KERNELS / "lds.hipfb"), str(copy / "lds.hipfb"), "-o",
                 str(tmp_path / "out"), "--same-kind"]) == 1
    error = capsys.readouterr().err
    assert error == (f"luthier-batch: error: {copy / 'lds.hipfb'}: another input has the "
                     "name lds.hipfb; --same-kind writes each under its own name\n")
    assert not (tmp_path / "out").exists()
