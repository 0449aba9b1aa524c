"""The benchmark feature: the configuration form and the live run."""
