"""Encodings of the symbolic operand syntaxes: hwreg, sendmsg, waitcnt, swizzle, DPP, SDWA...

Each function turns what the user wrote (already split into names and numbers) into the
immediate LLVM's parser would put into the MCInst. The names are the inverse of the tables
in :mod:`luthier.amdgpu_dialects.mc.operand_printers`, so what we print parses back to the same
value.
"""

from __future__ import annotations

from luthier.amdgpu_dialects.mc import operand_printers as P


class OperandSyntaxError(ValueError):
    """A symbolic operand with a wrong name or value (message is llvm-mc's where known);
    ``argument`` is the index of the offending argument, when one is to blame."""

    def __init__(self, message: str, argument: int | None = None) -> None:
        super().__init__(message)
        self.argument = argument


HWREG_IDS: dict[str, int] = {name: reg for reg, name in P.HWREG_NAMES_GFX9.items()}
HWREG_IDS_GFX940: dict[str, int] = {name: reg for reg, name in P.HWREG_NAMES_GFX940.items()}
#: Hardware register names per generation: what the printer prints, and LLVM's aliases
#: (GFX10 still takes HW_REG_HW_ID for HW_ID1).
_HWREG_IDS_BY_GENERATION: dict[int, dict[str, int]] = {
    9: HWREG_IDS,
    10: {**{name: reg for reg, name in P.HWREG_NAMES_GFX10.items()}, "HW_REG_HW_ID": 23},
    11: {name: reg for reg, name in P.HWREG_NAMES_GFX11.items()},
    12: {name: reg for reg, name in P.HWREG_NAMES_GFX12.items()},
}
SENDMSG_IDS: dict[str, int] = {name: msg for msg, name in P.SENDMSG_NAMES_GFX9.items()}
_SENDMSG_IDS_BY_GENERATION: dict[int, dict[str, int]] = {
    9: SENDMSG_IDS,
    10: {name: msg for msg, name in P.SENDMSG_NAMES_GFX10.items()},
    11: {name: msg for msg, name in P.SENDMSG_NAMES_GFX11.items()},
    12: {name: msg for msg, name in P.SENDMSG_NAMES_GFX12.items()},
}


def _table_generation(generation: int) -> int:
    return min(max(generation, 9), 12)


def hwreg_id(name: str, generation: int, gfx940: bool = False) -> int:
    """A hardware register's number from its name on a generation (gfx940 adds its own);
    raises :class:`OperandSyntaxError` for a name of another target or none."""
    ids = _HWREG_IDS_BY_GENERATION[_table_generation(generation)]
    if name in ids:
        return ids[name]
    if gfx940 and name in HWREG_IDS_GFX940:
        return HWREG_IDS_GFX940[name]
    if name in HWREG_IDS_GFX940 or any(name in table
                                        for table in _HWREG_IDS_BY_GENERATION.values()):
        raise OperandSyntaxError("invalid hardware register: not supported on this GPU")
    raise OperandSyntaxError("expected a register name or an absolute expression")
SYSMSG_OPS: dict[str, int] = {name: op for op, name in P.SYSMSG_OP_NAMES_GFX9.items()}
GS_OPS: dict[str, int] = {name: op for op, name in P.GS_OP_NAMES.items()}
SDWA_SELS: dict[str, int] = {name: i for i, name in enumerate(P.SDWA_SEL_NAMES)}
SDWA_DST_UNUSED: dict[str, int] = {name: i for i, name in enumerate(P.SDWA_DST_UNUSED_NAMES)}
DFMTS: dict[str, int] = {name: i for i, name in enumerate(P.DFMT_NAMES)}
NFMTS: dict[str, int] = {name: i for i, name in enumerate(P.NFMT_NAMES_GFX9)}
GPR_IDX_BITS: dict[str, int] = {name: 1 << i for i, name in enumerate(P.GPR_IDX_NAMES)}


