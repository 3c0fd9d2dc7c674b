"""The command line of a generated document (``docs/instr-reference.md``,
``docs/targets.md``): write it, or with ``--check`` say whether the committed one is what
the code gives today (the test that keeps each current runs the check)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def generated_doc_main(argv: list[str] | None, description: str, relative_path: Path,
                       text: Callable[[], str], module: str) -> int:
    """Write ``relative_path`` (under ``--root``) from ``text()``, or check it with
    ``--check``: exit status 1, and one line naming ``python -m module``, when it is stale."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the committed file differs from what the code gives")
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="the checkout's root (default: the current folder)")
    args = parser.parse_args(argv)
    path: Path = args.root / relative_path
    content = text()
    if args.check:
        if not path.is_file() or path.read_text() != content:
            print(f"{path} is stale: run python -m {module}", file=sys.stderr)
            return 1
        return 0
    path.write_text(content)
    print(f"wrote {path}")
    return 0
