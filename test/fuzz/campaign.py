#!/usr/bin/env python3
"""Fuzz campaigns over every input surface of the tools, deterministic by seed.

Each surface takes real inputs (corpus code objects and bundles, the example hooks in
MLIR, Python and LLVM IR, lifted IR, assembly, instruction bytes, luthier-run command
lines), mutates them (:mod:`mutators`) and runs the user's command on each mutant in a
forked child of this process (the tools' modules are imported once, here), under a time
limit and an address-space limit. Each run is classified:

* ``accepted``: exit 0;
* ``refused``: exit 1 (2 for a usage error) with exactly one ``error:`` line on standard
  error and no output file: what the developers' guide asks of bad input;
* a failure: ``traceback`` (an exception escaped, or one was printed), ``internal`` (a
  tool reported a bug of its own, exit 70), ``hang`` (past the
  time limit), ``memory`` (MemoryError, or the child died under the address-space
  limit), ``partial-output`` (refused, yet the output file exists), ``clobbered-input``
  (the input file changed), ``message`` (a refusal without exactly one error line),
  ``exit-code`` (another status), ``crash`` (killed by a signal).

Failures are kept as reproducers under ``build/fuzz/<surface>/`` (the input, and the
command in ``command.txt``). The table printed at the end has one row per surface.

    python test/fuzz/campaign.py                          # every surface, 200 mutants each
    python test/fuzz/campaign.py --count 10000            # the long campaign
    python test/fuzz/campaign.py --surface llvm-hooks --count 500 --seed 7

``test/unit/test_fuzz_campaign.py`` runs a short campaign in CI and fails on any failure.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import math
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutators import (  # noqa: E402
    mutate_args,
    mutate_bundle,
    mutate_elf,
    mutate_host,
    mutate_text,
)

from luthier.amdgpu_dialects.errors import EXIT_INTERNAL  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"
KERNELS = ROOT / "test" / "corpus" / "kernels"
HOST = ROOT / "test" / "corpus" / "host"
#: The host binaries the host-library surface mutates, named rather than globbed: a file
#: added to the corpus does not shift every mutant a seed makes (the campaigns' tables stay
#: comparable across sessions).
HOST_INPUTS = ("elementwise.exe", "elementwise.host.o", "libelementwise.bfd.so",
               "libelementwise.rdna.so", "libelementwise.so", "libelementwise.zstd.so",
               "libstub_runtime.so", "libtwo.so")
HOOKS = ROOT / "examples" / "hooks"
REPRODUCERS = ROOT / "build" / "fuzz"
#: How many times the CPU time limit a run may take by the clock before it is a hang too
#: (waiting forever costs no CPU).
WALL_FACTOR = 4
FAILURES = ("traceback", "internal", "hang", "memory", "partial-output", "clobbered-input",
            "message", "exit-code", "crash", "unreadable-output")
#: Reads every ELF output of an accepted mutant: an output it finds more wrong with than
#: with the input is a finding (the tool wrote a broken file rather than refusing).
READELF = "llvm-readelf-19"


@dataclass
class Case:
    """One command on one mutant: the tool, its arguments (``{in}`` and ``{out}`` stand
    for the input and output paths), the input's bytes and file suffix."""

    tool: str
    args: list[str]
    data: bytes
    suffix: str
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict[str, str])


def _main(tool: str) -> Callable[[list[str]], int]:
    if tool == "luthier-opt":
        from luthier.drivers.luthier_opt import main as opt
        return lambda argv: opt(argv)
    if tool == "luthier-mc":
        from luthier.drivers.luthier_mc import main as mc
        return lambda argv: mc(argv)
    from luthier.emulator.cli import main as run
    return lambda argv: run(argv)


