"""Two players, two browsers, one table of each game: they register, buy in, sit, bet and play full rounds by
clicking, and each sees the other play. The server runs as a process (``tablegames serve``) on a free loopback
port with a temporary SQLite database. Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

ADMIN = "browser-test-admin"
TIMEOUT_MS = 15_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _http(
    method: str, url: str, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None
) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read() or b"null")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``tablegames serve`` on a free port, fresh SQLite database, one 3-seat table of each game."""
    data = tmp_path_factory.mktemp("serve")
    port = _free_port()
    cmd = [
        sys.executable,
        "-c",
        "from tablegames.cli import main; main()",
        "serve",
        "--port",
        str(port),
        "--database",
        f"sqlite:///{data / 'tg.sqlite3'}",
        "--betting-seconds",
        "20",
        "--turn-seconds",
        "20",
        "--admin-token",
        ADMIN,
        "--no-demo-tables",
    ]
    log = (data / "serve.log").open("w")
    proc = subprocess.Popen(
        cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            if proc.poll() is not None:
                pytest.fail("server exited: " + (data / "serve.log").read_text())
            with contextlib.suppress(OSError):
                _http("GET", url + "/health")
                break
            time.sleep(0.05)
        else:
            pytest.fail("server did not start: " + (data / "serve.log").read_text())
        for game, name in [
            ("let-it-ride", "Ride 1"),
            ("one-eyed-flush", "Flush 1"),
            ("final-count", "Count 1"),
        ]:
            _http(
                "POST",
                url + "/tables",
                {"game": game, "name": name, "seats": 3, "min_bet": 100, "max_bet": 10000},
                {"X-Admin-Token": ADMIN},
            )
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def frames_of(page: Any) -> list[dict[str, Any]]:
    """Every WebSocket message the page receives from now on, parsed, in order."""
    frames: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    page.on("websocket", on_socket)
    return frames


def assert_no_peeking(frames: list[dict[str, Any]], other_seat: int) -> int:
    """Until the round is settled, no message shows another seat's cards or the dealer's hidden cards
    (Let It Ride: the burn card and the community cards before they are turned; One Eyed Flush: all but the
    Flip Card). Returns how many states were checked."""
    checked = 0
    for msg in frames:
        if msg.get("type") != "state" or not msg.get("round") or msg["round"]["phase"] == "settled":
            continue
        checked += 1
        rnd = msg["round"]
        other = next(s for s in rnd["seats"] if s["seat"] == other_seat)
        assert all(c is None for c in other["cards"]), msg
        shown = [c for c in rnd["dealer"] if c is not None]
        if rnd["game"] == "let-it-ride":
            assert rnd["dealer"][:1] in ([None], []), msg
            assert shown == rnd["community"], msg
        elif rnd["game"] == "one-eyed-flush":
            assert shown == ([rnd["flip_card"]] if rnd["dealer"] else []), msg
        for ev in msg.get("events", []):
            if ev["type"] == "card_dealt" and ev["to"] in (f"seat {other_seat}", "dealer"):
                assert ev["card"] is None or ev["visible_to"] == "all", ev
            if ev["type"] == "card_discarded" and ev["owner"] in ("burn", f"seat {other_seat}"):
                assert ev["card"] is None, ev
    return checked


class Player:
    """One browser context (its own localStorage: its own token) and its page."""

    def __init__(self, browser: Any, url: str, name: str, errors: Any) -> None:
        self.name = name
        self.context = browser.new_context(viewport={"width": 1440, "height": 940})
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page = errors.watch(self.context.new_page())
        self.url = url

    def register_and_buy_in(self, dollars: int) -> None:
        p = self.page
        p.goto(self.url + "/")
        p.fill("#register-name", self.name)
        p.click("#register-btn")
        p.wait_for_selector("#welcome-row:not([hidden])")
        assert p.locator("[data-testid=player-name]").inner_text() == self.name
        p.fill("#wallet-amount", str(dollars))
        p.click("#buyin-btn")
        expect_text(p, "[data-testid=balance]", f"${dollars:,}")

    def join(self, table_name: str, seat: int) -> None:
        p = self.page
        p.goto(self.url + "/")
        row = p.locator(".table-list li", has_text=table_name)
        row.locator("button:has-text('Join')").click()
        p.wait_for_selector(f"[data-testid=sit-{seat}]")
        p.click(f"[data-testid=sit-{seat}]")
        p.wait_for_selector(f"#seat-{seat}.mine")

    def balance(self) -> int:
        return cents(self.page.locator("[data-testid=balance]").inner_text())

    def close(self) -> None:
        self.context.close()


def cents(text: str) -> int:
    m = re.fullmatch(r"([−-])?\$([\d,]+)(?:\.(\d\d))?", text.strip())
    assert m, text
    value = int(m.group(2).replace(",", "")) * 100 + int(m.group(3) or 0)
    return -value if m.group(1) else value


def expect_text(page: Any, selector: str, text: str) -> None:
    try:
        page.wait_for_function(
            "([sel, text]) => { const e = document.querySelector(sel); return e && e.textContent.trim() === text; }",
            arg=[selector, text],
            timeout=TIMEOUT_MS,
        )
    except Exception:
        actual = page.locator(selector).first.text_content() if page.locator(selector).count() else None
        raise AssertionError(f"{selector}: expected {text!r}, found {actual!r}") from None


def faces(page: Any, selector: str) -> list[str | None]:
    return page.eval_on_selector_all(
        selector + " svg.card:not(.slot)", "els => els.map(e => e.dataset.card || null)"
    )


def play_until_settled(players: list[Player], choose: dict[str, Any], deadline_s: float = 60) -> None:
    """Click a legal action whenever a player has buttons, until both pages show the round settled."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if all(p.page.locator(".round-badge", has_text="SETTLED").count() for p in players):
            return
        acted = False
        for pl in players:
            buttons = pl.page.locator(".action-btn")
            if buttons.count():
                actions = buttons.evaluate_all("els => els.map(e => e.dataset.action)")
                action = choose[pl.name](actions)
                if action is None:  # this player lets the turn time out
                    continue
                try:
                    pl.page.click(f".action-btn[data-action='{action}']", timeout=3000)
                except Exception:
                    continue  # the buttons went away meanwhile (the turn moved on): look again
                pl.page.wait_for_function(
                    "a => !document.querySelector(`.action-btn[data-action='${a}']`)", arg=action
                )
                acted = True
        if not acted:
            time.sleep(0.1)
    raise AssertionError("the round did not settle in time")


@pytest.fixture()
def pair(browser: Any, server: str, page_errors: Any) -> Iterator[tuple[Player, Player]]:
    ann = Player(browser, server, f"ann{os.getpid() % 1000}{time.monotonic_ns() % 10_000}", page_errors)
    bob = Player(browser, server, f"bob{os.getpid() % 1000}{time.monotonic_ns() % 10_000}", page_errors)
    yield ann, bob
    ann.close()
    bob.close()
    assert page_errors.errors == []


def bet_with_chips(pl: Player, seat: int, spots: list[str], chip_cents: int = 500) -> None:
    """Clear the draft, pick a chip from the rack and click betting spots on the felt."""
    p = pl.page
    p.click("#console button:has-text('Clear')")
    p.click(f".chip-rack svg.chip[data-cents='{chip_cents}']")
    for spot in spots:
        p.click(f"#seat-{seat} .spot[data-wager='{spot}']")


def deal_in(pl: Player, cost_cents: int) -> None:
    p = pl.page
    button = p.locator("[data-testid=place-bets]")
    assert cents(button.inner_text().split("·")[-1]) == cost_cents
    button.click()


def wait_dealt(pl: Player, seat: int) -> None:
    pl.page.wait_for_selector(f"#seat-{seat} .hand svg.card")


def seat_net(pl: Player, seat: int) -> int:
    text = pl.page.locator(f"#seat-{seat} .seat-status .net").inner_text()
    return 0 if text == "PUSH" else cents(text.replace("+", ""))


def check_settlement(ann: Player, bob: Player, before: dict[str, int]) -> None:
    """Both pages agree on both results; each balance (``before``: before the round's wagers) moved by exactly
    its seat's net result."""
    for pl in (ann, bob):
        pl.page.wait_for_selector("#seat-1 .seat-status .net")
        pl.page.wait_for_selector("#seat-2 .seat-status .net")
    nets = {1: seat_net(ann, 1), 2: seat_net(ann, 2)}
    assert nets == {1: seat_net(bob, 1), 2: seat_net(bob, 2)}
    expect_text(ann.page, "[data-testid=balance]", money(before[ann.name] + nets[1]))
    expect_text(bob.page, "[data-testid=balance]", money(before[bob.name] + nets[2]))


def money(c: int) -> str:
    whole, rest = divmod(abs(c), 100)
    text = f"${whole:,}" + (f".{rest:02d}" if rest else "")
    return ("−" if c < 0 else "") + text


def check_pay_table(pl: Player, section: str, row: tuple[str, str], shot: Path | None = None) -> None:
    """The rule card is open: ``section`` lists ``row`` (label, value); it closes and gives the focus back."""
    p = pl.page
    p.wait_for_selector("#recall:not([hidden]) [data-testid=paytables]")
    table = p.locator("table.paytable", has=p.locator(f"caption:text-is('{section}')"))
    assert table.locator("tr", has_text=row[0]).first.locator("td").inner_text() == row[1]
    assert p.locator("[data-testid=rule-summary]").inner_text() == "Standard rules."
    if shot is not None:
        p.screenshot(path=str(shot), animations="disabled")
    p.keyboard.press("Enter")  # the focus is on Close
    p.wait_for_selector("#recall", state="hidden")


def check_history(pl: Player, game_name: str, shot: Path | None = None) -> None:
    p = pl.page
    p.wait_for_selector(f"#history li[data-round-id]:has-text('{game_name}')")
    p.locator("#history li[data-round-id]").first.click()
    p.wait_for_selector("#recall:not([hidden]) .recall-events li")
    sheet = p.locator("#recall-sheet")
    assert game_name in sheet.locator("h2").inner_text()
    assert sheet.locator(".recall-events li", has_text="Card #0").count() == 1
    assert sheet.locator("table.players tr", has_text=pl.name).count() == 1
    if shot is not None:
        p.screenshot(path=str(shot), animations="disabled")
    p.click("#recall-close")
    p.wait_for_selector("#recall", state="hidden")
    # issue 24: the hand history downloads as a file, the player's own rounds
    with p.expect_download() as dl:
        p.click("#export-csv")
    assert dl.value.suggested_filename.startswith("hand-history-") and dl.value.suggested_filename.endswith(
        ".csv"
    )
    rows = Path(dl.value.path()).read_text().splitlines()
    assert rows[0].startswith("round_id,settled_at,table,game") and len(rows) > 1
    assert all(f",{pl.name}," in row for row in rows[1:])


def test_let_it_ride_two_players(pair: tuple[Player, Player], screenshots: Path) -> None:
    """R-LIR-1..4: bets by chips and by inputs, ride / pull by buttons, community cards, hints, history."""
    ann, bob = pair
    ann.register_and_buy_in(1000)
    bob.register_and_buy_in(1000)
    ann.page.wait_for_selector(".game-card[data-game=final-count] li:has-text('Count 1')")
    ann.page.screenshot(path=str(screenshots / "lobby.png"), animations="disabled")
    # issue 24: the pay table one click away in the lobby, in a player's words (the server's rule card)
    ann.page.locator(".table-list li", has_text="Ride 1").locator("button:has-text('Pay table')").click()
    check_pay_table(ann, "Pay table (standard)", ("Royal flush", "1000 to 1"), screenshots / "pay-table.png")
    ann_frames = frames_of(ann.page)
    ann.join("Ride 1", 1)
    bob.join("Ride 1", 2)
    ann.page.wait_for_selector(f"#seat-2 .player-name:has-text('{bob.name}')")
    bob.page.wait_for_selector(f"#seat-1 .player-name:has-text('{ann.name}')")

    bet_with_chips(ann, 1, ["bets 1", "progressive"])
    # the draft shows on the felt before it is sent: $5 on each of 1, 2, $ and the $1 progressive
    drafted = ann.page.eval_on_selector_all(
        "#seat-1 .chip-stack.draft", "els => els.map(e => e.dataset.cents)"
    )
    assert drafted == ["500", "500", "500", "100"]
    deal_in(ann, 1600)
    bob.page.click("#console button:has-text('Clear')")
    bob.page.fill("#wager-bets", "10")
    bob.page.fill("#wager-bonus", "2.50")
    bob.page.press("#wager-bonus", "Tab")
    ann.page.click("#hint-toggle + .track")
    deal_in(bob, 3250)

    wait_dealt(ann, 1)
    wait_dealt(bob, 2)
    expect_text(ann.page, "[data-testid=balance]", "$984")
    expect_text(bob.page, "[data-testid=balance]", "$967.50")
    # each sees its own three cards and only backs for the other's
    assert None not in faces(ann.page, "#seat-1 .hand")
    assert faces(ann.page, "#seat-2 .hand") == [None, None, None]
    assert faces(bob.page, "#seat-1 .hand") == [None, None, None]
    assert faces(ann.page, ".community-cards") == [None, None]
    # ann acts first (seat 1): exactly the legal actions, with the hint marking the best one
    ann.page.wait_for_selector(".action-btn .hint-tag")
    assert ann.page.eval_on_selector_all(".action-btn", "els => els.map(e => e.dataset.action)") == [
        "pull",
        "ride",
    ]
    assert ann.page.locator(".action-btn.best").count() == 1
    assert bob.page.locator(".action-btn").count() == 0
    ann.page.screenshot(path=str(screenshots / "let-it-ride-ann-deciding.png"), animations="disabled")

    play_until_settled([ann, bob], {ann.name: lambda a: "ride", bob.name: lambda a: "pull"})
    # and at the table; the log says "standard rules", never the raw rule set
    bob.page.click("[data-testid=btn-paytable]")
    check_pay_table(bob, "3-Card Bonus (seed)", ("Mini royal", "50 to 1"))
    log = ann.page.locator("#log").inner_text()
    assert "(standard rules)" in log and "main.flush" not in log and "qualifier=" not in log
    # bob pulled bet 1 and bet 2: ann sees it on his spots; the community cards are face up
    assert ann.page.locator("#seat-2 .spot[data-wager='bets 1'] .chip-stack").count() == 0
    # each spot shows its own bet's outcome: settled events name the wager "bets" and the part (issue 12)
    spot = "#seat-2 .spot[data-wager='{}']"
    assert "outcome-pulled" in (ann.page.locator(spot.format("bets 2")).get_attribute("class") or "")
    dollar = ann.page.locator(spot.format("bets $")).get_attribute("class") or ""
    assert "outcome-win" in dollar or "outcome-lose" in dollar
    assert None not in faces(ann.page, ".community-cards")
    assert None not in faces(ann.page, "#seat-2 .hand")
    check_settlement(ann, bob, {ann.name: 100000, bob.name: 100000})
    # what ann's browser was sent: never bob's cards or the dealer's before the settlement (several states)
    assert assert_no_peeking(ann_frames, other_seat=2) >= 4
    ann.page.screenshot(path=str(screenshots / "let-it-ride-ann-settled.png"), animations="disabled")
    check_history(ann, "Let It Ride", screenshots / "let-it-ride-recall.png")


def test_one_eyed_flush_two_players(pair: tuple[Player, Player], screenshots: Path) -> None:
    """R-OEF-4/5/10: main, Jackpot and Flip Card wagers; the Flip Card face up; a discard by clicking a card."""
    ann, bob = pair
    ann.register_and_buy_in(500)
    bob.register_and_buy_in(500)
    bob_frames = frames_of(bob.page)
    ann.join("Flush 1", 1)
    bob.join("Flush 1", 2)

    bet_with_chips(ann, 1, ["main", "jackpot"], chip_cents=500)
    ann.page.fill("#wager-flip", "1")
    ann.page.select_option("#flip-option", "one-eyed")
    ann.page.press("#wager-flip", "Tab")
    ann.page.wait_for_selector("#seat-1 .spot[data-wager=flip] .spot-option:has-text('One-eyed')")
    deal_in(ann, 700)
    # over the table's $100 limit: a clear error, nothing taken, the bet controls stay
    bob.page.fill("#wager-main", "200")
    bob.page.press("#wager-main", "Tab")
    deal_in(bob, 20000)
    bob.page.locator(".toast.error").wait_for()
    assert bob.page.locator("[data-testid=place-bets]").is_visible()
    assert bob.balance() == 50000
    bob.page.fill("#wager-main", "20")
    bob.page.press("#wager-main", "Tab")
    deal_in(bob, 2000)

    wait_dealt(ann, 1)
    wait_dealt(bob, 2)
    # the Flip Card is the dealer's second card, face up for both; the other dealer cards are backs
    flip_ann = faces(ann.page, ".dealer-cards")
    assert flip_ann[0] is None and flip_ann[2] is None and flip_ann[1] is not None
    assert faces(bob.page, ".dealer-cards") == flip_ann
    assert faces(bob.page, "#seat-1 .hand") == [None, None, None]
    assert ann.page.eval_on_selector_all(".action-btn", "els => els.map(e => e.dataset.action)") == [
        "stand",
        "discard 0",
        "discard 1",
        "discard 2",
    ]
    ann.page.screenshot(path=str(screenshots / "one-eyed-flush-ann-deciding.png"), animations="disabled")
    # ann discards her first card by clicking it on the felt
    first = faces(ann.page, "#seat-1 .hand")
    ann.page.click("#seat-1 .hand svg.card[data-index='0']")
    bob.page.wait_for_selector("#seat-1 .seat-status:has-text('DISCARDS CARD 1')")  # the decision's label
    ann.page.wait_for_function(
        "c => document.querySelector(\"#seat-1 .hand svg.card[data-index='0']\").dataset.card !== c",
        arg=first[0],
    )
    after = faces(ann.page, "#seat-1 .hand")
    assert after[1:] == first[1:] and None not in after

    # bob stands with the keyboard (S); the round then settles
    bob.page.wait_for_selector(".action-btn[data-action=stand]")
    bob.page.keyboard.press("s")
    bob.page.wait_for_selector(".action-btn", state="detached")
    play_until_settled([ann, bob], {ann.name: lambda a: "stand", bob.name: lambda a: "stand"})
    assert ann.page.locator("#log li", has_text=f"{bob.name} (seat 2): stand").count() == 1
    assert None not in faces(ann.page, ".dealer-cards")
    check_settlement(ann, bob, {ann.name: 50000, bob.name: 50000})
    # bob's browser never got ann's cards (her discard and draw included) or the dealer's hole cards
    assert assert_no_peeking(bob_frames, other_seat=1) >= 3
    bob.page.screenshot(path=str(screenshots / "one-eyed-flush-bob-settled.png"), animations="disabled")
    check_history(bob, "One Eyed Flush")


def test_final_count_two_players_two_rounds(pair: tuple[Player, Player], screenshots: Path) -> None:
    """R-FC-2..5: up cards public, third cards face down for all; two full rounds in a row."""
    ann, bob = pair
    ann.register_and_buy_in(300)
    bob.register_and_buy_in(300)
    ann.join("Count 1", 1)
    bob.join("Count 1", 2)
    balances = {ann.name: 30000, bob.name: 30000}
    for round_no in (1, 2):
        for pl, stake in ((ann, "5"), (bob, "10")):
            pl.page.wait_for_selector("[data-testid=place-bets]")
            pl.page.fill("#wager-main", stake)
            pl.page.press("#wager-main", "Tab")
            deal_in(pl, int(stake) * 100)
        wait_dealt(ann, 1)
        wait_dealt(bob, 2)
        # up cards are public: both pages show the same faces (an odd two-card total is turned at once, so
        # with two odd totals the round may already be over: read the page in one go)
        snap = ann.page.evaluate(
            """() => ({
                phase: document.querySelector('.round-badge').textContent,
                dealer: [...document.querySelectorAll('.dealer-cards svg.card')].map(e => e.dataset.card || null),
                bob: [...document.querySelectorAll('#seat-2 .hand svg.card')].map(e => e.dataset.card || null),
            })"""
        )
        assert None not in snap["dealer"][:2] and None not in snap["bob"][:2]
        assert snap["bob"][:2] == faces(bob.page, "#seat-2 .hand")[:2]
        if "DECIDING" in snap["phase"]:
            assert snap["dealer"][2] is None  # R-FC-5: turned only after every player has decided
        if round_no == 1:
            ann.page.screenshot(path=str(screenshots / "final-count-ann-dealt.png"), animations="disabled")
        play_until_settled([ann, bob], {ann.name: lambda a: "turn", bob.name: lambda a: "stand"})
        assert None not in faces(ann.page, ".dealer-cards")
        check_settlement(ann, bob, balances)
        balances[ann.name] += seat_net(ann, 1)
        balances[bob.name] += seat_net(bob, 2)
        if round_no == 1:
            ann.page.screenshot(path=str(screenshots / "final-count-ann-settled.png"), animations="disabled")
    check_history(ann, "Final Count")
    assert ann.page.locator("#history li[data-round-id]").count() == 2
    # bob leaves his seat: ann sees it open, bob can sit again
    bob.page.click("#leave-btn")
    ann.page.wait_for_selector("#seat-2 .player-name:has-text('open seat')")
    bob.page.wait_for_selector("[data-testid=sit-2]")
    # back in the lobby: cash out $10 of the balance
    ann.page.click("#btn-lobby")
    ann.page.wait_for_selector("#wallet-panel:not([hidden])")
    ann.page.fill("#wallet-amount", "10")
    ann.page.click("#cashout-btn")
    expect_text(ann.page, "[data-testid=balance]", money(balances[ann.name] - 1000))


# --- a stacked deck: a Royal Flush, the Mega meter and the Envy Bonus, announced live ---------------------


def stacked(first: str) -> list[int]:
    from tablegames.cards import parse_cards

    head = [int(c) for c in parse_cards(first)]
    return head + [c for c in range(52) if c not in head]


TURN_SECONDS = 6  # short: seat 2 lets its turns time out in the stacked-deck test


@contextlib.contextmanager
def in_process_server(db: Path, tables: list[dict[str, Any]], **app_options: Any) -> Iterator[str]:
    """The app in this process (uvicorn in a thread) on SQLite file ``db``, with ``tables`` created by the
    operator (each a ``POST /tables`` body); yields its URL."""
    import threading

    import uvicorn

    from tablegames.server.app import create_app

    app_options.setdefault("betting_seconds", 30)
    app = create_app(f"sqlite:///{db}", admin_token=ADMIN, **app_options)
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
        else:
            pytest.fail("in-process server did not start")
        for body in tables:
            _http("POST", url + "/tables", body, {"X-Admin-Token": ADMIN})
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture()
def stacked_server(tmp_path: Path) -> Iterator[str]:
    """The app in this process dealing a fixed deck: deal order seat 1, seat 2, dealer.

    Seat 1 gets A♥ K♥ Q♥ and the community cards are J♥ T♥ (R-LIR-2: the dealer's first card, 5♣, is burned).
    """
    deck = stacked("Ah 2c 5c Kh 3d Jh Qh 4s Th")
    table = {"game": "let-it-ride", "name": "Ride 1", "seats": 2, "min_bet": 100, "max_bet": 10000}
    with in_process_server(
        tmp_path / "tg.sqlite3", [table], turn_seconds=TURN_SECONDS, deck_factory=lambda table_id: deck
    ) as url:
        yield url


def test_royal_flush_jackpot_and_envy_announced(
    browser: Any, stacked_server: str, page_errors: Any, screenshots: Path
) -> None:
    """R-LIR-7/8: seat 1's Royal Flush hits the Mega meter; seat 2 (with a Progressive wager) gets the $1,000
    Envy Bonus. Both pages announce it and both jackpot signs show the meter reset; a reload mid-round gives
    the seat and its cards back; seat 2's turns time out and the server pulls for it."""
    ann = Player(browser, stacked_server, "ann", page_errors)
    bob = Player(browser, stacked_server, "bob", page_errors)
    try:
        ann.register_and_buy_in(100)
        bob.register_and_buy_in(100)
        ann.join("Ride 1", 1)
        bob.join("Ride 1", 2)
        expect_text(ann.page, "#table-scene .meter-mega .meter-value", "$50,000")
        for pl, seat in ((ann, 1), (bob, 2)):
            bet_with_chips(pl, seat, ["bets 1", "progressive"])
            deal_in(pl, 1600)
        wait_dealt(ann, 1)
        assert faces(ann.page, "#seat-1 .hand") == ["Ah", "Kh", "Qh"]
        # two progressive wagers: each adds 10% to Mega ($0.10), 4% to Major, 2% to Minor, live on both pages
        expect_text(bob.page, "#table-scene .meter-mega .meter-value", "$50,000.20")
        expect_text(ann.page, "#table-scene .meter-major .meter-value", "$5,000.08")
        # ann lets bet 1 ride; during bob's turn a reload (a reconnect) gives her her seat and cards back
        ann.page.click(".action-btn[data-action=ride]")
        ann.page.wait_for_selector(".action-btn", state="detached")
        ann.page.reload()
        ann.page.wait_for_selector("#seat-1.mine .hand svg.card[data-card='Qh']")
        assert faces(ann.page, "#seat-2 .hand") == [None, None, None]
        # bob never clicks: each of his turns times out and the server pulls for him (the documented default)
        play_until_settled([ann, bob], {"ann": lambda a: "ride", "bob": lambda a: None})
        assert ann.page.locator("#log li", has_text="bob (seat 2): pulls the bet — by timeout").count() == 2
        jackpot = ann.page.locator(".toast.jackpot-hit")
        jackpot.wait_for()
        assert "Mega" in jackpot.inner_text() and "$50,000.20" in jackpot.inner_text()
        envy = bob.page.locator(".toast.neighbour-bonus")
        envy.wait_for()
        assert "ENVY BONUS" in envy.inner_text() and "$1,000" in envy.inner_text()
        assert "royal flush" in envy.inner_text().lower()
        for pl in (ann, bob):
            expect_text(pl.page, "#table-scene .meter-mega .meter-value", "$50,000")
        assert ann.page.locator("#seat-1 .seat-status .hand-name").inner_text() == "Royal flush"
        assert faces(bob.page, ".community-cards") == ["Jh", "Th"]
        # ann: 3 bets of $5 at 1000 to 1 + the Mega meter; bob: $1,000 Envy, bets 1 and 2 pulled, $ and prog lost
        assert seat_net(ann, 1) == 3 * 500 * 1000 + 5_000_020 - 100
        assert seat_net(bob, 2) == 100_000 - 500 - 100
        check_settlement(ann, bob, {"ann": 10_000, "bob": 10_000})
        bob.page.screenshot(path=str(screenshots / "let-it-ride-envy-bob.png"), animations="disabled")
        ann.page.screenshot(path=str(screenshots / "let-it-ride-royal-ann.png"), animations="disabled")
    finally:
        ann.close()
        bob.close()
    assert page_errors.errors == []


def test_a_player_sets_a_client_seed_in_the_page_and_the_round_verifies(
    browser: Any, server: str, page_errors: Any, tmp_path: Path
) -> None:
    """Issue 11 defect 11: the table view offers a client seed against the next round's commitment (shown
    there); the round dealt next lists the seed in its record and ``tablegames verify`` proves its deck.
    Issue 20 defect 3: the page commits to the seed (its SHA-256, the typed text plus 128 random bits) and
    reveals it once every commitment is in (no round in play)."""
    from typer.testing import CliRunner

    from tablegames.cli import app as cli

    _http(
        "POST",
        server + "/tables",
        {"game": "final-count", "name": "Seed 1", "seats": 1, "min_bet": 100, "max_bet": 10000},
        {"X-Admin-Token": ADMIN},
    )
    pl = Player(browser, server, f"seed{os.getpid() % 1000}{time.monotonic_ns() % 10_000}", page_errors)
    try:
        pl.register_and_buy_in(100)
        pl.join("Seed 1", 1)
        p = pl.page
        p.wait_for_selector("#seed-panel:not([hidden])")
        commitment = p.locator("#next-commitment").get_attribute("title")
        assert commitment and re.fullmatch(r"[0-9a-f]{64}", commitment)
        assert p.locator("#next-commitment").inner_text() == commitment[:16] + "…"
        p.fill("#seed-input", "browser seed")
        p.click("#seed-btn")
        p.wait_for_selector("#seed-status:has-text('Revealed')")
        assert "browser seed" in p.locator("#seed-status").inner_text()
        p.wait_for_selector("[data-testid=place-bets]")
        p.fill("#wager-main", "5")
        p.press("#wager-main", "Tab")
        deal_in(pl, 500)
        play_until_settled([pl], {pl.name: lambda a: "stand" if "stand" in a else a[0]})
        round_id = p.evaluate("() => window.tablegames.lastResultRound")
        record = _http("GET", f"{server}/rounds/{round_id}")["fairness"]
        assert record["fairness"]["commitment"] == commitment
        [entry] = record["client_seeds"]
        assert entry["seat"] == 1 and (entry["committed"], entry["revealed"]) == (0, 1)
        assert re.fullmatch(r"browser seed [0-9a-f]{32}", entry["seed"]), entry
        assert entry["seed_hash"] == hashlib.sha256(entry["seed"].encode()).hexdigest()
        path = tmp_path / "round.json"
        path.write_text(json.dumps(record))
        result = CliRunner().invoke(cli, ["verify", str(path)])
        assert result.exit_code == 0 and "VERIFIED" in result.output, result.output
        # the panel now shows the following round's commitment, and the page commits a fresh seed for it
        p.wait_for_function(
            "c => document.querySelector('#next-commitment').title !== c", arg=commitment, timeout=TIMEOUT_MS
        )
        p.wait_for_function(
            "() => /^Revealed for the next round: “browser seed [0-9a-f]{32}”/"
            ".test(document.querySelector('#seed-status').textContent)",
            timeout=TIMEOUT_MS,
        )
        assert record["client_seeds"][0]["seed"] not in p.locator("#seed-status").inner_text()  # a fresh one
    finally:
        pl.close()
    assert page_errors.errors == []
