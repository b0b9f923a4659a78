"""Issue 26 in Chromium: limits set at registration (the wallet shows them, a buy-in over one is refused), a
reality check shown at the interval chosen (the server's clock moved, not waited for), and a self-exclusion that
ends the session at the table. The app runs in this process with an injected clock."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from test_browser_table import TIMEOUT_MS, in_process_server

pytestmark = pytest.mark.browser


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


CLOCK = Clock()


@pytest.fixture(scope="module")
def protection_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    table = {"game": "final-count", "name": "Protected", "seats": 3, "min_bet": 100, "max_bet": 10000}
    db = tmp_path_factory.mktemp("protection") / "tg.sqlite3"
    with in_process_server(db, [table], clock=CLOCK) as url:
        yield url


def test_limits_at_registration_a_reality_check_and_a_self_exclusion(
    browser: Any, protection_server: str, page_errors: Any
) -> None:
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    try:
        page = page_errors.watch(context.new_page())
        page.on("dialog", lambda d: d.accept())  # the confirm() before a self-exclusion
        page.goto(protection_server + "/")
        page.fill("#register-name", "careful")
        page.click("[data-testid=register-limits] summary")
        page.fill("#register-deposit_day", "50")
        page.fill("#register-reality_minutes", "1")
        page.click("#register-btn")
        page.wait_for_selector("#welcome-row:not([hidden])")
        page.wait_for_selector("[data-testid=protection-panel]:not([hidden])")
        page.wait_for_function("() => document.querySelector('#limits-deposit_day').value === '50'")
        assert page.input_value("#limits-reality_minutes") == "1"
        # a buy-in over the day's deposit limit is refused, one within it goes through
        page.fill("#wallet-amount", "80")
        page.click("#buyin-btn")
        page.wait_for_selector(".toasts :text('deposits limit')")
        page.fill("#wallet-amount", "40")
        page.click("#buyin-btn")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=balance]').textContent.includes('40')"
        )
        # at the table: a minute of the server's clock later, the reality check
        page.locator(".table-list li", has_text="Protected").locator("button:has-text('Join')").click()
        page.wait_for_selector("[data-testid=sit-1]")
        CLOCK.now += 61
        page.wait_for_selector("[data-testid=reality-dialog][open]")
        text = page.inner_text("[data-testid=reality-text]")
        assert "played for 1 min" in text and "$0 wagered" in text, text
        page.click("[data-testid=reality-continue]")
        page.wait_for_selector("[data-testid=reality-dialog]:not([open])", state="attached")
        # self-exclusion from the table: the socket is closed and the page goes back to the lobby
        page.click("[data-testid=btn-protect]")
        page.select_option("[data-testid=exclusion-period]", "6m")
        page.click("[data-testid=exclude-btn]")
        page.wait_for_selector("#lobby:not([hidden])")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=exclusion-status]').textContent.includes('excluded yourself')"
        )
        page.fill("#wallet-amount", "5")
        page.click("#buyin-btn")
        page.wait_for_selector(".toasts :text('excluded yourself')")
        assert "40" in page.inner_text("[data-testid=balance]")
    finally:
        context.close()
    assert page_errors.errors == [] or all("403" in e or "409" in e for e in page_errors.errors), (
        page_errors.errors
    )
