"""``tablegames detect --database``'s fast offline path (issue 27: 10^6 rounds in under a minute) gives exactly
the report of the first path (``detect_database_reference``): the same rounds, decisions, tests, flagged players,
hands, evidence and log10 M, over a database of both scored games with readers of each kind of exposure, honest
players with random mistakes, timeout defaults, and rounds whose events are stored in another JSON layout."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from detect_support import broken as _broken
from detect_support import settled_row

from tablegames.analysis.detect import COVERED, pair_scenarios, scenarios, scorer
from tablegames.engine import Action, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules

pytest.importorskip("sqlalchemy")

ROUNDS = 300  # per game
SEATS = (
    4  # seat 1 reads the first scenario's cards, seat 2 the last's; seat 3 errs at random; seat 4 plays fair
)


def _store(path: Path) -> str:
    from sqlalchemy import create_engine, text
    from sqlalchemy.orm import Session

    from tablegames.server.db import Account, Base, GameTable, Player

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    rng = random.Random(5)
    rid = 0
    with Session(engine) as s:
        s.add_all([Account(id=i, name=f"a{i}", kind="wallet", balance=0) for i in range(1, SEATS + 1)])
        s.add_all([Player(id=i, name=f"p{i}", token_hash=f"t{i}", account_id=i) for i in range(1, SEATS + 1)])
        for t_id, game in enumerate(sorted(COVERED), start=1):
            rules = make_rules(game)
            names = scenarios(rules)
            readers = {1: scorer(rules, names[0]), 2: scorer(rules, names[-1])}
            fair = scorer(rules, names[0])
            s.add(GameTable(id=t_id, name=f"t{t_id}", game=game, seats=SEATS, min_bet=100, max_bet=1000))
            s.flush()
            table = Table(rules, seats=SEATS, source=SeededRandom(t_id))
            for n in range(ROUNDS):
                rnd = table.new_round()
                for place in range(1, SEATS + 1):
                    rnd.place_wager(place, rnd.main_wager(), 100)
                rnd.deal()
                while not rnd.is_over:
                    seat = rnd.to_act
                    assert seat is not None
                    first = rnd.legal_actions(seat)[0]
                    by = "timeout" if rng.random() < 0.02 else "player"
                    if seat in readers:
                        action = readers[seat].score(rnd, seat, first).informed_best
                    else:
                        action = fair.score(rnd, seat, first).legal_best
                        if seat == 3 and rng.random() < 0.15:
                            action = next(a for a in rnd.legal_actions(seat) if a != action)
                    rnd.act(seat, action, by=by)
                rid += 1
                s.add(
                    settled_row(
                        rid,
                        table,
                        rnd,
                        {str(i): i for i in range(1, SEATS + 1) if i != 4 or n % 7},
                        table_id=t_id,
                    )
                )
        s.commit()
        # every 10th round in the compact layout (another encoder), every 17th with its keys sorted: read by
        # decoding the JSON; every 13th deck compact (still read in arrays); every 19th seat map with a seat
        # number not written plainly and a seat without a player (the pair scan reads it one decision at a time)
        rows = list(s.execute(text("SELECT id, events, deck, seat_players FROM rounds")))
        for i, e, d, m in rows:
            if i % 19 == 0:
                m = json.dumps({**json.loads(m), "04": 2, "2": None})
                s.execute(text("UPDATE rounds SET seat_players = :m WHERE id = :i"), {"m": m, "i": i})
            if i % 10 == 0:
                e = json.dumps(json.loads(e), separators=(",", ":"))
            elif i % 17 == 0:
                e = json.dumps(json.loads(e), sort_keys=True)
            if i % 13 == 0:
                d = json.dumps(json.loads(d), separators=(",", ":"))
            s.execute(
                text("UPDATE rounds SET events = :e, deck = :d WHERE id = :i"), {"e": e, "d": d, "i": i}
            )
        s.commit()
    engine.dispose()
    return url


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _store(tmp_path_factory.mktemp("detect") / "rounds.sqlite3")


def _report(report: Any) -> dict[str, Any]:
    out: dict[str, Any] = report.to_dict()
    out.pop("seconds")
    return out


def test_the_fast_path_reports_exactly_what_the_reference_does(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tablegames.analysis import detect_scan
    from tablegames.analysis.detect_db import detect_database, detect_database_reference
    from tablegames.analysis.detect_pairs_db import detect_both

    reference = _report(detect_database_reference(url))
    done: list[int] = []
    fast = _report(detect_database(url, progress=done.append))
    assert fast == reference
    assert sum(done) == fast["rounds"] == ROUNDS * len(COVERED)
    # not a vacuous equality: both games' readers flagged, with evidence; the random erring seat is not
    flagged = {(f["game"], f["name"]) for f in fast["flagged"]}
    assert {(g, "p1") for g in COVERED} <= flagged and all(name in ("p1", "p2") for _, name in flagged)
    assert fast["decisions"] > ROUNDS * len(COVERED) * 2 and fast["tests"] == 4 * sum(
        len(scenarios(make_rules(g))) for g in COVERED
    )
    assert all(f["evidence_rounds"] and f["log10_evidence"] > 6 for f in fast["flagged"])
    # in ranges of round ids (several hands of a player apart), in one process or two: the same
    assert _report(detect_database(url, chunk=97)) == reference
    assert _report(detect_both(url)[0]) == reference  # with the pair tests from the same scan
    assert _report(detect_database(url, chunk=211, workers=2)) == reference
    # read in small batches (a hand's decisions and a player's hands across batches), the caches afresh
    monkeypatch.setattr(detect_scan, "BATCH", 23)
    detect_scan.forget()
    assert _report(detect_database(url, chunk=500)) == reference
    monkeypatch.undo()
    # --since and alpha: the same too
    cut = time.time() + 3600
    assert _report(detect_database(url, since=cut)) == _report(detect_database_reference(url, since=cut))
    assert _report(detect_database(url, alpha=0.2)) == _report(detect_database_reference(url, alpha=0.2))


def _pairs(report: Any) -> dict[str, Any]:
    out = {k: v for k, v in report.__dict__.items() if k != "seconds"}
    out["pairs"] = [f.to_dict() for f in report.pairs]
    return out


def test_the_pair_tests_on_the_fast_scan_are_the_references(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collusion pair tests read from the batches (``detect_both``, ``detect_pairs_database``) report
    exactly what the first pair scan does."""
    from tablegames.analysis import detect_scan
    from tablegames.analysis.detect_pairs_db import (
        detect_both,
        detect_pairs_database,
        detect_pairs_database_reference,
    )

    loose = 0.9  # flags under the null at this alpha: the flagged pairs' figures compared too
    reference = _pairs(detect_pairs_database_reference(url, alpha=loose))
    assert _pairs(detect_both(url, alpha=loose)[1]) == reference
    # not vacuous: the pair games' rounds, every ordered pair of the four players, flags with evidence
    paired = [g for g in COVERED if pair_scenarios(make_rules(g))]  # One Eyed Flush joined in this stop
    assert len(paired) >= 3
    assert reference["rounds"] == ROUNDS * len(paired) and reference["tests"] == len(paired) * 4 * 3
    assert reference["pairs"] and all(f["evidence_rounds"] for f in reference["pairs"])
    assert _pairs(detect_pairs_database(url, alpha=loose, chunk=97, workers=2)) == reference
    monkeypatch.setattr(detect_scan, "BATCH", 23)
    detect_scan.forget()
    assert _pairs(detect_pairs_database(url, alpha=loose, chunk=211)) == reference
    monkeypatch.undo()
    cut = time.time() + 3600
    assert _pairs(detect_pairs_database(url, since=cut)) == _pairs(
        detect_pairs_database_reference(url, since=cut)
    )


