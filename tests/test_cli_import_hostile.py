"""Hostile import files and export targets through the real entry point: exit 2, one line
naming the first bad field, nothing stored."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import one_error_line, perftui


def export_with(run: dict[str, Any], **project: Any) -> dict[str, Any]:
    """A minimal export holding one project with one run, patched."""
    config = {"batch": 1, "threads": 0, "streams": "auto", "requests": "auto"}
    base_run = {"id": "a1", "config": {**config, "hint": "latency", "api": "sync"}}
    return {
        "perftui_export": 1,
        "projects": [
            {
                "name": "p",
                "model": "/m.onnx",
                "engine": "onnxruntime",
                "runs": [{**base_run, **run}],
                **project,
            }
        ],
    }


def bomb() -> dict[str, Any]:
    """Samples of 64 MB of zeros in about 64 kB, telling the truth about their count."""
    deflater = zlib.compressobj(9)
    chunks = [deflater.compress(bytes(1 << 24)) for _ in range(4)] + [deflater.flush()]
    data = base64.b64encode(b"".join(chunks)).decode("ascii")
    return {"dtype": "float32", "codec": "zlib+base64", "count": 1 << 24, "data": data}


HOSTILE = {
    "batch-text": (export_with({"config": {"batch": "abc"}}), "config.batch"),
    "api-evil": (export_with({"config": {"api": "evil"}}), "config.api"),
    "engine": (export_with({}, engine="os.system"), "engine"),
    "error-object": (export_with({"error": {"x": 1}}), "runs[0].error"),
    "started-number": (export_with({"started_at": 5}), "started_at"),
    "bomb": (export_with({"latency_samples": bomb()}), "latency_samples"),
    "profile-too-large": (  # more than a stored profile may take: unreadable once stored
        export_with(
            {"layers": [{"name": "a", "type": "Conv", "original_names": ["y" * 4096] * 10}]}
        ),
        "runs[0].layers",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_export_is_refused_whole(tmp_path: Path, case: str) -> None:
    document, field = HOSTILE[case]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(document))
    db = tmp_path / "db.json"
    line = one_error_line(perftui("import", str(path), db=db))
    assert field in line
    assert not db.exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"perftui_export": 1e999}', "too large"),
        ('{"perftui_export": ' + "7" * 5000 + "}", "5000 digits"),
        ("[" * 50_000, "nested too deeply"),
    ],
)
def test_numbers_and_nesting_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text)
    db = tmp_path / "db.json"
    assert message in one_error_line(perftui("import", str(path), db=db))
    assert not db.exists()


def test_export_to_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "out.json"
    line = one_error_line(perftui("export", "-o", str(target), db=tmp_path / "db.json"))
    assert "does not exist" in line and not target.exists()


def test_a_layer_row_with_other_fields_is_stored_as_a_profile_row(tmp_path: Path) -> None:
    """An export's free-form field in a layer row is not stored: a long one would make the
    profile larger than a stored profile may be, and the project unreadable."""
    from perftui.store.database import Store

    row = {"name": "conv1", "type": "Convolution", "time_ms": 2, "note": "x" * 40_000}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export_with({"layers": [row]})))
    db = tmp_path / "db.json"
    assert perftui("import", str(path), db=db).returncode == 0
    (run,) = Store(db).runs("p")
    assert [(layer.name, layer.type, layer.time_ms) for layer in run.layers] == [
        ("conv1", "Convolution", 2.0)
    ]
