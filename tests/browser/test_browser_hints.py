"""Issue 24: the hint the page shows is the exact hint of the decision on the table, from the first hand.

A server that prepares hints (``create_app(prepare_hints=True)``, as ``tablegames serve``) solves each table's
strategy when the table opens; a player sits, switches hints on and plays the first round of a Let It Ride and of
a One Eyed Flush table (stacked decks). At every decision the EV on the best button and the cost on the others
are the analysis' ``advise`` for that decision (the bug: Let It Ride's second decision kept the first one's EVs).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from test_browser_table import Player, faces, in_process_server, stacked

from tablegames.analysis.api import analyzer
from tablegames.cards import parse_card
from tablegames.rules import make_rules
from tablegames.rules.definition import DecisionContext
from tablegames.rules.let_it_ride import LirDecision
from tablegames.rules.one_eyed_flush import OefDecision
from tablegames.server import hints

pytestmark = pytest.mark.browser

# One seat: deal order seat 1, dealer.
# Let It Ride: seat 1 gets 2♣ 7♦ 9♠; the dealer's 5♣ is burned, K♥ and 3♦ are the community cards (R-LIR-2/3):
# pull is best at both decisions, so only the EVs tell the two hints apart.
LIR_DECK = "2c 5c 7d Kh 9s 3d"
# One Eyed Flush: seat 1 gets 9♣ 8♦ 2♠, the Flip Card is 5♥ (R-OEF-4).
OEF_DECK = "9c 4c 8d 5h 2s 6c"
SOLVE_SECONDS = 300  # the strategies solved in the background (seconds each on a quiet machine)


@pytest.fixture(scope="module")
def hints_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    decks = {1: stacked(LIR_DECK), 2: stacked(OEF_DECK)}
    tables = [
        {"game": "let-it-ride", "name": "Ride H", "seats": 1, "min_bet": 100, "max_bet": 10000},
        {"game": "one-eyed-flush", "name": "Flush H", "seats": 1, "min_bet": 100, "max_bet": 10000},
    ]
    with in_process_server(
        tmp_path_factory.mktemp("hints") / "tg.sqlite3",
        tables,
        turn_seconds=120,
        deck_factory=lambda table_id: decks[table_id],
        prepare_hints=True,
    ) as url:
        yield url


def wait_prepared(game: str) -> None:
    """The table's opening asked for its strategy already (``prepare`` has nothing to queue); wait until it is
    solved, so that the first hint is exact."""
    rules = make_rules(game)
    assert not hints.prepare(rules), "the table's strategy was not asked for when the table opened"
    end = time.monotonic() + SOLVE_SECONDS
    while hints.strategy_for(rules) is None:
        assert time.monotonic() < end, f"{game}'s strategy not solved in {SOLVE_SECONDS} s"
        time.sleep(0.5)


def expected(game: str, ctx: DecisionContext) -> dict[str, Fraction | float]:
    rules = make_rules(game)
    found = analyzer(rules)
    return {str(a): v for a, v in found.advise(found.optimal_strategy(rules, None), ctx).items()}


def shown(page: Any) -> dict[str, tuple[str, float]]:
    """Each button's hint tag: ("ev", value) on the best one, ("cost", value) on the others."""
    tags: list[list[str]] = page.eval_on_selector_all(
        ".action-btn",
        "els => els.map(e => [e.dataset.action, (e.querySelector('.hint-tag') || {}).textContent || ''])",
    )
    out: dict[str, tuple[str, float]] = {}
    for action, text in tags:
        if "EV" in text:
            out[action] = ("ev", float(text.split("EV")[-1].strip().replace("−", "-")))
        elif text.startswith("costs"):
            out[action] = ("cost", float(text.split()[-1]))
    return out


def check_hint(page: Any, values: dict[str, Fraction | float]) -> None:
    """Until the page shows them (10 s): the best action's EV and every other action's cost, to 3 places."""
    best_value = max(values.values())
    want = {
        a: ("ev", round(float(v), 3)) if v == best_value else ("cost", round(float(best_value - v), 3))
        for a, v in values.items()
    }
    end = time.monotonic() + 10
    got: dict[str, tuple[str, float]] = {}
    while time.monotonic() < end:
        got = {a: (k, round(x, 3)) for a, (k, x) in shown(page).items()}
        if got == want:
            break
        time.sleep(0.1)
    assert got == want, f"shown {got}, advise says {want}"
    assert "exact strategy" in page.locator("#hint-note").inner_text()


def cards_of(page: Any, selector: str) -> tuple[int, ...]:
    """The face-up cards under ``selector``."""
    return tuple(int(parse_card(c)) for c in faces(page, selector) if c is not None)


def sit_with_hints(pl: Player, table: str) -> None:
    pl.register_and_buy_in(500)
    pl.join(table, 1)
    pl.page.click("#hint-toggle + .track")
    pl.page.fill("#wager-" + ("bets" if table.startswith("Ride") else "main"), "5")
    pl.page.locator("[data-testid=place-bets]").click()
    pl.page.wait_for_selector("#seat-1 .hand svg.card[data-card]")


def test_let_it_ride_hint_at_both_decisions(
    browser: Any, hints_server: str, page_errors: Any, screenshots: Path
) -> None:
    """R-LIR-2/3: the first hand's hints are exact, and the second decision shows its own EVs."""
    wait_prepared("let-it-ride")
    ann = Player(browser, hints_server, "ann", page_errors)
    try:
        sit_with_hints(ann, "Ride H")
        p = ann.page
        p.wait_for_selector(".action-btn .hint-tag")
        own = cards_of(p, "#seat-1 .hand")
        assert len(own) == 3
        check_hint(p, expected("let-it-ride", LirDecision(stage=1, cards=own)))
        p.click(".action-btn[data-action=pull]")
        p.wait_for_selector(".community-cards svg.card[data-card]")
        community = cards_of(p, ".community-cards")
        assert len(community) == 1
        check_hint(p, expected("let-it-ride", LirDecision(stage=2, cards=own + community, bet1_up=False)))
        p.screenshot(path=str(screenshots / "hints-let-it-ride-second.png"), animations="disabled")
        p.click(".action-btn[data-action=pull]")
        p.wait_for_selector(".round-badge:has-text('SETTLED')")
    finally:
        ann.close()
    assert page_errors.errors == []


def test_one_eyed_flush_hint_first_hand(browser: Any, hints_server: str, page_errors: Any) -> None:
    """R-OEF-4/5: the first hand's hint is exact: each button's value is ``advise``'s for these cards and
    Flip Card."""
    wait_prepared("one-eyed-flush")
    bob = Player(browser, hints_server, "bob", page_errors)
    try:
        sit_with_hints(bob, "Flush H")
        p = bob.page
        p.wait_for_selector(".action-btn .hint-tag")
        own = cards_of(p, "#seat-1 .hand")
        flip = [c for c in faces(p, ".dealer-cards") if c is not None]
        assert len(flip) == 1
        check_hint(p, expected("one-eyed-flush", OefDecision(cards=own, flip_card=int(parse_card(flip[0])))))
    finally:
        bob.close()
    assert page_errors.errors == []
