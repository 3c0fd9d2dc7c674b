"""A hook file to LLVM IR text: ``.hip`` through clang-19, ``.bc`` through llvm-dis-19,
``.ll`` as it is.

clang-19 compiles for the device only, without the ROCm headers and device libraries
(``-nogpuinc -nogpulib``: ``include/luthier_hooks.h`` declares what a hook uses), at
``-O2`` (helpers inline, locals live in registers, as Luthier compiles its hooks), with
line tables (the importer's messages name source lines). Only this path needs LLVM's
tools; MLIR and Python hooks do not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from luthier.amdgpu_dialects.errors import LuthierError
from luthier.amdgpu_dialects.target.subtarget import subtarget_for

#: The folder holding ``luthier_hooks.h`` (put on clang's include path).
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
#: The wave64 target hooks compile for when the input's is not known: the LLVM IR a hook
#: gives is the same for every wave64 target the project supports.
DEFAULT_PROCESSOR = "gfx90a"
#: Seconds clang may take on one hook file.
COMPILE_TIMEOUT = 120.0


class HipCompileError(LuthierError):
    """The hook file could not be turned into LLVM IR; one line naming it and why."""


#: The Debian package of each tool.
_PACKAGES = {"clang-19": "clang-19", "llvm-dis-19": "llvm-19"}


def _tool(name: str, path: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise HipCompileError(f"{path}: {name} is needed to read this hook file "
                              f"(apt-get install {_PACKAGES[name]})")
    return found


def _first_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if "error:" in line:
            return line
    return lines[0] if lines else "no message"


def _run(command: list[str], path: str, what: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        raise HipCompileError(f"{path}: {what} ran past {COMPILE_TIMEOUT:.0f} s") from None
    except OSError as error:
        raise HipCompileError(f"{path}: {what} could not run: {error.strerror}") from None
    if done.returncode != 0:
        raise HipCompileError(f"{path}: {what} failed: {_first_error(done.stderr)}")
    return done.stdout


def compile_command(path: str, processor: str = DEFAULT_PROCESSOR) -> list[str]:
    """clang-19's command line for ``path`` (LLVM IR text on standard output).

    Hooks are compiled for 64-lane waves on every target (``-mwavefrontsize64`` where
    RDNA would default to 32): the importer reads clang's wave64 lane idioms (both
    ``mbcnt`` halves, 64-bit ballots) into ``instr`` intrinsics, which ``lower-intrinsics``
    then lowers for the instrumented kernel's own wave size."""
    wave64 = ["-mwavefrontsize64"] if subtarget_for(processor).default_wave_size == 32 else []
    return ["clang-19", "-x", "hip", "--offload-device-only", "-nogpulib", "-nogpuinc",
            "-O2", f"--offload-arch={processor}", *wave64, "-emit-llvm", "-S",
            "-gline-tables-only", "-fno-discard-value-names", "-I", str(INCLUDE_DIR), "-o", "-",
            path]


#: Compiled files of this process, by (path, size, modification time, target): a batch
#: of code objects instrumented with one tool compiles it once.
_COMPILED: dict[tuple[str, int, int, str], str] = {}


def llvm_text_of(path: str, processor: str = DEFAULT_PROCESSOR) -> str:
    """The LLVM IR text of hook file ``path`` (``.hip``, ``.ll`` or ``.bc``)."""
    try:
        status = os.stat(path)
    except OSError as error:
        raise HipCompileError(f"{path}: cannot read it: {error.strerror}") from None
    key = (os.path.abspath(path), status.st_size, status.st_mtime_ns, processor)
    text = _COMPILED.get(key)
    if text is None:
        text = _COMPILED[key] = _llvm_text(path, processor)
    return text


def _llvm_text(path: str, processor: str) -> str:
    extension = os.path.splitext(path)[1]
    if extension == ".ll":
        try:
            with open(path, encoding="utf-8") as stream:
                return stream.read()
        except (OSError, UnicodeDecodeError) as error:
            raise HipCompileError(f"{path}: cannot read it: {error}") from None
    if extension == ".bc":
        tool = _tool("llvm-dis-19", path)
        return _run([tool, "-o", "-", path], path, "llvm-dis-19")
    command = compile_command(path, processor)
    command[0] = _tool("clang-19", path)
    return _run(command, path, "clang-19")
