"""Stored figures are tagged with the method that computed them (store.figure_docs.METHOD): a
change of what the figures come to must change the tag, or figures stored by the old method
would be shown as if the new one had found them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

import numpy as np

from perftui.store.figure_docs import METHOD, figures_doc
from tests.store_helpers import make_run
from tests.traffic_runs import traffic_run

COMPUTED = {"3": "818e87aad4261531", "4": "96a96f1dc1f9b5a3", "5": "7105467f23a58967"}
"""METHOD -> a digest of what `figures` comes to under it."""


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def figures() -> list[dict[str, Any]]:
    """The stored figures of runs of each kind the method tells apart."""
    rng = np.random.default_rng(7)
    steady = tuple(float(x) for x in rng.normal(500.0, 5.0, 12))
    noisy = tuple(float(x) for x in rng.normal(500.0, 400.0, 12))
    runs = [
        (replace(make_run("p"), window_fps=steady), rng.gamma(4.0, 1.0, 3000)),
        (replace(make_run("p"), window_fps=noisy), rng.gamma(1.0, 3.0, 400)),
        (replace(make_run("p"), window_fps=steady[:2]), rng.gamma(4.0, 1.0, 20)),
        (make_run("p"), None),
        (make_run("p", status="failed", error="boom", latency_ms=None), None),
        traffic_run(100.0),  # an open loop that kept up, judged by its traffic figures
        traffic_run(600.0),  # ... and one that did not
    ]
    return [_rounded(figures_doc(run, samples)) for run, samples in runs]


def test_the_method_tag_changes_with_what_the_figures_come_to() -> None:
    text = json.dumps(figures(), sort_keys=True).encode("utf-8")
    found = hashlib.sha256(text).hexdigest()[:16]
    assert COMPUTED.get(METHOD) == found, (
        f"the stored figures now come to {found}: if that is a change of method, set METHOD"
        " in perftui/store/figure_docs.py to a new value and COMPUTED[METHOD] to this digest"
    )
