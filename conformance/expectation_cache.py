"""Cache llvm-mc's answers, so that re-running the harness only runs the tool under test.

The key covers everything the answers depend on: the exact input lines (hence the LLVM test
tree and, for random words, the seed and count), the target, the mode, the llvm-mc version and
the harness's own output format. A stale cache can thus only be missed, never misused. Entries
are gzip-compressed JSON, a file per (mode, target, key).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from luthier.conformance.batching import Failure, ItemDiagnostic, Mode, Outcome
from luthier.conformance.mc_output import PrintedInstruction

#: Bump when the meaning of cached outcomes changes (parsing, alignment, layout of batches).
CACHE_FORMAT = 1


def tool_version(argv: Sequence[str]) -> str:
    """The ``--version`` text of a tool: part of the key, so an LLVM upgrade misses the cache."""
    try:
        result = subprocess.run(
            [*argv, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError as error:
        return f"unavailable: {error}"
    return result.stdout.strip()


def cache_key(mode: Mode, mcpu: str, version: str, lines: Sequence[str]) -> str:
    """A digest of everything llvm-mc's answers depend on."""
    digest = hashlib.sha256()
    for part in (f"format={CACHE_FORMAT}", f"mode={mode}", f"mcpu={mcpu}", version):
        digest.update(part.encode())
        digest.update(b"\0")
    for line in lines:
        digest.update(line.encode())
        digest.update(b"\n")
    return digest.hexdigest()


def outcome_to_json(outcome: Outcome) -> list[Any]:
    """A compact JSON form of an outcome (lists, not objects: there are 100k of them)."""
    return [
        [
            [
                item.text,
                None if item.encoding is None else list(item.encoding),
                list(item.annotations),
            ]
            for item in outcome.instructions
        ],
        [[d.severity, d.message, d.position] for d in outcome.diagnostics],
        None if outcome.failure is None else [outcome.failure.kind, outcome.failure.detail],
    ]


def outcome_from_json(data: list[Any]) -> Outcome:
    """Inverse of :func:`outcome_to_json`."""
    instructions_data = cast(list[list[Any]], data[0])
    diagnostics_data = cast(list[list[Any]], data[1])
    failure_data = cast(list[str] | None, data[2])
    instructions = tuple(
        PrintedInstruction(
            str(text),
            None if encoding is None else tuple(cast(list[str], encoding)),
            tuple(cast(list[str], annotations)),
        )
        for text, encoding, annotations in instructions_data
    )
    diagnostics = tuple(
        ItemDiagnostic(str(severity), str(message), cast(int | None, position))
        for severity, message, position in diagnostics_data
    )
    failure = None if failure_data is None else Failure(failure_data[0], failure_data[1])
    return Outcome(instructions, diagnostics, failure)


class ExpectationCache:
    """A folder of cached llvm-mc outcomes."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, mode: Mode, mcpu: str, key: str) -> Path:
        return self.folder / f"{mode}-{mcpu}-{key[:24]}.json.gz"

    def load(self, mode: Mode, mcpu: str, key: str, count: int) -> list[Outcome] | None:
        """The cached outcomes, or None if absent or unreadable (then they are recomputed)."""
        path = self._path(mode, mcpu, key)
        try:
            with gzip.open(path, "rt", encoding="utf-8") as stream:
                payload = cast(dict[str, Any], json.load(stream))
        except (OSError, ValueError):
            return None
        rows = cast(list[list[Any]], payload.get("outcomes", []))
        if payload.get("key") != key or len(rows) != count:
            return None
        return [outcome_from_json(row) for row in rows]

    def store(self, mode: Mode, mcpu: str, key: str, outcomes: Sequence[Outcome]) -> None:
        """Write atomically (rename), so that an interrupted run leaves no half file."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(mode, mcpu, key)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        payload = {"key": key, "outcomes": [outcome_to_json(item) for item in outcomes]}
        with gzip.open(temporary, "wt", encoding="utf-8", compresslevel=3) as stream:
            json.dump(payload, stream, separators=(",", ":"))
        temporary.replace(path)
