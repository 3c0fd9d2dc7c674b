"""Writing an output file so that it is either whole or absent: the bytes go to a temporary
file in the same folder, which is then renamed over the destination. A failed or interrupted
run never leaves a partial file, and never clobbers what was there before.

Where the platform allows (Linux's ``O_TMPFILE``), the temporary file has no name until all
its bytes are written: a process killed while writing (``SIGKILL``, out of memory) leaves
nothing behind, not even a hidden temporary file.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile

#: Whether an unnamed file can be given a name here (not in some sandboxes): tried once.
_UNNAMED_FILES_LINK = [True]


def write_atomically(path: str | os.PathLike[str], data: bytes, *,
                     executable: bool = False) -> None:
    """Write ``data`` to ``path`` in one rename, with the permissions a plain ``open`` would
    give (``executable``: those of a linker's output, which may be run or loaded). A path
    that exists and is not a regular file (``/dev/null``, a FIFO, a terminal) is written
    into instead: replacing it with a regular file would break it. A symbolic link is
    written through (its target gets the bytes, the link stays); a file without write
    permission is refused, even for root. Every failure is an ``OSError`` naming
    ``path``."""
    target = os.fspath(path)
    try:
        if os.path.islink(target):
            target = os.path.realpath(target)
        if os.path.exists(target) and not os.path.isfile(target):
            with open(target, "wb") as stream:
                stream.write(data)
            return
        if os.path.exists(target) and not os.stat(target).st_mode & (
                stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise PermissionError(errno.EACCES, "the file is read-only")
        _replace(target, data, 0o777 if executable else 0o666)
    except OSError as error:
        raise OSError(error.errno, error.strerror or str(error), os.fspath(path)) from None


def _replace(target: str, data: bytes, permissions: int) -> None:
    directory = os.path.dirname(os.path.abspath(target))
    umask = os.umask(0)
    os.umask(umask)
    mode = permissions & ~umask
    unnamed = getattr(os, "O_TMPFILE", 0) if _UNNAMED_FILES_LINK[0] else 0
    if unnamed:
        try:
            handle = os.open(directory, unnamed | os.O_WRONLY, mode)
        except OSError:  # a file system without unnamed files: name it from the start
            handle = -1
        if handle >= 0:
            try:
                _write_all(handle, data)
                temporary = _unused_name(directory, target)
                os.link(f"/proc/self/fd/{handle}", temporary, follow_symlinks=True)
            except OSError as error:
                if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO):
                    raise  # the bytes did not fit: a named file would not either
                temporary = ""  # no way to name it here (no /proc, a sandbox): as below
                _UNNAMED_FILES_LINK[0] = False
            finally:
                os.close(handle)
            if temporary:
                _rename(temporary, target)
                return
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode)  # mkstemp makes it 0600
    except BaseException:
        os.unlink(temporary)
        raise
    _rename(temporary, target)


def _write_all(handle: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view):]


def _unused_name(directory: str, target: str) -> str:
    """A name in ``directory`` no file has (for the moment between naming and renaming)."""
    base = f".{os.path.basename(target)}."
    for attempt in range(1000):
        name = os.path.join(directory, f"{base}{os.getpid()}.{attempt}")
        if not os.path.lexists(name):
            return name
    raise FileExistsError(errno.EEXIST, "no free temporary name", directory)


def _rename(temporary: str, target: str) -> None:
    try:
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
