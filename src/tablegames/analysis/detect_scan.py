"""The fast offline scan of ``tablegames detect --database`` (issue 27: 10^6 stored rounds in under a minute).

:func:`scan` reads one range of round ids in batches of :data:`BATCH` rounds (the JSON columns as bytes, through
the driver's cursor) and reads each batch in arrays (:func:`~tablegames.analysis.detect_chunk.parse_batch`: every
deal's card and every decision, the events not decoded). A game with an array scorer
(``analysis/<stem>_detect_arrays.py``, its ``mistakes(scorer, decisions)``) has its decisions checked for mistakes
under the legal information all at once; the rest (its mistakes, the decisions it does not read, every decision of
a game without one) are scored one by one, caching each decision's answers (a mistake under the legal
information; each scenario's ``p`` and support) by the game's key of what they depend on (``Scorer.mistake_key``,
``Scorer.score_key``). It does not keep the tests: it returns, per player and game, the log that replays into
them (:func:`replay`): the hands entered between mistakes, and each mistake's answers. A test's steps depend on
the hands only through their count and the last hand (``SequentialTest.enter``), so the replay makes exactly the
calls' effect of :func:`~tablegames.analysis.detect_db.detect_database_reference`, and ranges scanned apart (in
several processes) replay in order into the same tests.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import detect, detect_chunk
from tablegames.engine import Action
from tablegames.rules import make_rules, registry
from tablegames.rules.common import RuleError

IntArray = npt.NDArray[np.int64]
_CACHE_LIMIT = 500_000
"""Cached answers per game and scenario before the cache starts afresh (bounds the memory)."""

Answer = tuple[bool, Any, bool]
"""A scored decision under one scenario: the score's ``mistake``, ``p`` and ``supported``."""
Entry = tuple[int, int, int, list[Answer] | None]
"""``(new hands, the last hand, the hand of the mistake, its answers per scenario)``; a final entry of a range
has no mistake (``answers`` None)."""


def engine(url: str) -> Any:
    """A SQLAlchemy engine on the server's database (RuleError when a SQLite file is missing)."""
    from sqlalchemy import create_engine

    from tablegames.server.db import normalize_url

    url = normalize_url(url)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        from pathlib import Path

        if not Path(url.split(":///", 1)[1]).exists():
            raise RuleError(f"no database at {url}")
    return create_engine(url)


def _where(query: Any, since: float | None, lo: int | None = None, hi: int | None = None) -> Any:
    from tablegames.server.db import SETTLED, RoundRow

    query = query.where(RoundRow.status == SETTLED, RoundRow.game.in_(list(detect.COVERED)))
    if since is not None:
        query = query.where(RoundRow.settled_at >= since)
    if lo is not None:
        query = query.where(RoundRow.id >= lo)
    if hi is not None:
        query = query.where(RoundRow.id < hi)
    return query


def id_range(url: str, since: float | None = None) -> tuple[int, int, int]:
    """How many rounds the scan reads, and their smallest and largest ids (0, 0 when none)."""
    from sqlalchemy import func, select

    from tablegames.server.db import RoundRow

    eng = engine(url)
    try:
        with eng.connect() as conn:
            query = _where(
                select(func.count(RoundRow.id), func.min(RoundRow.id), func.max(RoundRow.id)), since
            )
            n, lo, hi = conn.execute(query).one()
            return int(n), int(lo or 0), int(hi or 0)
    finally:
        eng.dispose()


BATCH = 4_000
"""Rounds read into arrays at a time (a range of :func:`scan` is read in batches)."""


def _batches(url: str, since: float | None, lo: int | None, hi: int | None) -> Iterator[list[Any]]:
    """The settled rounds of the covered games with ids in [lo, hi), oldest first, in lists of ``batch`` rows:
    id, game, and the rules, deck, seats and events as JSON text in bytes (:data:`BATCH` rows a list). Through the driver's own cursor (a
    row object each costs as much as the rest); on SQLite the JSON read as blobs (no text decoding) from the
    file mapped in memory."""
    from sqlalchemy import LargeBinary, Text, cast, select

    from tablegames.server.db import RoundRow

    eng = engine(url)
    sqlite = eng.dialect.name == "sqlite"
    as_bytes: Any = LargeBinary if sqlite else Text
    query = select(
        RoundRow.id,
        RoundRow.game,
        cast(RoundRow.rules, as_bytes),
        cast(RoundRow.deck, as_bytes),
        cast(RoundRow.seat_players, as_bytes),
        cast(RoundRow.events, as_bytes),
    )
    compiled = (
        _where(query, since, lo, hi)
        .order_by(RoundRow.id)
        .compile(dialect=eng.dialect, compile_kwargs={"render_postcompile": True})
    )
    params = compiled.params
    args: Any = tuple(params[k] for k in compiled.positiontup or ()) if compiled.positional else params
    try:
        raw = eng.raw_connection()
        try:
            cursor = raw.cursor()
            if sqlite:
                cursor.execute("PRAGMA mmap_size = 1099511627776")
            cursor.execute(str(compiled), args)
            while rows := cursor.fetchmany(BATCH):
                if sqlite:
                    yield rows
                else:
                    yield [(*r[:2], *(None if x is None else x.encode() for x in r[2:])) for r in rows]
        finally:
            raw.close()
    finally:
        eng.dispose()


