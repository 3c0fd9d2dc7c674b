"""Code object -> ``amdgpu_mc`` IR.

Bulk work happens on plain Python values (decoding, CFG, symbolization); ops are made once,
at the end, with :func:`build_instruction`, which skips IRDL's argument checks. The result
re-encodes to the bytes it came from: every immediate keeps whether it was a literal, and
every PC-relative constant becomes a symbolic operand whose value emission recomputes.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr, UnitAttr
from xdsl.ir import Attribute, Block, Operation, Region

from luthier.amdgpu_dialects.amdgpu_mc.copy import fill_block
from luthier.amdgpu_dialects.amdgpu_mc.descriptor import KernelDescriptorAttr
from luthier.amdgpu_dialects.amdgpu_mc.instructions import (
    InstructionOpBase,
    build_instruction,
    build_plain_instruction,
    instruction_op_class,
    opcode_attr,
    operand_array,
)
from luthier.amdgpu_dialects.amdgpu_mc.layout import offer_encoding
from luthier.amdgpu_dialects.amdgpu_mc.metadata import metadata_to_attr
from luthier.amdgpu_dialects.amdgpu_mc.mnemonics import INSTRUCTION_KINDS
from luthier.amdgpu_dialects.amdgpu_mc.operands import (
    BranchLabelAttr,
    SymbolOperandAttr,
    operand_attribute,
)
from luthier.amdgpu_dialects.amdgpu_mc.structure import (
    CodeObjectOp,
    DataRelocationAttr,
    FallthroughOp,
    FunctionOp,
    GlobalOp,
    KernelOp,
    LabelOp,
    int_attr,
)
from luthier.amdgpu_dialects.amdgpu_mc.target_context import TargetKey, target_key
from luthier.amdgpu_dialects.collector import collector_paused
from luthier.amdgpu_dialects.isa.target import LIFT_TARGETS, InstrDef
from luthier.amdgpu_dialects.mc.decoder import DecodeError, MCInst, decoder_for
from luthier.amdgpu_dialects.mc.encoder import EncodeError, encoder_for
from luthier.amdgpu_dialects.mc.printer import printer_for
from luthier.amdgpu_dialects.target.subtarget import subtarget_for
from luthier.frontend.codeobj import CodeObject, ElfType, Kernel, Relocation, Symbol
from luthier.frontend.lift import pcrel
from luthier.frontend.lift.carry import carry, check_descriptors
from luthier.frontend.lift.cfg import BasicBlock, DecodedInst, LabelOf, build_blocks
from luthier.frontend.lift.errors import LiftError
from luthier.frontend.lift.extents import TextLayout, alignment_of, anonymous_code, text_layout


@dataclass(frozen=True)
class LiftOptions:
    #: Lift only these kernels (function or ``.kd`` names); all when empty.
    kernels: tuple[str, ...] = ()
    #: Called with (done, total) instruction counts while decoding (progress bars).
    progress: Callable[[int, int], None] | None = None
    #: The IR will live as long as the process (a command-line tool): move it to the
    #: cyclic collector's permanent generation (``gc.freeze``) before collection resumes,
    #: so that no later collection, nor the one at exit, walks it again (on a
    #: 320k-instruction object that is 2.4 s at exit and 0.5 s when the lift ends; the
    #: cost is that garbage cycles among these objects are never collected).
    freeze_result: bool = False
    #: Build no ops for a function whose bytes an emitter can write back as they are:
    #: every instruction re-encodes to its own bytes, and none is PC-relative or branches
    #: into another function. Such a function's op gets an empty body and its bytes go to
    #: :attr:`LiftResult.kept`. For a run that writes the code object back unchanged (an
    #: identity round trip, where no pass reads a body): building ops that nothing reads
    #: was half of it.
    keep_bytes: bool = False


@dataclass
class LiftResult:
    module: CodeObjectOp
    #: Things the lifter could not be sure of, one line each (the driver prints them).
    warnings: list[str] = field(default_factory=lambda: list[str]())
    instruction_count: int = 0
    #: With :attr:`LiftOptions.keep_bytes`, the functions whose op has no body: their
    #: code, exactly what their ops would encode to (no relocations, labels or branches to
    #: other functions).
    kept: dict[str, bytes] = field(default_factory=lambda: dict[str, bytes]())


class _FunctionLifter:
    def __init__(self, code_object: CodeObject, wave: TargetKey, symbols: pcrel.SymbolMap,
                 text_relocations: dict[int, Relocation], keep_bytes: bool = False) -> None:
        self.code_object = code_object
        self.keep_bytes = keep_bytes
        #: Whether the instruction of each encoding re-encodes to it (for ``keep_bytes``).
        self.reencodes: dict[bytes, bool] = {}
        self.processor = code_object.processor
        self.decoder = decoder_for(*wave, real_true16=True)
        self.printer = printer_for(*wave)
        self.encoder = encoder_for(*wave)
        self.symbols = symbols
        self.text_relocations = text_relocations
        self.warnings: list[str] = []
        #: Printed mnemonic and kind per opcode, and the parts of the op per instruction encoding
        #: (an instruction that is neither a branch nor symbolized: its op depends on its
        #: bytes alone): code repeats a lot, and a repeat then costs a look-up.
        self.mnemonics: dict[str, tuple[str, str]] = {}
        self.plain_parts: dict[bytes, tuple[type[InstructionOpBase], StringAttr,
                                            ArrayAttr[Attribute], IntAttr | None]] = {}

    def _decode_one(self, name: str, code: bytes, offset: int, address: int,
                    where: int) -> DecodedInst:
        """The instruction at ``code[offset:]`` (at ``address``); ``where`` is its offset in
        function ``name``, for the error."""
        try:
            inst = self.decoder.decode_shared(code, offset)
        except DecodeError as error:
            word = code[offset:offset + 8].hex()
            detail = f": {error.detail}" if error.detail else ""
            raise LiftError(f"{name}+{where:#x}",
                            f"cannot decode {word} as a {self.processor} instruction "
                            f"({error}{detail})") from None
        known = self.mnemonics.get(inst.desc.name)
        if known is None:
            known = self._mnemonic(inst.desc)
        return DecodedInst(inst, address, known[0], known[1], address + inst.size)

    def _mnemonic(self, desc: InstrDef) -> tuple[str, str]:
        """The printed mnemonic of ``desc``'s instructions and their kind (remembered)."""
        mnemonic = self.printer.mnemonic(desc)
        known = self.mnemonics[desc.name] = (mnemonic, INSTRUCTION_KINDS[mnemonic])
        return known

    def decode_at(self, name: str, address: int, start: int) -> DecodedInst:
        """The instruction at ``address`` of ``.text`` (of function ``name`` at ``start``)."""
        text = self.code_object.text
        assert text is not None
        return self._decode_one(name, text.data, address - text.address, address,
                                address - start)

    def decode(self, name: str, address: int, code: bytes) -> list[DecodedInst]:
        """Every instruction of function ``name`` (``code``, at ``address``)."""
        try:
            shared = self.decoder.decode_all_shared(code)
        except DecodeError:  # decoded again one by one, for the error's place and word
            shared = None
        decoded: list[DecodedInst] = []
        if shared is None:
            offset = 0
            while offset < len(code):
                inst = self._decode_one(name, code, offset, address + offset, offset)
                decoded.append(inst)
                offset += inst.mc.size
            return decoded
        append = decoded.append
        mnemonics = self.mnemonics
        for mc in shared:
            known = mnemonics.get(mc.desc.name)
            if known is None:
                known = self._mnemonic(mc.desc)
            end = address + mc.size
            append(DecodedInst(mc, address, known[0], known[1], end))
            address = end
        return decoded

    def lift(self, name: str, address: int, code: bytes,
             labels: Mapping[int, str] | None = None,
             label_of: LabelOf | None = None) -> tuple[Region | None, int]:
        """The body of function ``name``, with an ``amdgpu_mc.label`` before each
        instruction at an address of ``labels`` (where other functions branch to);
        ``label_of`` names the places in other functions its own branches go to. None
        for a body kept as its bytes (:attr:`LiftOptions.keep_bytes`): everything that
        can refuse the function or warn about it has run by then."""
        instructions = self.decode(name, address, code)
        if self.code_object.elf_type is ElfType.ET_REL:
            symbolized, warnings = pcrel.from_relocations(
                instructions, self.text_relocations,
                {section.name: (section.address, section.index)
                 for section in self.code_object.sections},
                self.symbols)
        else:
            symbolized, warnings = pcrel.recover(name, instructions, self.symbols)
        self.warnings.extend(warnings)
        blocks = build_blocks(name, instructions, label_of, labels or ()) \
            if label_of is not None else build_blocks(name, instructions)
        if labels:
            _check_labels(name, address, instructions, labels)
        if self.keep_bytes and not symbolized and not labels \
                and all(block.label is None for block in blocks) \
                and self._all_reencode(instructions):
            return None, len(instructions)
        ir_blocks = {block.start: Block() for block in blocks}
        position = 0
        symbolized_positions = {at for at, _ in symbolized}
        plain_parts = self.plain_parts
        for block in blocks:
            ir_block = ir_blocks[block.start]
            ops: list[Operation] = []
            for inst in block.instructions:
                if labels and inst.address in labels:
                    ops.append(LabelOp(labels[inst.address]))
                parts = plain_parts.get(inst.mc.encoding)
                if parts is not None and position not in symbolized_positions:
                    ops.append(build_plain_instruction(*parts))
                else:
                    ops.append(self._instruction(inst, position, symbolized,
                                                 symbolized_positions, block, ir_blocks))
                position += 1
            if block.falls_through:
                ops.append(FallthroughOp(ir_blocks[block.successors[0]]))
            fill_block(ir_block, ops)
        region_blocks = list(ir_blocks.values())
        if any(blocks[0].start in block.successors for block in blocks):
            # A region's entry block cannot be a branch target (MLIR's rule): enter through
            # an empty block that falls into the loop header.
            region_blocks.insert(0, Block([FallthroughOp(region_blocks[0])]))
        return Region(region_blocks), len(instructions)

    def _instruction(self, inst: DecodedInst, position: int, symbolized: pcrel.Symbolized,
                     symbolized_positions: set[int], block: BasicBlock,
                     ir_blocks: dict[int, Block]) -> Operation:
        is_branch = inst.kind == "branch" and inst is block.instructions[-1]
        encoding = inst.mc.encoding
        if not is_branch and position not in symbolized_positions and encoding:
            parts = self.plain_parts.get(encoding)
            if parts is None:
                operands = operand_array([operand_attribute(value)
                                          for value in inst.mc.operands])
                parts = self.plain_parts[encoding] = (
                    instruction_op_class(inst.mnemonic), opcode_attr(inst.mc.desc.name),
                    operands, IntAttr(inst.mc.unmodelled) if inst.mc.unmodelled else None)
                self._remember_encoding(inst, operands)
            return build_plain_instruction(*parts)
        attrs: list[Attribute] = [operand_attribute(value) for value in inst.mc.operands]
        for index in range(len(attrs)):
            expression = symbolized.get((position, index))
            if expression is not None:
                attrs[index] = SymbolOperandAttr(expression)
        successors: Sequence[Block] = ()
        if is_branch:
            attrs[0] = operand_attribute(None) if block.label is None \
                else BranchLabelAttr(block.label)
            successors = [ir_blocks[start] for start in block.successors]
        return build_instruction(inst.mnemonic, inst.mc.desc.name, attrs, successors,
                                 inst.mc.unmodelled)


    def _all_reencode(self, instructions: list[DecodedInst]) -> bool:
        """Whether every one of ``instructions`` encodes to its own bytes
        (:meth:`_reencodes`; the look-up of a known encoding is inlined: every instruction
        of a library passes here)."""
        reencodes = self.reencodes
        for inst in instructions:
            mc = inst.mc
            known = reencodes.get(mc.encoding)
            if known is None:
                known = self._reencodes(mc)
            if not known:
                return False
        return True

    def _reencodes(self, mc: MCInst) -> bool:
        """Whether ``mc`` encodes to the bytes it was decoded from: then its op would too
        (the layout takes the decoded bytes on the same condition, :func:`offer_encoding`),
        and so would a branch whose target stays where it was."""
        known = self.reencodes.get(mc.encoding)
        if known is None:
            try:
                known = self.encoder.encode(mc, keep_literals=True) == mc.encoding
            except EncodeError:
                known = False
            self.reencodes[mc.encoding] = known
        return known

    def _remember_encoding(self, inst: DecodedInst, operands: ArrayAttr[Attribute]) -> None:
        """Let the layout and the emitter take an unchanged instruction's bytes from its
        input instead of encoding its op again (once per distinct encoding: the operand
        arrays are interned per encoding); the layout takes them once the encoder has
        given them back for the decoded instruction (:func:`offer_encoding`)."""
        mc = inst.mc
        offer_encoding(self.encoder.isa.name, opcode_attr(mc.desc.name), operands, mc,
                       mc.encoding)


