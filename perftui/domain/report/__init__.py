"""Shareable reports: one document of plain parts, rendered as Markdown or HTML."""
