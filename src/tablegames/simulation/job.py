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

from tablegames.rules import GameRules
from tablegames.rules import final_count as fc
from tablegames.rules import let_it_ride as lir
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules.common import RuleError, cents_for_share
from tablegames.simulation import kernels
from tablegames.simulation.strategy import named_strategy_tables
from tablegames.simulation.tables import fc_values, flip_bet_index, lir_tables, oef_tables

I64 = npt.NDArray[np.int64]
CHUNK_ROUNDS = 1 << 16
"""Rounds per chunk: the unit of seeding and of work (memory stays flat whatever the number of rounds)."""

MAX_WAGER_CENTS = 5_000_000
"""$50,000 a wager: keeps every per-round net and its square inside int64 (7 seats, 3-Card Bonus at 50 to 1)."""

SIDE_BETS = {lir.GAME: ("bonus", "progressive"), oef.GAME: ("jackpot", "flip"), fc.GAME: ()}


class SimulationError(RuleError):
    """A simulation request that cannot run (bad seats, side bet, amount, strategy)."""


@dataclass(frozen=True)
class Wagers:
    """What every seat wagers each round, in cents (the same at every seat)."""

    main: int  # Let It Ride: each of the three equal bets
    bonus: int = 0  # Let It Ride 3-Card Bonus
    progressive: int = 0  # Let It Ride progressive (fixed amount)
    jackpot: int = 0  # One Eyed Flush jackpot (fixed amount)
    flip: int = 0  # One Eyed Flush Flip Card wager
    flip_outcome: str = "ten-value"


def parse_side_bets(
    game: str,
    items: list[str] | tuple[str, ...],
    rules: GameRules,
    bet_cents: int,
    amount: Callable[[str], int] | None = None,
) -> Wagers:
    """``["bonus", "progressive"]``, ``["jackpot", "flip=7"]``, comma lists allowed; ``bonus=AMOUNT`` (parsed
    by ``amount``, default whole cents; default the main wager), ``flip=OUTCOME`` (a value 1-9, ``ten-value``
    (default), ``one-eyed``; the Flip Card wager equals the main wager). Progressive and jackpot are fixed.

    >>> from tablegames.rules import make_rules
    >>> parse_side_bets("one-eyed-flush", ["jackpot,flip=one-eyed"], make_rules("one-eyed-flush"), 500)
    Wagers(main=500, bonus=0, progressive=0, jackpot=100, flip=500, flip_outcome='one-eyed')
    """
    if not 0 < bet_cents <= MAX_WAGER_CENTS:
        raise SimulationError(f"the main wager must be 1 to {MAX_WAGER_CENTS} cents, got {bet_cents}")
    names = [x.strip() for item in items for x in item.split(",") if x.strip()]
    allowed = SIDE_BETS[game]
    w = Wagers(main=bet_cents)
    values: dict[str, Any] = {}
    for item in names:
        name, _, value = item.partition("=")
        name = name.strip().lower()
        if name not in allowed:
            choices = ", ".join(allowed) if allowed else "none"
            raise SimulationError(f"unknown side bet {name!r} for {game}; side bets: {choices}")
        if name == "bonus":
            values["bonus"] = (amount or _cents)(value) if value.strip() else bet_cents
            if not 0 < values["bonus"] <= MAX_WAGER_CENTS:
                raise SimulationError(f"the bonus wager must be 1 to {MAX_WAGER_CENTS} cents")
        elif name == "progressive":
            assert isinstance(rules, lir.LetItRideRules)
            values["progressive"] = rules.progressive.wager_cents
        elif name == "jackpot":
            assert isinstance(rules, oef.OneEyedFlushRules)
            values["jackpot"] = rules.jackpot.wager_cents
        elif name == "flip":
            outcome = value.strip() or "ten-value"
            oef.FlipBet.parse(outcome)  # RuleError names the problem
            values["flip"] = bet_cents
            values["flip_outcome"] = str(oef.FlipBet.parse(outcome))
    return Wagers(**{**w.__dict__, **values})


