"""The stored rounds of a batch read in arrays (``tablegames detect --database``'s scan, issue 27).

:func:`parse_batch` takes a batch of rounds' ``events`` and ``deck`` columns as bytes (the JSON text) and gives,
in NumPy arrays over the whole batch, every deal (the round, the owner, the card: the deck at the recorded
position) and every decision (the round, the seat, the action, whether the player took it) in the rounds' order
and the events' order, as the reference reads them by decoding each round's JSON
(:func:`~tablegames.analysis.detect_db.detect_database_reference`).

The events as the engine writes them (``Event.to_dict`` through the standard encoder) are read without decoding
the rest of the text: every occurrence of ``"card_dealt"`` and ``"action"`` in the batch is found by vector
comparisons, and each must open an event of exactly the engine's shape::

    {"type": "card_dealt", "to": "<str>", "position": <digits>, "card": "<str>", "visible_to": "<str>"}
    {"type": "action", "seat": <digits>, "action": "<str>", "by": "<str>"}

(a string here: up to :data:`WIDTH` bytes, no quote or backslash; an ``"action"`` key of an action event is
the second occurrence its event accounts for). A round with an occurrence these do not account for, or any
other layout, is decoded as JSON instead (the same answer, slower); so is a deck that is not a plain list of
integers. A round's texts are valid JSON as the server stores them (a raw NUL byte, the separator of the
batch, cannot occur in one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
WIDTH = 24
"""The longest string field read in arrays (a longer owner, card or action name: the round read as JSON)."""
_PAD = 4 * WIDTH + 64

_DEAL_OPEN = b'{"type": '
_DEAL = b'"card_dealt"'
_TO = b', "to": "'
_POSITION = b'", "position": '
_CARD = b', "card": "'
_VISIBLE = b'", "visible_to": "'
_CLOSE = b'"}'
_ACTION = b'"action"'
_SEAT = b', "seat": '
_ACTION_KEY = b', "action": "'
_BY = b'", "by": "'
_PLAYER = b'player"'


@dataclass
class Batch:
    """A batch's deals and decisions (rows in the rounds' order, then the events'); owner and action names
    as codes into :attr:`owners` and :attr:`names`, seats and positions as numbers."""

    deal_round: IntArray
    deal_owner: IntArray
    deal_card: IntArray
    act_round: IntArray
    act_seat: IntArray
    act_name: IntArray
    act_player: BoolArray  # taken by the player (``by`` is "player"), not the server for them
    owners: list[str]
    names: list[str]


@dataclass
class Decisions:
    """Decisions of one game handed to its array scorer (``analysis/<stem>_detect_arrays.py``): per decision
    the seat's dealt cards and the dealer's in deal order (padded with -1 past their counts), the action (a
    code into :attr:`actions`) and the seat's earlier actions in the round (how many, the first one's code,
    -1 for none)."""

    seat: IntArray
    cards: IntArray  # [n, width]
    count: IntArray
    dealer: IntArray  # [n, width]
    dealer_count: IntArray
    action: IntArray
    actions: list[Any]  # the Action of each code
    prior: IntArray
    prior_first: IntArray

    def take(self, rows: IntArray) -> Decisions:
        """The decisions ``rows`` of these."""
        return Decisions(
            self.seat[rows],
            self.cards[rows],
            self.count[rows],
            self.dealer[rows],
            self.dealer_count[rows],
            self.action[rows],
            self.actions,
            self.prior[rows],
            self.prior_first[rows],
        )


def _find(a: npt.NDArray[np.uint8], word: bytes, at: int, check: bool = True) -> IntArray:
    """Every start of ``word`` in ``a``, ascending: the four bytes of ``word`` from ``at`` compared as one
    32-bit word at each of the four alignments (one pass over the bytes), the candidates checked whole (not
    ``check``: the candidates, for the caller to check)."""
    key = np.frombuffer(word[at : at + 4], dtype=np.uint32)[0]
    found = []
    for shift in range(4):
        m = (len(a) - shift) // 4
        words = a[shift : shift + 4 * m].view(np.uint32)
        found.append(np.flatnonzero(words == key) * 4 + (shift - at))
    idx = np.sort(np.concatenate(found)).astype(np.int64)
    idx = idx[(idx >= 0) & (idx + len(word) <= len(a))]
    if check and len(idx):
        idx = idx[_is(a, idx, word)]
    return idx


def _rows(a: npt.NDArray[np.uint8], at: IntArray, width: int) -> npt.NDArray[np.uint8]:
    """The ``width`` bytes from each of ``at`` (rows of a strided view: a row copied at a time)."""
    view = np.lib.stride_tricks.as_strided(
        a, shape=(len(a) - width + 1, width), strides=(1, 1), writeable=False
    )
    out: npt.NDArray[np.uint8] = view[at]
    return out


def _is(a: npt.NDArray[np.uint8], at: IntArray, word: bytes) -> BoolArray:
    """Whether ``word`` lies at each of ``at``."""
    if not len(at):
        return np.zeros(0, dtype=np.bool_)
    out: BoolArray = (_rows(a, at, len(word)) == np.frombuffer(word, np.uint8)).all(axis=1)
    return out


def _string(a: npt.NDArray[np.uint8], at: IntArray) -> tuple[IntArray, BoolArray, npt.NDArray[np.uint8]]:
    """The string field starting at each of ``at`` (just after its opening quote): its length, whether it is
    one read in arrays (a closing quote within :data:`WIDTH`, no backslash or NUL before it), its bytes padded
    with NULs."""
    w = _rows(a, at, WIDTH)
    quote = w == 34
    found = quote.any(axis=1)
    n = np.where(found, quote.argmax(axis=1), WIDTH).astype(np.int64)
    inside = np.arange(WIDTH) < n[:, None]
    ok = found & ~(inside & ((w == 92) | (w == 0))).any(axis=1)
    return n, ok, np.where(inside, w, 0).astype(np.uint8)


def _digits(a: npt.NDArray[np.uint8], at: IntArray) -> tuple[IntArray, IntArray, BoolArray]:
    """The unsigned integer starting at each of ``at``: its digit count, its value, whether it is one (1-6
    digits, then a non-digit)."""
    w = _rows(a, at, 7).astype(np.int64) - 48
    digit = (w >= 0) & (w <= 9)
    n = np.where(digit.all(axis=1), 7, (~digit).argmax(axis=1)).astype(np.int64)
    value = np.zeros(len(at), dtype=np.int64)
    for j in range(6):
        value = np.where(j < n, value * 10 + np.where(digit[:, j], w[:, j], 0), value)
    return n, value, (n >= 1) & (n <= 6)


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))
"""The multipliers mixing a name's three 64-bit words into its hash (:func:`_codes`)."""