def _check_labels(name: str, address: int, instructions: list[DecodedInst],
                  labels: Mapping[int, str]) -> None:
    """Every place another function branches to is where an instruction of ``name``
    starts (else the bytes are not what one of the two functions says they are)."""
    starts = {inst.address for inst in instructions}
    for target, label in labels.items():
        if target not in starts:
            raise LiftError(f"{name}+{target - address:#x}", "a branch of another function "
                            f"targets it (label {label}), but no instruction of {name} "
                            "starts there")


#: How many times code no symbol names may lead the lift to more of it (each round lifts
#: the whole object again: a chain of such code in a hostile file must not go on).
MAX_UNNAMED_ROUNDS = 16


@dataclass
class _Lifted:
    """One round of lifting every function (see :func:`_lift_functions`)."""

    layout: TextLayout
    ops: list[tuple[int, Operation]]
    count: int
    #: Addresses branches go to that no function holds (code to lift as anonymous).
    unclaimed: set[int]
    #: The bodies kept as bytes (:attr:`LiftResult.kept`).
    kept: dict[str, bytes]


def _lift_functions(code_object: CodeObject, lifter: _FunctionLifter,
                    symbols: list[tuple[Symbol, Kernel | None]], anonymous: list[Symbol],
                    options: LiftOptions) -> _Lifted:
    """Every function of ``symbols`` and the ``anonymous`` code, lifted (in address
    order), with the labels branches between them need."""
    text = code_object.text
    assert text is not None
    entries = sorted([*symbols, *((symbol, None) for symbol in anonymous)],
                     key=lambda entry: entry[0].value)
    unnamed = {symbol.name for symbol in anonymous}
    layout = text_layout(code_object, lifter.decode_at, anonymous)
    extents = layout.extents
    total = sum(extents[symbol.name] for symbol, _ in entries)
    # A partial lift writes the chosen functions alone: the gaps between them are new.
    fills = layout.fills if not options.kernels else {}
    done = 0
    count = 0
    result_ops: list[tuple[int, Operation]] = []
    places = _CrossFunctionLabels([(symbol, extents[symbol.name]) for symbol, _ in entries],
                                  (text.address, text.address + len(text.data)))

    kept: dict[str, bytes] = {}

    def function_op(symbol: Symbol, kernel: Kernel | None) -> tuple[Operation, int]:
        code = _function_bytes(code_object, symbol, extents[symbol.name])
        region, instructions = lifter.lift(symbol.name, symbol.value, code,
                                           places.lifted_with(symbol.name), places.label_of)
        if region is None:
            kept[symbol.name] = code
            region = Region()
        else:
            kept.pop(symbol.name, None)
        properties: dict[str, Attribute] = {
            "sym_name": StringAttr(symbol.name),
            "alignment": int_attr(alignment_of(symbol.value - text.address
                                                if code_object.elf_type is ElfType.ET_REL
                                                else symbol.value)),
            "binding": StringAttr(symbol.binding),
            "visibility": StringAttr(symbol.visibility),
        }
        if fills.get(symbol.name, "s_nop") != "s_nop":
            properties["padding_fill"] = StringAttr(fills[symbol.name])
        if symbol.name in layout.trailing:
            properties["trailing_data"] = StringAttr(layout.trailing[symbol.name].hex())
        if symbol.name in layout.inferred:
            properties["inferred_extent"] = UnitAttr()
        if symbol.name in unnamed:
            properties["anonymous"] = UnitAttr()
        if kernel is not None:
            properties["descriptor"] = KernelDescriptorAttr(kernel.descriptor)
            descriptor = kernel.descriptor_symbol
            if descriptor.binding != symbol.binding:
                properties["descriptor_binding"] = StringAttr(descriptor.binding)
            if descriptor.visibility != symbol.visibility:
                properties["descriptor_visibility"] = StringAttr(descriptor.visibility)
            return KernelOp.create(properties=properties, regions=[region]), instructions
        return FunctionOp.create(properties=properties, regions=[region]), instructions

    for symbol, kernel in entries:
        op, instructions = function_op(symbol, kernel)
        count += instructions
        result_ops.append((symbol.value, op))
        done += extents[symbol.name]
        if options.progress is not None:
            options.progress(done, total)
    # A function lifted before another one's branch into it named a place there: again,
    # with its labels (hand-written code only; compilers never branch between functions).
    for index, (symbol, kernel) in enumerate(entries):
        if places.is_stale(symbol.name):
            result_ops[index] = (symbol.value, function_op(symbol, kernel)[0])
    return _Lifted(layout, result_ops, count, places.unclaimed, kept)


