"""Every kernel of the corpus is run against a host reference.

The ``test_corpus_*.py`` files compare the emulator's outputs with references written from
each kernel's source meaning (NumPy or plain Python; nothing of the emulator's). This test
reads those files and checks that each kernel of every theme's code object is run by one
of them with a literal theme and kernel name, so a kernel added to the corpus without a
reference fails here instead of being trusted on "original == instrumented" alone (a bug
both runs share would hide there).
"""

from __future__ import annotations

import ast
from pathlib import Path

from .common import CORPUS, program

HERE = Path(__file__).parent


def _themes() -> list[str]:
    """The themes build.sh compiles (one ``THEME.gfx90a.co`` each)."""
    for line in (CORPUS / "build.sh").read_text().splitlines():
        if line.startswith("THEMES=("):
            return line[len("THEMES=("):].rstrip(")").split()
    raise AssertionError("build.sh has no THEMES line")


def _parametrized(function: ast.FunctionDef) -> dict[str, list[str]]:
    """Argument name -> the strings of ``@pytest.mark.parametrize(name, [...])``."""
    values: dict[str, list[str]] = {}
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and len(decorator.args) == 2 \
                and isinstance(decorator.args[0], ast.Constant) \
                and isinstance(decorator.args[1], ast.List | ast.Tuple):
            values[str(decorator.args[0].value)] = [
                item.value for item in decorator.args[1].elts
                if isinstance(item, ast.Constant) and isinstance(item.value, str)]
    return values


def _names(node: ast.expr, parameters: dict[str, list[str]]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return parameters.get(node.id, [])
    return []


def _referenced() -> set[tuple[str, str]]:
    """(theme, kernel) of every ``run(theme, target, kernel, ...)`` call in the reference
    tests, with names given literally or by the test's parametrization."""
    found: set[tuple[str, str]] = set()
    for path in sorted(HERE.glob("test_corpus_*.py")):
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, ast.FunctionDef):
                continue
            parameters = _parametrized(function)
            for node in ast.walk(function):
                if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) \
                        or node.func.id != "run" or len(node.args) < 3:
                    continue
                for theme in _names(node.args[0], parameters):
                    found.update((theme, kernel)
                                 for kernel in _names(node.args[2], parameters))
    return found


def test_every_corpus_kernel_has_a_host_reference() -> None:
    referenced = _referenced()
    kernels = {(theme, kernel) for theme in _themes()
               for kernel in program(theme, "gfx90a").kernels}
    assert len(kernels) >= 48
    missing = sorted(kernels - referenced)
    assert not missing, f"corpus kernels without a host reference test: {missing}"
    unknown = sorted(referenced - kernels)
    assert not unknown, f"reference tests name kernels the corpus lacks: {unknown}"
