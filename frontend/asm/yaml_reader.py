"""The YAML of ``.amdgpu_metadata`` blocks, read the way llvm-mc reads it.

llvm-mc parses the block with LLVM's YAML reader into a ``msgpack::Document``. What matters
for the note bytes is the msgpack *type* of each scalar, which LLVM decides from the text
alone (``DocNode::fromString``), quoted or not: an unsigned integer in any radix (``0x10``,
``010`` is octal), else a negative integer, else a YAML boolean (``yes``, ``On``, ``N``...),
else, if ``strtod`` would accept it, a float (LLVM 19 writes those as nil), else a string.
The tags ``!str``, ``!int``, ``!bool``, ``!nil``, ``!float`` force a type.

This reads the block subset that LLVM itself writes (and ``luthier.lowering.asm``'s printer
emits): block maps and sequences by indentation, ``- key: value`` items, plain, single- and
double-quoted scalars, tags, and flow sequences/maps of scalars on one line. Anything else
(anchors, multi-line scalars, block scalars) is rejected with the offending line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from luthier.frontend.asm.errors import StatementError

#: A YAML value as msgpack will carry it (``None`` is nil).
Value = None | bool | int | str | list["Value"] | dict[str, "Value"]

_U64 = (1 << 64) - 1
_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_FLOAT = re.compile(
    r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|"
    r"\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|inf(?:inity)?|nan(?:\([\w]*\))?)",
    re.IGNORECASE,
)
_TAGS = ("!str", "!int", "!bool", "!nil", "!float")
_DOUBLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    '"': '"',
    "\\": "\\",
    "/": "/",
    " ": " ",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "v": "\v",
}


@dataclass(frozen=True)
class YamlLine:
    """A non-blank line of the block: source line number, indentation, content."""

    number: int
    indent: int
    text: str


class YamlError(StatementError):
    """A malformed block, at source line ``line``."""

    def __init__(self, message: str, line: int, column: int | None = None) -> None:
        super().__init__(message, column, line)


def parse_document(lines: list[YamlLine]) -> Value:
    """The value of one YAML document (``---`` and ``...`` markers already removed)."""
    if not lines:
        return None
    reader = _Reader(lines)
    value = reader.node(lines[0].indent)
    if reader.index < len(lines):
        extra = lines[reader.index]
        raise YamlError("unexpected content in metadata YAML", extra.number, extra.indent)
    return value


class _Reader:
    def __init__(self, lines: list[YamlLine]) -> None:
        self.lines = lines
        self.index = 0

    def current(self) -> YamlLine | None:
        return self.lines[self.index] if self.index < len(self.lines) else None

    def node(self, indent: int) -> Value:
        line = self.current()
        assert line is not None
        if line.text == "-" or line.text.startswith("- "):
            return self.sequence(indent)
        if _split_key(line.text) is not None:
            return self.mapping(indent)
        self.index += 1
        return scalar(line.text, line.number, line.indent)

    def mapping(self, indent: int) -> dict[str, Value]:
        result: dict[str, Value] = {}
        while (line := self.current()) is not None and line.indent == indent:
            split = _split_key(line.text)
            if split is None:
                raise YamlError("expected a 'key: value' line", line.number, line.indent)
            key, rest = split
            self.index += 1
            result[key] = self.value_after(rest, line, indent)
        self._check_dedent(indent)
        return result

    def sequence(self, indent: int) -> list[Value]:
        result: list[Value] = []
        while (
            (line := self.current()) is not None
            and line.indent == indent
            and (line.text == "-" or line.text.startswith("- "))
        ):
            item = line.text[1:].lstrip()
            if not item:
                self.index += 1
                result.append(self.value_after("", line, indent))
                continue
            inner = line.indent + len(line.text) - len(item)
            if _split_key(item) is not None:
                # "- key: value" opens a map whose keys sit where this key does.
                self.lines[self.index] = YamlLine(line.number, inner, item)
                result.append(self.mapping(inner))
            else:
                self.index += 1
                result.append(scalar(item, line.number, inner))
        self._check_dedent(indent)
        return result

    def value_after(self, rest: str, line: YamlLine, indent: int) -> Value:
        """The value of ``key:`` whose inline text is ``rest``: inline, or the nested block."""
        if rest:
            return scalar(rest, line.number, line.indent + len(line.text) - len(rest))
        following = self.current()
        if following is None:
            return None
        if following.indent > indent:
            return self.node(following.indent)
        if following.indent == indent and (
            following.text == "-" or following.text.startswith("- ")
        ):
            return self.sequence(indent)
        return None

    def _check_dedent(self, indent: int) -> None:
        line = self.current()
        if line is not None and line.indent > indent:
            raise YamlError("bad indentation in metadata YAML", line.number, line.indent)


def _split_key(text: str) -> tuple[str, str] | None:
    """``key: rest`` -> (key, rest); None if the line is not a map entry."""
    if text.startswith(('"', "'")):
        end = _quoted_end(text)
        if end is None or not text[end:].startswith(":"):
            return None
        rest = text[end + 1 :]
        if rest and not rest.startswith(" "):
            return None
        return _unquote(text[:end], 0), rest.strip()
    match = re.match(r"([^\s:\[\]{},#&*!|>'\"%@`-][^:]*?|-[^\s:][^:]*?)\s*:(?:\s+|$)", text)
    if match is None:
        return None
    return match.group(1), text[match.end() :].strip()


def _quoted_end(text: str) -> int | None:
    quote = text[0]
    index = 1
    while index < len(text):
        char = text[index]
        if quote == '"' and char == "\\":
            index += 2
            continue
        if char == quote:
            if quote == "'" and text[index + 1 : index + 2] == "'":
                index += 2
                continue
            return index + 1
        index += 1
    return None


def _unquote(text: str, line: int) -> str:
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    out: list[str] = []
    body = text[1:-1]
    index = 0
    while index < len(body):
        char = body[index]
        index += 1
        if char != "\\":
            out.append(char)
            continue
        esc = body[index : index + 1]
        index += 1
        if esc in _DOUBLE_ESCAPES:
            out.append(_DOUBLE_ESCAPES[esc])
        elif esc in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = body[index : index + width]
            if not re.fullmatch(r"[0-9a-fA-F]+", digits) or len(digits) != width:
                raise YamlError("bad escape in metadata YAML string", line)
            out.append(chr(int(digits, 16)))
            index += width
        else:
            raise YamlError("bad escape in metadata YAML string", line)
    return "".join(out)


def scalar(text: str, line: int, column: int) -> Value:
    """A scalar (or one-line flow collection) with LLVM's typing rules."""
    tag = ""
    for candidate in _TAGS:
        if text == candidate or text.startswith(candidate + " "):
            tag, text = candidate, text[len(candidate) :].strip()
            break
    if text.startswith(("&", "*", "|", ">", "!")):
        raise YamlError("unsupported YAML construct in metadata", line, column)
    if not tag and text.startswith("["):
        return [scalar(item, line, column) for item in _flow_items(text, "[]", line)]
    if not tag and text.startswith("{"):
        result: dict[str, Value] = {}
        for item in _flow_items(text, "{}", line):
            split = _split_key(item)
            if split is None:
                raise YamlError("expected 'key: value' in a flow map", line, column)
            result[split[0]] = scalar(split[1], line, column)
        return result
    if text.startswith(('"', "'")):
        if _quoted_end(text) != len(text):
            raise YamlError("unterminated or trailing text after a quoted scalar", line, column)
        text = _unquote(text, line)
    return typed(text, tag, line, column)


