"""The felt drawn from the engine's ``Round.view(seat)``, without a server: cards, backs, chips, wild marks.

A static file server serves ``server/static`` and a small harness page that imports ``table.js`` and draws one
scene. The views come from real engine rounds on fixed decks, so what is checked is exactly what the server sends.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablegames.cards import parse_cards
from tablegames.engine import Table
from tablegames.engine.events import Settled
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules
from tablegames.server.routes.games import all_games

pytestmark = pytest.mark.browser

HARNESS = """<!doctype html><html><head><meta charset="utf-8">
<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/css/casino.css"></head>
<body style="padding:16px"><div id="t" class="table-scene" style="width:1100px"></div>
<script type="module">
import { layoutOf, renderTable } from "/static/js/table.js";
import { installSprite } from "/static/js/cards.js";
installSprite();
window.renderScene = async (s) => renderTable(document.getElementById("t"),
  Object.assign({ results: {}, players: {}, meters: {}, lastActions: {} }, s, { layout: await layoutOf(s.game) }));
window.harnessReady = true;
</script></body></html>"""


class _Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/harness"):
            body = HARNESS.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path.startswith("/static/"):
            self.path = self.path[len("/static") :]
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def static_url(static_dir: Path) -> Iterator[str]:
    handler = functools.partial(_Handler, directory=str(static_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def harness(browser: Any, static_url: str, page_errors: Any) -> Iterator[tuple[Any, Any]]:
    errors = page_errors
    page = errors.watch(browser.new_page(viewport={"width": 1140, "height": 760}))
    page.goto(static_url + "/harness.html")
    page.wait_for_function("window.harnessReady === true")
    yield page, errors
    page.close()
    assert errors.errors == []


def deck(first: str) -> list[int]:
    """A 52-card deck starting with the given cards (the rest in index order)."""
    head = [int(c) for c in parse_cards(first)]
    return head + [c for c in range(52) if c not in head]


GAMES = {g.key: g.model_dump() for g in all_games()}  # GET /games, which the page draws from


def draw(page: Any, scene: dict[str, Any], shot: Path | None = None) -> None:
    """Draw ``scene`` with its game (a key) as GET /games describes it, in the game's felt layout."""
    page.evaluate("s => window.renderScene(s)", {**scene, "game": GAMES[scene["game"]]})
    if shot is not None:
        page.locator("#t").screenshot(path=str(shot), animations="disabled")


def faces(page: Any, selector: str) -> list[str | None]:
    return page.eval_on_selector_all(
        selector + " svg.card:not(.slot)", "els => els.map(e => e.dataset.card || null)"
    )


def test_one_eyed_flush_view_shows_only_what_seat_1_may_see(harness: Any, screenshots: Path) -> None:
    """R-OEF-4: own cards face up, the other seat's face down, the Flip Card (dealer's 2nd card) face up."""
    page, _ = harness
    # deal order: seat1, seat2, dealer, seat1, seat2, dealer (Flip Card), ...
    table = Table(make_rules("one-eyed-flush"), seats=3, source=SeededRandom(1))
    rnd = table.new_round(deck("Jh 4c 2d 7s 9c Kd 3h Td 8s"))
    rnd.place_wager(1, "main", 500)
    rnd.place_wager(1, "jackpot", 100)
    rnd.place_wager(1, "flip", 200, "one-eyed")
    rnd.place_wager(2, "main", 2500)
    rnd.deal()
    view = rnd.view(1)
    scene = {
        "game": "one-eyed-flush",
        "seatCount": 3,
        "players": {"1": {"name": "ann"}, "2": {"name": "bob"}},
        "mySeat": 1,
        "round": view,
        "meters": view["meters"],
    }
    draw(page, scene, screenshots / "render-one-eyed-flush.png")
    assert faces(page, "#seat-1 .hand") == ["Jh", "7s", "3h"]
    assert faces(page, "#seat-2 .hand") == [None, None, None]
    assert faces(page, ".dealer-cards") == [None, "Kd", None]
    # the one-eyed cards are marked wild (R-OEF-1): J♥ in seat 1's hand and the K♦ Flip Card
    assert page.eval_on_selector_all("svg.card.wild", "els => els.map(e => e.dataset.card)") == ["Kd", "Jh"]
    assert page.locator(".dealer-cards svg.card.flip-card").get_attribute("data-card") == "Kd"
    # chips: main $5, jackpot $1, flip $2 with its outcome; seat 2 bets $25
    spots = page.eval_on_selector_all(
        "#seat-1 .spot",
        "els => els.map(e => [e.dataset.wager, e.querySelector('.chip-stack')?.dataset.cents])",
    )
    assert spots == [["main", "500"], ["jackpot", "100"], ["flip", "200"]]  # GET /games's order
    assert page.locator("#seat-1 .spot-option").inner_text() == "One-eyed"
    assert page.locator("#seat-2 .spot[data-wager=main] .chip-stack").get_attribute("data-cents") == "2500"
    assert page.locator(".meter-value").inner_text() == "$5,000.10"
    # seat 1 is to act: highlighted; seat 3 is an open seat
    assert "acting" in (page.locator("#seat-1").get_attribute("class") or "")
    assert page.locator("#seat-3 .player-name").inner_text() == "open seat"


