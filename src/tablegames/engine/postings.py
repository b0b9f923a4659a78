"""A round's money as ledger postings: a pure function of its history (no database, no server).

The engine's settlement records every money movement of a round as an event: each wager placed
(``WagerPlaced``, its cost from the game's definition), each meter contribution (``JackpotContribution``),
each wager's result (``Settled``: ``returned`` cents, ``meter_cents`` of them from ``meter``, the win before the
cap in ``capped_from``), each meter hit and its reset (``JackpotHit``) and each neighbour bonus
(``NeighbourBonusPaid``).
:func:`postings` turns them into transfers between abstract roles: a seat's wallet, the house, the table's
in-play account and each meter. The server maps the roles to its accounts.

The postings of a settled round satisfy, exactly:

* per seat, money into its wallet minus money out of it is the engine's ``RoundEnded.net_by_seat``;
* the house moves by ``RoundEnded.house_net``, the in-play account by nothing;
* each meter moves by its contributions minus its hits plus its resets (its value after minus before).

>>> from tablegames.engine import Bot, Table
>>> from tablegames.randomness import SeededRandom
>>> from tablegames.rules import GAMES, make_rules
>>> for game in GAMES:
...     t = Table(make_rules(game), seats=1, source=SeededRandom(3))
...     r = t.new_round(); _ = r.place_wager(1, r.main_wager(), 500); _ = r.deal()
...     while not r.is_over: _ = r.act(r.to_act, Bot().choose(r, r.to_act))
...     moves = postings(r.history)
...     assert [p.kind for p in moves][:2] == ["stake", "stakes"]
...     assert net_by_role(moves).get(wallet(1), 0) == r.history[-1].net_by_seat[1]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from tablegames.engine.events import (
    Event,
    JackpotContribution,
    JackpotHit,
    NeighbourBonusPaid,
    RoundStarted,
    Settled,
    WagerPlaced,
)
from tablegames.rules import registry


@dataclass(frozen=True, order=True)
class Role:
    """An abstract account of a round: ``wallet`` (of ``seat``), ``house``, ``in_play`` or ``meter`` (``meter``)."""

    kind: str
    seat: int | None = None
    meter: str | None = None

    def __str__(self) -> str:
        if self.kind == "wallet":
            return f"seat {self.seat}"
        return f"meter {self.meter}" if self.kind == "meter" else self.kind


HOUSE = Role("house")
IN_PLAY = Role("in_play")


def wallet(seat: int) -> Role:
    return Role("wallet", seat=seat)


def meter(name: str) -> Role:
    return Role("meter", meter=name)


@dataclass(frozen=True)
class Posting:
    """``amount_cents`` (> 0) from one role to another.

    ``kind``: ``stake`` (a wager's cost, wallet -> in play, when placed), ``stakes`` (a seat's stakes, in play
    -> house, at the deal), ``contribution`` (house -> meter), ``payout`` (house -> wallet: a wager's return
    not paid by a meter), ``hit`` (meter -> wallet), ``seed`` (house -> meter: its reset value after a hit),
    ``envy`` (house -> wallet: a neighbour bonus; the kind's stored name is older). ``seat``, ``meter`` and ``wager`` say what it belongs to.
    """

    from_role: Role
    to_role: Role
    amount_cents: int
    kind: str
    seat: int | None = None
    meter: str | None = None
    wager: str | None = None


def postings(history: Sequence[Event]) -> list[Posting]:
    """Every money movement of the round whose events are ``history``, in the order they happened (a round
    not dealt yet has only its stakes, still in play)."""
    if not history or not isinstance(history[0], RoundStarted):
        raise ValueError("a history starts with round_started")
    definition = registry.get(history[0].game)
    out: list[Posting] = []
    staked: dict[int, int] = defaultdict(int)
    dealt = False

    def add(src: Role, dst: Role, cents: int, kind: str, **what: object) -> None:
        if cents < 0:
            raise ValueError(f"negative {kind} of {cents} cents")
        if cents:
            out.append(Posting(src, dst, cents, kind, **what))  # type: ignore[arg-type]

    def close_stakes() -> None:
        for seat in sorted(staked):
            add(IN_PLAY, HOUSE, staked[seat], "stakes", seat=seat)

    for e in history:
        if isinstance(e, WagerPlaced):
            spec = definition.wager(e.wager)
            cost = e.amount if spec is None else spec.cost(e.amount)
            staked[e.seat] += cost
            add(wallet(e.seat), IN_PLAY, cost, "stake", seat=e.seat, wager=e.wager)
            continue
        if not dealt and not isinstance(e, RoundStarted):
            dealt = True
            close_stakes()
        if isinstance(e, JackpotContribution):
            add(HOUSE, meter(e.meter), e.amount, "contribution", seat=e.seat, meter=e.meter)
        elif isinstance(e, JackpotHit):
            add(HOUSE, meter(e.meter), e.reset_to, "seed", meter=e.meter)
        elif isinstance(e, Settled):
            if e.meter is not None:
                add(
                    meter(e.meter),
                    wallet(e.seat),
                    e.meter_cents,
                    "hit",
                    seat=e.seat,
                    meter=e.meter,
                    wager=e.wager,
                )
            add(HOUSE, wallet(e.seat), e.returned - e.meter_cents, "payout", seat=e.seat, wager=e.wager)
        elif isinstance(e, NeighbourBonusPaid):
            add(HOUSE, wallet(e.seat), e.amount, "envy", seat=e.seat, wager=f"envy of seat {e.from_seat}")
    return out  # (not dealt yet: the stakes are still in play)


def net_by_role(moves: Sequence[Posting]) -> dict[Role, int]:
    """How much each role gained (negative: lost) over ``moves``; the values sum to zero."""
    net: dict[Role, int] = defaultdict(int)
    for p in moves:
        net[p.from_role] -= p.amount_cents
        net[p.to_role] += p.amount_cents
    return dict(net)
