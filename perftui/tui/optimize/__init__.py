"""The optimize (INT8) feature: the options dialog and the progress box."""
