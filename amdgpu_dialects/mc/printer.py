"""Print decoded instructions in LLVM's AMDGPU assembly syntax.

The printer walks each instruction's TableGen ``AsmString`` and prints every ``$operand``
with the operand kind's print method, reproducing what ``llvm-mc``/``llvm-objdump`` print
so that our output can be diffed against theirs. Print methods are small functions keyed
by the TableGen ``PrintMethod`` name; they receive the instruction and the operand index,
since some (modifiers, op_sel, MTBUF format) look at neighbouring operands.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from luthier.amdgpu_dialects.isa.buffer_formats import unified_format
from luthier.amdgpu_dialects.isa.registers import INLINE_VALUE_REGISTERS
from luthier.amdgpu_dialects.isa.target import InstrDef, TargetISA, load_target
from luthier.amdgpu_dialects.mc import operand_printers as P
from luthier.amdgpu_dialects.mc.decoder import MCInst

_FLOAT32_NAMES = {
    0x00000000: "0.0", 0x3F800000: "1.0", 0xBF800000: "-1.0", 0x3F000000: "0.5",
    0xBF000000: "-0.5", 0x40000000: "2.0", 0xC0000000: "-2.0", 0x40800000: "4.0",
    0xC0800000: "-4.0", 0x3E22F983: "0.15915494",
}
_FLOAT64_NAMES = {
    0x0000000000000000: "0.0", 0x3FF0000000000000: "1.0", 0xBFF0000000000000: "-1.0",
    0x3FE0000000000000: "0.5", 0xBFE0000000000000: "-0.5", 0x4000000000000000: "2.0",
    0xC000000000000000: "-2.0", 0x4010000000000000: "4.0", 0xC010000000000000: "-4.0",
    0x3FC45F306DC9C882: "0.15915494309189532",
}
_FLOAT16_NAMES = {
    0x3C00: "1.0", 0xBC00: "-1.0", 0x3800: "0.5", 0xB800: "-0.5", 0x4000: "2.0",
    0xC000: "-2.0", 0x4400: "4.0", 0xC400: "-4.0", 0x3118: "0.15915494",
}

_NEG, _ABS, _SEXT, _NEG_HI, _OP_SEL_0, _OP_SEL_1 = 1, 2, 1, 2, 4, 8


def _s32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _s16(value: int) -> int:
    value &= 0xFFFF
    return value - (1 << 16) if value & 0x8000 else value


def _hex(value: int) -> str:
    return f"0x{value & 0xFFFFFFFFFFFFFFFF:x}"


def imm32(value: int) -> str:
    signed = _s32(value)
    if -16 <= signed <= 64:
        return str(signed)
    return _FLOAT32_NAMES.get(value & 0xFFFFFFFF) or _hex(value & 0xFFFFFFFF)


def imm64(value: int, is_fp: bool) -> str:
    value &= 0xFFFFFFFFFFFFFFFF
    signed = value - (1 << 64) if value >> 63 else value
    if -16 <= signed <= 64:
        return str(signed)
    name = _FLOAT64_NAMES.get(value)
    if name is not None:
        return name
    if is_fp:
        return _hex(value >> 32)
    return _hex(value)


def imm_int16(value: int) -> str:
    signed = _s32(value)
    if -16 <= signed <= 64:
        return str(signed)
    return _FLOAT32_NAMES.get(value & 0xFFFFFFFF) or _hex(value & 0xFFFF)


def imm_fp16(value: int) -> str:
    signed = _s16(value)
    if -16 <= signed <= 64:
        return str(signed)
    return _FLOAT16_NAMES.get(value & 0xFFFF) or _hex(value & 0xFFFF)


_BFLOAT16_NAMES = {
    0x3F80: "1.0", 0xBF80: "-1.0", 0x3F00: "0.5", 0xBF00: "-0.5", 0x4000: "2.0",
    0xC000: "-2.0", 0x4080: "4.0", 0xC080: "-4.0", 0x3E22: "0.15915494",
}


def imm_bf16(value: int) -> str:
    signed = _s16(value)
    if -16 <= signed <= 64:
        return str(signed)
    return _BFLOAT16_NAMES.get(value & 0xFFFF) or _hex(value & 0xFFFFFFFF)


def imm_v216(value: int, is_fp: bool, bf16: bool = False) -> str:
    signed = _s32(value)
    if -16 <= signed <= 64:
        return str(signed)
    if not is_fp:
        name = _FLOAT32_NAMES.get(value & 0xFFFFFFFF)
    else:
        names = _BFLOAT16_NAMES if bf16 else _FLOAT16_NAMES
        name = names.get(value) if 0 <= value <= 0xFFFF else None
    return name or _hex(value)


_IMM32_TYPES = frozenset({
    "OPERAND_REG_IMM_INT32", "OPERAND_REG_IMM_FP32", "OPERAND_REG_IMM_FP32_DEFERRED",
    "OPERAND_REG_INLINE_C_INT32", "OPERAND_REG_INLINE_C_FP32", "OPERAND_REG_INLINE_AC_INT32",
    "OPERAND_REG_INLINE_AC_FP32", "OPERAND_REG_IMM_V2INT32", "OPERAND_REG_IMM_V2FP32",
    "OPERAND_REG_INLINE_C_V2INT32", "OPERAND_REG_INLINE_C_V2FP32", "OPERAND_IMMEDIATE",
    "OPERAND_INLINE_SPLIT_BARRIER_INT32",
})
_IMM_INT16_TYPES = frozenset({
    "OPERAND_REG_INLINE_C_INT16", "OPERAND_REG_INLINE_AC_INT16", "OPERAND_REG_IMM_INT16",
})
_IMM_FP16_TYPES = frozenset({
    "OPERAND_REG_INLINE_C_FP16", "OPERAND_REG_INLINE_AC_FP16", "OPERAND_REG_IMM_FP16",
    "OPERAND_REG_IMM_FP16_DEFERRED",
})
_IMM_V2INT16_TYPES = frozenset({
    "OPERAND_REG_IMM_V2INT16", "OPERAND_REG_INLINE_C_V2INT16",
    "OPERAND_REG_INLINE_AC_V2INT16",
})
_IMM_BF16_TYPES = frozenset({
    "OPERAND_REG_INLINE_C_BF16", "OPERAND_REG_INLINE_AC_BF16", "OPERAND_REG_IMM_BF16",
    "OPERAND_REG_IMM_BF16_DEFERRED",
})
_IMM_V2BF16_TYPES = frozenset({
    "OPERAND_REG_IMM_V2BF16", "OPERAND_REG_INLINE_C_V2BF16", "OPERAND_REG_INLINE_AC_V2BF16",
})
_IMM_V2FP16_TYPES = frozenset({
    "OPERAND_REG_IMM_V2FP16", "OPERAND_REG_INLINE_C_V2FP16", "OPERAND_REG_INLINE_AC_V2FP16",
})


def print_immediate(value: int, operand_type: str) -> str:
    """An immediate operand, formatted by its operand type as LLVM's printer does."""
    if operand_type in _IMM32_TYPES:
        return imm32(value)
    if operand_type in ("OPERAND_REG_IMM_INT64", "OPERAND_REG_INLINE_C_INT64"):
        return imm64(value, False)
    if operand_type in ("OPERAND_REG_IMM_FP64", "OPERAND_REG_INLINE_C_FP64",
                        "OPERAND_REG_INLINE_AC_FP64"):
        return imm64(value, True)
    if operand_type in _IMM_INT16_TYPES:
        return imm_int16(value)
    if operand_type in _IMM_FP16_TYPES:
        return imm_fp16(value)
    if operand_type in _IMM_V2INT16_TYPES:
        return imm_v216(value, False)
    if operand_type in _IMM_V2FP16_TYPES:
        return imm_v216(value, True)
    if operand_type in _IMM_BF16_TYPES:
        return imm_bf16(value)
    if operand_type in _IMM_V2BF16_TYPES:
        return imm_v216(value, True, bf16=True)
    if operand_type in ("OPERAND_UNKNOWN", "OPERAND_PCREL"):
        return str(value)
    if operand_type == "OPERAND_REGISTER":
        return imm32(value) + "/*Invalid immediate*/"
    raise ValueError(f"unexpected immediate operand type {operand_type}")


