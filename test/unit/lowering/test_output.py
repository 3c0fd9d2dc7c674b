"""Output files are written whole or not at all, through symbolic links, never over a
read-only file, into devices as devices, and every failure names the path given."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from luthier.lowering import output
from luthier.lowering.output import write_atomically


def _leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


@pytest.fixture(params=[True, False], ids=["unnamed-first", "named-temporary"])
def either_way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways of writing: an unnamed file named at the end where the platform allows,
    and a named temporary file."""
    monkeypatch.setattr(output, "_UNNAMED_FILES_LINK", [bool(request.param)])


@pytest.mark.usefixtures("either_way")
def test_a_new_file_gets_the_bytes_and_the_usual_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.co"
    write_atomically(target, b"code")
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_bytes() == b"code"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert _leftovers(tmp_path) == []


@pytest.mark.usefixtures("either_way")
def test_a_symbolic_link_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "real.co").write_bytes(b"old")
    link = tmp_path / "link.co"
    link.symlink_to(tmp_path / "real.co")
    write_atomically(link, b"new")
    assert link.is_symlink() and (tmp_path / "real.co").read_bytes() == b"new"
    assert _leftovers(tmp_path) == []


def test_a_read_only_file_is_refused_even_for_root(tmp_path: Path) -> None:
    target = tmp_path / "kept.co"
    target.write_bytes(b"old")
    target.chmod(0o444)
    with pytest.raises(OSError, match="the file is read-only") as raised:
        write_atomically(target, b"new")
    assert raised.value.filename == str(target)
    assert target.read_bytes() == b"old" and _leftovers(tmp_path) == []


def test_a_device_is_written_into_and_its_error_names_it() -> None:
    write_atomically("/dev/null", b"anything")
    assert Path("/dev/null").is_char_device()
    with pytest.raises(OSError, match="No space left") as raised:
        write_atomically("/dev/full", b"anything")
    assert raised.value.filename == "/dev/full"


def test_a_missing_folder_names_the_path_given(tmp_path: Path) -> None:
    target = tmp_path / "absent" / "out.co"
    with pytest.raises(OSError) as raised:
        write_atomically(target, b"code")
    assert raised.value.filename == str(target)
    assert not (tmp_path / "absent").exists()
