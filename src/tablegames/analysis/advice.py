"""Exact advice for the engine's bots and hints: the expected value of every action at a live decision.

The engine cannot import this layer, so callers (the terminal game, the server) build an advisor here and
hand it to :class:`tablegames.engine.Bot`.

>>> from tablegames.engine import Bot, Table
>>> from tablegames.randomness import SeededRandom
>>> from tablegames.rules import make_rules
>>> t = Table(make_rules("final-count"), source=SeededRandom(1))
>>> r = t.new_round(); _ = r.place_wager(1, "main", 100); _ = r.deal()
>>> hint = Bot(advisor(r, 1)).hint(r, 1) if r.to_act == 1 else None
>>> hint is None or hint.values is not None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tablegames.engine import Action, Advisor, Round
from tablegames.engine.games import LetItRideRound
from tablegames.rules import GameRules
from tablegames.rules.final_count import FinalCountRules
from tablegames.rules.let_it_ride import LetItRideRules
from tablegames.rules.one_eyed_flush import OneEyedFlushRules


def optimal_strategy(rules: GameRules, bet_cents: int | None = None) -> Any:
    """The cached optimal strategy of the game (Let It Ride: for a bet size, so the payout cap applies)."""
    if isinstance(rules, LetItRideRules):
        from tablegames.analysis.let_it_ride import optimal_strategy as lir

        return lir(rules, bet_cents)
    if isinstance(rules, OneEyedFlushRules):
        from tablegames.analysis.one_eyed_flush import optimal_strategy as oef

        return oef(rules)
    if isinstance(rules, FinalCountRules):
        from tablegames.analysis.final_count import optimal_strategy as fc

        return fc(rules)
    raise ValueError(f"no exact strategy for {rules!r}")


def strategy_bet(rules: GameRules, bet_cents: int | None) -> int | None:
    """The bet size a game's strategy depends on: in Let It Ride the bet when the payout cap can reach it
    (R-LIR-5), else None, as in the other games (one strategy for every bet)."""
    if isinstance(rules, LetItRideRules):
        from tablegames.analysis.let_it_ride import strategy_bet as lir

        return lir(rules, bet_cents)
    return None


def strategy_key(rnd: Round, seat: int) -> tuple[GameRules, int | None]:
    """What the strategy of ``seat``'s decision depends on: the rules, and in Let It Ride the bet size when the
    cap can reach it (:func:`strategy_bet`)."""
    bet = rnd.seats[seat].wagers.get("bets") if isinstance(rnd, LetItRideRound) else None
    return rnd.table.rules, strategy_bet(rnd.table.rules, bet)


def advisor(rnd: Round, seat: int, strategy: Any = None) -> Advisor:
    """An advisor giving the exact EV of every action of ``seat``'s decisions in ``rnd``.

    ``strategy`` is the solved strategy for ``strategy_key(rnd, seat)`` (solved here when not given).
    """
    if strategy is None:
        strategy = optimal_strategy(*strategy_key(rnd, seat))
    if isinstance(rnd, LetItRideRound):
        round_ = rnd

        def lir(context: Mapping[str, Any]) -> Mapping[Action, Fraction | float]:
            cards = list(context["cards"])
            if context["stage"] == 1:
                return dict(strategy.first(cards[:3]))
            return dict(strategy.second(cards[:4], bet1_up="1" in round_.up.get(seat, {"1"})))

        return lir
    if isinstance(rnd.table.rules, OneEyedFlushRules):

        def oef(context: Mapping[str, Any]) -> Mapping[Action, Fraction | float]:
            return dict(strategy.options(context["cards"], context["flip_card"]))

        return oef

    def fc(context: Mapping[str, Any]) -> Mapping[Action, Fraction | float]:
        return dict(strategy.options(context["player_up"], context["dealer_up"]))

    return fc