#: GFX12 cache policy (LLVM's ``CPol``): temporal hint bits 2:0, scope bits 4:3, and the
#: parser's helper bits (which kind of hint was written; BYPASS as opposed to hint 3).
CPOL_TH_MASK, CPOL_SCOPE_MASK, CPOL_SCOPE_SYS = 0x7, 0x18, 0x18
CPOL_TH_TYPE_LOAD, CPOL_TH_TYPE_STORE, CPOL_TH_TYPE_ATOMIC = 1 << 7, 1 << 8, 1 << 9
CPOL_TH_REAL_BYPASS = 1 << 10
_CPOL_SCOPES = {"SCOPE_CU": 0, "SCOPE_SE": 0x8, "SCOPE_DEV": 0x10, "SCOPE_SYS": 0x18}
_TH_ATOMIC = {"RETURN": 1, "RT": 0, "RT_RETURN": 1, "NT": 2, "NT_RETURN": 3,
              "CASCADE_RT": 4, "CASCADE_NT": 6}
_TH_LOAD_STORE = {"RT": 0, "NT": 1, "HT": 2, "LU": 3, "RT_WB": 3, "NT_RT": 4, "RT_NT": 5,
                  "NT_HT": 6, "NT_WB": 7, "BYPASS": 3}


def cpol_scope(name: str) -> int:
    """``scope:SCOPE_SE`` -> its cache-policy bits."""
    if name not in _CPOL_SCOPES:
        raise OperandSyntaxError("invalid scope value")
    return _CPOL_SCOPES[name]


def cpol_th(name: str) -> int:
    """``th:TH_LOAD_NT`` -> its cache-policy bits with the helper bits (LLVM's
    ``parseTH``)."""
    if name == "TH_DEFAULT":
        return 0
    if name in ("TH_STORE_LU", "TH_LOAD_RT_WB", "TH_LOAD_NT_WB"):
        raise OperandSyntaxError("invalid th value")
    for prefix, kind_bit, names in (("TH_ATOMIC_", CPOL_TH_TYPE_ATOMIC, _TH_ATOMIC),
                                    ("TH_LOAD_", CPOL_TH_TYPE_LOAD, _TH_LOAD_STORE),
                                    ("TH_STORE_", CPOL_TH_TYPE_STORE, _TH_LOAD_STORE)):
        if name.startswith(prefix):
            hint = names.get(name[len(prefix):])
            if hint is None:
                break
            bypass = CPOL_TH_REAL_BYPASS if name.endswith("_BYPASS") else 0
            return kind_bit | bypass | hint
    raise OperandSyntaxError("invalid th value")


def _exp_targets(generation: int) -> dict[str, int]:
    return {name: target for target in range(64)
            if not (name := P.exp_target(target, generation).strip()).startswith("invalid")}


_EXP_TARGETS = {generation: _exp_targets(generation) for generation in (9, 10, 11, 12)}


def exp_target(name: str, generation: int) -> int:
    """An export target (``mrt0``, ``pos4``, ``prim``...) of a generation."""
    target = _EXP_TARGETS[min(max(generation, 9), 12)].get(name)
    if target is not None:
        return target
    if any(name in names for names in _EXP_TARGETS.values()):
        raise OperandSyntaxError("exp target is not supported on this GPU")
    raise OperandSyntaxError("invalid exp target")


def split_format(names: list[str]) -> tuple[int, int]:
    """``format:[BUF_DATA_FORMAT_16, BUF_NUM_FORMAT_UINT]``: the data and numeric format,
    each at its default (8, UNORM) when not named."""
    dfmt = nfmt = None
    for name in (n.strip() for n in names):
        if name in DFMTS and dfmt is None:
            dfmt = DFMTS[name]
        elif name in NFMTS and nfmt is None:
            nfmt = NFMTS[name]
        elif name in DFMTS:
            raise OperandSyntaxError("duplicate data format")
        elif name in NFMTS:
            raise OperandSyntaxError("duplicate numeric format")
        else:
            raise OperandSyntaxError("unsupported format")
    return (P.DFMT_DEFAULT if dfmt is None else dfmt,
            P.NFMT_DEFAULT if nfmt is None else nfmt)


#: Symbols LLVM's assembler defines for every HSA target (``s_version``'s operand).
CONSTANT_SYMBOLS: dict[str, int] = {
    **{name: code for code, name in P.UC_VERSIONS.items()},
    **{name: 1 << bit for bit, name in P.UC_VERSION_BITS},
}


