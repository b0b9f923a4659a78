"""Issue 24: the page's words. A round won on one wager and lost on another for a $0 net is announced as even,
not "Push — your money back"; the recall's provably fair record tells each dealt card ("#0 J♥ → seat 1"), never
``[object Object]``; the log tells a decision in its words with cards counted from 1, and a round's end with the
player's own net (the recall with the house's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser_table import Player, in_process_server, stacked

pytestmark = pytest.mark.browser

# One seat, One Eyed Flush: seat 1 gets J♥ J♠ K♦ (the One Eyed Flush, R-OEF-2: the main wager wins 1 to 1),
# the Flip Card is 5♥ (R-OEF-10: a Flip Card wager on "one-eyed" loses).
DECK = "Jh 2c Js 5h Kd 9d"


@pytest.fixture()
def words_server(tmp_path: Path) -> Iterator[str]:
    table = {"game": "one-eyed-flush", "name": "Flush W", "seats": 1, "min_bet": 100, "max_bet": 10000}
    with in_process_server(
        tmp_path / "tg.sqlite3", [table], turn_seconds=60, deck_factory=lambda table_id: stacked(DECK)
    ) as url:
        yield url


def test_a_zero_net_of_a_win_and_a_loss_is_even(
    browser: Any, words_server: str, page_errors: Any, screenshots: Path
) -> None:
    ann = Player(browser, words_server, "ann", page_errors)
    try:
        ann.register_and_buy_in(100)
        ann.join("Flush W", 1)
        p = ann.page
        p.click("#console button:has-text('Clear')")
        p.fill("#wager-main", "5")
        p.fill("#wager-flip", "5")
        p.select_option("#flip-option", "one-eyed")
        p.press("#wager-flip", "Tab")
        p.locator("[data-testid=place-bets]").click()
        p.wait_for_selector(".action-btn[data-action=stand]")
        p.click(".action-btn[data-action=stand]")
        toast = p.locator(".toast", has_text="Even")
        toast.wait_for()
        assert "Push" not in toast.inner_text()
        assert p.locator("#log li", has_text="ann (seat 1): stands").count() == 1
        # the player's log tells their own net, not the house's
        ended = p.locator("#log li", has_text="Round over")
        ended.wait_for()
        assert "your net" in ended.inner_text() and "house" not in ended.inner_text(), ended.inner_text()
    finally:
        ann.close()
    assert page_errors.errors == []


@pytest.fixture()
def live_server(tmp_path: Path) -> Iterator[str]:
    """Live decks (a provably fair record in each recall)."""
    table = {"game": "three-card-poker", "name": "Poker W", "seats": 1, "min_bet": 100, "max_bet": 10000}
    with in_process_server(tmp_path / "tg.sqlite3", [table], turn_seconds=60) as url:
        yield url


def test_the_recall_tells_each_dealt_card(
    browser: Any, live_server: str, page_errors: Any, screenshots: Path
) -> None:
    bob = Player(browser, live_server, "bob", page_errors)
    try:
        bob.register_and_buy_in(100)
        bob.join("Poker W", 1)
        p = bob.page
        p.click("#console button:has-text('Clear')")
        p.fill("#wager-ante", "5")
        p.press("#wager-ante", "Tab")
        p.locator("[data-testid=place-bets]").click()
        p.wait_for_selector(".action-btn[data-action=fold]")
        p.click(".action-btn[data-action=fold]")
        p.wait_for_selector("#history li[data-round-id]")
        p.locator("#history li[data-round-id]").first.click()
        p.wait_for_selector("#recall:not([hidden]) .recall-events li")
        assert "[object Object]" not in p.locator("#recall-sheet").inner_text()
        # the recall (also an auditor's) tells the house's net; the live log told bob his own
        assert p.locator(".recall-events li", has_text="Round over · house").count() == 1
        mine = p.locator("#log li", has_text="Round over").inner_text()
        assert mine.endswith("your net −$5"), mine  # the Ante lost, the Play returned
        dealt = p.locator("#recall-sheet table.fairness tr", has_text="dealt").inner_text()
        # seat 1, then the dealer, one card at a time
        assert "#0 " in dealt and "→ seat 1" in dealt and "#1 " in dealt and "→ dealer" in dealt, dealt
        p.screenshot(path=str(screenshots / "words-recall.png"), animations="disabled")
    finally:
        bob.close()
    assert page_errors.errors == []
