"""The main document as one write edits it: tables of documents by id, in TinyDB's JSON
(``{"table": {"1": {...}}}``, so TinyDB or any JSON tool still reads the file).

A write starts from the snapshot's tables, whose documents are shared and never changed: a
table is copied when the write first edits it, and an edited document is replaced by a new
one. The write commits them once (perftui.store.database_file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from perftui.store.layout import doc_key

__all__ = ["Doc", "Table", "Tables"]

Doc = dict[str, Any]


class Tables:
    """The tables of one write; `dirty` once any of them changed."""

    def __init__(self, data: dict[str, dict[str, Doc]]) -> None:
        self.data = dict(data)
        self.dirty = False
        self._copied: set[str] = set()

    def table(self, name: str) -> Table:
        return Table(self, name)

    def _edit(self, name: str) -> dict[str, Doc]:
        """The table's documents by id, to edit (copied once per write)."""
        if name not in self._copied:
            self.data[name] = dict(self.data.get(name, {}))
            self._copied.add(name)
        self.dirty = True
        return self.data[name]


class Table:
    """One table of a write, edited through its `Tables`."""

    def __init__(self, tables: Tables, name: str) -> None:
        self._tables = tables
        self.name = name

    def all(self) -> list[Doc]:
        """The documents, oldest first."""
        docs = self._tables.data.get(self.name, {})
        return [docs[key] for key in sorted(docs, key=doc_key)]

    def find(self, test: Callable[[Doc], bool]) -> Doc | None:
        """The first document that passes `test`, or None."""
        return next((doc for doc in self.all() if test(doc)), None)

    def insert(self, docs: Iterable[Doc]) -> None:
        """Add the documents, each under the next free id."""
        table = self._tables._edit(self.name)
        first = max(map(doc_key, table), default=0) + 1
        for doc_id, doc in enumerate(docs, start=first):
            table[str(doc_id)] = dict(doc)

    def update(self, fields: Doc, test: Callable[[Doc], bool]) -> None:
        """Give the documents that pass `test` these fields (as new documents)."""
        table = self._tables._edit(self.name)
        for key, doc in list(table.items()):
            if test(doc):
                table[key] = {**doc, **fields}

    def remove(self, test: Callable[[Doc], bool] = lambda doc: True) -> int:
        """Remove the documents that pass `test` (all of them by default); how many."""
        table = self._tables._edit(self.name)
        gone = [key for key, doc in table.items() if test(doc)]
        for key in gone:
            del table[key]
        return len(gone)
