"""Command-line drivers (luthier-mc, luthier-opt)."""
