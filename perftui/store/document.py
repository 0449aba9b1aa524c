"""The main document's bytes as tables: parsed and checked to be a perftui database of a
layout this version reads (perftui.store.layout), with the errors that say what is wrong."""

from __future__ import annotations

import json
from itertools import repeat
from pathlib import Path
from typing import Any

from perftui.domain.errors import StoreError

__all__ = ["damaged", "malformed", "parse"]


def damaged(path: Path, reason: str) -> StoreError:
    return StoreError(
        f"database {path} is damaged ({reason}); it was left untouched"
        " — move it aside or use --db PATH"
    )


def malformed(shown: Path, what: str, exc: Exception) -> StoreError:
    return damaged(shown, f"{what} is malformed ({type(exc).__name__}: {exc})")


def parse(raw: bytes, shown: Path, schema_version: int) -> dict[str, Any]:
    """The tables of the file's bytes; StoreError if they are not a perftui database."""
    if not raw.strip():
        return {}  # an empty file holds nothing to lose
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise damaged(shown, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise damaged(shown, f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise damaged(shown, "nested too deeply") from None
    if not isinstance(data, dict):
        raise damaged(shown, "the top level is not a JSON object")
    for name, table in data.items():
        if not isinstance(table, dict) or not all(map(isinstance, table.values(), repeat(dict))):
            raise damaged(shown, f"table {name!r} is not a table of documents")
    meta = list(data.get("meta", {}).values())
    if not meta:
        if any(data.values()):
            raise StoreError(
                f"database {shown} is not a perftui database (no schema version);"
                " it was left untouched — use --db PATH"
            )
        return data
    version = meta[0].get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise damaged(shown, f"bad schema version {version!r}")
    if version > schema_version:
        raise StoreError(
            f"database {shown} was written by a newer perftui (schema {version}; this version"
            f" reads schema {schema_version}); it was left untouched"
            " — upgrade perftui or use --db PATH"
        )
    for doc_id, doc in data.get("projects", {}).items():
        name, model, engine = doc.get("name"), doc.get("model"), doc.get("engine")
        if not (isinstance(name, str) and isinstance(model, str) and isinstance(engine, str)):
            raise damaged(shown, f"project document {doc_id} lacks name/model/engine")
    return data
