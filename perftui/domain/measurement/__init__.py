"""A run's figures: statistics, 95 % intervals, verdicts, memory, load and cost."""