@dataclass
class _Game:
    """One game under one rule set: its scorers (one per scenario) and their cached answers."""

    game: str
    scorers: list[Any]
    arrays: Any = None  # the game's array scorer (``analysis/<stem>_detect_arrays.py``), if it has one
    pairs: list[Any] = field(default_factory=list)  # the pair scorers (``detect.pair_scorer``), if any
    mistakes: dict[Hashable, bool] = field(default_factory=dict)
    scores: list[dict[Hashable, Answer]] = field(default_factory=list)

    def answers(
        self, dealt: dict[str, list[int]], seat: int, action: Action, before: list[Action]
    ) -> list[Answer] | None:
        """The decision's answers under each scenario, None when it is not a mistake (the cached
        ``mistake_dealt``, the legal check every scenario shares)."""
        first = self.scorers[0]
        key = first.mistake_key(dealt, seat, action, before)
        mistake = self.mistakes.get(key)
        if mistake is None:
            if len(self.mistakes) >= _CACHE_LIMIT:
                self.mistakes.clear()
            mistake = self.mistakes[key] = bool(first.mistake_dealt(dealt, seat, action, before))
        if not mistake:
            return None
        out = []
        for sc, cache in zip(self.scorers, self.scores, strict=True):
            skey = sc.score_key(dealt, seat, action, before)
            answer = cache.get(skey)
            if answer is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                score = sc.score_dealt(dealt, seat, action, before)
                answer = cache[skey] = (score.mistake, score.p, score.supported)
            out.append(answer)
        return out


@dataclass
class Partial:
    """A range's scan: its counts, and per player and game the scenarios and the log (:data:`Entry`)."""

    rounds: int = 0
    decisions: int = 0
    logs: dict[tuple[Any, ...], tuple[list[str], list[Entry]]] = field(default_factory=dict)
    pair_rounds: int = 0  # the pair tests' (:mod:`tablegames.analysis.detect_pairs_scan`), when scanned
    pair_decisions: int = 0
    pair_logs: dict[tuple[Any, ...], tuple[list[str], list[Entry]]] = field(default_factory=dict)


def _game(game: str, rule_text: bytes | str | None, by_rules: dict[tuple[str, str], _Game]) -> _Game:
    rule_map = (json.loads(rule_text) if rule_text else None) or {}
    key = (game, repr(sorted(rule_map.items())))  # the reference's key of a rule set
    g = by_rules.get(key)
    if g is None:
        rules = make_rules(game, dict(rule_map))
        scorers = [detect.scorer(rules, s) for s in detect.scenarios(rules)]
        pairs = [detect.pair_scorer(rules, s) for s in detect.pair_scenarios(rules)]
        g = by_rules[key] = _Game(game, scorers, _arrays(rules), pairs, scores=[{} for _ in scorers])
    return g


def _arrays(rules: Any) -> Any:
    """A game's array scorer: the module ``analysis/<stem>_detect_arrays.py`` when the game has one (its
    ``mistakes(scorer, decisions)``: which decisions it reads, and which of those are mistakes)."""
    name = f"tablegames.analysis.{registry.of(rules).key.replace('-', '_')}_detect_arrays"
    return importlib.import_module(name) if importlib.util.find_spec(name) is not None else None


_GAMES: dict[tuple[str, str], _Game] = {}
"""The process' scorers and their caches, by game and rule set (kept from one scan to the next)."""


def forget() -> None:
    """Drop the process' scorers and cached answers (the game's tables stay: a benchmark's fair second run)."""
    _GAMES.clear()


def _seat_table(maps: list[dict[int, int]]) -> IntArray:
    """Each seat map's player by seat number (-1: no player)."""
    width = 1 + max((max(m, default=0) for m in maps), default=0)
    table = np.full((max(len(maps), 1), width), -1, dtype=np.int64)
    for i, m in enumerate(maps):
        for seat, player in m.items():
            table[i, seat] = player
    return table


