"""Complete subtrees of a round: every way the cards a seat has not seen can still fall, with its weight.

At a seat's decision, the round's deck has positions that seat has seen (its own cards, up cards, cards
revealed so far) and positions it has not: cards dealt face down to others (the dealer's hole cards) and
cards not dealt yet. This module enumerates them as OpenSpiel does its chance outcomes: what is still unseen,
with its probability, each outcome a complete round played by the engine itself (so the engine's own rules
settle it; nothing is recomputed here).

The walk is depth first. It plays the round on a deck whose unseen positions hold the unseen cards in order
(a filler), and finds the first event of that play that *shows* an unseen position (a card dealt face up or to
a seat, cards revealed, a card discarded face up): that is the next chance node. Each combination of unseen
cards for the positions that one event shows is a chance outcome (weight ``1 / C(n, k)``), and the walk plays
on from each. Two premises, which every game's flow keeps (they are what makes a round auditable):

* a card no one ever sees (a burn, a third card a standing player never turns) decides nothing: it is left as
  filler, counted only by its removal from the deck;
* a flow shows a card before it acts on it, and the cards one event shows together form a hand whose order
  decides nothing (the dealer's three cards revealed at once are one of C(49, 3) hands, not 49 x 48 x 47).

Decisions after the one walked are taken by ``policy`` (any seat's, in the round's order); decisions taken
before it are kept as recorded (no inference is drawn from them).

>>> from tablegames.rules import GAMES, make_rules
>>> from tablegames.engine import Table, Action
>>> from tablegames.cards import parse_cards
>>> head = parse_cards("4c 9d 6c Kh 2s 5s")  # the third game: seat 4c 6c (even), dealer 9d Kh up
>>> r = Table(make_rules(GAMES[2])).new_round(head + [c for c in range(52) if c not in head])
>>> _ = r.place_wager(1, "main", 100); _ = r.deal()
>>> leaves = list(complete_subtree(r, 1, Action("turn"), lambda rnd, seat: Action("stand")))
>>> len(leaves), sum(leaf.weight for leaf in leaves)  # the player's and the dealer's third cards: 48 x 47
(2256, Fraction(1, 1))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb

from tablegames.engine.base import Round, Table
from tablegames.engine.events import (
    ActionTaken,
    CardDealt,
    CardDiscarded,
    CardsRevealed,
    Event,
    WagerPlaced,
)
from tablegames.rules.flow import Action

Policy = Callable[[Round, int], Action]
"""The decision ``seat`` takes in ``round`` (for the decisions after the one walked)."""


@dataclass(frozen=True)
class Leaf:
    """One chance outcome of a complete subtree: its probability and the settled round the engine played."""

    weight: Fraction
    round: Round


def seen_positions(rnd: Round, seat: int) -> dict[int, int]:
    """Deck position -> card of every card ``seat`` has seen so far in ``rnd`` (dealt to it or face up, or
    revealed)."""
    seen: dict[int, int] = {}
    position = {int(e.card): e.position for e in rnd.history if isinstance(e, CardDealt)}
    for e in rnd.history:
        if isinstance(e, CardDealt) and e.visible(seat):
            seen[e.position] = int(e.card)
        elif isinstance(e, CardsRevealed):
            seen.update((position[int(c)], int(c)) for c in e.cards)
        elif isinstance(e, CardDiscarded) and e.visible(seat):
            seen[position[int(e.card)]] = int(e.card)
    return seen


def chance_outcomes(pool: Sequence[int], k: int) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """The ``k``-card hands of ``pool``, each with its probability (OpenSpiel's chance outcomes).

    >>> outcomes = list(chance_outcomes([0, 1, 2, 3], 2))
    >>> len(outcomes), outcomes[0]
    (6, ((0, 1), Fraction(1, 6)))
    """
    weight = Fraction(1, comb(len(pool), k))
    for hand in combinations(sorted(pool), k):
        yield hand, weight


def _shown(e: Event, position: dict[int, int]) -> tuple[int, ...]:
    """The deck positions event ``e`` shows to someone."""
    if isinstance(e, CardDealt):
        return (e.position,) if e.visible_to else ()
    if isinstance(e, CardsRevealed):
        return tuple(position[int(c)] for c in e.cards)
    if isinstance(e, CardDiscarded):
        return (position[int(e.card)],) if e.visible_to else ()
    return ()


class _Replayer:
    """Plays the recorded wagers and decisions of ``rnd`` on other decks, at one table."""

    def __init__(self, rnd: Round, seat: int, action: Action, policy: Policy) -> None:
        if rnd.to_act != seat:
            raise ValueError(f"seat {seat} is not deciding in this round (waiting for {rnd.to_act})")
        self.table = Table(rnd.table.rules, seats=rnd.table.seats, meters=rnd.meters_before)
        self.meters = dict(rnd.meters_before)
        self.wagers = [e for e in rnd.history if isinstance(e, WagerPlaced)]
        self.actions = [e for e in rnd.history if isinstance(e, ActionTaken)]
        self.seat = seat
        self.action = action
        self.policy = policy

    def play(self, deck: list[int]) -> Round:
        self.table.meters = dict(self.meters)
        rnd = self.table.new_round(deck)
        for w in self.wagers:
            rnd.place_wager(w.seat, w.wager, w.amount, w.option)
        rnd.deal()
        for a in self.actions:
            rnd.act(a.seat, a.action, by=a.by)
        if rnd.to_act != self.seat:
            raise AssertionError(f"the replay reached seat {rnd.to_act}'s decision, not seat {self.seat}'s")
        rnd.act(self.seat, self.action)
        while rnd.to_act is not None:
            seat = rnd.to_act
            rnd.act(seat, self.policy(rnd, seat))
        return rnd


def complete_subtree(rnd: Round, seat: int, action: Action, policy: Policy) -> Iterator[Leaf]:
    """Every chance outcome after ``seat`` takes ``action`` at its decision in ``rnd``, as ``seat`` sees the
    round: each a settled round and its probability (the probabilities add up to 1). ``rnd`` is unchanged."""
    replayer = _Replayer(rnd, seat, action, policy)
    seen = seen_positions(rnd, seat)
    pool = sorted(set(range(52)) - set(seen.values()))

    def deck_of(fixed: dict[int, int]) -> list[int]:
        filler = iter(sorted(set(pool) - set(fixed.values())))
        return [seen[i] if i in seen else fixed[i] if i in fixed else next(filler) for i in range(52)]

    def walk(fixed: dict[int, int], weight: Fraction) -> Iterator[Leaf]:
        deck = deck_of(fixed)
        played = replayer.play(deck)
        position = {card: i for i, card in enumerate(deck)}
        for e in played.history:
            group = sorted(p for p in _shown(e, position) if p not in seen and p not in fixed)
            if group:
                break
        else:
            yield Leaf(weight, played)
            return
        left = sorted(set(pool) - set(fixed.values()))
        for hand, w in chance_outcomes(left, len(group)):
            yield from walk({**fixed, **dict(zip(group, hand, strict=True))}, weight * w)

    yield from walk({}, Fraction(1))
