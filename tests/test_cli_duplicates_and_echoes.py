"""`--target local,local` is refused, not run once; a very long value is cut in the one-line
error that echoes it (domain.errors.cut_echoes, for the CLI and the dashboard)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perftui.domain.errors import ECHO_MAX, InputError, cut_echoes, one_line
from perftui.domain.forms.bench import parse_targets
from tests.cli_helpers import one_error_line, perftui
from tests.conftest import MOBILENET

LONG = "x" * 10_000


def test_a_target_named_twice_is_refused_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "db"
    line = one_error_line(perftui("bench", str(MOBILENET), "--target", "local,local", db=db))
    assert "'local' is named twice" in line
    assert not db.exists()  # nothing stored, nothing run
    with pytest.raises(InputError, match="named twice"):
        parse_targets("box, local,box", ["local", "box"])  # the form's Targets field too


@pytest.mark.parametrize(
    "args",
    [
        ("bench", str(MOBILENET), "--target", LONG),
        ("bench", str(MOBILENET), "--engine", LONG),
        ("show", LONG),
        ("targets", "price", LONG, "1"),
        (LONG,),  # argparse's own refusal
    ],
)
def test_a_long_value_is_cut_in_its_error(tmp_path: Path, args: tuple[str, ...]) -> None:
    line = one_error_line(perftui(*args, db=tmp_path / "db"))
    assert len(line) < 2 * ECHO_MAX + 100 and "…" in line, len(line)


def test_cut_echoes_cuts_long_words_only() -> None:
    line = cut_echoes(f"no project named {LONG!r}; see perftui projects")
    name = line.split()[3]
    assert len(name) == ECHO_MAX and name.startswith("'x") and name.endswith("x';")
    assert line.endswith("; see perftui projects")
    assert "…" in one_line(InputError(f"unknown {LONG}"))
    path = "/home/me/" + "models/" * 20 + "resnet50_int8.xml"  # a long path is kept whole
    short = f"cannot read {path}: no such file"
    assert cut_echoes(short) == short
