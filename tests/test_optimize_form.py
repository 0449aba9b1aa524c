"""The optimize dialog's form (perftui.optimize.form): fields checked as typed, the options it
asks for, the INT8 project's default name."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.domain.forms.fields import FieldError
from perftui.domain.names import int8_name
from perftui.optimize.form import check_field, form_from_options, options_from_form
from perftui.optimize.runner import OptimizeOptions


def test_int8_names_follow_the_method_and_avoid_taken_ones():
    assert int8_name("net", "static") == "net-int8"
    assert int8_name("net", "dynamic") == "net-int8-dynamic"
    assert int8_name("net", "static", {"net-int8", "net-int8-2"}) == "net-int8-3"


def test_form_fields_are_checked_as_typed(tmp_path: Path):
    folder = tmp_path / "calib"
    folder.mkdir()
    (tmp_path / "one.npy").write_bytes(b"x")
    assert check_field("calibration", "") is None
    assert check_field("calibration", str(folder)) is None
    assert "no such folder" in (check_field("calibration", str(tmp_path / "nope")) or "")
    assert "is a file" in (check_field("calibration", str(tmp_path / "one.npy")) or "")
    assert check_field("samples", "") is None and check_field("samples", "8") is None
    for bad in ("0", "-1", "x", "1.5"):
        assert "at least 1" in (check_field("samples", bad) or ""), bad
    assert check_field("shapes", "input_ids[1,128]") is None
    assert "cannot read shape" in (check_field("shapes", "input_ids[1,") or "")
    assert check_field("name", "") == "the new project needs a name"
    assert "already exists" in (check_field("name", "net", {"net"}) or "")
    assert check_field("method", "dynamic") is None
    assert check_field("method", "int4") is not None


def test_options_from_the_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calib").mkdir()
    values = {"method": "static", "calibration": "calib", "samples": " 4 ", "shapes": ""}
    options = options_from_form("net", {**values, "name": "net-int8"})
    assert options == OptimizeOptions("net", "static", str(tmp_path / "calib"), 4, "net-int8", ())
    assert form_from_options(options)["samples"] == "4"
    with pytest.raises(FieldError) as caught:
        options_from_form("net", {**values, "samples": "0", "name": "taken"}, {"taken"})
    assert caught.value.field == "samples"  # the first field in form order
    random = options_from_form(
        "net", {"method": "dynamic", "calibration": "", "samples": "", "shapes": "a[1,2]",
                "name": "q"}
    )  # fmt: skip
    assert random.calibration is None and random.samples is None and random.shapes == ("a[1,2]",)
