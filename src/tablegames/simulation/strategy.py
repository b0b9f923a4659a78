"""Player strategies as lookup tables for the kernels, built by *calling* a strategy.

A strategy here is a decision function ``decide(context) -> Action`` on the same typed decision contexts the
round engine gives its bots (``Round.decision_context``), so the very same function drives the engine's
``Bot`` in the equivalence tests.  Three sources:

* ``basic``: the engine's documented rule of thumb (``engine.bots.rule_of_thumb``);
* ``optimal``: the exact analyzer's strategy (``GameDefinition.analyzer``), when the game has one;
* a JSON file of decisions by canonical hand key (see :func:`hand_key`), overriding ``basic``.

Each game's kernel adapter (``GameDefinition.kernel``) fills its tables by calling ``decide`` once per
*pattern* the decision can depend on, on representative cards, then expands them with NumPy to every ordered
tuple the kernels index.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from tablegames.engine.actions import Action
from tablegames.engine.bots import Advisor, best_action, rule_of_thumb
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError
from tablegames.rules.definition import DecisionContext
from tablegames.rules.indexing import RANK_LETTERS
from tablegames.simulation.adapter import Decide, Kernel, StrategyTables


class StrategyError(RuleError):
    """A strategy that cannot be used (unknown name, bad file, no analysis for this game yet)."""


def kernel_of(game: object) -> Kernel:
    """The simulation kernel adapter of a game (by key, rules or context): its Numba kernel's, or the
    engine-backed kernel (``simulation.engine_kernel``) when it has none; UnknownGameError when it is not a
    game."""
    definition = registry.of(game)
    found = definition.load_kernel()
    if found is None:
        from tablegames.simulation.engine_kernel import KERNEL

        return KERNEL
    assert isinstance(found, Kernel)
    return found


# --- representative cards -------------------------------------------------------------------------


def rank_cards(ranks: Sequence[int], flush: bool) -> list[int]:
    """Distinct cards with these rank indices; all of one suit when ``flush``, else not all of one suit.

    >>> from tablegames.cards import format_cards
    >>> format_cards(rank_cards([12, 11, 10], True)), format_cards(rank_cards([3, 3, 9], False))
    ('Ac Kc Qc', '5c 5d Jc')
    """
    if flush:
        return [r * 4 for r in ranks]
    seen: dict[int, int] = {}
    suits = []
    for r in ranks:
        suits.append(seen.get(r, 0))
        seen[r] = seen.get(r, 0) + 1
    if len(set(suits)) == 1 and len(ranks) > 1:
        suits[-1] = 1
    return [r * 4 + s for r, s in zip(ranks, suits, strict=True)]


def rank_text(cards: Sequence[int]) -> str:
    """Rank letters of cards, highest first: ``"QJT"``."""
    return "".join(RANK_LETTERS[r] for r in sorted((c >> 2 for c in cards), reverse=True))


# --- canonical keys (for strategy files) ----------------------------------------------------------


def hand_key(context: DecisionContext) -> str:
    """The canonical key of a decision, as used in strategy files (the game's kernel adapter names it).

    >>> from tablegames.cards import parse_cards as p
    >>> from tablegames.rules import registry
    >>> lir, oef, fc = (registry.get(k).context_type for k in registry.GAMES[:3])  # the first three games
    >>> hand_key(lir(1, tuple(p("Ts Qs Js"))))
    '1:QJTs'
    >>> hand_key(oef(tuple(p("5c Jh 9d")), p("Kd")[0]))
    'W95|W'
    >>> hand_key(fc(tuple(p("4c Ac")), tuple(p("9d Kh")), 5, 19))
    'A4|K9'
    """
    return kernel_of(context).hand_key(context)


# --- sources of decisions ------------------------------------------------------------------------


def basic_decide(context: DecisionContext) -> Action:
    """The engine's rule of thumb (the published basic strategy for Let It Ride)."""
    return rule_of_thumb(context)


def analysis_module(game: str) -> Any:
    """The exact analyzer of ``game`` (its definition's ``analyzer``), or None when it has none."""
    return registry.get(game).load_analyzer()


def optimal_object(rules: GameRules, bet_cents: int | None = None) -> Any:
    """The analyzer's optimal strategy object for ``rules`` (StrategyError when not available)."""
    found = analysis_module(rules.game)
    if found is None:
        raise StrategyError(f"no exact optimal strategy for {rules.game} yet; use --strategy basic")
    return found.optimal_strategy(rules, bet_cents if found.bet_sized else None)


def optimal_advisor(rules: GameRules, bet_cents: int | None = None) -> Advisor:
    """The analyzer's strategy as an engine ``Advisor`` (decision context -> EV of each action)."""
    found = analysis_module(rules.game)
    obj = optimal_object(rules, bet_cents)

    def advise(ctx: DecisionContext) -> Mapping[Action, Any]:
        return found.advise(obj, ctx)  # type: ignore[no-any-return]

    return advise


def optimal_decide(rules: GameRules, bet_cents: int | None = None) -> Decide:
    advise = optimal_advisor(rules, bet_cents)
    return lambda ctx: best_action(advise(ctx), ctx)  # on exact ties, as the engine's bots


def parse_file_action(game: str, text: str, context: DecisionContext) -> Action:
    """An action from a strategy file, for this context (One Eyed Flush names the class to discard)."""
    action = kernel_of(game).file_action(text.strip().lower(), context)
    if action is None:
        raise StrategyError(f"strategy file: bad action {text!r} for {game}")
    return action


def file_decide(game: str, path: str | Path) -> Decide:
    """Decisions from a JSON file ``{"game": ..., "decisions": {key: action}}``; unlisted keys play basic."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise StrategyError(f"strategy file not found: {p}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise StrategyError(f"strategy file {p} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), dict):
        raise StrategyError(f"strategy file {p} needs an object with a 'decisions' object of key: action")
    if data.get("game", game) != game:
        raise StrategyError(f"strategy file {p} is for {data.get('game')!r}, not {game}")
    decisions = {str(k): str(v) for k, v in data["decisions"].items()}

    def decide(ctx: DecisionContext) -> Action:
        key = hand_key(ctx)
        if key in decisions:
            return parse_file_action(game, decisions[key], ctx)
        return basic_decide(ctx)

    return decide


def resolve_strategy(spec: str, rules: GameRules, bet_cents: int | None = None) -> Decide:
    """``basic`` | ``optimal`` | path of a JSON strategy file."""
    if spec == "basic":
        return basic_decide
    if spec == "optimal":
        return optimal_decide(rules, bet_cents)
    if Path(spec).suffix.lower() == ".json" or Path(spec).exists():
        decide = file_decide(rules.game, spec)
        return decide
    raise StrategyError(f"unknown strategy {spec!r}; use optimal, basic or a .json strategy file")


# --- tables --------------------------------------------------------------------------------------


def strategy_tables(rules: GameRules, decide: Decide) -> StrategyTables:
    """Decision tables for ``rules.game`` by calling ``decide`` once per pattern (the game's kernel adapter)."""
    return kernel_of(rules).strategy_tables(rules, decide)


@lru_cache(maxsize=32)
def named_strategy_tables(rules: GameRules, spec: str, bet_cents: int | None = None) -> StrategyTables:
    """Cached tables for a named strategy (``basic`` / ``optimal``) or a file (by path)."""
    return strategy_tables(rules, resolve_strategy(spec, rules, bet_cents))