def test_wild_marks_follow_the_tables_rule_set(harness: Any) -> None:
    """Issue 15: a table whose rule set makes other cards wild draws those marked, as its view lists them
    (``wild_cards``): the page knows no wild card of its own."""
    page, _ = harness
    table = Table(make_rules("one-eyed-flush", {"wild-cards": "7s 4c"}), seats=2, source=SeededRandom(1))
    rnd = table.new_round(deck("Jh 4c 2d 7s 9c Kd 3h Td 8s"))
    rnd.place_wager(1, "main", 500)
    rnd.place_wager(2, "main", 500)
    rnd.deal()
    view = rnd.view(1)
    assert view["wild_cards"] == ["4c", "7s"]
    draw(
        page,
        {"game": "one-eyed-flush", "seatCount": 2, "players": {}, "mySeat": 1, "round": view, "meters": {}},
    )
    assert faces(page, "#seat-1 .hand") == ["Jh", "7s", "3h"]
    assert page.eval_on_selector_all("svg.card.wild", "els => els.map(e => e.dataset.card)") == ["7s"]


def test_let_it_ride_community_cards_and_pulled_bet(harness: Any, screenshots: Path) -> None:
    """R-LIR-2/3: the burn card is never shown; the community cards appear face up one at a time."""
    page, _ = harness
    table = Table(make_rules("let-it-ride"), seats=2, source=SeededRandom(1))
    rnd = table.new_round(deck("Ah Kh 2c Qh Jh 3d Th 9s 4c"))
    for seat in (1, 2):
        rnd.place_wager(seat, "bets", 500)
    rnd.place_wager(1, "progressive", 100)
    rnd.place_wager(2, "bonus", 500)
    rnd.deal()
    rnd.act(1, "ride")
    rnd.act(2, "pull")
    view = rnd.view(1)
    scene: dict[str, Any] = {
        "game": "let-it-ride",
        "seatCount": 2,
        "players": {"1": {"name": "ann"}, "2": {"name": "bob"}},
        "mySeat": 1,
        "round": view,
        "meters": view["meters"],
    }
    draw(page, scene)
    assert faces(page, ".community-cards") == ["3d", None]
    assert faces(page, "#seat-1 .hand") == ["Ah", "Qh", "Th"]
    assert faces(page, "#seat-2 .hand") == [None, None, None]
    # seat 2 pulled bet 1 (the view's bets_up): its spot is empty, bets 2 and $ still hold $5 each
    held = page.eval_on_selector_all(
        "#seat-2 .spot",
        "els => els.map(e => [e.dataset.wager, e.querySelector('.chip-stack')?.dataset.cents ?? null])",
    )
    assert held == [
        ["bets 1", None],
        ["bets 2", "500"],
        ["bets $", "500"],
        ["bonus", "500"],
        ["progressive", None],
    ]
    rnd.act(1, "ride")
    rnd.act(2, "ride")
    view = rnd.view(1)
    assert view["phase"] == "settled"
    outcomes: dict[int, dict[str, str]] = {1: {}, 2: {}}  # as the page keeps them: "<wager> <part>" too
    for e in rnd.history:
        if isinstance(e, Settled):
            outcomes[e.seat].update(
                {f"{e.wager} {p}": e.outcome for p in e.part.split()}, **{e.wager: e.outcome}
            )
    results = {
        s["seat"]: {"net": s["returned"] - s["staked"], "hand": "flush", "outcomes": outcomes[s["seat"]]}
        for s in view["seats"]
    }
    scene.update(round=view, results=results)
    draw(page, scene, screenshots / "render-let-it-ride.png")
    classes = page.eval_on_selector_all(
        "#seat-2 .spot", "els => els.map(e => [e.dataset.wager, e.className.match(/outcome-\\w+/)?.[0]])"
    )
    assert classes[:3] == [
        ["bets 1", "outcome-pulled"],
        ["bets 2", "outcome-lose"],
        ["bets $", "outcome-lose"],
    ]
    assert faces(page, ".community-cards") == ["3d", "4c"]
    assert faces(page, "#seat-2 .hand") == ["Kh", "Jh", "9s"]
    assert page.locator("#seat-1 .seat-status .net").inner_text() == "−$16"
    assert page.locator(".meter").count() == 3