class _CrossFunctionLabels:
    """The places in functions' code that branches of other functions go to, named
    ``<function>+<offset>`` as they are found, and which functions were lifted without
    some of theirs."""

    def __init__(self, extents: list[tuple[Symbol, int]], text: tuple[int, int]) -> None:
        self._ranges = sorted((symbol.value, symbol.value + extent, symbol.name)
                              for symbol, extent in extents)
        self._starts = [start for start, _, _ in self._ranges]
        self._text = text
        self._wanted: dict[str, dict[int, str]] = {}
        self._lifted: dict[str, int] = {}
        #: Word-aligned addresses of ``.text`` that branches go to and no function holds.
        self.unclaimed: set[int] = set()

    def label_of(self, address: int) -> str | None:
        index = bisect.bisect_right(self._starts, address) - 1
        start, end, name = self._ranges[index] if index >= 0 else (0, 0, "")
        if not start <= address < end:
            if self._text[0] <= address < self._text[1] and address % 4 == 0:
                self.unclaimed.add(address)  # code to lift in the next round
                return f"unclaimed+{address:#x}"
            return None
        label = f"{name}+{address - start:#x}"
        self._wanted.setdefault(name, {})[address] = label
        return label

    def lifted_with(self, name: str) -> dict[int, str]:
        """The labels ``name`` gets now (remembered, to tell whether it is stale later)."""
        labels = self._wanted.get(name, {})
        self._lifted[name] = len(labels)
        return labels

    def is_stale(self, name: str) -> bool:
        return len(self._wanted.get(name, {})) != self._lifted.get(name, 0)