def _decoded(events: list[Any], decks: list[Any]) -> tuple[list[Any], list[Any]]:
    """The deals (round, owner, card) and decisions (round, seat, action, by the player) as the reference
    reads them: the JSON decoded."""
    deals, acts = [], []
    for r, (e, d) in enumerate(zip(events, decks, strict=True)):
        for x in (json.loads(e) if e else None) or []:
            if x["type"] == "card_dealt":
                deals.append((r, x["to"], int(json.loads(d)[x["position"]])))
            elif x["type"] == "action":
                acts.append((r, int(x["seat"]), x["action"], x.get("by", "player") == "player"))
    return deals, acts


def _arrays(events: list[Any], decks: list[Any]) -> tuple[list[Any], list[Any]]:
    from tablegames.analysis.detect_chunk import parse_batch

    b = parse_batch(
        [None if e is None else e.encode() for e in events],
        [None if d is None else d.encode() for d in decks],
    )
    deals = [
        (r, b.owners[o], c)
        for r, o, c in zip(b.deal_round.tolist(), b.deal_owner.tolist(), b.deal_card.tolist(), strict=True)
    ]
    acts = [
        (r, s, b.names[n], p)
        for r, s, n, p in zip(
            b.act_round.tolist(), b.act_seat.tolist(), b.act_name.tolist(), b.act_player.tolist(), strict=True
        )
    ]
    return deals, acts


