"""A deliberately wrong llvm-mc, to prove that the harness counts what goes wrong.

It forwards the llvm-mc flags to llvm-mc-19 and breaks things on the way, chosen by its own
leading options (before the llvm-mc flags)::

    fake_mc.py --rename v_add_=v_sub_     # rewrite printed text: "disagree" / "text-differs"
    fake_mc.py --flip-encoding s_mov_b32  # change the first encoding byte of such lines
    fake_mc.py --substitute 0x7e]         # replace matching input lines by "s_nop 1" (bytes
                                          # or text): a different, valid instruction
    fake_mc.py --invalidate 0xd2,         # replace matching input lines by an invalid one
    fake_mc.py --crash-on 0xbe,           # Python exception at the first matching line
    fake_mc.py --abort-on 0xbe,           # SIGABRT at the first matching line, stdout unflushed
    fake_mc.py --hang-on 0xbe,            # sleep forever at the first matching line

Output before a crash is streamed first, as a tool that works line by line would. Each option
takes a substring of input lines; --rename and --flip-encoding act on printed instructions.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

LLVM_MC = os.environ.get("FAKE_MC_LLVM_MC", "llvm-mc-19")


def _options() -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rename", action="append", default=[])
    parser.add_argument("--flip-encoding", action="append", default=[])
    parser.add_argument("--substitute", action="append", default=[])
    parser.add_argument("--invalidate", action="append", default=[])
    parser.add_argument("--crash-on")
    parser.add_argument("--abort-on")
    parser.add_argument("--hang-on")
    return parser.parse_known_args()


def _rewrite_input(line: str, options: argparse.Namespace, disassemble: bool) -> str:
    if any(pattern in line for pattern in options.substitute):
        return "[0x01,0x00,0x80,0xbf]" if disassemble else "s_nop 1"
    if any(pattern in line for pattern in options.invalidate):
        return "[0xff,0xff,0xff,0xff]" if disassemble else "not_an_instruction v0"
    return line


def _rewrite_output(line: str, options: argparse.Namespace) -> str:
    for rule in options.rename:
        old, new = rule.split("=", 1)
        line = line.replace(old, new)
    if any(f"\t{name} " in line for name in options.flip_encoding):
        line = line.replace("encoding: [0x", "encoding: [0x7", 1)
    return line


def main() -> None:
    options, llvm_flags = _options()
    disassemble = "--disassemble" in llvm_flags
    lines = sys.stdin.read().splitlines()
    stop_at = len(lines)
    fault = None
    for kind in ("crash_on", "abort_on", "hang_on"):
        pattern = getattr(options, kind)
        if pattern is None:
            continue
        hits = [index for index, line in enumerate(lines) if pattern in line]
        if hits and hits[0] < stop_at:
            stop_at, fault = hits[0], kind
    text = "".join(_rewrite_input(line, options, disassemble) + "\n" for line in lines[:stop_at])
    result = subprocess.run(
        [LLVM_MC, *llvm_flags], input=text, capture_output=True, text=True, check=False
    )
    sys.stderr.write(result.stderr)
    sys.stdout.write(
        "".join(_rewrite_output(line, options) + "\n" for line in result.stdout.splitlines())
    )
    if fault == "crash_on":
        raise RuntimeError(f"fake crash on input line {stop_at + 1}")
    if fault == "abort_on":
        os.kill(os.getpid(), signal.SIGABRT)  # dies without flushing the buffered stdout
    if fault == "hang_on":
        sys.stdout.flush()
        time.sleep(3600)
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
