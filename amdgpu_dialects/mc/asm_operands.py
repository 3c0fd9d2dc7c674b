"""Read the operands of a statement into target-independent items.

An item is what one AMDGPU operand looks like before we know which instruction it belongs
to: a register (with ``-``/``|..|``/``abs()``/``neg()``/``sext()`` modifiers), an
immediate (an integer expression or a real, with the same modifiers), a named operand
(``offset:16``, ``op_sel:[0,1]``, ``dst_sel:WORD_1``) or a bare word (``glc``, ``off``,
``offen``). Symbolic immediates with a syntax of their own (``hwreg(...)``,
``sendmsg(...)``, ``vmcnt(0) lgkmcnt(0)``, ``gpr_idx(...)``) become immediates here, since
their spelling alone says what they are. The matcher then fits the items to each candidate
instruction's operand list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from luthier.amdgpu_dialects.mc import operand_syntax as S
from luthier.amdgpu_dialects.mc.asm_expr import (
    BinaryExpr,
    SymbolRefExpr,
    SymExpr,
    UnaryExpr,
    lift,
)
from luthier.amdgpu_dialects.mc.asm_lexer import AsmSyntaxError, Token, tokenize


@dataclass(slots=True)
class Item:
    """One operand as written. ``kind``: ``reg``, ``imm``, ``named`` or ``word``."""

    kind: str
    column: int
    text: str = ""
    value: int = 0
    real: float | None = None
    neg: bool = False
    abs: bool = False
    sext: bool = False
    #: Named operands: the value after the colon.
    arg: int | list[int] | str | None = None
    #: Immediates from a symbolic syntax (hwreg...), which take no modifiers or literals.
    symbolic: bool = False
    #: An immediate that names symbols: encoded later, through a fixup.
    expr: SymExpr | None = None
    #: A virtual register's width in bits (0: not virtual). Instruction selection writes
    #: virtual registers as ``reg`` items whose text is their file letter and a name of
    #: its own (``s%0``), so the rules that look at register files (the constant bus) see
    #: them as registers of their file; the matcher checks file and width, not members.
    virtual: int = 0

    @property
    def has_modifiers(self) -> bool:
        return self.neg or self.abs or self.sext


SPECIAL_REGISTERS: dict[str, str] = {
    name: name for name in (
        "vcc", "vcc_lo", "vcc_hi", "exec", "exec_lo", "exec_hi", "m0", "flat_scratch",
        "flat_scratch_lo", "flat_scratch_hi", "xnack_mask", "xnack_mask_lo", "xnack_mask_hi",
        "tba", "tba_lo", "tba_hi", "tma", "tma_lo", "tma_hi", "src_shared_base",
        "src_shared_limit", "src_private_base", "src_private_limit",
        "src_pops_exiting_wave_id", "src_vccz", "src_execz", "src_scc", "src_lds_direct",
        "null",
    )
}
SPECIAL_REGISTERS.update({
    "shared_base": "src_shared_base", "shared_limit": "src_shared_limit",
    "private_base": "src_private_base", "private_limit": "src_private_limit",
    "pops_exiting_wave_id": "src_pops_exiting_wave_id", "vccz": "src_vccz",
    "execz": "src_execz", "lds_direct": "src_lds_direct",
})

#: ``v7``, ``s3``, ``acc2``...; a VGPR may name a 16-bit half (``v7.h``, ``v7.l``: true16).
_REGISTER = re.compile(r"^(v|s|a|ttmp|acc)(\d+)(\.[lh])?$")
_REGISTER_PREFIX = frozenset({"v", "s", "a", "ttmp", "acc"})
_LIMITS = {"v": 256, "a": 256, "s": 102, "ttmp": 16}
_WAITCNT_COUNTERS = frozenset({"vmcnt", "expcnt", "lgkmcnt", "vmcnt_sat", "expcnt_sat",
                               "lgkmcnt_sat"})
_BINARY_PRECEDENCE = {"|": 3, "^": 4, "&": 5, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10,
                      "/": 10, "%": 10}


def register_name(prefix: str, first: int, count: int, column: int,
                  sgprs: int = _LIMITS["s"]) -> str:
    """Canonical spelling of a register tuple, checking range and SGPR alignment
    (``sgprs``: how many SGPRs the target names, 106 from GFX10 on)."""
    if prefix == "acc":
        prefix = "a"
    limit = sgprs if prefix == "s" else _LIMITS[prefix]
    if count < 1 or first < 0 or first + count > limit:
        # s102..s105 exist on other processors.
        if prefix == "s" and count >= 1 and first >= 0 and first + count <= 106:
            raise AsmSyntaxError("register not available on this GPU", column)
        raise AsmSyntaxError("register index is out of range", column)
    if prefix in ("s", "ttmp") and count > 1:
        alignment = 2 if count == 2 else 4
        if first % alignment:
            raise AsmSyntaxError("invalid register alignment", column)
    if count == 1:
        return f"{prefix}{first}"
    return f"{prefix}[{first}:{first + count - 1}]"


class OperandReader:
    """Reads items from the tokens of one statement's operand part."""

    def __init__(self, tokens: list[Token], gfx940: bool = False,
                 sgprs: int = _LIMITS["s"], nsa: bool = False, generation: int = 9,
                 depctr_hold_cnt: bool = False) -> None:
        self.sgprs = sgprs
        #: The ISA generation whose names the symbolic operands (hwreg, sendmsg, waitcnt)
        #: use, and whether s_waitcnt_depctr has depctr_hold_cnt there.
        self.generation = generation
        self.depctr_hold_cnt = depctr_hold_cnt
        #: GFX10+ image instructions: a bracketed list as the address operand is a
        #: non-sequential address (``[v2, v5, v[6:7]]``), not a register tuple.
        self.nsa = nsa
        # Padded with copies of the end token so that look-ahead needs no bounds checks.
        self.tokens = tokens + [tokens[-1]] * 4
        self.last = len(tokens) - 1
        self.pos = 0
        self.arg_columns: list[int] = []
        #: gfx940 adds hardware registers (HW_REG_XCC_ID...).
        self.gfx940 = gfx940

    # -- token helpers --------------------------------------------------------------

    def peek(self, offset: int = 0) -> Token:
        return self.tokens[self.pos + offset]

    def next(self) -> Token:
        token = self.tokens[self.pos]
        if self.pos < self.last:
            self.pos += 1
        return token

    def at(self, text: str, offset: int = 0) -> bool:
        token = self.tokens[self.pos + offset]
        return token.text == text and token.kind in ("punct", "ident")

    def expect(self, text: str, message: str | None = None) -> Token:
        if not self.at(text):
            raise AsmSyntaxError(message or f"expected {text}", self.peek().column)
        return self.next()

    def expect_int(self) -> int:
        value = self.expression(allow_bar=True)
        if not isinstance(value, int):
            raise AsmSyntaxError("expected absolute expression", self.peek().column)
        return value

    # -- items ------------------------------------------------------------------------

    def read_all(self) -> list[Item]:
        items: list[Item] = []
        while self.peek().kind != "end":
            if self.at(","):
                comma = self.next()
                if not items or self.at(",") or self.peek().kind == "end":
                    raise AsmSyntaxError("unknown token in expression",
                                         self.peek().column if items else comma.column)
                continue
            if self.nsa and len(items) == 1 and self.at("["):
                items.extend(self.nsa_addresses())
                continue
            if self.at(":") and self.at(":", 1) \
                    and self.peek(1).column == self.peek().column + 1:
                items.extend(self.dual_separator())
                continue
            items.append(self.item())
        return items

    def item(self) -> Item:
        token = self.peek()
        if self.at("{"):
            return self.hwreg_fields()
        if token.kind == "ident":
            name = token.text
            lower = name.lower()
            if self.at(":", 1) and not self.at(":", 2):
                return self.named()
            if self.at("(", 1):
                if lower in _WAITCNT_COUNTERS:
                    return self.waitcnt()
                if lower in S.DEPCTR_COUNTERS:
                    return self.depctr()
                if lower in S.DELAY_ALU_FIELDS:
                    return self.delay_alu()
                special = self.symbolic(lower)
                if special is not None:
                    return special
                if lower in ("neg", "abs", "sext"):
                    return self.modifier_call(lower)
                if lower == "lit":
                    self.next()
                    self.next()
                    inner = self.source()
                    if inner.kind != "imm":
                        raise AsmSyntaxError("expected immediate with lit modifier",
                                             inner.column)
                    self.expect(")", "expected closing parentheses")
                    return inner
        return self.source()

    def nsa_addresses(self) -> list[Item]:
        """An image's address list ``[v2, v5, v[6:7]]`` (LLVM's ``OperandMode_NSA``): its
        registers between ``[`` and ``]`` words, or the one register of ``[v2]``."""
        open_column = self.next().column
        registers: list[Item] = []
        while True:
            if not self._register_ahead(0):
                raise AsmSyntaxError("expected a register", self.peek().column)
            registers.append(self.register())
            close_column = self.peek().column
            if self.at("]"):
                self.next()
                break
            self.expect(",", "expected a comma or a closing square bracket")
        if len(registers) == 1:
            return registers
        return [Item("word", open_column, "["), *registers, Item("word", close_column, "]")]

    def dual_separator(self) -> list[Item]:
        """``:: v_dual_...`` of a dual-issue instruction: the separator and the second
        mnemonic become two words (LLVM's ``parseVOPD``)."""
        column = self.next().column
        self.next()
        if self.peek().kind != "ident":
            raise AsmSyntaxError("expected a VOPDY instruction after ::", self.peek().column)
        mnemonic = self.next()
        return [Item("word", column, "::"), Item("word", mnemonic.column, mnemonic.text)]

    def named(self) -> Item:
        key = self.next()
        self.expect(":")
        lower = key.text.lower()
        if self.at("["):
            self.next()
            values: list[int | str] = []
            while not self.at("]"):
                if self.peek().kind == "ident":
                    values.append(self.next().text)
                else:
                    values.append(self.expect_int())
                if self.at(","):
                    self.next()
                    if self.at("]"):
                        raise AsmSyntaxError("unknown token in expression", self.peek().column)
                elif not self.at("]"):
                    raise AsmSyntaxError("expected a comma or a closing square bracket",
                                         self.peek().column)
            self.next()
            if all(isinstance(v, int) for v in values):
                return Item("named", key.column, lower,
                            arg=[v for v in values if isinstance(v, int)])
            return Item("named", key.column, lower, arg=",".join(str(v) for v in values))
        if self.peek().kind == "ident" and self.at("(", 1) \
                and self.peek().text == "swizzle":
            self.next()
            self.next()
            mode = self.next().text
            args: list[int | str] = []
            while self.at(","):
                self.next()
                if self.peek().kind == "string":
                    args.append(self.next().text.strip('"'))
                else:
                    args.append(self.expect_int())
            self.expect(")")
            try:
                return Item("named", key.column, lower, arg=S.swizzle(mode, args))
            except S.OperandSyntaxError as error:
                raise AsmSyntaxError(str(error), key.column) from None
        if self.peek().kind == "ident" and not self.at("(", 1):
            return Item("named", key.column, lower, arg=self.next().text)
        if lower == "dim" and self.peek().kind == "int" and self.peek(1).kind == "ident" \
                and self.peek(1).column == self.peek().column + len(self.peek().text):
            # dim:2D_ARRAY: the lexer splits the suffix into a number and a word.
            number = self.next()
            return Item("named", key.column, lower, arg=number.text + self.next().text)
        return Item("named", key.column, lower, arg=self.expect_int())

    def symbolic(self, lower: str) -> Item | None:
        column = self.peek().column
        try:
            if lower == "hwreg":
                self.next()
                self.next()
                args = self.call_args()
                reg = args[0]
                if isinstance(reg, int):
                    reg_id = reg
                else:
                    try:
                        reg_id = S.hwreg_id(reg, self.generation, self.gfx940)
                    except S.OperandSyntaxError as error:
                        where = column + 6 if "not supported" in str(error) else column
                        raise AsmSyntaxError(str(error), where) from None
                rest = [a for a in args[1:] if isinstance(a, int)]
                value = S.hwreg(reg_id, *rest)
            elif lower == "sendmsg":
                self.next()
                self.next()
                args = self.call_args()
                value = S.checked_sendmsg(args, self.generation)
            elif lower == "gpr_idx":
                self.next()
                self.next()
                value = 0
                if not self.at(")"):
                    for arg in self.call_args():
                        bit = S.GPR_IDX_BITS.get(str(arg), 0) if isinstance(arg, str) else 0
                        if not bit or value & bit:
                            raise AsmSyntaxError("invalid VGPR index mode", column)
                        value |= bit
                else:
                    self.next()
            else:
                return None
        except S.OperandSyntaxError as error:
            where = column
            if error.argument is not None and error.argument < len(self.arg_columns):
                where = self.arg_columns[error.argument]
            raise AsmSyntaxError(str(error), where) from None
        return Item("imm", column, lower, value=value, symbolic=True)

    def hwreg_fields(self) -> Item:
        """LLVM's structured ``{id: N, offset: N, size: N}`` spelling of a hwreg operand."""
        column = self.next().column
        fields: dict[str, int] = {}
        while not self.at("}"):
            name = self.next()
            if name.text not in ("id", "offset", "size"):
                raise AsmSyntaxError("unknown field", name.column)
            if name.text in fields:
                raise AsmSyntaxError("duplicate field", name.column)
            self.expect(":", "colon expected")
            fields[name.text] = self.expect_int()
            if self.at(","):
                self.next()
            elif not self.at("}"):
                raise AsmSyntaxError("comma or closing brace expected", self.peek().column)
        self.next()
        try:
            value = S.hwreg(fields.get("id", 0), fields.get("offset", 0), fields.get("size", 32))
        except S.OperandSyntaxError as error:
            raise AsmSyntaxError(str(error), column) from None
        return Item("imm", column, "hwreg", value=value, symbolic=True)

    def call_args(self) -> list[int | str]:
        """Arguments up to and including the closing parenthesis."""
        args: list[int | str] = []
        self.arg_columns: list[int] = []
        while True:
            self.arg_columns.append(self.peek().column)
            if self.peek().kind == "ident" and not self.at("(", 1):
                args.append(self.next().text)
            else:
                args.append(self.expect_int())
            if self.at(","):
                self.next()
                continue
            self.expect(")", "expected a closing parenthesis")
            return args

    def waitcnt(self) -> Item:
        column = self.peek().column
        value = S.waitcnt_all(self.generation)
        while self.peek().kind == "ident" and self.at("(", 1):
            counter = self.next()
            self.next()
            count = self.expect_int()
            self.expect(")", "expected a closing parenthesis")
            try:
                value = S.waitcnt_set(value, counter.text.lower(), count, self.generation)
            except S.OperandSyntaxError as error:
                raise AsmSyntaxError(str(error), counter.column) from None
            if self.at("&") or (self.at(",") and self.peek(1).kind == "ident"
                                and self.peek(1).text.lower() in _WAITCNT_COUNTERS):
                self.next()
                if not (self.peek().kind == "ident" and self.at("(", 1)):
                    raise AsmSyntaxError("expected a counter name", self.peek().column)
        return Item("imm", column, "waitcnt", value=value, symbolic=True)

    def depctr(self) -> Item:
        """``s_waitcnt_depctr``'s named counters, ``depctr_va_vdst(0) depctr_sa_sdst(0)``,
        separated by spaces, ``&`` or ``,`` (LLVM's ``parseDepCtr``)."""
        column = self.peek().column
        value = S.depctr_default(self.depctr_hold_cnt)
        used: set[str] = set()
        while self.peek().kind == "ident" and self.at("(", 1):
            counter = self.next()
            self.next()
            count = self.expect_int()
            try:
                value = S.depctr_set(value, used, counter.text, count, self.depctr_hold_cnt)
            except S.OperandSyntaxError as error:
                raise AsmSyntaxError(str(error), counter.column) from None
            self.expect(")", "expected a closing parenthesis")
            if self.at("&") or self.at(","):
                self.next()
                if self.peek().kind == "end":
                    raise AsmSyntaxError("expected a counter name", self.peek().column)
        return Item("imm", column, "depctr", value=value, symbolic=True)

    def delay_alu(self) -> Item:
        """``s_delay_alu``'s ``instid0(VALU_DEP_1) | instskip(NEXT) | instid1(...)``
        (LLVM's ``parseSDelayALU``)."""
        column = self.peek().column
        value = 0
        while True:
            field = self.next()
            self.expect("(", "expected a left parenthesis")
            name = self.peek()
            if name.kind != "ident":
                raise AsmSyntaxError("expected a value name", name.column)
            self.next()
            self.expect(")", "expected a right parenthesis")
            try:
                value = S.delay_alu_set(value, field.text, name.text)
            except S.OperandSyntaxError as error:
                where = field.column if "field" in str(error) else name.column
                raise AsmSyntaxError(str(error), where) from None
            if not self.at("|"):
                break
            self.next()
            if self.peek().kind != "ident":
                raise AsmSyntaxError("expected a field name", self.peek().column)
        return Item("imm", column, "delay_alu", value=value, symbolic=True)

    def modifier_call(self, name: str) -> Item:
        self.next()
        self.next()
        inner = self.item()
        self.expect(")", "expected closing parentheses")
        if name == "abs" and inner.neg:
            raise AsmSyntaxError("failed parsing operand.", inner.column)
        if name == "neg":
            inner.neg = True
        elif name == "abs":
            inner.abs = True
        else:
            inner.sext = True
        return inner

    def source(self) -> Item:
        """A register or an immediate, with ``-`` and ``|..|`` modifiers."""
        token = self.peek()
        if self.at("-") and (self.at("|", 1) or self._register_ahead(1)
                             or (self.peek(1).kind == "ident" and self.at("(", 2)
                                 and self.peek(1).text in ("abs", "neg", "sext"))):
            self.next()
            inner = self.item() if not self.at("|") else self.source()
            if inner.neg:
                raise AsmSyntaxError("invalid syntax, expected 'neg' modifier", token.column)
            inner.neg = True
            inner.column = token.column
            return inner
        if self.at("|"):
            self.next()
            inner = self._source_without_bar()
            self.expect("|", "expected vertical bar")
            inner.abs = True
            inner.column = token.column
            return inner
        if self._register_ahead(0):
            return self.register()
        if self.at("-") and self.peek(1).kind == "ident" and self.peek(1).text == "scc" \
                and not (self.peek(2).kind == "punct" and self.peek(2).text in _BINARY_PRECEDENCE):
            self.next()
            word = self.next()
            return Item("word", token.column, word.text, neg=True)
        if token.kind == "ident" and token.text in S.CONSTANT_SYMBOLS:
            return _immediate_item(token, self.expression(allow_bar=True))
        if token.kind == "ident" and not (
                self.peek(1).kind == "punct" and self.peek(1).text in _BINARY_PRECEDENCE):
            self.next()
            lower = token.text
            return Item("word", token.column, lower)
        return _immediate_item(token, self.expression(allow_bar=True))

    def _source_without_bar(self) -> Item:
        token = self.peek()
        if self._register_ahead(0):
            return self.register()
        if self.at("-") and self._register_ahead(1):
            self.next()
            inner = self._source_without_bar()
            inner.neg = True
            return inner
        return _immediate_item(token, self.unary(allow_bar=False))

    def _register_ahead(self, offset: int) -> bool:
        if self.pos + offset >= len(self.tokens):
            return False
        token = self.peek(offset)
        if token.kind == "punct" and token.text == "[":
            return self._register_ahead(offset + 1)
        if token.kind != "ident":
            return False
        text = token.text
        if text in SPECIAL_REGISTERS or _REGISTER.match(text):
            return True
        return text in _REGISTER_PREFIX and self.at("[", offset + 1)

    def register(self) -> Item:
        token = self.peek()
        column = token.column
        if token.text == "[":
            self.next()
            parts: list[Item] = []
            while True:
                if not self._register_ahead(0):
                    raise AsmSyntaxError("expected a register", self.peek().column)
                parts.append(self.register())
                if self.at(","):
                    self.next()
                    continue
                self.expect("]", "expected a comma or a closing square bracket")
                break
            return Item("reg", column, _join_register_list([p.text for p in parts], column))
        self.next()
        text = token.text
        special = SPECIAL_REGISTERS.get(text)
        if special is not None:
            return Item("reg", column, special)
        match = _REGISTER.match(text)
        if match is not None:
            name = register_name(match.group(1), int(match.group(2)), 1, column, self.sgprs)
            half = match.group(3)
            if half is not None:
                if match.group(1) != "v":  # only VGPRs have 16-bit halves
                    raise AsmSyntaxError("invalid operand for instruction", column)
                name += half
            return Item("reg", column, name)
        self.expect("[")
        first = self.expect_int()
        last = first
        if self.at(":"):
            self.next()
            last = self.expect_int()
        self.expect("]", "expected a closing square bracket")
        if last < first:
            raise AsmSyntaxError("first register index should not exceed second index",
                                 column)
        return Item("reg", column, register_name(text, first, last - first + 1, column,
                                                 self.sgprs))

    # -- expressions ------------------------------------------------------------------

    def expression(self, allow_bar: bool, min_precedence: int = 0) -> int | float | SymExpr:
        left = self.unary(allow_bar)
        while True:
            token = self.peek()
            precedence = _BINARY_PRECEDENCE.get(token.text) if token.kind == "punct" else None
            if precedence is None or precedence <= min_precedence \
                    or (token.text == "|" and not allow_bar):
                return left
            self.next()
            right = self.expression(allow_bar, precedence)
            if isinstance(left, float) or isinstance(right, float):
                raise AsmSyntaxError("invalid operand for instruction", token.column)
            if isinstance(left, SymExpr) or isinstance(right, SymExpr):
                left = BinaryExpr(token.text, lift(left), lift(right))
            else:
                left = _binary(token, left, right)

    def unary(self, allow_bar: bool) -> int | float | SymExpr:
        token = self.next()
        if token.kind == "int":
            return int(token.value)
        if token.kind == "ident" and token.text in S.CONSTANT_SYMBOLS:
            return S.CONSTANT_SYMBOLS[token.text]
        if token.kind == "ident" and not _REGISTER.match(token.text) \
                and token.text not in SPECIAL_REGISTERS:
            return SymbolRefExpr.from_identifier(token.text)
        if token.kind == "real":
            return float(token.value)
        if token.kind == "punct":
            if token.text in ("-", "+", "~", "!"):
                operand = self.unary(allow_bar)
                if isinstance(operand, SymExpr):
                    return UnaryExpr(token.text, operand)
                if token.text == "-":
                    return -operand
                if token.text == "+":
                    return operand
                value = operand
                if isinstance(value, float):
                    raise AsmSyntaxError("invalid operand for instruction", token.column)
                return ~value if token.text == "~" else int(not value)
            if token.text == "(":
                value = self.expression(True)
                self.expect(")", "expected ')'")
                return value
        raise AsmSyntaxError("not a valid operand.", token.column)



