"""Table-driven AMDGPU instruction encoder: :class:`MCInst` -> bytes.

The inverse of :mod:`luthier.amdgpu_dialects.mc.decoder`: an instruction's fixed bits, then every
operand's value scattered into its encoding fields. The output is canonical in LLVM's sense
(what ``llvm-mc -show-encoding`` prints, including in disassembly mode, where llvm-mc
re-encodes what it decoded): an immediate is an inline constant whenever its operand type
allows one, otherwise the 255 marker plus one trailing literal dword; bits its record leaves
undefined are written as LLVM writes them, unless a decoded instruction says they differed
(``MCInst.unmodelled``). To re-emit the exact bytes an instruction was decoded from, use
``MCInst.encoding`` instead.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable

from luthier.amdgpu_dialects.isa import inline_constants as INLINE
from luthier.amdgpu_dialects.isa import registers as R
from luthier.amdgpu_dialects.isa.target import InstrDef, OperandKind, TargetISA, load_target
from luthier.amdgpu_dialects.mc.decoder import MCInst, nsa_address_slots
from luthier.amdgpu_dialects.mc.implicit_bits import implicit_bits
from luthier.amdgpu_dialects.mc.operand_decoders import Literal, Operand


class EncodeError(Exception):
    """The instruction's operands cannot be encoded (wrong kind of value, bad register)."""


def _special_encoding(generation: int) -> dict[str, int]:
    return {
        **{name: value for value, name in R.special_registers(generation, False).items()},
        **{name: value for value, name in R.special_registers(generation, True).items()},
    }


_SPECIAL_BY_GENERATION = {generation: _special_encoding(generation)
                          for generation in (9, 10, 11, 12)}


#: Codes of the registers met so far, by (name, generation): code names a few hundred
#: registers, and the encoder asks for one per register operand.
_REGISTER_CODES: dict[tuple[str, int], int] = {}


def register_encoding(name: str, generation: int = 9) -> int:
    """LLVM's hardware encoding of a register (first register of a tuple) on an ISA
    generation (GFX11 swapped the codes of ``m0`` and ``null``).

    VGPRs and AGPRs are 256 + index in the source operand space; AGPRs also set bit 9 (the
    ``acc`` bit of the operands that can name either file).
    """
    code = _REGISTER_CODES.get((name, generation))
    if code is None:
        code = _REGISTER_CODES[(name, generation)] = _register_code(name, generation)
    return code


def _register_code(name: str, generation: int) -> int:
    special = _SPECIAL_BY_GENERATION[generation].get(name)
    if special is not None:
        return special
    if name.startswith("v") and name.endswith((".l", ".h")) and name[1:-2].isdigit():
        # A 16-bit VGPR half (v0..v127): the high half sets bit 7 of the register field.
        return R.VGPR_MIN + int(name[1:-2]) + (128 if name.endswith(".h") else 0)
    if name.startswith("ttmp"):
        prefix, rest = "ttmp", name[4:]
    else:
        prefix, rest = name[:1], name[1:]
    if rest.startswith("["):
        rest = rest[1:].split(":", 1)[0].rstrip("]")
    if not rest.isdigit() or prefix not in ("s", "v", "a", "ttmp"):
        raise EncodeError(f"cannot encode register '{name}'")
    index = int(rest)
    if prefix == "s":
        return index
    if prefix == "ttmp":
        return R.TTMP_MIN + index
    if prefix == "v":
        return R.VGPR_MIN + index
    return R.VGPR_MIN + R.AGPR_BIT + index


# -- inline constants --------------------------------------------------------------------

_FP32_INLINE = INLINE.inverse(INLINE.FP32)
_FP64_INLINE = INLINE.inverse(INLINE.FP64)
_FP16_INLINE = INLINE.inverse(INLINE.FP16)
_BF16_INLINE = INLINE.inverse(INLINE.BF16)


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _int_inline(value: int) -> int | None:
    if 0 <= value <= 64:
        return R.INLINE_INT_MIN + value
    if -16 <= value <= -1:
        return R.INLINE_INT_POSITIVE_MAX - value
    return None


def _lit32(value: int) -> int:
    return _int_inline(_signed(value, 32)) or _FP32_INLINE.get(value & 0xFFFFFFFF, R.LITERAL)


def _lit64(value: int) -> int:
    return _int_inline(_signed(value, 64)) or _FP64_INLINE.get(
        value & 0xFFFFFFFFFFFFFFFF, R.LITERAL)


def _lit16(value: int) -> int:
    return _int_inline(_signed(value, 16)) or _FP16_INLINE.get(value & 0xFFFF, R.LITERAL)


def _lit_bf16(value: int) -> int:
    return _int_inline(_signed(value, 16)) or _BF16_INLINE.get(value & 0xFFFF, R.LITERAL)


def _v216(value: int, fp_table: dict[int, int]) -> int:
    """Packed 16-bit operands: integer constants are sign-extended 32-bit values; float
    constants are those of ``fp_table`` as the whole 32-bit value (LLVM's
    ``getInlineEncodingV216``)."""
    inline = _int_inline(_signed(value, 32))
    if inline is not None:
        return inline
    return fp_table.get(value & 0xFFFFFFFF, R.LITERAL)


