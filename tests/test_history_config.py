"""`perftui history --config`: a configuration is named by the words of its label."""

from __future__ import annotations

import pytest

from perftui.cli.common import CliError
from perftui.cli.history import pick_config
from perftui.domain.records import RunConfig

T1, T16 = RunConfig(batch=1, threads=1), RunConfig(batch=1, threads=16)
MEASURED = [(T16, 3), (T1, 2)]


def test_words_of_a_label_name_one_configuration_not_a_prefix_of_another() -> None:
    assert pick_config(MEASURED, "b1 t1") == T1
    assert pick_config(MEASURED, "t16") == T16
    assert pick_config(MEASURED, T1.label()) == T1
    assert pick_config(MEASURED, None) == T16  # the most measured


def test_words_shared_by_several_configurations_say_so_and_list_them() -> None:
    with pytest.raises(CliError, match="matches several configurations; measured: b1 t1"):
        pick_config(MEASURED, "b1")
