"""Issue 21: each rule written once. The integer rule functions of the rules modules are what the flows call,
what the Numba kernels compile (the compiled function's code *is* the rules module's) and what the exact solvers
build their tables from; the compiled and the plain functions agree on every input of the finite domains (and
on stakes from a cent to past every cap). Settling alike with the engine is the kernel-vs-engine tests' part
(test_sim_equivalence, test_sim_one_eyed_flush_rule_sets) and the oracle's (tests/analysis/test_oracle.py).
"""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np
import pytest

from tablegames.analysis.let_it_ride_kernel import win_table
from tablegames.analysis.one_eyed_flush_tables import _tables, pay_matrix
from tablegames.rules import final_count as fc
from tablegames.rules import let_it_ride as lir
from tablegames.rules import make_rules
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules import three_card_poker as tcp
from tablegames.rules.common import NO_PAY, returned_at_odds
from tablegames.simulation import final_count as sim_fc
from tablegames.simulation import let_it_ride as sim_lir
from tablegames.simulation import one_eyed_flush as sim_oef
from tablegames.simulation import three_card_poker as sim_tcp

STAKES = (1, 5, 100, 2_500, 166_700, 2_500_000, 10**9)
ODDS = (NO_PAY, *range(0, 1_001))  # every "X to 1" a pay table may name, and none
CAPS = (1, 5_000, lir.AGGREGATE_CAP_CENTS, 10**15)

COMPILED: list[tuple[Any, Any]] = [
    (sim_fc.fc_category, fc.category_of),
    (sim_tcp.tcp_qualifies, tcp.dealer_qualifies),
    (sim_tcp.tcp_result, tcp.result_of),
    (sim_lir.lir_up_return, lir.bets_up_return),
    (sim_lir.lir_pulled_return, lir.pulled_return),
    (sim_oef.oef_live_wild, oef.live_wild),
    (sim_oef.oef_main_return, oef.main_return),
    (sim_oef.oef_returned_at_odds, returned_at_odds),
    (sim_lir.lir_returned_at_odds, returned_at_odds),
    (sim_tcp.tcp_returned_at_odds, returned_at_odds),
]


@pytest.mark.parametrize(
    ("compiled", "rule"),
    COMPILED,
    ids=[c.py_func.__module__.rsplit(".", 1)[-1] + "." + r.__name__ for c, r in COMPILED],
)
def test_each_kernel_compiles_the_rules_module_s_own_function(compiled: Any, rule: Any) -> None:
    assert compiled.py_func.__code__ is rule.__code__


def test_one_eyed_flush_live_wild_on_every_input() -> None:
    """R-OEF-7: only a seat still in (not busted) holding a wild makes the dealer draw against a wild."""
    for busted, wilds in product((0, 1), range(4)):
        want = int(busted == 0 and wilds > 0)
        assert oef.live_wild(busted, wilds) == sim_oef.oef_live_wild(busted, wilds) == want


def test_one_eyed_flush_main_return_on_every_result_and_odds() -> None:
    """R-OEF-8 and R-0.3: a win pays X to 1, a standoff returns the stake, a loss nothing."""
    for result, stake, odds in product((-1, 0, 1), STAKES, range(1, 1_001)):
        want = {1: stake * (odds + 1), 0: stake, -1: 0}[result]
        assert oef.main_return(result, stake, odds) == sim_oef.oef_main_return(result, stake, odds) == want


def test_x_to_1_on_every_odds() -> None:
    for stake, odds in product(STAKES, ODDS):
        want = 0 if odds == NO_PAY else stake + odds * stake
        assert returned_at_odds(stake, odds) == sim_oef.oef_returned_at_odds(stake, odds) == want


def test_let_it_ride_returns_on_every_number_up_odds_and_cap() -> None:
    """R-LIR-2..5: pulled bets come back whole; the bets up return their stakes and the win capped."""
    for stake in STAKES:
        assert lir.pulled_return(stake) == sim_lir.lir_pulled_return(stake) == stake
    for up, stake, odds, cap in product((1, 2, 3), STAKES, ODDS, CAPS):
        want = 0 if odds == NO_PAY else up * stake + min(up * stake * odds, cap)
        got = lir.bets_up_return(up, stake, odds, cap)
        assert got == want
        if max(want, up * stake * max(odds, 0)) < 2**62:  # int64 in the kernel: every real bet and cap
            assert sim_lir.lir_up_return(up, stake, odds, cap) == want


@pytest.mark.parametrize("bet", [100, 1_667, 2_500_000])
def test_the_let_it_ride_solver_s_win_table_is_built_from_the_rules(bet: int) -> None:
    rules = make_rules("let-it-ride")
    for cap in (rules.cap_cents, None):
        w = win_table(rules.main_paytable, bet, cap)
        for k, h in product((1, 2, 3), lir.LirHand):
            odds = rules.main_paytable.odds(h)
            win = 0 if odds is None else k * bet * odds
            capped = win if cap is None else min(win, cap)
            assert w[k, h] == (-k * bet if odds is None else capped)


def test_the_one_eyed_flush_solver_s_tables_are_built_from_the_rules() -> None:
    rules = make_rules("one-eyed-flush", {"main.trips": "4", "bust-limit": "16"})
    t = _tables(rules)
    for i, hand in enumerate(t.hands):
        holds = hand.category in (
            oef.Category.PAIR_WITH_WILD,
            oef.Category.TRIPS_WITH_WILD,
            oef.Category.ONE_EYED_FLUSH,
        )
        for drew in (0, 1):
            assert t.live[i, drew] == int(holds and not rules.is_bust(hand, bool(drew)))
    pay = pay_matrix(rules)
    for c in oef.Category:
        assert list(pay[c]) == [rules.win_odds(c), 0, -1, -1]
    assert pay[oef.Category.TRIPS, 0] == 4 and np.all(pay[:, 0] >= 1)
