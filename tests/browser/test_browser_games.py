"""A browser round of every registered game, named nowhere: for each definition of ``rules.registry`` a player
sits at a table of it, places the main wager and every side bet the definition lists (a fixed amount by its
check box, an option by its choices), takes the legal actions by clicking their buttons (round after round,
until every decision of the game was clicked), and the page shows what the server's ``round_result`` says.
A game registered later inherits this test. The server runs in this process and deals seeded decks.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser_table import Player, _http, cents, deal_in, expect_text, frames_of, in_process_server, money

from tablegames.randomness import SeededRandom
from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition

pytestmark = pytest.mark.browser

MAX_ROUNDS = 8  # rounds a game gets to offer each of its decisions
MAIN_DOLLARS = 5
SIDE_DOLLARS = 1


def table_name(d: GameDefinition) -> str:
    return f"Generic {d.key}"


@pytest.fixture(scope="module")
def games_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app in this process with one 1-seat table of every registered game, seeded decks."""
    seeds = itertools.count(101)
    tables = [
        {"game": d.key, "name": table_name(d), "seats": 1, "min_bet": 100, "max_bet": 10000}
        for d in registry.DEFINITIONS
    ]
    with in_process_server(
        tmp_path_factory.mktemp("games") / "tg.sqlite3",
        tables,
        turn_seconds=60,
        source_factory=lambda: SeededRandom(next(seeds)),
    ) as url:
        yield url


def last_state(frames: list[dict[str, Any]]) -> dict[str, Any]:
    return next(f for f in reversed(frames) if f.get("type") == "state")


def place_every_wager(
    pl: Player, d: GameDefinition, round_no: int
) -> tuple[dict[str, int], dict[str, str], int]:
    """Fill the main wager and each side bet in the console (GET /games decides which fields there are);
    returns the wagers, the options chosen and what they cost."""
    p = pl.page
    rules = d.make_rules()
    p.wait_for_selector("[data-testid=place-bets]")
    p.click("#console button:has-text('Clear')")
    wagers: dict[str, int] = {}
    options: dict[str, str] = {}
    for w in d.wagers:
        fixed = w.fixed_cents(rules)
        if fixed is not None:
            p.check(f"#wager-{w.name}")
            wagers[w.name] = fixed
        else:
            dollars = MAIN_DOLLARS if w.main else SIDE_DOLLARS
            p.fill(f"#wager-{w.name}", str(dollars))
            p.press(f"#wager-{w.name}", "Tab")
            wagers[w.name] = dollars * 100
        if w.option is not None:
            choice = w.option.choices[round_no % len(w.option.choices)]
            p.select_option(f"#{w.name}-option", choice)
            options[w.name] = choice
    by_name = {w.name: w for w in d.wagers}
    cost = sum(amount * by_name[name].cost_multiple for name, amount in wagers.items())
    return wagers, options, cost


def refuse_side_bet_alone(pl: Player, d: GameDefinition) -> None:
    """A side bet without the wager it requires: the page sends it as it is and shows the server's refusal
    (the page checks nothing itself); nothing is taken and the bet controls stay."""
    side = next((w for w in d.wagers if w.requires is not None), None)
    if side is None:
        return
    p = pl.page
    before = pl.balance()
    p.wait_for_selector("[data-testid=place-bets]")
    p.click("#console button:has-text('Clear')")
    if side.fixed_cents(d.make_rules()) is not None:
        p.check(f"#wager-{side.name}")
    else:
        p.fill(f"#wager-{side.name}", str(SIDE_DOLLARS))
        p.press(f"#wager-{side.name}", "Tab")
    p.click("[data-testid=place-bets]")
    error = p.locator(".toast.error").last
    error.wait_for()
    assert side.requires in error.inner_text(), error.inner_text()
    assert p.locator("[data-testid=place-bets]").is_visible()
    assert pl.balance() == before


def expected_label(d: GameDefinition, action: str) -> str:
    name, _, index = action.partition(" ")
    decision = d.decision(name)
    assert decision is not None, action
    return decision.label.replace("{n}", str(int(index) + 1) if index else "")