def test_the_batch_reads_what_json_does(url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as conn:
        rows = list(conn.execute(text("SELECT id, events, deck FROM rounds ORDER BY id")))
    engine.dispose()
    events, decks = [e for _, e, _ in rows], [d for _, _, d in rows]
    deals, acts = _decoded(events, decks)
    assert _arrays(events, decks) == (deals, acts)
    assert sum(not p for *_, p in acts) > 0  # timeout defaults among them
    # texts the arrays do not read (decoded as JSON instead), mixed with ones they do
    plain = events[1]
    odd = [
        '[{"type": "action", "seat": 1, "action": "play", "by": null}]',  # a null "by"
        '[{"type": "action", "seat": 1, "action": "play", "by": "player", "note": "x"}]',  # another key
        '[{"type": "note", "text": "\\"card_dealt\\""}, {"type": "card_dealt", "to": "dealer", "position": 3, '
        '"card": "2c", "visible_to": ""}]',  # "card_dealt" in a string as well
        '[{"type": "action", "seat": 2, "action": "fo\\u006cd", "by": "player"}]',  # an escape in a name
        '[{"type": "card_dealt", "to": "seat 1", "position": 5, "card": "2c", "visible_to": "seat 1"}, '
        '{"type": "action", "seat": 1, "action": "a-name-longer-than-the-width-read", "by": "player"}]',
        "null",
        None,
    ]
    mixed_events = [plain, *odd, plain]
    mixed_decks = [decks[1], *["[" + ", ".join(str(51 - c) for c in range(52)) + "]"] * len(odd), decks[1]]
    mixed_decks[-2] = None  # no deals: no deck read
    assert _arrays(mixed_events, mixed_decks) == _decoded(mixed_events, mixed_decks)
    # a deck in another layout (a float): decoded as JSON
    decks_odd = [decks[1].replace("[", "[0.0, ", 1).replace(", 0.0", "", 1), *decks[2:5]]
    shifted = [
        json.dumps(
            [dict(x, position=x["position"] + 1) if x["type"] == "card_dealt" else x for x in json.loads(e)]
        )
        for e in events[1:5]
    ]
    assert _arrays(shifted, decks_odd) == _decoded(shifted, decks_odd)
    with pytest.raises(IndexError):
        _arrays(
            ['[{"type": "card_dealt", "to": "dealer", "position": 52, "card": "2c", "visible_to": ""}]'],
            [decks[1]],
        )


def _read(reader: Any, texts: list[bytes]) -> tuple[list[Any], list[Any], list[bool]]:
    """A reader's deals and decisions of the rounds it reads (padded names as bytes), and which it leaves to JSON."""
    from tablegames.analysis.detect_chunk import WIDTH, joined

    a, end, starts = joined(texts)
    dr, pos, owner, ar, seat, name, by, bad = reader(a, end, starts, WIDTH)
    deals = [
        (r, p, o.tobytes()) for r, p, o in zip(dr.tolist(), pos.tolist(), owner, strict=True) if not bad[r]
    ]
    acts = [
        (r, s, n.tobytes(), b)
        for r, s, n, b in zip(ar.tolist(), seat.tolist(), name, by.tolist(), strict=True)
        if not bad[r]
    ]
    return deals, acts, bad.tolist()


def test_the_compiled_reader_reads_what_the_numpy_reader_does(url: str) -> None:
    """The single compiled pass over the bytes (``detect_chunk_kernel``) and the NumPy reader: the same deals,
    decisions and rounds left to JSON, on every stored round and on 3,000 texts broken at random (a byte
    deleted, changed to one of the layout's, or a span repeated), each mixed with plain rounds."""
    from sqlalchemy import create_engine, text

    from tablegames.analysis.detect_chunk import read_events_numpy
    from tablegames.analysis.detect_chunk_kernel import read_events

    engine = create_engine(url)
    with engine.connect() as conn:
        events = [e.encode() for (e,) in conn.execute(text("SELECT events FROM rounds ORDER BY id"))]
    engine.dispose()
    whole = _read(read_events, events)
    assert whole == _read(read_events_numpy, events)
    assert any(whole[2]) and not all(whole[2]) and len(whole[1]) > 1000
    rng = random.Random(9)
    chars = b'"\\\x00 ,:{}0123456789a_'
    broken = [_broken(rng, events[:200], chars, 40) for _ in range(3_000)]
    for lo in range(0, len(broken), 100):
        batch = [x for pair in zip(broken[lo : lo + 100], events[:100], strict=True) for x in pair]
        assert _read(read_events, batch) == _read(read_events_numpy, batch)
    edges = [
        b"",
        b'"action"',
        b'"card_dealt"',
        b'{"type": "action", "seat": 1234567, "action": "x", "by": "player"}',
    ]
    assert _read(read_events, edges) == _read(read_events_numpy, edges)


def _deck_read(read: Any, decks: list[bytes | None]) -> Any:
    try:
        return [x.tolist() for x in read(decks)]
    except ValueError as exc:  # json's errors too
        return type(exc)


def test_the_compiled_deck_reader_reads_what_the_numpy_one_does(url: str) -> None:
    """The decks in one compiled pass and in NumPy: the same cards, or the same error, on the stored decks and on
    2,000 decks broken at random (a byte deleted, changed, or a span repeated), each among plain ones."""
    from sqlalchemy import create_engine, text

    from tablegames.analysis.detect_chunk import _decks, _decks_numpy

    engine = create_engine(url)
    with engine.connect() as conn:
        decks = [d.encode() for (d,) in conn.execute(text("SELECT deck FROM rounds ORDER BY id"))]
    engine.dispose()
    assert _deck_read(_decks, decks) == _deck_read(_decks_numpy, decks)
    rng = random.Random(4)
    chars = b"0123456789[], .-x"
    ways: set[str] = set()
    for _ in range(2_000):
        batch: list[bytes | None] = [decks[0], _broken(rng, decks, chars, 12), None, decks[1]]
        got = _deck_read(_decks, batch)
        assert got == _deck_read(_decks_numpy, batch)
        ways.add(got.__name__ if isinstance(got, type) else "read")
    assert ways == {"read", "JSONDecodeError"}  # read, and refused by JSON
    too_long = [decks[0], b"[1234567, 2]"]  # a plain list, a number too long to be a card
    assert _deck_read(_decks, too_long) is _deck_read(_decks_numpy, too_long) is ValueError


def test_names_whose_hashes_collide_are_told_apart(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names' codes by their 64-bit hashes, checked: with the hash made to collide (the multipliers 0: only
    the last word counts), the names are sorted themselves, and a batch reads the same."""
    import numpy as np
    from sqlalchemy import create_engine, text

    from tablegames.analysis import detect_chunk

    engine = create_engine(url)
    with engine.connect() as conn:
        rows = list(conn.execute(text("SELECT events, deck FROM rounds ORDER BY id LIMIT 400")))
    engine.dispose()
    events, decks = [e for e, _ in rows], [d for _, d in rows]
    expected = _arrays(events, decks)
    monkeypatch.setattr(detect_chunk, "_MIX", (np.uint64(0), np.uint64(0)))
    assert _arrays(events, decks) == expected
    assert len({o for _, o, _ in expected[0]}) > 3


def test_three_card_poker_mistakes_in_arrays_are_the_scorers() -> None:
    """Every hand, both actions: the array check agrees with ``mistake_dealt`` (R-TCP-2); decisions it does
    not read are left to the scorer."""
    from itertools import combinations

    import numpy as np

    from tablegames.analysis.detect_chunk import Decisions
    from tablegames.analysis.three_card_poker_detect import ThreeCardPokerScorer
    from tablegames.analysis.three_card_poker_detect_arrays import mistakes
    from tablegames.rules.three_card_poker import FOLD, PLAY

    rules = make_rules("three-card-poker")
    sc = scorer(rules, "dealer-1")
    assert isinstance(sc, ThreeCardPokerScorer)
    hands = np.asarray(list(combinations(range(52), 3)), dtype=np.int64)[:, ::-1]  # dealt in any order
    n = len(hands)
    for code, action in enumerate((PLAY, FOLD)):
        d = Decisions(
            seat=np.ones(n, dtype=np.int64),
            cards=hands,
            count=np.full(n, 3, dtype=np.int64),
            dealer=np.zeros((n, 3), dtype=np.int64),
            dealer_count=np.full(n, 3, dtype=np.int64),
            action=np.full(n, code, dtype=np.int64),
            actions=[PLAY, FOLD],
            prior=np.zeros(n, dtype=np.int64),
            prior_first=np.full(n, -1, dtype=np.int64),
        )
        ok, mistake = mistakes(sc, d)
        assert ok.all()
        expected = [sc.mistake_dealt({"seat 1": h}, 1, action) for h in hands.tolist()]
        assert mistake.tolist() == expected and 0 < sum(expected) < n
    odd = Decisions(
        seat=np.ones(3, dtype=np.int64),
        cards=np.asarray([[1, 2, -1], [4, 4, 5], [1, 2, 3]], dtype=np.int64),
        count=np.asarray([2, 3, 3], dtype=np.int64),
        dealer=np.zeros((3, 3), dtype=np.int64),
        dealer_count=np.full(3, 3, dtype=np.int64),
        action=np.asarray([0, 0, 1], dtype=np.int64),
        actions=[PLAY, Action("surrender")],
        prior=np.zeros(3, dtype=np.int64),
        prior_first=np.full(3, -1, dtype=np.int64),
    )
    assert not mistakes(sc, odd)[0].any()  # two cards, a card twice, another action: the scorer's


def _tcp_decisions(n: int, seed: int, seat: int, dealer: bool) -> tuple[Any, Any, Any]:
    """``n`` random Three Card Poker deals of six cards (the seat's three, then the dealer's or a partner's), a
    random play or fold each, as the array scorers take them (the dealer's cards given or not)."""
    import numpy as np

    from tablegames.analysis.detect_chunk import Decisions
    from tablegames.rules.three_card_poker import FOLD, PLAY

    rng = np.random.default_rng(seed)
    deals = np.argsort(rng.random((n, 52)), axis=1)[:, :6]
    action = rng.integers(0, 2, n)
    d = Decisions(
        seat=np.full(n, seat, dtype=np.int64),
        cards=deals[:, :3],
        count=np.full(n, 3, dtype=np.int64),
        dealer=deals[:, 3:] if dealer else np.full((n, 3), -1, dtype=np.int64),
        dealer_count=np.full(n, 3 if dealer else 0, dtype=np.int64),
        action=action,
        actions=[PLAY, FOLD],
        prior=np.zeros(n, dtype=np.int64),
        prior_first=np.full(n, -1, dtype=np.int64),
    )
    return deals, action, d


def test_three_card_poker_scores_in_arrays_are_the_scorers() -> None:
    """Random deals, both actions: each mistake's answers under every ``dealer-K`` from the arrays are the
    scorer's ``score_dealt`` (its ``mistake``, ``p`` and ``supported``); a deal they do not read (the dealer's
    cards short or among the player's) is left to the scorer."""
    import numpy as np

    from tablegames.analysis.three_card_poker_detect import ThreeCardPokerScorer
    from tablegames.analysis.three_card_poker_detect_arrays import answers, mistakes
    from tablegames.rules.three_card_poker import FOLD, PLAY

    rules = make_rules("three-card-poker")
    found = [scorer(rules, s) for s in scenarios(rules)]
    assert all(isinstance(sc, ThreeCardPokerScorer) for sc in found)
    typed = [sc for sc in found if isinstance(sc, ThreeCardPokerScorer)]
    n = 3000
    deals, action, d = _tcp_decisions(n, 7, seat=2, dealer=True)
    ok, mistake = mistakes(typed[0], d)
    rows = np.flatnonzero(ok & mistake)
    assert len(rows) > 100
    read, got = answers(typed, d.take(rows))
    assert read.all() and len(got) == len(rows)
    for k, row in enumerate(rows.tolist()):
        dealt = {"seat 2": deals[row, :3].tolist(), "dealer": deals[row, 3:].tolist()}
        act = (PLAY, FOLD)[int(action[row])]
        scores = [sc.score_dealt(dealt, 2, act) for sc in found]
        assert got[k] == [(s.mistake, s.p, s.supported) for s in scores]
    assert {a[2] for row in got for a in row} == {True, False}
    short = d.take(rows[:3])
    short.dealer[0, 2] = -1
    short.dealer_count[0] = 2
    short.dealer[1, 0] = short.cards[1, 0]
    assert answers(typed, short)[0].tolist() == [False, False, True]


def test_let_it_ride_mistakes_in_arrays_are_the_scorers() -> None:
    """Random deals at both decisions (wager 1 ridden or pulled before wager 2), both actions: the array
    check agrees with ``mistake_dealt`` (R-LIR-2, R-LIR-3); a deal it does not read is the scorer's."""
    import numpy as np

    from tablegames.analysis.detect_chunk import Decisions
    from tablegames.analysis.let_it_ride_detect import LetItRideScorer
    from tablegames.analysis.let_it_ride_detect_arrays import mistakes
    from tablegames.engine.actions import PULL, RIDE

    rules = make_rules("let-it-ride")
    sc = scorer(rules, "community-2")
    assert isinstance(sc, LetItRideScorer)
    rng = np.random.default_rng(11)
    n = 4000
    deals = np.argsort(rng.random((n, 52)), axis=1)[:, :5]
    action, prior, first = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.integers(0, 2, n)
    deals[:50, 4] = deals[:50, 0]  # the first community card among the player's: the scorer's
    d = Decisions(
        seat=np.full(n, 3, dtype=np.int64),
        cards=deals[:, :3],
        count=np.full(n, 3, dtype=np.int64),
        dealer=deals[:, 3:],
        dealer_count=np.full(n, 2, dtype=np.int64),
        action=action,
        actions=[PULL, RIDE],
        prior=prior,
        prior_first=np.where(prior > 0, first, -1),
    )
    ok, mistake = mistakes(sc, d)
    assert not ok[:50].any() and ok[50:].all()
    expected = []
    for row in range(50, n):
        before = [(PULL, RIDE)[int(first[row])]] if prior[row] else []
        dealt = {"seat 3": deals[row, :3].tolist(), "dealer": deals[row, 3:].tolist()}
        expected.append(sc.mistake_dealt(dealt, 3, (PULL, RIDE)[int(action[row])], before))
    assert mistake[50:].tolist() == expected and 100 < sum(expected) < n - 100


def test_three_card_poker_pair_scores_in_arrays_are_the_pair_scorers() -> None:
    """Random deals of two seats, both actions: each mistake's answers under ``share=2`` from the arrays are the
    pair scorer's ``score_dealt`` against the partner's cards; a deal they do not read (the partner short, a card
    shared) is left to the scorer."""
    import numpy as np

    from tablegames.analysis.detect import pair_scorer
    from tablegames.analysis.three_card_poker_detect_arrays import mistakes, pair_answers
    from tablegames.rules.three_card_poker import FOLD, PLAY

    rules = make_rules("three-card-poker")
    pairs = [pair_scorer(rules, s) for s in pair_scenarios(rules)]
    n = 4000
    deals, action, d = _tcp_decisions(n, 11, seat=1, dealer=False)
    ok, mistake = mistakes(scorer(rules, "dealer-1"), d)
    rows = np.flatnonzero(ok & mistake)
    assert len(rows) > 100
    partner = deals[rows, 3:]
    read, got = pair_answers(pairs, d.take(rows), partner, np.full(len(rows), 3, dtype=np.int64))
    assert read.all() and len(got) == len(rows)
    for k, row in enumerate(rows.tolist()):
        dealt = {"seat 1": deals[row, :3].tolist(), "seat 4": deals[row, 3:].tolist()}
        act = (PLAY, FOLD)[int(action[row])]
        scores = [sc.score_dealt(dealt, 1, act, partner=4) for sc in pairs]
        assert got[k] == [(s.mistake, s.p, s.supported) for s in scores]
    assert {a[2] for row in got for a in row} == {True, False}
    odd = partner[:4].copy()
    odd[0, 2] = -1  # the partner short
    odd[1, 0] = deals[rows[1], 0]  # a card of the player's
    odd[2, 1] = odd[2, 0]  # a card twice
    count = np.asarray([2, 3, 3, 3], dtype=np.int64)
    assert pair_answers(pairs, d.take(rows[:4]), odd, count)[0].tolist() == [False, False, False, True]


@pytest.mark.parametrize("game", sorted(COVERED))
def test_equal_keys_mean_equal_answers(game: str) -> None:
    """The cache's soundness, decision by decision: the same decision with the hidden cards changed gets another
    key whenever an answer changes (and the player's first two cards swapped, the same key: Final Count's third
    card is hidden)."""
    from detect_support import live_decisions

    rules = make_rules(game)
    found = [scorer(rules, s) for s in scenarios(rules)]
    rng = random.Random(3)
    changed = 0
    for rnd, seat in live_decisions(rules, 60, seed=2):
        dealt: dict[str, list[int]] = {}
        prior: list[Action] = []
        for e in rnd.history:
            d = e.to_dict()
            if d["type"] == "card_dealt":
                dealt.setdefault(d["to"], []).append(int(rnd.deck[d["position"]]))
            elif d["type"] == "action" and d["seat"] == seat:
                prior.append(Action.parse(d["action"]))
        mine, dealer = dealt[f"seat {seat}"], dealt["dealer"]
        for action in rnd.legal_actions(seat):
            for sc in found:
                base = sc.score_dealt(dealt, seat, action, prior)
                for j in range(len(dealer)):
                    free = [c for c in range(52) if c not in mine and c not in dealer]
                    other = dict(dealt, dealer=[*dealer[:j], rng.choice(free), *dealer[j + 1 :]])
                    other[f"seat {seat}"] = [mine[1], mine[0], *mine[2:]]
                    score = sc.score_dealt(other, seat, action, prior)
                    same = (score.mistake, score.p, score.supported) == (base.mistake, base.p, base.supported)
                    changed += not same
                    if sc.score_key(other, seat, action, prior) == sc.score_key(dealt, seat, action, prior):
                        assert same, (sc.scenario, mine, dealer, j)
                    if sc.mistake_key(other, seat, action, prior) == sc.mistake_key(
                        dealt, seat, action, prior
                    ):
                        assert sc.mistake_dealt(other, seat, action, prior) == sc.mistake_dealt(
                            dealt, seat, action, prior
                        )
                # the whole deal with its suits relabelled (a hand of the same class, the same exposure)
                perm = rng.sample(range(4), 4)
                relabel = {k: [(c >> 2) * 4 + perm[c & 3] for c in v] for k, v in dealt.items()}
                score = sc.score_dealt(relabel, seat, action, prior)
                if sc.score_key(relabel, seat, action, prior) == sc.score_key(dealt, seat, action, prior):
                    assert (score.mistake, score.p, score.supported) == (base.mistake, base.p, base.supported)
                if action.index is not None:  # (a One Eyed Flush discard names its card by position)
                    continue
                reordered = dict(dealt, **{f"seat {seat}": [mine[1], mine[0], *mine[2:]]})
                assert sc.score_key(reordered, seat, action, prior) == sc.score_key(
                    dealt, seat, action, prior
                )
                assert sc.mistake_key(reordered, seat, action, prior) == sc.mistake_key(
                    dealt, seat, action, prior
                )
        rnd.act(seat, rnd.legal_actions(seat)[rng.randrange(len(rnd.legal_actions(seat)))])
    assert changed > 0
