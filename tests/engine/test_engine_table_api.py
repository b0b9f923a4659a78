"""The engine's table API for a server (issue 23): ``open_round``, ``withdraw``, ``count_from``, ``link_meters``
and ``adopt``, so that the server never writes the engine's state itself (the last test checks that it does
not)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import tablegames
from tablegames.cards import CARDS
from tablegames.engine import Bot, Phase, Round, Table, WrongPhase
from tablegames.engine.events import ActionTaken, CardDealt, RoundEnded, WagerPlaced
from tablegames.engine.replay import at_meters
from tablegames.randomness import SeededRandom, shuffle_deck
from tablegames.rules import GAMES, make_rules

WAGERS: dict[str, list[tuple[str, int, str | None]]] = {
    "let-it-ride": [("bets", 500, None), ("progressive", 100, None)],
    "one-eyed-flush": [("main", 500, None), ("jackpot", 100, None)],
}


def deck(seed: int) -> list[int]:
    return [int(c) for c in shuffle_deck(SeededRandom(seed))]


def wagered(table: Table, rnd: Round) -> Round:
    for seat in range(1, table.seats + 1):
        if table.game in WAGERS:
            for name, amount, option in WAGERS[table.game]:
                rnd.place_wager(seat, name, amount, option)
        else:
            rnd.place_wager(seat, rnd.main_wager(), 500)
    return rnd


def play_to_end(rnd: Round, moves: int | None = None) -> Round:
    """Deal if betting, then play by the bot (``moves`` decisions at most)."""
    if rnd.phase == Phase.BETTING:
        rnd.deal()
    bot = Bot()
    while not rnd.is_over and moves != 0:
        seat = rnd.to_act
        assert seat is not None
        rnd.act(seat, bot.choose(rnd, seat))
        moves = None if moves is None else moves - 1
    return rnd


def events(rnd: Round) -> list[dict[str, Any]]:
    return [e.to_dict() for e in rnd.history]


def test_open_round_opens_that_round_on_that_deck_whatever_is_current() -> None:
    table = Table(make_rules("final-count"), seats=2)
    unfinished = wagered(table, table.new_round(deck=deck(1)))
    rnd = table.open_round(7, deck(2))
    assert rnd.round_no == table.round_no == 7
    assert table.current is rnd and unfinished.phase == Phase.BETTING
    assert [int(c) for c in rnd.deck] == deck(2)
    with pytest.raises(WrongPhase):  # a player's table opens no round over an unfinished one; a server's
        table.new_round()  # decides that itself (open_round)


def test_withdraw_puts_the_table_back_as_it_was_before_open_round() -> None:
    table = Table(make_rules("final-count"), seats=1)
    table.count_from(41)
    first = play_to_end(wagered(table, table.new_round(deck=deck(3))))
    opened = table.open_round(table.round_no + 1, deck(4))
    table.withdraw(opened)
    assert (table.current, table.round_no) == (first, 42)
    table.withdraw(opened)  # (once only: nothing more)
    assert (table.current, table.round_no) == (first, 42)
    assert table.open_round(table.round_no + 1, deck(4)).round_no == 43


def test_count_from_never_goes_back() -> None:
    table = Table(make_rules("let-it-ride"))
    table.count_from(10)
    table.count_from(3)
    assert table.round_no == 10
    assert table.new_round().round_no == 11


@pytest.mark.parametrize("game", sorted(WAGERS))
def test_link_meters_sets_the_committed_values_plus_the_rounds_own(game: str) -> None:
    played = Table(make_rules(game), seats=2)
    alone = play_to_end(wagered(played, played.new_round(deck=deck(5))))
    table = Table(make_rules(game), seats=2)
    rnd = wagered(table, table.new_round(deck=deck(5)))
    rnd.deal()  # the contributions are made
    own = {m: table.meters[m] - rnd.meters_before[m] for m in table.meters}
    committed = {m: 1_000_000 + i for i, m in enumerate(sorted(table.meters))}
    table.link_meters(committed)
    assert table.meters == {m: committed[m] + own[m] for m in committed}
    play_to_end(rnd)
    # the round's own result does not move with the other tables' contributions
    ended, alone_ended = rnd.history[-1], alone.history[-1]
    assert isinstance(ended, RoundEnded) and isinstance(alone_ended, RoundEnded)
    assert ended.house_net == alone_ended.house_net
    assert ended.net_by_seat == alone_ended.net_by_seat
    table.link_meters({})  # nothing named: nothing moves
    assert table.meters == rnd.table.meters


def from_store(rnd: Round) -> Round:
    """``rnd`` rebuilt as a server's store has it (its number, its deck, its steps: wagers, the deal and the
    decisions) on a table of its own, as recovery rebuilds it after a restart or on another process."""
    table = Table(rnd.table.rules, seats=rnd.table.seats, meters=dict(rnd.meters_before))
    again = table.open_round(rnd.round_no, [CARDS.index(c) for c in rnd.deck])
    for e in rnd.history:
        if isinstance(e, WagerPlaced):
            again.place_wager(e.seat, e.wager, e.amount, e.option)
        elif isinstance(e, CardDealt) and again.phase == Phase.BETTING:
            again.deal()
        elif isinstance(e, ActionTaken):
            again.act(e.seat, e.action, by=e.by)
    return again


@pytest.mark.parametrize("game", GAMES)
def test_adopting_a_round_rebuilt_from_the_store_restores_the_same_view(game: str) -> None:
    table = Table(make_rules(game), seats=2)
    table.count_from(4)
    rnd = play_to_end(wagered(table, table.new_round(deck=deck(11))), moves=1)
    rebuilt = from_store(rnd)
    other = Table(make_rules(game), seats=2)
    other.adopt(rebuilt)
    assert other.current is rebuilt and rebuilt.table is other and other.round_no == 5
    for seat in (None, 1, 2):
        assert rebuilt.view(seat) == rnd.view(seat)
        assert rebuilt.visible_history(seat) == rnd.visible_history(seat)
    play_to_end(rnd)
    play_to_end(rebuilt)  # it plays on at its new table
    assert events(rebuilt) == events(rnd)
    assert other.meters == table.meters
    assert other.house_net == table.house_net


def test_adopting_the_round_settled_at_locked_meters_replaces_the_one_played() -> None:
    table = Table(make_rules("one-eyed-flush"), seats=2)
    table.count_from(2)
    played = play_to_end(wagered(table, table.new_round(deck=deck(8))))
    locked = {m: table.meter_specs[m].reset_cents + 12_345 for m in table.meters}
    again = at_meters(played, locked)
    assert again is not played
    table.adopt(again)
    assert table.current is again and again.table is table and table.round_no == 3
    ended = again.history[-1]
    assert isinstance(ended, RoundEnded)
    assert table.meters == ended.meters
    assert table.house_net == ended.house_net  # the round played is replaced, not counted twice
    table.adopt(again)  # its own round again: nothing changes
    assert table.house_net == ended.house_net


# --- the server never writes the engine's state ----------------------------------------------------------

SERVER = Path(tablegames.__file__).parent / "server"


def engine_attributes() -> set[str]:
    """The attributes of an engine table and round, as they stand on live objects."""
    table = Table(make_rules("let-it-ride"))
    return set(vars(table)) | set(vars(table.new_round()))


def engine_writes(source: str) -> list[str]:
    """Assignments (plain, augmented, annotated; to an attribute or an item of one) whose target reaches into
    an engine object: through ``engine``, ``rnd`` or ``current`` (``self.state.engine.meters[m] = ...``), or an
    attribute only the engine's table and round have (``x.round_no = ...``)."""
    through = {"engine", "rnd", "current"}
    only_engine = {"current", "round_no", "house_net", "meters_before", "table", "next_card", "bankrolls"}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        flat: list[ast.expr] = []
        for t in targets:
            flat.extend(t.elts if isinstance(t, ast.Tuple) else [t])
        for t in flat:
            while isinstance(t, ast.Subscript):
                t = t.value
            if not isinstance(t, ast.Attribute):
                continue
            chain = ast.unparse(t).split(".")
            if through & {part.split("[")[0] for part in chain[:-1]} or chain[-1] in only_engine:
                found.append(f"line {node.lineno}: {ast.unparse(t)}")
    return found


def test_the_write_finder_sees_writes_into_the_engine() -> None:
    source = (
        "self.engine.current = None\n"
        "self.state.engine.meters[name] = 3\n"
        "rnd.table = self.engine\n"
        "live.rnd.meters_before['m'] += 1\n"
        "self.engine.current, self.engine.round_no = previous\n"
        "live.rnd = rnd\n"
        "self.live = live\n"
        "runner.row.min_bet = 5\n"
    )
    assert [w.split(":")[0] for w in engine_writes(source)] == [f"line {n}" for n in (1, 2, 3, 4, 5, 5)]


def test_the_server_never_assigns_attributes_of_the_engines_table_or_round() -> None:
    assert {"current", "round_no", "house_net", "meters_before", "table", "meters"} <= engine_attributes()
    writes = {
        str(path.relative_to(SERVER)): found
        for path in sorted(SERVER.rglob("*.py"))
        if (found := engine_writes(path.read_text(encoding="utf-8")))
    }
    assert not writes, writes