_TOKEN = re.compile(r"\$\{(\w+)\}|\$(\w+)")
#: ``{first|second}`` in an asm string: per-variant text; LLVM prints variant 0.
_VARIANT_TEXT = re.compile(r"\{([^{}|$]*)(?:\|[^{}$]*)?\}")
#: Bound on memoised texts per printer (the memo is cleared when it fills).
_MEMO_LIMIT = 1 << 16

PrintMethod = Callable[["InstPrinter", MCInst, int, list[str]], None]
_PRINT_METHODS: dict[str, PrintMethod] = {}


def _method(*names: str) -> Callable[[PrintMethod], PrintMethod]:
    def register(fn: PrintMethod) -> PrintMethod:
        for name in names:
            _PRINT_METHODS[name] = fn
        return fn

    return register


class InstPrinter:
    """Prints :class:`MCInst` values of one target as LLVM assembly text."""

    def __init__(self, isa: TargetISA) -> None:
        self.isa = isa
        self.gfx90a = isa.is_gfx90a
        self.gfx940 = isa.is_gfx940
        self.flat_offset_bits = isa.subtarget.flat_offset_bits
        self.generation = isa.generation
        self._implied_vcc: dict[str, bool] = {}
        self.vcc = "vcc" if isa.wavefront_size == 64 else "vcc_lo"
        self._programs: dict[str, list[str | tuple[int, PrintMethod]]] = {}
        self._memo: dict[tuple[object, ...], str] = {}

    def _program(self, desc: InstrDef) -> list[str | tuple[int, PrintMethod]]:
        """The asm string split into literal text and (operand index, print method) steps."""
        cached = self._programs.get(desc.name)
        if cached is not None:
            return cached
        program: list[str | tuple[int, PrintMethod]] = []
        pos = 0
        asm = _VARIANT_TEXT.sub(lambda m: m.group(1), desc.asm)
        for match in _TOKEN.finditer(asm):
            if match.start() > pos:
                program.append(asm[pos : match.start()])
            name = match.group(1) or match.group(2)
            index = desc.index[name]
            method = desc.operands[index].kind.print_method
            if desc.operands[index].kind.decoder_method == "decodeVersionImm":
                program.append((index, _print_version))
            elif method.startswith("printNamedBit:"):
                program.append((index, _named_bit(method.split(":", 1)[1])))
            else:
                fn = _PRINT_METHODS.get(method)
                if fn is None:
                    raise NotImplementedError(f"{desc.name}: print method {method}")
                program.append((index, fn))
            pos = match.end()
        if pos < len(asm):
            program.append(asm[pos:])
        self._programs[desc.name] = program
        return program

    def print(self, inst: MCInst) -> str:
        """The instruction's text. Text depends only on the definition and the operand
        values, which repeat a lot in real code, so it is memoised (bounded)."""
        key = (inst.desc.name, *inst.operands)
        text = self._memo.get(key)
        if text is None:
            out: list[str] = []
            for step in self._program(inst.desc):
                if isinstance(step, str):
                    out.append(step)
                else:
                    step[1](self, inst, step[0], out)
            text = "".join(out)
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            self._memo[key] = text
        return text

    def mnemonic(self, desc: InstrDef) -> str:
        """The first word of every text of ``desc``: its mnemonic with LLVM's encoding
        suffix (``v_add_f32_e64``, ``v_mov_b32_sdwa``), which is what names the encoding."""
        program = self._program(desc)
        head = program[0] if program and isinstance(program[0], str) else ""
        word = head.split()[0] if head.split() else desc.mnemonic
        if len(program) > 1 and not head.endswith(" ") and not isinstance(program[1], str):
            index, method = program[1]
            if index == 0 and method is _print_vop_dst:
                word += _encoding_suffix(desc.classes)
            elif index == 0 and method is _print_vintrp_dst:
                word += "_e32"
        return word

    def clear_memo(self) -> None:
        """Forget memoised texts (benchmarks start each run cold)."""
        self._memo.clear()

    # -- shared helpers -------------------------------------------------------------

    def regular(self, inst: MCInst, index: int, out: list[str], tail: bool = True) -> None:
        """LLVM's ``printRegularOperand``: a register or an immediate by operand type.

        ``tail`` prints what follows the operand itself (an implied ``vcc`` after src1, an
        MTBUF format after soffset); operands inside modifiers print it after them."""
        desc = inst.desc
        value = inst.operands[index]
        slot = desc.operands[index]
        if value is None:
            out.append(f"/*Missing OP{index}*/")
        elif isinstance(value, str):
            out.append(value)
            rc = slot.kind.register_class
            if rc is not None and value not in INLINE_VALUE_REGISTERS \
                    and not rc.contains(value):
                out.append(f"/*Invalid register, operand has '{rc.name}' register class*/")
        else:
            out.append(print_immediate(value, slot.kind.operand_type))
        if tail:
            self.operand_tail(inst, index, out)

    def operand_tail(self, inst: MCInst, index: int, out: list[str]) -> None:
        desc = inst.desc
        slot = desc.operands[index]
        if slot.name == "src1" and (desc.name == "V_CNDMASK_B32_e32_vi"
                                    or self.implied_vcc(desc)):
            out.append(", " + self.vcc)
        if "MTBUF" in desc.classes and slot.name == "soffset":
            fmt = inst.operand("format")
            if isinstance(fmt, int):
                out.append(P.mtbuf_format(fmt) if self.generation < 10
                           else unified_format(fmt, self.generation))

    def implied_vcc(self, desc: InstrDef) -> bool:
        """GFX10+ VOP2 forms that read VCC without naming it (``v_cndmask_b32``, the
        carry-in adds): LLVM prints it after src1, and after vdst when VCC is also written."""
        found = self._implied_vcc.get(desc.name)
        if found is None:
            classes = desc.classes
            found = self._implied_vcc[desc.name] = (
                self.generation >= 10 and "VALU" in classes
                and not classes & {"VOP3", "VOPC", "VOP3P"}
                and "VCC" in desc.uses and "vcc" not in desc.asm)
        return found

    def default_vcc_first(self, inst: MCInst) -> bool:
        desc = inst.desc
        return "VOPC" in desc.classes and ("VCC" in desc.defs or "VCC_LO" in desc.defs)


