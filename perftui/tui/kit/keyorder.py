"""Keys handled in the order they were typed, however fast they come.

Textual hands a key to the focused widget's queue and resolves the key's ordinary bindings
(an Input's End and Backspace, the screen's Tab) only when the key has bubbled back up to
the app, through one queue per widget. Keys that arrive together (a paste, a burst over SSH)
overtake one another: the next letters are typed before the Backspace deletes, and a Tab
moves the focus after the following keys went to the field it leaves. `OrderedKeys` holds
each key (and a paste among them) until the one before has finished its journey, and is
otherwise Textual's own delivery."""

from __future__ import annotations

from collections import deque
from typing import Any

from textual import events
from textual.app import App
from textual.message_pump import MessagePump

STUCK_S = 0.5
"""How often a held key checks that the widget holding the one before is still there (a
widget removed with a key in its queue never says it is done)."""


class _Followed(events.Key):
    """A key that knows which queue holds it."""

    def __init__(self, key: events.Key) -> None:
        super().__init__(key.key, key.character)
        self.time = key.time
        self._sender = key._sender
        self.holder: MessagePump | None = None

    def _bubble_to(self, widget: MessagePump) -> None:
        self.holder = widget
        super()._bubble_to(widget)


_Followed.handler_name = events.Key.handler_name  # handled as any key: on_key, _on_key


class OrderedKeys(App[None]):
    """An app whose keys are delivered one at a time, each once the one before is done."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._keys: deque[_Followed | events.Paste] = deque()
        """The key (or paste) on its way (first), then those waiting for it."""

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            self._keys.append(_Followed(event) if isinstance(event, events.Key) else event)
            if len(self._keys) == 1:
                await self._send(self._keys[0])
            return
        await super().on_event(event)

    async def _send(self, key: _Followed | events.Paste) -> None:
        if not self.screen_stack:  # closing
            self._keys.clear()
            return
        target = self.focused or self.screen
        await super().on_event(key)  # a priority binding, else on to the focused widget
        if isinstance(key, events.Paste):  # handled where it went, before what follows it
            self._done(key)
        elif key.is_forwarded:
            self._follow(key, target)
        else:
            self._done(key)

    def _follow(self, key: _Followed, holder: MessagePump) -> None:
        """Look again once `holder` has handled the key: its queue runs in order."""
        key.holder = holder
        if not holder.call_later(self._handled_by, key, holder):
            self._done(key)
        else:
            self.set_timer(STUCK_S, lambda: self._check_stuck(key, holder))

    def _handled_by(self, key: _Followed, holder: MessagePump) -> None:
        if key.holder is holder:  # stopped there (or bubbled no further)
            self._done(key)
        elif key.holder is not None:
            self._follow(key, key.holder)

    def _check_stuck(self, key: _Followed, holder: MessagePump) -> None:
        if not self._keys or self._keys[0] is not key or key.holder is not holder:
            return
        if holder._closing or holder._closed:
            self._done(key)
        else:
            self.set_timer(STUCK_S, lambda: self._check_stuck(key, holder))

    def _done(self, key: _Followed | events.Paste) -> None:
        if not self._keys or self._keys[0] is not key:
            return
        self._keys.popleft()
        if self._keys:
            self.call_later(self._send, self._keys[0])
