"""F1: what a screen is for and every key it answers to."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static


def key_table(keys: list[tuple[str, str, str]]) -> Table:
    """The key list of the help screen: key, then description and binding id, wrapped
    under the description. Built from Text cells, never from markup, so keys such as `[`
    and `]` show as they are typed."""
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for key, desc, ident in keys:
        table.add_row(Text(key, style="bold"), Text.assemble(desc, "  ", (f"({ident})", "dim")))
    return table


class HelpScreen(ModalScreen[None]):
    """F1: what the screen below is for and every key it (and the focused widget) answers to."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "Close", id="close"),
    ]

    def __init__(self, title: str, text: str, keys: list[tuple[str, str, str]]) -> None:
        super().__init__(classes="dialog")
        self.title_text = title
        self.text = text
        self.keys = keys

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box help-box"):
            yield Label(Content(f"Help: {self.title_text}"), classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(key_table(self.keys), classes="help-keys")
                if self.text:
                    yield Static(Content(self.text), classes="help-text")
            yield Static("[b]esc[/] / [b]f1[/] close", classes="dialog-keys")
        yield Footer(compact=True, show_command_palette=False)

    def action_close(self) -> None:
        self.dismiss(None)


def help_for(app: App[Any]) -> HelpScreen:
    """The help of the app's current screen: its `HELP` text (and the focused widget's),
    then its keys, perftui's own first (the screen's before the app's), then Textual's."""
    screen = app.screen
    grouped: dict[tuple[int, str, str], list[str]] = {}
    descriptions: dict[tuple[int, str, str], str] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.system or not binding.description:
            continue
        # perftui's own keys (they have ids) first, the screen's before the app's; then
        # Textual's (focus, copy) and those of the focused widget
        rank = (0 if active.node is screen else 1) if binding.id else 2
        group = (rank, binding.id or binding.action, binding.description)
        grouped.setdefault(group, []).append(app.get_key_display(binding) or key)
        descriptions[group] = binding.tooltip or binding.description
    keys = [
        ("/".join(dict.fromkeys(grouped[g])), descriptions[g], g[1])
        for g in sorted(grouped, key=lambda g: g[0])
    ]
    keys.insert(
        sum(1 for g in grouped if g[0] < 2),
        ("ctrl+p", "Command palette: every screen and project", "command_palette"),
    )
    text = getattr(screen, "HELP", "") or ""
    focused_help = getattr(app.focused, "HELP", None)
    if focused_help:
        text = f"{text}\n\n{focused_help}".strip()
    title = getattr(screen, "TITLE_TEXT", "") or type(screen).__name__
    return HelpScreen(title, text, keys)
