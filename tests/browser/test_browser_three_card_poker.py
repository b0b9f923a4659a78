"""Three Card Poker in a real browser: two players at one table play rounds by clicking — one plays Pair Plus
alone (no decision, R-TCP-1), one plays and one folds (R-TCP-2) — each page checked against the other and
against the server's results, with screenshots."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser_table import (
    Player,
    check_history,
    check_settlement,
    deal_in,
    frames_of,
    in_process_server,
    play_until_settled,
    seat_net,
    wait_dealt,
)

from tablegames.randomness import SeededRandom

pytestmark = pytest.mark.browser
TABLE = "Poker 1"


@pytest.fixture(scope="module")
def tcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    seeds = itertools.count(7)
    table = {"game": "three-card-poker", "name": TABLE, "seats": 3, "min_bet": 100, "max_bet": 10000}
    with in_process_server(
        tmp_path_factory.mktemp("tcp") / "tg.sqlite3",
        [table],
        turn_seconds=60,
        source_factory=lambda: SeededRandom(next(seeds)),
    ) as url:
        yield url


def bet(pl: Player, ante: int | None, pair_plus: int | None) -> int:
    p = pl.page
    p.wait_for_selector("[data-testid=place-bets]")
    p.click("#console button:has-text('Clear')")
    for name, dollars in (("ante", ante), ("pair-plus", pair_plus)):
        if dollars:
            p.fill(f"#wager-{name}", str(dollars))
            p.press(f"#wager-{name}", "Tab")
    cost = 2 * 100 * (ante or 0) + 100 * (pair_plus or 0)  # the Play wager is set aside beside the Ante
    deal_in(pl, cost)
    return cost


def test_two_players_pair_plus_alone_play_and_fold(
    browser: Any, tcp_server: str, page_errors: Any, screenshots: Path
) -> None:
    tag = f"{os.getpid() % 1000}{time.monotonic_ns() % 10_000}"
    ann = Player(browser, tcp_server, f"ann{tag}", page_errors)
    bob = Player(browser, tcp_server, f"bob{tag}", page_errors)
    try:
        for pl in (ann, bob):
            pl.register_and_buy_in(300)
        ann_frames = frames_of(ann.page)
        ann.join(TABLE, 1)
        bob.join(TABLE, 2)
        balances = {ann.name: 30_000, bob.name: 30_000}
        # round 1: ann plays her Ante (and Pair Plus); bob plays Pair Plus alone and has no decision
        bet(ann, 5, 1)
        bet(bob, None, 2)
        wait_dealt(ann, 1)
        wait_dealt(bob, 2)
        assert bob.page.locator(".action-btn").count() == 0
        ann.page.wait_for_selector(".action-btn[data-action='play']")
        labels = ann.page.locator(".action-btn").evaluate_all("els => els.map(e => e.dataset.action)")
        assert labels == ["play", "fold"]
        # the dealer's cards stay face down for both until the showdown (R-TCP-1)
        assert ann.page.locator(".dealer-cards svg.card:not(.slot)[data-card]").count() == 0
        ann.page.screenshot(
            path=str(screenshots / "three-card-poker-ann-deciding.png"), animations="disabled"
        )
        play_until_settled([ann, bob], {ann.name: lambda a: "play", bob.name: lambda a: None})
        check_settlement(ann, bob, balances)
        result = next(f for f in reversed(ann_frames) if f.get("type") == "round_result")
        nets = {r["seat"]: r["net"] for r in result["results"]}
        assert nets == {1: seat_net(ann, 1), 2: seat_net(ann, 2)}
        ann.page.screenshot(path=str(screenshots / "three-card-poker-ann-settled.png"), animations="disabled")
        balances[ann.name] += nets[1]
        balances[bob.name] += nets[2]
        # round 2: ann folds (her Ante lost, the Play given back), bob plays an Ante
        bet(ann, 5, None)
        bet(bob, 10, None)
        wait_dealt(ann, 1)
        play_until_settled([ann, bob], {ann.name: lambda a: "fold", bob.name: lambda a: "play"})
        check_settlement(ann, bob, balances)
        assert seat_net(ann, 1) == -500
        bob.page.screenshot(path=str(screenshots / "three-card-poker-bob-settled.png"), animations="disabled")
        check_history(ann, "Three Card Poker", screenshots / "three-card-poker-recall.png")
    finally:
        ann.close()
        bob.close()
    assert page_errors.errors == []