def hwreg(reg_id: int, offset: int = 0, width: int = 32) -> int:
    if not 0 <= reg_id < 64:
        raise OperandSyntaxError("invalid hardware register: only 6-bit values are legal")
    if not 0 <= offset < 32:
        raise OperandSyntaxError("invalid bit offset: only 5-bit values are legal")
    if not 1 <= width <= 32:
        raise OperandSyntaxError("invalid bitfield width: only values from 1 to 32 are legal")
    return reg_id | offset << 6 | (width - 1) << 11


def sendmsg(msg: int, op: int = 0, stream: int = 0) -> int:
    return msg | op << 4 | stream << 8


_MSG_GS, _MSG_GS_DONE, _MSG_SYSMSG = 2, 3, 15


def checked_sendmsg(args: list[int | str], generation: int = 9) -> int:
    """``sendmsg(msg[, op[, stream]])`` with LLVM's checks (``validateSendMsg``). A
    symbolic message is checked strictly (its operation and stream must make sense for
    it); a numeric one only for field widths. GFX11 widened the message id to 8 bits and
    dropped the GS operations and streams."""
    if len(args) > 3:
        raise OperandSyntaxError("expected a closing parenthesis", 3)
    gfx11_plus = generation >= 11
    msg_arg = args[0]
    strict = isinstance(msg_arg, str)
    if isinstance(msg_arg, str):
        names = _SENDMSG_IDS_BY_GENERATION[_table_generation(generation)]
        if msg_arg not in names:
            if any(msg_arg in table for table in _SENDMSG_IDS_BY_GENERATION.values()):
                raise OperandSyntaxError("specified message id is not supported on this GPU",
                                         0)
            raise OperandSyntaxError("expected a message name or an absolute expression", 0)
        msg = names[msg_arg]
    else:
        msg = msg_arg
        if not 0 <= msg < (256 if gfx11_plus else 16):
            raise OperandSyntaxError("invalid message id", 0)
    gs = not gfx11_plus and msg in (_MSG_GS, _MSG_GS_DONE)
    op_defined, stream_defined = len(args) > 1, len(args) > 2
    op_arg = args[1] if op_defined else 0
    if isinstance(op_arg, str):
        op_names = SYSMSG_OPS if msg == _MSG_SYSMSG else GS_OPS if gs else {}
        if op_arg not in op_names:
            raise OperandSyntaxError("expected an operation name or an absolute expression",
                                     1)
        op = op_names[op_arg]
    else:
        op = op_arg
    stream_arg = args[2] if stream_defined else 0
    if not isinstance(stream_arg, int):
        raise OperandSyntaxError("expected an absolute expression", 2)
    stream = stream_arg
    requires_op = gs or msg == _MSG_SYSMSG
    if strict and requires_op != op_defined:
        raise OperandSyntaxError("missing message operation" if requires_op
                                 else "message does not support operations",
                                 0 if requires_op else 1)
    if not strict:
        valid_op = 0 <= op < 8
    elif msg == _MSG_SYSMSG:
        valid_op = 1 <= op <= 4
    elif gs:
        valid_op = msg != _MSG_GS if op == 0 else 1 <= op <= 3
    else:
        valid_op = op == 0
    if not valid_op:
        raise OperandSyntaxError("invalid operation id", 1)
    if strict and not (gs and op != 0) and stream_defined:
        raise OperandSyntaxError("message operation does not support streams", 2)
    streams_allowed = not strict or (gs and op != 0)
    valid_stream = 0 <= stream < 4 if streams_allowed else stream == 0
    if not valid_stream:
        raise OperandSyntaxError("invalid message stream id", 2)
    return sendmsg(msg, op, stream)


#: s_waitcnt counters per generation: (bit in the immediate, bit in the count, width) of
#: each piece of the count. GFX9/GFX10 split vmcnt over bits 3:0 and 15:14 (lgkmcnt is 6
#: bits from GFX10 on); GFX11 packs vmcnt 15:10, lgkmcnt 9:4, expcnt 2:0.
_WAITCNT_FIELDS_BY_GENERATION: dict[int, dict[str, tuple[tuple[int, int, int], ...]]] = {
    9: {"vmcnt": ((0, 0, 4), (14, 4, 2)), "expcnt": ((4, 0, 3),), "lgkmcnt": ((8, 0, 4),)},
    10: {"vmcnt": ((0, 0, 4), (14, 4, 2)), "expcnt": ((4, 0, 3),),
         "lgkmcnt": ((8, 0, 6),)},
    11: {"vmcnt": ((10, 0, 6),), "expcnt": ((0, 0, 3),), "lgkmcnt": ((4, 0, 6),)},
}


