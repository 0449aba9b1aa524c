"""The `perftui` command: one module per sub-command, the parser and `main()` in `entry`.

Modules: `entry` (parser, command table, main), `common` (exit statuses, errors, store, JSON),
`bench`, `projects` (projects, show), `inspect`, `compare`, `devices`, `exchange` (export,
import), `optimize`; the presentation they print with: `progress`, `textfmt`,
`compare_report`. None imports textual at load time; only a bare `perftui` (the dashboard)
does.
"""

from perftui.cli.entry import main

__all__ = ["main"]