def _function_bytes(code_object: CodeObject, symbol: Symbol, extent: int) -> bytes:
    text = code_object.text
    assert text is not None
    start = symbol.value - text.address
    return text.data[start:start + extent]


def lift_code_object(code_object: CodeObject,
                     options: LiftOptions = LiftOptions()) -> LiftResult:
    """Lift ``code_object`` into a ``CodeObjectOp``; raises :class:`LiftError`, whose
    message names the code object (and the function and offset, where one is at fault)."""
    with collector_paused(freeze=options.freeze_result):
        try:
            return _lift_code_object(code_object, options)
        except LiftError as error:
            if error.where.startswith(code_object.name):
                raise
            raise LiftError(f"{code_object.name}: {error.where}", error.reason) from None


def _lift_code_object(code_object: CodeObject, options: LiftOptions) -> LiftResult:
    if code_object.processor not in LIFT_TARGETS:
        raise LiftError(code_object.name, f"no instruction tables for target "
                        f"'{code_object.processor}' (supported: {', '.join(LIFT_TARGETS)})")
    if code_object.text is None:
        raise LiftError(code_object.name, "the code object has no executable section")
    text = code_object.text
    check_descriptors(code_object)
    kernels = list(code_object.kernels)
    if options.kernels:
        # Each kernel once, however often and by whichever of its names it is asked for.
        chosen: dict[str, Kernel] = {}
        for name in options.kernels:
            kernel = code_object.kernel(name)
            chosen.setdefault(kernel.name, kernel)
        kernels = list(chosen.values())
    text_relocations = {relocation.offset: relocation for relocation in code_object.relocations
                        if relocation.target_section == text.name}
    target = target_key(code_object.processor, _wave_size(code_object))
    lifter = _FunctionLifter(code_object, target, pcrel.SymbolMap(code_object),
                             text_relocations, options.keep_bytes)
    result_ops: list[tuple[int, Operation]] = []
    count = 0
    entries: list[tuple[Symbol, Kernel | None]] = [(kernel.function, kernel)
                                                   for kernel in kernels]
    if not options.kernels:
        entries += [(function.symbol, None) for function in code_object.device_functions]
    entries.sort(key=lambda entry: entry[0].value)
    # Code no symbol names that branches reach is lifted too, as an anonymous function:
    # found while lifting, it changes the layout, so the functions are lifted again with
    # it (hand-written code only; every round finds new code or ends).
    anonymous: list[Symbol] = []
    for _ in range(MAX_UNNAMED_ROUNDS):
        lifted = _lift_functions(code_object, lifter, entries, anonymous, options)
        if not lifted.unclaimed:
            break
        taken = {symbol.name for symbol in code_object.symbols} \
            | {symbol.name for symbol in anonymous}
        for address in sorted(lifted.unclaimed):
            found = anonymous_code(code_object, address, taken)
            taken.add(found.name)
            anonymous.append(found)
    else:
        raise LiftError(code_object.name, f"code no symbol names leads to more code no symbol "
                        f"names, {MAX_UNNAMED_ROUNDS} times over (each time the object is "
                        "lifted again): not lifted")
    layout, result_ops, count = lifted.layout, lifted.ops, lifted.count
    symbol_map = pcrel.SymbolMap(code_object)
    # In address order: the emitter lays variables out in body order, so this keeps each
    # one's place in its section (and every PC-relative distance to it).
    globals_ = [_global_op(code_object, variable, symbol_map)
                for variable in sorted(code_object.variables, key=lambda symbol: symbol.value)]
    properties: dict[str, Attribute] = {
        "target": StringAttr(code_object.target.offload_arch),
        "code_object_version": int_attr(code_object.code_object_version),
        "elf_type": StringAttr("dyn" if code_object.elf_type is ElfType.ET_DYN else "rel"),
        "e_flags": int_attr(code_object.e_flags),
        "abi_version": int_attr(code_object.abi_version),
    }
    if target[1] is not None:
        properties["wavefront_size"] = int_attr(target[1])
    leading, padding = layout.leading_padding, layout.padding
    if leading:
        properties["text_leading_padding"] = int_attr(leading)
    if layout.leading_data and not options.kernels:
        properties["text_leading_data"] = StringAttr(layout.leading_data.hex())
    if padding:
        properties["text_padding"] = int_attr(padding)
    carried = carry(code_object)
    if carried.ident is not None:
        properties["ident"] = StringAttr(carried.ident)
    if carried.unpadded_relro:
        properties["unpadded_relro"] = UnitAttr()
    externs = set(carried.externs)
    properties["symbol_order"] = ArrayAttr([
        StringAttr(symbol.name) for symbol in _linker_order(code_object)
        if symbol.table == ".symtab"
        and (symbol.type in ("FUNC", "OBJECT") or symbol.name in externs)])
    if code_object.metadata is not None:
        properties["metadata"] = metadata_to_attr(code_object.metadata.raw)
    body = Block([op for _, op in result_ops] + globals_ + carried.ops)
    module = CodeObjectOp.create(properties=properties, regions=[Region(body)])
    # A function lifted twice (see above) said its warnings twice.
    warnings = layout.warnings + list(dict.fromkeys(lifter.warnings)) + carried.warnings
    return LiftResult(module, warnings, count, lifted.kept)


