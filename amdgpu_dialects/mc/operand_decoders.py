"""Operand decoders: raw encoding fields -> register names and immediate values.

Each TableGen operand kind names a decoder method (``decodeSrcRegOrImm9<OPW64, 64, 4>``,
``decodeAVLdSt<OPW128>``...). We parse that name once into a small closure, so decoding an
operand at run time is one call on a plain integer.

A decoded operand is a ``str`` (a register, spelled as LLVM prints it), an ``int`` (an
immediate; :class:`Literal` when it came from a trailing literal dword), or ``None`` when the
instruction does not encode it.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

from luthier.amdgpu_dialects.isa import inline_constants as INLINE
from luthier.amdgpu_dialects.isa import registers as R
from luthier.amdgpu_dialects.isa.registers import RegisterNamer
from luthier.amdgpu_dialects.isa.target import OperandKind, TargetISA

Operand = str | int | None


class Literal(int):
    """An immediate that was encoded as a trailing 32-bit literal, not as an inline constant.

    It behaves as its value everywhere; the encoder uses the type to re-encode exactly.
    """

    __slots__ = ()


class OperandDecodeError(Exception):
    """The field value is not a valid operand of its kind (LLVM rejects the word)."""


@dataclass(slots=True)
class DecodeState:
    """Per-instruction state shared by the operand decoders: the pending literal."""

    data: bytes
    literal_offset: int
    #: One past the last byte the instruction may occupy (the target's maximum length).
    limit: int
    literal: int | None = None
    operands: list[Operand] | None = None

    def read_literal(self) -> int:
        if self.literal is None:
            end = self.literal_offset + 4
            if end > self.limit:
                raise OperandDecodeError("cannot read literal")
            self.literal = struct.unpack_from("<I", self.data, self.literal_offset)[0]
        return self.literal


OperandDecoder = Callable[[int, DecodeState], Operand]

_OPW_DWORDS = {
    "OPW32": 1, "OPW64": 2, "OPW96": 3, "OPW128": 4, "OPW160": 5, "OPW256": 8, "OPW288": 9,
    "OPW320": 10, "OPW352": 11, "OPW384": 12, "OPW512": 16, "OPW1024": 32, "OPW16": 1,
    "OPWV216": 1, "OPWV232": 2,
}
_OPW_IS_64 = {"OPW64", "OPWV232"}

_FP32_INLINE = INLINE.FP32
_FP64_INLINE = INLINE.FP64
_FP16_INLINE = INLINE.FP16
_BF16_INLINE = INLINE.BF16

# OperandSemantics values in the decoder method templates.
_SEMA_FP16 = 1
_SEMA_BF16 = 2
_SEMA_FP64 = 4

_TEMPLATE = re.compile(r"^(\w+)<(.*)>$")


class OperandDecoders:
    """Builds the decoder for each operand kind of a target."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.names = RegisterNamer(isa)
        self._cache: dict[str, OperandDecoder] = {}

    def for_kind(self, kind: OperandKind) -> OperandDecoder:
        cached = self._cache.get(kind.name)
        if cached is None:
            cached = self._build(kind)
            self._cache[kind.name] = cached
        return cached

    # -- building -----------------------------------------------------------------------

    def _build(self, kind: OperandKind) -> OperandDecoder:
        method = kind.decoder_method
        if not method:
            return self._default(kind)
        match = _TEMPLATE.match(method)
        if match is None:
            return self._named(method, kind)
        name, args = match.group(1), [a.strip() for a in match.group(2).split(",")]
        opw = args[0].split("::")[-1]
        dwords = _OPW_DWORDS[opw]
        is64 = opw in _OPW_IS_64
        imm_width = int(args[1]) if len(args) > 1 else 0
        sema = int(args[2]) if len(args) > 2 else 0
        if name == "decodeSrcRegOrImm9":
            return self.src_op(dwords, is64, imm_width, sema)
        if name == "decodeSrcRegOrImmA9":
            return self.src_op(dwords, is64, imm_width, sema, or_bits=R.AGPR_BIT)
        if name == "decodeSrcRegOrImmDeferred9":
            return self.src_op(dwords, is64, imm_width, sema, mandatory_literal=True)
        if name in ("decodeSrcReg9", "decodeSrcAV10"):
            return self.src_op(dwords, is64, 0, 0)
        if name == "decodeSrcA9":
            return self.src_op(dwords, is64, 0, 0, or_bits=R.AGPR_BIT)
        if name == "decodeAV10":
            return self.src_op(dwords, is64, 0, 0, or_bits=R.VGPR_MIN)
        if name == "decodeAVLdSt":
            return self._av_ld_st(dwords, is64)
        raise NotImplementedError(f"decoder method {method}")

    def _default(self, kind: OperandKind) -> OperandDecoder:
        rc = kind.register_class
        if rc is None:
            return _raw_immediate
        dwords = max(1, rc.width // 32)
        if rc.files in ("v", "a"):
            prefix = rc.files
            # A class smaller than its field (VGPR_32_Lo128 of the 16-bit "fake True16"
            # instructions: v0..v127 in an 8-bit field) rejects what it does not hold.
            members = rc.members if dwords == 1 else None

            def vector(raw: int, state: DecodeState) -> Operand:
                name = self.names.vector(prefix, raw, dwords)
                if name is None or (members is not None and name not in members):
                    raise OperandDecodeError(f"{rc.name}: unknown register {raw}")
                return name

            return vector
        return self.src_op(dwords, rc.width == 64, 0, 0)

    def _named(self, method: str, kind: OperandKind) -> OperandDecoder:
        wave64 = self.isa.wavefront_size == 64
        if method == "decodeOperand_VSrc_f64":
            return self.src_op(2, True, 64, _SEMA_FP64)
        if method == "decodeSDWASrc16":
            return self._sdwa_src(16, _SEMA_FP16)
        if method == "decodeSDWASrc32":
            return self._sdwa_src(32, 0)
        if method == "decodeSDWAVopcDst":
            return self._sdwa_vopc_dst(wave64)
        if method == "decodeBoolReg":
            return self.src_op(2 if wave64 else 1, wave64, 0, 0)
        if method == "decodeSMEMOffset":
            return _smem_offset_gfx12 if self.isa.generation >= 12 else _smem_offset
        if method == "decodeSOPPBrTarget":
            return _sopp_br_target
        if method == "decodeOperand_KImmFP":
            return _kimm
        if method == "decodeDpp8FI":
            return _dpp8_fi
        if method == "decodeVersionImm":
            return _raw_immediate
        if method == "decodeSplitBarrier":
            return self.src_op(1, False, 32, 0)
        if method == "DecodeVGPR_32RegisterClass":
            return self._vgpr32
        if method == "DecodeVGPR_16_Lo128RegisterClass":
            return _vgpr16_lo128
        if method in ("decodeOperand_VSrcT16_Lo128", "decodeOperand_VSrcT16_Lo128_Deferred"):
            # A 9-bit source of a real-true16 encoding: a VGPR half as below, or what a
            # 16-bit source is (the deferred form's literal is the K operand's).
            non_vgpr = self.src_op(1, False, 16, _SEMA_FP16 if "FP16" in kind.operand_type
                                   else 0, mandatory_literal=method.endswith("Deferred"))

            def t16_source(raw: int, state: DecodeState) -> Operand:
                if raw & 256:
                    return _vgpr16_lo128(raw & 255, state)
                return non_vgpr(raw & 255, state)

            return t16_source
        if method == "decodeOperandVOPDDstY":
            return self._vopd_dst_y()
        raise NotImplementedError(f"decoder method {method}")

    def _vgpr32(self, raw: int, state: DecodeState) -> Operand:
        """Any of the 256 VGPRs, whatever narrower class the operand has (LLVM decodes
        such operands with the VGPR_32 decoder and prints the class mismatch)."""
        name = self.names.vector("v", raw, 1)
        if name is None:
            raise OperandDecodeError(f"unknown register {raw}")
        return name

    def _vopd_dst_y(self) -> OperandDecoder:
        """VOPD's second destination: bit 0 is not encoded, it is the opposite of vdstX's."""
        names = self.names

        def decode(raw: int, state: DecodeState) -> Operand:
            operands = state.operands or []
            vdst_x = operands[0] if operands else None
            x_index = int(vdst_x[1:]) if isinstance(vdst_x, str) and vdst_x[1:].isdigit() else 0
            name = names.vector("v", raw | (~x_index & 1), 1)
            if name is None:
                raise OperandDecodeError(f"unknown register {raw}")
            return name

        return decode

    # -- the source operand space ---------------------------------------------------

    def src_op(
        self,
        dwords: int,
        is64: bool,
        imm_width: int,
        sema: int,
        *,
        or_bits: int = 0,
        mandatory_literal: bool = False,
    ) -> OperandDecoder:
        """Decode the 9/10-bit source operand space, as LLVM's ``decodeSrcOp`` does."""
        names = self.names
        fp_inline = _fp_inline_table(imm_width, sema)
        extend_fp64 = sema == _SEMA_FP64
        # Wider-than-64-bit operands never name special registers in valid code; LLVM's
        # release builds fall through to the 64-bit names there, so we do too.
        generation = self.isa.generation
        special = R.special_registers(generation, is64 or dwords > 2)
        sgpr_max = R.sgpr_max(generation)

        def decode(raw: int, state: DecodeState) -> Operand:
            value = raw | or_bits
            if value & 256:
                prefix = "a" if value & R.AGPR_BIT else "v"
                name = names.vector(prefix, value & 255, dwords)
                if name is None:
                    raise OperandDecodeError(f"unknown register {value & 255}")
                return name
            value &= 255
            if value <= sgpr_max:
                name = names.scalar("s", value, dwords)
            elif R.TTMP_MIN <= value <= R.TTMP_MAX:
                name = names.scalar("ttmp", value - R.TTMP_MIN, dwords)
            elif R.INLINE_INT_MIN <= value <= R.INLINE_INT_MAX:
                return _inline_integer(value)
            elif R.INLINE_FP_MIN <= value <= R.INLINE_FP_MAX:
                return fp_inline[value]
            elif value == R.LITERAL:
                if mandatory_literal:
                    return Literal(R.LITERAL)
                literal = state.read_literal()
                return Literal(literal << 32 if extend_fp64 else literal)
            else:
                name = special.get(value)
            if name is None:
                raise OperandDecodeError(f"unknown operand encoding {value}")
            return name

        return decode

    def _av_ld_st(self, dwords: int, is64: bool) -> OperandDecoder:
        """Memory data operands: on gfx90a the ``acc`` bit (field bit 9) selects AGPRs."""
        inner = self.src_op(dwords, is64, 0, 0)
        gfx90a = self.isa.is_gfx90a

        def decode(raw: int, state: DecodeState) -> Operand:
            if not gfx90a:
                raw &= 511
            return inner(raw | 256, state)

        return decode

    def _sdwa_src(self, imm_width: int, sema: int) -> OperandDecoder:
        """SDWA sources on GFX9: bit 8 selects SGPR/constant space instead of VGPRs."""
        names = self.names
        fp_inline = _fp_inline_table(imm_width, sema)
        special = R.special_registers(self.isa.generation, False)
        sgpr_max = R.sgpr_max(self.isa.generation)

        def decode(raw: int, state: DecodeState) -> Operand:
            if raw <= 255:
                return names.vector("v", raw, 1)
            if raw <= 256 + sgpr_max:
                name = names.scalar("s", raw - 256, 1)
            elif 256 + R.TTMP_MIN <= raw <= 256 + R.TTMP_MAX:
                name = names.scalar("ttmp", raw - 256 - R.TTMP_MIN, 1)
            else:
                value = raw - 256
                if R.INLINE_INT_MIN <= value <= R.INLINE_INT_MAX:
                    return _inline_integer(value)
                if R.INLINE_FP_MIN <= value <= R.INLINE_FP_MAX:
                    return fp_inline[value]
                name = special.get(value)
            if name is None:
                raise OperandDecodeError(f"unknown operand encoding {raw - 256}")
            return name

        return decode

    def _sdwa_vopc_dst(self, wave64: bool) -> OperandDecoder:
        names = self.names
        dwords = 2 if wave64 else 1
        special = R.special_registers(self.isa.generation, wave64)
        sgpr_max = R.sgpr_max(self.isa.generation)

        def decode(raw: int, state: DecodeState) -> Operand:
            if not raw & 0x80:
                return "vcc" if wave64 else "vcc_lo"
            value = raw & 0x7F
            name: str | None
            if R.TTMP_MIN <= value <= R.TTMP_MAX:
                name = names.scalar("ttmp", value - R.TTMP_MIN, dwords)
            elif value > sgpr_max:
                name = special.get(value)
            else:
                name = names.scalar("s", value, dwords)
            if name is None:
                raise OperandDecodeError(f"unknown operand encoding {value}")
            return name

        return decode


def _inline_integer(value: int) -> int:
    """Inline integer constants: encodings 128..192 are 0..64, 193..208 are -1..-16."""
    if value <= R.INLINE_INT_POSITIVE_MAX:
        return value - R.INLINE_INT_MIN
    return R.INLINE_INT_POSITIVE_MAX - value


def _fp_inline_table(imm_width: int, sema: int) -> dict[int, int]:
    if imm_width == 64:
        return _FP64_INLINE
    if imm_width == 16:
        return _BF16_INLINE if sema == _SEMA_BF16 else _FP16_INLINE
    return _FP32_INLINE


def _vgpr16_lo128(raw: int, state: DecodeState) -> Operand:
    """A 16-bit half of v0..v127: bits 6:0 the register, bit 7 the high half."""
    return f"v{raw & 0x7F}.{'h' if raw & 0x80 else 'l'}"


def _dpp8_fi(raw: int, state: DecodeState) -> Operand:
    """DPP8's fetch-inactive marker: the src0 field holds 0xE9 (fi:0) or 0xEA (fi:1)."""
    if raw not in (0xE9, 0xEA):
        raise OperandDecodeError(f"invalid dpp8 fi encoding {raw:#x}")
    return raw


def _raw_immediate(raw: int, state: DecodeState) -> Operand:
    return raw


def _smem_offset(raw: int, state: DecodeState) -> Operand:
    """GFX9 SMEM offsets are 21-bit signed."""
    raw &= (1 << 21) - 1
    return raw - (1 << 21) if raw & (1 << 20) else raw


def _smem_offset_gfx12(raw: int, state: DecodeState) -> Operand:
    """GFX12 SMEM offsets are 24-bit signed."""
    raw &= (1 << 24) - 1
    return raw - (1 << 24) if raw & (1 << 23) else raw


def _sopp_br_target(raw: int, state: DecodeState) -> Operand:
    """Branch offsets are signed 16-bit dword counts; kept as encoded (llvm-mc prints them so).

    Resolving them to addresses and labels is the lifter's business, not the decoder's.
    """
    return raw


def _kimm(raw: int, state: DecodeState) -> Operand:
    return Literal(raw)
