"""Where each function's code ends, and what lies between functions in ``.text``.

A compiler gives every function symbol its size and pads the gaps between functions to the
next one's alignment. Hand-written assembly often does neither: symbols without ``.size``
(size 0), data words or filler between functions, tables after the last one. LLVM's tools
accept such objects, and so do we:

* a function symbol without a size extends as far as its control flow reaches (from the
  entry, following fall-through and branches) before the next symbol or the section end;
  the IR marks it ``inferred_extent`` and it is written back without a size again;
* the bytes between a function's end and the next function (or the section's end) are the
  next function's alignment padding when they are exactly that; whatever precedes that
  padding is the function's ``trailing_data``: kept byte for byte, right after the function,
  and never read by a pass; bytes before the first function that are not ``s_nop``
  padding are the code object's ``text_leading_data``, kept the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from luthier.amdgpu_dialects.amdgpu_mc.mnemonics import INSTRUCTION_KINDS
from luthier.amdgpu_dialects.amdgpu_mc.structure import PADDING_FILLS, padding_bytes
from luthier.frontend.codeobj import CodeObject, ElfType, Symbol
from luthier.frontend.lift.cfg import DecodedInst, branch_target
from luthier.frontend.lift.errors import LiftError

#: Largest function alignment we infer from an address (LLVM aligns kernels to 256).
MAX_ALIGNMENT = 256

#: Decodes the instruction at an address of ``.text`` (raises LiftError when it cannot).
DecodeAt = Callable[[str, int, int], DecodedInst]


def alignment_of(address: int, limit: int = MAX_ALIGNMENT) -> int:
    """The largest power of two (up to ``limit``) that divides ``address``."""
    alignment = 1
    while alignment < limit and address % (alignment * 2) == 0:
        alignment *= 2
    return alignment


@dataclass
class TextLayout:
    """What the lifter needs to know of ``.text`` besides the functions' instructions."""

    #: Bytes of code per function symbol name (its size, or the inferred extent).
    extents: dict[str, int] = field(default_factory=lambda: dict[str, int]())
    #: Names of the functions whose extent was inferred (their symbol has no size).
    inferred: set[str] = field(default_factory=lambda: set[str]())
    #: The fill of the alignment gap before a function, where it is not ``s_nop``.
    fills: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    #: Opaque bytes right after a function's code.
    trailing: dict[str, bytes] = field(default_factory=lambda: dict[str, bytes]())
    #: ``s_nop 0`` bytes before the first function and after everything else.
    leading_padding: int = 0
    padding: int = 0
    #: Opaque bytes at the start of ``.text``, before the first function's alignment gap.
    leading_data: bytes = b""
    #: One line per thing the lift does not give back as it was (overlapping symbols).
    warnings: list[str] = field(default_factory=lambda: list[str]())


def reached_extent(name: str, start: int, bound: int, decode_at: DecodeAt,
                   limit: int | None = None) -> int:
    """Bytes from ``start`` to the end of the last instruction control flow reaches from
    it, following branches that stay before ``bound`` (the next symbol; the others go to
    other functions' code) and falling through up to ``limit`` (the section end; into the
    next symbol's code, which this function then shares)."""
    limit = bound if limit is None else limit
    seen: set[int] = set()
    pending = [start]
    end = start
    while pending:
        address = pending.pop()
        while address not in seen:
            if address >= limit:
                raise LiftError(f"{name}+{address - start:#x}", "the function has no size and "
                                "its code runs past the end of the section")
            seen.add(address)
            inst = decode_at(name, address, start)
            end = max(end, inst.end)
            kind = INSTRUCTION_KINDS[inst.mnemonic]
            if kind == "branch":
                target = branch_target(inst)
                if start <= target < bound:
                    pending.append(target)
                if inst.mnemonic == "s_branch":
                    break
            elif kind == "terminator":
                break
            address = inst.end
    return end - start


def _fill_of(gap: bytes) -> str | None:
    for name in PADDING_FILLS:
        if len(gap) % len(PADDING_FILLS[name]) == 0 and gap == padding_bytes(name, len(gap)):
            return name
    return None


