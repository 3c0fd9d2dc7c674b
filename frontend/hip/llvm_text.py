"""A reader of the part of LLVM's textual IR that clang-19 writes for a hook file.

Hooks written in HIP reach us as the ``.ll`` text of ``clang-19 -O2 -emit-llvm -S``
(:mod:`.compile`). We read that text ourselves rather than through an LLVM binding or
``mlir-translate``: the importer needs a few dozen instruction forms, the source line of
each (``!dbg`` locations), the global variables and their sizes, and nothing else, and a
reader of that much keeps clang-19 an optional tool of the ``.hip`` path only (see
docs/hip-hooks.md).

What is read: global variables (type, address space, initializer, section, alignment),
function definitions (parameters, basic blocks, instructions with their operands and
``!dbg`` line) and declarations, and the ``!DILocation``/``!DISubprogram`` metadata that
gives lines. Everything else at top level (attribute groups, module flags, other metadata)
is skipped. An instruction this module does not know is kept as its opcode and text, so
the importer can refuse it by name with its source line (:class:`Instruction`.``unknown``).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

from luthier.frontend.hip.llvm_types import (
    VOID,
    ArrayType,
    FloatType,
    IntType,
    LLVMTextError,
    OtherType,
    PtrType,
    StructType,
    Type,
    gep_offset,
)

# ---------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Local:
    """``%name``: a parameter or an instruction's result."""

    name: str


@dataclass(frozen=True)
class GlobalRef:
    """``@name``: a global variable's or a function's address."""

    name: str


@dataclass(frozen=True)
class IntConst:
    value: int


@dataclass(frozen=True)
class FloatConst:
    """A ``float``/``double`` constant: LLVM writes ``5.000000e-01`` when the decimal
    reads back exactly and the IEEE double's bits in hex (``0x3FB99999A0000000``)
    otherwise, for ``float`` too (the float's value as a double, which is exact)."""

    value: float


@dataclass(frozen=True)
class Undefined:
    """``poison``/``undef``: any value will do."""


@dataclass(frozen=True)
class ConstOffset:
    """A constant expression: ``@global`` plus a byte offset (``getelementptr`` on a
    global, casts of it)."""

    base: str
    offset: int


@dataclass(frozen=True)
class Unsupported:
    """A constant the importer cannot use (a float, a vector...), as written."""

    text: str


Operand = Local | GlobalRef | IntConst | FloatConst | Undefined | ConstOffset | Unsupported


# ---------------------------------------------------------------------------------------
# Module
# ---------------------------------------------------------------------------------------


@dataclass
class Instruction:
    """One instruction: ``result = opcode ...``.

    ``type`` is the result type (or the stored type for ``store``); ``operands`` and
    ``types`` are the value operands in order, with their types. Opcode-specific parts:
    ``predicate`` (``icmp``), ``targets`` (``br``: labels), ``incoming`` (``phi``: value and
    label pairs), ``callee`` (``call``), ``kind`` (``atomicrmw``'s operation, ``getelementptr``'s
    source element type as text is in ``element``)."""

    result: str | None
    opcode: str
    type: Type
    operands: list[Operand] = field(default_factory=list[Operand])
    types: list[Type] = field(default_factory=list[Type])
    predicate: str = ""
    targets: list[str] = field(default_factory=list[str])
    incoming: list[tuple[Operand, str]] = field(default_factory=list[tuple[Operand, str]])
    callee: str = ""
    kind: str = ""
    element: Type | None = None
    #: The ``!dbg`` attachment's metadata number, and the line of the ``.ll`` text.
    dbg: int | None = None
    line: int = 0
    #: Not a form this reader knows: the importer refuses it by opcode.
    unknown: bool = False
    volatile: bool = False


@dataclass
class BasicBlock:
    label: str
    instructions: list[Instruction] = field(default_factory=list[Instruction])


@dataclass
class Function:
    name: str
    return_type: Type
    #: (name, type, attributes) per parameter.
    params: list[tuple[str, Type, tuple[str, ...]]]
    blocks: list[BasicBlock]
    section: str = ""
    dbg: int | None = None
    line: int = 0


