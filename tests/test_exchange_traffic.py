"""A run at a rate through export and import: its traffic figures come back equal, the CSV
carries its open-loop columns, and an imported traffic object that does not fit is refused
in one line naming the field, before anything is stored."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from perftui.domain.errors import InputError
from perftui.exchange.documents import CSV_COLUMNS, export_csv, import_document, write_export
from perftui.store.database import Store
from tests.store_helpers import make_project, make_run
from tests.traffic_runs import traffic_run


@pytest.fixture
def with_rates(tmp_path: Path) -> Store:
    store = Store(tmp_path / "src.json")
    store.ensure_project(make_project("p"))
    for rate, at in ((100.0, "01"), (600.0, "02")):
        run, samples = traffic_run(rate, project="p", started_at=f"2026-11-0{at[1]}T00:00:00Z")
        store.add_run(run, samples)
    store.add_run(make_run("p", started_at="2026-11-03T00:00:00Z"))  # a closed loop beside
    return store


def _document(store: Store) -> dict[str, Any]:
    out = io.StringIO()
    write_export(store, out)
    return json.loads(out.getvalue())


def test_a_rate_run_keeps_its_traffic_through_export_and_import(
    with_rates: Store, tmp_path: Path
) -> None:
    target = Store(tmp_path / "dst.json")
    import_document(target, _document(with_rates))
    before, after = with_rates.runs("p"), target.runs("p")
    assert [r.traffic for r in before] == [r.traffic for r in after]
    assert sum(r.traffic is not None for r in after) == 2
    saturated = [r.traffic for r in after if r.traffic and r.traffic.is_saturated]
    assert len(saturated) == 1 and saturated[0].rate == 600.0


def test_the_csv_carries_the_open_loop_columns_after_the_others(with_rates: Store) -> None:
    rows = list(csv.DictReader(io.StringIO(export_csv(with_rates))))
    assert CSV_COLUMNS[-9:] == (
        "offered_rate", "achieved_rate", "achieved_rate_ci_low", "achieved_rate_ci_high",
        "arrival_p99_ms", "arrival_p99_ci_low_ms", "arrival_p99_ci_high_ms",
        "lateness_p99_ms", "saturated",
    )  # fmt: skip
    by_rate = {row["rate"]: row for row in rows}
    assert by_rate["100.0"]["saturated"] == "false" and by_rate["600.0"]["saturated"] == "true"
    assert float(by_rate["100.0"]["offered_rate"]) == pytest.approx(100.0)
    assert float(by_rate["100.0"]["arrival_p99_ms"]) > 0
    assert by_rate[""]["saturated"] == by_rate[""]["offered_rate"] == ""  # a closed loop


def _traffic(document: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in document["projects"][0]["runs"] if "traffic" in r)["traffic"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("rate", 0, r"traffic\.rate: expected a rate above 0"),
        ("rate", 2e6, r"traffic\.rate"),
        ("offered_rate", "many", r"traffic\.offered_rate: expected a number"),
        ("achieved_ci", [1.0], r"traffic\.achieved_ci: expected a list of two"),
        ("achieved_ci", [1.0, "x"], r"traffic\.achieved_ci\[1\]: expected a number"),
        ("latency_ms", {"p50": 1.0}, r"traffic\.latency_ms key: expected one of median"),
        ("latency_ci_ms", {"p99": [1.0, 2.0, 3.0]}, r"traffic\.latency_ci_ms\.p99: expected"),
        ("saturated", "yes", r"traffic\.saturated: expected true or false"),
        ("reasons", ["x" * 5000], r"traffic\.reasons\[0\]: expected text of at most"),
        ("reasons", ["a\x1b[2Jb"], r"traffic\.reasons\[0\]: expected text without control"),
        ("busy", -1, r"traffic\.busy"),
        ("completed", 1.5, r"traffic\.completed: expected a whole number"),
    ],
)
def test_a_bad_traffic_object_is_refused_naming_its_field(
    with_rates: Store, tmp_path: Path, field: str, value: Any, message: str
) -> None:
    document = copy.deepcopy(_document(with_rates))
    _traffic(document)[field] = value
    target = Store(tmp_path / "dst.json")
    with pytest.raises(InputError, match=message) as info:
        import_document(target, document)
    assert "\n" not in str(info.value)
    assert not target.path.exists()


def test_a_traffic_object_missing_its_rates_is_refused(with_rates: Store, tmp_path: Path) -> None:
    document = copy.deepcopy(_document(with_rates))
    del _traffic(document)["achieved_rate"]
    target = Store(tmp_path / "dst.json")
    with pytest.raises(InputError, match=r"traffic\.achieved_rate: missing"):
        import_document(target, document)
    assert not target.path.exists()


def test_a_rate_of_zero_in_a_config_is_refused(with_rates: Store, tmp_path: Path) -> None:
    document = copy.deepcopy(_document(with_rates))
    document["projects"][0]["runs"][0]["config"]["rate"] = 0
    target = Store(tmp_path / "dst.json")
    with pytest.raises(InputError, match=r"config\.rate: expected a rate above 0"):
        import_document(target, document)
