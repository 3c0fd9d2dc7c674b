"""Round-trip report: ``luthier-opt --lift IN -o OUT.co`` for each input, then what changed.

For every input code object (linked ``.co``/``.hsaco``) this runs the user's command, reads
both files back and prints, per file: whole-file identity, functions with identical bytes,
kernel descriptors identical (their code entry offsets must point at their kernels), metadata
equivalence, whether ``llvm-readelf`` and ``llvm-objdump`` accept the output and list the same
kernel symbols, and each difference with its reason. Exit status 1 when any function,
descriptor, metadata or tool check fails (whole-file differences alone are reported, not
failures: another toolchain's layout or debug sections need not come back).

    python scripts/roundtrip_report.py test/corpus/kernels/*.co build/thirdparty/codeobjects/*/*.co

``--opt-arg ARG`` (repeatable) adds ARG to each ``luthier-opt`` command. A pass that has
nothing to change makes the run build every function's ops and emit them, instead of
writing back the bytes of the functions that encode to them (``LiftOptions.keep_bytes``):
``--opt-arg=-p --opt-arg=update-descriptors`` checks the whole IR path. The large set of
``test/corpus/thirdparty/fetch.sh --large`` (333 rocSPARSE code objects):

    python scripts/roundtrip_report.py build/thirdparty-large/codeobjects/*/*.co
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from luthier.frontend.codeobj import read_code_object
from luthier.frontend.codeobj.compare import Comparison, compare_code_objects

_LLVM_SUFFIXES = ("-19", "")


def llvm_tool(name: str) -> str | None:
    """``llvm-readelf-19`` or plain ``llvm-readelf``, whichever is installed."""
    for suffix in _LLVM_SUFFIXES:
        found = shutil.which(name + suffix)
        if found:
            return found
    return None


@dataclass
class FileReport:
    path: Path
    whole_file_identical: bool
    comparison: Comparison
    tool_problems: list[str]

    @property
    def ok(self) -> bool:
        return self.comparison.identical and not self.tool_problems


def _kernel_symbols(readelf: str, path: Path) -> tuple[set[str], str]:
    run = subprocess.run([readelf, "--symbols", "--wide", str(path)], capture_output=True,
                         text=True, check=False)
    names = {line.split()[-1].removesuffix(".kd") for line in run.stdout.splitlines()
             if line.split() and line.split()[-1].endswith(".kd")}
    return names, run.stderr.strip() if run.returncode else ""


def _tool_problems(original: Path, output: Path) -> list[str]:
    problems: list[str] = []
    readelf, objdump = llvm_tool("llvm-readelf"), llvm_tool("llvm-objdump")
    if readelf is None or objdump is None:
        return ["llvm-readelf/llvm-objdump not installed: the tool checks did not run"]
    run = subprocess.run([readelf, "-h", "-l", "-S", "-s", "--notes", "--dyn-syms",
                          str(output)], capture_output=True, text=True, check=False)
    if run.returncode or "warning" in run.stderr:
        problems.append(f"llvm-readelf: {run.stderr.strip() or f'exit {run.returncode}'}")
    before, _ = _kernel_symbols(readelf, original)
    after, error = _kernel_symbols(readelf, output)
    if error or before != after:
        problems.append(f"llvm-readelf lists other kernels: {sorted(before ^ after)} {error}")
    run = subprocess.run([objdump, "-d", str(output)], capture_output=True, text=True,
                         check=False)
    if run.returncode or "warning" in run.stderr:
        problems.append(f"llvm-objdump -d: {run.stderr.strip() or f'exit {run.returncode}'}")
    return problems


def report_file(path: Path, workdir: Path, opt: list[str]) -> FileReport:
    """Run the round trip on ``path`` and compare."""
    output = workdir / (path.name + ".out.co")
    run = subprocess.run([*opt, "--lift", "--no-progress", str(path), "-o", str(output)],
                         capture_output=True, text=True, check=False)
    if run.returncode:
        raise RuntimeError(f"{path}: luthier-opt failed: {run.stderr.strip()}")
    original_bytes, output_bytes = path.read_bytes(), output.read_bytes()
    comparison = compare_code_objects(read_code_object(original_bytes, name=str(path)),
                                      read_code_object(output_bytes, name=str(output)))
    return FileReport(path, original_bytes == output_bytes, comparison,
                      _tool_problems(path, output))


def _print(report: FileReport) -> None:
    c = report.comparison
    print(f"{report.path}: whole file {'identical' if report.whole_file_identical else 'differs'}"
          f"; functions {c.identical_functions}/{c.functions} identical; descriptors "
          f"{c.identical_descriptors}/{c.descriptors} identical; metadata "
          f"{'equivalent' if c.metadata_equivalent else 'DIFFERS'}; tools "
          f"{'accept it' if not report.tool_problems else 'COMPLAIN'}")
    for difference in c.differences:
        print(f"  {difference}")
    for problem in report.tool_problems:
        print(f"  {problem}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--opt-arg", action="append", default=[], metavar="ARG",
                        help="an argument added to each luthier-opt command (repeatable)")
    args = parser.parse_args(argv)
    opt = [sys.executable, "-m", "luthier.drivers.luthier_opt", *args.opt_arg]
    reports: list[FileReport] = []
    with tempfile.TemporaryDirectory() as workdir:
        for path in args.inputs:
            reports.append(report_file(path, Path(workdir), opt))
            _print(reports[-1])
    functions = sum(r.comparison.functions for r in reports)
    identical = sum(r.comparison.identical_functions for r in reports)
    descriptors = sum(r.comparison.descriptors for r in reports)
    same_descriptors = sum(r.comparison.identical_descriptors for r in reports)
    print(f"total: {len(reports)} files, {sum(r.whole_file_identical for r in reports)} "
          f"identical as files; functions {identical}/{functions} identical; descriptors "
          f"{same_descriptors}/{descriptors} identical; metadata equivalent in "
          f"{sum(r.comparison.metadata_equivalent for r in reports)}/{len(reports)}; tools "
          f"accept {sum(not r.tool_problems for r in reports)}/{len(reports)}")
    return 0 if all(report.ok for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
