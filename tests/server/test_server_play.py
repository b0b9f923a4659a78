"""Play over the WebSocket: full rounds of each game with two players, money in the ledger, recall and history,
idempotent wagers, turn timeouts and the betting window, hints."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from test_server_support import every_wager, play_round, rigged_deck

from server_harness import Harness
from tablegames.rules import registry
from tablegames.rules.definition import GameDefinition

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_two_players_play_rounds_and_the_ledger_balances(
    make_server: Callable[..., Harness], definition: GameDefinition
) -> None:
    """Every registered game: two players, every wager of the game's definition, two rounds."""
    game = definition.key
    h = make_server()
    table = h.table(game)
    tok_a, hdr_a = h.player("ann", 50_000)
    tok_b, _hdr_b = h.player("bob", 50_000)
    a, b = h.ws(tok_a, table), h.ws(tok_b, table)
    assert a.request(type="sit", seat=2)["seat"] == 2
    assert b.request(type="sit", seat=5)["seat"] == 5
    wagers, options, cost = every_wager(definition)
    round_ids = []
    for _ in range(2):
        results = play_round({2: a, 5: b}, {2: wagers, 5: wagers}, {2: options, 5: options})
        r_a = results[2]
        round_ids.append(r_a["round_id"])
        by_seat = {r["seat"]: r for r in r_a["results"]}
        assert set(by_seat) == {2, 5}
        assert by_seat[2]["player"] == "ann" and by_seat[5]["player"] == "bob"
        assert by_seat[2]["staked"] == cost
        assert r_a["balance"] == h.balance(hdr_a)
    # balances follow from the recorded rounds; money is conserved; the ledger balances
    hist = h.client.get("/history", params={"player": "ann"}, headers=hdr_a).json()  # her own (issue 11)
    assert [r["round_id"] for r in hist] == round_ids[::-1]
    nets = sum(p["net"] for r in hist for p in r["players"] if p["player"] == "ann")
    assert h.balance(hdr_a) == 50_000 + nets
    first = hist[-1]["players"][0]
    assert first["balance_before"] == 50_000 and first["balance_after"] == 50_000 + first["net"]
    totals = h.totals()
    assert totals["in_play"] == 0
    assert sum(totals.values()) == 0
    h.check_ledger()
    # recall: every card as dealt, every decision by the player, settlements
    rec = h.client.get(f"/rounds/{round_ids[0]}").json()
    assert rec["game"] == game and rec["status"] == "settled" and not rec["recovered"]
    kinds = [e["type"] for e in rec["events"]]
    assert kinds[0] == "round_started" and kinds[-1] == "round_ended"
    dealt = [e for e in rec["events"] if e["type"] == "card_dealt"]
    assert all(e["card"] for e in dealt) and len({e["position"] for e in dealt}) == len(dealt)
    assert all(e["by"] == "player" for e in rec["events"] if e["type"] == "action")
    assert {p["seat"] for p in rec["players"]} == {2, 5}
    assert rec["fairness"] is None  # seeded test decks; live decks carry the provably fair record
    if any(w.feeds for w in definition.wagers) and definition.meters(definition.make_rules()):
        assert {j["kind"] for j in rec["jackpot"]} >= {"contribution"}


def test_live_round_has_a_verifiable_provably_fair_record(make_server: Callable[..., Harness]) -> None:
    from tablegames.randomness import RoundRecord, verify_record

    h = make_server(source_factory=None)
    table = h.table("final-count")
    tok, _ = h.player("liv")
    ws = h.ws(tok, table)
    ws.request(type="sit")
    ack = ws.request(type="wager", wagers={"main": 100})
    st = ws.until(lambda m: m["type"] == "state" and m["round_id"] == ack["round_id"])
    commitment = st["commitment"]
    assert len(commitment) == 64
    while st["round"]["phase"] == "deciding":
        ws.request(type="act", action="stand")
        st = ws.until(lambda m: m["type"] == "state")
    ws.until(lambda m: m["type"] == "round_result")
    rec = h.client.get(f"/rounds/{ack['round_id']}").json()
    assert rec["fairness"]["fairness"]["commitment"] == commitment
    assert verify_record(RoundRecord.from_json(rec["fairness"])).ok