# -- print methods ----------------------------------------------------------------------


@_method("printOperand")
def _print_operand(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    desc = inst.desc
    first = index == 0 or (index == 1 and "DPP" in desc.classes and desc.has("src0_modifiers"))
    if first and p.default_vcc_first(inst):
        out.append(p.vcc + ", ")
    p.regular(inst, index, out)


def _encoding_suffix(classes: frozenset[str]) -> str:
    """The suffix LLVM appends to a VALU mnemonic to name its encoding (``_e64``...)."""
    single = "IsSingle" in classes
    if "VOP3" in classes and "DPP" in classes:
        return "_e64_dpp"
    if "VOP3" in classes:
        return "" if single else "_e64"
    if "DPP" in classes:
        return "_dpp"
    if "SDWA" in classes:
        return "_sdwa"
    if ("VOP1" in classes or "VOP2" in classes) and not single:
        return "_e32"
    return ""


@_method("printVOPDst")
def _print_vop_dst(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    if index == 0:
        out.append(_encoding_suffix(inst.desc.classes))
        out.append(" ")
    p.regular(inst, index, out)
    if index == 0 and "VCC" in inst.desc.defs and p.implied_vcc(inst.desc):
        out.append(", " + p.vcc)


@_method("printVINTRPDst")
def _print_vintrp_dst(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append("_e32 ")
    p.regular(inst, index, out)


def _needs_implied_vcc(inst: MCInst, index: int) -> bool:
    classes = inst.desc.classes
    return (index == 0 and "DPP" in classes and "VOPC" in classes
            and ("VCC" in inst.desc.defs or "VCC_LO" in inst.desc.defs))


@_method("printOperandAndFPInputMods")
def _print_fp_mods(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    if _needs_implied_vcc(inst, index):
        out.append(p.vcc + ", ")
    mods = inst.operands[index]
    mods = mods if isinstance(mods, int) else 0
    neg_mnemonic = False
    if mods & _NEG:
        if index + 1 < len(inst.operands) and not mods & _ABS:
            neg_mnemonic = isinstance(inst.operands[index + 1], int)
        out.append("neg(" if neg_mnemonic else "-")
    if mods & _ABS:
        out.append("|")
    p.regular(inst, index + 1, out, tail=False)
    if mods & _ABS:
        out.append("|")
    if neg_mnemonic:
        out.append(")")
    p.operand_tail(inst, index + 1, out)


@_method("printOperandAndIntInputMods")
def _print_int_mods(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    if _needs_implied_vcc(inst, index):
        out.append(p.vcc + ", ")
    mods = inst.operands[index]
    mods = mods if isinstance(mods, int) else 0
    if mods & _SEXT:
        out.append("sext(")
    p.regular(inst, index + 1, out, tail=False)
    if mods & _SEXT:
        out.append(")")
    p.operand_tail(inst, index + 1, out)


def _imm(inst: MCInst, index: int) -> int:
    value = inst.operands[index]
    return value if isinstance(value, int) else 0


def _named_bit(name: str) -> PrintMethod:
    text = " " + name

    def print_bit(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
        if _imm(inst, index):
            out.append(text)

    return print_bit


@_method("printOffset")
def _print_offset(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index) & 0xFFFFFFFF
    if not value:
        return
    if p.generation >= 12 and inst.desc.classes & {"MUBUF", "MTBUF"}:
        # GFX12 VBUFFER offsets are 24-bit signed.
        value &= 0xFFFFFF
        out.append(f" offset:{value - (1 << 24) if value & (1 << 23) else value}")
    else:
        out.append(f" offset:{value & 0xFFFF}")


@_method("printFlatOffset")
def _print_flat_offset(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index) & 0xFFFFFFFF
    if not value:
        return
    if inst.desc.classes & {"FlatGlobal", "FlatScratch"} or p.generation >= 12:
        field = 1 << p.flat_offset_bits
        value &= field - 1
        out.append(f" offset:{value - field if value & (field >> 1) else value}")
    else:
        out.append(f" offset:{value & 0xFFFF}")


def _named_nonzero(name: str, mask: int = -1) -> PrintMethod:
    """`` name:value`` when the operand is non-zero; LLVM omits these at their default 0."""

    def print_value(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
        value = _imm(inst, index)
        if value:
            out.append(f" {name}:{value & mask}")

    return print_value


_PRINT_METHODS["printOffset0"] = _named_nonzero("offset0", 0xFF)
_PRINT_METHODS["printOffset1"] = _named_nonzero("offset1", 0xFF)
_PRINT_METHODS["printCBSZ"] = _named_nonzero("cbsz")
_PRINT_METHODS["printABID"] = _named_nonzero("abid")


def _signed_hex(value: int) -> str:
    """LLVM's ``formatHex`` on a signed 64-bit value: ``-0x10`` for negatives."""
    return f"-0x{-value:x}" if value < 0 else f"0x{value:x}"


@_method("printSMEMOffset")
def _print_smem_offset(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(_signed_hex(_imm(inst, index)))


@_method("printSMEMOffsetMod")
def _print_smem_offset_mod(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(" offset:" + _signed_hex(_imm(inst, index)))


@_method("printCPol")
def _print_cpol(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index)
    if p.generation >= 12:
        _print_th_scope(inst, value, out)
        return
    if value & 1:
        out.append(" sc0" if p.gfx940 and "SMRD" not in inst.desc.classes else " glc")
    if value & 2:
        out.append(" nt" if p.gfx940 else " slc")
    if value & 4 and p.generation >= 10:
        out.append(" dlc")
    if value & 16 and p.gfx90a:
        out.append(" sc1" if p.gfx940 else " scc")
    if value & ~0x1F:
        out.append(" /* unexpected cache policy bit */")


_SCOPES = ("", " scope:SCOPE_SE", " scope:SCOPE_DEV", " scope:SCOPE_SYS")
_TH_NAMES = {1: "NT", 2: "HT", 4: "NT_RT", 5: "RT_NT", 6: "NT_HT", 7: "NT_WB"}


def _print_th_scope(inst: MCInst, value: int, out: list[str]) -> None:
    """GFX12 cache policy: temporal hint (bits 2:0) and scope (bits 4:3)."""
    th, scope = value & 7, (value >> 3) & 3
    if th:
        desc = inst.desc
        if desc.classes & {"IsAtomicRet", "IsAtomicNoRet"}:
            if th & 4:
                text = (("CASCADE_NT" if th & 2 else "CASCADE_RT") if scope >= 2
                        else f"0x{th:x}")
            elif th & 2:
                text = "NT_RETURN" if th & 1 else "NT"
            else:
                text = "RETURN"
            out.append(" th:TH_ATOMIC_" + text)
        else:
            store = "mayStore" in desc.flags
            if not store and th == 7:
                out.append(f" th:0x{th:x}")
            else:
                name = (("BYPASS" if scope == 3 else ("RT_WB" if store else "LU")) if th == 3
                        else _TH_NAMES[th])
                out.append(" th:" + ("TH_STORE_" if store else "TH_LOAD_") + name)
    out.append(_SCOPES[scope])


@_method("printU16ImmOperand")
def _print_u16(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index)
    if -(1 << 15) <= value < (1 << 16):
        out.append(_hex(value & 0xFFFF))
    else:
        out.append(_hex(value & 0xFFFFFFFF))


def _print_version(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    text = P.ucode_version(_imm(inst, index))
    if text is None:
        _print_u16(p, inst, index, out)
    else:
        out.append(text)


@_method("printU32ImmOperand")
def _print_u32(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(_hex(_imm(inst, index) & 0xFFFFFFFF))


@_method("printOModSI")
def _print_omod(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(("", " mul:2", " mul:4", " div:2")[_imm(inst, index) & 3]
               if 0 <= _imm(inst, index) <= 3 else "")


@_method("printSWaitCnt")
def _print_waitcnt(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.waitcnt(_imm(inst, index), p.generation))


@_method("printHwreg")
def _print_hwreg(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.hwreg(_imm(inst, index), p.gfx940, p.generation))


@_method("printSendMsg")
def _print_sendmsg(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.sendmsg(_imm(inst, index), p.generation))


@_method("printSwizzle")
def _print_swizzle(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.swizzle(_imm(inst, index) & 0xFFFF))


@_method("printEndpgm")
def _print_endpgm(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index) & 0xFFFF
    if value:
        out.append(f" {value}")


@_method("printFORMAT")
def _print_format(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    return


@_method("printDMask")
def _print_dmask(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    if _imm(inst, index):
        out.append(" dmask:")
        _print_u16(p, inst, index, out)


@_method("printR128A16")
def _print_r128(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    if _imm(inst, index):
        out.append(" a16" if p.isa.has_feature("FeatureR128A16") else " r128")


@_method("printDPPCtrl")
def _print_dpp_ctrl(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.dpp_ctrl(_imm(inst, index), p.gfx90a, _is_dp_alu_dpp(inst.desc),
                          p.generation))


def _is_dp_alu_dpp(desc: InstrDef) -> bool:
    """DPP on an instruction with a 64-bit VGPR operand (only row_newbcast is legal)."""
    return any(
        s.kind.register_class is not None and s.kind.register_class.width == 64
        and "v" in s.kind.register_class.files
        for s in desc.operands
    )


@_method("printDppRowMask")
def _print_row_mask(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(" row_mask:" + _hex(_imm(inst, index) & 0xF))


@_method("printDppBankMask")
def _print_bank_mask(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(" bank_mask:" + _hex(_imm(inst, index) & 0xF))


@_method("printDppBoundCtrl")
def _print_bound_ctrl(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    if _imm(inst, index):
        out.append(" bound_ctrl:1")


def _sdwa_sel(prefix: str) -> PrintMethod:
    def print_sel(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
        value = _imm(inst, index)
        out.append(prefix + (P.SDWA_SEL_NAMES[value] if 0 <= value < 7 else "INVALID"))

    return print_sel


_PRINT_METHODS["printSDWADstSel"] = _sdwa_sel("dst_sel:")
_PRINT_METHODS["printSDWASrc0Sel"] = _sdwa_sel("src0_sel:")
_PRINT_METHODS["printSDWASrc1Sel"] = _sdwa_sel("src1_sel:")


@_method("printSDWADstUnused")
def _print_dst_unused(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index)
    out.append("dst_unused:" + (P.SDWA_DST_UNUSED_NAMES[value] if 0 <= value < 3
                                else "INVALID"))


def _packed_modifier(name: str, mod: int) -> PrintMethod:
    def print_mod(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
        desc = inst.desc
        if mod == _OP_SEL_0 and _is_permlane16(desc):
            # op_sel of v_permlane16/v_permlanex16 holds the fetch-inactive and bound_ctrl
            # bits, in the src0/src1 modifiers.
            bits = [int(bool(_imm(inst, desc.index[n]) & _OP_SEL_0))
                    for n in ("src0_modifiers", "src1_modifiers")]
            if any(bits):
                out.append(f" op_sel:[{bits[0]},{bits[1]}]")
            return
        default = 1 if mod == _OP_SEL_1 else 0
        ops: list[int] = []
        for src in ("src0", "src1", "src2"):
            if not desc.has(src):
                break
            mods = inst.operand(src + "_modifiers") if desc.has(src + "_modifiers") else None
            ops.append(mods if isinstance(mods, int) else default)
        has_dst_sel = bool(ops) and mod == _OP_SEL_0 and "VOP3_OPSEL" in desc.classes
        packed = "IsPacked" in desc.classes
        all_default = all(bool(o & mod) == bool(packed and mod == _OP_SEL_1) for o in ops)
        if has_dst_sel and ops[0] & _OP_SEL_1:
            all_default = False
        if all_default:
            return
        values = [str(int(bool(o & mod))) for o in ops]
        if has_dst_sel:
            values.append(str(int(bool(ops[0] & _OP_SEL_1))))
        out.append(f" {name}:[" + ",".join(values) + "]")

    return print_mod


def _is_permlane16(desc: InstrDef) -> bool:
    mnemonic = desc.mnemonic
    return mnemonic.startswith(("v_permlane16", "v_permlanex16")) \
        and desc.has("src0_modifiers") and desc.has("src1_modifiers")


_PRINT_METHODS["printOpSel"] = _packed_modifier("op_sel", _OP_SEL_0)
_PRINT_METHODS["printOpSelHi"] = _packed_modifier("op_sel_hi", _OP_SEL_1)
_PRINT_METHODS["printNegLo"] = _packed_modifier("neg_lo", _NEG)
_PRINT_METHODS["printNegHi"] = _packed_modifier("neg_hi", _NEG_HI)


@_method("printBLGP")
def _print_blgp(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index)
    if not value:
        return
    if p.gfx940 and inst.desc.name.startswith(("V_MFMA_F64_16X16X4F64_gfx940",
                                               "V_MFMA_F64_4X4X4F64_gfx940")):
        out.append(f" neg:[{value & 1},{(value >> 1) & 1},{(value >> 2) & 1}]")
        return
    out.append(f" blgp:{value}")


@_method("printInterpSlot")
def _print_interp_slot(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    value = _imm(inst, index)
    out.append({0: "p10", 1: "p20", 2: "p0"}.get(value, f"invalid_param_{value}"))


@_method("printInterpAttr")
def _print_interp_attr(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(f"attr{_imm(inst, index)}")


@_method("printInterpAttrChan")
def _print_interp_chan(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append("." + "xyzw"[_imm(inst, index) & 3])


@_method("printGPRIdxMode")
def _print_gpr_idx(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.gpr_idx_mode(_imm(inst, index)))


@_method("printExpTgt")
def _print_exp_tgt(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.exp_target(_imm(inst, index), p.generation))


def _exp_src(n: int) -> PrintMethod:
    def print_src(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
        enabled = _imm(inst, inst.desc.index["en"])
        if _imm(inst, inst.desc.index["compr"]):
            index = index - n + n // 2
        value = inst.operands[index]
        out.append(str(value) if enabled & (1 << n) else "off")

    return print_src


for _n in range(4):
    _PRINT_METHODS[f"printExpSrc{_n}"] = _exp_src(_n)


@_method("printDPP8")
def _print_dpp8(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.dpp8(_imm(inst, index)))


@_method("printDppFI")
def _print_dpp_fi(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    if _imm(inst, index) in (1, 0xEA):
        out.append(" fi:1")


@_method("printDim")
def _print_dim(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.mimg_dim(_imm(inst, index)))


@_method("printDepCtr")
def _print_depctr(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.depctr(_imm(inst, index), p.isa.has_feature("FeatureGFX10_BEncoding")))


@_method("printSDelayALU")
def _print_delay_alu(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    out.append(P.delay_alu(_imm(inst, index)))


@_method("printRegularOperand")
def _print_regular(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    p.regular(inst, index, out)


def _named_decimal(name: str, mask: int) -> PrintMethod:
    """`` name:value`` always printed (LLVM's printU4ImmDecOperand-style fields)."""

    def print_value(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
        out.append(f" {name}:{_imm(inst, index) & mask}")

    return print_value


_PRINT_METHODS["printWaitVDST"] = _named_decimal("wait_vdst", 0xF)
_PRINT_METHODS["printWaitEXP"] = _named_decimal("wait_exp", 0xF)
_PRINT_METHODS["printWaitVAVDst"] = _named_decimal("wait_va_vdst", 0xF)
_PRINT_METHODS["printWaitVMVSrc"] = _named_decimal("wait_vm_vsrc", 0xF)
_PRINT_METHODS["printByteSel"] = _named_nonzero("byte_sel", 0xFF)
def _index_key(p: InstPrinter, inst: MCInst, index: int, out: list[str]) -> None:
    """SWMMAC ``index_key``: its low 3 bits, omitted when zero."""
    value = _imm(inst, index) & 7
    if value:
        out.append(f" index_key:{value}")


_PRINT_METHODS["printIndexKey8bit"] = _index_key
_PRINT_METHODS["printIndexKey16bit"] = _index_key


def printer_for(target: str, wavefront_size: int | None = None) -> InstPrinter:
    """The (cached) printer of a processor, in its default wave size or
    ``wavefront_size`` (64 for an RDNA processor in wave64); raises ``UnknownTargetError``."""
    return _cached_printer(target, wavefront_size)


@functools.cache
def _cached_printer(target: str, wavefront_size: int | None) -> InstPrinter:
    return InstPrinter(load_target(target, wavefront_size))
