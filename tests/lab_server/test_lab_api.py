"""The Math lab's API (issue 15): ``GET /games`` publishes every parameter, ``POST /lab/analyze`` answers
``analysis.api.analyze_game``'s figures for the same rules (off the event loop, a bounded cache, bounded
concurrent solves; the solver processes: test_lab_solver.py), a refused value names its field, ``POST /lab/game-file`` is ``gamefile.dumps``."""

from __future__ import annotations

import asyncio
import threading
import time
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient
from lab_support import CONVERTED, bad_value, changed_rule_set
from solver_support import lab_threads

from tablegames.analysis.api import analyze_game
from tablegames.rules import gamefile, registry
from tablegames.rules.definition import GameDefinition
from tablegames.rules.parameters import changed_values
from tablegames.server.errors import ApiError, FieldError
from tablegames.server.labsolver import LabSolver
from tablegames.server.rulesets import resolve

pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("d", registry.DEFINITIONS, ids=lambda d: d.key)
def test_games_publish_every_parameter(lab: TestClient, d: GameDefinition) -> None:
    game = next(g for g in lab.get("/games").json() if g["key"] == d.key)
    rules = d.make_rules()
    assert [p["name"] for p in game["parameters"]] == [p.name for p in d.parameters]
    for got, p in zip(game["parameters"], d.parameters, strict=True):
        assert got["kind"] == p.kind and got["help"] == p.help and got["group"] == p.group
        assert got["default"] == (p.value(rules) if p.listed else "")
        assert got["choices"] == list(p.choices) and got["allowed"] == p.allowed
        assert (got["rank"], got["structural"], got["listed"], got["ruling"]) == (
            p.rank,
            p.structural,
            p.listed,
            p.ruling,
        )
        for bound, value in (("low", p.low), ("high", p.high)):
            assert (None if got[bound] is None else Fraction(got[bound])) == value
        if p.kind == "preset":  # what it writes: every entry some choice of it changes
            for c in p.choices:
                after = d.rule_set(p.put(rules, p.parse(c)))
                assert {k for k, v in after.items() if v != d.rule_set(rules)[k]} <= set(got["writes"])


@pytest.mark.parametrize("d", CONVERTED, ids=lambda d: d.key)
def test_analyze_gives_analyze_games_figures_for_the_same_rules(lab: TestClient, d: GameDefinition) -> None:
    options = changed_rule_set(d)
    res = lab.post("/lab/analyze", json={"game": d.key, "rules": options, "name": "mine"})
    assert res.status_code == 200, res.text
    got = res.json()
    rules = d.make_rules(options)
    a = analyze_game(rules)
    assert got["rules"] == d.rule_set(rules) and got["name"] == "mine"
    assert got["changed"] == changed_values(d.parameters, rules, d.make_rules())
    assert options.items() <= got["changed"].items()  # (a changed entry may rename its table too)
    assert got["house_edge_exact"] == str(a.house_edge) != str(analyze_game(d.make_rules()).house_edge)
    assert got["element_of_risk_exact"] == str(a.element_of_risk)
    assert got["hit_frequency_exact"] == str(a.p_win)
    assert got["std_dev"] == pytest.approx(a.std_dev, rel=1e-12)
    assert got["total_combinations"] == a.total
    assert [(o["outcome"], o["combinations"], o["category"]) for o in got["outcomes"]] == [
        (o.name, o.combinations, o.category)
        for o in a.outcomes  # one vocabulary: the engine's outcome (issue 21)
    ]
    assert [(s["name"], s["house_edge_exact"]) for s in got["side_bets"]] == [
        (n, str(b.house_edge)) for n, b in a.side_bets.items()
    ]
    assert got["strategy"]["summary"] == a.strategy_summary
    chart = a.strategy.get("chart")
    if chart:
        c = got["strategy"]["chart"]
        assert [r["label"] for r in c["rows"]] == [str(k) for k in chart]
        for row in c["rows"]:
            assert {col: v for col, v in zip(c["columns"], row["cells"], strict=True) if v} == chart[
                row["label"]
            ]
    again = lab.post("/lab/analyze", json={"game": d.key, "rules": options}).json()
    assert again["cached"] and again["seconds"] == 0 and again["house_edge_exact"] == got["house_edge_exact"]


