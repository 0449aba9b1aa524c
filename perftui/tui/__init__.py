"""The Textual dashboard (imports textual; nothing outside perftui.tui imports this)."""