def play_round(
    pl: Player, d: GameDefinition, frames: list[dict[str, Any]], clicked: set[str], after: int
) -> dict[str, Any]:
    """Click a legal action whenever the page offers buttons (one not clicked before first) until the server
    sends this round's ``round_result``; returns it."""
    p = pl.page
    end = time.monotonic() + 60
    while time.monotonic() < end:
        result = next((f for f in frames if f.get("type") == "round_result" and f["round_id"] > after), None)
        if result is not None:
            return result
        buttons = p.locator(".action-btn")
        if not buttons.count():
            time.sleep(0.05)
            continue
        try:
            actions = buttons.evaluate_all("els => els.map(e => e.dataset.action)")
            subs = buttons.evaluate_all("els => els.map(e => e.querySelector('.sub').textContent)")
        except Exception:
            continue  # redrawn meanwhile: look again
        state = last_state(frames)
        if state["round"]["legal_actions"] != actions:
            time.sleep(0.05)  # a newer state is on its way
            continue
        # exactly the server's legal actions, each labelled with its decision's words
        assert subs == [expected_label(d, a) for a in actions]
        fresh = [a for a in actions if a.partition(" ")[0] not in clicked]
        action = (fresh or actions)[0]
        # the log tells the decision in its words, cards counted from 1 as on the button (issue 24)
        words = expected_label(d, action)
        told = p.locator("#log li", has_text=f"(seat 1): {words}")
        before = told.count()
        p.click(f".action-btn[data-action='{action}']")
        clicked.add(action.partition(" ")[0])
        # the server's action event comes back and the log tells it (the next decision may offer it again)
        p.wait_for_function(
            "([a, n]) => [...document.querySelectorAll('#log li')]"
            ".filter(e => e.textContent.includes(`(seat 1): ${a}`)).length > n",
            arg=[words, before],
        )
    raise AssertionError("the round did not settle in time")


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_a_round_of_every_registered_game(
    browser: Any, games_server: str, page_errors: Any, screenshots: Path, definition: GameDefinition
) -> None:
    d = definition
    pl = Player(browser, games_server, f"g{d.key[:6]}{time.monotonic_ns() % 100_000}", page_errors)
    try:
        pl.register_and_buy_in(1000)
        frames = frames_of(pl.page)
        pl.join(table_name(d), 1)
        p = pl.page
        # the felt prints the game's title; the meters of the definition are on the sign
        p.wait_for_selector(f".felt-title:has-text('{d.title.upper()}')")
        for meter in d.meters(d.make_rules()):
            expect_text(
                p, f"#table-scene .meter-{meter.name} .meter-name", (meter.title or meter.name).upper()
            )
        refuse_side_bet_alone(pl, d)
        clicked: set[str] = set()
        last_round = 0
        for round_no in range(MAX_ROUNDS):
            wagers, options, cost = place_every_wager(pl, d, round_no)
            for choice in options.values():  # the option chosen shows on its spot
                p.wait_for_selector(f"#seat-1 .spot-option:has-text('{choice[:1].upper() + choice[1:]}')")
            deal_in(pl, cost)
            result = play_round(pl, d, frames, clicked, last_round)
            last_round = result["round_id"]
            # the server took exactly the wagers the page placed
            seat = next(s for s in last_state(frames)["round"]["seats"] if s["seat"] == 1)
            assert seat["wagers"] == wagers and seat["options"] == options
            # the page shows the server's result: the seat's net and the balance
            mine = next(r for r in result["results"] if r["seat"] == 1)
            p.wait_for_selector("#seat-1 .seat-status .net")
            net_text = p.locator("#seat-1 .seat-status .net").inner_text()
            assert (0 if net_text == "PUSH" else cents(net_text.replace("+", ""))) == mine["net"]
            assert mine["staked"] == cost
            expect_text(p, "[data-testid=balance]", money(result["balance"]))
            if round_no == 0:
                p.screenshot(path=str(screenshots / f"generic-{d.key}-settled.png"), animations="disabled")
            if clicked == {x.name for x in d.decisions}:
                break
        assert clicked == {x.name for x in d.decisions}, (
            f"decisions clicked in {MAX_ROUNDS} rounds: {clicked}"
        )
        # the recall of the last round tells every event of it, in the one narrator's words
        p.wait_for_selector(f"#history li[data-round-id='{last_round}']")
        p.click(f"#history li[data-round-id='{last_round}']")
        p.wait_for_selector("#recall:not([hidden]) .recall-events li")
        recall = _http("GET", f"{games_server}/rounds/{last_round}")
        assert p.locator(".recall-events li").count() == len(recall["events"])
        assert d.title in p.locator("#recall-sheet h2").inner_text()
        p.click("#recall-close")
    finally:
        pl.close()
    assert page_errors.errors == []
