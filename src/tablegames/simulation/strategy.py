"""Player strategies as lookup tables for the kernels, built by *calling* a strategy.

A strategy here is a decision function ``decide(context) -> Action`` on the same decision contexts the round
engine gives its bots (``Round.decision_context``), so the very same function drives the engine's ``Bot`` in
the equivalence tests.  Three sources:

* ``basic``: the engine's documented rule of thumb (``engine.bots.rule_of_thumb``);
* ``optimal``: the exact analyzer's strategy object (``tablegames.analysis.<game>.optimal_strategy(rules)``),
  when that game's analysis exists;
* a JSON file of decisions by canonical hand key (see :func:`hand_key`), overriding ``basic``.

Tables are filled by calling ``decide`` once per *pattern* the decision can depend on — rank multiset and
flush flag (Let It Ride: the unseen cards are uniform over the rest of the deck, so nothing else matters),
card-class multiset and Flip Card class (One Eyed Flush), rank pairs (Final Count) — on representative cards,
then expanded with NumPy to every ordered tuple the kernels index.
"""

from __future__ import annotations

import importlib
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.cards import CARDS
from tablegames.engine.actions import PULL, RIDE, STAND, TURN, Action, discard
from tablegames.engine.bots import Advisor, best_action, rule_of_thumb
from tablegames.rules import GameRules
from tablegames.rules import final_count as fc
from tablegames.rules import let_it_ride as lir
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules.common import RuleError
from tablegames.simulation.tables import (
    CLASS_LETTERS,
    N_CLASSES,
    R3,
    R4,
    _expand,
    _multisets,
    card_class,
    rank_index,
    representative,
    triple_index,
)

Decide = Callable[[Mapping[str, Any]], Action]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
RANK_LETTERS = "23456789TJQKA"


class StrategyError(RuleError):
    """A strategy that cannot be used (unknown name, bad file, no analysis for this game yet)."""


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


# --- canonical keys (for strategy files) ----------------------------------------------------------


def hand_key(context: Mapping[str, Any], rules: GameRules | None = None) -> str:
    """The canonical key of a decision, as used in strategy files.

    >>> from tablegames.cards import parse_cards as p
    >>> hand_key({"game": "let-it-ride", "stage": 1, "cards": p("Ts Qs Js")})
    '1:QJTs'
    >>> hand_key({"game": "one-eyed-flush", "cards": p("5c Jh 9d"), "flip_card": p("Kd")[0]})
    'W95|W'
    >>> hand_key({"game": "final-count", "player_up": p("4c Ac"), "dealer_up": p("9d Kh")})
    'A4|K9'
    """
    game = context["game"]
    if game == lir.GAME:
        cards = list(context["cards"])
        ranks = "".join(RANK_LETTERS[r] for r in sorted((c >> 2 for c in cards), reverse=True))
        suited = "s" if len({c & 3 for c in cards}) == 1 else ""
        return f"{context['stage']}:{ranks}{suited}"
    if game == oef.GAME:
        cls = sorted((card_class(c) for c in context["cards"]), reverse=True)
        return "".join(CLASS_LETTERS[k] for k in cls) + "|" + CLASS_LETTERS[card_class(context["flip_card"])]
    if game == fc.GAME:

        def pair(cs: Sequence[int]) -> str:
            return "".join(RANK_LETTERS[r] for r in sorted((c >> 2 for c in cs), reverse=True))

        return pair(context["player_up"]) + "|" + pair(context["dealer_up"])
    raise StrategyError(f"unknown game {game!r}")


# --- sources of decisions ------------------------------------------------------------------------


def basic_decide(context: Mapping[str, Any]) -> Action:
    """The engine's rule of thumb (the published basic strategy for Let It Ride)."""
    return rule_of_thumb(context)