def _seat_map(text: bytes | None) -> dict[int, int]:
    """A round's ``seat_players``: the player of each seat the reference finds (``str(seat)`` keys)."""
    found = (json.loads(text) if text else None) or {}
    return {int(k): int(v) for k, v in found.items() if v is not None and k.isdigit() and str(int(k)) == k}


def _groups(key: IntArray) -> tuple[IntArray, IntArray]:
    """For rows in order, each one's rank among the rows of its key before it, and the row of its key's first
    one (the keys' rows kept in order)."""
    order = np.argsort(key, kind="stable")
    k = key[order]
    start = np.ones(len(k), dtype=np.bool_)
    start[1:] = k[1:] != k[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(len(k)), 0))
    rank = np.empty(len(k), dtype=np.int64)
    rank[order] = np.arange(len(k)) - first
    head = np.empty(len(k), dtype=np.int64)
    head[order] = order[first]
    return rank, head


class _Scan:
    """One range's scan in progress (see :func:`scan`)."""

    def __init__(self, pairs: bool = False) -> None:
        self.part = Partial()
        self.seat_texts: list[bytes | None] = []
        self.games: dict[tuple[str, bytes | None], int] = {}
        self.found: list[_Game] = []
        self.seat_index: dict[bytes | None, int] = {}
        self.seat_maps: list[dict[int, int]] = []
        self.table = _seat_table([])
        self.actions: dict[str, Action] = {}
        self.answers: list[list[Answer]] = []
        self.logged: list[tuple[IntArray, IntArray, IntArray, IntArray]] = []
        self.pairs: Any = None
        if pairs:
            from tablegames.analysis.detect_pairs_scan import PairScan

            self.pairs = PairScan(self)

    def _game_of(self, key: tuple[str, bytes | None]) -> int:
        i = self.games.get(key)
        if i is None:
            i = self.games[key] = len(self.found)
            self.found.append(_game(key[0], key[1], _GAMES))
        return i

    def _seats_of(self, text: bytes | None) -> int:
        i = self.seat_index.get(text)
        if i is None:
            i = self.seat_index[text] = len(self.seat_maps)
            self.seat_maps.append(_seat_map(text))
            self.seat_texts.append(text)
            self.table = _seat_table(self.seat_maps)
        return i

    def action(self, name: str) -> Action:
        found = self.actions.get(name)
        if found is None:
            found = self.actions[name] = Action.parse(name)
        return found

    def batch(self, rows: list[Any]) -> None:
        """Score one batch of rows (:func:`_batches`)."""
        ids_t, game_t, rules_t, deck_t, seats_t, events_t = zip(*rows, strict=True)
        n = len(rows)
        ids = np.fromiter(ids_t, dtype=np.int64, count=n)
        gi = np.fromiter(map(self._game_of, zip(game_t, rules_t, strict=True)), dtype=np.int64, count=n)
        si = np.fromiter(map(self._seats_of, seats_t), dtype=np.int64, count=n)
        b = detect_chunk.parse_batch(list(events_t), list(deck_t))
        self.part.rounds += n
        ar, seat = b.act_round, b.act_seat
        width = self.table.shape[1]
        player = np.where(seat < width, self.table[si[ar], np.minimum(seat, width - 1)], -1)
        scored = b.act_player & (player >= 0)
        self.part.decisions += int(np.count_nonzero(scored))
        need = (
            scored.copy()
        )  # decisions scored one by one (the generic path): all but array-scored no mistakes
        ans = np.full(len(ar), -1, dtype=np.int64)
        prior, head = _groups(ar * (int(seat.max(initial=0)) + 1) + seat)
        cards = _dealt(b, n)
        for g in np.unique(gi[ar[scored]]).tolist():
            arrays = self.found[g].arrays
            if arrays is None:
                continue
            sel = np.flatnonzero(scored & (gi[ar] == g))
            d = cards.decisions(b, sel, prior, head, [self.action(x) for x in b.names])
            ok, mistake = arrays.mistakes(self.found[g].scorers[0], d)
            need[sel[ok & ~mistake]] = False
            score = getattr(arrays, "answers", None)  # the mistakes scored in arrays too, if it can
            wrong = np.flatnonzero(ok & mistake)
            if score is not None and len(wrong):
                read, scores = score(self.found[g].scorers, d.take(wrong))
                done = sel[wrong[read]]
                need[done] = False
                ans[done] = np.arange(len(self.answers), len(self.answers) + len(scores))
                self.answers.extend(scores)
        if need.any():
            self._generic(b, np.flatnonzero(need), gi, ans)
        rid = ids[ar[scored]]
        self.logged.append((rid, player[scored], gi[ar[scored]], ans[scored]))
        if self.pairs is not None:
            self.pairs.batch(b, ids, gi, si, cards, scored & (ans >= 0), (prior, head))

    def _generic(self, b: detect_chunk.Batch, need: IntArray, gi: IntArray, ans: IntArray) -> None:
        """The decisions ``need`` scored one by one (the game's cached answers), round by round."""
        wanted = set(need.tolist())
        for r, dealt, steps in walk(b, np.unique(b.act_round[need]).tolist(), self.action):
            g = self.found[int(gi[r])]
            for k, s, action, before in steps:
                if k in wanted:
                    answers = g.answers(dealt, s, action, before)
                    if answers is not None:
                        ans[k] = len(self.answers)
                        self.answers.append(answers)

    def finish(self) -> Partial:
        """The logs per player and game (:data:`Entry`), from the scored decisions in order."""
        if self.logged:
            rid, player, gi, ans = (np.concatenate(x) for x in zip(*self.logged, strict=True))
            self.part.logs = logs([player], rid, gi, ans, self.answers, self.found)
        if self.pairs is not None:
            self.pairs.finish(self.part)
        return self.part


