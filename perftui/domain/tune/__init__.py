"""The policy of `perftui tune`: its space, what to measure next, judging and the playoff."""
