"""Analyses over amdgpu_mc functions: CFG, call sites, the call graph."""
