"""Helpers for the simulation tests: play decks through the round engine with bots, in the kernels' format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tablegames.cards import parse_cards
from tablegames.engine import Bot, Table
from tablegames.engine.bots import Advisor
from tablegames.engine.events import JackpotHit
from tablegames.randomness import SeededRandom, shuffle_deck
from tablegames.rules import GameRules, registry
from tablegames.simulation.job import Job, Wagers
from tablegames.simulation.strategy import kernel_of


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
    """Per round and seat, the kernel's detail vector as the engine settles it (read by the game's kernel
    adapter, ``engine_detail``); and the meter hits ``(round, seat (0-based), meter, amount)``. Every seat
    places the job's wagers, as the game's definition names them."""
    definition = registry.of(rules)
    kernel = kernel_of(rules)
    w: Wagers = job.wagers
    out = np.zeros((len(decks), job.seats, kernel.detail_width), dtype=np.int64)
    hits: list[tuple[int, int, str, int]] = []
    table = Table(rules, seats=job.seats)
    bot = Bot(advisor)
    for r, deck in enumerate(decks):
        rnd = table.new_round(deck=deck)
        for s in range(1, job.seats + 1):
            for spec in definition.wagers:
                amount = w.amount(definition, spec.name)
                if amount:
                    option = w.option(definition, spec.name) if spec.option is not None else None
                    rnd.place_wager(s, spec.name, amount, option)
        rnd.deal()
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            rnd.act(seat, bot.choose(rnd, seat))
        out[r] = kernel.engine_detail(rnd.history, job.seats)
        hits += [(r + 1, e.seat - 1, e.meter, e.amount) for e in rnd.history if isinstance(e, JackpotHit)]
    return out, hits
