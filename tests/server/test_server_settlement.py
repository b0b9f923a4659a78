"""The server's settlement postings (server.settlement), a pure mapping of the engine's postings to ledger
accounts, tested without a database on stacked rounds (Envy R-LIR-8, two hits of one meter in a round R-LIR-7,
the cap R-LIR-5, the One Eyed Flush jackpot R-OEF-9) and seeded rounds of every registered game; then written
to a real ledger, which balances and moves each account by exactly the engine's figures."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import Session
from test_server_support import every_wager, play_round

from server_harness import Harness
from tablegames.cards import parse_cards
from tablegames.engine import Bot, Round, Table
from tablegames.engine.events import JackpotContribution, JackpotHit, RoundEnded, WagerPlaced
from tablegames.engine.postings import postings as engine_postings
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules, registry
from tablegames.server import ledger
from tablegames.server.db import (
    CASHIER,
    HOUSE,
    IN_PLAY,
    JACKPOT,
    WALLET,
    Account,
    Entry,
    LedgerTransaction,
    Player,
    RoundPlayer,
    create_schema,
)
from tablegames.server.settlement import Accounts, Settlement, net_by_account, settlement

HOUSE_ACC, IN_PLAY_ACC, CASHIER_ACC = 1, 2, 3
BUY_IN = 10**8
WALLET_BASE, METER_BASE = 100, 1000


def stacked(seats: int, hands: dict[int, str], dealer: str = "") -> list[int]:
    """A deck dealing ``hands[s]`` (3 cards) to seat s and ``dealer`` to the dealer (R-0.2 deal order)."""
    pos: dict[int, int] = {}
    for s, text in hands.items():
        for p, c in enumerate(parse_cards(text)):
            pos[p * (seats + 1) + s - 1] = int(c)
    for p, c in enumerate(parse_cards(dealer)):
        pos[p * (seats + 1) + seats] = int(c)
    rest = iter(c for c in range(52) if c not in pos.values())
    return [pos[i] if i in pos else next(rest) for i in range(52)]


def play(rules: object, seats: int, main: int, deck: Sequence[int] | None = None, seed: int = 0) -> Round:
    """Every wager of the game's definition at every seat, decided by the bot."""
    definition = registry.of(rules)
    table = Table(rules, seats=seats, source=SeededRandom(seed))  # type: ignore[arg-type]
    rnd = table.new_round(deck=deck)
    for s in range(1, seats + 1):
        for w in definition.wagers:
            fixed = w.fixed_cents(rules)
            amount = main if w.main else fixed if fixed is not None else 200
            rnd.place_wager(s, w.name, amount, w.option.default if w.option is not None else None)
    rnd.deal()
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        rnd.act(seat, Bot().choose(rnd, seat), by="bot")
    return rnd


def accounts_for(rnd: Round) -> Accounts:
    seats = sorted({e.seat for e in rnd.history if isinstance(e, WagerPlaced)})
    meters = sorted(rnd.table.meters)
    return Accounts(
        wallets={s: WALLET_BASE + s for s in seats},
        players={s: 10 * s for s in seats},
        house=HOUSE_ACC,
        in_play=IN_PLAY_ACC,
        meters={m: METER_BASE + i for i, m in enumerate(meters)},
    )


