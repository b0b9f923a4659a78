"""Strategy hints: ``Bot(advisor).hint(round, seat)`` with the exact advisor built from
``tablegames.analysis.<game>.optimal_strategy(rules)`` when the analysis has it, else the engine's documented rule
of thumb.

Solving a game can take seconds the first time, and the event loop must not wait: a strategy not ready yet is
built in a background thread and the hint meanwhile comes from the rule of thumb (``"source": "rule-of-thumb"``).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from tablegames.engine import Advisor, Bot, Round

log = logging.getLogger("tablegames.server")

_READY: dict[Any, Any] = {}  # (rules, bet) -> strategy or None (no exact analysis)
_BUILDING: set[Any] = set()
_LOCK = threading.Lock()


def _build(key: Any) -> None:
    rules, bet = key
    strategy = None
    try:
        from tablegames.analysis.advice import optimal_strategy

        strategy = optimal_strategy(rules, bet)
    except Exception:  # an analysis that is missing or fails must not break play
        log.exception("no exact strategy for %s; hints use the rule of thumb", rules.game)
    with _LOCK:
        _READY[key] = strategy
        _BUILDING.discard(key)


def strategy_for(rules: Any, bet: int | None = None, wait: bool = False) -> Any:
    """The optimal strategy if ready (or ``wait``), else None while it is built in the background."""
    key = (rules, bet)
    with _LOCK:
        if key in _READY:
            return _READY[key]
        start = key not in _BUILDING
        _BUILDING.add(key)
    if wait:
        _build(key)
        return _READY.get(key)
    if start:
        threading.Thread(target=_build, args=(key,), daemon=True, name="tablegames-strategy").start()
    return None


def exact_advisor(rnd: Round, seat: int, wait: bool = False) -> Advisor | None:
    """An advisor giving the exact EV of every action of this decision, when the analysis is ready."""
    from tablegames.analysis.advice import advisor, strategy_key

    strategy = strategy_for(*strategy_key(rnd, seat), wait=wait)
    return None if strategy is None else advisor(rnd, seat, strategy)


def hint_message(rnd: Round, seat: int, round_id: int | None, wait: bool = False) -> dict[str, Any]:
    """The ``hint`` message for ``seat`` (whose turn it is): best action, each action's EV and cost."""
    try:
        hint = Bot(exact_advisor(rnd, seat, wait)).hint(rnd, seat)
    except Exception:
        log.exception("exact hint failed; using the rule of thumb")
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
