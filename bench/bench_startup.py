"""Start-up CPU time of the command-line tools, against llvm-mc-19 doing the same.

Issue 23's target: ``luthier-opt --help`` and a one-instruction ``luthier-mc`` (assembly
with ``-show-encoding``, and disassembly) each take at most 0.2 s of CPU. Every case is a
fresh process; its CPU time (user + system, from ``wait4``) is the median of ``--runs``.

    python bench/bench_startup.py [--runs 7] [--importtime]

The luthier tools run as their console scripts do (the script beside this interpreter,
else ``python -m``), with Python's bytecode cache allowed: one untimed run first writes it,
as installing a package does, so ``PYTHONDONTWRITEBYTECODE`` in the environment does not
turn every timed run into a compile. ``--importtime`` also prints each luthier case's
slowest imports (``python -X importtime``, cumulative microseconds). The figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LLVM_MC = "llvm-mc-19"
TARGET_SECONDS = 0.2
ONE_WORD_ASSEMBLY = "s_nop 0\n"
ONE_WORD_BYTES = "0x00,0x00,0x80,0xbf\n"


@dataclass(frozen=True)
class Case:
    """One start-up: a luthier command line and LLVM's command doing the same."""

    label: str
    tool: str
    module: str
    arguments: tuple[str, ...]
    llvm: tuple[str, ...]
    stdin: str


CASES = (
    Case("luthier-opt --help", "luthier-opt", "luthier.drivers.luthier_opt", ("--help",),
         (LLVM_MC, "--help"), ""),
    Case("luthier-mc one-word assembly", "luthier-mc", "luthier.drivers.luthier_mc",
         ("--arch=amdgcn", "--mcpu=gfx90a", "-show-encoding"),
         (LLVM_MC, "--arch=amdgcn", "--mcpu=gfx90a", "-show-encoding"), ONE_WORD_ASSEMBLY),
    Case("luthier-mc one-word disassembly", "luthier-mc", "luthier.drivers.luthier_mc",
         ("--disassemble", "--arch=amdgcn", "--mcpu=gfx90a", "-show-encoding"),
         (LLVM_MC, "--disassemble", "--arch=amdgcn", "--mcpu=gfx90a", "-show-encoding"),
         ONE_WORD_BYTES),
)


def luthier_command(case: Case) -> list[str]:
    """The console script beside this interpreter (what a user runs), else ``-m``."""
    script = Path(sys.executable).parent / case.tool
    if script.is_file():
        return [sys.executable, str(script), *case.arguments]
    return [sys.executable, "-m", case.module, *case.arguments]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cpu_seconds(command: list[str], stdin: str, env: dict[str, str]) -> float:
    """User + system CPU time of one run of ``command`` (which must succeed)."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=env, text=True)
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(stdin)
    process.stdin.close()
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({process.returncode}): {errors}")
    return usage.ru_utime + usage.ru_stime


def median_cpu(command: list[str], stdin: str, runs: int, env: dict[str, str]) -> float:
    return statistics.median(cpu_seconds(command, stdin, env) for _ in range(runs))


def slowest_imports(command: list[str], stdin: str, env: dict[str, str],
                    count: int = 8) -> list[str]:
    """The ``-X importtime`` lines with the largest cumulative time."""
    run = subprocess.run([command[0], "-X", "importtime", *command[1:]], input=stdin,
                         capture_output=True, text=True, env=env, check=True)
    lines = [line for line in run.stderr.splitlines() if line.startswith("import time:")
             and "cumulative" not in line]
    return sorted(lines, key=lambda line: -int(line.split("|")[1]))[:count]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per case")
    parser.add_argument("--importtime", action="store_true",
                        help="also print each luthier case's slowest imports")
    args = parser.parse_args(argv)
    runs = max(1, args.runs)
    env = environment()
    llvm_mc = shutil.which(LLVM_MC)
    print(f"CPU time (user+sys), median of {runs} fresh processes; target <= "
          f"{TARGET_SECONDS * 1000:.0f} ms")
    print(f"{'case':34} {'luthier':>10} {LLVM_MC:>12} {'ratio':>8}  target")
    for case in CASES:
        command = luthier_command(case)
        cpu_seconds(command, case.stdin, env)  # untimed: writes the bytecode cache
        luthier = median_cpu(command, case.stdin, runs, env)
        llvm_text, ratio_text = "-", "-"
        if llvm_mc is not None:
            llvm = median_cpu(list(case.llvm), case.stdin, runs, env)
            llvm_text = f"{llvm * 1000:9.1f} ms"
            ratio_text = f"{luthier / llvm:7.1f}x" if llvm > 0 else "inf"
        verdict = "PASS" if luthier <= TARGET_SECONDS else "MISS"
        print(f"{case.label:34} {luthier * 1000:7.1f} ms {llvm_text:>12} {ratio_text:>8}  "
              f"{verdict}")
    if llvm_mc is None:
        print(f"({LLVM_MC} is not installed: no reference figures)")
    if args.importtime:
        for case in CASES:
            print(f"\nslowest imports of {case.label} (cumulative us):")
            for line in slowest_imports(luthier_command(case), case.stdin, env):
                print("  " + line.removeprefix("import time:").strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
