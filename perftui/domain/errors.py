"""Errors that carry one clear line for a person (the CLI exits 2, the dashboard notifies)."""


class InputError(ValueError):
    """Bad input from the person (path, model, option, shape); the message says what to do."""


class StoreError(RuntimeError):
    """The results database cannot be read or written; it is left untouched."""


def one_line(error: BaseException) -> str:
    """An exception as the one line a person reads: an InputError's or a StoreError's first
    line as it is (it says what to do), anything else's after its type."""
    lines = str(error).strip().splitlines()
    first = lines[0].strip() if lines else ""
    if isinstance(error, InputError | StoreError):
        return first or type(error).__name__
    return f"{type(error).__name__}: {first}" if first else type(error).__name__
