"""A simulation job: the table to simulate (game, rules, seats, wagers, strategy) prepared as kernel tables,
and the chunked, seeded run of its rounds.

Reproducibility: round ``r`` (0-based) belongs to chunk ``r // chunk_rounds``; chunk ``i`` draws its cards from
``PCG64(SeedSequence(seed, spawn_key=(i,)))``, so a chunk's rounds do not depend on which worker plays it, nor on
how many workers there are.  Every count is an integer; parts merge by addition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.engine.base import MAX_SEATS
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError
from tablegames.rules.definition import GameDefinition, Meter
from tablegames.simulation import kernels
from tablegames.simulation.strategy import kernel_of

I64 = npt.NDArray[np.int64]
CHUNK_ROUNDS = 1 << 16
"""Rounds per chunk: the unit of seeding and of work (memory stays flat whatever the number of rounds)."""

MAX_WAGER_CENTS = 5_000_000
"""$50,000 a wager: keeps every per-round net and its square inside int64 (7 seats, 3-Card Bonus at 50 to 1)."""


class SimulationError(RuleError):
    """A simulation request that cannot run (bad seats, side bet, amount, strategy)."""


@dataclass(frozen=True, init=False, repr=False)
class Wagers:
    """What every seat wagers each round, in cents (the same at every seat), keyed by the definition's wager
    names: ``main`` is the game's main wager (its amount per unit: each of a multi-bet main wager's equal bets);
    ``Wagers(500, bonus=100)`` adds a side wager (not named: not placed), and ``<wager>_outcome=...`` the option
    of a wager that takes one.

    >>> w = Wagers(500, jackpot=100, flip=500, flip_outcome="7")
    >>> w, w.side("flip"), w.side("bonus"), w.outcome("flip")
    (Wagers(main=500, jackpot=100, flip=500, flip_outcome='7'), 500, 0, '7')
    """

    main: int
    sides: tuple[tuple[str, int], ...]
    outcomes: tuple[tuple[str, str], ...]

    def __init__(self, main: int, **named: int | str) -> None:
        sides = tuple((k, int(v)) for k, v in named.items() if not k.endswith(OUTCOME))
        outcomes = tuple((k.removesuffix(OUTCOME), str(v)) for k, v in named.items() if k.endswith(OUTCOME))
        object.__setattr__(self, "main", main)
        object.__setattr__(self, "sides", tuple((k, v) for k, v in sides if v))
        object.__setattr__(self, "outcomes", outcomes)

    def __repr__(self) -> str:
        parts = [f"main={self.main}", *(f"{k}={v}" for k, v in self.sides)]
        parts += [f"{k}{OUTCOME}={v!r}" for k, v in self.outcomes]
        return f"Wagers({', '.join(parts)})"

    def side(self, wager: str) -> int:
        """Cents placed on side wager ``wager`` (0: not placed)."""
        return dict(self.sides).get(wager, 0)

    def outcome(self, wager: str, default: str = "") -> str:
        """The option ``wager`` is placed with (``default`` when none is named)."""
        return dict(self.outcomes).get(wager, default)

    def amount(self, definition: GameDefinition, wager: str) -> int:
        """Cents placed on ``wager`` (a name of the game's definition)."""
        spec = definition.wager(wager)
        return self.main if spec is not None and spec.main else self.side(wager)

    def option(self, definition: GameDefinition, wager: str) -> str:
        """The option of ``wager`` (the definition's default option when none is named)."""
        spec = definition.wager(wager)
        default = spec.option.default if spec is not None and spec.option is not None else ""
        return self.outcome(wager, default)

    def cost(self, definition: GameDefinition) -> int:
        """Cents one seat puts at risk each round (every wager times its cost multiple)."""
        return sum(w.cost(self.amount(definition, w.name)) for w in definition.wagers)

    def cents(self, definition: GameDefinition) -> dict[str, int | str]:
        """The wagers placed by their definition's names, in its order (the main wager first), each option
        after its wager."""
        out: dict[str, int | str] = {definition.main_wager.name: self.main} if self.main else {}
        for w in definition.side_bets:
            if self.side(w.name):
                out[w.name] = self.side(w.name)
                if w.option is not None:
                    out[w.name + OUTCOME] = self.option(definition, w.name)
        return out


OUTCOME = "_outcome"


def parse_side_bets(
    game: str,
    items: list[str] | tuple[str, ...],
    rules: GameRules,
    bet_cents: int,
    amount: Callable[[str], int] | None = None,
) -> Wagers:
    """Side bets from the game's definition: ``["bonus", "progressive"]``, ``["jackpot", "flip=7"]``, comma
    lists allowed. A free amount: ``NAME=AMOUNT`` (parsed by ``amount``, default whole cents; default the main
    wager); a wager with an option: ``NAME=OPTION`` (default the option's default; the amount is the main
    wager); a fixed wager: its fixed amount.

    >>> for d in registry.DEFINITIONS[:3]:  # every side bet of the first three games
    ...     print(parse_side_bets(d.key, [",".join(w.name for w in d.side_bets)], d.make_rules(), 500))
    Wagers(main=500, bonus=500, progressive=100)
    Wagers(main=500, jackpot=100, flip=500, flip_outcome='ten-value')
    Wagers(main=500)
    """
    if not 0 < bet_cents <= MAX_WAGER_CENTS:
        raise SimulationError(f"the main wager must be 1 to {MAX_WAGER_CENTS} cents, got {bet_cents}")
    definition = registry.get(game)
    names = [x.strip() for item in items for x in item.split(",") if x.strip()]
    allowed = [w.name for w in definition.side_bets]
    values: dict[str, Any] = {}
    for item in names:
        name, _, value = item.partition("=")
        name = name.strip().lower()
        spec = definition.wager(name)
        if spec is None or spec.main:
            choices = ", ".join(allowed) if allowed else "none"
            raise SimulationError(f"unknown side bet {name!r} for {game}; side bets: {choices}")
        if spec.fixed is not None:
            values[name] = spec.fixed(rules)
        elif spec.option is not None:
            values[name + OUTCOME] = spec.option.parse(value.strip() or spec.option.default)
            values[name] = bet_cents
        else:
            values[name] = (amount or _cents)(value) if value.strip() else bet_cents
            if not 0 < values[name] <= MAX_WAGER_CENTS:
                raise SimulationError(f"the {name} wager must be 1 to {MAX_WAGER_CENTS} cents")
    return Wagers(main=bet_cents, **values)


def _cents(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise SimulationError(f"amount must be whole cents, got {value!r}") from None


@dataclass
class Job:
    """Everything a worker needs to play chunks: plain NumPy arrays and ints (cheap to ship once)."""

    game: str
    seats: int
    rounds: int
    seed: int
    wagers: Wagers
    rules_text: dict[str, str]
    strategy: str
    chunk_rounds: int
    deal_cards: int  # cards of the deck a round can use
    wager_rows: tuple[str, ...]
    hist_size: int
    meters: tuple[Meter, ...]
    args: tuple[Any, ...] = field(repr=False)  # the game kernel's table arguments
    meter_row: int = -1  # the wager row a meter prize belongs to
    cost_per_round: int = 0  # cents one seat puts at risk each round (all its wagers)
    per_round: tuple[int, ...] = ()  # cents each meter gets each round from all seats (R-LIR-7, R-OEF-9)

    @property
    def chunks(self) -> int:
        return -(-self.rounds // self.chunk_rounds)

    def chunk_span(self, i: int) -> tuple[int, int]:
        a = i * self.chunk_rounds
        return a, min(self.rounds, a + self.chunk_rounds)


def make_job(
    rules: GameRules,
    rounds: int,
    seats: int = 1,
    wagers: Wagers | None = None,
    strategy: str = "basic",
    seed: int = 0,
    chunk_rounds: int = CHUNK_ROUNDS,
) -> Job:
    """Prepare the tables for a job (lookup tables from the rules layer, strategy tables from ``strategy``)."""
    if not 1 <= seats <= MAX_SEATS:
        raise SimulationError(f"a table has 1-{MAX_SEATS} seats, got {seats}")
    if rounds < 0:
        raise SimulationError(f"the number of rounds must be >= 0, got {rounds}")
    if seed < 0:
        raise SimulationError(f"the seed must be >= 0, got {seed}")
    w = wagers or Wagers(main=500)
    definition = registry.of(rules)
    part = kernel_of(rules).prepare(rules, w, seats, strategy)
    meters = definition.meters(rules)
    feeding = [spec for spec in definition.wagers if spec.feeds]
    per_round = tuple(
        sum(seats * m.contribution(amount) for spec in feeding if (amount := w.amount(definition, spec.name)))
        for m in meters
    )
    return Job(
        game=rules.game,
        seats=seats,
        rounds=rounds,
        seed=seed,
        wagers=w,
        rules_text=dict(rules.describe()),
        strategy=strategy,
        chunk_rounds=chunk_rounds,
        deal_cards=part.deal_cards,
        wager_rows=part.wager_rows,
        hist_size=part.hist_size,
        meters=meters,
        args=part.args,
        meter_row=part.meter_row,
        cost_per_round=w.cost(definition),
        per_round=per_round,
    )


@dataclass
class ChunkResult:
    """Integer counts of one chunk (or of many, merged), the meter hits it recorded, and seat 1's nets."""

    index: int
    rounds: int
    wager_acc: I64
    seat_acc: I64
    hist: I64
    hits: (
        I64  # [n, 6]: global round (1-based), seat (0-based), meter, seat prog net, round prog net, seat net
    )
    seat1: I64 | None = None  # seat 1's net of each round, meter prizes excluded (bankroll view)


def _empty_acc(job: Job) -> tuple[I64, I64, I64]:
    return (
        np.zeros((len(job.wager_rows), 6), dtype=np.int64),
        np.zeros((job.seats, 5), dtype=np.int64),
        np.zeros(job.hist_size, dtype=np.int64),
    )


def _call(
    job: Job,
    start: int,
    end: int,
    decks: I64,
    deck: I64,
    rng: npt.NDArray[np.uint64],
    acc: tuple[I64, I64, I64],
    hits: I64,
    nhits: int,
    seat1: I64,
    detail: I64,
) -> tuple[int, int]:
    wa, sa, hist = acc
    kernel = kernel_of(job.game)
    fn: Any = kernel.kernel()
    scratch = kernels.scratch()
    if not kernel.with_hits:
        r = fn(start, end, decks, deck, rng, scratch, job.seats, *job.args, wa, sa, hist, seat1, detail)
        return int(r), 0
    r, n = fn(
        start, end, decks, deck, rng, scratch, job.seats, *job.args, wa, sa, hist, hits, nhits, seat1, detail
    )
    return int(r), int(n)


def chunk_rng(job: Job, index: int) -> npt.NDArray[np.uint64]:
    """Chunk ``index``'s own stream, ``PCG64(SeedSequence(seed, spawn_key=(index,)))``, as the kernels step it
    (:func:`~tablegames.simulation.kernels.rng_state`): wherever the chunk is played (a worker, a GPU thread)."""
    return kernels.rng_state(np.random.PCG64(np.random.SeedSequence(job.seed, spawn_key=(index,))))


def hit_rows(job: Job, rounds: int) -> int:
    """The first size of a chunk's hit buffer (rows; the buffer is doubled when a kernel finds it low)."""
    return 64 + rounds * job.seats // 256


def run_chunk(job: Job, index: int, keep_seat1: bool = False) -> ChunkResult:
    """Play chunk ``index`` of ``job`` from its own seeded stream (the kernel steps the chunk's ``PCG64``)."""
    start, end = job.chunk_span(index)
    n = end - start
    rng = chunk_rng(job, index)
    deck = np.arange(52, dtype=np.int64)
    acc = _empty_acc(job)
    hits = np.zeros((hit_rows(job, n), kernels.HIT_FIELDS), dtype=np.int64)
    seat1 = np.zeros(n if keep_seat1 else 0, dtype=np.int64)
    no_decks = np.zeros((0, job.deal_cards), dtype=np.int64)
    no_detail = np.zeros((0, 0, 0), dtype=np.int64)
    r, nhits = 0, 0
    while r < n:
        r, nhits = _call(job, r, n, no_decks, deck, rng, acc, hits, nhits, seat1, no_detail)
        if r < n:  # the hit buffer ran low
            hits = np.concatenate([hits, np.zeros_like(hits)])
    out = hits[:nhits].copy()
    out[:, 0] += start + 1
    return ChunkResult(index, n, *acc, hits=out, seat1=seat1 if keep_seat1 else None)


def run_chunks(job: Job, indices: list[int], keep_seat1: bool = False) -> list[ChunkResult]:
    return [run_chunk(job, i, keep_seat1) for i in indices]


def run_decks(job: Job, decks: npt.ArrayLike) -> tuple[ChunkResult, I64]:
    """Play the given decks (one per round, in deal order) and return the counts and, per round and seat,
    the settlement detail (see :mod:`tablegames.simulation.kernels`)."""
    d = np.ascontiguousarray(np.asarray(decks, dtype=np.int64)[:, : job.deal_cards])
    n = len(d)
    width = kernel_of(job.game).detail_width
    detail = np.zeros((n, job.seats, width), dtype=np.int64)
    acc = _empty_acc(job)
    hits = np.zeros((n * job.seats + 1, kernels.HIT_FIELDS), dtype=np.int64)
    seat1 = np.zeros(n, dtype=np.int64)
    deck = np.arange(52, dtype=np.int64)
    r, nhits = _call(job, 0, n, d, deck, np.zeros(kernels.RNG_FIELDS, np.uint64), acc, hits, 0, seat1, detail)
    assert r == n
    out = hits[:nhits].copy()
    out[:, 0] += 1
    return ChunkResult(0, n, *acc, hits=out, seat1=seat1), detail


def count_decks(job: Job, decks: npt.ArrayLike, keep_seat1: bool = False) -> ChunkResult:
    """Play the given decks (one per round, in deal order) for their counts only, as a chunk is played: a
    kernel may then take its fast path (a heads-up round counted by class), which ``keep_seat1`` (each round's
    net kept) turns off. The tests prove the two equal on complete sets of deals."""
    d = np.ascontiguousarray(np.asarray(decks, dtype=np.int64)[:, : job.deal_cards])
    n = len(d)
    acc = _empty_acc(job)
    hits = np.zeros((n * job.seats + 1, kernels.HIT_FIELDS), dtype=np.int64)
    seat1 = np.zeros(n if keep_seat1 else 0, dtype=np.int64)
    deck = np.arange(52, dtype=np.int64)
    no_detail = np.zeros((0, 0, 0), dtype=np.int64)
    rng = np.zeros(kernels.RNG_FIELDS, np.uint64)
    r, nhits = _call(job, 0, n, d, deck, rng, acc, hits, 0, seat1, no_detail)
    assert r == n
    return ChunkResult(0, n, *acc, hits=hits[:nhits].copy(), seat1=seat1 if keep_seat1 else None)
