"""Targets: the machines a benchmark can run on, this one or SSH hosts (the system's `ssh`)."""
