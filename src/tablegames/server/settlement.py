"""A settled round's ledger postings: the engine's postings (:func:`tablegames.engine.postings.postings`)
mapped to the server's accounts. Pure: no database, no server.

Roles map to accounts: a seat's wallet -> its player's wallet account, the house -> the house, the table's
in-play role -> the table's in-play account, a meter -> that meter's jackpot account. The engine's ``stake``
postings (wallet -> in play, one per wager placed) are not posted again: the server posted each wager message's
cost when it was placed (``runner``'s wager step, ledger kind ``wager``); they give the seats' stakes. The
ledger keeps the transactions it always had: one ``stakes`` transaction for the whole round (in play ->
house), then the contributions, then each hit followed by its meter's reset (``seed``) and each neighbour bonus
in the order they happened, then one ``payout`` per seat (the sum of its wagers' payouts not paid by a meter).

So, exactly: per seat, what its wallet receives here minus its stakes is the engine's ``RoundEnded.net_by_seat``;
the house moves by ``RoundEnded.house_net``; the in-play account gives back the stakes it received.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tablegames.engine.events import Event, JackpotHit, NeighbourBonusPaid
from tablegames.engine.postings import HOUSE, IN_PLAY, Posting, Role
from tablegames.engine.postings import postings as engine_postings
from tablegames.server import ledger


@dataclass(frozen=True)
class Accounts:
    """The ledger accounts of one round's roles."""

    wallets: Mapping[int, int]  # seat -> the seated player's wallet account
    players: Mapping[int, int]  # seat -> player id
    house: int
    in_play: int  # the table's in-play account
    meters: Mapping[str, int]  # meter name -> its jackpot account

    def of(self, role: Role) -> int:
        if role.kind == "wallet":
            assert role.seat is not None
            return self.wallets[role.seat]
        if role.kind == "meter":
            assert role.meter is not None
            return self.meters[role.meter]
        if role == HOUSE:
            return self.house
        if role == IN_PLAY:
            return self.in_play
        raise ValueError(f"no account for role {role}")


@dataclass(frozen=True)
class SeatResult:
    seat: int
    player_id: int
    staked: int
    returned: int

    @property
    def net(self) -> int:
        return self.returned - self.staked

    def to_dict(self) -> dict[str, int]:
        return {
            "seat": self.seat,
            "player_id": self.player_id,
            "staked": self.staked,
            "returned": self.returned,
            "net": self.net,
        }


@dataclass(frozen=True)
class Settlement:
    """What the server writes for a settled round."""

    postings: list[ledger.Posting]
    hits: list[tuple[int, JackpotHit]]  # (index in ``postings``, the hit) of every meter hit, in order
    results: list[SeatResult]  # per seat, in seat order
    house_net: int


def settlement(history: Sequence[Event], accounts: Accounts, round_id: int | None = None) -> Settlement:
    """The ledger postings of the settled round whose events are ``history`` (see the module's docstring)."""
    staked: dict[int, int] = defaultdict(int)
    returned: dict[int, int] = defaultdict(int)
    payouts: dict[int, int] = defaultdict(int)
    stakes = 0
    house_net = 0
    body: list[ledger.Posting] = []
    hits: list[tuple[int, JackpotHit]] = []
    waiting_seeds: dict[str, list[ledger.Posting]] = defaultdict(list)
    hit_events = iter([e for e in history if isinstance(e, JackpotHit) and e.amount > 0])
    bonus_events = iter([e for e in history if isinstance(e, NeighbourBonusPaid) and e.amount > 0])

    def post(p: Posting, memo: str = "", player: bool = True) -> ledger.Posting:
        return ledger.Posting.transfer(
            p.kind,
            accounts.of(p.from_role),
            accounts.of(p.to_role),
            p.amount_cents,
            round_id=round_id,
            player_id=accounts.players[p.seat] if player and p.seat is not None else None,
            memo=memo,
        )

    for p in engine_postings(history):
        if p.to_role.kind == "wallet":
            assert p.to_role.seat is not None
            returned[p.to_role.seat] += p.amount_cents
        if HOUSE in (p.from_role, p.to_role):
            house_net += p.amount_cents if p.to_role == HOUSE else -p.amount_cents
        if p.kind == "stake":  # posted when the wager was placed
            assert p.seat is not None
            staked[p.seat] += p.amount_cents
        elif p.kind == "stakes":
            stakes += p.amount_cents
        elif p.kind == "payout":
            assert p.seat is not None
            payouts[p.seat] += p.amount_cents
        elif p.kind == "seed":  # a hit's reset: written after the hit itself
            assert p.meter is not None
            waiting_seeds[p.meter].append(post(p, p.meter))
        elif p.kind == "hit":
            assert p.meter is not None
            hit = next(hit_events)
            if (hit.seat, hit.meter, hit.amount) != (p.seat, p.meter, p.amount_cents):
                raise AssertionError(f"meter hit {hit} does not match the posting {p}")
            hits.append((len(body), hit))
            body.append(post(p, p.meter))
            body.extend(waiting_seeds.pop(p.meter, []))
        elif p.kind == "envy":
            paid = next(bonus_events)
            body.append(post(p, f"from seat {paid.from_seat}: {paid.hand}"))
        else:
            body.append(post(p, p.meter or ""))
    body.extend(s for seeds in waiting_seeds.values() for s in seeds)
    head = [ledger.Posting.transfer("stakes", accounts.in_play, accounts.house, stakes, round_id=round_id)]
    seats = sorted(staked)
    tail = [
        ledger.Posting.transfer(
            "payout",
            accounts.house,
            accounts.wallets[seat],
            payouts[seat],
            round_id=round_id,
            player_id=accounts.players[seat],
        )
        for seat in seats
    ]
    results = [SeatResult(seat, accounts.players[seat], staked[seat], returned[seat]) for seat in seats]
    return Settlement([*head, *body, *tail], [(i + len(head), hit) for i, hit in hits], results, house_net)


def net_by_account(postings: Sequence[ledger.Posting]) -> dict[int, int]:
    """How much each account gains (negative: loses) over ``postings``; the values sum to zero."""
    net: dict[int, int] = defaultdict(int)
    for p in postings:
        for m in p.moves:
            net[m.account_id] += m.amount
    return dict(net)
