"""The Python hook API: operators become arith, branches scf.if, mistakes clear errors.

Each test builds a small hook and checks the printed IR (the ops and their order), or
the exception and that its message names the hook.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from luthier.frontend.hooks import (
    Const,
    HookBuilder,
    HookModule,
    Operand,
    Reg,
    Site,
    Value,
    f32,
    f64,
    i1,
    i32,
    i64,
    opcode_names,
)


def test_operators_map_to_arith() -> None:
    tool = HookModule()

    @tool.hook(args=[i32, i32])
    def ops(h: HookBuilder, a: Value, b: Value) -> None:
        for value in (a + b, a - b, a * b, a & b, a | b, a ^ b, a << b, a >> b, a // b,
                      a % b, a.ashr(b)):
            assert value.width == 32
        for value in (a == b, a != b, a < b, a <= b, a > b, a >= b, a.lt_s(b)):
            assert value.width == 1

    lines = [line.split("=", 1)[1].split()[0] for line in tool.text().splitlines()
             if "arith." in line]
    assert lines == ["arith.addi", "arith.subi", "arith.muli", "arith.andi", "arith.ori",
                     "arith.xori", "arith.shli", "arith.shrui", "arith.divui",
                     "arith.remui", "arith.shrsi"] + ["arith.cmpi"] * 7
    text = tool.text()
    for predicate in ("eq", "ne", "ult", "ule", "ugt", "uge", "slt"):
        assert f"arith.cmpi {predicate}, %a, %b : i32" in text


def test_python_ints_take_the_other_side_s_type() -> None:
    tool = HookModule()

    @tool.hook(args=[i64])
    def add(h: HookBuilder, x: Value) -> None:
        assert (1 + x).width == 64
        assert (x * 8).width == 64

    text = tool.text()
    assert text.count("arith.constant 1 : i64") == 1
    assert text.count("arith.constant 8 : i64") == 1


def test_constants_wrap_to_signed_form() -> None:
    tool = HookModule()

    @tool.hook()
    def consts(h: HookBuilder) -> None:
        h.const(0xFFFFFFFF, i32)
        h.const(-1, i64)

    text = tool.text()
    assert "arith.constant -1 : i32" in text and "arith.constant -1 : i64" in text


def test_width_changes() -> None:
    tool = HookModule()

    @tool.hook(args=[i32, i64])
    def widths(h: HookBuilder, a: Value, b: Value) -> None:
        assert a.zext(i64).width == 64
        assert a.sext(i64).width == 64
        assert b.trunc(i32).width == 32

    text = tool.text()
    assert "arith.extui %a : i32 to i64" in text
    assert "arith.extsi %a : i32 to i64" in text
    assert "arith.trunci %b : i64 to i32" in text


def test_if_without_results() -> None:
    tool = HookModule()
    counter = tool.global_var("c", size=8)

    @tool.hook(args=[i32])
    def guarded(h: HookBuilder, n: Value) -> None:
        with h.if_(n < 10):
            h.atomic("add", h.global_addr(counter), h.const(1, i64))

    text = tool.text()
    assert "scf.if %1 {" in text
    assert "scf.yield" not in text  # implicit without results, as MLIR prints it
    assert text.index("instr.atomic") < text.index("instr.return")


def test_if_else_with_results() -> None:
    tool = HookModule()

    @tool.hook(args=[i32])
    def pick(h: HookBuilder, n: Value) -> None:
        one = h.if_else(n == 0, lambda: n + 1, lambda: n * 2)
        assert one.width == 32
        pair = h.if_else(n == 1, lambda: (n, n.zext(i64)), lambda: (n, n.sext(i64)))
        assert [value.width for value in pair] == [32, 64]
        h.if_else(n == 2, lambda: None, lambda: None)

    text = tool.text()
    assert "scf.if %1 -> (i32) {" in text
    assert "-> (i32, i64)" in text
    assert text.count("scf.yield") == 4


def test_if_else_branches_must_agree() -> None:
    tool = HookModule()
    with pytest.raises(TypeError, match=r"hook @bad: if_else: the branches give \(i32\) "
                                        r"and \(i64\)"):
        @tool.hook(args=[i32])
        def bad(h: HookBuilder, n: Value) -> None:  # pyright: ignore[reportUnusedFunction]
            h.if_else(n == 0, lambda: n, lambda: n.zext(i64))


def test_width_mismatch_names_the_hook() -> None:
    tool = HookModule()
    with pytest.raises(TypeError, match=r"hook @mix: i32 \+ i64: the widths differ"):
        @tool.hook(args=[i32, i64])
        def mix(h: HookBuilder, a: Value, b: Value) -> None:  # pyright: ignore[reportUnusedFunction]
            _ = a + b


#: Hook bodies that make one mistake, the exception and the message it carries.
MISTAKES: list[tuple[Callable[[HookBuilder], object], type[Exception], str]] = [
    (lambda h: h.atomic("add", h.const(0, i32), h.const(1, i32)), TypeError,
     "the address of atomic must be i64, not i32"),
    (lambda h: h.atomic("nand", h.const(0, i64), h.const(1, i32)), ValueError,
     "atomic 'nand' is not one of"),
    (lambda h: h.read_reg("q7"), ValueError, "'q7' is not a register"),
    (lambda h: h.write_reg("v0", h.const(1, i64)), TypeError,
     "the value written to v0 must be i32, not i64"),
    (lambda h: h.workgroup_id("w"), ValueError, "takes \"x\", \"y\" or \"z\", not 'w'"),
    (lambda h: h.kernarg(4, i64), ValueError, "kernarg reads an aligned i32 or i64"),
    (lambda h: h.const(1 << 40, i32), ValueError, "does not fit in i32"),
    (lambda h: h.const(1, i32).zext(i32), TypeError, "the type must be wider"),
    (lambda h: h.ballot(h.const(1, i32)), TypeError, "the condition of ballot must be i1"),
    (lambda h: bool(h.const(1, i1)), TypeError, "no Python truth value"),
]


@pytest.mark.parametrize(("body", "error", "message"), MISTAKES)
def test_intrinsic_mistakes(body: Callable[[HookBuilder], object], error: type[Exception],
                            message: str) -> None:
    tool = HookModule()
    with pytest.raises(error, match="^hook @oops: .*" + re.escape(message)):
        tool.hook(name="oops")(body)


def test_values_stay_in_their_hook_and_branch() -> None:
    tool = HookModule()
    kept: list[Value] = []

    @tool.hook()
    def first(h: HookBuilder) -> None:
        kept.append(h.lane_id())

    with pytest.raises(ValueError, match="hook @second: a value of hook @first"):
        @tool.hook()
        def second(h: HookBuilder) -> None:  # pyright: ignore[reportUnusedFunction]
            _ = kept[0] + 1

    with pytest.raises(ValueError, match="hook @third: a value defined inside an if_"):
        @tool.hook(args=[i1])
        def third(h: HookBuilder, c: Value) -> None:  # pyright: ignore[reportUnusedFunction]
            inner: list[Value] = []
            with h.if_(c):
                inner.append(h.lane_id())
            _ = inner[0] + 1


def test_globals_belong_to_their_module() -> None:
    other = HookModule().global_var("elsewhere", size=8)
    tool = HookModule()
    with pytest.raises(ValueError, match="global @elsewhere is not declared in this hook"):
        @tool.hook()
        def uses(h: HookBuilder) -> None:  # pyright: ignore[reportUnusedFunction]
            h.global_addr(other)


def test_parameters_match_args() -> None:
    tool = HookModule()
    with pytest.raises(TypeError, match="hook @two: the function takes 2 parameters; it "
                                        "needs the builder and 2"):
        @tool.hook(args=[i32, i32])
        def two(h: HookBuilder, a: Value) -> None:  # pyright: ignore[reportUnusedFunction]
            pass


def test_insert_builds_the_selector_and_arguments() -> None:
    tool = HookModule()

    @tool.hook(args=[i64, i32, i32, i32])
    def site(h: HookBuilder, a: Value, b: Value, c: Value, d: Value) -> None:
        pass

    tool.insert(site, at="instruction", kernel="k", mnemonic="global_*", cls="FLAT",
                first=2, last=9, args=[Reg("s[4:5]"), Const(5, i32), Operand("vaddr"),
                                       Site("opcode")])
    assert ('instr.insert @site {at = "instruction", kernel = "k", mnemonic = "global_*", '
            'class = "FLAT", first = 2 : i64, last = 9 : i64, args = [#instr.reg<"s[4:5]">, '
            '#instr.const<5 : i32>, #instr.operand<"vaddr">, #instr.site<"opcode">]}'
            in tool.text())


def test_insert_mistakes() -> None:
    tool = HookModule()

    @tool.hook(args=[i64])
    def wide(h: HookBuilder, a: Value) -> None:
        pass

    with pytest.raises(TypeError, match=r"insertion of @wide: argument 0 \(Site"):
        tool.insert(wide, args=[Site("index")])
    with pytest.raises(TypeError, match="the hook takes 1 arguments, the insertion passes 0"):
        tool.insert(wide)
    with pytest.raises(ValueError, match="at='everywhere' is not one of"):
        tool.insert(wide, at="everywhere", args=[Reg("s[0:1]")])
    with pytest.raises(ValueError, match="the name is already declared"):
        tool.global_var("wide", size=8)
    with pytest.raises(ValueError, match=r"Site\('pc'\) is not one of opcode"):
        Site("pc")
    with pytest.raises(ValueError, match="Reg\\('q1'\\)"):
        Reg("q1")


def test_opcode_names_follow_the_isa_table() -> None:
    names = opcode_names("gfx90a")
    assert len(names) == 3870
    assert names[1315] == "global_load_dword" and names[3483] == "v_lshlrev_b32_e32"
    assert opcode_names("gfx1100")[0] != names[0]  # each target its own table
    with pytest.raises(ValueError, match="'gfx1150' is not a supported target"):
        opcode_names("gfx1150")


def test_float_values_take_the_float_ops() -> None:
    """f32/f64 values: operators as arith.*f, ordered compares (``!=`` unordered, as C's),
    Python numbers as float constants of the value's type, conversions and bitcasts."""
    tool = HookModule()
    out = tool.global_var("out", size=8)

    @tool.hook(args=[i32])
    def floats(h: HookBuilder, n: Value) -> None:  # pyright: ignore[reportUnusedFunction]
        x = n.uitofp(f32)
        y = -(x * 0.5 + 1 - x)
        assert y.is_float and y.type == f32
        for value in (x == y, x != y, x < y, x <= y, x > y, x >= y, x.cmpf("uno", y)):
            assert value.width == 1
        d = h.select(x < 2, y, 2.5).extf(f64)
        d = d.minnum(1.0).maxnum(d)
        h.store(d.truncf(f32), h.global_addr(out))
        h.store(d.fptosi(i32) + x.bitcast(i32), h.global_addr(out))
        h.store(h.load(h.global_addr(out), f64), h.global_addr(out))
        n.sitofp(f64)

    text = tool.text()
    ops = [line.split("=", 1)[1].split()[0] for line in text.splitlines()
           if "arith." in line and "constant" not in line]
    assert ops == ["arith.uitofp", "arith.mulf", "arith.addf", "arith.subf", "arith.negf"] \
        + ["arith.cmpf"] * 8 + ["arith.select", "arith.extf", "arith.minnumf",
                                "arith.maxnumf", "arith.truncf", "arith.fptosi",
                                "arith.bitcast", "arith.addi", "arith.sitofp"]
    for predicate in ("oeq", "une", "olt", "ole", "ogt", "oge", "uno"):
        assert f"arith.cmpf {predicate}" in text
    for constant in ("5.000000e-01 : f32", "1.000000e+00 : f32", "2.500000e+00 : f32",
                     "2.000000e+00 : f32", "1.000000e+00 : f64"):
        assert f"arith.constant {constant}" in text
    assert "instr.load" in text and ": f64" in text


FLOAT_MISTAKES: list[tuple[Callable[[HookBuilder], object], type[Exception], str]] = [
    (lambda h: h.const(1, i32).uitofp(f32) // 2, TypeError, "'//' is an integer operation"),
    (lambda h: h.const(1, i32) + 0.5, TypeError, "is a float beside an integer"),
    (lambda h: h.const(1.0, f32) + h.const(1.0, f64), TypeError, "say which with .extf"),
    (lambda h: h.const(1.0, f32) + h.const(1, i32), TypeError, "convert with .sitofp"),
    (lambda h: h.compare("eq", h.const(1, i32), 1).sitofp(f32), TypeError,
     "the operand must be an i32 or i64"),
    (lambda h: h.const(1.0, f32).fptosi(f64), TypeError, "the result must be an i32 or i64"),
    (lambda h: h.const(1.0, f64).extf(f64), TypeError, "extf goes from f32 to f64"),
    (lambda h: h.const(1.0, f64).bitcast(i32), TypeError, "the widths must be the same"),
    (lambda h: h.const(1.0, f32).cmpf("lt", 1.0), ValueError, "cmpf 'lt' is not one of"),
    (lambda h: h.const(0.5, i32), TypeError, "is not an integer constant"),
    (lambda h: h.atomic("add", h.const(0, i64), h.const(1.0, f32)), TypeError,
     "the value of atomic must be i32 or i64, not f32"),
    (lambda h: h.const(1.0, f32).zext(i64), TypeError, "'zext' is an integer operation"),
    (lambda h: h.const(1.0, f32).fma(h.const(1.0, f64), 1.0), TypeError,
     "f32 fma f64: the types differ"),
    (lambda h: h.const(1.0, f32).fma(2.0, h.const(1, i32)), TypeError,
     "'fma' is a float operation, not for i32"),
]


def test_fma_is_one_math_fma_with_constants_of_the_value_type() -> None:
    tool = HookModule()
    out = tool.global_var("out", size=8)

    @tool.hook(args=[i32])
    def fused(h: HookBuilder, n: Value) -> None:  # pyright: ignore[reportUnusedFunction]
        x = n.sitofp(f64)
        h.store(x.fma(x, 0.25), h.global_addr(out))

    text = tool.text()
    assert "math.fma" in text and text.count("math.fma") == 1
    assert "arith.constant 2.500000e-01 : f64" in text


@pytest.mark.parametrize(("body", "error", "message"), FLOAT_MISTAKES)
def test_float_mistakes(body: Callable[[HookBuilder], object], error: type[Exception],
                        message: str) -> None:
    tool = HookModule()
    with pytest.raises(error, match=re.escape(message)):
        tool.hook(name="bad")(body)


def test_float_parameters_take_float_constants() -> None:
    """An f32/f64 parameter takes Const(x, f32/f64), kept as the float's bits (0.1 rounded
    to f32 once); a float constant for an integer parameter, an integer constant or a
    register for a float one, and a float value for an integer type are refused."""
    tool = HookModule()

    @tool.hook(args=[f32, f64])
    def scale(h: HookBuilder, k: Value, d: Value) -> None:
        assert k.is_float and d.is_float

    tool.insert(scale, at="kernel_entry", args=[Const(0.1, f32), Const(-2, f64)])
    assert ("args = [#instr.const<0.1 : f32>, #instr.const<-2.0 : f64>]" in tool.text())

    @tool.hook(args=[i32])
    def count(h: HookBuilder, n: Value) -> None:
        pass

    with pytest.raises(TypeError, match=r"argument 0 \(Const\(value=0.5, type=Float32Type"
                                        r"\(\)\)\) is f32, the hook takes i32"):
        tool.insert(count, args=[Const(0.5, f32)])
    with pytest.raises(TypeError, match=r"argument 0 \(Const\(value=1, type=IntegerType"):
        tool.insert(scale, args=[Const(1, i32), Const(1.0, f64)])
    with pytest.raises(TypeError, match=r"argument 0 \(Reg\(name='v0'\)\) is 32 bits, the hook "
                                        "takes f32"):
        tool.insert(scale, args=[Reg("v0"), Const(1.0, f64)])
    with pytest.raises(ValueError, match=r"an integer type takes an integer"):
        Const(1.5, i32)