@dataclass
class GlobalVar:
    name: str
    type: Type
    addrspace: int
    constant: bool
    #: The initializer: None for a declaration, ``zeroinitializer``/``0`` as IntConst(0),
    #: a ``c"..."`` string as bytes, anything else as its text.
    initializer: IntConst | bytes | str | None
    section: str = ""
    alignment: int | None = None
    line: int = 0


@dataclass
class Location:
    """A ``!DILocation``: line, scope (a subprogram's number) and where it was inlined."""

    line: int
    scope: int | None
    inlined_at: int | None


@dataclass
class LLVMModule:
    globals: dict[str, GlobalVar] = field(default_factory=dict[str, GlobalVar])
    functions: dict[str, Function] = field(default_factory=dict[str, Function])
    #: Declared (not defined) functions: name -> return type.
    declarations: dict[str, Type] = field(default_factory=dict[str, Type])
    locations: dict[int, Location] = field(default_factory=dict[int, Location])
    #: ``!DISubprogram``: number -> (name, line).
    subprograms: dict[int, tuple[str, int]] = field(default_factory=dict[int, tuple[str, int]])
    #: Scopes (subprograms, lexical blocks) -> the scope or file they sit in, and files ->
    #: their names.
    parents: dict[int, int] = field(default_factory=dict[int, int])
    files: dict[int, str] = field(default_factory=dict[int, str])

    def file_of(self, scope: int | None) -> str | None:
        """The source file a scope (a subprogram, a lexical block) is in."""
        seen: set[int] = set()
        while scope is not None and scope not in seen:
            seen.add(scope)
            if scope in self.files:
                return self.files[scope]
            scope = self.parents.get(scope)
        return None

    def source_location(self, dbg: int | None) -> tuple[str | None, int] | None:
        """The file and line of a ``!dbg`` location in the hook's own code: an instruction
        inlined from a helper reports the line of the call in the hook."""
        seen: set[int] = set()
        while dbg is not None and dbg not in seen:
            seen.add(dbg)
            location = self.locations.get(dbg)
            if location is None:
                return None
            if location.inlined_at is None:
                if not location.line:
                    return None
                return self.file_of(location.scope), location.line
            dbg = location.inlined_at
        return None


