"""The collusion pair tests on the fast offline scan (``tablegames detect --database``, issue 27).

:class:`PairScan` rides on :class:`~tablegames.analysis.detect_scan._Scan`: each batch, read once in arrays
(:func:`~tablegames.analysis.detect_chunk.parse_batch`), gives the pair tests' logs as well as the player tests'.
The rows are the reference's calls (:func:`~tablegames.analysis.detect_pairs_db.detect_pairs_database_reference`),
in its order: for every decision the player took (``by`` "player") at a seat of the round's pair players (the
``seat_players`` entries whose seat was dealt cards), one row per other seat of those whose player is another,
``(player, partner, round)``; with the decision's answers under each pair scenario when it is a mistake under
the legal information (the player scan's check: the pair scorers' is the game's own scorer's,
:class:`~tablegames.analysis.detect.LegalMistakes`) taken before the partner's seat acted in the round. The
rows are counted in arrays from the seat maps; only those answers are scored, one by one (cached by the pair
scorer's ``score_key``). A round whose ``seat_players`` has a key other than a seat number written plainly
(never the server's) is read one decision at a time, as the reference reads it.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.analysis import detect_chunk
from tablegames.analysis.detect_scan import _CACHE_LIMIT, Answer, Partial, _Dealt, _Game, _Scan, logs, walk

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def _plain(text: bytes | None) -> bool:
    """Whether a ``seat_players`` text's keys with a player are all seat numbers written plainly (the player
    scan's seat map is then the pair scan's, before the dealt seats are required)."""
    found = (json.loads(text) if text else None) or {}
    return all(k.isdigit() and str(int(k)) == k for k, v in found.items() if v is not None)


class PairScan:
    """The pair rows of a range's batches (see the module), turned into logs at :meth:`finish`."""

    def __init__(self, scan: _Scan) -> None:
        self.scan = scan
        self.plain: list[bool] = []
        self.answers: list[list[Answer]] = []
        self.rows: list[tuple[IntArray, ...]] = []
        self.mistakes: dict[tuple[int, Hashable], bool] = {}
        self.scores: dict[tuple[int, Hashable], Answer] = {}

    def batch(
        self,
        b: detect_chunk.Batch,
        ids: IntArray,
        gi: IntArray,
        si: IntArray,
        cards: _Dealt,
        mistake: BoolArray,
        prior: tuple[IntArray, IntArray],
    ) -> None:
        """One batch's rows: ``gi`` and ``si`` each round's game and seat map (indices into the scan's),
        ``cards`` its dealt cards, ``mistake`` which decisions the player scan found mistakes, ``prior`` each
        decision's count of its seat's earlier actions in the round and the row of the first."""
        scan, part = self.scan, self.scan.part
        while len(self.plain) < len(scan.seat_texts):
            self.plain.append(_plain(scan.seat_texts[len(self.plain)]))
        n = len(ids)
        covered = np.asarray([bool(g.pairs) for g in scan.found], dtype=np.bool_)[gi]
        part.pair_rounds += int(np.count_nonzero(covered))
        odd = covered & ~np.asarray(self.plain, dtype=np.bool_)[si]
        table = scan.table
        width = table.shape[1]
        # each round's pair players by seat: the seat map's, where the seat was dealt cards (-1: none)
        dealt = np.zeros((n, width), dtype=np.int64)
        w = min(width, cards.columns - 1)
        dealt[:, :w] = cards.count.reshape(n, cards.columns)[:, 1 : 1 + w]
        pp = np.where((dealt > 0) & (covered & ~odd)[:, None], table[si], -1)
        ar, seat = b.act_round, b.act_seat
        inside = seat < width
        player = np.where(inside, pp[ar, np.minimum(seat, width - 1)], -1)
        taken = b.act_player & (player >= 0)
        part.pair_decisions += int(np.count_nonzero(taken))
        # each seat's first action of the round (a partner who acted before a decision: its cards not counted)
        first = np.full((n, width), len(ar), dtype=np.int64)
        inner = np.flatnonzero(inside)
        _, at = np.unique(ar[inner] * width + seat[inner], return_index=True)
        first[ar[inner[at]], seat[inner[at]]] = inner[at]
        kd = np.flatnonzero(taken)
        partners = pp[ar[kd]]
        di, o = np.nonzero((partners >= 0) & (partners != player[kd][:, None]))
        k = kd[di]
        ans = np.full(len(k), -1, dtype=np.int64)
        score = mistake[k] & (first[ar[k], o] > k)
        self._arrays(b, cards, gi, k, o, score, ans, prior)
        wanted: dict[int, list[tuple[int, int]]] = {}
        for row in np.flatnonzero(score).tolist():
            wanted.setdefault(int(k[row]), []).append((row, int(o[row])))
        extra: list[
            tuple[int, int, int, int, int]
        ] = []  # the odd rounds' rows: decision, player, partner, round, answers
        rounds = sorted({int(ar[x]) for x in wanted} | set(np.flatnonzero(odd).tolist()))
        for r, cards_of, steps in walk(b, rounds, scan.action):
            g = scan.found[int(gi[r])]
            if odd[r]:
                self._odd(g, cards_of, steps, scan.seat_texts[int(si[r])], b.act_player, extra)
                continue
            for kk, s, action, before in steps:
                for row, partner in wanted.get(kk, ()):
                    ans[row] = self._answers(g, cards_of, s, action, before, partner)
        rid = ids[ar[k]]
        cols = [k, player[k], partners[di, o], gi[ar[k]], rid, ans]
        if extra:
            x = np.asarray(extra, dtype=np.int64)
            rid_x = ids[ar[x[:, 0]]]
            cols = [
                np.concatenate(c)
                for c in zip(cols, [x[:, 0], x[:, 1], x[:, 2], gi[ar[x[:, 0]]], rid_x, x[:, 3]], strict=True)
            ]
            order = np.argsort(cols[0], kind="stable")  # the decisions' order (each decision's rows together)
            cols = [c[order] for c in cols]
        self.rows.append(tuple(cols[1:]))

    def _arrays(
        self,
        b: detect_chunk.Batch,
        cards: _Dealt,
        gi: IntArray,
        k: IntArray,
        o: IntArray,
        score: BoolArray,
        ans: IntArray,
        prior: tuple[IntArray, IntArray],
    ) -> None:
        """The rows ``score`` of games whose array scorer has ``pair_answers`` scored in arrays (``ans`` set,
        ``score`` cleared where read)."""
        rows = np.flatnonzero(score)
        game = gi[b.act_round[k[rows]]]
        for g in np.unique(game).tolist():
            found = self.scan.found[g]
            pair_answers = getattr(found.arrays, "pair_answers", None)
            if pair_answers is None:
                continue
            sel = rows[game == g]
            d = cards.decisions(b, k[sel], *prior, [self.scan.action(x) for x in b.names])
            at = b.act_round[k[sel]] * cards.columns + o[sel] + 1
            read, got = pair_answers(found.pairs, d, cards.cards[at], cards.count[at])
            done = sel[read]
            ans[done] = np.arange(len(self.answers), len(self.answers) + len(got))
            score[done] = False
            self.answers.extend(got)

    def _odd(
        self,
        g: _Game,
        dealt: dict[str, list[int]],
        steps: Any,
        seat_text: bytes | None,
        by_player: BoolArray,
        out: list[Any],
    ) -> None:
        """A round read one decision at a time, as the reference reads it (its seat map's keys not plain)."""
        found = (json.loads(seat_text) if seat_text else None) or {}
        players = {int(s): int(p) for s, p in found.items() if p is not None and f"seat {s}" in dealt}
        acted: set[int] = set()
        first = g.pairs[0]
        for k, s, action, before in steps:
            player = players.get(s)
            if player is not None and by_player[k]:
                self.scan.part.pair_decisions += 1
                key = (id(first), first.mistake_key(dealt, s, action, before))
                mistake = self.mistakes.get(key)
                if mistake is None:
                    mistake = self.mistakes[key] = bool(first.mistake_dealt(dealt, s, action, before))
                for other, partner in players.items():
                    if partner != player:
                        scored = mistake and other not in acted
                        ans = self._answers(g, dealt, s, action, before, other) if scored else -1
                        out.append((k, player, partner, ans))
            acted.add(s)

    def _answers(
        self, g: _Game, dealt: dict[str, list[int]], seat: int, action: Any, before: list[Any], partner: int
    ) -> int:
        """A mistake's answers under each pair scenario against ``partner``'s cards (cached by the scorer's
        ``score_key``): their index into :attr:`answers`."""
        out = []
        for sc in g.pairs:
            key = (id(sc), sc.score_key(dealt, seat, action, before, partner=partner))
            answer = self.scores.get(key)
            if answer is None:
                if len(self.scores) >= _CACHE_LIMIT:
                    self.scores.clear()
                s = sc.score_dealt(dealt, seat, action, before, partner=partner)
                answer = self.scores[key] = (True, s.p, s.supported)
            out.append(answer)
        self.answers.append(out)
        return len(self.answers) - 1

    def finish(self, part: Partial) -> None:
        """The pair tests' logs, keyed ``(player, partner, game)``."""
        if self.rows:
            player, partner, gi, rid, ans = (np.concatenate(c) for c in zip(*self.rows, strict=True))
            if len(rid):
                part.pair_logs = logs(
                    [player, partner], rid, gi, ans, self.answers, self.scan.found, pairs=True
                )
