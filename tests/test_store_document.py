"""The main document's lined tables (perftui.store.document): what a write reads and writes
back of them is what a parsed dict would hold."""

from __future__ import annotations

import json
import random

import pytest

from perftui.store.document import LINED, LineTable, dump, split


def _check(table: str, key: str, doc: object) -> dict:
    if not isinstance(doc, dict):
        raise ValueError(f"{table} {key} is not a document")
    return doc


def _read(raw: bytes) -> dict[str, LineTable]:
    found = split(raw, _check)
    assert found is not None
    head, tables = found
    return {**json.loads(head), **tables}


def _plain(data: dict) -> dict:
    return {name: dict(table) for name, table in data.items()}


@pytest.mark.parametrize("seed", range(40))
def test_edits_written_back_read_as_the_dict_edited_alike(seed: int) -> None:
    rng = random.Random(seed)
    names = ["a", "b", 'q"uote', "ünï", "x\ny", "projects", "shards", "c", "d", "e"]
    model: dict[str, dict] = {"meta": {"1": {"schema_version": 7}}, "projects": {}, "shards": {}}
    for name in rng.sample(names, rng.randint(0, len(names))):
        model["projects"][name] = {"name": name, "n": rng.random()}
        if rng.random() < 0.7:
            model["shards"][name] = {"project": name, "files": [name] * rng.randint(0, 3)}
    if rng.random() < 0.3:
        del model["meta"]
    raw = dump(model)
    assert json.loads(raw) == {**model, **{n: model.get(n, {}) for n in LINED}}
    for _ in range(rng.randint(1, 4)):  # writes, each reading what the last wrote
        data = _read(raw)
        assert _plain(data) == {**model, **{n: model.get(n, {}) for n in LINED}}
        edited = {n: t.copy() if isinstance(t, LineTable) else t for n, t in data.items()}
        for _ in range(rng.randint(0, 6)):
            table = rng.choice(LINED)
            key = rng.choice(names)
            if key in model[table] and rng.random() < 0.5:
                del model[table][key]
                del edited[table][key]
            else:
                doc = {"v": rng.random(), "k": key}
                model[table][key] = doc
                edited[table][key] = doc
            assert key not in model[table] or edited[table][key] == model[table][key]
        assert {n: len(edited[n]) for n in LINED} == {n: len(model[n]) for n in LINED}
        raw = dump(edited)
        assert json.loads(raw) == model
        assert list(json.loads(raw)["projects"]) == list(model["projects"])  # order kept


def test_a_document_written_otherwise_is_not_split() -> None:
    data = {"meta": {"1": {"schema_version": 7}}, "projects": {"a": {"name": "a"}}, "shards": {}}
    assert split(json.dumps(data).encode(), _check) is None
    assert split(json.dumps(data, indent=0).encode(), _check) is None
    assert split(dump(data)[:-1], _check) is None


def test_a_record_is_parsed_when_asked_for_and_checked() -> None:
    raw = dump({"projects": {"a": {"name": "a"}, "b": [1]}, "shards": {}})
    tables = _read(raw)
    assert tables["projects"]["a"] == {"name": "a"}
    with pytest.raises(ValueError, match="projects b is not a document"):
        tables["projects"]["b"]
