"""Exact advice for the engine's bots and hints: the expected value of every action at a live decision.

The engine cannot import this layer, so callers (the terminal game, the server) build an advisor here and
hand it to :class:`tablegames.engine.Bot`.

>>> from tablegames.engine import Bot, Table
>>> from tablegames.randomness import SeededRandom
>>> from tablegames.rules import make_rules
>>> from tablegames.rules import GAMES
>>> t = Table(make_rules(GAMES[-1]), source=SeededRandom(1))  # any game with an exact analyzer
>>> r = t.new_round(); _ = r.place_wager(1, r.main_wager(), 100); _ = r.deal()
>>> hint = Bot(advisor(r, 1)).hint(r, 1) if r.to_act == 1 else None
>>> hint is None or hint.values is not None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tablegames.analysis.api import analyzer
from tablegames.engine import Action, Advisor, Round
from tablegames.rules import GameRules
from tablegames.rules.definition import DecisionContext


def optimal_strategy(rules: GameRules, bet_cents: int | None = None) -> Any:
    """The cached optimal strategy of the game (for a bet size where the payout cap makes it matter)."""
    return analyzer(rules).optimal_strategy(rules, bet_cents)


def strategy_bet(rules: GameRules, bet_cents: int | None) -> int | None:
    """The bet size a game's strategy depends on: the bet when the game's payout cap can reach it (Let It
    Ride, R-LIR-5), else None (one strategy for every bet)."""
    found = analyzer(rules)
    return found.strategy_bet(rules, bet_cents) if found.bet_sized else None


def strategy_key(rnd: Round, seat: int) -> tuple[GameRules, int | None]:
    """What the strategy of ``seat``'s decision depends on: the rules, and the main wager where the game's
    analyzer is sized by it and the cap can reach it (:func:`strategy_bet`)."""
    rules = rnd.table.rules
    return rules, strategy_bet(rules, rnd.seats[seat].wagers.get(rnd.main_wager()))


def advisor(rnd: Round, seat: int, strategy: Any = None) -> Advisor:
    """An advisor giving the exact EV of every action of ``seat``'s decisions in ``rnd``.

    ``strategy`` is the solved strategy for ``strategy_key(rnd, seat)`` (solved here when not given).
    """
    found = analyzer(rnd.table.rules)
    if strategy is None:
        strategy = found.optimal_strategy(*strategy_key(rnd, seat))

    def advise(context: DecisionContext) -> Mapping[Action, Fraction | float]:
        return dict(found.advise(strategy, context))

    return advise
