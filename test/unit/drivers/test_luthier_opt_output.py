"""Where ``-o`` writes: a regular file is replaced atomically; a path that is not a regular
file (a null device, a FIFO) is written into, never replaced — replacing the system's
``/dev/null`` by a regular file breaks every later program that reads it."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from luthier.drivers.luthier_opt import main

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"


def test_null_device_stays_a_device(tmp_path: Path) -> None:
    """A private null device (the same major/minor as /dev/null), so a regression cannot
    break the machine's own /dev/null."""
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    assert main([str(SAMPLE), "--no-progress", "-o", str(null)]) == 0
    assert stat.S_ISCHR(os.stat(null).st_mode)


def test_fifo_is_written_into(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert main([str(SAMPLE), "--no-progress", "-o", str(fifo)]) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b"amdgpu_mc.kernel @vector_add" in received[0]


def test_regular_file_is_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    out.write_text("old")
    assert main([str(SAMPLE), "--no-progress", "-o", str(out)]) == 0
    assert "amdgpu_mc.kernel @vector_add" in out.read_text()


def test_an_interrupt_is_one_line_and_no_output(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from luthier.drivers import opt_main

    def interrupted(self: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(opt_main.LuthierOptMain, "_run", interrupted)
    out = tmp_path / "out.co"
    assert main([str(SAMPLE), "--no-progress", "-o", str(out)]) == 130
    assert capsys.readouterr().err == "luthier-opt: interrupted\n"
    assert not out.exists()