def test_final_count_third_cards_face_down(harness: Any, screenshots: Path) -> None:
    """R-FC-2: two up cards each, the third face down for everyone (even its owner)."""
    page, _ = harness
    table = Table(make_rules("final-count"), seats=7, source=SeededRandom(1))
    rnd = table.new_round(deck("4c 6d 9h 8c As 2s 7c 9d Kh"))
    rnd.place_wager(1, "main", 500)
    rnd.place_wager(7, "main", 1000)
    rnd.deal()
    view = rnd.view(1)
    players = {str(s): {"name": n} for s, n in [(1, "ann"), (3, "cy"), (5, "dee"), (7, "bob")]}
    draw(
        page,
        {"game": "final-count", "seatCount": 7, "players": players, "mySeat": 1, "round": view},
        screenshots / "render-final-count.png",
    )
    assert faces(page, "#seat-1 .hand") == ["4c", "8c", None]
    assert faces(page, "#seat-7 .hand") == ["6d", "As", None]
    assert faces(page, ".dealer-cards") == ["9h", "2s", None]
    # no card is drawn for seats without a wager
    assert page.locator("#seat-3 svg.card").count() == 0
    assert page.locator(".meter").count() == 0


def test_full_let_it_ride_table_of_seven(harness: Any, screenshots: Path) -> None:
    """Seven seats, every one playing: each seat shows its own spots and cards, seat 1 on the dealer's left."""
    page, _ = harness
    table = Table(make_rules("let-it-ride"), seats=7, source=SeededRandom(11))
    rnd = table.new_round()
    for seat in range(1, 8):
        rnd.place_wager(seat, "bets", 100 * seat)
        if seat % 2:
            rnd.place_wager(seat, "progressive", 100)
        if seat % 3 == 0:
            rnd.place_wager(seat, "bonus", 2500)
    rnd.deal()
    view = rnd.view(4)
    players = {str(s): {"name": n} for s, n in enumerate(["ann", "bob", "cy", "dee", "eve", "fay", "gus"], 1)}
    draw(
        page,
        {
            "game": "let-it-ride",
            "seatCount": 7,
            "players": players,
            "mySeat": 4,
            "round": view,
            "meters": view["meters"],
        },
        screenshots / "render-let-it-ride-7-seats.png",
    )
    assert faces(page, "#seat-4 .hand") == [c for c in view["seats"][3]["cards"]] and None not in faces(
        page, "#seat-4 .hand"
    )
    for seat in (1, 2, 3, 5, 6, 7):
        assert faces(page, f"#seat-{seat} .hand") == [None, None, None]
    xs = [page.locator(f"#seat-{s}").bounding_box()["x"] for s in range(1, 8)]
    assert xs == sorted(xs, reverse=True)  # seat 1 at the right of the screen: the dealer's left
    stacks = page.eval_on_selector_all(
        "#seat-6 .spot", "els => els.map(e => e.querySelector('.chip-stack')?.dataset.cents ?? null)"
    )
    assert stacks == ["600", "600", "600", "2500", None]


