"""GFX11 and GFX12 spell many GFX9/GFX10 operations anew; these names map each to the one its
semantics are registered under.

GFX11 renamed the memory operations by width and signedness (``global_load_dword`` became
``global_load_b32``, ``ds_read_b32`` ``ds_load_b32``, ``s_load_dwordx2`` ``s_load_b64``),
the atomics by type (``global_atomic_add`` became ``global_atomic_add_u32``), and a few ALU
operations (``s_andn2_b32`` became ``s_and_not1_b32``, ``v_ffbh_u32`` ``v_clz_i32_u32``). GFX12
renamed the scalar carries (``s_add_u32`` became ``s_add_co_u32``) and the 64-bit multiply-adds
(``v_mad_co_u64_u32``). The operation is the same; only the name differs (LLVM's
``*_Real_Renamed_gfx11`` records). The emulator compiles such an instruction with the
older name and reports it with its own.
"""

from __future__ import annotations

#: Encoding suffixes kept across a rename (``v_clz_i32_u32_e32`` is ``v_ffbh_u32_e32``).
_SUFFIXES = ("_e32", "_e64", "_sdwa", "_dpp", "_dpp8")

_WIDTHS = {"b32": "dword", "b64": "dwordx2", "b96": "dwordx3", "b128": "dwordx4",
           "b256": "dwordx8", "b512": "dwordx16", "u8": "ubyte", "i8": "sbyte",
           "u16": "ushort", "i16": "sshort", "b8": "byte", "b16": "short"}

