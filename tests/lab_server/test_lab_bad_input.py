"""Issue 20, defects 1, 4 and 6: hostile Math lab input and tables that pay the players.

- A lab request's rule set is read on the REST threads, never on the event loop (``/health`` answers meanwhile).
- Every hostile value (huge digits or exponents, Unicode digits, deep TOML, a huge ``bet_cents``, a negative
  meter) is a ``400 bad_rules`` naming its field with one short log line; the endpoints, fuzzed with every kind
  of value a parameter can take as text, answer 200 or 400 ``bad_rules``, never a 500.
- ``POST /tables`` refuses rules whose exact house edge (any wager's) is below the server's floor unless the
  request names who confirms it; the confirmation is stored with the table and logged.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lab_support import CONVERTED, changed_rule_set
from solver_support import lab_threads
from sqlalchemy import select

from hostile_values import deep_tomls, value_text
from server_harness import ADMIN, Harness
from tablegames.analysis.api import analyze_game, analyzer
from tablegames.rules import gamefile, registry
from tablegames.server.app import create_app
from tablegames.server.db import GameTable
from tablegames.server.labsolver import Job, LabSolver, figures
from tablegames.server.limits import Limits
from tablegames.server.routes import lab as lab_route
from tablegames.server.rulesets import resolve

pytestmark = pytest.mark.timeout(300)
OPERATOR = {"X-Admin-Token": ADMIN}
FC = registry.get("final-count")  # (the registry's fastest solve; every game is read by the same code)
LIR = next(d for d in CONVERTED if any(p.kind == "money" for p in d.parameters) and d.key != FC.key)


@pytest.fixture(scope="module")
def shared_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One lab server for every example of a property test."""
    with lab_client(tmp_path_factory.mktemp("fuzz")) as client:
        yield client


