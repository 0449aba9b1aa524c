"""Errors that carry one clear line for a person (the CLI exits 2, the dashboard notifies)."""


class InputError(ValueError):
    """Bad input from the person (path, model, option, shape); the message says what to do."""


class StoreError(RuntimeError):
    """The results database cannot be read or written; it is left untouched."""
