"""The patron summary (N.J.A.C. 13:69O-1.9): per player, the day's money from the beginning balance to the
ending balance, every column from the ledger's wallet entries, reconciled to them to the cent.

ending = beginning + deposits - withdrawals - to_games + from_games + adjustments, and the ending balance is the
sum of the wallet's entries before the day's end. win/loss is the player's result of the rounds settled in the
day: from_games - to_games - on_game_start + on_game_end (the stakes of unsettled rounds belong to the player
until the round is settled); it equals the sum of ``round_players.net`` of those rounds. There are no bonuses:
the bonus columns are zero.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tablegames.server.db import WALLET, Account, Entry, LedgerTransaction, Player, RoundPlayer
from tablegames.server.queries import player_id_of
from tablegames.server.reports.common import (
    WAGER,
    Report,
    build,
    check,
    day_window,
    round_money,
    settlement_times,
)

DEPOSIT, WITHDRAWAL = "buy-in", "cash-out"
FROM_GAMES = ("payout", "hit", "envy")  # a round's money into a wallet (payout, meter hit, neighbour bonus)


@dataclass(frozen=True)
class PatronRow:
    player: str
    beginning_balance: int
    deposits: int
    withdrawals: int
    transfers_to_games: int
    transfers_from_games: int
    funds_on_game_start: int
    funds_on_game_end: int
    win_loss: int
    adjustments: int
    ending_balance: int
    bonus_beginning: int = 0
    bonus_issued: int = 0
    bonus_used: int = 0
    bonus_ending: int = 0


MONEY = (
    "beginning_balance",
    "deposits",
    "withdrawals",
    "transfers_to_games",
    "transfers_from_games",
    "funds_on_game_start",
    "funds_on_game_end",
    "win_loss",
    "adjustments",
    "ending_balance",
)


def patron_summary(session: Session, day: dt.date, tz: str = "UTC", player: str | None = None) -> Report:
    """The patron summary of ``day`` (in ``tz``), of every player with money moved or on a game that day, or of
    ``player`` alone."""
    w = day_window(day, tz)
    pid = player_id_of(session, player) if player else None
    wallets = select(Account.id).where(Account.kind == WALLET)
    names = dict(session.execute(select(Player.account_id, Player.name)).all())
    players = dict(session.execute(select(Player.account_id, Player.id)).all())

    before = select(Entry.account_id, func.sum(Entry.amount)).join(
        LedgerTransaction, LedgerTransaction.id == Entry.transaction_id
    )
    begin = {
        int(a): int(s)
        for a, s in session.execute(
            before.where(Entry.account_id.in_(wallets), LedgerTransaction.created_at < w.start).group_by(
                Entry.account_id
            )
        ).all()
    }
    end_bal = {
        int(a): int(s)
        for a, s in session.execute(
            before.where(Entry.account_id.in_(wallets), LedgerTransaction.created_at < w.end).group_by(
                Entry.account_id
            )
        ).all()
    }
    flows: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    day_rows = session.execute(
        select(Entry.account_id, Entry.kind, func.sum(Entry.amount))
        .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
        .where(
            Entry.account_id.in_(wallets),
            LedgerTransaction.created_at >= w.start,
            LedgerTransaction.created_at < w.end,
        )
        .group_by(Entry.account_id, Entry.kind)
    ).all()
    for acc, kind, amount in day_rows:
        flows[int(acc)][str(kind)] += int(amount)
    settled = settlement_times(session, w.end)
    # the stakes on a game at a moment: wagers placed before it, of rounds not settled before it
    on_game: dict[str, dict[int, int]] = {"start": defaultdict(int), "end": defaultdict(int)}
    unsettled_at_start = session.execute(
        select(Entry.account_id, Entry.amount, LedgerTransaction.round_id, LedgerTransaction.created_at)
        .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
        .where(
            Entry.account_id.in_(wallets),
            Entry.kind == WAGER,
            LedgerTransaction.created_at < w.end,
            LedgerTransaction.round_id.is_not(None),
        )
    ).all()
    for acc, amount, round_id, at in unsettled_at_start:
        done = settled.get(int(round_id or 0))
        for label, moment in (("start", w.start), ("end", w.end)):
            if at < moment and (done is None or done >= moment):
                on_game[label][int(acc)] -= int(amount)
    in_day = [r for r, t in settled.items() if t >= w.start]
    nets: dict[int, int] = defaultdict(int)
    if in_day:
        for p, net in session.execute(
            select(RoundPlayer.player_id, func.sum(RoundPlayer.net))
            .where(RoundPlayer.round_id.in_(in_day))
            .group_by(RoundPlayer.player_id)
        ).all():
            nets[int(p)] = int(net)
    accounts = (
        set(flows)
        | {a for a, v in on_game["start"].items() if v}
        | {a for a, v in on_game["end"].items() if v}
    )
    rows: list[PatronRow] = []
    checks: list[tuple[str, bool]] = []
    for acc in sorted(accounts, key=lambda a: names.get(a, "")):
        if pid is not None and players.get(acc) != pid:
            continue
        f = flows[acc]
        deposits, withdrawals = f.get(DEPOSIT, 0), -f.get(WITHDRAWAL, 0)
        to_games = -f.get(WAGER, 0)
        from_games = sum(f.get(k, 0) for k in FROM_GAMES)
        adjustments = sum(v for k, v in f.items() if k not in (DEPOSIT, WITHDRAWAL, WAGER, *FROM_GAMES))
        start_on, end_on = on_game["start"][acc], on_game["end"][acc]
        row = PatronRow(
            player=names.get(acc, f"account {acc}"),
            beginning_balance=begin.get(acc, 0),
            deposits=deposits,
            withdrawals=withdrawals,
            transfers_to_games=to_games,
            transfers_from_games=from_games,
            funds_on_game_start=start_on,
            funds_on_game_end=end_on,
            win_loss=from_games - to_games - start_on + end_on,
            adjustments=adjustments,
            ending_balance=begin.get(acc, 0) + deposits - withdrawals - to_games + from_games + adjustments,
        )
        rows.append(row)
        checks.append(check(f"{row.player} ending balance", row.ending_balance, end_bal.get(acc, 0)))
        checks.append(check(f"{row.player} win/loss", row.win_loss, nets.get(players.get(acc, -1), 0)))
    totals = {k: sum(getattr(r, k) for r in rows) for k in MONEY}
    if pid is None:
        round_wallets = round_money(session, (WALLET,), in_day)
        checks.append(
            check("total win/loss (the rounds settled, wallet entries)", totals["win_loss"], round_wallets)
        )
    return build(
        "patron-summary",
        "Patron summary (N.J.A.C. 13:69O-1.9)",
        day,
        tz,
        {"player": player},
        PatronRow,
        rows,
        totals,
        checks,
        ("Bonus columns are zero: the system gives no bonuses or promotional credits.",),
    )