RENAMED: dict[str, str] = {
    **{f"s_load_{new}": f"s_load_{old}" for new, old in _WIDTHS.items()
       if new.startswith("b") and new != "b8" and new != "b16"},
    **{f"s_buffer_load_{new}": f"s_buffer_load_{old}" for new, old in _WIDTHS.items()
       if new.startswith("b") and new != "b8" and new != "b16"},
    **{f"{family}_load_{new}": f"{family}_load_{old}"
       for family in ("global", "flat", "scratch", "buffer")
       for new, old in _WIDTHS.items() if new not in ("b8", "b16", "b256", "b512")},
    **{f"{family}_store_{new}": f"{family}_store_{old}"
       for family in ("global", "flat", "scratch", "buffer")
       for new, old in _WIDTHS.items()
       if new in ("b8", "b16", "b32", "b64", "b96", "b128")},
    "ds_load_b32": "ds_read_b32", "ds_load_b64": "ds_read_b64", "ds_load_b96": "ds_read_b96",
    "ds_load_b128": "ds_read_b128", "ds_load_u8": "ds_read_u8", "ds_load_i8": "ds_read_i8",
    "ds_load_u16": "ds_read_u16", "ds_load_i16": "ds_read_i16",
    "ds_load_2addr_b32": "ds_read2_b32", "ds_load_2addr_b64": "ds_read2_b64",
    "ds_load_2addr_stride64_b32": "ds_read2st64_b32",
    "ds_load_2addr_stride64_b64": "ds_read2st64_b64",
    "ds_store_b8": "ds_write_b8", "ds_store_b16": "ds_write_b16",
    "ds_store_b32": "ds_write_b32", "ds_store_b64": "ds_write_b64",
    "ds_store_b96": "ds_write_b96", "ds_store_b128": "ds_write_b128",
    "ds_store_2addr_b32": "ds_write2_b32", "ds_store_2addr_b64": "ds_write2_b64",
    "ds_store_2addr_stride64_b32": "ds_write2st64_b32",
    "ds_store_2addr_stride64_b64": "ds_write2st64_b64",
    **{f"{family}_atomic_{new}": f"{family}_atomic_{old}"
       for family in ("global", "flat")
       for new, old in (("add_u32", "add"), ("add_u64", "add_x2"), ("sub_u32", "sub"),
                        ("sub_u64", "sub_x2"), ("swap_b32", "swap"), ("swap_b64", "swap_x2"),
                        ("cmpswap_b32", "cmpswap"), ("cmpswap_b64", "cmpswap_x2"),
                        ("max_i32", "smax"), ("min_i32", "smin"), ("max_u32", "umax"),
                        ("min_u32", "umin"), ("max_i64", "smax_x2"), ("min_i64", "smin_x2"),
                        ("max_u64", "umax_x2"), ("min_u64", "umin_x2"), ("and_b32", "and"),
                        ("or_b32", "or"), ("xor_b32", "xor"), ("and_b64", "and_x2"),
                        ("or_b64", "or_x2"), ("xor_b64", "xor_x2"), ("inc_u32", "inc"),
                        ("dec_u32", "dec"))},
    "s_and_not1_b32": "s_andn2_b32", "s_and_not1_b64": "s_andn2_b64",
    "s_or_not1_b32": "s_orn2_b32", "s_or_not1_b64": "s_orn2_b64",
    "s_and_not1_saveexec_b32": "s_andn2_saveexec_b32",
    "s_and_not1_saveexec_b64": "s_andn2_saveexec_b64",
    "s_or_not1_saveexec_b32": "s_orn2_saveexec_b32",
    "s_or_not1_saveexec_b64": "s_orn2_saveexec_b64",
    "s_and_not0_saveexec_b32": "s_andn1_saveexec_b32",
    "s_and_not0_saveexec_b64": "s_andn1_saveexec_b64",
    "s_or_not0_saveexec_b32": "s_orn1_saveexec_b32",
    "s_or_not0_saveexec_b64": "s_orn1_saveexec_b64",
    "s_cls_i32": "s_flbit_i32", "s_cls_i32_i64": "s_flbit_i32_i64",
    "s_clz_i32_u32": "s_flbit_i32_b32", "s_clz_i32_u64": "s_flbit_i32_b64",
    "s_ctz_i32_b32": "s_ff1_i32_b32", "s_ctz_i32_b64": "s_ff1_i32_b64",
    "v_clz_i32_u32": "v_ffbh_u32", "v_ctz_i32_b32": "v_ffbl_b32", "v_cls_i32": "v_ffbh_i32",
    # GFX12
    "s_add_co_u32": "s_add_u32", "s_sub_co_u32": "s_sub_u32", "s_add_co_i32": "s_add_i32",
    "s_sub_co_i32": "s_sub_i32", "s_add_co_ci_u32": "s_addc_u32",
    "s_sub_co_ci_u32": "s_subb_u32", "s_addk_co_i32": "s_addk_i32",
    "v_mad_co_u64_u32": "v_mad_u64_u32", "v_mad_co_i64_i32": "v_mad_i64_i32",
    # GFX12 names the NaN-ignoring minimum and maximum for what they are (IEEE-754 2019
    # minimumNumber/maximumNumber), which GFX9's v_min_f32/v_max_f32 compute in IEEE mode.
    "v_max_num_f32": "v_max_f32", "v_min_num_f32": "v_min_f32",
    "v_max_num_f64": "v_max_f64", "v_min_num_f64": "v_min_f64",
    "v_max_num_f16": "v_max_f16", "v_min_num_f16": "v_min_f16",
    # GFX11's D16 memory names: the 16-bit half comes first, then the width.
    **{f"{family}_{verb}_d16{hi}_{new}": f"{family}_{verb}_{old}_d16{hi}"
       for family in ("global", "flat", "scratch", "buffer")
       for verb, widths in (("load", ("b16", "u8", "i8")), ("store", ("b16", "b8")))
       for hi in (("", "_hi") if verb == "load" else ("_hi",))
       for new, old in _WIDTHS.items() if new in widths},
    **{f"ds_load_{width}_d16{hi}": f"ds_read_{width}_d16{hi}"
       for width in ("u8", "i8", "u16") for hi in ("", "_hi")},
    "ds_store_b8_d16_hi": "ds_write_b8_d16_hi", "ds_store_b16_d16_hi": "ds_write_b16_d16_hi",
}


def canonical_mnemonic(mnemonic: str) -> str:
    """The name ``mnemonic``'s semantics are registered under (itself when not renamed)."""
    renamed = RENAMED.get(mnemonic)
    if renamed is not None:
        return renamed
    for suffix in _SUFFIXES:
        if mnemonic.endswith(suffix):
            base = RENAMED.get(mnemonic.removesuffix(suffix))
            if base is not None:
                return base + suffix
    return mnemonic
