"""A table's pay tables and rules at the table and in the lobby (issue 24): ``GET /tables/{id}/rules`` is the
rule card of the table's own rules (``rules.rulecard``), the lobby's tables and a round's recall say
"standard rules" or the changes, never the raw rule set."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_server_support import play_round

from server_harness import Harness
from tablegames.rules import registry
from tablegames.rules.rulecard import STANDARD, rule_card

pytestmark = pytest.mark.timeout(300)


def test_a_tables_rule_card_is_its_own_rules_in_words(make_server: Callable[..., Harness]) -> None:
    h = make_server()
    standard = h.table("three-card-poker", seats=1)
    house = h.table("three-card-poker", seats=1, rules={"pair-plus.flush": "3"}, confirm_negative_edge="test")
    d = registry.get("three-card-poker")
    for table_id, rules, summary in (
        (standard, d.make_rules(), STANDARD),
        (
            house,
            d.make_rules({"pair-plus.flush": "3"}),
            "1 change from the standard rules: Pair Plus: flush 3 to 1",
        ),
    ):
        r = h.client.get(f"/tables/{table_id}/rules")
        assert r.status_code == 200, r.text
        card = r.json()
        expected = rule_card(d, rules)
        assert card["table_id"] == table_id and card["title"] == "Three Card Poker"
        assert card["summary"] == expected.summary and card["summary"].startswith(summary)
        assert [(s["title"], [(x["label"], x["value"]) for x in s["rows"]]) for s in card["sections"]] == [
            (s.title, [(x.label, x.value) for x in s.rows]) for s in expected.sections
        ]
    pair_plus = next(
        s for s in h.client.get(f"/tables/{house}/rules").json()["sections"] if "Pair Plus" in s["title"]
    )
    assert {"label": "Flush", "value": "3 to 1"} in pair_plus["rows"]
    assert h.client.get(f"/tables/{house}/rules").json()["changes"] == [
        {"name": "pair-plus.flush", "label": "Pair Plus: flush", "value": "3 to 1", "standard": "4 to 1"}
    ]
    lobby = {t["table_id"]: t["rule_summary"] for t in h.client.get("/tables").json()}
    assert lobby[standard] == STANDARD and lobby[house].startswith("1 change")
    assert h.client.get("/tables/999/rules").status_code == 404

    tok, _ = h.player("ann", 20_000)
    ws = h.seated(tok, house)
    done = play_round({1: ws}, {1: {"ante": 500}}, choose=lambda seat, st: "fold")
    recall = h.client.get(f"/rounds/{done[1]['round_id']}").json()
    assert recall["rule_summary"] == lobby[house]