def split_gap(gap: bytes, end: int, after: int, alignment: int) -> tuple[bytes, str]:
    """``gap`` (from address ``end`` to the next function at ``after``, aligned to
    ``alignment``) as (opaque bytes, fill of the padding that follows them): the shortest
    opaque prefix after which the rest is exactly the alignment padding an emitter adds."""
    first = max(0, len(gap) - alignment + 1)
    for cut in range(first, len(gap) + 1):
        rest = gap[cut:]
        if -(-(end + cut) // alignment) * alignment != after:
            continue
        fill = _fill_of(rest) if rest else "s_nop"
        if fill is not None:
            return gap[:cut], fill
    return gap, "s_nop"  # after is aligned, so the whole gap as data always fits


def text_layout(code_object: CodeObject, decode_at: DecodeAt,
                anonymous: Sequence[Symbol] = ()) -> TextLayout:
    """Extents of every function of ``.text`` and what lies between them; ``anonymous``
    are code no symbol names that branches reach (:func:`anonymous_code`), laid out as
    functions without a size."""
    text = code_object.text
    assert text is not None
    symbols = sorted([kernel.function for kernel in code_object.kernels]
                     + [function.symbol for function in code_object.device_functions]
                     + list(anonymous),
                     key=lambda symbol: symbol.value)
    layout = TextLayout()
    if not symbols:
        return layout
    text_end = text.address + len(text.data)
    for symbol in symbols:
        if not text.address <= symbol.value < text_end:
            raise LiftError(symbol.name or "<unnamed function>",
                            f"the function's address {symbol.value:#x} is outside the code "
                            f"section {text.name} [{text.address:#x}, {text_end:#x})")
    starts = sorted({symbol.value for symbol in symbols} | {text_end})
    for symbol in symbols:
        if symbol.size:
            layout.extents[symbol.name] = symbol.size
            continue
        bound = next(start for start in starts if start > symbol.value)
        layout.extents[symbol.name] = reached_extent(symbol.name, symbol.value, bound,
                                                     decode_at, text_end)
        layout.inferred.add(symbol.name)
    base = text.address if code_object.elf_type is ElfType.ET_REL else 0
    for before, after in zip(symbols, symbols[1:], strict=False):
        end = before.value + layout.extents[before.name]
        if end > after.value:
            shared = min(end, after.value + layout.extents[after.name]) - after.value
            layout.warnings.append(
                f"{before.name} [{before.value:#x}, {end:#x}) overlaps {after.name} at "
                f"{after.value:#x}: each is lifted with its own copy of the {shared} bytes "
                "they share, written one after the other (the output's code is larger)")
            continue
        gap = text.data[end - text.address:after.value - text.address]
        if not gap:
            continue
        data, fill = split_gap(gap, end - base, after.value - base,
                               alignment_of(after.value - base))
        if data:
            layout.trailing[before.name] = data
        if fill != "s_nop":
            layout.fills[after.name] = fill
    _leading(code_object, symbols[0], base, layout)
    last = max(symbols, key=lambda symbol: symbol.value + layout.extents[symbol.name])
    tail = text.data[last.value + layout.extents[last.name] - text.address:]
    nops = s_nop_suffix(tail)
    layout.padding = nops
    if len(tail) > nops:
        layout.trailing[last.name] = tail[:len(tail) - nops]
    return layout


def s_nop_suffix(data: bytes) -> int:
    """Length of the longest run of whole ``s_nop 0`` words that ends ``data``."""
    word = PADDING_FILLS["s_nop"]
    end = len(data)
    while end >= len(word) and data[end - len(word):end] == word:  # linear: 4-byte slices
        end -= len(word)
    return len(data) - end


def _leading(code_object: CodeObject, first: Symbol, base: int, layout: TextLayout) -> None:
    """What precedes the first function: ``s_nop 0`` padding (a linker that joins several
    objects' sections can leave it), else opaque data followed by the first function's
    alignment padding, as between functions."""
    text = code_object.text
    assert text is not None
    head = text.data[:first.value - text.address]
    if not head or _fill_of(head) == "s_nop":
        layout.leading_padding = len(head)
        return
    data, fill = split_gap(head, text.address - base, first.value - base,
                           alignment_of(first.value - base))
    layout.leading_data = data
    if fill != "s_nop":
        layout.fills[first.name] = fill


def anonymous_code(code_object: CodeObject, address: int, taken: set[str]) -> Symbol:
    """A symbol for code no symbol names at ``address`` of ``.text``, which a branch goes
    to: ``<section>.code.<hex address>`` (unless a symbol has that name), local, with no
    size (its extent is what control flow reaches from it)."""
    text = code_object.text
    assert text is not None
    name = f"{text.name.lstrip('.')}.code.{address:x}"
    while name in taken:
        name += "_"
    return Symbol(name, address, 0, "FUNC", "LOCAL", "DEFAULT", text.index, "", -1)
