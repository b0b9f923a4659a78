"""Actions a seat can take, shared by the round engine, bots, hints, analysis and the server.

An action is a decision's name and, for an indexed decision, a card index (``discard 2``); the type is the
rules layer's (:class:`tablegames.rules.flow.Action`), and each game's decisions, their labels and its timeout
default are its definition's (``GameDefinition.decisions``); a game's own action constants live in its rules
module. The constants below are plain actions kept for callers written before that move; new code names a
decision through its game's definition or its rules module.

>>> Action.parse("discard 2"), str(Action("ride"))
(Action(name='discard', index=2), 'ride')
"""

from __future__ import annotations

from tablegames.rules.flow import Action

PULL = Action("pull")
RIDE = Action("ride")
STAND = Action("stand")
TURN = Action("turn")


def discard(index: int) -> Action:
    return Action("discard", index)


__all__ = ["PULL", "RIDE", "STAND", "TURN", "Action", "discard"]
