"""Benchmark planning, the child-process worker and the client that drives it. No textual."""