def test_money_text_and_parsing_in_cents(harness: Any) -> None:
    """The page shows and reads money as whole cents only: "12.5" -> 1250, "1.234" / "0" / "-5" refused."""
    page, _ = harness
    got = page.evaluate(
        """async () => {
            const m = await import("/static/js/format.js");
            return {
                shown: [m.money(5000020), m.money(-1600), m.money(100000), m.money(7, { sign: true }), m.money(0)],
                parsed: ["12.5", "$1,000", "0.01", "1.234", "0", "-5", "abc", "1e3", "10."].map(m.parseDollars),
                hands: [m.handName("royal-flush"), m.handName("tens-or-better"), m.handName("Pair (7)")],
            };
        }"""
    )
    assert got["shown"] == ["$50,000.20", "−$16", "$1,000", "+$0.07", "$0"]
    assert got["parsed"] == [1250, 100000, 1, None, None, None, None, None, None]
    assert got["hands"] == ["Royal flush", "Tens or better", "Pair (7)"]


def test_hands_and_totals_are_the_views_never_computed(harness: Any) -> None:
    """Contract 2 (issue 12): a hand's words and total come from ``view.hands`` / ``view.dealer_hand``; without
    them the page shows none (it no longer counts Final Count's cards itself, with or without face-value=0)."""
    page, _ = harness
    table = Table(make_rules("final-count", {"face-value": "0"}), seats=2, source=SeededRandom(1))
    rnd = table.new_round(deck("4c 6d 9h Kc As 2s 7c 9d Kh"))
    rnd.place_wager(1, "main", 500)
    rnd.deal()
    view = {k: v for k, v in rnd.view(1).items() if k not in ("hands", "dealer_hand")}
    scene: dict[str, Any] = {"game": "final-count", "seatCount": 2, "mySeat": 1, "round": view}
    draw(page, scene)
    assert page.locator(".hand-desc").count() == 0
    assert "showing" not in page.locator("#t").inner_text() and "total" not in page.locator("#t").inner_text()
    described = {
        **view,
        "hands": {"1": {"description": "showing 4 (even)", "total": 4}},
        "dealer_hand": {"description": "showing 11 (odd)", "total": 11},
    }
    draw(page, {**scene, "round": described})
    assert page.locator("#seat-1 .hand-desc").inner_text() == "showing 4 (even)"
    assert page.locator(".dealer-area .hand-desc").inner_text() == "showing 11 (odd)"


def test_a_game_without_a_felt_module_gets_the_generic_layout(harness: Any) -> None:
    """A game whose GET /games entry names no felt: one spot per wager of its definition, in its order, the
    dealer's cards from the view; the page's words for it come from GET /games."""
    page, _ = harness
    table = Table(make_rules("one-eyed-flush"), seats=1, source=SeededRandom(3))
    rnd = table.new_round()
    rnd.place_wager(1, "main", 500)
    rnd.place_wager(1, "jackpot", 100)
    rnd.deal()
    game = {**GAMES["one-eyed-flush"], "key": "new-game", "title": "New Game", "felt": None}
    page.evaluate(
        "s => window.renderScene(s)",
        {"game": game, "seatCount": 1, "mySeat": 1, "round": rnd.view(1), "meters": rnd.view(1)["meters"]},
    )
    spots = page.eval_on_selector_all(
        "#seat-1 .spot",
        "els => els.map(e => [e.dataset.wager, e.querySelector('.chip-stack')?.dataset.cents ?? null])",
    )
    assert spots == [["main", "500"], ["jackpot", "100"], ["flip", None]]
    assert page.locator(".felt-title").text_content() == "NEW GAME"
    assert len(faces(page, ".dealer-cards")) == 3
    assert page.locator("svg.card.wild").count() == 0  # wild marks are a felt module's, not the generic one's
    assert page.locator(".meter-name").inner_text() == GAMES["one-eyed-flush"]["meters"][0]["title"].upper()