def _child(case: Case, argv: list[str], err: int, out: int, stdin: int,
           memory: int, cpu_seconds: int) -> None:
    """In the forked child: run the tool; the exit status says how it ended."""
    code = 97
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        # A hang is CPU time spent, not time waited: on a loaded machine (a long campaign
        # beside other work) a run can wait for a core longer than it computes.
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        os.dup2(stdin, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        # The streams may not be the descriptors (pytest captures into its own objects).
        sys.stdin = open(0, closefd=False, errors="replace")  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False, errors="replace")  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, errors="replace")  # noqa: SIM115
        os.environ.update(case.env)
        sys.argv = [case.tool, *argv]
        code = _main(case.tool)(argv)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
        code = int(code)
    except MemoryError:
        sys.stderr.write("\nFUZZ-MEMORY-ERROR\n")
        code = 96
    except BaseException:  # noqa: BLE001 - the point: anything else is a finding
        traceback.print_exc()
        code = 98
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def run_case(case: Case, folder: Path, timeout: float, memory_mb: int) -> tuple[str, str]:
    """Run ``case`` in a forked child; (outcome, standard error)."""
    source = folder / f"input{case.suffix}"
    source.write_bytes(case.data)
    for stale in folder.glob("output*"):
        stale.unlink()
    output = folder / "output"
    argv = [arg.replace("{in}", str(source)).replace("{out}", str(output)) for arg in case.args]
    before = hashlib.sha256(case.data).digest()
    err_path, out_path, in_path = folder / "stderr", folder / "stdout", folder / "stdin"
    in_path.write_bytes(case.stdin or b"")
    with open(err_path, "wb") as err, open(out_path, "wb") as out, open(in_path, "rb") as inp:
        pid = os.fork()
        if pid == 0:
            _child(case, argv, err.fileno(), out.fileno(), inp.fileno(), memory_mb << 20,
                   math.ceil(timeout))
        # The CPU limit ends a run that computes too long (SIGXCPU); this ends one that
        # waits for something that never comes.
        deadline = time.monotonic() + timeout * WALL_FACTOR
        status = None
        cpu = 0.0
        while status is None:
            done, raw, usage = os.wait4(pid, os.WNOHANG)
            if done:
                status = raw
                cpu = usage.ru_utime + usage.ru_stime
            elif time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return "hang", ""
            else:
                time.sleep(0.005)
    stderr = err_path.read_text(errors="replace")
    if source.exists() and hashlib.sha256(source.read_bytes()).digest() != before:
        return "clobbered-input", stderr
    if os.WIFSIGNALED(status) and (os.WTERMSIG(status) == signal.SIGXCPU
                                   or os.WTERMSIG(status) == signal.SIGKILL and cpu >= timeout):
        return "hang", ""  # the CPU limit ended it
    if os.WIFSIGNALED(status):
        # SIGKILL/SIGSEGV/SIGABRT under the address-space limit: an allocation failed.
        return ("memory" if os.WTERMSIG(status) in (signal.SIGKILL, signal.SIGSEGV,
                                                    signal.SIGABRT) else "crash"), stderr
    code = os.WEXITSTATUS(status)
    if code == 96 or "FUZZ-MEMORY-ERROR" in stderr or "MemoryError" in stderr:
        return "memory", stderr
    if code == 98 or "Traceback (most recent call last)" in stderr:
        return "traceback", stderr
    if code == EXIT_INTERNAL or "internal error:" in stderr:
        return "internal", stderr
    if code == 0:
        if any(_readelf_complaints(output) - _readelf_complaints(source)
               for output in folder.glob("output*") if output.read_bytes()[:4] == b"\x7fELF"):
            return "unreadable-output", stderr
        return "accepted", stderr
    if code not in (1, 2):
        return "exit-code", stderr
    if any(folder.glob("output*")):
        return "partial-output", stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error:" in line]
    diagnostics = all("error:" in line or "warning:" in line for line in lines)
    # llvm-mc's interface reports every bad line (luthier-mc: one diagnostic each, errors
    # or invalid-encoding warnings); the other tools stop at the first error.
    wanted = bool(lines) if case.tool == "luthier-mc" else len(errors) == 1
    return ("refused" if diagnostics and wanted else "message"), stderr


#: CPU seconds llvm-readelf may spend on one file (past it, SIGXCPU: counted as a crash),
#: and the clock's backstop.
READELF_CPU_SECONDS = 60
READELF_WALL_SECONDS = 3600


def _readelf_limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (READELF_CPU_SECONDS, READELF_CPU_SECONDS))


