"""The exact oracle: a decision's values and outcome probabilities, from the round engine's complete subtrees.

Generic over the registry. :func:`tablegames.engine.chance.complete_subtree` plays every chance outcome of a
seat's decision through the engine (what the seat has not seen, with its weight); this module adds up the
engine's own settlements, as exact fractions: the value of every legal action (the seat's net on its main
wager and the wagers it puts in play, per unit of the main wager: what an analyzer's ``advise`` gives), and the
probability of every net result of every wager. The tests hold each game's exact analyzer to it on complete
subtrees (tests/analysis/test_oracle.py), and a game without an analyzer is analysed by it alone.

>>> from tablegames.cards import parse_cards
>>> from tablegames.engine import Table
>>> from tablegames.rules import GAMES, make_rules
>>> head = parse_cards("4c 9d 6c Kh 2s 5s")  # the third game (two up cards each): seat 4c 6c
>>> r = Table(make_rules(GAMES[2])).new_round(head + [c for c in range(52) if c not in head])
>>> _ = r.place_wager(1, "main", 100); _ = r.deal()
>>> values = action_values(r, 1, optimal_policy(r.table.rules))
>>> {str(a): v for a, v in values.items()}
{'stand': Fraction(5, 24), 'turn': Fraction(-143, 564)}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from tablegames.analysis.advice import advisor, strategy_key
from tablegames.engine import Action, Bot, Round
from tablegames.engine.chance import Leaf, Policy, complete_subtree
from tablegames.engine.events import NeighbourBonusPaid, Settled
from tablegames.rules import GameRules

NEIGHBOUR_BONUS = "envy"
"""The key of neighbour bonus payments (``NeighbourBonusPaid``) among a seat's nets (they belong to no wager)."""


def seat_nets(rnd: Round, seat: int) -> dict[str, int]:
    """``seat``'s net in cents by wager placed in the settled ``rnd`` (a wager the main one puts in play, as
    Three Card Poker's Play, counts as the main wager; its parts summed); neighbour bonuses under :data:`NEIGHBOUR_BONUS`."""
    placed = set(rnd.seats[seat].wagers)
    main = rnd.main_wager()
    nets: dict[str, int] = defaultdict(int)
    for e in rnd.history:
        if isinstance(e, Settled) and e.seat == seat:
            nets[e.wager if e.wager in placed else main] += e.returned - e.staked
        elif isinstance(e, NeighbourBonusPaid) and e.seat == seat:
            nets[NEIGHBOUR_BONUS] += e.amount
    return dict(nets)


def optimal_policy(rules: GameRules) -> Policy:
    """Every decision by the exact analyzer's strategy (its advisor, the cautious choice on exact ties)."""
    strategies: dict[Any, Any] = {}

    def decide(rnd: Round, seat: int) -> Action:
        key = strategy_key(rnd, seat)
        if key not in strategies:
            strategies[key] = advisor(rnd, seat)
        return Bot(strategies[key]).choose(rnd, seat)

    return decide


def value(leaves: Iterable[Leaf], seat: int) -> Fraction:
    """The expected net of ``seat``'s main wager (and the wagers it puts in play) per unit of it."""
    total = Fraction(0)
    for leaf in leaves:
        stake = leaf.round.seats[seat].wagers[leaf.round.main_wager()]
        total += leaf.weight * Fraction(seat_nets(leaf.round, seat).get(leaf.round.main_wager(), 0), stake)
    return total


def action_values(rnd: Round, seat: int, policy: Policy) -> dict[Action, Fraction]:
    """The exact value of every legal action of ``seat``'s decision in ``rnd`` (per unit of its main wager),
    each from the engine's complete subtree, later decisions by ``policy``."""
    return {
        action: value(complete_subtree(rnd, seat, action, policy), seat) for action in rnd.legal_actions(seat)
    }


def net_distribution(leaves: Iterable[Leaf], seat: int) -> dict[tuple[tuple[str, int], ...], Fraction]:
    """The exact probability of every combination of ``seat``'s nets in cents (wager -> net, sorted)."""
    dist: dict[tuple[tuple[str, int], ...], Fraction] = defaultdict(Fraction)
    for leaf in leaves:
        dist[tuple(sorted(seat_nets(leaf.round, seat).items()))] += leaf.weight
    return dict(dist)


def outcome_probabilities(leaves: Iterable[Leaf], seat: int) -> dict[tuple[str, str], Fraction]:
    """The exact probability that each of ``seat``'s wagers ends in each engine outcome (win, push, lose,
    fold, ...): (wager, outcome) -> probability (a wager settled in parts counts once per part)."""
    dist: dict[tuple[str, str], Fraction] = defaultdict(Fraction)
    for leaf in leaves:
        for e in leaf.round.history:
            if isinstance(e, Settled) and e.seat == seat:
                dist[(e.wager, e.outcome)] += leaf.weight
    return dict(dist)


def expected_nets(leaves: Iterable[Leaf], seat: int) -> Mapping[str, Fraction]:
    """The expected net in cents of each of ``seat``'s wagers (and neighbour bonuses)."""
    out: dict[str, Fraction] = defaultdict(Fraction)
    for leaf in leaves:
        for wager, net in seat_nets(leaf.round, seat).items():
            out[wager] += leaf.weight * net
    return dict(out)
