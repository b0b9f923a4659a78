"""Actions a seat can take, shared by the round engine, bots, hints, analysis and the server.

An action is a decision's name and, for an indexed decision, a card index (``discard 2``); each game's
decisions, their labels and its timeout default are its definition's (``GameDefinition.decisions``).

>>> Action.parse("discard 2"), str(Action("ride"))
(Action(name='discard', index=2), 'ride')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Action:
    name: str
    index: int | None = None

    def __str__(self) -> str:
        return self.name if self.index is None else f"{self.name} {self.index}"

    @classmethod
    def parse(cls, text: str) -> Action:
        """``"ride"`` or ``"discard 1"`` -> Action (no legality check: the round does that)."""
        parts = text.strip().lower().split()
        if not parts:
            raise ValueError("empty action")
        if len(parts) == 1:
            return cls(parts[0])
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            return cls(parts[0], int(parts[1]))
        raise ValueError(f"cannot read action {text!r}")


PULL = Action("pull")
RIDE = Action("ride")
STAND = Action("stand")
TURN = Action("turn")


def discard(index: int) -> Action:
    return Action("discard", index)
