"""Chart data derived from stored runs: series, ticks, distributions, memory."""
