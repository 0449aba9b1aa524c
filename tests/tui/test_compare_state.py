"""The compare screens' state: checks, pins and swaps per side; the summary's sorts and
filters (no textual: the screens only draw it)."""

from __future__ import annotations

from perftui.domain.compare import Side, compare_projects
from perftui.tui.compare.state import SetupState, SideRuns, SummaryState
from tests.tui.conftest import LAYERS, make_run


def runs(project: str, *fps: float) -> list:
    return [make_run(project, 1, n + 1, value, n, layers=True) for n, value in enumerate(fps)]


def test_side_checks_pins_and_keeps_them_on_reload():
    side = SideRuns("a")
    first = [*runs("a", 100, 200), make_run("a", 8, 1, 0, 9, status="failed")]
    side.load(first, "median")
    assert side.checked == {first[0].id, first[1].id} and side.pinned is None
    assert side.pin(first[0].id) and side.pinned == first[0].id
    side.toggle(first[0].id)  # unchecked: no longer pinned
    assert first[0].id not in side.checked and side.pinned is None
    side.check_all("median")
    assert side.checked == {first[0].id, first[1].id}
    side.check_all("median")
    assert side.checked == set()
    side.toggle(first[1].id)
    newer = make_run("a", 2, 1, 300, 20)
    side.reload([*first, newer], "median")  # new runs come in checked, old keep their boxes
    assert side.checked == {first[1].id, newer.id}


def test_setup_swaps_sides_and_keeps_a_good_threshold_when_a_bad_one_is_typed():
    state = SetupState()
    state.sides[Side.A].name, state.sides[Side.B].name = "a", "b"
    state.sides[Side.A].load(runs("a", 100), "median")
    state.type_threshold("20")
    assert state.threshold == 20 and state.threshold_error is None
    state.type_threshold("fast")
    assert state.threshold == 20 and state.threshold_error
    assert state.compare() is not None and state.compare().threshold_ms is None
    state.swap()
    assert state.names() == {"A": "b", "B": "a"}
    state.sides[Side.A].name = "a"
    assert state.compare() is None  # the same project on both sides


def test_summary_sorts_filters_and_includes():
    c = compare_projects("a", runs("a", 100), "b", runs("b", 200))
    state = SummaryState(c)
    executed = {layer.type for layer in LAYERS if layer.time_ms > 0}
    assert state.included == executed and state.types_descending
    state.next_type_sort()
    assert state.type_sort == "b_time" and state.type_descending is None
    state.reverse_types()
    assert state.types_descending is False
    state.include_all()
    assert state.included == {r.type for r in c.layer_types}
    state.include_all()
    assert state.included == set()
    state.set_min_delta("x")
    assert state.delta_error and state.min_delta == 0
    state.set_min_delta("1")
    assert state.delta_error is None and state.shown_pairs() == []  # same layers, same times
    state.next_metric()
    assert state.metric == "latency"
