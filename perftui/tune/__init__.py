"""`perftui tune`: search a project's settings for the most throughput under a latency budget."""
