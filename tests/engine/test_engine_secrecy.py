"""Secrecy at the source (issue 11 defect 9): at every point of rounds of every registered game (its variants' choices included), what
``Round.view(seat)`` and ``Round.visible_history(seat)`` give a seat (or an onlooker) holds no card it may not see
yet, and no text derived from one either: another hand's description, total or category (a One Eyed Flush bust was
told to every seat as ``"No Pair (28)"`` while its cards were face down)."""

from __future__ import annotations

from typing import Any

from engine_support import every_wager
from hypothesis import given, settings
from hypothesis import strategies as st

from secrecy import RULE_DATA, allowed, leaked_texts, strings_in
from tablegames.engine import Table
from tablegames.engine.base import Round
from tablegames.randomness import SeededRandom
from tablegames.rules import GAMES, make_rules, registry
from tablegames.rules.parameters import Parameter

NOT_DERIVED = frozenset({"source", "wager_specs", "game"}) | RULE_DATA


def variants(game: str) -> list[dict[str, str]]:
    """The default rules and each other choice of every choice parameter (e.g. R-OEF-6's ``bust=always``)."""
    out: list[dict[str, str]] = [{}]
    params: list[Parameter] = [p for p in registry.get(game).parameters if p.kind == "choice" and p.listed]
    for p in params:
        out += [{p.name: c} for c in p.choices if c != p.value(make_rules(game))]
    return out


def check_viewer(rnd: Round, full: list[dict[str, Any]], seat: int | None) -> None:
    """What ``seat`` gets now from the engine, against the round's full history (``full``, known at its end)."""
    if rnd.is_over:
        return
    now = len(rnd.history)
    ok = allowed(full, seat, now)
    view = rnd.view(seat)
    # its own hand, described to it (view "hands"), is its own: it may contain another hand's words by chance
    own = strings_in(view["hands"].get(str(seat), {}), NOT_DERIVED) if seat is not None else set()
    shown = (strings_in(view, NOT_DERIVED) - own) | strings_in(rnd.visible_history(seat), NOT_DERIVED)
    cards = {s for s in shown if len(s) == 2 and s[0] in "23456789TJQKA" and s[1] in "cdhs"}
    assert cards <= ok, (seat, now, cards - ok)
    told = leaked_texts(full, seat, now, shown)
    assert not told, f"{seat} was told {told} of another hand at event {now}"


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(GAMES),
    variant=st.integers(0, 10),
    seats=st.integers(2, 5),
    seed=st.integers(0, 10**6),
    choices=st.randoms(use_true_random=False),
)
def test_no_view_or_history_tells_a_seat_of_cards_it_cannot_see(
    game: str, variant: int, seats: int, seed: int, choices: Any
) -> None:
    rules = variants(game)[variant % len(variants(game))]
    table = Table(make_rules(game, rules), seats=seats, source=SeededRandom(seed))
    rnd = table.new_round()
    for s in range(1, seats + 1):
        for name, amount, option in every_wager(registry.get(game), table.rules, 300):
            rnd.place_wager(s, name, amount, option)
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
        for name, amount, option in every_wager(registry.get(game), table.rules, 300):
            again.place_wager(s, name, amount, option)
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