def _readelf_complaints(path: Path) -> set[str]:
    """What ``llvm-readelf-19 --all`` complains of in ``path``: each error and warning with
    the file name and every number taken out (an output complained of as its input was, at
    other offsets or sizes, is no worse than it), and whether it crashed; empty without
    it."""
    if shutil.which(READELF) is None:
        return set()
    import re
    import subprocess

    try:
        # A CPU limit, not a clock one: on a loaded machine (a campaign beside a test
        # suite) a nice'd llvm-readelf can wait a minute for a core.
        done = subprocess.run([READELF, "--all", "--wide", str(path)], capture_output=True,
                              text=True, errors="replace", timeout=READELF_WALL_SECONDS,
                              preexec_fn=_readelf_limits)
    except subprocess.TimeoutExpired:
        return {"timed out"}
    lines = {re.sub(r"0x[0-9a-fA-F]+|\d+", "N", line.replace(str(path), "FILE"))
             for line in done.stderr.splitlines()
             if ("error" in line or "warning" in line) and not line.lstrip().startswith("#")}
    if done.returncode < 0 or "Stack dump" in done.stderr:
        lines.add("crashed")
    elif done.returncode != 0 and not lines:
        lines.add(f"exit status {done.returncode}")
    return lines


# ---------------------------------------------------------------------------------------
# Surfaces
# ---------------------------------------------------------------------------------------

OPT = ["--no-progress"]
INSTRUMENT = [*OPT, "--lift", "--inline-hooks", "--emit-preamble"]


def _code_objects(rng: random.Random) -> Case:
    path = rng.choice([SAMPLE, *(KERNELS / f"{name}.gfx90a.co"
                                 for name in ("elementwise", "control_flow", "calls"))])
    data = mutate_elf(rng, path.read_bytes())
    if rng.random() < 0.5:
        return Case("luthier-opt", [*OPT, "--lift", "{in}", "-o", "{out}.co"], data, ".co")
    return Case("luthier-opt", [*INSTRUMENT, "{in}", "--hooks",
                                str(HOOKS / "instr_count.mlir"), "-o", "{out}.co"], data, ".co")


def _bundles(rng: random.Random) -> Case:
    path = rng.choice(sorted(KERNELS.glob("*.hipfb")))
    data = mutate_bundle(rng, path.read_bytes())
    if rng.random() < 0.5:  # written back as a bundle (every entry round-tripped)
        return Case("luthier-opt", [*OPT, "{in}", "-o", "{out}.hipfb"], data, ".hipfb")
    return Case("luthier-opt", [*OPT, "--lift", "{in}", "--offload-arch", "gfx90a", "-o",
                                "{out}.co"], data, ".hipfb")


def _host_libraries(rng: random.Random) -> Case:
    """A host library, program or object with a fat binary, written back in place."""
    path = HOST / rng.choice(HOST_INPUTS)
    data = mutate_host(rng, path.read_bytes())
    if rng.random() < 0.5:
        return Case("luthier-opt", [*OPT, "{in}", "--emit=host", "-o", "{out}.so"], data, ".so")
    return Case("luthier-opt", [*INSTRUMENT, "{in}", "--emit=host", "--offload-arch", "gfx90a",
                                "--hooks", str(HOOKS / "instr_count.mlir"), "-o", "{out}.so"],
                data, ".so")


_MLIR_WORDS = ("instr.hook", "instr.insert", "instr.global", "arith.constant", "scf.if",
               "i32", "i64", "i1", "@count", '"instruction"', "%0", "%1", "instr.return")


def _mlir_hooks(rng: random.Random) -> Case:
    path = rng.choice(sorted(HOOKS.glob("*.mlir")))
    text = mutate_text(rng, path.read_text(), _MLIR_WORDS)
    return Case("luthier-opt", [*INSTRUMENT, str(SAMPLE), "--hooks", "{in}", "-o", "{out}.co"],
                text.encode(), ".mlir")


_LLVM_WORDS = ("add", "icmp", "br", "phi", "ret", "call", "i32", "i64", "ptr", "label",
               "%0", "@Flags", "@Totals", "!dbg", "addrspace(1)", "atomicrmw", "store", "load")


def _llvm_hooks(rng: random.Random) -> Case:
    path = ROOT / "test" / "lit" / "hip" / "Inputs" / "control.ll"
    text = mutate_text(rng, path.read_text(), _LLVM_WORDS)
    return Case("luthier-opt", [*INSTRUMENT, str(SAMPLE), "--hooks", "{in}", "-o", "{out}.co"],
                text.encode(), ".ll")


_PYTHON_WORDS = ("hooks", "h", "i64", "i32", "def", "return", "(", "None", "1", "lambda",
                 "import", "global_var", "insert")


