"""Pure domain logic: records, statistics, intervals and verdicts, comparison, settings.

No I/O, no processes, no terminal, no textual (tests/test_layering.py checks)."""
