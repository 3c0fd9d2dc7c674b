"""A bug of ours reaching a tool's main is one line, "internal error", naming the input,
exit 70 (not 1: it is not the user's mistake), and no traceback; LUTHIER_TRACEBACK=1 lets
the traceback through for whoever debugs it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from luthier.amdgpu_dialects.errors import EXIT_INTERNAL
from luthier.drivers import luthier_batch, luthier_mc, opt_main
from luthier.emulator import cli

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "examples" / "sample" / "vector_add.gfx90a.co"


def _broken(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("an invariant\nthat does not hold")


CASES: list[tuple[str, Callable[[list[str]], int], str, list[str]]] = [
    ("luthier-opt", opt_main.run, "LuthierOptMain.run", ["--lift", str(SAMPLE)]),
    ("luthier-run", cli.main, "run", [str(SAMPLE), "--kernel", "vector_add"]),
    ("luthier-mc", luthier_mc.main, "_main", ["--mcpu=gfx90a", str(SAMPLE)]),
    ("luthier-batch", luthier_batch.main, "run", [str(SAMPLE), "-o", "/nonexistent"]),
]


@pytest.mark.parametrize(("prog", "main", "target", "argv"), CASES,
                         ids=[case[0] for case in CASES])
def test_internal_errors_are_one_line(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str], prog: str,
                                      main: Callable[[list[str]], int], target: str,
                                      argv: list[str]) -> None:
    module = {"luthier-opt": opt_main, "luthier-run": cli, "luthier-mc": luthier_mc,
              "luthier-batch": luthier_batch}[prog]
    owner, _, attribute = target.rpartition(".")
    monkeypatch.setattr(getattr(module, owner) if owner else module, attribute, _broken)
    monkeypatch.delenv("LUTHIER_TRACEBACK", raising=False)
    assert main(argv) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"{prog}: internal error: {SAMPLE}: RuntimeError: an invariant that "
                          "does not hold (please report it")
    monkeypatch.setenv("LUTHIER_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="an invariant"):
        main(argv)
