"""Building blocks shared by every dashboard feature: formatting, fitting, tables, pacing."""
