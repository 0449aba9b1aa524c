"""Catching regressions: the gate's decision and output, and history over time."""
