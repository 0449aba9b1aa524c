"""Pure domain logic: records, statistics, comparison, inspection and the store. No textual."""