def _codes(padded: npt.NDArray[np.uint8], names: dict[str, int], out: list[str]) -> IntArray:
    """Each padded string's code in ``out`` (new names appended)."""
    if not len(padded):
        return np.zeros(0, dtype=np.int64)
    rows = np.ascontiguousarray(padded)
    # each string's 64-bit hash (its three words mixed), the distinct hashes found by a sort of integers; the
    # strings checked equal to their hash's first one (else the strings themselves sorted)
    words = rows.view(np.uint64)
    mixed = words[:, 0] * _MIX[0] ^ words[:, 1] * _MIX[1] ^ words[:, 2]
    _, first, inverse = np.unique(mixed, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    reps: list[Any] = [rows[i].tobytes() for i in first.tolist()]
    if not (rows == rows[first][inverse]).all():
        uniq, inverse = np.unique(rows.view(f"V{WIDTH}").ravel(), return_inverse=True)
        reps, inverse = [bytes(u) for u in uniq.tolist()], inverse.ravel()
    table = []
    for u in reps:
        name = u.rstrip(b"\x00").decode()
        if name not in names:
            names[name] = len(out)
            out.append(name)
        table.append(names[name])
    codes: IntArray = np.asarray(table, dtype=np.int64)[inverse.ravel()]
    return codes


def _round_of(starts: IntArray, at: IntArray) -> IntArray:
    return (np.searchsorted(starts, at, side="right") - 1).astype(np.int64)


Reader = Any
"""A reader of a batch's joined events (:func:`read_events_numpy`'s signature and answers)."""


def read_events_numpy(
    a: npt.NDArray[np.uint8], end: int, starts: IntArray, width: int
) -> tuple[
    IntArray, IntArray, npt.NDArray[np.uint8], IntArray, IntArray, npt.NDArray[np.uint8], BoolArray, BoolArray
]:
    """The NumPy reader (several vector passes over the bytes ``a``, padded past ``end``; ``starts`` each
    round's first byte): per deal its round, position and owner (padded with NULs to ``width``), per decision its
    round, seat, name (padded) and whether the player took it, and which rounds must be read as JSON (their rows
    here are to be dropped). The compiled single pass
    (:func:`~tablegames.analysis.detect_chunk_kernel.read_events`) gives the same (tested)."""
    bad = np.zeros(len(starts), dtype=np.bool_)
    # the deals: every "card_dealt" opens an event of the engine's shape
    d = _find(a, _DEAL, 6, check=False)
    ok = _is(a, d - len(_DEAL_OPEN), _DEAL_OPEN + _DEAL + _TO)
    keep = ok.copy()
    keep[~ok] = _is(a, d[~ok], _DEAL)  # the other occurrences (an unread one sends its round to JSON)
    d, ok = d[keep], ok[keep]
    to_at = d + len(_DEAL) + len(_TO)
    to_n, to_ok, to_bytes = _string(a, to_at)
    ok &= to_ok & _is(a, to_at + to_n, _POSITION)
    pos_at = to_at + to_n + len(_POSITION)
    pos_n, position, pos_ok = _digits(a, pos_at)
    ok &= pos_ok & _is(a, pos_at + pos_n, _CARD)
    card_at = pos_at + pos_n + len(_CARD)
    card_n, card_ok, _ = _string(a, card_at)
    ok &= card_ok & _is(a, card_at + card_n, _VISIBLE)
    vis_at = card_at + card_n + len(_VISIBLE)
    vis_n, vis_ok, _ = _string(a, vis_at)
    ok &= vis_ok & _is(a, vis_at + vis_n, _CLOSE)
    deal_round = _round_of(starts, d)
    bad[deal_round[~ok]] = True

    # the decisions: every "action" is an action event's type or its key
    o = _find(a, _ACTION, 0)
    typed = _is(a, o - len(_DEAL_OPEN), _DEAL_OPEN + _ACTION + _SEAT)
    act_round_all = _round_of(starts, o)
    t = o[typed]
    seat_at = t + len(_ACTION) + len(_SEAT)
    seat_n, seat, seat_ok = _digits(a, seat_at)
    ok_a = seat_ok & _is(a, seat_at + seat_n, _ACTION_KEY)
    name_at = seat_at + seat_n + len(_ACTION_KEY)
    name_n, name_ok, name_bytes = _string(a, name_at)
    ok_a &= name_ok & _is(a, name_at + name_n, _BY)
    by_at = name_at + name_n + len(_BY)
    by_n, by_ok, _ = _string(a, by_at)
    ok_a &= by_ok & _is(a, by_at + by_n, _CLOSE)
    act_round = act_round_all[typed]
    bad[act_round[~ok_a]] = True
    # each parsed event accounts for two occurrences: any other one sends its round to JSON
    occurrences = np.bincount(act_round_all, minlength=len(starts))
    parsed = np.bincount(act_round[ok_a], minlength=len(starts))
    bad |= occurrences != 2 * parsed
    by_player = (by_n == len(_PLAYER) - 1) & _is(a, by_at, _PLAYER)
    return deal_round, position, to_bytes, act_round, seat, name_bytes, by_player, bad


def _compiled() -> Reader:
    from tablegames.analysis.detect_chunk_kernel import read_events

    return read_events


def joined(texts: list[bytes]) -> tuple[npt.NDArray[np.uint8], int, IntArray]:
    """A batch's texts joined by NULs as a reader reads them: the bytes (padded), where the texts end, each
    one's first byte."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1
    starts = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(lengths)[:-1]])
    text = b"\x00".join([*texts, b"\x00" * (_PAD - 1)])  # the padding joined too: one copy
    return np.frombuffer(text, dtype=np.uint8), len(text) - _PAD, starts


def parse_batch(events: list[bytes | None], decks: list[bytes | None], reader: Reader = None) -> Batch:
    """The deals and decisions of a batch of rounds (see the module); ``events[i]`` and ``decks[i]`` the
    i-th round's columns as JSON text (None: SQL NULL); ``reader``: the events' reader (the compiled single
    pass by default, :func:`read_events_numpy` the same in NumPy)."""
    texts = [e or b"" for e in events]
    a, end, starts = joined(texts)
    owners: list[str] = []
    owner_codes: dict[str, int] = {}
    names: list[str] = []
    name_codes: dict[str, int] = {}
    read = reader or _compiled()
    deal_round, position, to_bytes, act_round, seat, name_bytes, by_player, bad = read(a, end, starts, WIDTH)
    keep_d = ~bad[deal_round]
    keep_a = ~bad[act_round]
    deal_owner = _codes(to_bytes[keep_d], owner_codes, owners)
    act_name = _codes(name_bytes[keep_a], name_codes, names)
    batch = Batch(
        deal_round[keep_d],
        deal_owner,
        position[keep_d],
        act_round[keep_a],
        seat[keep_a],
        act_name,
        by_player[keep_a],
        owners,
        names,
    )
    if bad.any():
        _decode(batch, [(int(i), texts[i]) for i in np.flatnonzero(bad).tolist()], owner_codes, name_codes)
    batch.deal_card = _cards(decks, batch.deal_round, batch.deal_card)
    return batch


def _decode(
    batch: Batch, rounds: list[tuple[int, bytes]], owner_codes: dict[str, int], name_codes: dict[str, int]
) -> None:
    """The rounds the arrays did not read, decoded as JSON (as the reference does) and merged in order."""
    deals: list[tuple[int, int, int]] = []
    acts: list[tuple[int, int, int, bool]] = []
    for i, text in rounds:
        for e in json.loads(text) or []:
            if e["type"] == "card_dealt":
                to = e["to"]
                if to not in owner_codes:
                    owner_codes[to] = len(batch.owners)
                    batch.owners.append(to)
                deals.append((i, owner_codes[to], int(e["position"])))
            elif e["type"] == "action":
                name = e["action"]
                if name not in name_codes:
                    name_codes[name] = len(batch.names)
                    batch.names.append(name)
                acts.append((i, int(e["seat"]), name_codes[name], e.get("by", "player") == "player"))
    if deals:
        extra = np.asarray(deals, dtype=np.int64)
        r = np.concatenate([batch.deal_round, extra[:, 0]])
        order = np.argsort(r, kind="stable")
        batch.deal_round = r[order]
        batch.deal_owner = np.concatenate([batch.deal_owner, extra[:, 1]])[order]
        batch.deal_card = np.concatenate([batch.deal_card, extra[:, 2]])[order]
    if acts:
        r = np.concatenate([batch.act_round, np.asarray([x[0] for x in acts], dtype=np.int64)])
        order = np.argsort(r, kind="stable")
        batch.act_round = r[order]
        batch.act_seat = np.concatenate([batch.act_seat, np.asarray([x[1] for x in acts], dtype=np.int64)])[
            order
        ]
        batch.act_name = np.concatenate([batch.act_name, np.asarray([x[2] for x in acts], dtype=np.int64)])[
            order
        ]
        batch.act_player = np.concatenate(
            [batch.act_player, np.asarray([x[3] for x in acts], dtype=np.bool_)]
        )[order]


def _cards(decks: list[bytes | None], rounds: IntArray, positions: IntArray) -> IntArray:
    """Each deal's card: its round's deck at the position (an IndexError, as the reference's, when the deck
    has no such position)."""
    if not len(rounds):
        return np.zeros(0, dtype=np.int64)
    flat, first, count = _decks(decks)
    if (positions >= count[rounds]).any():
        raise IndexError("a card_dealt position past the round's deck")
    out: IntArray = flat[first[rounds] + positions]
    return out


_DECK_BYTES = np.zeros(256, dtype=np.bool_)
_DECK_BYTES[list(b"0123456789[], ")] = True


def _decks(decks: list[bytes | None]) -> tuple[IntArray, IntArray, IntArray]:
    """The batch's decks flat, each round's first index into it and its length (a deck that is not a plain
    list of small nonnegative integers decoded as JSON): in one compiled pass
    (:func:`~tablegames.analysis.detect_chunk_kernel.read_decks`), as :func:`_decks_numpy` reads them (tested)."""
    from tablegames.analysis.detect_chunk_kernel import read_decks

    texts = [d or b"[]" for d in decks]
    a, end, starts = joined(texts)
    plain, too_long, value, count = read_decks(a, end, starts, _DECK_BYTES)
    if not plain:
        return _json_decks(texts)
    if too_long:
        raise ValueError("a deck entry too long to be a card")
    return value, np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64), count


def _json_decks(texts: list[bytes]) -> tuple[IntArray, IntArray, IntArray]:
    lists: list[Any] = [json.loads(t) or [] for t in texts]
    count = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    flat = np.fromiter((int(c) for x in lists for c in x), dtype=np.int64, count=int(count.sum()))
    return flat, np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64), count


def _decks_numpy(decks: list[bytes | None]) -> tuple[IntArray, IntArray, IntArray]:
    """:func:`_decks` in NumPy passes (the first reader, kept to test the compiled one against)."""
    texts = [d or b"[]" for d in decks]
    a = np.frombuffer(b"\x00".join(texts) + b"\x00", dtype=np.uint8)
    body = a[:-1]
    plain = bool(_DECK_BYTES[body][body != 0].all())
    plain = plain and int(np.count_nonzero(body == 91)) == int(np.count_nonzero(body == 93)) == len(texts)
    if not plain:
        return _json_decks(texts)
    digit = (a >= 48) & (a <= 57)
    begin = np.flatnonzero(digit[1:] & ~digit[:-1]) + 1
    if digit[0]:
        begin = np.concatenate([[0], begin])
    _, value, ok = _digits(np.concatenate([a, np.zeros(8, dtype=np.uint8)]), begin.astype(np.int64))
    if not ok.all():
        raise ValueError("a deck entry too long to be a card")
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1
    starts = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(lengths)[:-1]])
    count = np.bincount(_round_of(starts, begin.astype(np.int64)), minlength=len(texts)).astype(np.int64)
    return value, np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64), count
