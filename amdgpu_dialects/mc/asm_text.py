"""Comments in LLVM-syntax AMDGPU assembly, shared by the assembler frontend and luthier-mc."""

from __future__ import annotations


def strip_comment(line: str) -> str:
    """Drop ``//`` and ``;`` comments, and a whole line starting with ``#``."""
    if line.lstrip().startswith("#"):
        return ""
    if '"' not in line:
        cut = min((i for i in (line.find(";"), line.find("//")) if i >= 0), default=-1)
        return line if cut < 0 else line[:cut]
    in_string = False
    for index, char in enumerate(line):
        if char == '"':
            in_string = not in_string
        elif not in_string and (char == ";" or line.startswith("//", index)):
            return line[:index]
    return line