# ---------------------------------------------------------------------------------------
# Lexing
# ---------------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    \s+
  | (?P<comment>;.*)
  | (?P<string>c?"[^"]*")
  | (?P<local>%(?:"[^"]*"|[-\w.$]+))
  | (?P<global>@(?:"[^"]*"|[-\w.$]+))
  | (?P<meta>!(?:[A-Za-z_.][\w.]*|\d+)?)
  | (?P<attr>\#\d+)
  | (?P<number>-?\d+(?![\w.]))
  | (?P<hex>0x[HKLMR]?[0-9A-Fa-f]+|[-+]?\d+\.\d+(?:e[-+]?\d+)?)
  | (?P<word>[A-Za-z_.][\w.]*:?)
  | (?P<punct>\.\.\.|[=,()\[\]{}<>*:])
""", re.VERBOSE)


def _tokens(text: str, line: int) -> list[str]:
    tokens: list[str] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise LLVMTextError(f"line {line}: cannot read {text[position:position + 20]!r}")
        position = match.end()
        kind = match.lastgroup
        if kind is None or kind == "comment":
            continue
        tokens.append(match.group(kind))
    return tokens


def _unquote(name: str) -> str:
    """``%"a b"`` -> ``a b``; ``%x`` -> ``x``."""
    body = name[1:]
    if body.startswith('"'):
        return _unescape(body[1:-1]).decode("utf-8", "replace")
    return body


def _unescape(text: str) -> bytes:
    """The bytes of an LLVM string body (``\\22`` is a quote, ``\\\\`` a backslash)."""
    out = bytearray()
    position = 0
    while position < len(text):
        char = text[position]
        if char == "\\" and text[position + 1:position + 2] == "\\":
            out.append(0x5C)
            position += 2
        elif char == "\\" and re.fullmatch(r"[0-9A-Fa-f]{2}", text[position + 1:position + 3]):
            out.append(int(text[position + 1:position + 3], 16))
            position += 3
        else:
            out += char.encode("utf-8")
            position += 1
    return bytes(out)


class _Cursor:
    """Tokens of one line (or of a function header), read left to right."""

    def __init__(self, tokens: list[str], line: int) -> None:
        self.tokens = tokens
        self.position = 0
        self.line = line

    def error(self, message: str) -> LLVMTextError:
        return LLVMTextError(f"line {self.line}: {message}")

    def peek(self, ahead: int = 0) -> str:
        index = self.position + ahead
        return self.tokens[index] if index < len(self.tokens) else ""

    def next(self) -> str:
        token = self.peek()
        if not token:
            raise self.error("the line ends too soon")
        self.position += 1
        return token

    def accept(self, *words: str) -> str | None:
        if self.peek() in words:
            return self.next()
        return None

    def expect(self, word: str) -> None:
        token = self.next()
        if token != word:
            raise self.error(f"expected {word!r}, found {token!r}")

    def done(self) -> bool:
        return self.position >= len(self.tokens)

    def skip_balanced(self) -> None:
        """Skip from an opening bracket to its match."""
        depth = 0
        while True:
            token = self.next()
            if token in "([{<":
                depth += 1
            elif token in ")]}>":
                depth -= 1
                if depth == 0:
                    return


#: Parameter and return attributes clang writes (skipped: they say nothing the importer
#: needs). ``align``, ``dereferenceable`` and the like take an argument.
_FLAG_ATTRIBUTES = frozenset({
    "noundef", "zeroext", "signext", "inreg", "nonnull", "noalias", "nocapture", "readonly",
    "writeonly", "readnone", "returned", "immarg", "nofree", "noinline", "tail", "musttail",
    "notail", "fastcc", "ccc", "swiftself", "writable", "dead_on_unwind", "local_unnamed_addr",
    "unnamed_addr", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast",
    "convergent", "hidden", "protected", "internal", "private", "external", "dso_local",
    "linkonce_odr", "weak_odr", "amdgpu_kernel",
})
_ARGUMENT_ATTRIBUTES = frozenset({
    "align", "dereferenceable", "dereferenceable_or_null", "range", "nofpclass", "byval",
    "byref", "sret", "elementtype", "initializes", "captures", "memory", "allocsize",
})


def _skip_attributes(cursor: _Cursor) -> None:
    while True:
        token = cursor.peek()
        if token in _FLAG_ATTRIBUTES or token.startswith("#"):
            cursor.next()
        elif token.startswith("!") and not token[1:].isdigit():  # !dbg !31
            cursor.next()
            if cursor.peek()[1:].isdigit():
                cursor.next()
        elif token in _ARGUMENT_ATTRIBUTES:
            cursor.next()
            if cursor.peek() == "(":
                cursor.skip_balanced()
            elif cursor.peek().lstrip("-").isdigit():
                cursor.next()
        else:
            return


def _parse_type(cursor: _Cursor) -> Type:
    token = cursor.next()
    if re.fullmatch(r"i\d+", token):
        type_: Type = IntType(int(token[1:]))
    elif token == "ptr":
        addrspace = 0
        if cursor.accept("addrspace"):
            cursor.expect("(")
            addrspace = int(cursor.next())
            cursor.expect(")")
        type_ = PtrType(addrspace)
    elif token == "[":
        count = int(cursor.next())
        cursor.expect("x")
        element = _parse_type(cursor)
        cursor.expect("]")
        type_ = ArrayType(count, element)
    elif token in ("{", "<") and (token == "{" or cursor.peek() == "{"):
        packed = token == "<"
        if packed:
            cursor.expect("{")
        fields: list[Type] = []
        while cursor.peek() != "}":
            fields.append(_parse_type(cursor))
            cursor.accept(",")
        cursor.expect("}")
        if packed:
            cursor.expect(">")
        type_ = StructType(tuple(fields), packed)
    elif token == "<":  # a vector: <4 x float>
        depth_tokens = ["<"]
        while depth_tokens[-1] != ">":
            depth_tokens.append(cursor.next())
        type_ = OtherType(" ".join(depth_tokens))
    elif token in ("float", "double"):
        type_ = FloatType(32 if token == "float" else 64)
    elif token in ("void", "label", "half", "bfloat", "metadata",
                   "x86_fp80", "fp128", "token"):
        type_ = OtherType(token)
    else:
        raise cursor.error(f"{token!r} is not a type")
    while cursor.peek() == "(":  # a function type: void (i32)
        cursor.skip_balanced()
        type_ = OtherType("function")
    while cursor.accept("*"):
        type_ = PtrType(0)
    return type_


def _parse_constant_expression(cursor: _Cursor, word: str) -> Operand:
    """``getelementptr inbounds (T, ptr @g, i64 0, i64 5)``, ``addrspacecast (ptr @g to
    ...)`` and the like: a global plus a constant offset."""
    cursor.expect("(")
    if word in ("addrspacecast", "bitcast", "ptrtoint", "inttoptr"):
        _parse_type(cursor)
        inner = _parse_value(cursor)
        cursor.expect("to")
        _parse_type(cursor)
        cursor.expect(")")
        if isinstance(inner, GlobalRef):
            return ConstOffset(inner.name, 0)
        return inner
    # getelementptr [inbounds] [nuw] (T, ptr base, idx...)
    element = _parse_type(cursor)
    cursor.expect(",")
    _parse_type(cursor)
    base = _parse_value(cursor)
    indices: list[int] = []
    while cursor.accept(","):
        _parse_type(cursor)
        index = _parse_value(cursor)
        if not isinstance(index, IntConst):
            return Unsupported("getelementptr with a non-constant index")
        indices.append(index.value)
    cursor.expect(")")
    if isinstance(base, GlobalRef):
        base = ConstOffset(base.name, 0)
    if not isinstance(base, ConstOffset):
        return Unsupported("a constant getelementptr not on a global")
    return ConstOffset(base.base, base.offset + gep_offset(element, indices, cursor.line))


def _parse_value(cursor: _Cursor) -> Operand:
    token = cursor.next()
    if token.startswith("%"):
        return Local(_unquote(token))
    if token.startswith("@"):
        return GlobalRef(_unquote(token))
    if re.fullmatch(r"-?\d+", token):
        return IntConst(int(token))
    if token in ("true", "false"):
        return IntConst(1 if token == "true" else 0)
    if token in ("null", "zeroinitializer"):
        return IntConst(0)
    if token in ("poison", "undef"):
        return Undefined()
    if re.fullmatch(r"0x[0-9A-Fa-f]{16}", token):
        return FloatConst(struct.unpack("<d", int(token, 16).to_bytes(8, "little"))[0])
    if re.fullmatch(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?", token):
        return FloatConst(float(token))
    if re.fullmatch(r"0x[HKLMR][0-9A-Fa-f]+", token):
        kind = {"H": "half", "R": "bfloat"}.get(token[2], "extended-precision")
        return Unsupported(f"{token} (a {kind} constant)")
    if token in ("getelementptr", "addrspacecast", "bitcast", "ptrtoint", "inttoptr"):
        while cursor.peek() in ("inbounds", "nuw", "nusw"):
            cursor.next()
        return _parse_constant_expression(cursor, token)
    if token in ("[", "{", "<"):
        cursor.position -= 1
        cursor.skip_balanced()
        return Unsupported("an aggregate constant")
    return Unsupported(token)


def _typed_value(cursor: _Cursor) -> tuple[Type, Operand]:
    type_ = _parse_type(cursor)
    _skip_attributes(cursor)
    return type_, _parse_value(cursor)


def _trailing(cursor: _Cursor, instruction: Instruction) -> None:
    """``, align 8``, ``, !dbg !12`` and other attachments at the end of a line."""
    while not cursor.done():
        token = cursor.next()
        if token == "!dbg":
            number = cursor.next()
            if number.startswith("!") and number[1:].isdigit():
                instruction.dbg = int(number[1:])


_BINARY = frozenset({"add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "and", "or", "xor",
                     "shl", "lshr", "ashr", "fadd", "fsub", "fmul", "fdiv", "frem"})
_CASTS = frozenset({"zext", "sext", "trunc", "ptrtoint", "inttoptr", "addrspacecast",
                    "bitcast", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext"})
_FLAGS = frozenset({"nuw", "nsw", "exact", "disjoint", "nneg", "samesign", "inbounds",
                    "nusw", "volatile", "tail", "musttail", "notail", "fast", "nnan", "ninf",
                    "nsz", "arcp", "contract", "afn", "reassoc"})


def _instruction(tokens: list[str], line: int) -> Instruction:
    cursor = _Cursor(tokens, line)
    result = None
    if cursor.peek().startswith("%") and cursor.peek(1) == "=":
        result = _unquote(cursor.next())
        cursor.next()
    volatile = False
    while cursor.peek() in ("tail", "musttail", "notail"):
        cursor.next()
    opcode = cursor.next()
    instruction = Instruction(result, opcode, VOID, line=line)
    while cursor.peek() in _FLAGS:
        volatile |= cursor.next() == "volatile"
    instruction.volatile = volatile
    if opcode in _BINARY:
        type_, left = _typed_value(cursor)
        cursor.expect(",")
        right = _parse_value(cursor)
        instruction.type = type_
        instruction.operands, instruction.types = [left, right], [type_, type_]
    elif opcode in ("icmp", "fcmp"):
        instruction.predicate = cursor.next()
        type_, left = _typed_value(cursor)
        cursor.expect(",")
        right = _parse_value(cursor)
        instruction.type = IntType(1)
        instruction.operands, instruction.types = [left, right], [type_, type_]
    elif opcode == "select":
        for index in range(3):
            if index:
                cursor.expect(",")
            type_, value = _typed_value(cursor)
            instruction.operands.append(value)
            instruction.types.append(type_)
        instruction.type = instruction.types[1]
    elif opcode in _CASTS:
        type_, value = _typed_value(cursor)
        cursor.expect("to")
        instruction.type = _parse_type(cursor)
        instruction.operands, instruction.types = [value], [type_]
    elif opcode in ("freeze", "fneg"):
        type_, value = _typed_value(cursor)
        instruction.type = type_
        instruction.operands, instruction.types = [value], [type_]
    elif opcode == "phi":
        instruction.type = _parse_type(cursor)
        while cursor.accept("["):
            value = _parse_value(cursor)
            cursor.expect(",")
            label = _unquote(cursor.next())
            cursor.expect("]")
            instruction.incoming.append((value, label))
            if not cursor.accept(","):
                break
    elif opcode == "br":
        if cursor.accept("label"):
            instruction.targets = [_unquote(cursor.next())]
        else:
            type_, condition = _typed_value(cursor)
            instruction.operands, instruction.types = [condition], [type_]
            for _ in range(2):
                cursor.expect(",")
                cursor.expect("label")
                instruction.targets.append(_unquote(cursor.next()))
    elif opcode == "ret":
        if cursor.accept("void") is None:
            type_, value = _typed_value(cursor)
            instruction.operands, instruction.types = [value], [type_]
    elif opcode == "call":
        _skip_attributes(cursor)
        instruction.type = _parse_type(cursor)
        _skip_attributes(cursor)
        callee = cursor.next()
        if not callee.startswith("@"):
            instruction.unknown = True
            instruction.callee = callee
            _trailing(cursor, instruction)
            return instruction
        instruction.callee = _unquote(callee)
        cursor.expect("(")
        while not cursor.accept(")"):
            type_, value = _typed_value(cursor)
            instruction.operands.append(value)
            instruction.types.append(type_)
            cursor.accept(",")
    elif opcode == "load":
        instruction.type = _parse_type(cursor)
        cursor.expect(",")
        type_, address = _typed_value(cursor)
        instruction.operands, instruction.types = [address], [type_]
    elif opcode == "store":
        type_, value = _typed_value(cursor)
        cursor.expect(",")
        address_type, address = _typed_value(cursor)
        instruction.type = type_
        instruction.operands, instruction.types = [value, address], [type_, address_type]
    elif opcode == "atomicrmw":
        instruction.kind = cursor.next()
        address_type, address = _typed_value(cursor)
        cursor.expect(",")
        type_, value = _typed_value(cursor)
        instruction.type = type_
        instruction.operands, instruction.types = [address, value], [address_type, type_]
    elif opcode == "getelementptr":
        instruction.element = _parse_type(cursor)
        cursor.expect(",")
        base_type, base = _typed_value(cursor)
        instruction.operands, instruction.types = [base], [base_type]
        while cursor.accept(","):
            if cursor.peek() in ("align", "!dbg") or cursor.peek().startswith("!"):
                cursor.position -= 1
                break
            type_, index = _typed_value(cursor)
            instruction.operands.append(index)
            instruction.types.append(type_)
        instruction.type = base_type
    else:
        instruction.unknown = True
    _trailing(cursor, instruction)
    return instruction


# ---------------------------------------------------------------------------------------
# Top level
# ---------------------------------------------------------------------------------------

_LABEL = re.compile(r"^([-\w.$]+|\"[^\"]*\"):")
_METADATA = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!(\w+)\((.*)\)\s*$")
_FIELD = re.compile(r"(\w+):\s*(\"[^\"]*\"|[^,]+)")


def _metadata(module: LLVMModule, number: int, kind: str, body: str) -> None:
    fields = {name: value.strip() for name, value in _FIELD.findall(body)}

    def ref(name: str) -> int | None:
        value = fields.get(name, "")
        return int(value[1:]) if value.startswith("!") and value[1:].isdigit() else None

    line = int(fields.get("line", "0")) if fields.get("line", "0").isdigit() else 0
    if kind == "DILocation":
        module.locations[number] = Location(line, ref("scope"), ref("inlinedAt"))
        return
    if kind == "DIFile":
        module.files[number] = fields.get("filename", '""').strip('"')
        return
    if kind == "DISubprogram":
        module.subprograms[number] = (fields.get("name", '""').strip('"'), line)
    parent = ref("file") if kind == "DISubprogram" else ref("scope") or ref("file")
    if parent is not None:
        module.parents[number] = parent


def _global(module: LLVMModule, tokens: list[str], line: int) -> None:
    cursor = _Cursor(tokens, line)
    name = _unquote(cursor.next())
    cursor.expect("=")
    addrspace = 0
    linkage: set[str] = set()
    while True:
        token = cursor.peek()
        if token == "addrspace":
            cursor.next()
            cursor.expect("(")
            addrspace = int(cursor.next())
            cursor.expect(")")
        elif token in ("global", "constant"):
            break
        elif token == "":
            raise cursor.error(f"@{name} is neither a global nor a constant")
        else:
            linkage.add(cursor.next())  # linkage, visibility, externally_initialized...
    constant = cursor.next() == "constant"
    type_ = _parse_type(cursor)
    initializer: IntConst | bytes | str | None = None
    token = cursor.peek()
    declared = bool(linkage & {"external", "extern_weak"}) and token in ("", ",")
    if token and token != ",":
        if token.startswith('c"'):
            initializer = _unescape(cursor.next()[2:-1])
        elif token in ("zeroinitializer", "0", "null"):
            cursor.next()
            initializer = IntConst(0)
        else:
            start = cursor.position
            value = _parse_value(cursor)
            if isinstance(value, FloatConst) and value.value == 0.0 \
                    and str(value.value)[0] != "-":
                value = IntConst(0)  # a float global's zero: its bits are zero
            initializer = IntConst(value.value) if isinstance(value, IntConst) \
                else " ".join(tokens[start:cursor.position])
    elif not declared:
        initializer = IntConst(0)
    variable = GlobalVar(name, type_, addrspace, constant, initializer, line=line)
    while cursor.accept(","):
        token = cursor.next()
        if token == "section":
            variable.section = _unescape(cursor.next()[1:-1]).decode("utf-8", "replace")
        elif token == "align":
            variable.alignment = int(cursor.next())
    module.globals[name] = variable


def _function_header(text: str, line: int) -> tuple[Function, bool]:
    """A ``define``/``declare`` line: the function, and whether it is a definition."""
    cursor = _Cursor(_tokens(text, line), line)
    defining = cursor.next() == "define"
    _skip_attributes(cursor)
    return_type = _parse_type(cursor)
    _skip_attributes(cursor)
    name = _unquote(cursor.next())
    cursor.expect("(")
    params: list[tuple[str, Type, tuple[str, ...]]] = []
    index = 0
    while not cursor.accept(")"):
        if cursor.accept("..."):
            continue
        type_ = _parse_type(cursor)
        attributes: list[str] = []
        while cursor.peek() and not cursor.peek().startswith("%") \
                and cursor.peek() not in (",", ")"):
            attributes.append(cursor.next())
        param = _unquote(cursor.next()) if cursor.peek().startswith("%") else str(index)
        params.append((param, type_, tuple(attributes)))
        index += 1
        cursor.accept(",")
    function = Function(name, return_type, params, [], line=line)
    while not cursor.done():
        token = cursor.next()
        if token == "section":
            function.section = _unescape(cursor.next()[1:-1]).decode("utf-8", "replace")
        elif token == "!dbg":
            number = cursor.next()
            if number[1:].isdigit():
                function.dbg = int(number[1:])
    return function, defining


def read_llvm_text(text: str) -> LLVMModule:
    """The globals, functions and line metadata of LLVM IR ``text``; raises
    :class:`LLVMTextError` naming the line it cannot read."""
    return _read(text)


def _unreadable(number: int, error: Exception) -> LLVMTextError:
    """A token where another kind was due (a name where a number goes...), in one line."""
    if isinstance(error, LLVMTextError):
        return error
    return LLVMTextError(f"line {number}: cannot read it ({error})")


def _read(text: str) -> LLVMModule:
    module = LLVMModule()
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        raw = lines[number]
        number += 1
        stripped = raw.strip()
        if not stripped or stripped.startswith(";"):
            continue
        if stripped.startswith("@"):
            try:
                _global(module, _tokens(stripped, number), number)
            except (ValueError, IndexError) as error:
                raise _unreadable(number, error) from None
        elif stripped.startswith(("define ", "declare ")):
            header = stripped[:-1].rstrip() if stripped.endswith("{") else stripped
            try:
                function, defining = _function_header(header, number)
            except (ValueError, IndexError) as error:
                raise _unreadable(number, error) from None
            if not defining:
                module.declarations[function.name] = function.return_type
                continue
            number = _body(function, lines, number)
            module.functions[function.name] = function
        elif (match := _METADATA.match(stripped)) is not None:
            _metadata(module, int(match.group(1)), match.group(2), match.group(3))
    return module


def _body(function: Function, lines: list[str], number: int) -> int:
    """Read a function's blocks from line ``number`` (0-based index of the line after the
    header) up to its ``}``; returns the index after it."""
    # The entry block is unnamed: it takes the next number after the unnamed parameters.
    unnamed = sum(1 for param, _, _ in function.params if param.isdigit())
    block = BasicBlock(str(unnamed))
    while number < len(lines):
        stripped = lines[number].strip()
        number += 1
        if stripped == "}":
            if block.instructions:
                function.blocks.append(block)
            return number
        if not stripped or stripped.startswith(";"):
            continue
        label = _LABEL.match(stripped)
        if label is not None and not stripped.startswith("%"):
            if block.instructions:
                function.blocks.append(block)
            block = BasicBlock(_unquote("%" + label.group(1)))
            continue
        try:
            block.instructions.append(_instruction(_tokens(stripped, number), number))
        except (ValueError, IndexError) as error:
            raise _unreadable(number, error) from None
    raise LLVMTextError(f"line {number}: @{function.name} has no closing brace")