def _python_hooks(rng: random.Random) -> Case:
    path = rng.choice(sorted(HOOKS.glob("*.py")))
    text = mutate_text(rng, path.read_text(), _PYTHON_WORDS)
    return Case("luthier-opt", [*INSTRUMENT, str(SAMPLE), "--hooks", "{in}", "-o", "{out}.co"],
                text.encode(), ".py", env={"LUTHIER_HOOKS_TIMEOUT": "5"})


_IR_WORDS = ("amdgpu_mc.s_nop", "amdgpu_mc.s_endpgm", "s0", "v[0:1]", "exec", "vcc", "^bb1",
             "amdgpu_mc.fallthrough", "amdgpu_mc.s_branch", "0x10000", "off", "glc")


def _lifted_ir(rng: random.Random, lifted: str) -> Case:
    text = mutate_text(rng, lifted, _IR_WORDS)
    return Case("luthier-opt", [*OPT, "{in}", "-o", "{out}.co"], text.encode(), ".mlir")


_ASM_WORDS = ("s_mov_b32", "v_add_f32", "s0", "v1", "s[0:1]", "exec", "vcc", ".text",
              ".amdhsa_kernel", ".end_amdhsa_kernel", "0x7fffffff", "offset:", "glc", ";")


def _assembly(rng: random.Random) -> Case:
    """A whole kernel's assembly (clang -S), through luthier-opt's assembler front end."""
    path = rng.choice(sorted(KERNELS.glob("*.s")))
    text = mutate_text(rng, path.read_text(), _ASM_WORDS, rounds=4)
    return Case("luthier-opt", [*OPT, "{in}", "-o", "{out}.co"], text.encode(), ".s")


def _instruction_text(rng: random.Random) -> Case:
    """Instructions alone, as llvm-mc's assembler reads them (luthier-mc)."""
    path = rng.choice(sorted(KERNELS.glob("*.s")))
    # Lines that name no label or symbol (the assembler would ask for their definitions).
    lines = [line.split(";")[0].rstrip() for line in path.read_text().splitlines()
             if line.startswith("\t") and not line.startswith("\t.")
             and not any(mark in line for mark in (".L", "@", "_Z"))]
    text = mutate_text(rng, "\n".join(rng.sample(lines, min(len(lines), 12))) + "\n",
                       _ASM_WORDS, rounds=4)
    mcpu = "gfx942" if "gfx942" in path.name else "gfx90a"
    return Case("luthier-mc", [f"--mcpu={mcpu}", "--show-encoding", "{in}", "-o", "{out}.s"],
                text.encode(), ".s")


def _bytes(rng: random.Random) -> Case:
    words = " ".join(f"0x{rng.getrandbits(8):02x}" for _ in range(4 * rng.randint(1, 6)))
    if rng.random() < 0.2:
        words = mutate_text(rng, words, ("0x", "0xfff", "[", "]", "#"))
    return Case("luthier-mc", ["--disassemble", "--mcpu=gfx90a", "{in}", "-o", "{out}.s"],
                words.encode(), ".txt")


_RUN_BASE = ["{in}", "--kernel", "vector_add", "--grid", "4", "--block", "256",
             "--arg", "a=iota:1024xf32", "--arg", "b=iota:1024xf32", "--arg",
             "c=zeros:1024xf32", "--arg", "1000", "--max-instructions", "100000"]
_RUN_WORDS = ("--grid", "--block", "--arg", "--global", "--out", "{out}.npy", "1,2,3",
              "0", "-1", "65536", "rand:1x9xf32", "zeros:0xf32", "vector_add", "--counts",
              "--json", "--seed", "--dynamic-lds", "--scratch", "1e9", "c=iota:4096xi64")


def _run_args(rng: random.Random) -> Case:
    return Case("luthier-run", mutate_args(rng, list(_RUN_BASE), _RUN_WORDS),
                SAMPLE.read_bytes(), ".co")


SURFACES: dict[str, Callable[[random.Random], Case]] = {
    "code-object": _code_objects,
    "bundle": _bundles,
    "host-library": _host_libraries,
    "mlir-hooks": _mlir_hooks,
    "llvm-hooks": _llvm_hooks,
    "python-hooks": _python_hooks,
    "assembly": _assembly,
    "instruction-text": _instruction_text,
    "instruction-bytes": _bytes,
    "run-args": _run_args,
}


