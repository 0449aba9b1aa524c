"""perftui: a terminal workbench for measuring and comparing inference performance."""

__version__ = "0.1.0"