def _v2i16(value: int) -> int:
    return _v216(value, _FP32_INLINE)


def _v2f16(value: int) -> int:
    return _v216(value, _FP16_INLINE)


def _v2bf16(value: int) -> int:
    return _v216(value, _BF16_INLINE)


_LIT_BY_TYPE: dict[str, Callable[[int], int]] = {}
for _t in ("IMM_INT32", "IMM_FP32", "IMM_FP32_DEFERRED", "INLINE_C_INT32", "INLINE_C_FP32",
           "INLINE_AC_INT32", "INLINE_AC_FP32", "IMM_V2INT32", "IMM_V2FP32",
           "INLINE_C_V2INT32", "INLINE_C_V2FP32", "IMM_INT16", "INLINE_C_INT16",
           "INLINE_AC_INT16"):
    _LIT_BY_TYPE["OPERAND_REG_" + _t] = _lit32
_LIT_BY_TYPE["OPERAND_INLINE_SPLIT_BARRIER_INT32"] = _lit32
for _t in ("IMM_INT64", "IMM_FP64", "INLINE_C_INT64", "INLINE_C_FP64", "INLINE_AC_FP64"):
    _LIT_BY_TYPE["OPERAND_REG_" + _t] = _lit64
for _t in ("IMM_FP16", "IMM_FP16_DEFERRED", "INLINE_C_FP16", "INLINE_AC_FP16"):
    _LIT_BY_TYPE["OPERAND_REG_" + _t] = _lit16
for _t in ("IMM_BF16", "IMM_BF16_DEFERRED", "INLINE_C_BF16", "INLINE_AC_BF16"):
    _LIT_BY_TYPE["OPERAND_REG_" + _t] = _lit_bf16
for _t in ("IMM_V2INT16", "INLINE_C_V2INT16", "INLINE_AC_V2INT16"):
    _LIT_BY_TYPE["OPERAND_REG_" + _t] = _v2i16
for _t in ("IMM_V2FP16", "INLINE_C_V2FP16", "INLINE_AC_V2FP16"):
    _LIT_BY_TYPE["OPERAND_REG_" + _t] = _v2f16
for _t in ("IMM_V2BF16", "INLINE_C_V2BF16", "INLINE_AC_V2BF16"):
    _LIT_BY_TYPE["OPERAND_REG_" + _t] = _v2bf16


def literal_encoding(value: int, operand_type: str) -> int | None:
    """The source-field value for immediate ``value`` of ``operand_type``: an inline
    constant's code, 255 for a literal, or None when the type takes no source immediates."""
    lit = _LIT_BY_TYPE.get(operand_type)
    return None if lit is None else lit(value)


def literal_dword(value: int, operand_type: str) -> int:
    """The trailing literal dword that holds ``value`` for an operand of ``operand_type``:
    the high half of a 64-bit floating-point value, the low 32 bits of anything else."""
    if operand_type.endswith("FP64"):
        return (value >> 32) & 0xFFFFFFFF
    return value & 0xFFFFFFFF


def is_inline_constant(value: int, operand_type: str) -> bool:
    encoding = literal_encoding(value, operand_type)
    return encoding is not None and encoding != R.LITERAL


# -- per-operand encoders -----------------------------------------------------------------

#: Raw field value and, for a literal, the literal dword.
OperandEncoder = Callable[[Operand], tuple[int, int | None]]


def _plain_immediate(value: Operand) -> tuple[int, int | None]:
    if isinstance(value, str):
        raise EncodeError(f"register '{value}' where an immediate is expected")
    return (value or 0), None


