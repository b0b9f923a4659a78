"""Helpers of the Math lab's server tests: another valid value of a parameter, a changed rule set of any game
(generic over the registry), a round driver."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from server_harness import WS
from tablegames.rules import RuleError, registry
from tablegames.rules.definition import GameDefinition
from tablegames.rules.parameters import LOSES, Parameter

CONVERTED = [d for d in registry.DEFINITIONS if d.parameters]  # games whose rules have parameters (issue 15)


def another_value(p: Parameter, rules: Any) -> str | None:
    """A valid value of ``p`` other than its value in ``rules`` (None: none found)."""
    now = p.value(rules)
    if p.kind == "choice":
        return next((c for c in p.choices if c != now), None)
    if p.kind in ("int", "money", "odds"):
        v = 0 if now == LOSES else int(now)
        for cand in (v + 1, v - 1, v + 2):
            if (p.low is None or cand >= p.low) and (p.high is None or cand <= p.high):
                return str(cand)
        return None
    if p.kind == "fraction":
        lo, hi = Fraction(p.low or 0), Fraction(p.high or 1)
        cand = (Fraction(now) + hi) / 2 if Fraction(now) < hi else (Fraction(now) + lo) / 2
        return str(cand)
    return None


def bad_value(p: Parameter) -> str:
    """A value ``p`` refuses."""
    if p.kind in ("int", "money", "odds") and p.high is not None:
        return str(int(p.high) + 1)
    if p.kind in ("int", "money", "odds", "fraction"):
        return "lots"
    return "no-such-choice" if p.choices else "\x00"


def changed_rule_set(d: GameDefinition, most: int = 3) -> dict[str, str]:
    """Up to ``most`` parameters of ``d`` set to another valid value (payouts first: what a lab changes most)."""
    rules = d.make_rules()
    options: dict[str, str] = {}
    ordered = sorted((p for p in d.parameters if p.listed), key=lambda p: p.structural)
    for p in ordered:
        alt = another_value(p, rules)
        if alt is None:
            continue
        try:
            d.make_rules({**options, p.name: alt})
        except RuleError:
            continue
        options[p.name] = alt
        if len(options) == most:
            break
    assert options, f"{d.key}: no parameter could be changed"
    return options


def play_one_round(ws: WS, main_cents: int) -> dict[str, Any]:
    """One seat wagers ``main_cents`` on the main wager and takes the first legal action until the round ends;
    its ``round_result``."""
    d = registry.get(ws.seen_or_next(lambda m: m["type"] == "welcome")["table"]["game"])
    ack = ws.request(type="wager", wagers={d.main_wager.name: main_cents})
    assert ack["type"] == "ack", ack
    while True:
        m = ws.until(lambda m: m["type"] in ("state", "round_result"))
        if m["type"] == "round_result":
            return m
        rnd = m.get("round") or {}
        if rnd.get("phase") == "deciding" and rnd.get("legal_actions"):
            ws.request(type="act", action=rnd["legal_actions"][0])
