"""How the synthetic data of one model input is made, and why (recorded with every run).

perftui.inspection.input_roles reads the rules from the model's graph; perftui.bench.inputs
makes the data. A rule the graph does not give is `DEFAULT`: today's uniform random values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["DEFAULT", "INT_HIGH", "InputRule"]

INT_HIGH = 100
"""Integer inputs the graph says nothing about are drawn from [0, INT_HIGH)."""

RuleKind = Literal["random", "indices", "ones", "zeros", "range"]


@dataclass(frozen=True)
class InputRule:
    """`random`: floats in [0, 1), integers in [0, INT_HIGH), booleans fair coin flips;
    `indices`: integers in [low, high); `ones` / `zeros`; `range`: 0, 1, 2, ... along the last
    axis (modulo `high` when set)."""

    kind: RuleKind
    why: str
    low: int = 0
    high: int | None = None

    def values(self, dtype: str = "") -> str:
        """What the data of an input of `dtype` is, in a few words: 'ints in [0,30522)'."""
        if self.kind == "indices":
            return f"ints in [{self.low},{self.high})"
        if self.kind == "range":
            return "0..n-1 along the last axis" + (f" (mod {self.high})" if self.high else "")
        if self.kind == "random":
            if dtype == "bool":
                return "random booleans, half true"
            if dtype.startswith(("int", "uint")):
                return f"random ints in [0,{INT_HIGH})"
            return "random floats in [0,1)" if dtype else "random (floats [0,1), ints [0,100))"
        return self.kind

    def to_dict(self, dtype: str = "") -> dict[str, Any]:
        return {"values": self.values(dtype), "why": self.why}


DEFAULT = InputRule("random", "the graph does not say how this input is used: the default rule")