def _linker_order(code_object: CodeObject) -> list[Symbol]:
    """The symbols in the order the input's writer met them. An object's symbol table is in
    that order; a linked one's is not: ld.lld moves hidden globals before the globals, but
    adds every name to ``.strtab`` as it meets the symbol, in the order of the object it
    linked. The writer does the same from ``symbol_order``, so that order, read from where
    the names lie, gives the input's ``.symtab`` and ``.strtab`` back."""
    if code_object.elf_type is not ElfType.ET_DYN:
        return list(code_object.symbols)
    return sorted(code_object.symbols, key=lambda symbol: (symbol.table, symbol.name_offset))


def _wave_size(code_object: CodeObject) -> int | None:
    """Lanes of a wave of the code object's kernels, as their descriptors say (from GFX10,
    ENABLE_WAVEFRONT_SIZE32; before, always 64); None without kernels (the processor's
    default). :class:`LiftError` when kernels of both sizes share the object: its
    instructions are read in one wave size."""
    if subtarget_for(code_object.processor).major < 10:
        return None
    by_size: dict[int, str] = {}
    for kernel in code_object.kernels:
        wave32 = kernel.descriptor.kernel_code_properties.enable_wavefront_size32
        by_size.setdefault(32 if wave32 else 64, kernel.name)
    if len(by_size) > 1:
        raise LiftError(code_object.name, f"kernels of both wave sizes (@{by_size[32]} runs "
                        f"wave32, @{by_size[64]} wave64): a code object is lifted in one")
    return next(iter(by_size), None)