def check(rnd: Round) -> Settlement:
    """The settlement's nets are the engine's: per seat (with the stakes posted at wager time), the house,
    the in-play account, each meter; every posting balances."""
    acc = accounts_for(rnd)
    out = settlement(rnd.history, acc, round_id=7)
    end = rnd.history[-1]
    assert isinstance(end, RoundEnded)
    net = net_by_account(out.postings)
    assert sum(net.values()) == 0
    assert all(sum(m.amount for m in p.moves) == 0 and p.round_id == 7 for p in out.postings)
    stakes = {s: 0 for s in acc.wallets}
    for e in rnd.history:
        if isinstance(e, WagerPlaced):
            stakes[e.seat] += registry.of(rnd.table.rules).wager(e.wager).cost(e.amount)  # type: ignore[union-attr]
    for seat, engine_net in end.net_by_seat.items():
        assert net.get(acc.wallets[seat], 0) - stakes[seat] == engine_net
    assert {r.seat: r.net for r in out.results} == dict(end.net_by_seat)
    assert {r.seat: r.staked for r in out.results} == stakes
    assert net.get(HOUSE_ACC, 0) == end.house_net == out.house_net
    assert net.get(IN_PLAY_ACC, 0) == -sum(stakes.values())  # what the wagers put in, handed to the house
    for name, account in acc.meters.items():
        assert net.get(account, 0) == end.meters[name] - rnd.meters_before[name]
    kinds = [p.kind for p in out.postings]
    assert kinds[0] == "stakes" and kinds.count("stakes") == 1 and "stake" not in kinds
    assert kinds[-len(out.results) :] == ["payout"] * len(out.results)
    hits = [e for e in rnd.history if isinstance(e, JackpotHit)]
    assert [h for _, h in out.hits] == hits
    for i, hit in out.hits:  # each hit pays the hitter from the meter, and the meter's reset follows it
        p, seed = out.postings[i], out.postings[i + 1]
        assert (p.kind, p.player_id, p.moves[0].account_id) == (
            "hit",
            acc.players[hit.seat],
            acc.meters[hit.meter],
        )
        assert p.moves[1] == ledger.Move(acc.wallets[hit.seat], hit.amount, "hit")
        assert (seed.kind, seed.moves[1]) == (
            "seed",
            ledger.Move(acc.meters[hit.meter], hit.reset_to, "seed"),
        )
    contributions = [p for p in out.postings if p.kind == "contribution"]
    assert len(contributions) == sum(
        1 for e in rnd.history if isinstance(e, JackpotContribution) and e.amount
    )
    return out


def test_two_major_hits_and_envy() -> None:
    """Two straight flushes: the Major pays seat 1, then seat 3 from its reset (R-LIR-7); each hitter pays the
    Envy Bonus to every other progressive seat (R-LIR-8)."""
    rules = make_rules("let-it-ride")
    rnd = play(rules, 3, 500, stacked(3, {1: "Qh Jh Th", 2: "2c 7d 9s", 3: "7h 6h 5h"}, dealer="Ac 9h 8h"))
    out = check(rnd)
    assert [(h.seat, h.meter) for _, h in out.hits] == [(1, "major"), (3, "major")]
    assert out.hits[1][1].amount == 500_000  # the second hit is paid from the reset value
    envy = [p for p in out.postings if p.kind == "envy"]
    assert sorted(p.player_id or 0 for p in envy) == [10, 20, 20, 30]
    assert all(p.moves[0].account_id == HOUSE_ACC for p in envy)


def test_two_minor_hits_in_one_round() -> None:
    rules = make_rules("let-it-ride")
    out = check(play(rules, 3, 500, stacked(3, {1: "8c 8s 8d", 2: "Kd 4c 2s", 3: "9c 9s 9h"}, "2d 8h 9d")))
    assert [(h.seat, h.meter) for _, h in out.hits] == [(1, "minor"), (3, "minor")]


def test_the_cap() -> None:
    """R-LIR-5: three $25,000 bets on a royal flush win 3 x 1000 x $25,000, capped at $50,000."""
    rules = make_rules("let-it-ride")
    rnd = play(rules, 1, 2_500_000, stacked(1, {1: "As Ks Qs"}, dealer="2h Js Ts"))
    out = check(rnd)
    assert out.results[0].net < 3 * 2_500_000 * 1000  # capped
    payout = out.postings[-1]
    assert payout.kind == "payout" and payout.moves[1].amount >= 3 * 2_500_000 + 5_000_000


