"""Fitting text into terminal cells: ellipsis cuts, header parts dropped by rank, flex column."""

from __future__ import annotations

from perftui.tui.kit.fit import cut, fit_parts, flex_width, room_left


def test_cut_keeps_text_that_fits_and_ends_longer_text_with_an_ellipsis():
    assert cut("mobilenet", 9) == "mobilenet"
    assert cut("mobilenet-fp32-int8-2", 12) == "mobilenet-f…"
    assert len(cut("mobilenet-fp32-int8-2", 12)) == 12
    assert cut("abc", 0) == "…"


def test_cut_in_the_middle_keeps_the_end_that_tells_names_apart():
    assert cut("mobilenet-fp32-ort", 12, middle=True) == "mobile…2-ort"
    assert cut("mobilenet-fp32-ov", 12, middle=True) == "mobile…32-ov"
    assert cut("mobilenet-fp32-int8-2", 15, middle=True) == "mobilen…-int8-2"
    assert cut("short", 12, middle=True) == "short"
    assert cut("abcdefgh", 4, middle=True) == "abc…"


HEADER = [
    ("mobilenet-fp32-ov", 0),
    ("mobilenet_fp32.xml", 4),
    ("openvino/CPU", 1),
    ("1 run(s)", 3),
    ("best 1,109 items/s", 2),
]


def test_fit_parts_keeps_everything_when_there_is_room():
    assert fit_parts(HEADER, 120) == [text for text, _ in HEADER]


def test_fit_parts_drops_the_highest_rank_first_and_keeps_the_order():
    # the whole line is 81 cells: the model file (rank 4) goes first
    assert fit_parts(HEADER, 78) == [
        "mobilenet-fp32-ov",
        "openvino/CPU",
        "1 run(s)",
        "best 1,109 items/s",
    ]
    assert fit_parts(HEADER, 40) == ["mobilenet-fp32-ov", "openvino/CPU"]
    line = "  ".join(fit_parts(HEADER, 51))
    assert len(line) == 51 and line.endswith("items/s") and "run(s)" not in line
    assert "items/s" not in "  ".join(fit_parts(HEADER, 50))


def test_fit_parts_never_drops_the_first_part_but_cuts_it():
    assert fit_parts(HEADER, 10) == ["mobilenet…"]
    assert fit_parts([("name", 0)], 20) == ["name"]
    assert fit_parts([], 20) == []


def test_flex_width_is_what_the_other_columns_leave_within_bounds():
    # 80 cells, four other columns of 5 cells, 2 cells of padding per column (5 columns)
    assert flex_width(80, [5, 5, 5, 5]) == 40
    assert flex_width(60, [5, 5, 5, 5]) == 30
    assert flex_width(20, [5, 5, 5, 5]) == 8
    assert flex_width(80, [5], maximum=30) == 30
    assert room_left(80, [5, 5, 5, 5]) == 50
    assert room_left(20, [5, 5, 5, 5]) == -10


def test_the_new_domain_modules_import_no_textual():
    import subprocess
    import sys

    code = (
        "import sys, perftui.tui.kit.fit, perftui.tui.kit.pacing; "
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_configuration_labels_shorten_words_before_cutting():
    """Issue 25, item 5: '…1 r:auto async seq=64' for two runs that differ in threads."""
    from perftui.tui.kit.fit import fit_labels

    labels = ["b1 t1 r:auto async seq=64", "b1 t2 r:auto async seq=64", "b1 t1 r1 async seq=64"]
    assert fit_labels(labels, 40) == labels
    shown = fit_labels(labels, 22)
    assert shown == ["b1 t1 r:a async seq=64", "b1 t2 r:a async seq=64", "b1 t1 r1 async seq=64"]
    shown = fit_labels(labels, 19)
    assert len(set(shown)) == 3 and all(len(s) <= 19 for s in shown), shown
    assert shown[0] == "b1 t1 r:a as seq=64"