def _data_relocation(code_object: CodeObject, relocation: Relocation, base: int,
                     symbols: pcrel.SymbolMap) -> DataRelocationAttr:
    """A relocation in a variable, against a symbol: a linked object's RELATIVE64 (an
    address, no symbol) becomes the ABS64 against the symbol holding that address, which is
    what the compiler wrote and what a relink turns back into RELATIVE64."""
    offset = relocation.offset - base
    section = code_object.section(relocation.symbol) if relocation.symbol else None
    if relocation.type_name == "R_AMDGPU_RELATIVE64":
        kind, address = "R_AMDGPU_ABS64", relocation.addend
    elif section is not None:
        # Against a section symbol (``.text + 0x590``): name the function or variable
        # there instead, so the reference survives code moving inside the section.
        kind, address = relocation.type_name, section.address + relocation.addend
    else:
        return DataRelocationAttr((offset, relocation.type_name, relocation.symbol,
                                   relocation.addend))
    in_section = section.index if section is not None \
        and code_object.elf_type is ElfType.ET_REL else None
    found = symbols.containing(address, in_section)
    if found is None:
        raise LiftError(code_object.name, f"{relocation.type_name} at {relocation.offset:#x} "
                        f"points at {address:#x}, which is in no symbol")
    return DataRelocationAttr((offset, kind, found[0], found[1]))


