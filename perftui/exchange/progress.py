"""How far a long pass over many runs has got (an import), in lines for a person: at most
one every two seconds, none for a pass that ends sooner."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Progress"]


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
            share = done / self.total if self.total else 1.0
            self.say(f"{self.what}: {done:,} of {self.total:,} {self.unit} ({share:.0%})")
