"""Helpers for the simulation tests: play decks through the round engine with bots, in the kernels' format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tablegames.cards import parse_cards
from tablegames.engine import Bot, Table
from tablegames.engine.bots import Advisor
from tablegames.engine.events import EnvyPaid, JackpotHit, Settled
from tablegames.randomness import SeededRandom, shuffle_deck
from tablegames.rules import GameRules
from tablegames.simulation.job import Job, Wagers


def random_decks(n: int, seed: str) -> list[list[int]]:
    src = SeededRandom(seed)
    return [[int(c) for c in shuffle_deck(src.child(i))] for i in range(n)]


def stacked(seats: int, hands: dict[int, str], dealer: str = "", draws: str = "") -> list[int]:
    """A deck dealing ``hands[s]`` (3 cards) to seat s (1-based), ``dealer`` to the dealer, then ``draws``."""
    pos: dict[int, int] = {}
    for s, text in hands.items():
        for p, c in enumerate(parse_cards(text)):
            pos[p * (seats + 1) + s - 1] = int(c)
    for p, c in enumerate(parse_cards(dealer)):
        pos[p * (seats + 1) + seats] = int(c)
    for i, c in enumerate(parse_cards(draws)):
        pos[3 * (seats + 1) + i] = int(c)
    rest = iter(c for c in range(52) if c not in pos.values())
    return [pos[i] if i in pos else next(rest) for i in range(52)]


def engine_detail(
    rules: GameRules, decks: Sequence[Sequence[int]], job: Job, advisor: Advisor | None = None
) -> tuple[np.ndarray[Any, Any], list[tuple[int, int, str, int]]]:
    """Per round and seat, the kernel's detail vector as the engine settles it; and the meter hits
    ``(round, seat (0-based), meter, amount)``."""
    w: Wagers = job.wagers
    S = job.seats
    game = rules.game
    width = {"let-it-ride": 8, "one-eyed-flush": 4, "final-count": 2}[game]
    out = np.zeros((len(decks), S, width), dtype=np.int64)
    hits: list[tuple[int, int, str, int]] = []
    table = Table(rules, seats=S)
    bot = Bot(advisor)
    for r, deck in enumerate(decks):
        rnd = table.new_round(deck=deck)
        for s in range(1, S + 1):
            if game == "let-it-ride":
                rnd.place_wager(s, "bets", w.main)
                if w.bonus:
                    rnd.place_wager(s, "bonus", w.bonus)
                if w.progressive:
                    rnd.place_wager(s, "progressive", w.progressive)
            elif game == "one-eyed-flush":
                rnd.place_wager(s, "main", w.main)
                if w.jackpot:
                    rnd.place_wager(s, "jackpot", w.jackpot)
                if w.flip:
                    rnd.place_wager(s, "flip", w.flip, w.flip_outcome)
            else:
                rnd.place_wager(s, "main", w.main)
        rnd.deal()
        drew: set[int] = set()
        turned: set[int] = set()
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            action = bot.choose(rnd, seat)
            if action.name == "discard":
                drew.add(seat)
            if action.name == "turn":
                turned.add(seat)
            rnd.act(seat, action)
        meter_paid = {e.seat: e.amount for e in rnd.history if isinstance(e, JackpotHit)}
        hits += [(r + 1, e.seat - 1, e.meter, e.amount) for e in rnd.history if isinstance(e, JackpotHit)]
        for e in rnd.history:
            if isinstance(e, Settled):
                d = out[r, e.seat - 1]
                if game == "let-it-ride":
                    col = {"bet 1": 0, "bet 2": 1, "base": 3, "bonus": 4, "progressive": 5}[e.wager]
                    d[col] = e.returned - (meter_paid.get(e.seat, 0) if e.wager == "progressive" else 0)
                    if e.wager == "base":
                        d[2] = e.staked
                elif game == "one-eyed-flush":
                    col = {"main": 0, "jackpot": 1, "flip": 2}[e.wager]
                    d[col] = e.returned - (meter_paid.get(e.seat, 0) if e.wager == "jackpot" else 0)
                else:
                    d[0] = e.returned
            elif isinstance(e, EnvyPaid):
                out[r, e.seat - 1, 6] += e.amount
        for s in range(1, S + 1):
            if game == "let-it-ride":
                out[r, s - 1, 7] = int(rnd.final_hand(rnd.seats[s]))  # type: ignore[attr-defined]
            elif game == "one-eyed-flush":
                out[r, s - 1, 3] = int(s in drew)
            else:
                two = rules.total(rnd.seats[s].cards[:2])  # type: ignore[union-attr]
                out[r, s - 1, 1] = int(s in turned or two % 2 == 1)
    return out, hits
