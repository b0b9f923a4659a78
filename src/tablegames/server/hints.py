"""Strategy hints: ``Bot(advisor).hint(round, seat)`` with the exact advisor of ``tablegames.analysis.<game>``
when that module provides ``optimal_strategy(rules)``, else the engine's documented rule of thumb."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tablegames.engine import Action, Advisor, Bot, Round

log = logging.getLogger("tablegames.server")

_STRATEGIES: dict[Any, Any] = {}


def _strategy(rules: Any) -> Any:
    """The analysis module's optimal strategy for ``rules`` (cached), or None when there is none."""
    if rules in _STRATEGIES:
        return _STRATEGIES[rules]
    strategy = None
    try:
        module = importlib.import_module(f"tablegames.analysis.{rules.game.replace('-', '_')}")
        make = getattr(module, "optimal_strategy", None)
        if make is not None:
            strategy = make(rules)
    except Exception:  # an analysis module being written or failing must not break play
        log.exception("no exact strategy for %s; using the rule of thumb", rules.game)
        strategy = None
    _STRATEGIES[rules] = strategy
    return strategy


def exact_advisor(rnd: Round, seat: int) -> Advisor | None:
    """An advisor giving the exact EV of each action for this decision, if the analysis provides one."""
    strategy = _strategy(rnd.rules)
    if strategy is None:
        return None
    if rnd.table.game == "let-it-ride" and hasattr(strategy, "first") and hasattr(strategy, "second"):
        up = getattr(rnd, "up", {}).get(seat, set())

        def lir(context: Mapping[str, Any]) -> Mapping[Action, Fraction | float]:
            cards = list(context["cards"])
            if context["stage"] == 1:
                return dict(strategy.first(cards[:3]))
            return dict(strategy.second(cards[:4], bet1_up="1" in up))

        return lir
    if callable(strategy):
        return strategy  # type: ignore[no-any-return]
    return None


def hint_message(rnd: Round, seat: int, round_id: int | None) -> dict[str, Any]:
    """The ``hint`` message for ``seat`` (whose turn it is)."""
    advisor = None
    try:
        advisor = exact_advisor(rnd, seat)
        hint = Bot(advisor).hint(rnd, seat)
    except Exception:
        log.exception("exact hint failed; using the rule of thumb")
        advisor = None
        hint = Bot().hint(rnd, seat)
    actions = []
    for a in rnd.legal_actions(seat):
        value = hint.values.get(a) if hint.values is not None else None
        actions.append(
            {
                "action": str(a),
                "ev": None if value is None else float(value),
                "cost": None if value is None else hint.cost(a),
            }
        )
    return {
        "type": "hint",
        "round_id": round_id,
        "seat": seat,
        "best": str(hint.best),
        "source": "exact" if hint.values is not None else "rule-of-thumb",
        "actions": actions,
    }
