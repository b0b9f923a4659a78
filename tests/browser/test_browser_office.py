"""Issue 25, the back office at ``/office`` in Chromium, one staff member per role: a supervisor pauses a table, an
operator makes a $2,500 adjustment that waits (and cannot approve it herself), another operator approves it,
the auditor sees every entry, exports the trail and verifies it. The page offers each role only what
``GET /staff/me`` says it may do; axe-core finds no serious violation; a phone's width does not scroll sideways."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser_a11y import axe_clean
from test_browser_phone import PHONE, no_sideways_scroll
from test_browser_table import TIMEOUT_MS, _http, in_process_server
from typer.testing import CliRunner

from tablegames.cli import app as cli

pytestmark = pytest.mark.browser

PASSWORD = "a long staff secret"
STAFF = {"Sue": "supervisor", "Olga": "operator", "Otto": "operator", "Aud": "auditor"}


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("office") / "tg.sqlite3"
    table = {"game": "final-count", "name": "Office FC", "seats": 3, "min_bet": 100, "max_bet": 10000}
    with in_process_server(db, [table]) as url:
        for name, role in STAFF.items():  # each with a password of their own (the first login's change)
            out = CliRunner().invoke(
                cli, ["staff", "add", name, "--role", role, "--database", f"sqlite:///{db}"]
            )
            assert out.exit_code == 0, out.output
            one_time = out.output.strip().rsplit("one-time password: ", 1)[1]
            token = _http("POST", url + "/staff/login", {"name": name, "password": one_time})["token"]
            _http(
                "POST",
                url + "/staff/password",
                {"old": one_time, "new": PASSWORD},
                {"Authorization": f"Bearer {token}"},
            )
        _http("POST", url + "/players", {"name": "Pia"})
        yield url


def log_in(browser: Any, url: str, name: str, viewport: tuple[int, int] = (1280, 900)) -> tuple[Any, Any]:
    ctx = browser.new_context(accept_downloads=True, viewport={"width": viewport[0], "height": viewport[1]})
    ctx.set_default_timeout(TIMEOUT_MS)
    page = ctx.new_page()
    page.goto(url + "/office")
    page.fill("[data-testid=login-name]", name)
    page.fill("[data-testid=login-password]", PASSWORD)
    page.click("[data-testid=login-submit]")
    page.wait_for_selector(f"[data-testid=office-who]:has-text('{name}')")
    return ctx, page


def shown(page: Any, panel: str) -> bool:
    return bool(page.is_visible(f"#{panel}-panel"))


def notice(page: Any, words: str) -> None:
    page.wait_for_function(
        "w => document.querySelector('[data-testid=office-notice]').textContent.includes(w)", arg=words
    )


def test_each_role_does_its_part_in_the_back_office(browser: Any, office: str, tmp_path: Path) -> None:
    seen: dict[str, list[str]] = {}
    # a supervisor pauses the table; she sees play but adjusts no balance
    ctx, sue = log_in(browser, office, "Sue")
    try:
        assert shown(sue, "tables") and shown(sue, "players") and shown(sue, "approvals")
        sue.fill("[data-testid^=status-reason-]", "dealer change")
        sue.click("[data-testid^=pause-]")
        sue.wait_for_selector("[data-testid^=table-status-]:has-text('paused')")
        sue.fill("[data-testid=players-search]", "Pi")
        sue.click("#players-form button")
        sue.wait_for_selector("[data-testid='player-balance-Pia']")
        assert sue.locator("[data-testid='adjust-Pia']").count() == 0  # not a supervisor's power
        axe_clean(sue, "office (supervisor)", seen)
    finally:
        ctx.close()

    # an operator asks for $2,500: it waits, and she cannot approve her own
    ctx, olga = log_in(browser, office, "Olga")
    try:
        olga.fill("[data-testid=players-search]", "Pia")
        olga.click("#players-form button")
        olga.fill("[data-testid='adjust-amount-Pia']", "2,500")
        olga.fill("[data-testid='adjust-reason-Pia']", "jackpot paid short")
        olga.click("[data-testid='adjust-Pia']")
        notice(olga, "waits for a second staff member")
        olga.click("[data-testid^=approve-]")
        olga.wait_for_function(
            "() => document.querySelector('[data-testid=office-error]').textContent.includes('their own')"
        )
    finally:
        ctx.close()

    # another operator approves it; the balance moves
    ctx, otto = log_in(browser, office, "Otto")
    try:
        otto.fill("[data-testid^=decide-reason-]", "checked the meter log")
        otto.click("[data-testid^=approve-]")
        notice(otto, "approved and applied")
        otto.fill("[data-testid=players-search]", "Pia")
        otto.click("#players-form button")
        otto.wait_for_selector("[data-testid='player-balance-Pia']:has-text('$2,500')")
        otto.click("[data-testid='history-Pia']")  # her rounds (none yet)
        otto.wait_for_selector("#players-list :text('No rounds.')")
        otto.fill("[data-testid='suspend-reason-Pia']", "chargeback under review")
        otto.click("[data-testid='suspend-Pia']")
        otto.wait_for_selector("[data-testid='suspended-Pia']")
    finally:
        ctx.close()

    # the auditor reads everything and changes nothing: the entries, an export, a verification
    ctx, aud = log_in(browser, office, "Aud", PHONE)
    try:
        assert shown(aud, "audit") and shown(aud, "reports")
        assert (
            aud.locator("[data-testid^=pause-], [data-testid^=resume-], [data-testid^=approve-]").count() == 0
        )
        aud.wait_for_selector("[data-testid='audit-table.pause']")
        aud.fill("[data-testid=audit-action]", "adjust.")
        aud.click("[data-testid=audit-filter]")
        aud.wait_for_selector("[data-testid='audit-adjust.apply']")
        assert aud.locator("[data-testid='audit-adjust.request']").count() == 1
        aud.fill("[data-testid=players-search]", "Pia")
        aud.click("#players-form button")
        aud.wait_for_selector("[data-testid='suspended-Pia']")  # she sees it, and may not change it
        assert aud.locator("[data-testid^=suspend-], [data-testid^=adjust-]").count() == 0
        assert aud.locator("[data-testid='audit-table.pause']").count() == 0  # filtered
        with aud.expect_download() as got:
            aud.click("[data-testid=audit-csv]")
        path = tmp_path / "audit.csv"
        got.value.save_as(path)
        text = path.read_text()
        assert text.startswith("id,at,actor,action,") and "adjust.request" in text and "staff:Otto" in text
        aud.click("[data-testid=audit-verify]")
        notice(aud, "Audit trail intact")
        no_sideways_scroll(aud, "office at a phone's width")
        axe_clean(aud, "office (auditor, phone)", seen)
    finally:
        ctx.close()
    assert len(seen) == 2
