"""Worked example hands for the math report, played by the round engine on stacked decks.

Each game's analyzer names its examples (:meth:`~tablegames.analysis.common.Analyzer.worked_examples`: a deck
in deal order, the wagers, what the example shows); this module plays them through the engine
(:class:`~tablegames.engine.Table`, ``new_round(deck=...)``) with the optimal strategy's advisor deciding, and
writes down what the engine's events say: the cards, each decision with the exact EV of every option, the
hands, and the settlement of every wager. So the report's examples cannot disagree with the engine: they *are*
its rounds. An example whose settlement is not what its title claims (``ExampleSpec.expect``) is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tablegames.analysis.advice import advisor
from tablegames.analysis.common import ExampleSpec
from tablegames.cards import format_cards
from tablegames.engine import Action, Bot, Table
from tablegames.engine.events import (
    ActionTaken,
    CardDealt,
    CardDiscarded,
    Event,
    HandResult,
    JackpotHit,
    NeighbourBonusPaid,
    RoundEnded,
    Settled,
)
from tablegames.rules import GameRules


class ExampleError(ValueError):
    """A worked example that does not settle as its title claims."""


@dataclass(frozen=True)
class Settlement:
    wager: str
    staked: int
    returned: int
    outcome: str
    detail: str
    meter_cents: int = 0
    capped_from: int | None = None
    seat: int = 1
    part: str = ""  # of a wager of several equal bets, the ones this settles (``Settled.part``)

    @property
    def net(self) -> int:
        return self.returned - self.staked


@dataclass(frozen=True)
class WorkedExample:
    """One example round as the engine played it."""

    title: str
    deck: tuple[int, ...]
    wagers: tuple[tuple[str, int, str | None], ...]
    cards: dict[str, list[int]]  # owner (seat 1, dealer, community, burn) -> cards dealt, in order
    decisions: list[tuple[str, dict[str, Fraction]]]  # action taken, EV of every option (units)
    discarded: list[tuple[str, int]]  # owner, card put aside
    hands: dict[str, str]  # owner -> final hand
    settlements: list[Settlement]
    hits: list[tuple[str, int]]  # meter, amount
    neighbour_bonus: list[tuple[int, int]]  # (seat, cents): bonuses paid for another seat's hand
    net: int  # seat 1's
    meters: dict[str, int] = field(default_factory=dict)  # the meters before the round
    seats: int = 1
    nets: dict[int, int] = field(default_factory=dict)  # every seat's net, as RoundEnded says
    acting: list[int] = field(default_factory=list)  # the seat of each decision

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "deck": format_cards(self.deck[: sum(len(c) for c in self.cards.values())]),
            "wagers": [{"wager": w, "cents": a, "option": o} for w, a, o in self.wagers],
            "cards": {k: format_cards(v) for k, v in self.cards.items()},
            "decisions": [
                {"action": a, "options": {k: str(v) for k, v in opts.items()}} for a, opts in self.decisions
            ],
            "hands": dict(self.hands),
            "seats": self.seats,
            "settlements": [
                {
                    "seat": s.seat,
                    "wager": s.wager,
                    "part": s.part,
                    "staked": s.staked,
                    "returned": s.returned,
                    "net": s.net,
                    "outcome": s.outcome,
                    "detail": s.detail,
                    "meter_cents": s.meter_cents,
                    "capped_from": s.capped_from,
                }
                for s in self.settlements
            ],
            "envy": [{"seat": seat, "cents": cents} for seat, cents in self.neighbour_bonus],
            "net_cents": self.net,
            "net_by_seat": {str(k): v for k, v in self.nets.items()},
        }


def play_example(rules: GameRules, spec: ExampleSpec) -> WorkedExample:
    """Play ``spec`` through the engine, the optimal strategy deciding (or ``spec.actions``)."""
    table = Table(rules, seats=spec.seats, meters=dict(spec.meters) or None)
    meters_before = dict(table.meters)
    rnd = table.new_round(deck=list(spec.deck))
    for seat in range(1, spec.seats + 1):
        for wager, amount, option in spec.wagers:
            rnd.place_wager(seat, wager, amount, option)
    rnd.deal()
    planned = list(spec.actions) if spec.actions is not None else None
    decisions: list[tuple[str, dict[str, Fraction]]] = []
    seats_acting: list[int] = []
    strategy = None
    while rnd.to_act is not None:
        seat = rnd.to_act
        found = advisor(rnd, seat, strategy)
        values = {a: Fraction(v) for a, v in found(rnd.decision_context(seat)).items()}
        legal = set(rnd.legal_actions(seat))
        values = {a: v for a, v in values.items() if a in legal}
        if planned is not None:
            if not planned:
                raise ExampleError(f"{spec.title}: more decisions than the {len(spec.actions or ())} given")
            action = Action.parse(planned.pop(0))
        else:
            action = Bot(found).choose(rnd, seat)
        rnd.act(seat, action, by="bot")
        decisions.append((str(action), {str(a): v for a, v in values.items()}))
        seats_acting.append(seat)
    if not rnd.is_over:
        raise ExampleError(f"{spec.title}: the round did not finish")
    return _record(spec, rnd.history, decisions, meters_before, seats_acting)


def _record(
    spec: ExampleSpec,
    history: Sequence[Event],
    decisions: list[tuple[str, dict[str, Fraction]]],
    meters: dict[str, int],
    seats_acting: list[int],
) -> WorkedExample:
    cards: dict[str, list[int]] = {}
    hands: dict[str, str] = {}
    settlements: list[Settlement] = []
    hits: list[tuple[str, int]] = []
    bonuses: list[tuple[int, int]] = []
    discarded: list[tuple[str, int]] = []
    nets: dict[int, int] = {}
    taken = [e.action for e in history if isinstance(e, ActionTaken)]
    if taken != [d for d, _ in decisions]:
        raise ExampleError(f"{spec.title}: the history's decisions {taken} are not the ones taken")
    for e in history:
        if isinstance(e, CardDealt):
            cards.setdefault(e.to, []).append(e.card)
        elif isinstance(e, CardDiscarded):
            discarded.append((e.owner, e.card))
        elif isinstance(e, HandResult):
            hands[e.owner] = e.hand
        elif isinstance(e, Settled):
            settlements.append(
                Settlement(
                    e.wager,
                    e.staked,
                    e.returned,
                    e.outcome,
                    e.detail,
                    e.meter_cents,
                    e.capped_from,
                    e.seat,
                    e.part,
                )
            )
        elif isinstance(e, JackpotHit):
            hits.append((e.meter, e.amount))
        elif isinstance(e, NeighbourBonusPaid):
            bonuses.append((e.seat, e.amount))
        elif isinstance(e, RoundEnded):
            nets = dict(e.net_by_seat)
    ex = WorkedExample(
        spec.title,
        spec.deck,
        spec.wagers,
        cards,
        decisions,
        discarded,
        hands,
        settlements,
        hits,
        bonuses,
        nets.get(1, 0),
        meters,
        spec.seats,
        nets,
        seats_acting,
    )
    outcomes: dict[str, str] = {}  # by wager, and by "<wager> <part>" for each of its bets a settlement names
    for s in (s for s in settlements if s.seat == 1):
        outcomes[s.wager] = s.outcome
        outcomes.update({f"{s.wager} {p}": s.outcome for p in s.part.split()})
    for wager, outcome in spec.expect.items():
        if outcomes.get(wager) != outcome:
            raise ExampleError(
                f"{spec.title}: the engine settled {wager!r} as {outcomes.get(wager)!r}, not {outcome!r}"
            )
    return ex


def worked_examples(rules: GameRules, specs: Sequence[ExampleSpec]) -> list[WorkedExample]:
    return [play_example(rules, s) for s in specs]
