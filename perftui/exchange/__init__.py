"""Export and import formats on top of the store: `documents` (export documents, CSV, the
import entry points), `reader` (an export file read a record at a time), `importer` (an
import's two passes: check everything, then store in one write), `schema` (what an import may
hold, checked like an API boundary) with `quick_checks` (its bulky parts in one pass), and
`benchmark_app` (OpenVINO benchmark_app's JSON reports read as runs; no engine loads)."""
