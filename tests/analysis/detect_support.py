"""The detection tests' live decisions (three seats betting 100 cents each at an engine table) and the row a
settled engine round is stored as."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tablegames.engine import Round, Table
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