def test_one_eyed_flush_jackpot() -> None:
    """R-OEF-9: the One Eyed Flush on the first three cards takes the meter."""
    rules = make_rules("one-eyed-flush")
    out = check(play(rules, 2, 500, stacked(2, {1: "Jh Js Kd", 2: "2c 7d 9s"}, dealer="3c 4d 8s")))
    assert [(h.seat, h.meter) for _, h in out.hits] == [(1, "one-eyed-flush")]


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(1, 7))
def test_every_game_posts_the_engine_net(definition: registry.GameDefinition, seed: int, seats: int) -> None:
    check(play(definition.make_rules(), seats, 500, seed=seed))


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_the_real_ledger_balances(definition: registry.GameDefinition) -> None:
    """Written to a real ledger (SQLite), after the wagers as the server posts them: every account moves by
    the engine's figures and the ledger checks out."""
    rnd = play(definition.make_rules(), 4, 500, seed=11)
    acc = accounts_for(rnd)
    engine = sa.create_engine("sqlite://")
    create_schema(engine)
    with Session(engine) as s, s.begin():
        s.add_all(
            [
                Account(id=HOUSE_ACC, name="house", kind=HOUSE),
                Account(id=IN_PLAY_ACC, name="ip", kind=IN_PLAY),
            ]
        )
        s.add(Account(id=CASHIER_ACC, name="cashier", kind=CASHIER))
        s.add_all(Account(id=a, name=f"w{a}", kind=WALLET) for a in acc.wallets.values())
        s.add_all(Account(id=a, name=f"m{a}", kind=JACKPOT) for a in acc.meters.values())
    out = settlement(rnd.history, acc, round_id=None)
    transfer = ledger.Posting.transfer
    with Session(engine) as s, s.begin():
        ledger.post_all(s, [transfer("buy-in", CASHIER_ACC, a, BUY_IN) for a in acc.wallets.values()])
        # the wagers as the server posts them when they are placed (what the settlement skips)
        ledger.post_all(
            s, [transfer("wager", acc.wallets[r.seat], IN_PLAY_ACC, r.staked) for r in out.results]
        )
        ledger.post_all(s, out.postings)
    with Session(engine) as s:
        assert ledger.check_ledger(s).ok
        balances = dict(s.execute(sa.select(Account.id, Account.balance)).all())
    end = rnd.history[-1]
    assert isinstance(end, RoundEnded)
    for seat, net in end.net_by_seat.items():
        assert balances[acc.wallets[seat]] == BUY_IN + net
    assert balances[IN_PLAY_ACC] == 0
    assert balances[HOUSE_ACC] == end.house_net
    assert sum(balances.values()) == 0


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_the_server_skips_exactly_the_stakes_it_posted_when_wagering(
    make_server: Callable[..., Harness], definition: registry.GameDefinition
) -> None:
    """A round of every registered game through the server: what each wager message took from a wallet (ledger
    kind ``wager``) is, per player, exactly the engine's ``stake`` postings of the round (the settlement posts
    the rest), and each wallet then moves by the engine's net for its seat."""
    h = make_server()
    table = h.table(definition.key)
    wagers, options, _ = every_wager(definition)
    socks = {}
    for seat, name in ((1, "ann"), (2, "bob")):
        tok, _ = h.player(name, 50_000)
        socks[seat] = h.seated(tok, table)
    results = play_round(socks, dict.fromkeys(socks, wagers), dict.fromkeys(socks, options))
    round_id = results[1]["round_id"]
    rec = h.client.get(f"/rounds/{round_id}").json()
    live = h.server.runners[table].live  # the round as the engine settled it (until the next one opens)
    assert live is not None and live.round_id == round_id
    history = live.rnd.history
    stakes: dict[int, int] = {}
    for p in engine_postings(history):
        if p.kind == "stake":
            assert p.seat is not None
            stakes[p.seat] = stakes.get(p.seat, 0) + p.amount_cents
    with h.server.sessions() as s:
        took = dict(
            s.execute(
                sa.select(LedgerTransaction.player_id, -sa.func.sum(Entry.amount))
                .join(Entry, Entry.transaction_id == LedgerTransaction.id)
                .join(Player, Player.account_id == Entry.account_id)
                .where(LedgerTransaction.round_id == round_id, LedgerTransaction.kind == "wager")
                .group_by(LedgerTransaction.player_id)
            ).all()
        )
        seat_players = dict(
            s.execute(
                sa.select(RoundPlayer.seat, RoundPlayer.player_id).where(RoundPlayer.round_id == round_id)
            ).all()
        )
    assert {seat: int(took[pid]) for seat, pid in seat_players.items()} == stakes
    end = history[-1]
    assert isinstance(end, RoundEnded)
    assert {r["seat"]: r["net"] for r in rec["players"]} == {int(k): v for k, v in end.net_by_seat.items()}
    h.check_ledger()
