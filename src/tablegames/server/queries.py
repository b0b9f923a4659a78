"""Read models: finished rounds (summaries, a round's full recall) and players by name."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from tablegames.rules import RuleError
from tablegames.server.checks import iso
from tablegames.server.db import (
    SETTLED,
    VOID,
    GameTable,
    Player,
    RoundPlayer,
    RoundRow,
)
from tablegames.server.errors import ApiError
from tablegames.server.names import display_name, name_key
from tablegames.server.rulesets import table_card

ALL_BALANCES = (
    -1
)  # show_balances: every player's balances (an operator); a player id: only theirs; None: none


def _players_of(
    session: Session, round_ids: list[int], show_balances: int | None = ALL_BALANCES
) -> dict[int, list[dict[str, Any]]]:
    """Each round's players; ``balance_before`` / ``balance_after`` only where ``show_balances`` allows."""
    out: dict[int, list[dict[str, Any]]] = {i: [] for i in round_ids}
    if not round_ids:
        return out
    rows = session.execute(
        select(RoundPlayer, Player.name)
        .join(Player, Player.id == RoundPlayer.player_id)
        .where(RoundPlayer.round_id.in_(round_ids))
        .order_by(RoundPlayer.round_id, RoundPlayer.seat)
    ).all()
    for rp, name in rows:
        entry = {"seat": rp.seat, "player": name, "staked": rp.staked, "returned": rp.returned, "net": rp.net}
        if show_balances == ALL_BALANCES or rp.player_id == show_balances:
            entry.update(balance_before=rp.balance_before, balance_after=rp.balance_after)
        out[rp.round_id].append(entry)
    return out


def _summary(
    row: RoundRow, table_name: str, players: list[dict[str, Any]], rule_set: str | None = None
) -> dict[str, Any]:
    return {
        "round_id": row.id,
        "table_id": row.table_id,
        "table": table_name,
        "game": row.game,
        "round_no": row.round_no,
        "rules": row.rules,
        "rule_set": rule_set,  # the name of the table's rule set (issue 15)
        "status": row.status,
        "started": iso(row.started_at),
        "settled_at": iso(row.settled_at),
        "recovered": row.recovered,
        "players": players,
        "house_net": (row.result or {}).get("house_net"),
    }


def _rule_summary(game: str, rules: dict[str, str] | None) -> str:
    """A round's rules in a player's words: "standard rules" or the changes (its complete rule set)."""
    try:
        return table_card(game, rules or {}, None).summary
    except (
        RuleError
    ):  # a round of an older version, its rule set no longer read as it was: recall still answers
        return "rules as recorded (no longer readable as a rule set)"


def player_id_of(session: Session, name: str) -> int:
    """The id of the player called ``name`` (exactly, else by its look-alike key), or ``not_found``."""
    pid = session.scalar(select(Player.id).where(Player.name == name))
    if pid is None:
        shown = display_name(name)
        if shown is not None:
            pid = session.scalar(select(Player.id).where(Player.name_key == name_key(shown)))
    if pid is None:
        raise ApiError("not_found", f"no player {name!r}", 404)
    return int(pid)


_SUMMARY_COLUMNS = load_only(
    RoundRow.id,
    RoundRow.table_id,
    RoundRow.game,
    RoundRow.round_no,
    RoundRow.rules,
    RoundRow.status,
    RoundRow.started_at,
    RoundRow.settled_at,
    RoundRow.recovered,
    RoundRow.result,
)  # not the deck nor the events: a page of summaries reads what it shows


def history(
    session: Session,
    player: str | int | None,
    last: int,
    before: int | None = None,
    *,
    table_id: int | None = None,
    show_balances: int | None = ALL_BALANCES,
) -> list[dict[str, Any]]:
    """Summaries of finished rounds, newest first: only those ``player`` (a name or a player id) played, only
    those of ``table_id``, only rounds with an id below ``before`` (the next page). Balances per
    ``show_balances`` (:data:`ALL_BALANCES`, a player id, or None)."""
    q = (
        select(RoundRow, GameTable.name, GameTable.rule_set)
        .options(_SUMMARY_COLUMNS)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(RoundRow.status == SETTLED)
        .order_by(RoundRow.id.desc())
        .limit(max(1, min(last, 1000)))
    )
    if player is not None and player != "":
        pid = player if isinstance(player, int) else player_id_of(session, player)
        q = q.where(RoundRow.id.in_(select(RoundPlayer.round_id).where(RoundPlayer.player_id == pid)))
    if table_id is not None:
        q = q.where(RoundRow.table_id == table_id)
    if before is not None:
        q = q.where(RoundRow.id < before)
    rows = session.execute(q).all()
    players = _players_of(session, [r.id for r, _, _ in rows], show_balances)
    return [_summary(r, t, players[r.id], n) for r, t, n in rows]


def round_recall(session: Session, round_id: int, show_balances: int | None = ALL_BALANCES) -> dict[str, Any]:
    row = session.get(RoundRow, round_id)
    if row is None:
        raise ApiError("not_found", f"no round {round_id}", 404)
    if row.status == VOID:
        raise ApiError("not_found", f"round {round_id} was never dealt (no wagers)", 404)
    if row.status != SETTLED:
        raise ApiError("round_in_progress", f"round {round_id} is not finished yet ({row.status})", 409)
    table = session.get(GameTable, row.table_id)
    players = _players_of(session, [row.id], show_balances)[row.id]
    out = _summary(row, table.name if table else "", players, table.rule_set if table else None)
    seated = sorted({int(v) for v in (row.seat_players or {}).values()})
    names = (
        dict(session.execute(select(Player.id, Player.name).where(Player.id.in_(seated))).all())
        if seated
        else {}
    )
    seat_names = {int(k): names.get(v) for k, v in row.seat_players.items()}
    jackpot = []
    for e in row.events or []:
        if e["type"] in ("jackpot_contribution", "jackpot_hit"):
            jackpot.append(
                {
                    "kind": "contribution" if e["type"] == "jackpot_contribution" else "hit",
                    "meter": e["meter"],
                    "amount": e["amount"],
                    "seat": e["seat"],
                    "player": seat_names.get(e["seat"]),
                }
            )
    out.update(
        {
            "events": row.events or [],
            "jackpot": jackpot,
            "fairness": (row.result or {}).get("fairness"),
            "rule_summary": _rule_summary(row.game, row.rules),
        }
    )
    return out
