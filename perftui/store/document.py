"""The main document's bytes: its two large tables written a record per line, so that a write
that changes one project parses and writes the lines of that project alone.

    {"meta":{...},"environments":{...},"retired":{...},"projects":{
    "resnet":{...},
    "yolo":{...}
    },"shards":{
    "resnet":{...}
    }}

It is one JSON object, which any JSON reader reads (perftui.store.layout.parse does, for a
document this module did not write). ``projects`` and ``shards`` (`LINED`) are keyed by
project name. Compact JSON holds no newline, so in a document written here a line of a lined
table is one record, found by its key's text: `split` reads the other tables and leaves those
two as their bytes (`LineTable`), which `dump` writes back with the records a write changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import Any

from perftui.store.codec import dump_json

__all__ = ["LINED", "LineTable", "dump", "split"]

Doc = dict[str, Any]

LINED = ("projects", "shards")
"""The tables written a record per line, keyed by project name, in this order, last."""

Check = Callable[[str, str, Any], Doc]
"""Given a table's name, a record's key and its value: the record, or an exception (it is
not one)."""
Load = Callable[[bytes, str], Any]
"""JSON bytes and what they are -> their value, or an exception naming what is wrong."""


def _json(text: bytes, what: str) -> Any:
    return json.loads(text)


def _opener(name: str) -> bytes:
    return dump_json(name) + b":{"


def _line_key(key: str) -> bytes:
    return b"\n" + dump_json(key) + b":"


class _Block:
    """A lined table's records as read: where their bytes are in the document read
    (``\n"key":{...}``, joined by ``,``; not copied) and those parsed, shared by the copies
    a write makes of the table."""

    def __init__(
        self, name: str, whole: dict[str, Doc] | None, check: Check, load: Load = _json
    ) -> None:
        self.name = name
        self.raw = b""
        self.start = self.end = 0
        self.whole = whole
        """Every record, once parsed (at once: a reader of all of them)."""
        self.read: dict[str, Doc] = {}
        self.check = check
        self.load = load

    @classmethod
    def within(
        cls, name: str, raw: bytes, span: tuple[int, int], check: Check, load: Load
    ) -> _Block:
        block = cls(name, None, check, load)
        block.raw, (block.start, block.end) = raw, span
        return block

    def span(self, key: str) -> tuple[int, int] | None:
        """Where the key's line is: from its newline to its end (None: it has none)."""
        try:
            start = self.raw.find(_line_key(key), self.start, self.end)
        except UnicodeEncodeError:  # no key written is one (a lone surrogate)
            return None
        if start < 0:
            return None
        end = self.raw.find(b",\n", start, self.end)
        return start, self.end if end < 0 else end

    def get(self, key: str) -> Doc | None:
        if self.whole is not None:
            return self.whole.get(key)
        doc = self.read.get(key)
        if doc is None and (span := self.span(key)):
            text = self.raw[span[0] + len(_line_key(key)) : span[1]]
            value = self.load(text, f"record {key!r} of table {self.name!r}")
            doc = self.read[key] = self.check(self.name, key, value)
        return doc

    def all(self) -> dict[str, Doc]:
        if self.whole is None:
            text = b"{" + self.raw[self.start : self.end] + b"}"
            parsed = self.load(text, f"table {self.name!r}")
            self.whole = {key: self.check(self.name, key, doc) for key, doc in parsed.items()}
        return self.whole

    def count(self) -> int:
        if self.whole is not None and not self.raw:
            return len(self.whole)
        return self.raw.count(b"\n", self.start, self.end)