@pytest.mark.parametrize("d", CONVERTED, ids=lambda d: d.key)
def test_a_bad_value_is_refused_naming_its_field(lab: TestClient, d: GameDefinition) -> None:
    for p in [p for p in d.parameters if p.listed and p.kind != "text"][:5]:  # (any text is a name)
        res = lab.post("/lab/analyze", json={"game": d.key, "rules": {p.name: bad_value(p)}})
        assert res.status_code == 400, (p.name, res.text)
        err = res.json()["error"]
        assert err["code"] == "bad_rules" and err["field"] == p.name and p.name in err["message"]
    res = lab.post("/lab/analyze", json={"game": d.key, "rules": {"no-such-rule": "1"}})
    assert res.json()["error"]["field"] == "no-such-rule" and "known rules" in res.json()["error"]["message"]
    p = next(p for p in d.parameters if p.listed and p.kind != "text")
    text = gamefile.dumps(gamefile.GameFile(d.key, "bad", d.make_rules())).replace(
        f"{p.name.rpartition('.')[2]} = {gamefile._toml_value(p.value(d.make_rules()))}",
        f"{p.name.rpartition('.')[2]} = {gamefile._toml_value(bad_value(p))}",
        1,
    )
    res = lab.post("/lab/analyze", json={"game_file": text})
    assert res.status_code == 400 and res.json()["error"]["field"] == p.name, res.text
    assert lab.post("/lab/analyze", json={"game": "poker"}).json()["error"]["field"] == "game"


def test_a_game_file_is_read_and_written(lab: TestClient) -> None:
    for d in CONVERTED:
        options = changed_rule_set(d)
        res = lab.post(
            "/lab/game-file",
            json={"game": d.key, "rules": options, "name": "House rules 3%", "description": "for the lab"},
        )
        assert res.status_code == 200, res.text
        got = res.json()
        assert (got["game"], got["name"], got["file_name"]) == (d.key, "House rules 3%", "house-rules-3.toml")
        assert got["text"] == gamefile.dumps(
            gamefile.GameFile(d.key, "House rules 3%", d.make_rules(options), "for the lab")
        )
        back = lab.post("/lab/analyze", json={"game_file": got["text"]}).json()
        assert back["game"] == d.key and back["name"] == "House rules 3%"
        assert back["rules"] == d.rule_set(d.make_rules(options))


def test_the_page_is_served_and_linked_from_the_lobby(lab: TestClient) -> None:
    page = lab.get("/lab")
    assert page.status_code == 200 and "js/lab.js" in page.text
    assert 'href="/lab"' in lab.get("/").text


# --- the solver: off the event loop, shared solves, a bounded cache and queue --------------------------------


def test_solves_are_shared_cached_and_bounded() -> None:
    d = CONVERTED[0]
    calls: list[str] = []
    release = threading.Event()

    def slow_figures(job: Any) -> dict[str, Any]:
        calls.append(threading.current_thread().name)
        release.wait(10)
        return {"house_edge_exact": str(len(calls)), "name": None, "seconds": 0.5, "cached": False}

    rule_set = resolve(d.key, changed_rule_set(d), None, None, None)

    async def scenario() -> None:
        solver = LabSolver(solves=1, cache=2, pending=2, executor=lab_threads, solve=slow_figures)
        loop_thread = threading.current_thread().name
        # (the wager size is part of a solve's key: bets 100, 200, ... are distinct solves)
        first = [asyncio.ensure_future(solver.analyze(rule_set, None, {}, f"c{i}")) for i in range(3)]
        other = asyncio.ensure_future(solver.analyze(rule_set, 100, {}, "c3"))
        await asyncio.sleep(0.2)
        with pytest.raises(ApiError) as busy:  # two distinct solves in flight: a third is refused
            await solver.analyze(rule_set, 200, {}, "c4")
        assert busy.value.code == "busy" and busy.value.status == 503
        release.set()
        answers = await asyncio.gather(*first, other)
        assert len(calls) == 2  # three identical requests, one solve
        assert all(name.startswith("lab") and name != loop_thread for name in calls)
        assert {a["house_edge_exact"] for a in answers[:3]} == {answers[0]["house_edge_exact"]}
        hit = await solver.analyze(rule_set, None, {})
        assert hit["cached"] and hit["seconds"] == 0.0 and len(calls) == 2
        for bet in (200, 300, 400):  # the cache keeps the last two answers only
            await solver.analyze(rule_set, bet, {})
        assert len(solver.cache) == 2 and len(calls) == 5
        await solver.analyze(rule_set, None, {})  # dropped from the cache: solved again
        assert len(calls) == 6
        solver.close()

    asyncio.run(scenario())


def test_a_slow_solve_does_not_hold_up_other_requests(lab: TestClient) -> None:
    """The event loop answers /health while a solve runs (the solve is elsewhere)."""
    release = threading.Event()

    def slow_figures(job: Any) -> dict[str, Any]:
        release.wait(20)
        raise FieldError("released", "bust-limit")

    lab.app.state.lab = LabSolver(executor=lab_threads, solve=slow_figures)  # type: ignore[attr-defined]
    d = CONVERTED[0]
    done: list[int] = []
    t = threading.Thread(
        target=lambda: done.append(
            lab.post("/lab/analyze", json={"game": d.key, "rules": changed_rule_set(d)}).status_code
        )
    )
    t.start()
    time.sleep(0.3)
    assert lab.get("/health").json() == {"ok": True} and not done  # answered while the solve waits
    release.set()
    t.join(30)
    assert done == [400]
