"""``luthier-opt --help`` without importing xDSL: the command line, snapshotted.

The help lists every pass of every installed xDSL universe, which only xDSL's multiverse
knows, and importing it costs about 0.15 s of CPU, most of a ``--help``. So the parser's
shape (groups, option strings, choices, help texts) is kept in a generated snapshot,
``luthier_opt_help.json``, from which an equal ``argparse`` parser is rebuilt: argparse
still lays the text out, so the terminal width is honoured as before.

The snapshot is used only when its key matches what the parser is built from: the xDSL
version, the installed ``xdsl.universe`` entry points and the sources that define the
arguments and the luthier passes. Otherwise (an edited source, another xDSL, a new plugin)
``luthier-opt`` builds the real parser as usual: a stale snapshot costs time, never a
wrong help. ``test/unit/drivers/test_opt_help.py`` checks the snapshot is current and the
rebuilt help equals the real one.

    python -m luthier.drivers.opt_help            # rewrite the snapshot
    python -m luthier.drivers.opt_help --check    # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

SNAPSHOT = Path(__file__).parent / "luthier_opt_help.json"
#: The sources the parser is made from, relative to the ``luthier`` package folder.
SOURCES = ("drivers/opt_help.py", "drivers/opt_main.py", "drivers/luthier_opt.py",
           "passes/registry.py")
#: The only command lines answered from the snapshot; any other goes through argparse
#: with the real parser, so errors and abbreviations behave exactly as before.
HELP_COMMAND_LINES = (["-h"], ["--help"])


def snapshot_key() -> dict[str, Any]:
    """What the parser depends on beyond the standard library."""
    from importlib.metadata import entry_points, version

    package = Path(__file__).parent.parent
    sources: dict[str, str] = {}
    for name in SOURCES:
        try:
            sources[name] = hashlib.sha256((package / name).read_bytes()).hexdigest()
        except OSError:
            sources[name] = "missing"
    universes = sorted([entry.name, entry.value]
                       for entry in entry_points(group="xdsl.universe"))
    return {"xdsl": version("xdsl"), "universes": universes, "sources": sources}


def describe(parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The parser's shape: what argparse's help and usage are made from."""
    groups = parser._action_groups  # pyright: ignore[reportPrivateUsage]
    group_of = {id(action): index for index, group in enumerate(groups)
                for action in group._group_actions}  # pyright: ignore[reportPrivateUsage]
    actions = [
        {"group": group_of[id(action)], "option_strings": list(action.option_strings),
         "dest": action.dest, "nargs": action.nargs,
         "choices": None if action.choices is None else list(action.choices),
         "required": action.required, "help": action.help, "metavar": action.metavar}
        for action in parser._actions  # pyright: ignore[reportPrivateUsage]
        if not isinstance(action, argparse._HelpAction)  # pyright: ignore[reportPrivateUsage]
    ]
    return {"description": parser.description,
            "groups": [[group.title, group.description] for group in groups],
            "actions": actions}


class _Described(argparse.Action):
    """An argument as described: enough for help and usage, never run."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> NoReturn:
        raise AssertionError("the snapshot parser only prints help")


def rebuild(shape: dict[str, Any]) -> argparse.ArgumentParser:
    """An ``argparse`` parser whose help is the described parser's."""
    parser = argparse.ArgumentParser(description=shape["description"])
    groups: list[Any] = [*parser._action_groups]  # pyright: ignore[reportPrivateUsage]
    for title, description in cast(list[list[str | None]], shape["groups"])[len(groups):]:
        groups.append(parser.add_argument_group(title, description))
    for action in cast(list[dict[str, Any]], shape["actions"]):
        metavar = action["metavar"]
        options: dict[str, Any] = {
            "action": _Described, "nargs": action["nargs"], "choices": action["choices"],
            "help": action["help"],
            "metavar": tuple(cast(list[str], metavar)) if isinstance(metavar, list) else metavar}
        group = groups[action["group"]]
        if action["option_strings"]:
            group.add_argument(*action["option_strings"], dest=action["dest"],
                               required=action["required"], **options)
        else:
            group.add_argument(action["dest"], **options)
    return parser


def print_help_from_snapshot(argv: Sequence[str]) -> bool:
    """Print the help and exit as argparse would, if ``argv`` only asks for help and the
    snapshot is current; False (nothing printed) otherwise."""
    if list(argv) not in HELP_COMMAND_LINES:
        return False
    try:
        snapshot = cast(dict[str, Any], json.loads(SNAPSHOT.read_text()))
    except (OSError, ValueError):
        return False
    if snapshot.get("key") != snapshot_key():
        return False
    parser = rebuild(snapshot["parser"])
    parser.print_help()
    parser.exit()


def real_parser() -> argparse.ArgumentParser:
    """The parser ``luthier-opt`` builds (with xDSL), caught before it parses anything."""
    from luthier.drivers.opt_main import DESCRIPTION, LuthierOptMain

    class Caught(Exception):
        def __init__(self, parser: argparse.ArgumentParser) -> None:
            super().__init__("parser built")
            self.parser = parser

    class Catcher(LuthierOptMain):
        def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
            super().register_all_arguments(arg_parser)
            raise Caught(arg_parser)

    try:
        Catcher(description=DESCRIPTION, args=[])
    except Caught as caught:
        return caught.parser
    raise AssertionError("xDSLOptMain no longer registers its arguments on construction")


def current_snapshot() -> str:
    """The snapshot file's text, as the generator writes it."""
    document = {"key": snapshot_key(), "parser": describe(real_parser())}
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the snapshot is stale instead of writing it")
    args = parser.parse_args(argv)
    text = current_snapshot()
    if not args.check:
        SNAPSHOT.write_text(text)
        print(f"wrote {SNAPSHOT}")
        return 0
    if not SNAPSHOT.is_file() or SNAPSHOT.read_text() != text:
        print(f"error: {SNAPSHOT} is stale (regenerate with python -m "
              "luthier.drivers.opt_help)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
