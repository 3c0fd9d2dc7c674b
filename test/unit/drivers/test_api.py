"""``import luthier``: lift, instrument and run from Python, with the command line's bytes,
counters and one-line errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import luthier
from luthier.drivers.luthier_opt import main as luthier_opt
from luthier.emulator.api import KernelArgument

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"
HOOKS = ROOT / "examples" / "hooks"
KERNELS = ROOT / "test" / "corpus" / "kernels"


def _vector_add_args(n: int = 1000) -> list[KernelArgument]:
    a = np.arange(1024, dtype=np.float32)
    return [a, 2 * a, np.zeros(1024, np.float32), n]


def test_importing_luthier_loads_nothing_until_used() -> None:
    """Every tool imports ``luthier.<subpackage>``: the package itself must cost nothing."""
    code = ("import sys, luthier; print('xdsl' in sys.modules, "
            "'luthier.drivers.api' in sys.modules, callable(luthier.lift), "
            "'luthier.drivers.api' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split()
    assert shown == ["False", "False", "True", "True"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'instrumnet'"):
        _ = luthier.instrumnet  # type: ignore[attr-defined]  # pyright: ignore


@pytest.mark.parametrize("form", ["mlir", "python", "module"])
def test_instrument_gives_luthier_opts_bytes(form: str, tmp_path: Path) -> None:
    reference = tmp_path / "cli.co"
    assert luthier_opt(["--lift", "--inline-hooks", "--emit-preamble", str(SAMPLE), "--hooks",
                        str(HOOKS / "instr_count.mlir"), "-o", str(reference),
                        "--no-progress"]) == 0
    source: object = {"mlir": HOOKS / "instr_count.mlir", "python": HOOKS / "instr_count.py",
                      "module": luthier.load_hooks(HOOKS / "instr_count.mlir")}[form]
    written = tmp_path / "api.co"
    data = luthier.instrument(SAMPLE, source, output=written)  # type: ignore[arg-type]
    assert data == reference.read_bytes() == written.read_bytes()


def test_instrument_library_gives_luthier_opts_bytes(tmp_path: Path) -> None:
    library = ROOT / "test" / "corpus" / "host" / "libelementwise.gfx1150.so"
    reference = tmp_path / "cli.so"
    assert luthier_opt([str(library), "--hooks", str(HOOKS / "instr_count.mlir"),
                        "--inline-hooks", "--emit-preamble", "-o", str(reference),
                        "--no-progress"]) == 0
    notes: list[str] = []
    written = tmp_path / "api.so"
    data = luthier.instrument_library(library, HOOKS / "instr_count.py", output=written,
                                      warnings=notes)
    assert data == reference.read_bytes() == written.read_bytes()
    assert notes == [f"{library}: gfx1150 device code left as it was: luthier does not "
                     "instrument that target yet (only gfx908, gfx90a, gfx942, gfx1030, "
                     "gfx1100, gfx1200, gfx1201)"]
    with pytest.raises(luthier.LuthierError, match="an AMDGPU code object, not a fat binary"):
        luthier.instrument_library(SAMPLE, None)


def test_the_counters_read_back_are_the_emulators_count() -> None:
    original = luthier.run(SAMPLE, "vector_add", 4, 256, _vector_add_args())
    data = luthier.instrument(SAMPLE.read_bytes(), HOOKS / "instr_count.py")
    counted = luthier.run(data, "vector_add", 4, 256, _vector_add_args())
    assert counted.global_values("instr_count_wave").tolist() == [original.instructions]
    assert counted.instructions > original.instructions  # the hooks ran too
    result = counted.buffers[2]
    assert result is not None and result[999] == 3 * 999 and result[1000] == 0


def test_lift_and_run_the_ir() -> None:
    module = luthier.lift(KERNELS / "control_flow.gfx90a.co", kernels=["counted_loop"])
    names = [op.sym_name.data for op in module.walk()  # type: ignore[attr-defined]
             if op.name == "amdgpu_mc.kernel"]
    assert names == ["counted_loop"]
    run = luthier.run(luthier.lift(SAMPLE), "vector_add", 1, 64,
                      _vector_add_args(64)[:3] + [64])
    assert run.instructions == 29


@pytest.mark.parametrize(("call", "message"), [
    (lambda: luthier.lift(b"not an elf"), r"^<bytes>: not an ELF file"),
    (lambda: luthier.load_hooks(luthier.lift(SAMPLE)), r"not amdgpu_mc\.code_object$"),
    (lambda: luthier.lift(Path("/nonexistent.co")), r"^/nonexistent\.co: no such file$"),
    (lambda: luthier.lift(SAMPLE, kernels=["nope"]), r"nope"),
    (lambda: luthier.instrument(SAMPLE, HOOKS / "missing.mlir"), r"missing\.mlir: no such file"),
    (lambda: luthier.instrument(SAMPLE, HOOKS / "README.md"),
     r"takes a \.mlir, \.py, \.hip, \.ll or \.bc file"),
    (lambda: luthier.instrument(SAMPLE, HOOKS / "instr_count.mlir", jobs=0),
     r"^jobs=0: give at least 1$"),
    (lambda: luthier.instrument(SAMPLE, HOOKS / "instr_count.mlir",
                                output="/nonexistent/dir/out.co"),
     r"^/nonexistent/dir/out\.co: cannot write: No such file or directory$"),
    (lambda: luthier.run(SAMPLE, "nope", 1, 64, []), r"^no kernel named nope"),
    (lambda: luthier.run(SAMPLE, "vector_add", 1, 64, [1]), r"takes 4 arguments, got 1"),
], ids=["not-elf", "not-hooks", "no-file", "no-kernel", "no-hooks", "hooks-kind", "jobs", "output",
        "run-kernel", "run-args"])
def test_mistakes_are_one_line(call: object, message: str) -> None:
    with pytest.raises(luthier.LuthierError, match=message) as raised:
        call()  # type: ignore[operator]
    assert "\n" not in str(raised.value)


def test_a_global_read_as_what_it_is_not_is_one_line() -> None:
    data = luthier.instrument(SAMPLE, HOOKS / "instr_count.mlir")
    result = luthier.run(data, "vector_add", 1, 64, _vector_add_args(64)[:3] + [64])
    assert result.global_values("instr_count_wave", np.uint32, 2).tolist() == [29, 0]
    with pytest.raises(luthier.LuthierError, match=r"^no global named 'nope' \(globals: "):
        result.global_values("nope")
    with pytest.raises(luthier.LuthierError, match=r"it holds 2 u32 values, not 3$"):
        result.global_values("instr_count_wave", np.uint32, 3)


def test_every_layers_user_errors_are_luthier_errors() -> None:
    """One ``except luthier.LuthierError`` catches the mistakes any layer reports."""
    from luthier.drivers.opt_main import UserError
    from luthier.emulator.errors import EmulationError
    from luthier.frontend.asm.errors import AsmError
    from luthier.frontend.codeobj import CodeObjectError
    from luthier.frontend.codeobj.spec import ElfWriteError
    from luthier.frontend.lift import LiftError
    from luthier.lowering.emit.errors import EmitError

    for kind in (UserError, EmulationError, AsmError, CodeObjectError, ElfWriteError, LiftError,
                 EmitError):
        assert issubclass(kind, luthier.LuthierError), kind


def test_the_worked_example_of_the_docs_prints_what_it_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """docs/python-api.md's code, run as written (from a checkout's root, here a folder
    that has the examples): each ``print`` shows what its comment says."""
    text = (ROOT / "docs" / "python-api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == 3
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "test").symlink_to(ROOT / "test")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for block in (blocks[0], blocks[2]):  # the worked example, then the library in place
        exec(compile(block, "docs/python-api.md", "exec"), namespace)
        printed = capsys.readouterr().out.splitlines()
        promised = [comment.split(":")[0] for comment in
                    re.findall(r"^print\(.*\)\s+# (.*)$", block, re.MULTILINE)]
        assert printed == [promise.split(" ")[0] if promise[0].isdigit() else promise
                           for promise in promised]
    assert (tmp_path / "vector_add.counted.co").is_file()
    assert (tmp_path / "libelementwise.so").is_file()
    assert namespace["notes"] == []