def analysis_module(game: str) -> Any:
    """``tablegames.analysis.<game>`` if it exists and has ``optimal_strategy``, else None."""
    name = game.replace("-", "_")
    try:
        mod = importlib.import_module(f"tablegames.analysis.{name}")
    except ImportError:
        return None
    return mod if hasattr(mod, "optimal_strategy") else None


def optimal_object(rules: GameRules, bet_cents: int | None = None) -> Any:
    """The analyzer's optimal strategy object for ``rules`` (StrategyError when not available)."""
    mod = analysis_module(rules.game)
    if mod is None:
        raise StrategyError(f"no exact optimal strategy for {rules.game} yet; use --strategy basic")
    if rules.game == lir.GAME:
        return mod.optimal_strategy(rules, bet_cents)
    return mod.optimal_strategy(rules)


def optimal_advisor(rules: GameRules, bet_cents: int | None = None) -> Advisor:
    """The analyzer's strategy as an engine ``Advisor`` (decision context -> EV of each action)."""
    obj = optimal_object(rules, bet_cents)

    def advise(ctx: Mapping[str, Any]) -> Mapping[Action, Any]:
        game = ctx["game"]
        if game == lir.GAME:
            cards = list(ctx["cards"])
            if len(cards) == 3:
                return obj.first(cards)  # type: ignore[no-any-return]
            return obj.second(cards, ctx.get("bet1_up"))  # type: ignore[no-any-return]
        if game == oef.GAME:
            return obj.options(list(ctx["cards"]), ctx["flip_card"])  # type: ignore[no-any-return]
        return obj.options(list(ctx["player_up"]), list(ctx["dealer_up"]))  # type: ignore[no-any-return]

    return advise


def optimal_decide(rules: GameRules, bet_cents: int | None = None) -> Decide:
    advise = optimal_advisor(rules, bet_cents)
    return lambda ctx: best_action(advise(ctx))


def parse_file_action(game: str, text: str, context: Mapping[str, Any]) -> Action:
    """An action from a strategy file, for this context (One Eyed Flush names the class to discard)."""
    t = text.strip().lower()
    if game == lir.GAME and t in ("ride", "pull"):
        return RIDE if t == "ride" else PULL
    if game == fc.GAME and t in ("stand", "turn"):
        return TURN if t == "turn" else STAND
    if game == oef.GAME:
        if t == "stand":
            return STAND
        parts = t.split()
        if len(parts) == 2 and parts[0] == "discard" and len(parts[1]) == 1:
            k = CLASS_LETTERS.find(parts[1].upper())
            cards = list(context["cards"])
            for i, c in enumerate(cards):
                if card_class(c) == k:
                    return discard(i)
            raise StrategyError(f"strategy file: {text!r} names a card not in {hand_key(context)}")
    raise StrategyError(f"strategy file: bad action {text!r} for {game}")


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

    def decide(ctx: Mapping[str, Any]) -> Action:
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


@dataclass(frozen=True)
class StrategyTables:
    """Decision tables for one game (unused fields are empty)."""

    lir_first: I8  # [2 * 13^3] (flush, ranks) -> 1 ride wager 1
    lir_second: I8  # [2 (wager 1 up) * 2 (flush) * 13^4] -> 1 ride wager 2
    oef_discard: npt.NDArray[
        np.int64
    ]  # [14^3 * 14] (ordered class triple, Flip Card class) -> position or -1
    fc_turn: I8  # [13^4] (player up ranks, dealer up ranks) -> 1 turn the third card


def _empty() -> I8:
    return np.zeros(0, dtype=np.int8)


