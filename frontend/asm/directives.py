"""The directives outside blocks: sections, alignment, symbols, data, and the target's.

Each handler gets the assembler, the operand text and its column. The set is what clang -S
writes for AMDGPU plus the common GNU data and alignment directives; any other directive is an
error ("unknown directive", as llvm-mc says), so nothing in the input is silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable

from luthier.frontend.asm.context import Context
from luthier.frontend.asm.errors import StatementError
from luthier.frontend.asm.sections import (
    DEFAULT_SECTIONS,
    default_kind,
    parse_flags,
    parse_type,
)
from luthier.frontend.asm.source import SYMBOL, parse_string, split_args
from luthier.frontend.codeobj.elf_format import (
    SHF_MERGE,
)

Handler = Callable[[Context, str, str, int], None]

_SYMBOL_TYPES = {
    "function": "FUNC",
    "object": "OBJECT",
    "notype": "NOTYPE",
    "stt_func": "FUNC",
    "stt_object": "OBJECT",
    "stt_notype": "NOTYPE",
}
_BINDINGS = {".globl": "GLOBAL", ".global": "GLOBAL", ".weak": "WEAK", ".local": "LOCAL"}
_VISIBILITIES = {".protected": "PROTECTED", ".hidden": "HIDDEN", ".internal": "INTERNAL"}
_DATA_SIZES = {
    ".byte": 1,
    ".short": 2,
    ".2byte": 2,
    ".value": 2,
    ".hword": 2,
    ".long": 4,
    ".4byte": 4,
    ".int": 4,
    ".quad": 8,
    ".8byte": 8,
}
#: Alignment directives: (argument is a power of 2, fill value size).
_ALIGNS = {
    ".p2align": (True, 1),
    ".p2alignw": (True, 2),
    ".p2alignl": (True, 4),
    ".balign": (False, 1),
    ".balignw": (False, 2),
    ".balignl": (False, 4),
    ".align": (False, 1),
}
_MAX_FILL_SIZE = 8


def dispatch(asm: Context, name: str, rest: str, column: int, name_column: int) -> None:
    """Run directive ``name``; an unknown one is an error at its name."""
    handler = _HANDLERS.get(name)
    if handler is None:
        if name in _DATA_SIZES:
            _data(asm, name, rest, column)
            return
        if name in _ALIGNS:
            _align(asm, name, rest, column)
            return
        if name in _BINDINGS or name in _VISIBILITIES:
            _symbol_attribute(asm, name, rest, column)
            return
        raise StatementError(_unknown_message(name), name_column)
    handler(asm, name, rest, column)


def _unknown_message(name: str) -> str:
    if name in (".end_amdhsa_kernel", ".end_amdgpu_metadata"):
        return f"{name} without a matching start directive"
    return "unknown directive"


def _no_operands(rest: str, column: int) -> None:
    if rest.strip():
        raise StatementError("unexpected token in directive", column)


def _names(rest: str, column: int) -> list[tuple[str, int]]:
    args = split_args(rest, column)
    if not args:
        raise StatementError("expected identifier", column)
    for text, where in args:
        if not SYMBOL.fullmatch(text):
            raise StatementError("expected identifier", where)
    return args


# --- sections ---------------------------------------------------------------------------------


def _simple_section(asm: Context, name: str, rest: str, column: int) -> None:
    _no_operands(rest, column)
    asm.switch_section(name, *DEFAULT_SECTIONS[name])


def _section(asm: Context, _: str, rest: str, column: int) -> None:
    args = split_args(rest, column)
    if not args:
        raise StatementError("expected identifier", column)
    name_text, name_column = args[0]
    name = name_text[1:-1] if name_text.startswith('"') else name_text
    if not name or not SYMBOL.fullmatch(name.replace("-", "_")):
        raise StatementError("expected identifier", name_column)
    type_, flags = default_kind(name)
    entry_size = 0
    if len(args) > 1:
        flags_text, flags_column = args[1]
        flags = parse_flags(parse_string(flags_text, flags_column).decode(), flags_column + 1)
        type_ = default_kind(name)[0] if len(args) < 3 else parse_type(*args[2])
        if flags & SHF_MERGE:
            if len(args) < 4:
                raise StatementError("expected the entry size", column + len(rest))
            entry_size = asm.absolute(*args[3])
        elif len(args) > 3:
            raise StatementError("unexpected token in directive", args[3][1])
    existing = asm.sections.get(name)
    if existing is not None and len(args) > 1 and (existing.type, existing.flags) != (type_, flags):
        raise StatementError(f"changed section flags or type for {name}", name_column)
    asm.switch_section(name, type_, flags, entry_size)


def _push_section(asm: Context, name: str, rest: str, column: int) -> None:
    asm.section_stack.append((asm.current, asm.previous))
    _section(asm, name, rest, column)


def _pop_section(asm: Context, _: str, rest: str, column: int) -> None:
    _no_operands(rest, column)
    if not asm.section_stack:
        raise StatementError(".popsection without corresponding .pushsection", column)
    asm.section, asm.previous = asm.section_stack.pop()


def _previous(asm: Context, _: str, rest: str, column: int) -> None:
    _no_operands(rest, column)
    if asm.previous is None:
        raise StatementError(".previous without corresponding .section", column)
    asm.section, asm.previous = asm.previous, asm.section


# --- alignment and fill -----------------------------------------------------------------------


def _align(asm: Context, name: str, rest: str, column: int) -> None:
    power, fill_size = _ALIGNS[name]
    args = split_args(rest, column)
    if not args or len(args) > 3 or not args[0][0]:
        raise StatementError("unexpected token in directive", column)
    value = asm.absolute(*args[0])
    if power:
        if not 0 <= value < 32:
            raise StatementError("invalid alignment value", args[0][1])
        alignment = 1 << value
    else:
        alignment = max(value, 1)
        if alignment & (alignment - 1):
            raise StatementError("alignment must be a power of 2", args[0][1])
    fill: int | None = None
    if len(args) > 1 and args[1][0]:
        fill = asm.absolute(*args[1])
    max_bytes = asm.absolute(*args[2]) if len(args) > 2 and args[2][0] else 0
    section = asm.current
    if (fill is None or fill == 0) and fill_size == 1 and section.is_code:
        section.align(alignment, None, max_bytes)
        return
    pattern = (fill or 0) & ((1 << (8 * fill_size)) - 1)
    section.align(alignment, pattern.to_bytes(fill_size, "little"), max_bytes)


def _zero(asm: Context, _: str, rest: str, column: int) -> None:
    args = split_args(rest, column)
    if not 1 <= len(args) <= 2:
        raise StatementError("unexpected token in directive", column)
    count = asm.absolute(*args[0])
    fill = asm.absolute(*args[1]) if len(args) > 1 else 0
    if count < 0:
        raise StatementError("negative size", args[0][1])
    asm.current.emit(bytes([fill & 0xFF]) * count)


def _fill(asm: Context, _: str, rest: str, column: int) -> None:
    args = split_args(rest, column)
    if not 1 <= len(args) <= 3:
        raise StatementError("unexpected token in directive", column)
    count = asm.absolute(*args[0])
    size = asm.absolute(*args[1]) if len(args) > 1 else 1
    value = asm.absolute(*args[2]) if len(args) > 2 else 0
    if count < 0:
        raise StatementError(
            "'.fill' directive with negative repeat count has no effect", args[0][1]
        )
    if size < 0:
        raise StatementError("'.fill' directive with negative size has no effect", args[1][1])
    size = min(size, _MAX_FILL_SIZE)
    # Only the low 4 bytes of the pattern are kept; wider items get zeros above them.
    low = min(size, 4)
    item = (value & ((1 << (8 * low)) - 1)).to_bytes(low, "little") + bytes(size - low)
    asm.current.emit(item * count)


# --- data -------------------------------------------------------------------------------------


def _data(asm: Context, name: str, rest: str, column: int) -> None:
    size = _DATA_SIZES[name]
    for text, where in split_args(rest, column):
        asm.emit_value(asm.expr(text, where), size, where)


def _strings(asm: Context, name: str, rest: str, column: int) -> None:
    args = split_args(rest, column)
    if not args:
        raise StatementError("expected string", column)
    for text, where in args:
        data = parse_string(text, where)
        asm.current.emit(data + (b"\0" if name != ".ascii" else b""))


def _ident(asm: Context, _: str, rest: str, column: int) -> None:
    text = parse_string(rest.strip(), column)
    saved, previous = asm.section, asm.previous
    asm.switch_section(".comment", *DEFAULT_SECTIONS[".comment"], entry_size=1)
    if not asm.ident_seen:
        asm.current.emit(b"\0")
        asm.ident_seen = True
    asm.current.emit(text + b"\0")
    asm.section, asm.previous = saved, previous


# --- symbols ----------------------------------------------------------------------------------


def _symbol_attribute(asm: Context, name: str, rest: str, column: int) -> None:
    for symbol_name, _ in _names(rest, column):
        symbol = asm.symbols.use(symbol_name)
        if name in _BINDINGS:
            symbol.binding = _BINDINGS[name]
        else:
            symbol.visibility = _VISIBILITIES[name]


def _type(asm: Context, _: str, rest: str, column: int) -> None:
    args = split_args(rest, column)
    if len(args) != 2 or not SYMBOL.fullmatch(args[0][0]):
        raise StatementError("expected identifier", column)
    kind_text, kind_column = args[1]
    kind = _SYMBOL_TYPES.get(kind_text.strip('"').lstrip("@%").lower())
    if kind is None:
        raise StatementError("unsupported attribute", kind_column)
    asm.symbols.use(args[0][0]).type = kind


def _size(asm: Context, _: str, rest: str, column: int) -> None:
    args = split_args(rest, column)
    if len(args) != 2 or not SYMBOL.fullmatch(args[0][0]):
        raise StatementError("expected identifier", column)
    symbol = asm.symbols.get(args[0][0])
    symbol.size = asm.expr(*args[1])
    symbol.size_at = (asm.line.number, args[1][1])


def _set(asm: Context, _: str, rest: str, column: int) -> None:
    args = split_args(rest, column)
    if len(args) != 2 or not SYMBOL.fullmatch(args[0][0]):
        raise StatementError("expected identifier", column)
    assign(asm, args[0][0], args[1][0], args[1][1])


def assign(asm: Context, name: str, value: str, column: int) -> None:
    """``.set name, value`` / ``name = value``: a symbol that stands for an expression."""
    expr = asm.expr(value, column)
    asm.use_symbols(expr)
    symbol = asm.symbols.use(name)
    if symbol.section is not None:
        raise StatementError(f"redefinition of '{name}'", column)
    symbol.variable = expr


def _addrsig(asm: Context, _: str, rest: str, column: int) -> None:
    _no_operands(rest, column)
    asm.addrsig = True


def _addrsig_sym(asm: Context, _: str, rest: str, column: int) -> None:
    for name, _where in _names(rest, column):
        asm.addrsig_symbols.append(name)


# --- target -----------------------------------------------------------------------------------


def _amdgcn_target(asm: Context, _: str, rest: str, column: int) -> None:
    asm.set_target(parse_string(rest.strip(), column).decode(), column)


def _code_object_version(asm: Context, _: str, rest: str, column: int) -> None:
    version = asm.absolute(rest.strip(), column)
    if version not in (4, 5, 6):
        raise StatementError(f"code object version {version} is not supported (4, 5 or 6)", column)
    asm.code_object_version = version


_HANDLERS: dict[str, Handler] = {
    ".text": _simple_section,
    ".data": _simple_section,
    ".bss": _simple_section,
    ".rodata": _simple_section,
    ".section": _section,
    ".pushsection": _push_section,
    ".popsection": _pop_section,
    ".previous": _previous,
    ".zero": _zero,
    ".skip": _zero,
    ".space": _zero,
    ".fill": _fill,
    ".ascii": _strings,
    ".asciz": _strings,
    ".string": _strings,
    ".ident": _ident,
    ".type": _type,
    ".size": _size,
    ".set": _set,
    ".equ": _set,
    ".addrsig": _addrsig,
    ".addrsig_sym": _addrsig_sym,
    ".amdgcn_target": _amdgcn_target,
    ".amdhsa_code_object_version": _code_object_version,
}
