"""Secrecy at the source (issue 11 defect 9): at every point of rounds of all three games, what
``Round.view(seat)`` and ``Round.visible_history(seat)`` give a seat (or an onlooker) holds no card it may not see
yet, and no text derived from one either: another hand's description, total or category (a One Eyed Flush bust was
told to every seat as ``"No Pair (28)"`` while its cards were face down)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablegames.engine import Table
from tablegames.engine.base import Round
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules

WAGERS: dict[str, dict[str, int]] = {
    "let-it-ride": {"bets": 200, "bonus": 100, "progressive": 100},
    "one-eyed-flush": {"main": 300, "jackpot": 100},
    "final-count": {"main": 300},
}
RULES: dict[str, list[dict[str, str]]] = {
    "let-it-ride": [{}],
    "one-eyed-flush": [{}, {"bust": "always"}],  # R-OEF-6 and its variant: more busts mid-round
    "final-count": [{}],
}
NOT_DERIVED = {"rules", "source", "wager_specs", "game"}


def strings_in(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        values = [v for k, v in obj.items() if k not in NOT_DERIVED]
        return set().union(*(strings_in(v) for v in values)) if values else set()
    if isinstance(obj, list):
        return set().union(*(strings_in(v) for v in obj)) if obj else set()
    return set()


def visible_cards(events: list[dict[str, Any]], seat: int | None) -> set[str]:
    me = f"seat {seat}" if seat is not None else None
    out: set[str] = set()
    for e in events:
        if e["type"] in ("card_dealt", "card_discarded") and e["visible_to"] in ("all", me):
            out.add(e["card"])
        elif e["type"] == "cards_revealed":
            out.update(e["cards"])
    return out


def derived_texts(events: list[dict[str, Any]], owner: str) -> set[str]:
    out: set[str] = set()
    for e in events:
        if e["type"] == "settled" and f"seat {e['seat']}" == owner and e["detail"]:
            out.add(e["detail"])
        elif e["type"] == "hand" and e["owner"] == owner:
            out.add(e["hand"])
    return out


def check_viewer(rnd: Round, full: list[dict[str, Any]], seat: int | None) -> None:
    """What ``seat`` gets now from the engine, against the round's full history (``full``, known at its end)."""
    if rnd.is_over:
        return
    now = len(rnd.history)
    ok = visible_cards(full[:now], seat)
    view = rnd.view(seat)
    # its own hand, described to it (view "hands"), is its own: it may contain another hand's words by chance
    own = strings_in(view["hands"].get(str(seat), {})) if seat is not None else set()
    shown = (strings_in(view) - own) | strings_in(rnd.visible_history(seat))
    cards = {s for s in shown if len(s) == 2 and s[0] in "23456789TJQKA" and s[1] in "cdhs"}
    assert cards <= ok, (seat, now, cards - ok)
    owners = {e["to"] for e in full if e["type"] == "card_dealt" and e["to"].startswith("seat ")}
    hidden, known = set(), set()
    for owner in owners:
        hand = {e["card"] for e in full if e["type"] == "card_dealt" and e["to"] == owner}
        if owner == f"seat {seat}" or hand <= ok:
            known |= derived_texts(full, owner)
        else:
            hidden.add(owner)
    for owner in hidden:
        for text in derived_texts(full, owner) - known:
            told = [s for s in shown if s == text or (len(text) >= 6 and text in s)]
            assert not told, f"{seat} was told {text!r} of {owner} at event {now}: {told}"


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(sorted(WAGERS)),
    variant=st.integers(0, 1),
    seats=st.integers(2, 5),
    seed=st.integers(0, 10**6),
    choices=st.randoms(use_true_random=False),
)
def test_no_view_or_history_tells_a_seat_of_cards_it_cannot_see(
    game: str, variant: int, seats: int, seed: int, choices: Any
) -> None:
    rules = RULES[game][variant % len(RULES[game])]
    table = Table(make_rules(game, rules), seats=seats, source=SeededRandom(seed))
    rnd = table.new_round()
    for s in range(1, seats + 1):
        for name, amount in WAGERS[game].items():
            rnd.place_wager(s, name, amount)
    rnd.deal()
    steps = [len(rnd.history)]
    actions: list[tuple[int, str]] = []
    while not rnd.is_over:
        seat = rnd.to_act
        assert seat is not None
        action = str(choices.choice(rnd.legal_actions(seat)))
        actions.append((seat, action))
        rnd.act(seat, action)
        steps.append(len(rnd.history))
    full = [e.to_dict() for e in rnd.history]
    # the same round again, checked for every viewer after the deal and after every decision
    again = Table(make_rules(game, rules), seats=seats, source=SeededRandom(seed)).new_round()
    for s in range(1, seats + 1):
        for name, amount in WAGERS[game].items():
            again.place_wager(s, name, amount)
    again.deal()
    for viewer in [None, *range(1, seats + 1)]:
        check_viewer(again, full, viewer)
    for seat, action in actions:
        again.act(seat, action)
        for viewer in [None, *range(1, seats + 1)]:
            check_viewer(again, full, viewer)


def test_a_bust_is_public_its_hand_is_not() -> None:
    """R-OEF-6: the busted seat sees its hand described; the others see only that it busted."""
    for seed in range(500):
        table = Table(make_rules("one-eyed-flush"), seats=2, source=SeededRandom(seed))
        rnd = table.new_round()
        rnd.place_wager(1, "main", 100)
        rnd.place_wager(2, "main", 100)
        rnd.deal()
        rnd.act(1, "discard 0")
        if rnd.seats[1].out and rnd.to_act == 2:
            break
    else:
        raise AssertionError("no bust found")
    own = [e for e in rnd.visible_history(1) if e["type"] == "settled"]
    other = [e for e in rnd.visible_history(2) if e["type"] == "settled"]
    onlooker = [e for e in rnd.visible_history(None) if e["type"] == "settled"]
    assert own[0]["outcome"] == "bust" and own[0]["detail"].startswith("No Pair (")
    assert other == onlooker == [{**own[0], "detail": ""}]
    assert rnd.view(2)["seats"][0]["out"] is True
    rnd.act(2, "stand")
    assert next(e for e in rnd.visible_history(2) if e["type"] == "settled") == own[0]  # shown at the end
