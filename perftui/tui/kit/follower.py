"""Following a child process from a screen: the live benchmark and the optimize box.

The child (a benchmark client, an optimize process) runs in a process of its own; a thread
worker reads its events and posts them to the screen, progress as `Latest` messages that a
newer one replaces, so the UI never works through a backlog. Cancel and kill go through one
lock, so a cancel that comes while the child is being started still reaches it. Escape asks
before it leaves a running child (and cancels it), and a screen taken down cancels its
child. The end is told once, in order after the child's last message; a screen closed
before the end is told through `child_ended` all the same (with `closed` set), so it can
say what happened in a notification.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from textual import work
from textual.app import App
from textual.message import Message
from textual.screen import Screen

from perftui.tui.kit.dialogs import ConfirmScreen

OutcomeT = TypeVar("OutcomeT")

if TYPE_CHECKING:
    _Screen = Screen[Any]
else:

    class _Screen:
        """A mixin, not a screen: Textual takes a screen's CSS type names from its first
        screen base, which must stay ModalScreen for the optimize box."""


class Child(Protocol):
    """What a followed child offers (BenchmarkClient, OptimizeProcess)."""

    def cancel(self) -> None: ...


class Latest(Message):
    """The newest progress of a child: a newer message of the same kind replaces it while it
    waits in the queue."""

    def can_replace(self, message: Message) -> bool:
        return type(message) is type(self)


class ChildEnded(Message, Generic[OutcomeT]):
    def __init__(self, outcome: OutcomeT) -> None:
        super().__init__()
        self.outcome = outcome


class FollowingScreen(_Screen, Generic[OutcomeT]):
    """What a screen that runs and follows a child process mixes in, before its screen base
    (`class LiveRunScreen(FollowingScreen[None], PerftuiScreen)`).

    Subclasses give `run_child` (in the worker thread: start the child with `attach_child`,
    post its events, return the outcome), `child_failed` (the outcome when `run_child`
    raised), `child_ended` (on the UI thread, once), `leave` (close the screen) and
    `LEAVE_QUESTION` (what Escape asks while the child runs)."""

    LEAVE_QUESTION: ClassVar[tuple[str, str]] = ("Stop and close?", "")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.running = True
        self.cancel_requested = False
        self.closed = False
        """Set when the screen is gone (or going) while the child still runs."""
        self._child: Child | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the worker

    @work(thread=True, exit_on_error=False, name="child", group="child")
    def follow(self) -> None:
        app = self.app  # kept: a closed screen no longer reaches the app through its parents
        try:
            outcome = self.run_child()
        except Exception as error:
            outcome = self.child_failed(error)
        app.call_from_thread(self._ended, outcome, app)

    def run_child(self) -> OutcomeT:
        raise NotImplementedError

    def child_failed(self, error: Exception) -> OutcomeT:
        raise NotImplementedError

    def attach_child(self, child: Child | None) -> None:
        """The child now running (None between children); cancelled at once if a cancel
        came first."""
        with self._lock:
            self._child = child
            if child is not None and self.cancel_requested:
                child.cancel()

    def stop_child(self, *, kill_if_asked_before: bool = False) -> bool:
        """Ask the child to stop; with `kill_if_asked_before`, a second request kills it.
        Returns whether a stop had been asked for before."""
        with self._lock:
            child, again = self._child, self.cancel_requested
            self.cancel_requested = True
        if child is not None:
            kill = getattr(child, "kill", None)
            if again and kill_if_asked_before and kill is not None:
                kill()
            else:
                child.cancel()
        return again

    # ------------------------------------------------------------------ the end

    def _ended(self, outcome: OutcomeT, app: App[Any]) -> None:
        if self.closed:
            self._end(outcome, app)
        else:  # queued behind the child's last messages
            self.post_message(ChildEnded(outcome))

    def on_child_ended(self, message: ChildEnded[OutcomeT]) -> None:
        self._end(message.outcome, self.app)

    def _end(self, outcome: OutcomeT, app: App[Any]) -> None:
        if self.running:
            self.running = False
            self.child_ended(outcome, app)

    def child_ended(self, outcome: OutcomeT, app: App[Any]) -> None:
        """The child is done (on the UI thread; `closed` says whether the screen is gone)."""

    # ------------------------------------------------------------------ leaving

    def leave(self) -> None:
        raise NotImplementedError

    def action_cancel(self) -> None:
        """Stop the child (the screen's x key): `stop_child`, and say so."""
        raise NotImplementedError

    def action_back(self) -> None:
        if not self.running:
            self.leave()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                if self.running:
                    self.closed = True  # the end is told by a notification
                    self.action_cancel()
                self.leave()

        self.app.push_screen(ConfirmScreen(*self.LEAVE_QUESTION), answer)

    def on_unmount(self) -> None:
        self.closed = True
        if self.running:
            self.stop_child()
