"""The project detail: one screen of tabs (summary, runs, charts, types, layers, FLOPs)."""