class LineTable(MutableMapping[str, Doc]):
    """A lined table: its records as read (parsed as they are asked for) and the records a
    write put or removed since (`changed`), which `dump` writes in their lines' place."""

    def __init__(self, block: _Block) -> None:
        self._block = block
        self._put: dict[str, Doc] = {}
        self._gone: set[str] = set()
        """Keys of records read that were removed (and perhaps put again, then last)."""

    @classmethod
    def of(
        cls, name: str, docs: Mapping[str, Doc], check: Check = lambda _, k, doc: doc
    ) -> LineTable:
        """The table `name` of records parsed already."""
        whole = {key: check(name, key, doc) for key, doc in docs.items()}
        return cls(_Block(name, whole, check))

    def copy(self) -> LineTable:
        """A copy to edit, sharing the records read."""
        table = LineTable(self._block)
        table._put = dict(self._put)
        table._gone = set(self._gone)
        return table

    def changed(self) -> set[str]:
        """The keys whose records were put or removed since the table was read."""
        return set(self._put) | self._gone

    def _read(self, key: str) -> Doc | None:
        return None if key in self._gone else self._block.get(key)

    def __getitem__(self, key: str) -> Doc:
        doc = self._put[key] if key in self._put else self._read(key)
        if doc is None:
            raise KeyError(key)
        return doc

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in self._put or self._read(key) is not None)

    def __setitem__(self, key: str, doc: Doc) -> None:
        self._put[key] = doc

    def __delitem__(self, key: str) -> None:
        found = self._put.pop(key, None) is not None
        if self._read(key) is not None:
            self._gone.add(key)
            found = True
        if not found:
            raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        read = self._block.all()
        yield from (key for key in read if key not in self._gone)
        yield from (key for key in self._put if key in self._gone or key not in read)

    def __len__(self) -> int:
        read = self._block.count() - len(self._gone)
        return read + sum(1 for key in self._put if self._read(key) is None)

    def lines(self) -> list[bytes | memoryview]:
        """The table's records as written, to be joined by commas: the lines read, with
        those put or removed since in their place (a record put again after its removal,
        last); runs of lines read unchanged are views of the bytes read, not copies."""
        block = self._block
        if not block.raw or len(self._put) + len(self._gone) > SPLICED:
            return _lines(self.items())
        spans = sorted((span, key) for key in self.changed() if (span := block.span(key)))
        view = memoryview(block.raw)
        found: list[bytes | memoryview] = []
        at = block.start
        for (start, end), key in spans:
            if start > at:  # the lines before, unchanged, without the comma after them
                found.append(view[at : start - 1])
            if key not in self._gone:
                found.append(_line(key, self._put[key]))
            at = end + 1  # past the comma after it
        if at < block.end:
            found.append(view[at : block.end])
        added = [k for k in self._put if k in self._gone or block.span(k) is None]
        return found + [_line(key, self._put[key]) for key in added]


SPLICED = 64
"""More records changed than this in one write are written from the parsed table, not
spliced into the bytes read one by one."""


def _line(key: str, doc: Doc) -> bytes:
    return _line_key(key) + dump_json(doc)


def dump(data: dict[str, Any]) -> bytes:
    """The document of the tables `data` (its lined tables a `LineTable` each, or not)."""
    head = dump_json({name: table for name, table in data.items() if name not in LINED})
    parts: list[bytes | memoryview] = [head[:-1]]
    for n, name in enumerate(LINED):
        table = data.get(name, {})
        lines = table.lines() if isinstance(table, LineTable) else _lines(table.items())
        parts.append((b"," if n or len(head) > 2 else b"") + _opener(name))
        for i, line in enumerate(lines):
            parts += (b",", line) if i else (line,)
        parts.append(b"\n}")
    parts.append(b"}")
    return b"".join(parts)


def _lines(records: Iterable[tuple[str, Doc]]) -> list[bytes | memoryview]:
    return [_line(key, doc) for key, doc in records]


def split(
    raw: bytes, check: Check, load: Load = _json
) -> tuple[bytes, dict[str, LineTable]] | None:
    """The document's other tables (a JSON object's bytes) and its lined tables, their
    records unparsed (`load`ed and `check`ed as they are asked for), if `dump` wrote it;
    else None."""
    first = raw.find(_opener(LINED[0]) + b"\n")
    last = raw.find(b"\n}," + _opener(LINED[1]), first)
    if first < 1 or last < 0 or not raw.startswith(b"{") or not raw.endswith(b"\n}}"):
        return None
    if first > 1 and raw[first - 1] != ord(","):
        return None
    head = raw[: first - 1] + b"}" if first > 1 else b"{}"
    blocks = (
        (first + len(_opener(LINED[0])), last),
        (last + 3 + len(_opener(LINED[1])), len(raw) - 3),
    )
    return head, {
        name: LineTable(_Block.within(name, raw, span, check, load))
        for name, span in zip(LINED, blocks, strict=True)
    }
