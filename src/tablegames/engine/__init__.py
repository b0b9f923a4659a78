"""The round engine: tables, rounds, events, typed errors, bots and hints.

One shared shape for every game::

    table = Table(make_rules(game), seats=2, source=SeededRandom(1))
    rnd = table.new_round()
    rnd.place_wager(1, rnd.main_wager(), 500)  # -> WagerPlaced event
    rnd.deal()                                 # -> the CardDealt events
    rnd.to_act, rnd.legal_actions(1)           # whose turn, and what they may do
    action = rnd.legal_actions(1)[0]
    rnd.verify_act(1, action)                  # raises the typed error if it is not legal (can_act: a bool)
    rnd.act(1, action)                         # -> ActionTaken; dealer play and settlement follow automatically
    rnd.history                                # every event: enough to replay the round exactly

Each game's wagers (their costs, fixed amounts and options), meters and decisions come from its definition
(``tablegames.rules.registry``); ``rnd.wager_specs()`` lists them for a table's rules.

>>> from tablegames.rules import GAMES, make_rules
>>> from tablegames.randomness import SeededRandom
>>> for game in GAMES:
...     t = Table(make_rules(game), seats=1, source=SeededRandom(3), bankrolls={1: 10_000})
...     r = t.new_round(); _ = r.place_wager(1, r.main_wager(), 500); _ = r.deal()
...     while not r.is_over: _ = r.act(r.to_act, Bot().choose(r, r.to_act))
...     assert t.bankrolls[1] + t.house_net + sum(t.meters.values()) - sum(r.meters_before.values()) == 10_000
"""

from tablegames.engine.actions import PULL, RIDE, STAND, TURN, Action, discard
from tablegames.engine.base import MAX_SEATS, Phase, Round, SeatState, Table
from tablegames.engine.bots import Advisor, Bot, Hint, best_action, rule_of_thumb
from tablegames.engine.errors import (
    BadIndex,
    BadWager,
    IllegalAction,
    InsufficientFunds,
    SideBetWithoutMain,
    UnknownAction,
    WrongPhase,
    WrongSeat,
)
from tablegames.engine.wagers import WagerSpec

__all__ = [
    "MAX_SEATS",
    "PULL",
    "RIDE",
    "STAND",
    "TURN",
    "Action",
    "Advisor",
    "BadIndex",
    "BadWager",
    "Bot",
    "Hint",
    "IllegalAction",
    "InsufficientFunds",
    "Phase",
    "Round",
    "SeatState",
    "SideBetWithoutMain",
    "Table",
    "UnknownAction",
    "WagerSpec",
    "WrongPhase",
    "WrongSeat",
    "best_action",
    "discard",
    "rule_of_thumb",
]
