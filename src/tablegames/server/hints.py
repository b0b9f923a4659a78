"""Strategy hints: ``Bot(advisor).hint(round, seat)`` with the exact advisor built from
``tablegames.analysis.<game>.optimal_strategy(rules)`` when the analysis has it, else the engine's documented rule
of thumb.

Solving a game can take seconds the first time, and the event loop must not wait: a strategy not ready yet is
built in a background thread and the hint meanwhile comes from the rule of thumb (``"source": "rule-of-thumb"``).
So that the first hand's hints are exact too (issue 24), a server that prepares hints (``tablegames serve``)
asks for each table's strategy when the table opens (:func:`prepare`): one background thread solves them one
after another, off the event loop.
The strategies kept are bounded (least recently used dropped): the memory does not grow with the number of
distinct bet sizes or rule sets the tables see. With a disk cache (:func:`use_disk_cache`; ``tablegames serve``
keeps one in ``data/strategies``) a strategy solved once is loaded after a restart instead of solved again
(:mod:`tablegames.analysis.strategy_cache`).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from tablegames.engine import Action, Advisor, Bot, Round

log = logging.getLogger("tablegames.server")

#: Strategies kept, least recently used dropped first: one per rule set (``bet`` None: the largest strategy is
#: ~75 MB and 2 s to solve, so a busy table of another game must not push it out), and apart from them a few
#: bet sizes that a payout cap reaches (~10 MB and ~0.1 s each; every other bet shares the rule set's).
MAX_RULE_SETS = 8
MAX_CAPPED_BETS = 4
#: Strategies solved at once in the background (each needs its working memory); a hint asked meanwhile for
#: another one comes from the rule of thumb and asks again next time.
MAX_BUILDING = 2

_READY: OrderedDict[Any, Any] = OrderedDict()  # (rules, None) -> strategy or None (no exact analysis)
_CAPPED: OrderedDict[Any, Any] = OrderedDict()  # (rules, bet) -> strategy, for bets the cap reaches
_BUILDING: set[Any] = set()
_LOCK = threading.Lock()
_PREPARE: queue.SimpleQueue[Any] = queue.SimpleQueue()  # keys to solve, each once (in _BUILDING meanwhile)
_PREPARER: threading.Thread | None = None
_DISK: list[Path | None] = [None]  # the directory of the disk cache of strategies (none: solved every start)


def use_disk_cache(directory: Path | None) -> None:
    """Load strategies from (and store them in) ``directory``; None: no disk cache."""
    _DISK[0] = directory


def _cache(key: Any) -> OrderedDict[Any, Any]:
    return _READY if key[1] is None else _CAPPED


def _keep(key: Any, strategy: Any) -> None:
    """(Holding the lock.) Keep a strategy, dropping the least recently used beyond the bound."""
    cache = _cache(key)
    cache[key] = strategy
    cache.move_to_end(key)
    while len(cache) > (MAX_RULE_SETS if cache is _READY else MAX_CAPPED_BETS):
        cache.popitem(last=False)


def _build(key: Any) -> Any:
    rules, bet = key
    strategy = None
    try:
        from tablegames.analysis.strategy_cache import solve_cached

        strategy = solve_cached(rules, bet, _DISK[0])
    except Exception:  # an analysis that is missing or fails must not break play
        log.exception("no exact strategy for %s; hints use the rule of thumb", rules.game)
    with _LOCK:
        _keep(key, strategy)
        _BUILDING.discard(key)
    return strategy


def cached_strategies() -> int:
    """How many solved strategies the hints keep (bounded: :data:`MAX_RULE_SETS` + :data:`MAX_CAPPED_BETS`)."""
    with _LOCK:
        return len(_READY) + len(_CAPPED)


def strategy_for(rules: Any, bet: int | None = None, wait: bool = False) -> Any:
    """The optimal strategy if ready (or ``wait``), else None while it is built in the background.

    A game's strategy depends on the bet only where a payout cap reaches it
    (:func:`~tablegames.analysis.advice.strategy_bet`): every other bet shares one strategy.
    """
    from tablegames.analysis.advice import strategy_bet

    key = (rules, strategy_bet(rules, bet))
    with _LOCK:
        cache = _cache(key)
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        start = key not in _BUILDING and (wait or len(_BUILDING) < MAX_BUILDING)
        if start:
            _BUILDING.add(key)
    if wait:
        return _build(key)  # (solved here even while another thread solves it too)
    if start:
        threading.Thread(target=_build, args=(key,), daemon=True, name="tablegames-strategy").start()
    return None


def prepare(rules: Any) -> bool:
    """Solve the strategy of a table's rules in the background now (a table opens), so that its first hint is
    exact. One thread solves the prepared strategies one at a time; a strategy ready or being built is not asked
    again. Returns whether it was queued."""
    global _PREPARER
    key = (rules, None)
    with _LOCK:
        if key in _READY or key in _BUILDING:
            return False
        _BUILDING.add(key)
        _PREPARE.put(key)
        if _PREPARER is None or not _PREPARER.is_alive():
            _PREPARER = threading.Thread(target=_prepare_all, daemon=True, name="tablegames-prepare-hints")
            _PREPARER.start()
    return True


def _prepare_all() -> None:
    global _PREPARER
    while True:
        try:
            key = _PREPARE.get(timeout=1.0)
        except queue.Empty:
            with _LOCK:
                if _PREPARE.empty():  # (a prepare() meanwhile sees this thread gone and starts another)
                    _PREPARER = None
                    return
            continue
        _build(key)


def exact_advisor(rnd: Round, seat: int, wait: bool = False) -> Advisor | None:
    """An advisor giving the exact EV of every action of this decision, when the analysis is ready."""
    from tablegames.analysis.advice import advisor, strategy_key

    strategy = strategy_for(*strategy_key(rnd, seat), wait=wait)
    return None if strategy is None else advisor(rnd, seat, strategy)


def hint_message(
    rnd: Round, seat: int, round_id: int | None, wait: bool = False, decision: str | None = None
) -> dict[str, Any]:
    """The ``hint`` message for ``seat`` (whose turn it is): best action, each action's EV and cost, and the
    ``decision`` it answers (the page shows a hint only at that decision: issue 24)."""
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
        "decision": decision,
        "seat": seat,
        "best": str(hint.best),
        "source": "exact" if hint.values is not None else "rule-of-thumb",
        "actions": actions,
    }


def bot_choice(rnd: Round, seat: int) -> Action | None:
    """A practice bot's decision (``server/bots.py``): the exact strategy's best action, the same one a hint
    names; None while that strategy is still being solved in the background (the bot waits, it never guesses).
    A game whose analysis has no exact strategy plays the engine's documented rule of thumb."""
    from tablegames.analysis.advice import strategy_bet, strategy_key

    rules, bet = strategy_key(rnd, seat)
    key = (rules, strategy_bet(rules, bet))
    with _LOCK:
        ready = key in _cache(key)
    if not ready:
        strategy_for(rules, bet)  # (started in the background if not being built yet)
        return None
    return Bot(exact_advisor(rnd, seat)).choose(rnd, seat)
