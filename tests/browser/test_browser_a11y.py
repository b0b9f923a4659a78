"""Issue 24, accessibility: a round of every registered game played with the keyboard alone (Tab to a control,
Enter), its cards, turns and results announced in an ``aria-live`` region, and axe-core (the copy bundled by
``axe-playwright-python``) reporting no serious or critical violation on the lobby, each table (betting,
deciding, settled), the pay table, the recall and the Math lab, at a desktop's and a phone's width."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser_phone import PHONE, every_game_server, register, round_label, wait_next_round
from test_browser_table import TIMEOUT_MS

from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition

pytestmark = pytest.mark.browser

DESKTOP = (1280, 900)
SERIOUS = ("serious", "critical")


def table_name(d: GameDefinition) -> str:
    return f"A11y {d.key}"


@pytest.fixture(scope="module")
def a11y_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with every_game_server(tmp_path_factory.mktemp("a11y") / "tg.sqlite3", table_name, 3, 901) as url:
        yield url


def axe_clean(page: Any, where: str, seen: dict[str, list[str]]) -> None:
    """axe-core finds no serious or critical violation on the page as it is now."""
    axe = pytest.importorskip("axe_playwright_python.sync_playwright").Axe()
    found = axe.run(page).response["violations"]
    bad = [
        f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in found
        if v["impact"] in SERIOUS
    ]
    seen[where] = [v["id"] for v in found]
    assert bad == [], f"{where}: {bad}"


def tab_to(page: Any, selector: str, where: str, limit: int = 200) -> None:
    """Press Tab until the focus is on ``selector`` (the page's focus order reaches it)."""
    for _ in range(limit):
        if page.evaluate("sel => !!document.activeElement && document.activeElement.matches(sel)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{where}: Tab never reached {selector}")


def press(page: Any, selector: str, where: str, gone: bool = True) -> None:
    """Tab to ``selector`` and press Enter; with ``gone``, until the element it was is replaced (the console
    moved on). The console is redrawn on every state, so a focus can be lost on the way: then again."""
    for attempt in range(4):
        tab_to(page, selector, where)
        handle = page.evaluate_handle("() => document.activeElement")
        page.keyboard.press("Enter")
        if not gone:
            return
        try:
            page.wait_for_function("el => !el.isConnected", arg=handle, timeout=4000)
            return
        except Exception:
            assert attempt < 3, f"{where}: Enter on {selector} did nothing"


def keyboard_round(page: Any, d: GameDefinition, url: str, seen: dict[str, list[str]]) -> str:
    """Join the game's table, sit, bet and decide with Tab and Enter only; returns the announcements."""
    where = f"keyboard {d.key}"
    page.goto(url + "/")
    page.wait_for_selector(".table-list li")
    # everything the live region says (it keeps only its last lines; a screen reader reads each as it comes)
    page.evaluate(
        """() => { window.said = [];
                   new MutationObserver(ms => ms.forEach(m => m.addedNodes.forEach(n => window.said.push(n.textContent))))
                     .observe(document.getElementById('announce'), {childList: true}); }"""
    )
    join = page.locator(".table-list li", has_text=table_name(d)).locator("button:has-text('Join')")
    press(page, f"[data-testid={join.get_attribute('data-testid')}]", where, gone=False)
    page.wait_for_selector("[data-testid=sit-1]")
    press(page, "[data-testid=sit-1]", where, gone=False)
    page.wait_for_selector("#seat-1.mine")
    page.wait_for_selector("[data-testid=place-bets]")
    axe_clean(page, f"{d.key} betting", seen)
    before = round_label(page)
    press(page, "[data-testid=place-bets]", where)
    wait_next_round(page, before)
    checked = False
    for _ in range(10):
        page.wait_for_selector(".action-btn, .round-badge:has-text('SETTLED')")
        if page.locator(".round-badge:has-text('SETTLED')").count():
            break
        if not checked:
            axe_clean(page, f"{d.key} deciding", seen)
            checked = True
        press(page, ".action-btn", where)
    page.wait_for_selector(".round-badge:has-text('SETTLED')")
    page.wait_for_function(
        "() => /You win|You lose|Push|Even/.test(document.querySelector('#announce').textContent)"
    )
    axe_clean(page, f"{d.key} settled", seen)
    said = "\n".join(page.evaluate("window.said"))
    press(page, "#leave-btn", where, gone=False)
    page.wait_for_selector("#seat-1:not(.mine)")
    return said


def test_every_game_by_keyboard_announced_and_axe_clean(
    browser: Any, a11y_server: str, page_errors: Any, screenshots: Path
) -> None:
    context = browser.new_context(viewport={"width": DESKTOP[0], "height": DESKTOP[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = page_errors.watch(context.new_page())
    seen: dict[str, list[str]] = {}
    try:
        register(page, a11y_server, "keys-only")
        axe_clean(page, "lobby", seen)
        assert page.get_attribute("#announce", "aria-live") == "polite"
        for d in registry.DEFINITIONS:
            said = keyboard_round(page, d, a11y_server, seen)
            assert "Your turn:" in said, f"{d.key}: {said!r}"
            assert re.search(r"Card #\d+ to ", said), f"{d.key}: no card announced in {said!r}"
            assert re.search(r"You win|You lose|Push|Even", said), f"{d.key}: no result in {said!r}"
        # the pay table and the recall, opened and closed by the keyboard, are clean too
        press(page, "[data-testid=btn-paytable]", "pay table", gone=False)
        page.wait_for_selector("#recall:not([hidden]) [data-testid=paytables]")
        assert page.evaluate("document.activeElement.id") == "recall-close"
        axe_clean(page, "pay table", seen)
        page.keyboard.press("Enter")
        page.wait_for_selector("#recall", state="hidden")
        page.locator("#history li[data-round-id]").first.click()
        page.wait_for_selector("#recall:not([hidden]) .recall-events li")
        axe_clean(page, "recall", seen)
        page.keyboard.press("Enter")
        page.wait_for_selector("#recall", state="hidden")
        page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
        axe_clean(page, "phone table", seen)
        page.goto(a11y_server + "/")
        axe_clean(page, "phone lobby", seen)
        page.goto(a11y_server + "/lab")
        page.wait_for_selector("[data-testid=lab-figures] .lab-figure")
        axe_clean(page, "phone lab", seen)
        page.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})
        axe_clean(page, "lab", seen)
    finally:
        context.close()
    assert page_errors.errors == []
    assert len(seen) >= 4 * 3 + 6  # every page above was checked


def test_a_player_with_a_password_signs_in_from_another_browser(browser: Any, a11y_server: str) -> None:
    """Issue 25: a password given at registration signs the player in elsewhere; the first browser's token ends."""
    first = browser.new_context()
    second = browser.new_context()
    try:
        a, b = first.new_page(), second.new_page()
        a.goto(a11y_server + "/")
        a.fill("#register-name", "traveller")
        a.fill("#register-password", "a long secret")
        a.click("#register-btn")
        a.wait_for_selector("#welcome-row:not([hidden])")
        assert a.inner_text("#welcome-text").startswith("Welcome, traveller")  # new here: not "Welcome back"
        b.goto(a11y_server + "/")
        b.fill("#register-name", "traveller")
        b.fill("#register-password", "not the secret")
        b.click("[data-testid=signin-btn]")
        b.wait_for_function("() => document.querySelector('#lobby-error').textContent.includes('wrong name')")
        b.fill("#register-password", "a long secret")
        b.click("[data-testid=signin-btn]")
        b.wait_for_selector("#welcome-row:not([hidden])")
        assert b.inner_text("[data-testid=player-name]") == "traveller"
        assert b.inner_text("#welcome-text").startswith("Welcome back, traveller")  # signed in again
        a.reload()
        a.wait_for_selector("#register-form:not([hidden])")  # the old token no longer signs in
    finally:
        first.close()
        second.close()


def test_a_visitor_watches_a_round_without_an_account(browser: Any, a11y_server: str) -> None:
    """Issue 24, spectators: the lobby's Watch opens a table with no account; the round a player plays there is
    drawn with public cards only (the player's face-down cards are backs until shown), and no seat is offered."""
    visitor_ctx, player_ctx = browser.new_context(), browser.new_context()
    visitor_ctx.set_default_timeout(TIMEOUT_MS)
    player_ctx.set_default_timeout(TIMEOUT_MS)
    try:
        v, p = visitor_ctx.new_page(), player_ctx.new_page()
        d = registry.get("three-card-poker")
        v.goto(a11y_server + "/")
        row = v.locator(".table-list li", has_text=table_name(d))
        row.locator("button:has-text('Watch')").click()
        v.wait_for_selector("[data-testid=status]:has-text('You are watching')")
        assert v.locator("[data-testid^=sit-]").count() == 0  # no seat for a spectator
        register(p, a11y_server, "watched")
        p.locator(".table-list li", has_text=table_name(d)).locator("button:has-text('Join')").click()
        p.click("[data-testid=sit-1]")
        p.wait_for_selector("#seat-1.mine")
        p.click("[data-testid=place-bets]")
        p.wait_for_selector("#seat-1.mine .hand svg.card[data-card]")
        v.wait_for_selector("#seat-1 .hand svg.card")
        faces = v.eval_on_selector_all(
            "#seat-1 .hand svg.card", "els => els.map(e => e.dataset.card || null)"
        )
        assert faces and all(f is None for f in faces), faces  # the player's cards: backs to a spectator
        p.locator(".action-btn").first.click()
        v.wait_for_selector(".round-badge:has-text('SETTLED')")
        shown = v.eval_on_selector_all(
            "#seat-1 .hand svg.card", "els => els.map(e => e.dataset.card || null)"
        )
        assert all(shown), shown  # shown once the round is settled
        p.click("#leave-btn")
    finally:
        visitor_ctx.close()
        player_ctx.close()
