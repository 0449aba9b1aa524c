"""Settings typed as text (CLI flags, dashboard fields) and the builders that read them."""
