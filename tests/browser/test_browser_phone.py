"""Issue 24: a phone can play. At 390×844 (a phone) and 768×1024 (a tablet), and at a desktop's 1440×940, the
lobby, a table of every registered game (betting, deciding, settled), the recall and the Math lab never scroll
sideways (``document.scrollingElement.scrollWidth <= innerWidth``), the balance and the bet and action controls
are in the window, and the player's own cards are drawn large enough to read. Screenshots go to
``artifacts/screenshots/`` (``phone-*.png``, ``tablet-*.png``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_browser_table import TIMEOUT_MS, in_process_server

from tablegames.randomness import SeededRandom
from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition

pytestmark = pytest.mark.browser

PHONE = (390, 844)
TABLET = (768, 1024)
DESKTOP = (1440, 940)
MIN_CARD_PX = 30  # the narrowest a card of the player's own hand may be drawn (its index is then ~9 px)


def table_name(d: GameDefinition) -> str:
    return f"Phone {d.key}"


@contextmanager
def every_game_server(
    db: Path, name: Callable[[GameDefinition], str], seats: int, first_seed: int
) -> Iterator[str]:
    """An in-process server with one table of every registered game (named ``name(d)``), seeded decks."""
    seeds = itertools.count(first_seed)
    tables = [
        {"game": d.key, "name": name(d), "seats": seats, "min_bet": 100, "max_bet": 10000}
        for d in registry.DEFINITIONS
    ]
    with in_process_server(
        db, tables, betting_seconds=30, turn_seconds=60, source_factory=lambda: SeededRandom(next(seeds))
    ) as url:
        yield url


@pytest.fixture(scope="module")
def phone_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with every_game_server(tmp_path_factory.mktemp("phone") / "tg.sqlite3", table_name, 5, 501) as url:
        yield url


def no_sideways_scroll(page: Any, where: str) -> None:
    width, inner = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width <= inner, f"{where}: the page is {width} px wide in a {inner} px window"


def in_window(page: Any, selector: str, where: str) -> None:
    """The element is drawn wholly inside the window, as the page is now scrolled."""
    box = page.evaluate(
        """sel => { const r = document.querySelector(sel).getBoundingClientRect();
                    return [r.left, r.top, r.right, r.bottom, innerWidth, innerHeight]; }""",
        selector,
    )
    left, top, right, bottom, width, height = box
    assert left >= 0 and top >= 0 and right <= width + 0.5 and bottom <= height + 0.5, (
        f"{where}: {selector} at {box}"
    )


def register(page: Any, url: str, name: str) -> None:
    page.goto(url + "/")
    page.fill("#register-name", name)
    page.click("#register-btn")
    page.wait_for_selector("#welcome-row:not([hidden])")
    page.fill("#wallet-amount", "500")
    page.click("#buyin-btn")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=balance]').textContent.includes('500')"
    )


def round_label(page: Any) -> str:
    """The round badge's "ROUND n" ("" before the table's first round)."""
    return str(
        page.evaluate("() => (document.querySelector('.round-badge')?.textContent ?? '').split(' · ')[0]")
    )


def wait_next_round(page: Any, before: str) -> None:
    """Wait until the felt shows a round other than ``before``: this round's cards, not the last one's.
    (Not "a badge other than SETTLED": a round with no decision to make can settle before the page draws
    it dealt, and the pushes between are then one.)"""
    page.wait_for_function(
        """prev => { const b = document.querySelector('.round-badge');
                     return b !== null && b.textContent.split(' · ')[0] !== prev; }""",
        arg=before,
    )


def play_a_round(page: Any, d: GameDefinition, where: str) -> None:
    """Sit at the game's table, bet the main wager, decide by the first button each time until settled,
    checking the layout at each step."""
    page.goto(page.url.split("#")[0])
    page.locator(".table-list li", has_text=table_name(d)).locator("button:has-text('Join')").click()
    page.wait_for_selector("[data-testid=sit-1]")
    page.click("[data-testid=sit-1]")
    page.wait_for_selector("#seat-1.mine")
    page.wait_for_selector("[data-testid=place-bets]")
    no_sideways_scroll(page, f"{where} {d.key} betting")
    in_window(page, "[data-testid=balance]", f"{where} {d.key} betting")
    in_window(page, "[data-testid=place-bets]", f"{where} {d.key} betting")
    main = next(w for w in d.wagers if w.main)
    page.click("#console button:has-text('Clear')")
    page.fill(f"#wager-{main.name}", "5")
    page.press(f"#wager-{main.name}", "Tab")
    before = round_label(page)
    # (a click as the console is redrawn can land on the replaced button: again)
    for attempt in range(3):
        page.click("[data-testid=place-bets]")
        try:  # then this round's cards, not the last one's
            page.wait_for_selector("[data-testid=place-bets]", state="detached", timeout=5000)
            break
        except Exception:
            assert attempt < 2, f"{where} {d.key}: the bets were not taken: {page.inner_text('#console')}"
    wait_next_round(page, before)
    page.wait_for_selector("#seat-1.mine .hand svg.card[data-card]")
    script = """min => { const els = [...document.querySelectorAll('#seat-1 .hand svg.card[data-card]')];
                         return els.length > 0 && els.every(e => e.getBoundingClientRect().width >= min); }"""
    try:  # (the felt may be redrawn meanwhile: the cards as they settle)
        page.wait_for_function(script, arg=MIN_CARD_PX, timeout=5000)
    except Exception:
        widths = page.eval_on_selector_all(
            "#seat-1 .hand svg.card[data-card]", "els => els.map(e => e.getBoundingClientRect().width)"
        )
        raise AssertionError(f"{where} {d.key}: own cards {widths} px wide") from None
    decided = False
    for _ in range(10):
        page.wait_for_selector(".action-btn, .round-badge:has-text('SETTLED')")
        if page.locator(".round-badge:has-text('SETTLED')").count():
            break
        no_sideways_scroll(page, f"{where} {d.key} deciding")
        in_window(page, ".action-btn", f"{where} {d.key} deciding")
        in_window(page, "[data-testid=balance]", f"{where} {d.key} deciding")
        if not decided:
            page.screenshot(path=str(SHOTS / f"{where}-{d.key}-deciding.png"), animations="disabled")
            decided = True
        button = page.locator(".action-btn").first.element_handle()
        button.click()
        page.wait_for_function("b => !b.isConnected", arg=button)  # the console moved on: the next decision
    page.wait_for_selector(".round-badge:has-text('SETTLED')")
    no_sideways_scroll(page, f"{where} {d.key} settled")
    in_window(page, "[data-testid=balance]", f"{where} {d.key} settled")
    leave = page.locator("#console button:has-text('Leave seat')")
    try:
        leave.wait_for()
    except Exception:
        raise AssertionError(f"{where} {d.key}: no Leave seat in {page.inner_html('#console')}") from None
    leave.click()  # the next test's player deals without waiting
    page.wait_for_selector("#seat-1:not(.mine)")


SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone", "tablet"])
def test_every_page_fits_a_small_screen(
    browser: Any, phone_server: str, page_errors: Any, screenshots: Path, size: tuple[int, int]
) -> None:
    where = "phone" if size == PHONE else "tablet"
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = page_errors.watch(context.new_page())
    try:
        register(page, phone_server, f"{where}-player")
        no_sideways_scroll(page, f"{where} lobby")
        in_window(page, "[data-testid=balance]", f"{where} lobby")
        in_window(page, "#btn-wallet", f"{where} lobby")
        page.screenshot(path=str(screenshots / f"{where}-lobby.png"), animations="disabled")
        for d in registry.DEFINITIONS:
            play_a_round(page, d, where)
        # the recall of the last round
        page.locator("#history li[data-round-id]").first.click()
        page.wait_for_selector("#recall:not([hidden]) .recall-events li")
        no_sideways_scroll(page, f"{where} recall")
        left, right = page.evaluate(
            "(r => [r.left, r.right])(document.querySelector('#recall-sheet').getBoundingClientRect())"
        )
        assert left >= 0 and right <= size[0], f"{where} recall: the sheet spans {left}..{right} px"
        page.screenshot(path=str(screenshots / f"{where}-recall.png"), animations="disabled")
        page.click("#recall-close")
        page.goto(phone_server + "/lab")
        page.wait_for_selector("[data-testid=lab-figures] .lab-figure")
        no_sideways_scroll(page, f"{where} lab")
        page.screenshot(path=str(screenshots / f"{where}-lab.png"), animations="disabled")
    finally:
        context.close()
    assert page_errors.errors == []


def test_a_desktop_window_still_fits(browser: Any, phone_server: str, page_errors: Any) -> None:
    """The small-screen rules change nothing at a desktop's width: the lobby and a table fit as before."""
    context = browser.new_context(viewport={"width": DESKTOP[0], "height": DESKTOP[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = page_errors.watch(context.new_page())
    try:
        register(page, phone_server, "desk-player")
        no_sideways_scroll(page, "desktop lobby")
        in_window(page, "[data-testid=balance]", "desktop lobby")
        play_a_round(page, registry.DEFINITIONS[0], "desktop")
        # the side panels stay beside the felt at a desktop's width
        play, side = page.evaluate(
            "[document.querySelector('.play').getBoundingClientRect().right,"
            " document.querySelector('.side').getBoundingClientRect().left]"
        )
        assert side >= play
    finally:
        context.close()
    assert page_errors.errors == []
