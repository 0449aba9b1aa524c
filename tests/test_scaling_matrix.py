"""Issue 25, items 1 and 7: a scaling chart of a seq=32,64 x sync,async matrix neither mixes
seq values in one line nor hides half the matrix behind the newest run's settings: each
(fixed value, settings) pair is a series of its own, and each says its settings."""

from __future__ import annotations

from perftui.domain.charts.series import scalings
from tests.test_series import run

MATRIX = [
    run(
        1,
        threads,
        1000 * threads + 10 * seq + (api == "async"),
        f"{n:02d}",
        dims=(("seq", seq),),
        api=api,
    )
    for n, (threads, seq, api) in enumerate(
        (t, s, a) for t in (1, 2) for s in (32, 64) for a in ("sync", "async")
    )
]


def test_every_half_of_the_matrix_is_a_series_of_its_own():
    series = scalings(MATRIX, "threads")
    assert len(series) == 4  # batch 1 x (seq 32, 64) x (sync, async)
    assert sorted(s.settings for s in series) == [
        "s:auto r:auto lat async seq=32",
        "s:auto r:auto lat async seq=64",
        "s:auto r:auto sync seq=32",
        "s:auto r:auto sync seq=64",
    ]
    for s in series:
        assert [p.x for p in s.points] == [1, 2]
        seq = int(s.settings.split("seq=")[1])
        fps = [p.throughput_fps for p in s.points]
        assert all(int(f) % 1000 // 10 == seq for f in fps), (s.settings, fps)  # never another seq
    assert len(scalings(MATRIX, "batch")) == 8  # threads 1, 2 x four settings
