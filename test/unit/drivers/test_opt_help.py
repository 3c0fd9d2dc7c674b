"""``luthier-opt --help`` comes from a snapshot of the command line, and says exactly what
the real parser (built with xDSL) says, without importing xDSL."""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Any

import pytest

from luthier.drivers import opt_help
from luthier.drivers.opt_help import (
    SNAPSHOT,
    current_snapshot,
    describe,
    print_help_from_snapshot,
    real_parser,
    rebuild,
)


@pytest.fixture(scope="module")
def parser() -> argparse.ArgumentParser:
    return real_parser()


def test_the_committed_snapshot_is_current() -> None:
    assert SNAPSHOT.read_text() == current_snapshot(), (
        "regenerate it with python -m luthier.drivers.opt_help")


@pytest.mark.parametrize("columns", ["40", "80", "200"])
def test_the_rebuilt_help_is_the_real_one(parser: argparse.ArgumentParser, columns: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    real = parser.format_help()
    assert "--inline-hooks" in real and "lower-hooks" in real and "canonicalize" in real
    assert rebuild(describe(parser)).format_help() == real


def test_help_runs_without_xdsl(parser: argparse.ArgumentParser,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole ``--help`` run: argparse's output and exit status, xDSL never imported."""
    program = ("import sys\n"
               "from luthier.drivers.luthier_opt import main\n"
               "sys.argv[0] = 'luthier-opt'\n"
               "try:\n"
               "    main(['--help'])\n"
               "except SystemExit as stop:\n"
               "    print(stop.code, 'xdsl' in sys.modules, file=sys.stderr)\n")
    monkeypatch.setenv("COLUMNS", "100")
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         check=True)
    assert run.stderr.split() == ["0", "False"]
    parser.prog = "luthier-opt"
    assert run.stdout == parser.format_help()


def test_only_a_bare_help_request_is_answered_from_the_snapshot() -> None:
    for argv in (["--help", "in.mlir"], ["-p", "x", "--help"], ["--he"], []):
        assert not print_help_from_snapshot(argv)


def test_a_stale_snapshot_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    def other_key() -> dict[str, Any]:
        return {"xdsl": "0.0.0", "universes": [], "sources": {}}

    monkeypatch.setattr(opt_help, "snapshot_key", other_key)
    assert not print_help_from_snapshot(["--help"])
