"""Labels of configurations shown together: what differs between them, and what they share.

A table of a `seq=32,64` x `sync,async` x batch 1,2 matrix cut to 80 columns must still tell
its rows apart. The settings every row shares ('t:auto s:auto r:auto') are said once
(`ConfigLabels.common`); each row keeps only the settings that differ ('b1 async seq=64').
Pure text, no terminal: the dashboard fits these to its width (`tui/kit/fit.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perftui.domain.charts.series import short_label
from perftui.domain.records import RunConfig
from perftui.domain.settings import LabelPart


def label_parts(config: RunConfig, ran: str | None = None) -> list[LabelPart]:
    """`config`'s label parts and, when given, the precision the engine ran ('ran:bf16')."""
    return config.parts() + ([("ran", f"ran:{ran}", False)] if ran else [])


@dataclass(frozen=True)
class ConfigLabels:
    """Labels of configurations shown together: `labels[i]` names the i-th by the settings
    that differ among them; `common` is what they all share ('' when nothing is)."""

    labels: tuple[str, ...]
    common: str


def config_labels(
    configs: Sequence[RunConfig], ran: Sequence[str | None] | None = None
) -> ConfigLabels:
    """The labels of `configs` shown together (with the precision each ran, when given):
    the settings that vary are kept in each label, those they share go to `common`. Two
    different configurations never read the same; one configuration (or several of the
    same) keeps its usual label (`series.short_label`), as there is nothing to cut."""
    rans = list(ran) if ran is not None else [None] * len(configs)
    parts = [label_parts(c, r) for c, r in zip(configs, rans, strict=True)]
    rows = [{key: (text, quiet) for key, text, quiet in row} for row in parts]
    keys: list[str] = []
    for row in rows:
        keys += [key for key in row if key not in keys]
    varying = [
        key
        for key in keys
        if len({row.get(key, ("-", False))[0] for row in rows}) > 1
        and not all(row.get(key, ("", True))[1] for row in rows)  # the api's own hints
    ]
    if not varying:  # one configuration: its usual label
        whole = [
            short_label(c) + (f" ran:{r}" if r else "") for c, r in zip(configs, rans, strict=True)
        ]
        return ConfigLabels(tuple(whole), "")
    labels = tuple(
        " ".join(row.get(key, (_unset(key), False))[0] for key in varying) for row in rows
    )
    common = " ".join(text for key, text, quiet in parts[0] if key not in varying and not quiet)
    return ConfigLabels(labels, common)


def _unset(key: str) -> str:
    """The text of a setting one configuration lacks: 'seq=-' for a dim, 'ran:-'."""
    return f"{key[4:]}=-" if key.startswith("dim ") else f"{key}:-"