def _flow_items(text: str, brackets: str, line: int) -> list[str]:
    if not text.endswith(brackets[1]):
        raise YamlError("unterminated flow collection in metadata YAML", line)
    body = text[1:-1].strip()
    if not body:
        return []
    if any(c in body for c in "[]{}"):
        raise YamlError("nested flow collections are not supported in metadata YAML", line)
    return [item.strip() for item in body.split(",")]


def typed(text: str, tag: str, line: int, column: int) -> Value:
    """``DocNode::fromString``: the value of a scalar's text under ``tag`` ("" = untagged)."""
    if tag in ("", "!int"):
        number = _integer(text)
        if number is not None:
            return number
        if tag:
            raise YamlError(f"invalid number '{text}' in metadata YAML", line, column)
    if tag == "!nil":
        return None
    if tag in ("", "!bool"):
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        if tag:
            raise YamlError(f"invalid boolean '{text}' in metadata YAML", line, column)
    if tag in ("", "!float"):
        # LLVM 19's DocNode cannot carry the float into the note: it becomes nil.
        if not text or _FLOAT.fullmatch(text):
            return None
        if tag:
            raise YamlError(f"invalid floating point number '{text}'", line, column)
    return text


def _integer(text: str) -> int | None:
    """llvm::getAsUnsignedInteger / getAsSignedInteger with radix auto-detection."""
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    lower = digits.lower()
    if lower.startswith("0x"):
        radix, digits = 16, digits[2:]
    elif lower.startswith("0b"):
        radix, digits = 2, digits[2:]
    elif lower.startswith("0o"):
        radix, digits = 8, digits[2:]
    elif len(digits) > 1 and digits.startswith("0"):
        radix, digits = 8, digits[1:]
    else:
        radix = 10
    if not digits or not all(
        c in "0123456789abcdefABCDEF"[: radix + (radix > 10) * 6] for c in digits
    ):
        return None
    value = int(digits, radix)
    if negative:
        return -value if value <= 1 << 63 else None
    return value if value <= _U64 else None