def waitcnt_all(generation: int = 9) -> int:
    """The s_waitcnt immediate that waits for nothing: every counter at its maximum
    (LLVM's ``getWaitcntBitMask``)."""
    fields = _WAITCNT_FIELDS_BY_GENERATION[min(max(generation, 9), 11)]
    return sum(((1 << width) - 1) << inst_lo for pieces in fields.values()
               for inst_lo, _, width in pieces)


WAITCNT_ALL = waitcnt_all(9)


def waitcnt_set(current: int, counter: str, value: int, generation: int = 9) -> int:
    """Set ``counter`` (``vmcnt``, ``expcnt_sat``...) in an s_waitcnt immediate of a
    generation."""
    saturate = counter.endswith("_sat")
    name = counter.removesuffix("_sat")
    fields = _WAITCNT_FIELDS_BY_GENERATION[min(max(generation, 9), 11)].get(name)
    if fields is None:
        raise OperandSyntaxError("invalid counter name " + counter)
    bits = sum(width for _, _, width in fields)
    maximum = (1 << bits) - 1
    if value > maximum or value < 0:
        if not saturate:
            raise OperandSyntaxError("too large value for " + counter)
        value = maximum
    for inst_lo, var_lo, width in fields:
        mask = ((1 << width) - 1) << inst_lo
        current = (current & ~mask) | (((value >> var_lo) & ((1 << width) - 1)) << inst_lo)
    return current


#: ``s_waitcnt_depctr`` counters (GFX10.3+), as the printer names them.
DEPCTR_COUNTERS = frozenset(name for name, *_ in P.DEPCTR_FIELDS)


def depctr_default(has_hold_cnt: bool) -> int:
    """The s_waitcnt_depctr immediate with every counter at its default."""
    return sum(default << offset for name, _, default, offset, _ in P.DEPCTR_FIELDS
               if has_hold_cnt or name != "depctr_hold_cnt")


def depctr_set(current: int, used: set[str], name: str, value: int,
               has_hold_cnt: bool) -> int:
    """Set one s_waitcnt_depctr counter (LLVM's ``encodeDepCtr``); ``used`` collects the
    counters already written."""
    for field, maximum, _, offset, width in P.DEPCTR_FIELDS:
        if field != name:
            continue
        if name == "depctr_hold_cnt" and not has_hold_cnt:
            raise OperandSyntaxError(name + " is not supported on this GPU")
        if name in used:
            raise OperandSyntaxError("duplicate counter name " + name)
        used.add(name)
        if not 0 <= value <= maximum:
            raise OperandSyntaxError("invalid value for " + name)
        mask = ((1 << width) - 1) << offset
        return (current & ~mask) | value << offset
    raise OperandSyntaxError("invalid counter name " + name)


#: ``s_delay_alu`` fields: name -> (bit offset, value names).
DELAY_ALU_FIELDS: dict[str, tuple[int, tuple[str, ...]]] = {
    "instid0": (0, P.DELAY_IDS), "instskip": (4, P.DELAY_SKIPS), "instid1": (7, P.DELAY_IDS),
}


def delay_alu_set(current: int, field: str, value: str) -> int:
    """Set one ``s_delay_alu`` field (``instid0(VALU_DEP_1)``), as LLVM's ``parseDelay``."""
    if field not in DELAY_ALU_FIELDS:
        raise OperandSyntaxError("invalid field name " + field)
    shift, names = DELAY_ALU_FIELDS[field]
    if value not in names:
        raise OperandSyntaxError("invalid value name " + value)
    return current | names.index(value) << shift


