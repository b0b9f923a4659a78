"""The detection tests' live decisions (three seats betting 100 cents each at an engine table) and the row a
settled engine round is stored as."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablegames.engine import Action, Round, Table
from tablegames.randomness import SeededRandom

if TYPE_CHECKING:
    from tablegames.server.db import RoundRow


def live_decisions(rules: Any, rounds: int, seed: int = 8) -> Iterator[tuple[Round, int]]:
    """Each decision of ``rounds`` rounds as ``(round, seat to act)``; the caller acts before the next."""
    table = Table(rules, seats=3, source=SeededRandom(seed))
    for _ in range(rounds):
        rnd = table.new_round()
        for seat in (1, 2, 3):
            rnd.place_wager(seat, rnd.main_wager(), 100)
        rnd.deal()
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            yield rnd, seat


def settled_row(
    rid: int, table: Table, rnd: Round, seat_players: dict[str, int], table_id: int = 1
) -> RoundRow:
    """``rnd`` of ``table``, played out, as the server stores a settled round (id ``rid``)."""
    from tablegames.server.db import SETTLED, RoundRow

    return RoundRow(
        id=rid,
        table_id=table_id,
        round_no=rnd.round_no,
        game=table.game,
        rules=table.described_rules(),
        status=SETTLED,
        deck=[int(c) for c in rnd.deck],
        seat_players=seat_players,
        events=[e.to_dict() for e in rnd.history],
        settled_at=time.time(),
    )


def broken(rng: random.Random, texts: list[bytes], chars: bytes, span: int) -> bytes:
    """One of ``texts`` broken at random: a byte deleted, changed to one of ``chars``, or a span (up to
    ``span`` bytes) repeated (the batch reader's adversarial texts)."""
    t = bytearray(rng.choice(texts))
    at = rng.randrange(len(t))
    kind = rng.randrange(3)
    if kind == 0:
        del t[at]
    elif kind == 1:
        t[at] = rng.choice(chars)
    else:
        t[at:at] = t[at : at + rng.randrange(1, span)]
    return bytes(t)


def store_table(
    path: Path,
    rules: Any,
    seats: int,
    rounds: int,
    act: Callable[[Round, int], tuple[Action, str]],
    seat_players: Callable[[int], dict[str, int]],
    seed: int = 21,
) -> str:
    """A SQLite database of ``rounds`` rounds at one table of ``seats`` (players ``p1``..``pN``, ids 1..N), every
    seat betting 100 cents: each decision ``act(rnd, seat)`` gives the action and who took it (``by``), and
    round ``rid`` is stored with ``seat_players(rid)``."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from tablegames.server.db import Account, Base, GameTable, Player

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    with Session(engine) as s:
        s.add_all([Account(id=i, name=f"a{i}", kind="wallet", balance=0) for i in range(1, seats + 1)])
        s.add_all([Player(id=i, name=f"p{i}", token_hash=f"t{i}", account_id=i) for i in range(1, seats + 1)])
        s.add(GameTable(id=1, name="t1", game=rules.game, seats=seats, min_bet=100, max_bet=1000))
        s.flush()
        table = Table(rules, seats=seats, source=SeededRandom(seed))
        for rid in range(1, rounds + 1):
            rnd = table.new_round()
            for s_no in range(1, seats + 1):
                rnd.place_wager(s_no, rnd.main_wager(), 100)
            rnd.deal()
            while not rnd.is_over:
                seat = rnd.to_act
                assert seat is not None
                action, by = act(rnd, seat)
                rnd.act(seat, action, by=by)
            s.add(settled_row(rid, table, rnd, seat_players(rid)))
        s.commit()
    engine.dispose()
    return url
