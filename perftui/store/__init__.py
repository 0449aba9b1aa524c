"""Persistence: the TinyDB-backed run store and its import/export documents."""
