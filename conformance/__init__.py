"""Conformance harness: how often does ``luthier-mc`` agree with ``llvm-mc-19``?

The oracle is LLVM's own MC layer. The inputs are the instruction words and assembly lines of
LLVM's AMDGPU MC tests plus seeded random instruction words; the harness runs both tools through
their (identical) command lines in large batches, aligns every input with its output, and
reports agreement per target, mode and encoding class. Entry point: :func:`luthier.conformance.
cli.main` (``luthier-conformance`` / ``python -m luthier.conformance``).
"""
