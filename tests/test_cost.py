"""What a machine costs: the price rule, cost per million inferences, and where it is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perftui.domain.errors import InputError
from perftui.domain.limits import parse_price
from perftui.domain.measurement.cost import cost_per_million, cost_text, environment_price
from perftui.targets.registry import TargetBook, targets_path
from tests.cli_helpers import QUICK, one_error_line, perftui
from tests.conftest import MOBILENET


def test_cost_per_million_inferences():
    # 0.36 per hour at 1000 inferences/s: 3.6 M inferences an hour, 0.1 per million
    assert cost_per_million(1000.0, 0.36) == pytest.approx(0.1)
    assert cost_per_million(None, 0.36) is None
    assert cost_per_million(1000.0, None) is None
    assert cost_per_million(0.0, 0.36) is None
    assert cost_text(None) == "-" and cost_text(0.1234) == "0.123"
    assert environment_price({"price_per_hour": 0.2}) == 0.2
    assert environment_price({"price_per_hour": "x"}) is None and environment_price(None) is None


@pytest.mark.parametrize("text", ["-1", "abc", "nan", "inf", "", "1e9"])
def test_a_price_that_is_not_one_is_refused(text: str):
    with pytest.raises(InputError, match="is not a price"):
        parse_price(text)
    assert parse_price(" 0.34 ") == 0.34 and parse_price("0") == 0.0


@pytest.mark.parametrize("price", ["-1", "abc"])
def test_bad_prices_are_one_line_and_store_nothing(isolated_db: Path, price: str):
    line = one_error_line(perftui("targets", "add", "box", "somehost", "--price-per-hour", price))
    assert "--price-per-hour" in line and "is not a price" in line
    line = one_error_line(perftui("targets", "price", "local", price))
    assert "is not a price" in line
    assert not targets_path(isolated_db).exists()
    line = one_error_line(perftui("targets", "add", "box", "--", "-oProxyCommand=x"))
    assert "is not an SSH destination" in line
    assert not targets_path(isolated_db).exists()


def test_a_priced_machine_records_its_price_with_each_run(isolated_db: Path):
    assert perftui("targets", "price", "local", "0.20").returncode == 0
    assert TargetBook(isolated_db).price("local") == 0.2
    args = ["bench", str(MOBILENET), "--engine", "onnxruntime", *QUICK]
    done = perftui(*args, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["environment"]["price_per_hour"] == 0.2
    [run], [group] = document["runs"], document["groups"]
    assert run["cost_per_million"] == pytest.approx(0.2 / (run["throughput_fps"] * 3600) * 1e6)
    assert group["cost_per_million"] == pytest.approx(run["cost_per_million"])

    assert perftui("targets", "price", "local", "0.40").returncode == 0
    shown = perftui("show", document["project"])
    assert shown.returncode == 0, shown.stderr
    assert "$/M inf" in shown.stdout  # the table shows the cost beside the throughput
    assert f"{run['cost_per_million']:.3g}" in shown.stdout  # at the price it was measured at