def _cents(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise SimulationError(f"amount must be whole cents, got {value!r}") from None


@dataclass(frozen=True)
class Meter:
    name: str
    reset: int
    per_round: int  # contributions of all seats each round (R-LIR-7, R-OEF-9)


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
    if not 1 <= seats <= 7:
        raise SimulationError(f"a table has 1-7 seats, got {seats}")
    if rounds < 0:
        raise SimulationError(f"the number of rounds must be >= 0, got {rounds}")
    if seed < 0:
        raise SimulationError(f"the seed must be >= 0, got {seed}")
    w = wagers or Wagers(main=500)
    S = seats
    ones = np.ones(S, dtype=np.int64)
    common = dict(
        game=rules.game,
        seats=S,
        rounds=rounds,
        seed=seed,
        wagers=w,
        rules_text=dict(rules.describe()),
        strategy=strategy,
        chunk_rounds=chunk_rounds,
    )
    args: tuple[Any, ...]
    if isinstance(rules, lir.LetItRideRules):
        t = lir_tables(rules)
        st = named_strategy_tables(rules, strategy, w.main)
        cfg = rules.progressive
        meters = tuple(
            Meter(m.name, m.reset_cents, S * cents_for_share(w.progressive, m.share) if w.progressive else 0)
            for m in cfg.meters
        )
        args = (
            w.main * ones,
            w.bonus * ones,
            w.progressive * ones,
            t.five,
            t.bonus,
            st.lir_first,
            st.lir_second,
            t.main_odds,
            t.bonus_odds,
            t.prog_meter,
            t.prog_fixed,
            t.envy,
            np.int64(rules.cap_cents),
        )
        return Job(
            **common,  # type: ignore[arg-type]
            deal_cards=3 * (S + 1),
            wager_rows=("bets", "bonus", "progressive", "progressive fixed prizes", "progressive envy"),
            hist_size=67,
            meters=meters,
            args=args,
            meter_row=2,
            cost_per_round=3 * w.main + w.bonus + w.progressive,
        )
    if isinstance(rules, oef.OneEyedFlushRules):
        t2 = oef_tables(rules)
        st = named_strategy_tables(rules, strategy)
        jp = rules.jackpot
        meter = Meter(
            "one-eyed-flush", jp.reset_cents, S * cents_for_share(w.jackpot, jp.share) if w.jackpot else 0
        )
        flip_idx = flip_bet_index(oef.FlipBet.parse(w.flip_outcome))
        args = (
            w.main * ones,
            w.jackpot * ones,
            w.flip * ones,
            flip_idx * ones,
            t2.card_class,
            t2.hand_code,
            t2.has_wild,
            t2.category,
            t2.compare,
            np.int64(len(t2.hands)),
            t2.bust,
            t2.win_odds,
            t2.dealer_discard,
            t2.jackpot_meter,
            t2.jackpot_fixed,
            t2.flip_odds,
            st.oef_discard,
        )
        return Job(
            **common,  # type: ignore[arg-type]
            deal_cards=4 * (S + 1),
            wager_rows=("main", "jackpot", "jackpot fixed prizes", "flip"),
            hist_size=25,
            meters=(meter,),
            args=args,
            meter_row=1,
            cost_per_round=w.main + w.jackpot + w.flip,
        )
    assert isinstance(rules, fc.FinalCountRules)
    st = named_strategy_tables(rules, strategy)
    args = (w.main * ones, fc_values(rules), st.fc_turn)
    return Job(
        **common,  # type: ignore[arg-type]
        deal_cards=3 * (S + 1),
        wager_rows=("main",),
        hist_size=8,
        meters=(),
        args=args,
        cost_per_round=w.main,
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
    buf: npt.NDArray[np.uint32],
    pos: int,
    acc: tuple[I64, I64, I64],
    hits: I64,
    nhits: int,
    seat1: I64,
    detail: I64,
) -> tuple[int, int, int]:
    wa, sa, hist = acc
    if job.game == fc.GAME:
        fc_run: Any = kernels.fc_run
        r, p = fc_run(start, end, decks, deck, buf, pos, job.seats, *job.args, wa, sa, hist, seat1, detail)
        return int(r), int(p), 0
    fn: Any = kernels.lir_run if job.game == lir.GAME else kernels.oef_run
    r, p, n = fn(
        start, end, decks, deck, buf, pos, job.seats, *job.args, wa, sa, hist, hits, nhits, seat1, detail
    )
    return int(r), int(p), int(n)


def _words(bitgen: np.random.PCG64, n: int) -> npt.NDArray[np.uint32]:
    raw = bitgen.random_raw((n + 1) // 2)
    assert isinstance(raw, np.ndarray)
    return raw.view(np.uint32)


def run_chunk(job: Job, index: int, keep_seat1: bool = False) -> ChunkResult:
    """Play chunk ``index`` of ``job`` from its own seeded stream."""
    start, end = job.chunk_span(index)
    n = end - start
    bitgen = np.random.PCG64(np.random.SeedSequence(job.seed, spawn_key=(index,)))
    deck = np.arange(52, dtype=np.int64)
    acc = _empty_acc(job)
    hits = np.zeros((64 + n * job.seats // 256, kernels.HIT_FIELDS), dtype=np.int64)
    seat1 = np.zeros(n if keep_seat1 else 0, dtype=np.int64)
    no_decks = np.zeros((0, job.deal_cards), dtype=np.int64)
    no_detail = np.zeros((0, 0, 0), dtype=np.int64)
    r, nhits = 0, 0
    buf = _words(bitgen, n * job.deal_cards + 64)
    pos = 0
    while r < n:
        r, pos, nhits = _call(job, r, n, no_decks, deck, buf, pos, acc, hits, nhits, seat1, no_detail)
        if r < n:
            if nhits + job.seats > len(hits):
                hits = np.concatenate([hits, np.zeros_like(hits)])
            else:  # out of random words (only after rare rejections): fresh words from the same stream
                buf = np.concatenate([buf[pos:], _words(bitgen, (n - r) * job.deal_cards + 64)])
                pos = 0
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
    width = {lir.GAME: kernels.D_LIR, oef.GAME: kernels.D_OEF, fc.GAME: kernels.D_FC}[job.game]
    detail = np.zeros((n, job.seats, width), dtype=np.int64)
    acc = _empty_acc(job)
    hits = np.zeros((n * job.seats + 1, kernels.HIT_FIELDS), dtype=np.int64)
    seat1 = np.zeros(n, dtype=np.int64)
    deck = np.arange(52, dtype=np.int64)
    r, _, nhits = _call(job, 0, n, d, deck, np.zeros(0, np.uint32), 0, acc, hits, 0, seat1, detail)
    assert r == n
    out = hits[:nhits].copy()
    out[:, 0] += 1
    return ChunkResult(0, n, *acc, hits=out, seat1=seat1), detail
