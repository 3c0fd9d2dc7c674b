"""Fixtures every test folder shares.

``luthier_opt``: run ``luthier-opt`` on a command line as a user does (its own process,
its own standard streams, its exit status), in a child forked from this pytest worker
instead of a new interpreter. The child runs the same entry point
(:func:`luthier.drivers.opt_main.run`) from the same state a fresh process would reach
after its imports; what it saves is the interpreter's start and those imports, about
0.6 s of CPU per run, which hundreds of instrumentation runs in the suite paid over and
over. Tests of the installed command itself (its script, its tracebacks, its start-up)
keep starting real processes.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import IO

import pytest

#: ``luthier_opt(args, input=..., env=..., cwd=...)``: the finished run.
LuthierOpt = Callable[..., "subprocess.CompletedProcess[str]"]


#: What every instrumentation run imports, loaded once here and shared by the children
#: (the tables and memos stay cold: they load when a target is first used).
_PRELOADED = ("luthier.drivers.opt_main", "luthier.passes.instrument.pipeline",
              "luthier.passes.layout.pipeline")


def _preload() -> None:
    for name in _PRELOADED:
        importlib.import_module(name)


def _forget_import_locks() -> None:
    """Drop the per-module import locks inherited from the parent.

    The parent is multi-threaded (the worker's own threads, and the threads that run
    these jobs): a thread of it importing a module when another forks leaves that
    module's lock held in the child, by a thread the child does not have, and the child's
    first import of the module waits for ever (CPython re-creates only the global import
    lock after a fork). The child has one thread: fresh locks are made as needed."""
    bootstrap = sys.modules["importlib._bootstrap"]
    for table in ("_module_locks", "_blocking_on"):
        locks = getattr(bootstrap, table, None)
        if isinstance(locks, dict):
            locks.clear()


def _child(args: Sequence[str], stdin: int, stdout: int, stderr: int,
           env: Mapping[str, str] | None, cwd: str | os.PathLike[str] | None) -> int:
    """In the forked child: the run, with the child's own streams; its exit status."""
    _forget_import_locks()
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - lives as long as the child
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    from luthier.drivers.opt_main import run

    try:
        status = run(list(args))
    except SystemExit as done:  # argparse's usage errors
        status = done.code if isinstance(done.code, int) else 1
    except BaseException:  # a traceback, as the real command would print
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return status


def _read(stream: IO[bytes]) -> str:
    stream.seek(0)
    return stream.read().decode("utf-8", errors="replace")


def run_luthier_opt(args: Sequence[str | os.PathLike[str]], *, input: str | None = None,
                    env: Mapping[str, str] | None = None,
                    cwd: str | os.PathLike[str] | None = None, timeout: float = 900.0
                    ) -> subprocess.CompletedProcess[str]:
    """``luthier-opt args`` in a forked child (see the module's docstring). May be called
    from several threads at once: the child runs alone, on streams of its own."""
    _preload()
    argv = [os.fspath(arg) for arg in args]
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout, \
            tempfile.TemporaryFile() as stderr:
        stdin.write((input or "").encode())
        stdin.flush()
        stdin.seek(0)
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                status = _child(argv, stdin.fileno(), stdout.fileno(), stderr.fileno(), env,
                                cwd)
            finally:
                os._exit(status)
        status, note = _wait(pid, timeout)
        return subprocess.CompletedProcess(["luthier-opt", *argv], status, _read(stdout),
                                           _read(stderr) + note)


def _wait(pid: int, timeout: float) -> tuple[int, str]:
    """The child's exit status; past ``timeout`` seconds it is killed (a run that hangs
    fails its test instead of the suite)."""
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(wait_status), ""
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return -signal.SIGKILL, f"\n(killed after {timeout:.0f} s)\n"
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


@pytest.fixture(scope="session")
def luthier_opt() -> LuthierOpt:
    return run_luthier_opt
