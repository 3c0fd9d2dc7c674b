"""Writing an output file so that it is either whole or absent: the bytes go to a temporary
file in the same folder, which is then renamed over the destination. A failed or interrupted
run never leaves a partial file, and never clobbers what was there before."""

from __future__ import annotations

import os
import tempfile


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` in one rename, with the permissions a plain ``open`` would
    give (``mkstemp`` makes files 0600). A path that exists and is not a regular file
    (``/dev/null``, a FIFO, a terminal) is written into instead: replacing it with a
    regular file would break it."""
    target = os.fspath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        with open(target, "wb") as stream:
            stream.write(data)
        return
    directory = os.path.dirname(os.path.abspath(target))
    name = os.path.basename(target)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
