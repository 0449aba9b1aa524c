"""domain.errors.one_line: an exception as the one line a person reads."""

from __future__ import annotations

from perftui.domain.errors import InputError, StoreError, one_line


def test_our_errors_read_as_they_are_and_others_with_their_type():
    assert one_line(InputError("batch 0 is out of range\nmore detail")) == "batch 0 is out of range"
    assert one_line(StoreError("database is locked")) == "database is locked"
    assert one_line(ValueError("  bad value \n trace")) == "ValueError: bad value"
    assert one_line(RuntimeError()) == "RuntimeError"
    assert one_line(InputError("")) == "InputError"
