"""The Math lab page in a real browser (issue 15): change a payout in the form and the house edge becomes the
exact figure ``analyze_game`` gives for those rules; a refused value is shown next to its field; save the
rule set as a game file; open a table with it (the table stores and shows the complete rule set). Generic:
the game is the first of the registry with a payout parameter (else the first with any parameter), and every
registered game's form has one field per parameter. The server runs in this process."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser_table import ADMIN, _http, in_process_server

from tablegames.analysis.api import analyze_game
from tablegames.rules import gamefile, registry
from tablegames.rules.definition import GameDefinition
from tablegames.rules.parameters import LOSES, Parameter

pytestmark = pytest.mark.browser

SOLVE_MS = 120_000  # a game's first (cold) solve may take seconds on a loaded machine


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with in_process_server(tmp_path_factory.mktemp("lab") / "tg.sqlite3", []) as url:
        yield url


def lab_game() -> tuple[GameDefinition, Parameter, str]:
    """A game, the parameter the test changes (a payout if any game has one) and its new value."""
    games = [d for d in registry.DEFINITIONS if d.parameters]
    assert games, "no game has parameters"
    for d in games:
        rules = d.make_rules()
        for p in d.parameters:
            if p.kind == "odds" and p.value(rules) != LOSES:
                new = str(int(p.value(rules)) + 1)
                if p.high is None or int(new) <= p.high:
                    return d, p, new
    d = games[0]
    p = next(p for p in d.parameters if p.kind == "choice")
    return d, p, next(c for c in p.choices if c != p.value(d.make_rules()))


def field(page: Any, name: str) -> Any:
    return page.locator(f'[data-param="{name}"]')


def set_field(page: Any, p: Parameter, value: str) -> None:
    if p.kind in ("choice", "preset"):
        field(page, p.name).select_option(value)
    else:
        field(page, p.name).fill(value)


def wait_exact(page: Any, testid: str, exact: str) -> None:
    page.wait_for_function(
        "([id, exact]) => { const e = document.querySelector(`[data-testid=${id}]`); "
        "return e && e.dataset.exact === exact; }",
        arg=[testid, exact],
        timeout=SOLVE_MS,
    )


def open_lab(browser: Any, url: str, game: str, page_errors: Any) -> Any:
    page = page_errors.watch(
        browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    )
    page.goto(f"{url}/lab#{game}")
    page.wait_for_selector("[data-testid=lab-house-edge]", timeout=SOLVE_MS)
    return page


def test_a_payout_changed_in_the_form_gives_the_exact_house_edge_then_a_game_file_and_a_table(
    browser: Any, lab_server: str, page_errors: Any, screenshots: Path, tmp_path: Path
) -> None:
    d, p, new = lab_game()
    page = open_lab(browser, lab_server, d.key, page_errors)
    default = analyze_game(d.make_rules())
    wait_exact(page, "lab-house-edge", str(default.house_edge))

    set_field(page, p, new)
    rules = d.make_rules({p.name: new})
    a = analyze_game(rules)
    assert a.house_edge != default.house_edge
    wait_exact(page, "lab-house-edge", str(a.house_edge))
    edge = page.locator("[data-testid=lab-house-edge] .lab-value").inner_text()
    assert edge == f"{100 * float(a.house_edge):.4f}%"
    assert page.locator("[data-testid=lab-element-of-risk]").get_attribute("data-exact") == str(
        a.element_of_risk
    )
    assert page.locator("[data-testid=lab-hit-frequency]").get_attribute("data-exact") == str(a.p_win)
    assert page.locator("[data-testid=lab-returns] tbody tr").count() == len(a.outcomes)
    chart = a.strategy.get("chart")
    assert page.locator("[data-testid=lab-chart] tbody tr").count() == (len(chart) if chart else 0)
    assert page.locator(f'[data-field="{p.name}"].changed').count() == 1  # the server says what changed
    page.screenshot(path=str(screenshots / "lab-changed.png"))

    # a refused value: the server's message next to its field; the last figures stay (dimmed)
    if p.kind not in ("choice", "preset"):
        field(page, p.name).fill("lots")
        error = page.locator(f'.field-error[data-error-for="{p.name}"]')
        error.wait_for(state="visible", timeout=SOLVE_MS)
        assert p.name in error.inner_text()
        assert page.locator("#lab-figures.stale").count() == 1
        field(page, p.name).fill(new)
        error.wait_for(state="hidden", timeout=SOLVE_MS)  # answered again: the figures are the valid set's
        page.wait_for_selector("#lab-figures:not(.stale)", timeout=SOLVE_MS)
        wait_exact(page, "lab-house-edge", str(a.house_edge))

    # save: the download is gamefile.dumps of the rule set, named
    page.fill("[data-testid=lab-name]", "Browser rules")
    with page.expect_download() as dl:
        page.click("[data-testid=lab-save]")
    saved = tmp_path / "saved.toml"
    dl.value.save_as(saved)
    assert dl.value.suggested_filename == "browser-rules.toml"
    loaded = gamefile.load(saved)
    assert (loaded.game, loaded.name, loaded.rules) == (d.key, "Browser rules", rules)

    # open a table with it: the table stores and shows the complete rule set
    page.fill("[data-testid=lab-table-name]", "Lab table")
    page.fill("[data-testid=lab-admin]", ADMIN)
    status = page.locator("[data-testid=lab-table-status]")
    if a.house_edge < 0 or any(b.house_edge < 0 for b in a.side_bets.values()):  # issue 20: asked first
        page.click("[data-testid=lab-open-table]")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=lab-table-status]').textContent.includes('pay the players')",
            timeout=15_000,
        )
        assert all(t["name"] != "Lab table" for t in _http("GET", f"{lab_server}/tables"))
        page.fill("[data-testid=lab-confirm]", "browser test")
    page.click("[data-testid=lab-open-table]")
    status.locator("a").wait_for(timeout=15_000)
    table_id = int(status.get_attribute("data-table-id") or 0)
    assert "Browser rules" in status.inner_text()
    table = _http("GET", f"{lab_server}/tables/{table_id}")
    assert (table["name"], table["game"], table["rules"], table["rule_set"]) == (
        "Lab table",
        d.key,
        d.rule_set(rules),
        "Browser rules",
    )
    assert status.locator("a").get_attribute("href") == f"/#/table/{table_id}"

    # and the saved file opens again in the lab
    page.click("[data-testid=lab-reset]")
    wait_exact(page, "lab-house-edge", str(default.house_edge))
    page.set_input_files("[data-testid=lab-open]", str(saved))
    wait_exact(page, "lab-house-edge", str(a.house_edge))
    assert field(page, p.name).input_value() == new
    assert page.input_value("[data-testid=lab-name]") == "Browser rules"
    assert not [e for e in page_errors.errors if "status of 400" not in e], (
        page_errors.errors
    )  # (the refusal)
    page.close()


def test_every_game_gets_one_field_per_parameter_and_the_lobby_links_the_lab(
    browser: Any, lab_server: str, page_errors: Any
) -> None:
    page = page_errors.watch(browser.new_page())
    page.goto(lab_server + "/")
    page.click("[data-testid=to-lab]")
    page.wait_for_url("**/lab*")
    page.wait_for_selector("#lab-game option", state="attached")
    for d in registry.DEFINITIONS:
        page.select_option("[data-testid=lab-game]", d.key)
        names = [p.name for p in d.parameters] or [o.name for o in d.rule_options]
        page.wait_for_function(
            "n => document.querySelectorAll('#lab-form [data-param]').length === n", arg=len(names)
        )
        shown = page.eval_on_selector_all("#lab-form [data-param]", "els => els.map(e => e.dataset.param)")
        assert sorted(shown) == sorted(names)
        groups = {p.group for p in d.parameters} or {"rules"}
        assert page.locator("#lab-form details[data-group]").count() == len(groups)
    assert not page_errors.errors, page_errors.errors
    page.close()


def test_many_parameters_and_pay_tables_render_grouped(
    browser: Any, lab_server: str, page_errors: Any, screenshots: Path
) -> None:
    """A game with dozens of parameters (GET /games answered with extra ones: the page is generic): one group
    each, a pay table highest hand first, nothing wider than its panel; the server refuses the unknown names
    and the page shows each refusal next to its field."""
    d = next(d for d in registry.DEFINITIONS if d.parameters)
    hands = [
        "pair",
        "two-pair",
        "trips",
        "straight",
        "flush",
        "full-house",
        "quads",
        "straight-flush",
        "royal",
    ]

    def param(name: str, kind: str, group: str, default: str, rank: int = 0) -> dict[str, Any]:
        return {
            "name": name, "kind": kind, "help": f"the {name}", "default": default, "low": 0, "high": 1000,
            "choices": [], "allowed": "a whole number from 0 to 1000", "group": group, "rank": rank,
            "structural": kind != "odds", "listed": True, "ruling": "R-X-1", "writes": [],
        }  # fmt: skip

    extra = [param(f"rule-{i}", "int", "rules", str(i)) for i in range(8)]
    tables = ("lab-main", "lab-bonus", "lab-progressive")  # (names no game uses)
    for table in tables:
        extra += [
            param(f"{table}.{h}", "odds", f"{table} pay table", str(3 * i + 1), i)
            for i, h in enumerate(hands)
        ]
        extra.append(param(f"{table}.name", "text", f"{table} pay table", "house"))

    def games(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        for g in body:
            if g["key"] == d.key:
                g["parameters"] = g["parameters"] + extra
        route.fulfill(response=answer, body=json.dumps(body))

    page = page_errors.watch(browser.new_page(viewport={"width": 1280, "height": 900}))
    page.route("**/games", games)
    page.goto(f"{lab_server}/lab#{d.key}")
    page.wait_for_selector("[data-testid=lab-status].ok, [data-testid=lab-status].bad", timeout=SOLVE_MS)
    assert (
        page.locator("#lab-form details[data-group]").count()
        == len({p.group for p in d.parameters} | {"rules"}) + 3
    )
    for table in tables:
        rows = page.eval_on_selector_all(
            f'details[data-group="{table} pay table"] tbody tr', "trs => trs.map(t => t.dataset.field)"
        )
        assert rows == [f"{table}.{h}" for h in reversed(hands)]  # highest hand first
    panel = page.locator(".lab-rules")
    assert panel.evaluate("e => e.scrollWidth <= e.clientWidth")
    field(page, "lab-bonus.flush").fill("99")
    error = page.locator('.field-error[data-error-for="lab-bonus.flush"]')
    error.wait_for(state="visible", timeout=SOLVE_MS)
    assert "unknown rule 'lab-bonus.flush'" in error.inner_text()
    time.sleep(0.1)
    page.screenshot(path=str(screenshots / "lab-many-parameters.png"), full_page=True)
    assert not [e for e in page_errors.errors if "status of 400" not in e], page_errors.errors
    page.close()
