"""The tiers (tests/conftest.py): each test is marked by what it does, whatever its file
says, so `pytest -m "not slow"` leaves out every engine, SSH, app and command test."""

from __future__ import annotations

import pytest

ENGINE = "tests/test_cli_bench.py::test_sample_models_sync_and_async"
"""The sample models measured by `perftui bench` on both engines."""
SSH = "tests/test_targets.py::test_bench_on_a_target_stores_runs_with_its_environment"
PILOT = "tests/tui/test_projects.py::test_open_benchmark_and_back"
COMMAND = "tests/test_cli_bad_input.py::test_show_unknown_project"
"""`perftui show` in another interpreter, refused: no engine."""
PURE = "tests/test_student_t.py::test_the_gate_and_history_use_that_one_quantile"
CHART_MATH = "tests/tui/test_compare_chart_80.py::test_round_step"
"""Pure arithmetic in a file whose own `pytestmark` says tui: no app is started."""
TIERS = {"engine", "ssh", "tui", "cli", "slow"}


class Recorder:
    def __init__(self) -> None:
        self.marks: dict[str, set[str]] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            self.marks[item.nodeid] = {m.name for m in item.iter_markers()} & TIERS


@pytest.fixture(scope="module")
def tiers() -> dict[str, set[str]]:
    """The tier marks of the tests above, as a collection of them finds them."""
    recorder = Recorder()
    # in this process: no xdist, no cache, and not the snapshot plugin, whose session end
    # would remove the folder this session's snapshot tests write to
    args = [
        "--collect-only",
        "-q",
        "-n",
        "0",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:textual-snapshot",
    ]
    assert pytest.main([*args, ENGINE, SSH, PILOT, COMMAND, PURE, CHART_MATH], [recorder]) == 0
    return recorder.marks


def marks_of(tiers: dict[str, set[str]], node: str) -> list[set[str]]:
    found = [marks for nodeid, marks in tiers.items() if nodeid.startswith(node)]
    assert found, f"{node} was not collected"
    return found


def test_an_engine_test_is_engine_and_slow(tiers: dict[str, set[str]]) -> None:
    assert all(marks == {"engine", "cli", "slow"} for marks in marks_of(tiers, ENGINE))


def test_an_ssh_test_is_ssh_and_slow(tiers: dict[str, set[str]]) -> None:
    assert marks_of(tiers, SSH) == [{"engine", "ssh", "cli", "slow"}]  # `perftui bench` there


def test_a_pilot_test_is_tui_and_slow(tiers: dict[str, set[str]]) -> None:
    assert marks_of(tiers, PILOT) == [{"tui", "slow"}]


def test_a_command_that_runs_no_engine_is_cli_and_slow(tiers: dict[str, set[str]]) -> None:
    assert marks_of(tiers, COMMAND) == [{"cli", "slow"}]


def test_a_pure_test_has_no_tier_whatever_its_file_says(tiers: dict[str, set[str]]) -> None:
    assert marks_of(tiers, PURE) == [set()]
    assert all(marks == set() for marks in marks_of(tiers, CHART_MATH))
