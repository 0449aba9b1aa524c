"""Pure domain logic: records, statistics, intervals and verdicts, comparison, settings. No I/O, no textual."""