def _global_op(code_object: CodeObject, variable: Symbol,
               symbols: pcrel.SymbolMap) -> GlobalOp:
    file_bytes = code_object.data
    section = code_object.sections[variable.section_index] \
        if isinstance(variable.section_index, int) else None
    if section is None:
        raise LiftError(code_object.name, f"variable {variable.name} has no section")
    offset_in_section = variable.value - section.address
    if not 0 <= offset_in_section <= section.size \
            or variable.size > section.size - offset_in_section:
        raise LiftError(code_object.name, f"variable {variable.name} ({variable.size} bytes "
                        f"at {variable.value:#x}) lies outside its section {section.name} "
                        f"({section.size} bytes at {section.address:#x})")
    properties: dict[str, Attribute] = {
        "sym_name": StringAttr(variable.name),
        "section": StringAttr(section.name),
        "size": int_attr(variable.size),
        "alignment": int_attr(alignment_of(offset_in_section, max(section.alignment, 1))),
        "binding": StringAttr(variable.binding),
        "visibility": StringAttr(variable.visibility),
    }
    if section.has_file_bytes:
        start = section.offset + offset_in_section
        data = file_bytes[start:start + variable.size]
        if len(data) != variable.size:
            raise LiftError(code_object.name,
                            f"variable {variable.name} lies outside the file")
        if any(data):
            properties["data"] = StringAttr(data.hex())
    relocations = [
        _data_relocation(code_object, relocation, variable.value, symbols)
        for relocation in code_object.relocations
        if variable.value <= relocation.offset < variable.value + max(variable.size, 1)
        and (relocation.target_section == section.name
             or (relocation.target_section is None
                 and code_object.elf_type is ElfType.ET_DYN))]
    if relocations:
        properties["relocations"] = ArrayAttr(relocations)
    return GlobalOp.create(properties=properties)