class OperandEncoders:
    """Builds the encoder for each operand kind of a target (keyed by decoder method)."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self._cache: dict[str, OperandEncoder] = {}

    def for_kind(self, kind: OperandKind) -> OperandEncoder:
        cached = self._cache.get(kind.name)
        if cached is None:
            cached = self._build(kind)
            self._cache[kind.name] = cached
        return cached

    def _build(self, kind: OperandKind) -> OperandEncoder:
        method = kind.decoder_method
        if method == "decodeSDWASrc16" or method == "decodeSDWASrc32":
            return self._sdwa_src(kind)
        if method == "decodeSDWAVopcDst":
            generation = self.isa.generation
            return lambda value: _sdwa_vopc_dst(value, generation)
        if method == "decodeOperand_KImmFP":
            return _plain_immediate
        lit = _LIT_BY_TYPE.get(kind.operand_type)
        if lit is None and not kind.is_register:
            return _plain_immediate
        generation = self.isa.generation

        def encode(value: Operand) -> tuple[int, int | None]:
            if isinstance(value, str):
                return register_encoding(value, generation), None
            if value is None:
                return 0, None
            if lit is None:
                raise EncodeError(f"immediate {value} where a register is expected")
            code = lit(value)
            if code != R.LITERAL:
                return code, None
            return code, literal_dword(value, kind.operand_type)

        return encode

    def _sdwa_src(self, kind: OperandKind) -> OperandEncoder:
        """SDWA sources: VGPR index, or 256 + the source-space code of anything else."""
        lit = _LIT_BY_TYPE.get(kind.operand_type, _lit32)
        generation = self.isa.generation

        def encode(value: Operand) -> tuple[int, int | None]:
            if isinstance(value, str):
                code = register_encoding(value, generation)
                return (code - R.VGPR_MIN if code & R.VGPR_MIN else code | R.VGPR_MIN), None
            if value is None:
                return 0, None
            code = lit(value)
            if code == R.LITERAL:
                raise EncodeError("SDWA operands cannot be literals")
            return code | R.VGPR_MIN, None

        return encode


def _sdwa_vopc_dst(value: Operand, generation: int) -> tuple[int, int | None]:
    if value in ("vcc", "vcc_lo") or value is None:
        return 0, None
    if not isinstance(value, str):
        raise EncodeError("SDWA compare destination must be a register")
    return 0x80 | register_encoding(value, generation), None


# -- the encoder --------------------------------------------------------------------------

_Fields = tuple[tuple[int, int, int], ...]
_Plan = tuple[tuple[int, _Fields, OperandEncoder, int], ...]

#: How a source operand spells a value as a trailing literal: not at all, as the low 32
#: bits, or as the high 32 bits (64-bit floating-point operands).
_NO_LITERAL, _LITERAL_LOW, _LITERAL_HIGH = 0, 1, 2


def _literal_form(kind: OperandKind) -> int:
    """Whether (and how) a :class:`Literal` value of ``kind`` can be kept a literal."""
    method = kind.decoder_method
    if not kind.is_register or method.startswith("decodeSDWA") \
            or method == "decodeOperand_KImmFP" or kind.operand_type not in _LIT_BY_TYPE:
        return _NO_LITERAL
    return _LITERAL_HIGH if kind.operand_type.endswith("FP64") else _LITERAL_LOW


class Encoder:
    """Encodes :class:`MCInst` values of one target."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.operand_encoders = OperandEncoders(isa)
        self._plans: dict[str, tuple[_Plan, int]] = {}
        #: GFX10+ VOP3 encodings carry a trailing literal too (FeatureVOP3Literal).
        self.vop3_literal = isa.has_feature("FeatureVOP3Literal")
        self.generation = isa.generation

    def _plan(self, inst: InstrDef) -> tuple[_Plan, int]:
        cached = self._plans.get(inst.name)
        if cached is not None:
            return cached
        steps: list[tuple[int, _Fields, OperandEncoder, int]] = []
        for index, slot in enumerate(inst.operands):
            if slot.fields:
                steps.append((index, slot.fields,
                              self.operand_encoders.for_kind(slot.kind),
                              _literal_form(slot.kind)))
        cached = (tuple(steps), implicit_bits(inst, self.generation))
        self._plans[inst.name] = cached
        return cached

    def encode(self, inst: MCInst, *, keep_literals: bool = False) -> bytes:
        """The canonical bytes of ``inst``; raises :class:`EncodeError`.

        With ``keep_literals``, a source operand whose value is a :class:`Literal` (it was
        decoded from a trailing literal dword) is encoded as a literal again even where LLVM
        would use an inline constant: the lifter's exact re-encoding of compiled code.
        """
        desc = inst.desc
        plan, implicit = self._plan(desc)
        word = desc.value | implicit
        literal: int | None = None
        for index, fields, encode, literal_form in plan:
            value = inst.operands[index]
            if keep_literals and literal_form and isinstance(value, Literal):
                raw = R.LITERAL
                lit = (value >> 32 if literal_form == _LITERAL_HIGH else value) & 0xFFFFFFFF
            else:
                raw, lit = encode(value)
            if lit is not None and literal is None:
                literal = lit
            for inst_lo, var_lo, width in fields:
                word |= ((raw >> var_lo) & ((1 << width) - 1)) << inst_lo
        # Bits the record leaves undefined keep the values of the word decoded (none
        # otherwise): only they tell some words apart, so a lifted word re-encodes exactly.
        data = (word ^ inst.unmodelled).to_bytes(desc.size, "little")
        # GFX9 has no VOP3 literals: only 32-bit encodings carry one, and not those whose
        # constant is a mandatory K operand encoded in place.
        if literal is not None and (desc.size == 4 or self.vop3_literal) \
                and not desc.has("imm"):
            data += struct.pack("<I", literal)
        nsa = nsa_address_slots(desc)
        if nsa:
            extra = bytes(register_encoding(str(inst.operands[i])) - R.VGPR_MIN
                          for i, _ in nsa)
            data += extra + bytes(-len(extra) % 4)
        return data


def encoder_for(target: str, wavefront_size: int | None = None) -> Encoder:
    """The (cached) encoder of a processor, in its default wave size or
    ``wavefront_size`` (64 for an RDNA processor in wave64); raises ``UnknownTargetError``."""
    return _cached_encoder(target, wavefront_size)


@functools.cache
def _cached_encoder(target: str, wavefront_size: int | None) -> Encoder:
    return Encoder(load_target(target, wavefront_size))