def logs(
    who: list[IntArray],
    rid: IntArray,
    gi: IntArray,
    ans: IntArray,
    answers: list[list[Answer]],
    found: list[_Game],
    pairs: bool = False,
) -> dict[tuple[Any, ...], tuple[list[str], list[Entry]]]:
    """The logs (:data:`Entry`) per test key (the columns ``who``, then the game's name) of decisions in order:
    each one's round id, game (an index into ``found``) and answers (an index into ``answers``, -1: no
    mistake); the scenarios the game's scorers' (``pairs``: its pair scorers')."""
    if not len(rid):
        return {}
    names = sorted({g.game for g in found})
    game_of = np.asarray([names.index(g.game) for g in found], dtype=np.int64)
    key = game_of[gi]
    size = len(names)
    columns: list[tuple[Any, int]] = []  # each column's values (None: the ids themselves) and their count
    for c in who:
        if int(c.min()) >= 0 and int(c.max()) < 1 << 20:
            values, inverse, n = None, c, int(c.max()) + 1
        else:
            values, inverse = np.unique(c, return_inverse=True)
            inverse, n = inverse.ravel(), len(values)
        key = key + inverse * size
        columns.append((values, n))
        size *= n
    order = np.argsort(key, kind="stable")  # a key's rows together, in order
    ordered = key[order]
    change = np.ones(len(order), dtype=np.bool_)
    change[1:] = ordered[1:] != ordered[:-1]
    heads = np.flatnonzero(change)
    keys = ordered[heads]
    rr, aa = rid[order], ans[order]
    new = change.astype(np.int64)
    new[1:] |= rr[1:] != rr[:-1]  # a new hand (SequentialTest.enter)
    cum = np.cumsum(new).tolist()
    ends = [*heads.tolist(), len(order)]
    mistakes = np.flatnonzero(aa >= 0)
    mistake_bounds = np.searchsorted(mistakes, ends).tolist()
    rr_list, aa_list, mistake_list = rr.tolist(), aa.tolist(), mistakes.tolist()
    scenario_names = {g.game: [sc.scenario for sc in (g.pairs if pairs else g.scorers)] for g in found}
    out: dict[tuple[Any, ...], tuple[list[str], list[Entry]]] = {}
    for u, k in enumerate(keys.tolist()):
        lo, hi = ends[u], ends[u + 1]
        log: list[Entry] = []
        done = cum[lo] - 1
        for m in mistake_list[mistake_bounds[u] : mistake_bounds[u + 1]]:
            log.append((cum[m] - done, rr_list[m], rr_list[m], answers[aa_list[m]]))
            done = cum[m]
        if cum[hi - 1] > done:
            log.append((cum[hi - 1] - done, rr_list[hi - 1], rr_list[hi - 1], None))
        game = names[k % len(names)]
        k //= len(names)
        ids = []
        for values, n in columns:
            ids.append(k % n if values is None else int(values[k % n]))
            k //= n
        out[(*ids, game)] = (scenario_names[game], log)
    return out


