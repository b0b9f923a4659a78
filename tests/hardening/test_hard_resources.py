"""Resource use that could grow with distinct inputs (issue 11, defect 2): the server's memory after hints for
many distinct Let It Ride bet sizes.

Each exact Let It Ride strategy is ~10 MB. It depends on the bet only through the $50,000 cap (R-LIR-5): every
bet whose largest win (three wagers up on a Royal Flush, 1000 to 1) stays within the cap shares one strategy,
and the few kept for bets the cap reaches are bounded. The hints are asked the way the server asks them
(``hint_message`` for the seat to act); the strategies alive are counted, and the memory traced.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from fractions import Fraction
from typing import Any

import pytest

from tablegames.analysis import let_it_ride as lir
from tablegames.cards import CARDS, parse_card
from tablegames.engine import PULL, RIDE, Round, Table
from tablegames.rules import make_rules
from tablegames.server import hints

pytestmark = pytest.mark.timeout(300)

RULES = make_rules("let-it-ride")
# One seat: A♥ K♥ Q♥; the dealer's burn card 2♣, the first community card J♥ (the second, 3♦, stays hidden).
DECK = ["Ah", "2c", "Kh", "Jh", "Qh", "3d"]
# R-LIR-5: 3 x bet x 1000 <= $50,000 up to a bet of $16.66; from $16.67 a three-up Royal Flush is capped.
LAST_UNCAPPED = 1_666


def deck() -> list[int]:
    head = [int(parse_card(c)) for c in DECK]
    return head + [int(c) for c in CARDS if int(c) not in head]


def deal(bet: int, second: bool = False) -> Round:
    """A round at the stacked deck with ``bets`` = ``bet``, at seat 1's first decision (or, riding wager 1,
    its second: A♥ K♥ Q♥ J♥, four to a Royal Flush)."""
    table = Table(RULES, seats=1)
    rnd = table.new_round(deck=deck())
    rnd.place_wager(1, "bets", bet)
    rnd.deal()
    if second:
        rnd.act(1, RIDE)
    assert rnd.to_act == 1
    return rnd


def exact_evs(rnd: Round) -> dict[Any, Fraction]:
    advisor = hints.exact_advisor(rnd, 1, wait=True)
    assert advisor is not None
    return dict(advisor(rnd.decision_context(1)))  # type: ignore[arg-type]


def strategies_alive() -> int:
    gc.collect()
    return sum(isinstance(o, lir._Solution) for o in gc.get_objects())


class TestResourceUseWithDistinctInputs:
    """Memory must not grow with the number of distinct inputs a table sees (here: Let It Ride bet sizes)."""

    def test_hints_for_many_bet_sizes_keep_a_bounded_number_of_strategies(self) -> None:
        # strategies other tests of this process started solving in the background finish first (a One Eyed
        # Flush strategy is ~75 MB), and those they keep are not counted
        deadline = time.monotonic() + 180
        while hints._BUILDING and time.monotonic() < deadline:
            time.sleep(0.1)
        before = strategies_alive()
        cached_before = hints.cached_strategies()  # (those other rule sets' too)
        hints.hint_message(deal(100), 1, None, wait=True)  # the shared tables and the uncapped strategy
        hints.hint_message(deal(5_000), 1, None, wait=True)  # one capped strategy
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            peak = base
            # $1.00 to $100.00, uneven steps: 45 sizes under the cap's reach, 45 above it
            sizes = [100 + 35 * i for i in range(45)] + [1_700 + 179 * i for i in range(45)]
            for bet in sizes:
                msg = hints.hint_message(deal(bet), 1, None, wait=True)
                assert msg["source"] == "exact"
                peak = max(peak, tracemalloc.get_traced_memory()[0])
            grown = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
        # ~10 MB a strategy: 90 kept would be ~900 MB; the bound keeps it below a tenth of that
        assert grown < 80 * 2**20, f"memory grew by {grown / 2**20:.0f} MB after {len(sizes)} bet sizes"
        assert peak - base < 120 * 2**20
        alive = strategies_alive() - before
        assert alive <= 1 + 4 + 4, alive  # the uncapped one, the hints' 4 capped ones, the analysis' 4
        assert hints.cached_strategies() <= cached_before + 1 + hints.MAX_CAPPED_BETS

    def test_every_bet_the_cap_cannot_reach_shares_one_strategy(self) -> None:
        from tablegames.analysis.advice import strategy_bet

        shared = hints.strategy_for(RULES, None, wait=True)
        for bet in (100, 101, 500, 1_234, LAST_UNCAPPED):
            assert strategy_bet(RULES, bet) is None
            assert hints.strategy_for(RULES, bet, wait=True) is shared
            assert lir.optimal_strategy(RULES, bet) is lir.optimal_strategy(RULES)
        assert strategy_bet(RULES, LAST_UNCAPPED + 1) == LAST_UNCAPPED + 1
        assert hints.strategy_for(RULES, LAST_UNCAPPED + 1, wait=True) is not shared

    def test_a_capped_bets_hint_differs_exactly_where_the_cap_matters(self) -> None:
        # Second decision on A♥ K♥ Q♥ J♥ with wager 1 up; of the 48 last cards: T♥ a Royal Flush, the other
        # three tens a straight (5 to 1), eight hearts a flush (8 to 1), twelve A/K/Q/J a paying pair (1 to 1),
        # 24 lose. Riding puts three wagers up, pulling two. EVs per wager, the whole hand (R-LIR-4).
        uncapped = {RIDE: Fraction(3 * (1000 + 3 * 5 + 8 * 8 + 12 - 24), 48), PULL: Fraction(2134, 48)}
        for bet in (100, LAST_UNCAPPED):
            assert exact_evs(deal(bet, second=True)) == uncapped
        # $16.67: three up on the Royal Flush win $50,010, capped at $50,000 (R-LIR-5); two up are not capped
        bet = LAST_UNCAPPED + 1
        ride = Fraction(5_000_000 + bet * 3 * (3 * 5 + 8 * 8 + 12 - 24), 48 * bet)
        assert ride == Fraction(5_335_067, 80_016)
        assert exact_evs(deal(bet, second=True)) == {RIDE: ride, PULL: Fraction(2134, 48)}
        # $50: both are capped, the Royal Flush pays 1000 wagers whatever is up: riding is worth 25.02, not 66.69
        capped = {RIDE: Fraction(1000 + 3 * (3 * 5 + 8 * 8 + 12 - 24), 48), PULL: Fraction(1134, 48)}
        assert capped[RIDE] == Fraction(1201, 48)
        rnd = deal(5_000, second=True)
        assert exact_evs(rnd) == capped
        msg = hints.hint_message(rnd, 1, None, wait=True)
        assert msg["best"] == "ride" and msg["source"] == "exact"
        assert {a["action"]: a["ev"] for a in msg["actions"]} == {"ride": 1201 / 48, "pull": 1134 / 48}


# --- the Math lab's solver processes (issue 20, defect 2) ------------------------------------------------------


def _descendants(pid: int) -> list[Any]:
    import psutil

    return [p for p in psutil.Process(pid).children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]


def _ended(pids: list[int], within: float) -> bool:
    import psutil

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                pass
        if not alive:
            return True
        time.sleep(0.1)
    return False


def test_a_killed_server_leaves_no_lab_process_behind(tmp_path: Any) -> None:
    """The lab solves in processes of its own; when the server is killed (SIGKILL: no shutdown runs) in the
    middle of a solve, its solver processes and their forkserver end too."""
    import contextlib
    import os
    import signal
    import threading

    import httpx
    import psutil
    from hard_serve import tablegames_serve

    with tablegames_serve(tmp_path) as port:
        (server,) = [
            p for p in psutil.Process().children() if "--port" in p.cmdline() and str(port) in p.cmdline()
        ]
        body = {"game": "one-eyed-flush", "rules": {"bust-limit": "16", "dealer-no-pair-draws-from": "8"}}

        def solve() -> None:
            with contextlib.suppress(httpx.HTTPError):  # the server is killed before it answers
                httpx.post(f"http://127.0.0.1:{port}/lab/analyze", json=body, timeout=60)

        threading.Thread(target=solve, daemon=True).start()
        deadline = time.monotonic() + 60
        while not [p for p in _descendants(server.pid) if p.nice() > server.nice()]:
            assert time.monotonic() < deadline, "no solver process appeared"
            time.sleep(0.05)
        lab = [p.pid for p in _descendants(server.pid)]  # the forkserver and the solver processes
        os.kill(server.pid, signal.SIGKILL)
        assert _ended(lab, 15.0), "a lab process outlived its killed server"
