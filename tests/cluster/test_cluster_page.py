"""The page's table socket (``static/js/api.js`` ``TableSocket``) among two real server processes (issue 16):
opened at the process that served the page, it follows the ``redirect`` (close 4307) to the table's owner; when
the owner is SIGKILLed it reconnects through the page's process and ends up at the new owner, with its seat.
Debian's chromium through Playwright (skipped without them, as ``tests/browser``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_support import Cluster, Player, create_table

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

CHROMIUM = os.environ.get("TABLEGAMES_CHROMIUM", "/usr/bin/chromium")

OPEN = """async ([tableId, token]) => {
  localStorage.setItem("tablegames.token", token);
  const { TableSocket } = await import("/static/js/api.js");
  window.seen = [];
  window.sock = new TableSocket(tableId, {
    onMessage: (m) => window.seen.push({ type: m.type, seat: m.seat ?? null, url: window.sock.ws.url }),
  });
  return true;
}"""

WELCOMES = """() => window.seen.filter((m) => m.type === "welcome").map((m) => m.url)"""


@pytest.fixture
def page() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip(f"no chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"], headless=True
        )
        try:
            yield browser.new_page()
        finally:
            browser.close()


def test_the_page_follows_the_redirect_to_the_owner_and_to_the_next_owner_after_a_sigkill(
    start_cluster: object, page: Any
) -> None:
    cluster: Cluster = start_cluster(2)  # type: ignore[operator]
    entry = cluster.nodes[0]
    tables = [create_table(entry.base, "final-count", f"FC {i}", seats=2) for i in range(2)]
    owned = cluster.wait_owned(tables)
    table = next(t for t in tables if owned[t] != entry.name)
    owner = cluster.node(owned[table])
    ann = Player(entry.base, "ann", 10_000)
    ann.connect(entry.base, table)
    assert ann.request(type="sit", seat=2)["type"] == "ack"
    ann.close()

    page.goto(entry.base + "/")
    page.evaluate(OPEN, [table, ann.token])
    page.wait_for_function(f"() => ({WELCOMES})().length >= 1", timeout=20_000)
    first = page.evaluate(WELCOMES)[0]
    assert first.startswith(f"ws://127.0.0.1:{owner.port}/ws/tables/{table}?token=")  # at the owner
    assert all(m["type"] != "redirect" for m in page.evaluate("() => window.seen"))  # handled by the socket
    seats = [m["seat"] for m in page.evaluate("() => window.seen") if m["type"] == "state"]
    assert seats and seats[-1] == 2

    owner.kill()  # the page's socket drops; the table's lease expires and the page's process takes it
    page.wait_for_function(f"() => ({WELCOMES})().length >= 2", timeout=60_000)
    again = page.evaluate(WELCOMES)[-1]
    assert again.startswith(f"ws://127.0.0.1:{entry.port}/ws/tables/{table}?token=")
    page.wait_for_function(
        """(port) => { const s = window.seen.filter((m) => m.type === "state"); return s.length > 0
               && s[s.length - 1].url.includes(`:${port}/`) && s[s.length - 1].seat === 2; }""",
        arg=entry.port,
        timeout=20_000,
    )
    assert cluster.leases()[table][0] == entry.name
