"""``luthier-run``: argument syntax, .npy round trip, one-line errors without tracebacks."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from luthier.emulator.cli import main
from luthier.frontend.codeobj import read_code_object
from luthier.frontend.lift import lift_code_object

from .common import CORPUS

ELEMENTWISE = str(CORPUS / "elementwise.gfx90a.co")
VECTOR_ADD = [ELEMENTWISE, "--kernel", "vector_add", "--grid", "2", "--block", "64"]


def test_buffers_from_npy_and_patterns_written_back(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    a = np.linspace(-1, 1, 128).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    status = main([*VECTOR_ADD, "--arg", f"a={tmp_path / 'a.npy'}", "--arg", "b=iota:128xf32",
                   "--arg", "c=fill:-1:128xf32", "--arg", "100",
                   "--out", f"c={tmp_path / 'c.npy'}", "--counts"])
    assert status == 0
    c = np.load(tmp_path / "c.npy")
    expected = np.full(128, -1, np.float32)
    expected[:100] = a[:100] + np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(c, expected)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("vector_add: 2 waves of 64 lanes, ")
    assert lines[1].startswith("wave 0: ") and lines[2].startswith("wave 1: ")


def test_print_and_float_scalars(capsys: pytest.CaptureFixture[str]) -> None:
    status = main([ELEMENTWISE, "--kernel", "saxpy", "--grid", "1", "--block", "64",
                   "--arg", "2.5", "--arg", "x=iota:64xf32", "--arg", "y=zeros:64xf32",
                   "--arg", "4", "--print", "y"])
    assert status == 0
    out = capsys.readouterr().out
    assert "y = [0.  2.5 5.  7.5 0.  0. " in out


@pytest.mark.parametrize(("arguments", "message"), [
    (["missing.co", "--kernel", "k", "--grid", "1", "--block", "1"],
     "missing.co: no such file"),
    ([ELEMENTWISE, "--kernel", "nope", "--grid", "1", "--block", "64"],
     "no kernel named nope (kernels: daxpy, int_mix, many_args, saxpy, vector_add)"),
    ([*VECTOR_ADD[:3], "--grid", "0", "--block", "64"], "--grid sizes must be positive"),
    ([*VECTOR_ADD[:3], "--grid", "1,x", "--block", "64"], "--grid takes X[,Y[,Z]]"),
    ([*VECTOR_ADD, "--arg", "zeros:64"], "bad buffer shape '64'"),
    ([*VECTOR_ADD, "--arg", "banana"], "'banana' is neither a number"),
    ([*VECTOR_ADD, "--arg", "1"], "kernel vector_add takes 4 arguments, got 1"),
    ([*VECTOR_ADD, "--arg", "a=zeros:8xf32", "--arg", "b=zeros:8xf32", "--arg",
      "c=zeros:8xf32", "--arg", "128"], "is outside every buffer"),
    ([*VECTOR_ADD, "--arg", "a=zeros:128xf32", "--arg", "b=zeros:128xf32", "--arg",
      "c=zeros:128xf32", "--arg", "n=4", "--out", "n=x.npy"], "argument 'n' is a scalar"),
    ([*VECTOR_ADD, "--arg", "a=zeros:128xf32", "--arg", "a=zeros:128xf32"],
     "argument label 'a' given twice"),
    ([ELEMENTWISE], "the following arguments are required"),
])
def test_bad_input_is_one_line(arguments: list[str], message: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(arguments) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("luthier-run: error: ")
    assert message in lines[0]


def test_console_script_reports_without_traceback(tmp_path: Path) -> None:
    script = shutil.which("luthier-run")
    assert script is not None
    run = subprocess.run([script, str(tmp_path / "none.co"), "--kernel", "k", "--grid", "1",
                          "--block", "1"], capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert run.stderr == f"luthier-run: error: {tmp_path / 'none.co'}: no such file\n"


def test_runs_lifted_ir_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """IR text (what luthier-opt and instrumentation passes write) runs like the object."""
    module = lift_code_object(read_code_object(CORPUS / "calls.gfx942.co")).module
    stream = io.StringIO()
    Printer(stream=stream).print_op(ModuleOp([module]))
    (tmp_path / "calls.mlir").write_text(stream.getvalue())
    status = main([str(tmp_path / "calls.mlir"), "--kernel", "call_device_function", "--grid",
                   "1", "--block", "64", "--arg", "iota:64xf32", "--arg", "out=zeros:64xf32",
                   "--arg", "0.5", "--arg", "1.0", "--out", f"out={tmp_path / 'out.npy'}"])
    assert status == 0
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), (x * 0.5 + 1) * x + 1)
    (tmp_path / "bad.mlir").write_text("nonsense\n")
    assert main([str(tmp_path / "bad.mlir"), "--kernel", "k", "--grid", "1", "--block",
                 "1"]) == 1
    assert "cannot parse the IR" in capsys.readouterr().err
