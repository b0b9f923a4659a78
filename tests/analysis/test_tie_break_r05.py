"""R-0.5: exact ties between discards are broken one way everywhere (issue 21).

A-2-4 against a wild Flip Card: discarding the 2 or the 4 is worth exactly the same, but they bust differently.
R-0.5 discards the card of higher point value (the 4). The exact analysis, the advisor (hints), the engine's bot
and the simulation kernel's strategy table must all make that discard, whatever the cards' order; and the
bust frequency of the analysis must be the one of the strategy the kernel plays, exactly.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.analysis.advice import advisor
from tablegames.analysis.one_eyed_flush import analyze, optimal_strategy
from tablegames.analysis.one_eyed_flush_kernel import kernels
from tablegames.cards import parse_cards
from tablegames.engine import Bot, Table
from tablegames.engine.actions import discard
from tablegames.engine.bots import best_action
from tablegames.rules.one_eyed_flush import OefDecision, OneEyedFlushRules, discard_preference
from tablegames.simulation.one_eyed_flush import N_CLASSES, triple_index
from tablegames.simulation.strategy import named_strategy_tables

RULES = OneEyedFlushRules()
FLIP = "Jh"  # a wild Flip Card (R-OEF-1)


@pytest.mark.parametrize("hand", ["Ac 2d 4h", "4h Ac 2d", "2d 4h Ac"])
def test_tied_deal_every_player_discards_the_four(hand: str) -> None:
    cards = parse_cards(hand)
    four = next(i for i, c in enumerate(cards) if str(c).startswith("4"))
    two = next(i for i, c in enumerate(cards) if str(c).startswith("2"))
    flip = parse_cards(FLIP)[0]
    strategy = optimal_strategy(RULES)
    values = strategy.options(cards, flip)
    # the tie is exact (fractions), and both discards beat standing: decides, not caution
    assert values[discard(four)] == values[discard(two)] > values[discard(3 - four - two)]
    assert values[discard(four)] > values[next(a for a in values if a.index is None)]
    expected = discard(four)
    # the exact analysis (its solution's choice)
    assert strategy.best(cards, flip) == expected
    # the advisor's values through the engine's best action (hints, server hints and bots)
    ctx = OefDecision(tuple(int(c) for c in cards), int(flip))
    assert best_action(values, ctx) == expected
    # the engine's bot at a live round dealt these cards with this Flip Card
    deck = [int(c) for c in cards]
    dealer = [int(c) for c in parse_cards(f"9s {FLIP} 5c")]
    rest = [c for c in range(52) if c not in deck and c not in dealer]
    stacked = [deck[0], dealer[0], deck[1], dealer[1], deck[2], dealer[2], *rest]
    rnd = Table(RULES, seats=1).new_round(deck=stacked)
    rnd.place_wager(1, "main", 100)
    rnd.deal()
    assert rnd.to_act == 1
    hint = Bot(advisor(rnd, 1, strategy)).hint(rnd, 1)
    assert hint.best == expected
    # the simulation kernel's strategy table (built by calling the optimal strategy on each ordered class triple)
    table = named_strategy_tables(RULES, "optimal").oef_discard
    classes = RULES.classes
    key = triple_index([classes.card_class(int(c)) for c in cards])
    assert table[key * N_CLASSES + classes.card_class(int(flip))] == four


def test_preference_is_the_dealers_order() -> None:
    """R-0.5 = R-OEF-7's order: higher point value, then K, Q, J, 10; suits never decide; a wild is kept."""
    cards = parse_cards("Kc Ks Qs Jc Tc 9h Ac")
    keys = [discard_preference(int(c)) for c in cards]
    assert keys[0] == keys[1]  # suits never decide
    assert keys[1] > keys[2] > keys[3] > keys[4] > keys[5] > keys[6]
    assert discard_preference(int(parse_cards("Jh")[0])) < keys[6]  # wild (R-OEF-1)


def test_choose_kernel_breaks_ties_by_r05() -> None:
    """The kernels' choice (analysis, protect's informed player): a tie between discarding class 0 (a 2) and
    class 2 (a 4) goes to the 4; standing wins any tie; equal classes take the first position."""
    import numpy as np

    choose = kernels()["choose"]
    prefer = optimal_strategy(RULES)._sol.tables.prefer
    ev = np.array([-10, 5, 5, 1], dtype=np.int64)
    assert choose(ev, 0, 2, 12, prefer) == 2
    assert choose(np.array([5, 5, 5, 1], dtype=np.int64), 0, 2, 12, prefer) == 0
    assert choose(np.array([0, 5, 5, 5], dtype=np.int64), 3, 3, 3, prefer) == 1


def test_bust_frequency_of_analysis_is_the_kernels_exactly() -> None:
    """P(the player busts) of the exact analysis equals, as a fraction, the bust probability of the strategy
    the simulation kernel plays (its table, the bots' choices), enumerated over every ordered deal of the
    three cards and the Flip Card and every draw. Before R-0.5 everywhere they differed (0.336045 vs 0.3319)."""
    a = analyze(RULES)
    exact = a.categories()["bust"]
    classes = RULES.classes
    counts = [len(c) for c in classes.class_cards()]
    table = named_strategy_tables(RULES, "optimal").oef_discard
    n = N_CLASSES
    busts = 0
    deals = 0
    for t in product(range(n), repeat=3):
        cards = classes.representative(t)
        if cards is None:
            continue
        rem = list(counts)
        ways = 1
        for k in t:
            ways *= rem[k]
            rem[k] -= 1
        for f in range(n):
            if rem[f] == 0:
                continue
            w = ways * rem[f]
            rem[f] -= 1
            deals += w
            d = int(table[triple_index(t) * n + f])
            if d >= 0:  # R-OEF-5: a draw from the 48 unseen cards; R-OEF-6: a No Pair over 14 busts
                kept = [c for i, c in enumerate(cards) if i != d]
                taken = [*cards, *(classes.representative([f], cards) or [])]
                for z in range(n):
                    if rem[z] == 0:
                        continue
                    new = classes.representative([z], taken)
                    assert new is not None
                    if RULES.is_bust(RULES.evaluate([*kept, *new]), True):
                        busts += w * rem[z]
            rem[f] += 1
    assert deals == 52 * 51 * 50 * 49
    assert Fraction(busts, deals * 48) == exact


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=4, max_size=4, unique=True))
def test_analysis_and_engine_choose_alike_on_every_deal(four: list[int]) -> None:
    """On any deal, in any card order, the exact analysis' choice is the engine's (bots, hints, kernels'
    tables): the same discard, not only one of equal value."""
    strategy = optimal_strategy(RULES)
    values = strategy.options(four[:3], four[3])
    ctx = OefDecision(tuple(four[:3]), four[3])
    assert strategy.best(four[:3], four[3]) == best_action(values, ctx)