def swizzle(mode: str, args: list[int | str]) -> int:
    """``offset:swizzle(MODE, ...)`` of ``ds_swizzle_b32``."""
    ints = [a for a in args if isinstance(a, int)]
    if mode == "QUAD_PERM":
        if len(ints) != 4 or any(not 0 <= lane < 4 for lane in ints):
            raise OperandSyntaxError("expected a 2-bit lane id")
        return 0x8000 | sum(lane << (2 * i) for i, lane in enumerate(ints))
    if mode == "BITMASK_PERM":
        if len(args) != 1 or not isinstance(args[0], str) or len(args[0]) != 5:
            raise OperandSyntaxError("expected a 5-character mask")
        and_mask = or_mask = xor_mask = 0
        for i, char in enumerate(args[0]):
            bit = 1 << (4 - i)
            if char == "1":
                or_mask |= bit
            elif char == "p":
                and_mask |= bit
            elif char == "i":
                and_mask |= bit
                xor_mask |= bit
            elif char != "0":
                raise OperandSyntaxError("invalid mask")
        return and_mask | or_mask << 5 | xor_mask << 10
    if mode == "BROADCAST":
        if len(ints) != 2 or ints[0] not in (2, 4, 8, 16, 32) or not 0 <= ints[1] < ints[0]:
            raise OperandSyntaxError("group size must be a power of two")
        return (0x20 - ints[0]) | ints[1] << 5
    if mode == "SWAP":
        if len(ints) != 1 or ints[0] not in (1, 2, 4, 8, 16):
            raise OperandSyntaxError("group size must be a power of two")
        return 0x1F | ints[0] << 10
    if mode == "REVERSE":
        if len(ints) != 1 or ints[0] not in (2, 4, 8, 16, 32):
            raise OperandSyntaxError("group size must be a power of two")
        return 0x1F | (ints[0] - 1) << 10
    raise OperandSyntaxError("expected a swizzle mode")


_DPP_FIXED = {"row_mirror": 0x140, "row_half_mirror": 0x141}
_DPP_RANGES = {"row_shl": (0x100, 1, 15), "row_shr": (0x110, 1, 15),
               "row_ror": (0x120, 1, 15), "row_newbcast": (0x150, 0, 15)}
_DPP_WAVE = {"wave_shl": 0x130, "wave_rol": 0x134, "wave_shr": 0x138, "wave_ror": 0x13C}
#: GFX10+ only: row_share (row_newbcast's encodings) and row_xmask.
_DPP_RANGES_GFX10 = {"row_share": (0x150, 0, 15), "row_xmask": (0x160, 0, 15)}


def dpp_ctrl(name: str, value: int | list[int] | None, gfx90a: bool,
             gfx10_plus: bool = False) -> int:
    """A ``dpp_ctrl`` spelled ``quad_perm:[..]``, ``row_shl:n``, ``row_mirror``..."""
    if name in _DPP_RANGES_GFX10 and isinstance(value, int):
        if not gfx10_plus:
            raise OperandSyntaxError("not a valid operand.")
        base, low, high = _DPP_RANGES_GFX10[name]
        if not low <= value <= high:
            raise OperandSyntaxError("invalid " + name + " value")
        return base + value
    if name in _DPP_FIXED and value is None:
        return _DPP_FIXED[name]
    if name == "quad_perm" and isinstance(value, list):
        if len(value) != 4 or any(not 0 <= lane < 4 for lane in value):
            raise OperandSyntaxError("invalid quad_perm lane")
        return sum(lane << (2 * i) for i, lane in enumerate(value))
    if isinstance(value, int):
        if name in _DPP_RANGES:
            if name == "row_newbcast" and not gfx90a:
                raise OperandSyntaxError("not a valid operand.")
            base, low, high = _DPP_RANGES[name]
            if not low <= value <= high:
                raise OperandSyntaxError("invalid " + name + " value")
            return base + value
        if name in _DPP_WAVE:
            if value != 1:
                raise OperandSyntaxError("invalid " + name + " value")
            return _DPP_WAVE[name]
        if name == "row_bcast":
            if value == 15:
                return 0x142
            if value == 31:
                return 0x143
            raise OperandSyntaxError("invalid row_bcast value")
    raise OperandSyntaxError("invalid dpp_ctrl value")


DPP_CTRL_NAMES = frozenset({"quad_perm", *_DPP_FIXED, *_DPP_RANGES, *_DPP_WAVE,
                            *_DPP_RANGES_GFX10, "row_bcast"})