def walk(
    b: detect_chunk.Batch, rounds: list[int], action_of: Callable[[str], Action]
) -> Iterator[tuple[int, dict[str, list[int]], Iterator[tuple[int, int, Action, list[Action]]]]]:
    """The batch's rounds ``rounds`` (ascending) one by one: each one's dealt cards by owner and its decisions
    in order, each with its seat's earlier actions in the round (the reference's ``dealt`` and ``prior``)."""
    if not rounds:
        return
    top = np.arange(rounds[-1] + 2)
    deal_bounds = np.searchsorted(b.deal_round, top).tolist()
    act_bounds = np.searchsorted(b.act_round, top).tolist()
    owners, cards = b.deal_owner.tolist(), b.deal_card.tolist()
    seats, names = b.act_seat.tolist(), b.act_name.tolist()

    def steps(r: int) -> Iterator[tuple[int, int, Action, list[Action]]]:
        prior: dict[int, list[Action]] = {}
        for k in range(act_bounds[r], act_bounds[r + 1]):
            s = seats[k]
            before = prior.setdefault(s, [])
            action = action_of(b.names[names[k]])
            yield k, s, action, before
            before.append(action)

    for r in rounds:
        dealt: dict[str, list[int]] = {}
        for j in range(deal_bounds[r], deal_bounds[r + 1]):
            dealt.setdefault(b.owners[owners[j]], []).append(cards[j])
        yield r, dealt, steps(r)


class _Dealt:
    """A batch's dealt cards by round and owner column (0 the dealer, 1 + N seat N), in deal order."""

    def __init__(self, b: detect_chunk.Batch, rounds: int) -> None:
        col = np.asarray([_column(o) for o in b.owners] or [-1], dtype=np.int64)[b.deal_owner]
        keep = col >= 0
        self.columns = int(col.max(initial=0)) + 1
        key = b.deal_round[keep] * self.columns + col[keep]
        rank, _ = _groups(key)
        width = int(rank.max(initial=-1)) + 1
        self.cards = np.full((rounds * self.columns, max(width, 1)), -1, dtype=np.int64)
        self.cards[key, rank] = b.deal_card[keep]
        self.count = np.bincount(key, minlength=rounds * self.columns).astype(np.int64)

    def decisions(
        self, b: detect_chunk.Batch, sel: IntArray, prior: IntArray, head: IntArray, actions: list[Action]
    ) -> detect_chunk.Decisions:
        r, seat = b.act_round[sel], b.act_seat[sel]
        inside = seat + 1 < self.columns
        row = np.where(inside, r * self.columns + seat + 1, 0)
        dealer = r * self.columns
        return detect_chunk.Decisions(
            seat=seat,
            cards=np.where(inside[:, None], self.cards[row], -1),
            count=np.where(inside, self.count[row], 0),
            dealer=self.cards[dealer],
            dealer_count=self.count[dealer],
            action=b.act_name[sel],
            actions=actions,
            prior=prior[sel],
            prior_first=np.where(prior[sel] > 0, b.act_name[head[sel]], -1),
        )


def _dealt(b: detect_chunk.Batch, rounds: int) -> _Dealt:
    return _Dealt(b, rounds)


def _column(owner: str) -> int:
    if owner == "dealer":
        return 0
    name, _, number = owner.partition(" ")
    return 1 + int(number) if name == "seat" and number.isdigit() and str(int(number)) == number else -1


def scan(
    url: str, since: float | None = None, lo: int | None = None, hi: int | None = None, pairs: bool = False
) -> Partial:
    """Score the decisions of the rounds with ids in [lo, hi) (see the module); ``pairs``: the pair tests'
    logs too (:mod:`tablegames.analysis.detect_pairs_scan`)."""
    state = _Scan(pairs)
    for rows in _batches(url, since, lo, hi):
        state.batch(rows)
    return state.finish()


def replay(
    logs: dict[tuple[Any, ...], tuple[list[str], list[Entry]]],
    tests: dict[tuple[Any, ...], detect.SequentialTest],
    alpha: float,
) -> None:
    """A range's logs (:attr:`Partial.logs` or :attr:`Partial.pair_logs`) into the tests, keyed by the log's
    key and the scenario (ranges in the order of their ids)."""
    for key, (names, log) in logs.items():
        found = [
            tests.setdefault((*key, name), detect.SequentialTest(alpha=alpha, scenarios=len(names)))
            for name in names
        ]
        for new, last, rid, answers in log:
            if new:
                for t in found:
                    t.enter_many(new, last)
            if answers is not None:
                for t, (mistake, p, supported) in zip(found, answers, strict=True):
                    t.observe_values(mistake, p, supported, hand=rid)
