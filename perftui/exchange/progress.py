"""How far a long pass over many runs has got (an import), in lines for a person, each with a
bar: at most one every two seconds, none for a pass that ends sooner (lines, not a bar drawn
in place: they read the same in a log or over a slow SSH link)."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Progress"]


BAR = 20
"""Characters of the bar in each line."""


class Progress:
    """Call with the number of runs (or other `unit`s) done so far; `say` gets a line now
    and then."""

    def __init__(
        self,
        say: Callable[[str], None] | None,
        what: str,
        total: int,
        every_s: float = 2.0,
        unit: str = "runs",
    ) -> None:
        self.say = say
        self.unit = unit
        self.what = what
        self.total = total
        self.every_s = every_s
        self.next = time.monotonic() + every_s

    def __call__(self, done: int) -> None:
        if self.say is None:
            return
        now = time.monotonic()
        if now >= self.next:
            self.next = now + self.every_s
            share = min(done / self.total, 1.0) if self.total else 1.0
            bar = "#" * round(share * BAR) + "." * (BAR - round(share * BAR))
            self.say(f"{self.what} [{bar}] {done:,} of {self.total:,} {self.unit} ({share:.0%})")