def test_repeated_wager_request_is_applied_once(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    table = h.table("one-eyed-flush")
    tok, hdr = h.player("ida", 10_000)
    tok2, _ = h.player("joe", 10_000)
    ws, other = h.ws(tok, table), h.ws(tok2, table)
    ws.request(type="sit", seat=1)
    other.request(type="sit", seat=2)
    first = ws.request(type="wager", request_id="same", wagers={"main": 500})
    again = ws.request(type="wager", request_id="same", wagers={"main": 500})
    assert first["type"] == again["type"] == "ack"
    assert not first["duplicate"] and again["duplicate"] and again["round_id"] == first["round_id"]
    assert h.balance(hdr) == 9_500
    st = ws.next_state()
    assert st["round"]["seats"][0]["wagers"] == {"main": 500}
    assert [e["type"] for e in st["events"]].count("wager_placed") == 1
    h.check_ledger()


def test_timeouts_take_the_documented_defaults_and_do_not_hold_up_others(
    make_server: Callable[..., Harness],
) -> None:
    h = make_server(betting_seconds=0.2, turn_seconds=0.3)
    for definition in registry.DEFINITIONS:
        game, default = definition.key, definition.default_action
        table = h.table(game)
        tok_a, _ = h.player(f"a-{game}")
        tok_b, _ = h.player(f"b-{game}")
        tok_c, _ = h.player(f"c-{game}")
        a, b, c = h.ws(tok_a, table), h.ws(tok_b, table), h.ws(tok_c, table)
        for w, seat in ((a, 1), (b, 2), (c, 3)):
            w.request(type="sit", seat=seat)
        main = {definition.main_wager.name: 500}
        a.request(type="wager", wagers=main)
        b.request(type="wager", wagers=main)
        # seat 3 does not wager: the betting window closes and the round is dealt without it;
        # nobody acts: every decision is taken by the timeout default
        result = a.until(lambda m: m["type"] == "round_result")
        assert {r["seat"] for r in result["results"]} == {1, 2}
        rec = h.client.get(f"/rounds/{result['round_id']}").json()
        actions = [e for e in rec["events"] if e["type"] == "action"]
        assert actions and all(e["by"] == "timeout" and e["action"] == default for e in actions)
        if game == "let-it-ride":
            assert len(actions) == 4  # both bets of both seats pulled
    h.check_ledger()


def test_hints_give_the_best_action_and_the_cost_of_the_others(make_server: Callable[..., Harness]) -> None:
    from tablegames.server import hints

    h = make_server()
    table = h.table("let-it-ride")
    tok, _ = h.player("hal")
    ws = h.ws(tok, table)
    ws.request(type="sit")
    hints.strategy_for(h.server.runners[table].rules, 500, wait=True)  # solved before the deal
    assert ws.request(type="hints", on=True)["on"] is True
    ws.request(type="wager", wagers={"bets": 500})
    hint = ws.until(lambda m: m["type"] == "hint")
    assert hint["source"] == "exact" and hint["seat"] == 1
    costs = {a["action"]: a["cost"] for a in hint["actions"]}
    evs = {a["action"]: a["ev"] for a in hint["actions"]}
    assert set(costs) == {"pull", "ride"} and costs[hint["best"]] == 0.0
    other = "ride" if hint["best"] == "pull" else "pull"
    assert costs[other] == pytest.approx(evs[hint["best"]] - evs[other]) and costs[other] >= 0
    ws.request(type="hints", on=False)
    ws.request(type="act", action=hint["best"])
    st = ws.until(lambda m: m["type"] in ("state", "hint"))
    assert st["type"] == "state"  # hints are off now: no hint for the second decision


def test_a_hint_names_its_decision_and_the_tables_strategy_is_solved_when_it_opens(
    make_server: Callable[..., Harness],
) -> None:
    """Issue 24: a server preparing hints asks for a table's strategy when the table opens (so the first hand's
    hint is exact), and each hint names the decision it answers (the page draws it at that decision only)."""
    from tablegames.server import hints

    h = make_server(prepare_hints=True)
    table = h.table("three-card-poker")
    rules = h.server.runners[table].rules
    assert not hints.prepare(rules)  # asked already when the table opened (queued, solving or solved)
    for _ in range(600):
        if hints.strategy_for(rules) is not None:
            break
        time.sleep(0.1)
    assert hints.strategy_for(rules) is not None
    tok, _ = h.player("hal")
    ws = h.ws(tok, table)
    ws.request(type="sit")
    assert ws.request(type="hints", on=True)["on"] is True
    ws.request(type="wager", wagers={"ante": 500})
    state = ws.until(lambda m: m["type"] == "state" and m["decision"] is not None)
    hint = ws.until(lambda m: m["type"] == "hint")
    assert hint["source"] == "exact" and hint["decision"] == state["decision"]


def test_jackpot_hit_and_linked_meter_across_tables(make_server: Callable[..., Harness]) -> None:
    # Table A deals seat 1 the One Eyed Flush (J♥ J♠ K♦: R-OEF-9, 100% of the meter); table B feeds the meter.
    decks = {}

    def deck_for(table_id: int) -> list[int]:
        return decks[table_id]

    h = make_server(deck_factory=deck_for)
    ta, tb = h.table("one-eyed-flush"), h.table("one-eyed-flush")
    # one seat: positions seat,dealer,seat,dealer,seat,dealer
    decks[ta] = rigged_deck(["Jh", "2c", "Js", "3c", "Kd", "4c"])
    decks[tb] = rigged_deck(["2d", "5c", "7d", "6c", "9h", "8c"])
    tok_a, hdr_a = h.player("amy", 10_000)
    tok_b, _hdr_b = h.player("ben", 10_000)
    wa, wb = h.ws(tok_a, ta), h.ws(tok_b, tb)
    wa.request(type="sit")
    wb.request(type="sit")
    before = h.totals()
    # ben's jackpot wager at table B adds 10 cents to the shared meter
    play_round({1: wb}, {1: {"main": 500, "jackpot": 100}}, choose=lambda s, st: "stand")
    meter = {m["meter"]: m["value"] for m in h.client.get("/jackpots").json()}["one-eyed-flush"]
    assert meter == 500_000 + 10
    pushed = wa.until(lambda m: m["type"] == "state" and m["meters"]["one-eyed-flush"] == 500_010)
    assert pushed["round"] is None  # table A shows the linked meter live, pushed without a round of its own
    res = play_round({1: wa}, {1: {"main": 500, "jackpot": 100}}, choose=lambda s, st: "stand")[1]
    assert res["jackpot_hits"][0]["amount"] == 500_000 + 10 + 10  # both contributions, linked
    meter = {m["meter"]: m["value"] for m in h.client.get("/jackpots").json()}["one-eyed-flush"]
    assert meter == 500_000  # reset (seeded again from the house)
    rec = h.client.get(f"/rounds/{res['round_id']}").json()
    main = next(e for e in rec["events"] if e["type"] == "settled" and e["wager"] == "main")
    assert h.balance(hdr_a) == 10_000 - 600 + main["returned"] + 500_020
    hist = h.client.get("/jackpots/history", params={"game": "one-eyed-flush"}).json()
    assert [e["kind"] for e in hist[:4]] == ["seed", "hit", "contribution", "contribution"]
    assert hist[1]["player"] == "amy"
    after = h.totals()
    assert sum(after.values()) == sum(before.values()) == 0
    h.check_ledger()


def test_envy_bonus_is_a_ledger_payment(make_server: Callable[..., Harness]) -> None:
    # Two seats with the Progressive; seat 1 makes a Royal Flush (Ah Kh Qh + community Jh Th), R-LIR-8.
    h = make_server(deck_factory=lambda t: deck)
    table = h.table("let-it-ride")
    # order: s1 s2 dealer, s1 s2 dealer, s1 s2 dealer; dealer's cards: burn, community 1, community 2
    deck = rigged_deck(["Ah", "2c", "9d", "Kh", "3c", "Jh", "Qh", "5d", "Th"])
    tok1, hdr1 = h.player("roy", 100_000)
    tok2, hdr2 = h.player("eve", 100_000)
    w1, w2 = h.ws(tok1, table), h.ws(tok2, table)
    w1.request(type="sit", seat=1)
    w2.request(type="sit", seat=2)
    wag = {"bets": 100, "progressive": 100}
    res = play_round({1: w1, 2: w2}, {1: wag, 2: wag}, choose=lambda s, st: "ride" if s == 1 else "pull")
    envy = res[1]["envy"]
    assert [(e["seat"], e["from_seat"], e["amount"]) for e in envy] == [(2, 1, 100_000)]
    assert res[1]["jackpot_hits"][0]["meter"] == "mega"
    mega = res[1]["jackpot_hits"][0]["amount"]
    assert mega == 5_000_000 + 10 + 10
    # roy: 3 bets of 100 ride at 1000 to 1 (R-LIR-4; under the R-LIR-5 cap) + 100% of the Mega meter
    assert h.balance(hdr1) == 100_000 - 400 + 300 + 300_000 + mega
    # eve pulled two bets (returned), lost "$" and the progressive, and gets the Envy Bonus
    eve_rec = next(
        p for p in h.client.get(f"/rounds/{res[1]['round_id']}").json()["players"] if p["seat"] == 2
    )
    assert h.balance(hdr2) == 100_000 + eve_rec["net"]
    assert eve_rec["returned"] >= 100_000
    h.check_ledger()


def test_the_round_is_dealt_when_the_last_player_without_a_wager_leaves(
    make_server: Callable[..., Harness],
) -> None:
    """The deal comes when every seated player has wagered: also when the one who had not leaves (before, the
    table waited for the betting window; found by the hardening state machine)."""
    h = make_server(betting_seconds=600.0)
    table = h.table("three-card-poker", seats=2)
    tok_a, _ = h.player("ann")
    tok_b, _ = h.player("bob")
    a, b = h.seated(tok_a, table), h.seated(tok_b, table)
    ack = a.request(type="wager", wagers={"ante": 500})
    assert ack["type"] == "ack"
    state = b.state()
    assert state["round"]["phase"] == "betting"  # bob has not wagered: no deal yet
    assert b.request(type="leave")["type"] == "ack"
    dealt = a.until(lambda m: m["type"] == "state" and m["round"] and m["round"]["phase"] != "betting")
    assert dealt["round"]["phase"] == "deciding" and dealt["round"]["to_act"] == 1
