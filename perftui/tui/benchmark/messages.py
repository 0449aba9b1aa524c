"""The messages the live run's worker thread posts to its screen: progress ticks (the newest
replaces one not yet handled), every other event, and a request that could not start; the
phases they name, in words."""

from __future__ import annotations

from textual.message import Message

from perftui.bench import protocol
from perftui.tui.kit.follower import Latest

REDRAW_HZ = 2
"""How often a live screen redraws at most (its table, and its charts within their budget)."""

PHASES = {  # a worker's phase in words
    "compile": "compiling",
    "first_inference": "first inference",
    "warmup": "warm-up",
    "timed": "measuring",
    "profile": "profiling layers",
}


class LiveTick(Latest):
    """The latest progress tick; a newer one replaces it if the UI has not handled it yet."""

    def __init__(self, index: int, tick: protocol.Progress) -> None:
        super().__init__()
        self.index = index
        self.tick = tick


class LiveEvent(Message):
    """Any other worker event (started, phase, finished, done, fatal), never dropped;
    `position`: which of the screen's requests it is of."""

    def __init__(self, position: int, index: int, event: protocol.Event) -> None:
        super().__init__()
        self.position = position
        self.index = index
        self.event = event


class LiveFailed(Message):
    """A request could not start (validation or client error); `position` as LiveEvent's."""

    def __init__(self, position: int, message: str) -> None:
        super().__init__()
        self.position = position
        self.message = message