def _lifted_text() -> str:
    """vector_add lifted to IR text (the lifted-ir surface mutates it)."""
    from luthier.drivers.luthier_opt import main

    folder = Path(tempfile.mkdtemp(prefix="luthier-fuzz-"))
    try:
        out = folder / "lifted.mlir"
        assert main(["--no-progress", "--lift", str(SAMPLE), "-o", str(out)]) == 0
        return out.read_text()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Tally:
    runs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter[str])
    seconds: float = 0.0


def campaign(surfaces: list[str], count: int, seed: int, timeout: float, memory_mb: int,
             keep: bool = True, progress: int = 0) -> dict[str, Tally]:
    """Run ``count`` mutants per surface; the tallies by surface. With ``progress``, a
    line on standard error every that many runs."""
    makers = dict(SURFACES)
    if "lifted-ir" in surfaces:
        lifted = _lifted_text()
        makers["lifted-ir"] = lambda rng: _lifted_ir(rng, lifted)
    for tool in ("luthier-opt", "luthier-mc", "luthier-run"):  # import once, before forks
        _main(tool)
    importlib.import_module("luthier.drivers.opt_main")  # the rest of luthier-opt

    tallies: dict[str, Tally] = {}
    work = Path(tempfile.mkdtemp(prefix="luthier-fuzz-"))
    try:
        for surface in surfaces:
            tally = tallies[surface] = Tally()
            rng = random.Random(f"{seed}:{surface}")
            start = time.monotonic()
            for index in range(count):
                case = makers[surface](rng)
                outcome, stderr = run_case(case, work, timeout, memory_mb)
                tally.runs += 1
                tally.outcomes[outcome] += 1
                if outcome in FAILURES and keep:
                    _keep(surface, outcome, index, case, stderr, work)
                if progress and (index + 1) % progress == 0 and index + 1 < count:
                    _report_progress(surface, tally, count, time.monotonic() - start)
            tally.seconds = time.monotonic() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tallies


def _report_progress(surface: str, tally: Tally, count: int, seconds: float) -> None:
    """One line on standard error: runs done, the rate, the time left and any failures."""
    rate = tally.runs / seconds if seconds > 0 else 0.0
    left = (count - tally.runs) / rate if rate > 0 else 0.0
    failures = sum(tally.outcomes[kind] for kind in FAILURES)
    print(f"{surface}: {tally.runs}/{count} runs, {rate:.1f}/s, about {left / 60:.0f} min "
          f"left, {failures} failures", file=sys.stderr, flush=True)


def _keep(surface: str, outcome: str, index: int, case: Case, stderr: str, work: Path) -> None:
    folder = REPRODUCERS / surface / f"{outcome}-{index}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"input{case.suffix}").write_bytes(case.data)
    (folder / "command.txt").write_text(" ".join([case.tool, *case.args]) + "\n")
    (folder / "stderr.txt").write_text(stderr)
    if case.stdin is not None:
        (folder / "stdin").write_bytes(case.stdin)


def table(tallies: dict[str, Tally]) -> str:
    columns = ["accepted", "refused", *FAILURES]
    header = f"{'surface':18} {'runs':>6} " + " ".join(f"{c:>9}" for c in columns) + \
        f" {'seconds':>8}"
    rows = [header]
    for surface, tally in tallies.items():
        rows.append(f"{surface:18} {tally.runs:6} " +
                    " ".join(f"{tally.outcomes[c]:9}" for c in columns) +
                    f" {tally.seconds:8.1f}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    every = [*SURFACES, "lifted-ir"]
    parser.add_argument("--surface", action="append", choices=every,
                        help="a surface to fuzz (repeatable; default: every one)")
    parser.add_argument("--count", type=int, default=200, help="mutants per surface")
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="CPU seconds one run may take, and four times that by the clock "
                             "(a hang past either is a finding)")
    parser.add_argument("--progress", type=int, default=500, metavar="RUNS",
                        help="a line on standard error every RUNS runs of a surface (0: none)")
    parser.add_argument("--memory-mb", type=int, default=4096,
                        help="address space of one run (a blow-up past it is a finding)")
    args = parser.parse_args(argv)
    tallies = campaign(args.surface or every, args.count, args.seed, args.timeout,
                       args.memory_mb, progress=args.progress)
    print(table(tallies))
    failures = sum(t.outcomes[c] for t in tallies.values() for c in FAILURES)
    if failures:
        print(f"{failures} failures; reproducers in {REPRODUCERS}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
