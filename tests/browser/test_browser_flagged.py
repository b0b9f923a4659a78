"""Issue 27, the back office's flagged players in Chromium: a supervisor's page shows an alert the server pushes
while it is open (the staff socket; announced in the live region), recalls an evidence round, and acknowledges it
(the button only for a role whose ``GET /staff/me`` may do ``detect.ack``); an auditor sees the alert with no
button. The alert is the live detector's row as it writes one (server/detection.py), pushed as it pushes one."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from test_browser_a11y import axe_clean
from test_browser_office import PASSWORD, log_in
from test_browser_table import ADMIN, _free_port, _http
from typer.testing import CliRunner

from tablegames.cli import app as cli
from tablegames.server.app import create_app
from tablegames.server.db import DetectAlert, DetectTest, Player, RoundRow
from tablegames.server.detection import alert_dict

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    db = tmp_path_factory.mktemp("flagged") / "tg.sqlite3"
    app = create_app(f"sqlite:///{db}", admin_token=ADMIN, betting_seconds=30)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.05)
        for name, role in {"Sue": "supervisor", "Aud": "auditor"}.items():
            out = CliRunner().invoke(
                cli, ["staff", "add", name, "--role", role, "--database", f"sqlite:///{db}"]
            )
            assert out.exit_code == 0, out.output
            one_time = out.output.strip().rsplit("one-time password: ", 1)[1]
            token = _http("POST", url + "/staff/login", {"name": name, "password": one_time})["token"]
            _http("POST", url + "/staff/password", {"old": one_time, "new": PASSWORD},
                  {"Authorization": f"Bearer {token}"})  # fmt: skip
        _http("POST", url + "/players", {"name": "Hole Carder"})
        table = {"game": "three-card-poker", "name": "TCP 1", "seats": 3, "min_bet": 100, "max_bet": 10000}
        _http("POST", url + "/tables", table, {"X-Admin-Token": ADMIN})
        yield url, app
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def flag(app: Any) -> dict[str, Any]:
    """A flagged test and its alert, written and pushed as the detector does (a settled round as evidence)."""
    server = app.state.server
    with server.tx() as s:
        player = s.query(Player).filter_by(name="Hole Carder").one()
        rnd = RoundRow(table_id=1, round_no=10_000, game="three-card-poker", rules={}, status="settled", deck=[],
                       seat_players={"1": player.id}, events=[], result={"house_net": 0, "results": []},
                       settled_at=1.0)  # fmt: skip
        s.add(rnd)
        s.flush()
        test = DetectTest(player_id=player.id, game="three-card-poker", scenario="dealer-1", logs=[0.0] * 4,
                          hands=97, mistakes=31, supported=29, flagged_at=97, evidence=[rnd.id], capped=False,
                          updated_at=2.0)  # fmt: skip
        alert = DetectAlert(player_id=player.id, game="three-card-poker", scenario="dealer-1", round_id=rnd.id,
                            hand=97, log10_evidence=6.61, threshold=3e6, created_at=2.0)  # fmt: skip
        s.add_all([test, alert])
        s.flush()
        body = alert_dict(alert, player.name, test)
    app.state.alerts.from_thread([body])
    return body


def test_a_pushed_alert_is_shown_recalled_and_acknowledged(
    browser: Any, served: tuple[str, Any], screenshots: Path, page_errors: Any
) -> None:
    url, app = served
    ctx, sue = log_in(browser, url, "Sue")
    actx, aud = log_in(browser, url, "Aud")
    page_errors.watch(sue)
    try:
        for page in (sue, aud):
            page.wait_for_selector(
                "#flagged-panel:visible [data-testid=flagged-list]:has-text('No player flagged')"
            )
            page.wait_for_selector("[data-testid=flagged-list][data-live='1']")  # the staff socket is ready
        alert = flag(app)
        row = f"[data-testid=alert-{alert['id']}]"
        for page in (sue, aud):
            page.wait_for_selector(f"{row}:has-text('Hole Carder')")
            page.wait_for_function(
                "() => document.querySelector('[data-testid=flagged-live]').textContent.includes('Hole Carder')"
            )
            assert "dealer-1" in page.inner_text(row) and "log10 M 6.61" in page.inner_text(row)
        assert aud.locator(f"[data-testid=ack-{alert['id']}]").count() == 0  # an auditor may not acknowledge
        sue.click(f"[data-testid=evidence-{alert['evidence_rounds'][0]}]")
        sue.wait_for_selector(f"[data-testid=flagged-round]:has-text('Round {alert['round_id']}')")
        axe_clean(sue, "office (flagged players)", {})
        sue.locator("#flagged-panel").screenshot(path=str(screenshots / "office-flagged.png"))
        sue.click(f"[data-testid=ack-{alert['id']}]")
        sue.wait_for_selector(f"{row}:has-text('acknowledged by staff:Sue')")
        assert sue.locator(f"[data-testid=ack-{alert['id']}]").count() == 0
        assert page_errors.errors == []
    finally:
        ctx.close()
        actx.close()