def lir_strategy(decide: Decide) -> StrategyTables:
    first = np.zeros(2 * R3, dtype=np.int8)
    for ms in _multisets(3):
        for flush in (False, True) if len(set(ms)) == 3 else (False,):
            act = decide({"game": lir.GAME, "stage": 1, "cards": rank_cards(ms, flush)})
            first[int(flush) * R3 + rank_index(ms)] = int(act == RIDE)
    second = np.zeros(4 * R4, dtype=np.int8)
    for ms in _multisets(4):
        for flush in (False, True) if len(set(ms)) == 4 else (False,):
            cards = rank_cards(ms, flush)
            for up in (0, 1):
                act = decide({"game": lir.GAME, "stage": 2, "cards": cards, "bet1_up": bool(up)})
                second[(up * 2 + int(flush)) * R4 + rank_index(ms)] = int(act == RIDE)
    first = np.concatenate([_expand(first[i * R3 : (i + 1) * R3], 3) for i in range(2)])
    second = np.concatenate([_expand(second[i * R4 : (i + 1) * R4], 4) for i in range(4)])
    return StrategyTables(first, second, np.zeros(0, dtype=np.int64), _empty())


def oef_strategy(decide: Decide) -> StrategyTables:
    n3 = N_CLASSES**3
    sorted_choice: dict[tuple[tuple[int, ...], int], int] = {}
    t: tuple[int, ...]
    for t in itertools.combinations_with_replacement(range(N_CLASSES), 3):
        cards = representative(t)
        if cards is None:
            continue
        for f in range(N_CLASSES):
            flip = representative([f], cards)
            if flip is None:
                continue
            act = decide({"game": oef.GAME, "cards": cards, "flip_card": flip[0]})
            sorted_choice[(t, f)] = -1 if act.index is None else card_class(cards[act.index])
    table = np.full(n3 * N_CLASSES, -1, dtype=np.int64)
    for ordered in itertools.product(range(N_CLASSES), repeat=3):
        for f in range(N_CLASSES):
            k = sorted_choice.get((tuple(sorted(ordered)), f))
            if k is not None and k >= 0:
                table[triple_index(ordered) * N_CLASSES + f] = ordered.index(k)
    return StrategyTables(_empty(), _empty(), table, _empty())


def fc_strategy(decide: Decide, rules: fc.FinalCountRules) -> StrategyTables:
    turn_sorted = np.zeros(R4, dtype=np.int8)
    pairs = list(itertools.combinations_with_replacement(range(13), 2))
    for p in pairs:
        for d in pairs:
            ranks = [*p, *d]
            if max(ranks.count(r) for r in ranks) > 4:
                continue
            cards = rank_cards(ranks, False)
            player, dealer = cards[:2], cards[2:]
            total = rules.total(player)
            if fc.must_turn(total):
                turn = True  # R-FC-3: the dealer turns it, no choice
            else:
                ctx = {
                    "game": fc.GAME,
                    "player_up": player,
                    "dealer_up": dealer,
                    "total": total,
                    "dealer_total": rules.total(dealer),
                }
                turn = decide(ctx) == TURN
            turn_sorted[rank_index(ranks)] = int(turn)
    # Expand: sort within the player's pair and within the dealer's pair.
    grid = np.indices((13,) * 4).reshape(4, -1).T
    ps = np.sort(grid[:, :2], axis=1)
    ds = np.sort(grid[:, 2:], axis=1)
    idx = ((ps[:, 0] * 13 + ps[:, 1]) * 13 + ds[:, 0]) * 13 + ds[:, 1]
    return StrategyTables(_empty(), _empty(), np.zeros(0, dtype=np.int64), turn_sorted[idx])


def strategy_tables(rules: GameRules, decide: Decide) -> StrategyTables:
    """Decision tables for ``rules.game`` by calling ``decide`` once per pattern."""
    if isinstance(rules, lir.LetItRideRules):
        return lir_strategy(decide)
    if isinstance(rules, oef.OneEyedFlushRules):
        return oef_strategy(decide)
    return fc_strategy(decide, rules)


@lru_cache(maxsize=32)
def named_strategy_tables(rules: GameRules, spec: str, bet_cents: int | None = None) -> StrategyTables:
    """Cached tables for a named strategy (``basic`` / ``optimal``) or a file (by path)."""
    return strategy_tables(rules, resolve_strategy(spec, rules, bet_cents))


def card_text(c: int) -> str:
    return str(CARDS[c])