def parse_symbolic_expression(text: str) -> SymExpr:
    """The typed form of a symbolic operand written in LLVM's syntax (``sym@rel32@lo+4``),
    read with the grammar of instruction operands; raises :class:`AsmSyntaxError` for text
    that is not one expression naming a symbol."""
    reader = OperandReader(tokenize(text))
    value = reader.expression(allow_bar=True)
    if reader.peek().kind != "end":
        raise AsmSyntaxError("unexpected token", reader.peek().column)
    if not isinstance(value, SymExpr):
        raise AsmSyntaxError("expected an expression that names a symbol", 0)
    return value

_SPECIAL_PAIRS = {("exec_lo", "exec_hi"): "exec", ("vcc_lo", "vcc_hi"): "vcc",
                  ("flat_scratch_lo", "flat_scratch_hi"): "flat_scratch",
                  ("xnack_mask_lo", "xnack_mask_hi"): "xnack_mask",
                  ("tba_lo", "tba_hi"): "tba", ("tma_lo", "tma_hi"): "tma"}
_SINGLE = re.compile(r"^(v|s|a|ttmp)(\d+)$")


def _join_register_list(names: list[str], column: int) -> str:
    """``[s0,s1]`` -> ``s[0:1]``; ``[exec_lo,exec_hi]`` -> ``exec``."""
    pair = _SPECIAL_PAIRS.get((names[0], names[-1])) if len(names) == 2 else None
    if pair is not None:
        return pair
    singles = [_SINGLE.match(name) for name in names]
    if any(m is None for m in singles):
        raise AsmSyntaxError("registers in a list must be 32-bit registers", column)
    prefix = singles[0].group(1) if singles[0] else ""
    first = int(singles[0].group(2)) if singles[0] else 0
    for i, match in enumerate(singles):
        if match is None or match.group(1) != prefix or int(match.group(2)) != first + i:
            raise AsmSyntaxError("registers in a list must have consecutive indices", column)
    return register_name(prefix, first, len(names), column)


def _immediate_item(token: Token, value: int | float | SymExpr) -> Item:
    if isinstance(value, int) and (1 << 63) <= value < (1 << 64):
        value -= 1 << 64  # expressions are 64-bit, as in llvm-mc
    if isinstance(value, float):
        return Item("imm", token.column, token.text, real=value)
    if isinstance(value, SymExpr):
        return Item("imm", token.column, token.text, expr=value)
    return Item("imm", token.column, token.text, value=value)


def _binary(token: Token, left: int, right: int) -> int:
    op = token.text
    if op in ("/", "%") and right == 0:
        raise AsmSyntaxError("division by zero", token.column)
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        quotient = abs(left) // abs(right)
        return quotient if (left >= 0) == (right >= 0) else -quotient
    if op == "%":
        return left - right * _binary(Token("punct", "/", 0), left, right)
    if op == "<<":
        return (left << (right & 63)) & 0xFFFFFFFFFFFFFFFF
    if op == ">>":
        return left >> (right & 63)
    if op == "&":
        return left & right
    if op == "^":
        return left ^ right
    return left | right
