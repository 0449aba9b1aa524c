"""A screen of tabs, as the project detail and the compare summary are: digit keys pick a
tab by number, `]` and `[` step through them, and the keyboard lands on the tab's table.

Each tab holds one `Pane`, which draws itself from the state object its screen owns (the
screen's `state`) and never writes to it: the screen changes the state, then asks the
panes to draw again.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar, Generic, NamedTuple, TypeVar

from textual import on
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import DataTable, TabbedContent, TabPane

from perftui.tui.kit.screen import PerftuiScreen

StateT = TypeVar("StateT")


class Tab(NamedTuple):
    name: str
    """What the digit key's action and the screen's `tab` argument call it."""
    pane_id: str
    """The id of its TabPane."""
    key_label: str
    """The digit key's description in F1 help, e.g. 'Summary tab'."""


def tab_bindings(tabs: tuple[Tab, ...], next_label: str, next_tooltip: str = "") -> list[Binding]:
    """`]` (shown as `next_label`), `[` and one digit key per tab, 1 for the first."""
    return [
        Binding("]", "tab(1)", next_label, id="next_tab", tooltip=next_tooltip),
        Binding("[", "tab(-1)", "Previous tab", id="previous_tab", show=False),
        *[
            Binding(
                str(n + 1),
                f"show_tab('{tab.name}')",
                tab.key_label,
                id=f"tab_{tab.name}",
                show=False,
            )
            for n, tab in enumerate(tabs)
        ],
    ]


class Pane(Widget, Generic[StateT]):
    """A tab's content: draws itself from its screen's state when mounted and when asked."""

    DEFAULT_CSS = "Pane { height: 1fr; }"

    @property
    def state(self) -> StateT:
        # a pane's screen holds its state; Textual types the screen as a plain Screen
        return self.screen.state  # type: ignore[attr-defined]

    def on_mount(self) -> None:
        self.redraw()

    def populate(self) -> None:
        """Draw from the screen's state."""

    def redraw(self) -> None:
        """`populate`, unless the pane is being taken down (its widgets are gone already: a
        late Mount, or a worker ending, while the screen closes)."""
        with contextlib.suppress(NoMatches):
            self.populate()


class TabbedScreen(PerftuiScreen):
    """A screen whose body is one TabbedContent (id `TABS_ID`) with the tabs `TABS`."""

    TABS: ClassVar[tuple[Tab, ...]] = ()
    TABS_ID: ClassVar[str] = "tabs"
    SHORT_TITLES: ClassVar[dict[str, str]] = {}
    """Pane id -> a shorter title, used when the full titles do not fit the screen's width,
    so every tab is seen at 80 columns ('Kernels' for 'Kernel-Level Performance')."""
    TAB_ACTIONS: ClassVar[dict[str, set[str]]] = {}
    """Actions that act on some tabs only, with the pane ids of those tabs: shown in the
    footer and answered there alone, so the footer holds what works where it is."""

    def __init__(self, tab: str, default: str) -> None:
        super().__init__()
        names = [t.name for t in self.TABS]
        self.initial_tab = self.TABS[names.index(tab if tab in names else default)].pane_id

    def tabbed_content(self) -> TabbedContent:
        return TabbedContent(initial=self.initial_tab, id=self.TABS_ID)

    @property
    def active_tab(self) -> str:
        """The pane id of the tab shown."""
        return self.query_one(f"#{self.TABS_ID}", TabbedContent).active

    def fit_tab_titles(self) -> None:
        """Full titles where they all fit the width, else the short ones (`SHORT_TITLES`)."""
        if not self.SHORT_TITLES:
            return
        tabs = self.query_one(f"#{self.TABS_ID}", TabbedContent)
        full = getattr(self, "_full_titles", None)
        if full is None:
            full = {t.pane_id: tabs.get_tab(t.pane_id).label_text for t in self.TABS}
            self._full_titles = full
        wide = sum(len(title) + 2 for title in full.values()) <= self.size.width
        for pane_id, title in full.items():
            shown = title if wide else self.SHORT_TITLES.get(pane_id, title)
            tab = tabs.get_tab(pane_id)
            if tab.label_text != shown:
                tab.label = shown

    def redraw_panes(self) -> None:
        for pane in self.query(Pane):
            pane.redraw()

    def focus_table(self) -> None:
        """Put the keyboard on the tab's table so the arrows move its cursor at once."""
        if not self.is_current:  # left meanwhile (its project could not be read)
            return
        pane = self.query_one(f"#{self.active_tab}", TabPane)
        tables = [t for t in pane.query(DataTable) if t.display]
        if tables:
            tables[0].focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        tabs = self.TAB_ACTIONS.get(action)
        return tabs is None or not self.is_mounted or self.active_tab in tabs

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        self.call_after_refresh(self.focus_table)

    def action_tab(self, step: int) -> None:
        ids = [t.pane_id for t in self.TABS]
        current = ids.index(self.active_tab) if self.active_tab in ids else 0
        self.action_show_tab(self.TABS[(current + step) % len(ids)].name)

    def action_show_tab(self, name: str) -> None:
        pane_id = next(t.pane_id for t in self.TABS if t.name == name)
        tabs = self.query_one(f"#{self.TABS_ID}", TabbedContent)
        if tabs.active != pane_id:
            # let go of the focus first: focus falling on a widget of the old tab would
            # switch TabbedContent straight back to it
            self.set_focus(None)
            tabs.active = pane_id
