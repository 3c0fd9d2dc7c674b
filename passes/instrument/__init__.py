"""Instrumentation passes: hook insertion and inlining."""
