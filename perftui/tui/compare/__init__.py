"""The compare feature: setup (projects, runs, threshold), summary and its tabs."""