@contextmanager
def lab_client(tmp_path: Any) -> Iterator[TestClient]:
    """A lab server whose 500s are answers (not raised in the test), its rate limits out of the way."""
    app = create_app(
        f"sqlite:///{tmp_path / 'bad.sqlite3'}",
        admin_token=ADMIN,
        limits=Limits(http_rate=1e6, http_burst=1e6),
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def post_json(client: TestClient, path: str, text: str, **kw: Any) -> Any:
    return client.post(path, content=text.encode(), headers={"content-type": "application/json", **kw})


def refused(res: Any, field: str | None, code: str = "bad_rules") -> dict[str, Any]:
    assert res.status_code == 400, res.text[:300]
    err: dict[str, Any] = res.json()["error"]
    assert err["code"] == code and err["field"] == field, err
    assert len(res.text) < 1000, res.text[:300]  # (a huge value is never echoed)
    return err


def _param(d: Any, kind: str) -> str:
    return next(p.name for p in d.parameters if p.kind == kind)


HOSTILE_REQUESTS: list[tuple[str, str | None]] = [
    # (the request body as JSON text, the field the refusal names); main: 500 with a traceback, or worse
    (json.dumps({"game": LIR.key, "rules": {_param(LIR, "money"): "$1e100"}}), _param(LIR, "money")),
    (json.dumps({"game": LIR.key, "rules": {_param(LIR, "money"): "$1e10000000"}}), _param(LIR, "money")),
    (json.dumps({"game": LIR.key, "rules": {_param(LIR, "fraction"): "1e-5000"}}), _param(LIR, "fraction")),
    (
        json.dumps({"game": LIR.key, "rules": {_param(LIR, "fraction"): "1e-10000000"}}),
        _param(LIR, "fraction"),
    ),
    (json.dumps({"game": FC.key, "rules": {_param(FC, "int"): "²"}}), _param(FC, "int")),
    (json.dumps({"game": FC.key, "rules": {_param(FC, "int"): "--5"}}), _param(FC, "int")),
    (json.dumps({"game": FC.key, "rules": {_param(FC, "int"): "9" * 5000}}), _param(FC, "int")),
    (
        json.dumps({"game": FC.key, "rules": {_param(FC, "int"): 7}}).replace("7", "9" * 4000),
        _param(FC, "int"),
    ),
    (json.dumps({"game": LIR.key, "bet_cents": 10**18}), "bet_cents"),
    (json.dumps({"game": LIR.key, "bet_cents": -5}), "bet_cents"),
    *((json.dumps({"game_file": t}), None) for t in deep_tomls(FC.key) if len(t) < 60_000),
]


def test_hostile_lab_requests_are_400_bad_rules_naming_the_field_with_one_log_line(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Regression (main: '$1e100' was accepted as a cap of 10^102 cents, '$1e10000000' froze the server for
    10 s, the others answered a plain-text 500 with up to 190 KB of traceback each)."""
    meter = analyzer(LIR.make_rules()).meter_names(LIR.make_rules())[0]  # (a game with meters)
    requests = [*HOSTILE_REQUESTS, (json.dumps({"game": LIR.key, "meters": {meter: -5}}), f"meters.{meter}")]
    with lab_client(tmp_path) as lab:
        for path in ("/lab/analyze", "/lab/game-file"):
            for text, field in requests:
                caplog.clear()
                with caplog.at_level(logging.INFO):
                    res = post_json(lab, path, text)
                refused(res, field)
                lines = [r for r in caplog.records if r.name.startswith(("tablegames", "uvicorn", "fastapi"))]
                assert len(lines) == 1 and lines[0].exc_info is None, [r.getMessage()[:200] for r in lines]
                assert "refused" in lines[0].getMessage() and len(lines[0].getMessage()) < 800
        big = json.dumps({"game": FC.key, "rules": {_param(FC, "int"): 7}}).replace("7", "9" * 5000)
        res = post_json(lab, "/lab/analyze", big)  # (beyond what the JSON reader takes: not our parse)
        assert res.status_code == 422 and res.json()["error"]["code"] == "bad_json"
        assert lab.get("/health").json() == {"ok": True}


def test_a_negative_meter_is_refused_as_the_cli_refuses_it(tmp_path: Any) -> None:
    """Regression (main: a negative meter was analysed; ``--meter mega=-5`` is refused by the CLI)."""
    names = analyzer(LIR.make_rules()).meter_names(LIR.make_rules())
    with lab_client(tmp_path) as lab:
        for meters in ({names[0]: -1}, {names[0]: 10**15}, {"no-such-meter": 5}):
            res = lab.post("/lab/analyze", json={"game": LIR.key, "meters": meters})
            err = refused(res, f"meters.{next(iter(meters))}")
            assert next(iter(meters)) in err["message"]


@pytest.mark.parametrize("path", ["/lab/analyze", "/lab/game-file"])
def test_a_lab_request_is_read_off_the_event_loop(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """Regression (main: the rule set was read in the async handler: /health waited for it)."""
    release = threading.Event()
    threads: list[str] = []
    real = lab_route.resolve

    def slow_resolve(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        release.wait(5)
        return real(*args)

    monkeypatch.setattr(lab_route, "resolve", slow_resolve)
    with lab_client(tmp_path) as lab:
        done: list[int] = []
        body = {"game": FC.key, "rules": changed_rule_set(FC)}
        t = threading.Thread(target=lambda: done.append(lab.post(path, json=body).status_code))
        t.start()
        while not threads:
            time.sleep(0.01)
        assert lab.get("/health").json() == {"ok": True}
        assert not done  # /health answered while the rule set was still being read
        release.set()
        t.join(30)
        assert done == [200] and threads[0].startswith("rest")


# --- the endpoints fuzzed -------------------------------------------------------------------------------


def _rules(d: Any) -> st.SearchStrategy[dict[str, str | int]]:
    params = [p for p in d.parameters if p.listed or p.kind == "preset"]
    return st.lists(st.sampled_from(params), min_size=1, max_size=3, unique_by=lambda p: p.name).flatmap(
        lambda ps: st.fixed_dictionaries({p.name: value_text(p) for p in ps})
    )


def _check(res: Any, sent: dict[str, Any]) -> None:
    assert res.status_code in (200, 400), (sent, res.status_code, res.text[:300])
    if res.status_code == 400:
        err = res.json()["error"]
        assert err["code"] == "bad_rules", err
        assert err["field"] in {*sent.get("rules", {}), "bet_cents", None} or str(err["field"]).startswith(
            "meters."
        ), err


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_game_file_endpoint_answers_200_or_bad_rules_for_any_value(
    tmp_path: Any, data: st.DataObject
) -> None:
    d = data.draw(st.sampled_from(CONVERTED))
    body = {"game": d.key, "rules": data.draw(_rules(d))}
    with lab_client(tmp_path) as lab:
        res = lab.post("/lab/game-file", json=body)
    _check(res, body)
    if res.status_code == 200:  # the text it answers reads back to the rules it was given
        loaded = gamefile.loads(res.json()["text"])
        assert loaded.game == d.key and loaded.rules == d.make_rules(
            {k: str(v) for k, v in body["rules"].items()}
        )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_analyze_endpoint_reads_any_request_to_a_solve_or_bad_rules(
    shared_lab: TestClient, data: st.DataObject
) -> None:
    """Every game's values, wager sizes and meters; the solve itself replaced (its real runs: below)."""
    solved: list[Any] = []
    plain = resolve(FC.key, {}, None, None, None)
    answer = figures(Job(FC.key, plain.rules, plain.rule_set, None, ()))  # (a complete answer's shape)

    def fake_figures(job: Job) -> dict[str, Any]:
        solved.append((job.rules, job.bet_cents, dict(job.meters)))
        return {**answer, "game": job.game}

    d = data.draw(st.sampled_from(CONVERTED))
    body: dict[str, Any] = {"game": d.key, "rules": data.draw(_rules(d))}
    anything = st.one_of(st.integers(-(10**20), 10**20), st.sampled_from([0, 1, 10**11, 10**11 + 1, 2**63]))
    if data.draw(st.booleans()):
        body["bet_cents"] = data.draw(anything)
    if data.draw(st.booleans()):
        body["meters"] = data.draw(
            st.dictionaries(st.sampled_from(["mega", "major", "jackpot", "x"]), anything)
        )
    lab_route.stop(shared_lab.app)  # (a solver of its own: its cache keeps none of these answers)
    app: Any = shared_lab.app
    app.state.lab = LabSolver(executor=lab_threads, solve=fake_figures)
    try:
        res = shared_lab.post("/lab/analyze", json=body)
    finally:
        lab_route.stop(shared_lab.app)
    _check(res, body)
    assert (res.status_code == 200) == bool(solved)
    if solved:
        _, bet, meters = solved[0]
        assert bet is None or 1 <= bet <= 10**11
        assert all(0 <= v <= 10**11 for v in meters.values())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_real_solves_of_fuzzed_rule_sets_answer_200_or_bad_rules(
    shared_lab: TestClient, data: st.DataObject
) -> None:
    body = {"game": FC.key, "rules": data.draw(_rules(FC))}
    res = shared_lab.post("/lab/analyze", json=body)
    _check(res, body)
    if res.status_code == 200:
        rules = FC.make_rules({k: str(v) for k, v in body["rules"].items()})
        assert res.json()["house_edge_exact"] == str(analyze_game(rules).house_edge)


# --- a table that pays the players ----------------------------------------------------------------------


def stored(h: Harness, table_id: int) -> GameTable:
    with h.server.sessions() as s:
        row = s.scalar(select(GameTable).where(GameTable.id == table_id))
        assert row is not None
        return row


def paying(d: Any) -> dict[str, str]:
    """A rule set of ``d`` whose main wager pays the players (its paying entries raised, one at a time, until
    it does)."""
    options: dict[str, str] = {}
    rules = d.make_rules()
    for p in d.parameters:
        if p.kind in ("int", "odds") and not p.structural and p.value(rules) not in ("-", "0"):
            options[p.name] = str(min(int(p.value(rules)) * 6 + 3, int(p.high or 1000)))
            if analyze_game(d.make_rules(options)).house_edge < 0:
                return options
    raise AssertionError(f"{d.key}: no rule set found that pays the players")


@pytest.mark.parametrize("d", CONVERTED, ids=lambda d: d.key)
def test_a_table_that_pays_the_players_opens_only_with_a_named_confirmation(
    make_server: Callable[..., Harness],
    d: Any,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression (main: POST /tables answered 201 for a house edge of -8.95%)."""
    solves: list[int] = []

    def counted(job: Job) -> dict[str, Any]:
        solves.append(1)
        return figures(job)

    h = make_server()
    app: Any = h.client.app
    app.state.lab = LabSolver(executor=lab_threads, solve=counted)  # (threads: the count is this process's)
    options = paying(d)
    edge = analyze_game(d.make_rules(options)).house_edge
    body = {"game": d.key, "name": "Pays", "rules": options}
    err = refused(
        h.client.post("/tables", json=body, headers=OPERATOR), "confirm_negative_edge", "edge_below_floor"
    )
    assert str(edge) in err["message"] and "pay the players" in err["message"]
    assert h.client.get("/tables").json() == []  # nothing created
    bad = h.client.post("/tables", json={**body, "confirm_negative_edge": "\x00"}, headers=OPERATOR)
    refused(bad, "confirm_negative_edge", "bad_message")
    with caplog.at_level(logging.WARNING):
        res = h.client.post(
            "/tables", json={**body, "confirm_negative_edge": "Ana Operator"}, headers=OPERATOR
        )
    assert res.status_code == 201, res.text
    table = res.json()
    record = table["edge_confirmation"]
    assert record["by"] == "Ana Operator" and record["edges"]["main"] == str(edge) and record["floor"] == "0"
    assert stored(h, table["table_id"]).edge_confirmation == record  # with the table's row
    logged = [r.getMessage() for r in caplog.records if "Ana Operator" in r.getMessage()]
    assert len(logged) == 1 and f"table {table['table_id']}" in logged[0]
    assert len(solves) == 1  # the edge solved once for the rule set (the lab's cache), three requests
    plain = h.client.post("/tables", json={"game": d.key, "name": "Plain"}, headers=OPERATOR)
    assert plain.status_code == 201 and plain.json()["edge_confirmation"] is None
    assert stored(h, plain.json()["table_id"]).edge_confirmation is None


def test_the_floor_is_the_servers_and_side_bets_count(make_server: Callable[..., Harness]) -> None:
    d = min(CONVERTED, key=lambda d: analyze_game(d.make_rules()).house_edge)
    edge = analyze_game(d.make_rules()).house_edge
    h = make_server(min_house_edge=edge + Fraction(1, 1000))  # RULES.md's own rules are below this floor
    err = refused(
        h.client.post("/tables", json={"game": d.key, "name": "Default"}, headers=OPERATOR),
        "confirm_negative_edge",
        "edge_below_floor",
    )
    assert str(edge) in err["message"]
    with_side = next((g for g in CONVERTED if analyze_game(g.make_rules()).side_bets), None)
    if with_side is not None:  # a side bet below the floor alone is asked about too
        a = analyze_game(with_side.make_rules())
        low_side = min(b.house_edge for b in a.side_bets.values())
        h2 = make_server(min_house_edge=low_side + Fraction(1, 10**6))
        if a.house_edge >= low_side + Fraction(1, 10**6):
            res = h2.client.post("/tables", json={"game": with_side.key, "name": "Side"}, headers=OPERATOR)
            assert "main is" not in refused(res, "confirm_negative_edge", "edge_below_floor")["message"]
