"""The batch reader's single pass over the events' bytes, compiled (``tablegames detect --database``, issue 27).

:func:`read_events` visits each byte of a batch's joined events once and reads every ``"card_dealt"`` and
``"action"`` occurrence by exactly the rules of :mod:`tablegames.analysis.detect_chunk` (its NumPy reader, kept
as :func:`~tablegames.analysis.detect_chunk.read_events_numpy` and tested equal): each occurrence must open an
event of the engine's layout (the literal parts compared, the strings up to ``WIDTH`` bytes with no quote,
backslash or NUL, the numbers of one to six digits), an action event accounts for two ``"action"``
occurrences, and a round with an occurrence these do not account for is marked for JSON.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U8 = npt.NDArray[np.uint8]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def _lit(text: bytes) -> U8:
    return np.frombuffer(text, dtype=np.uint8).copy()


_DEAL_OPEN = _lit(b'{"type": ')
_DEAL = _lit(b'"card_dealt"')
_TO = _lit(b', "to": "')
_POSITION = _lit(b'", "position": ')
_CARD = _lit(b', "card": "')
_VISIBLE = _lit(b'", "visible_to": "')
_CLOSE = _lit(b'"}')
_ACTION = _lit(b'"action"')
_SEAT = _lit(b', "seat": ')
_ACTION_KEY = _lit(b', "action": "')
_BY = _lit(b'", "by": "')
_PLAYER = _lit(b'player"')


@njit(cache=True, nogil=True)
def _is(a: U8, at: int, word: U8) -> bool:  # pragma: no cover - compiled
    if at < 0 or at + len(word) > len(a):
        return False
    for j in range(len(word)):  # noqa: SIM110 (compiled: a loop)
        if a[at + j] != word[j]:
            return False
    return True


@njit(cache=True, nogil=True)
def _string(a: U8, at: int, width: int) -> int:  # pragma: no cover - compiled
    """The string's length (its closing quote within ``width`` bytes, no backslash or NUL before), -1 if not."""
    for j in range(width):
        if at + j >= len(a):
            return -1
        c = a[at + j]
        if c == 34:
            return j
        if c == 92 or c == 0:
            return -1
    return -1


@njit(cache=True, nogil=True)
def _digits(a: U8, at: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """The unsigned integer's digit count (1-6, then a non-digit; else -1) and value."""
    value = 0
    for j in range(7):
        c = a[at + j] if at + j < len(a) else 0
        if c < 48 or c > 57:
            return (j, value) if j >= 1 else (-1, 0)
        if j < 6:
            value = value * 10 + (c - 48)
    return -1, 0


@njit(cache=True, nogil=True)
def _copy(a: U8, at: int, n: int, out: U8, row: int) -> None:  # pragma: no cover - compiled
    for j in range(n):
        out[row, j] = a[at + j]


@njit(cache=True, nogil=True)
def _deal(a: U8, p: int, width: int) -> tuple[int, int, int, int]:  # pragma: no cover - compiled
    """A deal event opened by the ``"card_dealt"`` at ``p``: (its owner's start, length, its position, 1), or
    (0, 0, 0, 0) when it is not one of the engine's layout."""
    if not (_is(a, p - len(_DEAL_OPEN), _DEAL_OPEN) and _is(a, p + len(_DEAL), _TO)):
        return 0, 0, 0, 0
    to_at = p + len(_DEAL) + len(_TO)
    to_n = _string(a, to_at, width)
    if to_n < 0 or not _is(a, to_at + to_n, _POSITION):
        return 0, 0, 0, 0
    pos_at = to_at + to_n + len(_POSITION)
    pos_n, position = _digits(a, pos_at)
    if pos_n < 0 or not _is(a, pos_at + pos_n, _CARD):
        return 0, 0, 0, 0
    card_at = pos_at + pos_n + len(_CARD)
    card_n = _string(a, card_at, width)
    if card_n < 0 or not _is(a, card_at + card_n, _VISIBLE):
        return 0, 0, 0, 0
    vis_at = card_at + card_n + len(_VISIBLE)
    vis_n = _string(a, vis_at, width)
    if vis_n < 0 or not _is(a, vis_at + vis_n, _CLOSE):
        return 0, 0, 0, 0
    return to_at, to_n, position, 1


@njit(cache=True, nogil=True)
def _action(a: U8, p: int, width: int) -> tuple[int, int, int, int, int]:  # pragma: no cover - compiled
    """An action event opened by the ``"action"`` at ``p``: (0 not typed as one, 1 typed but not of the
    engine's layout, 2 read), its seat, its name's start and length, whether ``by`` is the player."""
    if not (_is(a, p - len(_DEAL_OPEN), _DEAL_OPEN) and _is(a, p + len(_ACTION), _SEAT)):
        return 0, 0, 0, 0, 0
    seat_at = p + len(_ACTION) + len(_SEAT)
    seat_n, seat = _digits(a, seat_at)
    if seat_n < 0 or not _is(a, seat_at + seat_n, _ACTION_KEY):
        return 1, 0, 0, 0, 0
    name_at = seat_at + seat_n + len(_ACTION_KEY)
    name_n = _string(a, name_at, width)
    if name_n < 0 or not _is(a, name_at + name_n, _BY):
        return 1, 0, 0, 0, 0
    by_at = name_at + name_n + len(_BY)
    by_n = _string(a, by_at, width)
    if by_n < 0 or not _is(a, by_at + by_n, _CLOSE):
        return 1, 0, 0, 0, 0
    player = 1 if by_n == len(_PLAYER) - 1 and _is(a, by_at, _PLAYER) else 0
    return 2, seat, name_at, name_n, player


@njit(cache=True, nogil=True)
def _read(
    a: U8,
    end: int,
    starts: IntArray,
    width: int,
    deal_round: IntArray,
    deal_position: IntArray,
    deal_owner: U8,
    act_round: IntArray,
    act_seat: IntArray,
    act_name: U8,
    act_player: BoolArray,
    bad: BoolArray,
) -> tuple[int, int]:  # pragma: no cover - compiled
    rounds = len(starts)
    occurrences = np.zeros(rounds, dtype=np.int64)
    parsed = np.zeros(rounds, dtype=np.int64)
    r = 0
    nd = na = 0
    for i in range(end):
        if a[i] != 34:
            continue
        while r + 1 < rounds and starts[r + 1] <= i:
            r += 1
        if _is(a, i, _DEAL):
            to_at, to_n, position, ok = _deal(a, i, width)
            if ok and nd < len(deal_round):
                deal_round[nd] = r
                deal_position[nd] = position
                _copy(a, to_at, to_n, deal_owner, nd)
                nd += 1
            else:
                bad[r] = True
        elif _is(a, i, _ACTION):
            occurrences[r] += 1
            kind, seat, name_at, name_n, player = _action(a, i, width)
            if kind == 2 and na < len(act_round):
                parsed[r] += 1
                act_round[na] = r
                act_seat[na] = seat
                _copy(a, name_at, name_n, act_name, na)
                act_player[na] = player == 1
                na += 1
            elif kind != 0:
                bad[r] = True
    for k in range(rounds):
        if occurrences[k] != 2 * parsed[k]:
            bad[k] = True
    return nd, na


@njit(cache=True, nogil=True)
def _read_decks(
    a: U8, end: int, starts: IntArray, allowed: BoolArray, value: IntArray, count: IntArray
) -> tuple[bool, bool, int]:  # pragma: no cover - compiled
    rounds = len(starts)
    opens = closes = 0
    for i in range(end):
        c = a[i]
        if c != 0 and not allowed[c]:
            return False, False, 0
        opens += c == 91
        closes += c == 93
    if opens != rounds or closes != rounds:
        return False, False, 0
    too_long = False
    r = n = 0
    i = 0
    while i < end:
        if 48 <= a[i] <= 57:
            while r + 1 < rounds and starts[r + 1] <= i:
                r += 1
            v = 0
            j = i
            while j < end and 48 <= a[j] <= 57:
                if j - i < 6:
                    v = v * 10 + (a[j] - 48)
                j += 1
            too_long |= j - i > 6
            value[n] = v
            count[r] += 1
            n += 1
            i = j
        else:
            i += 1
    return True, too_long, n


def read_decks(
    a: U8, end: int, starts: IntArray, allowed: BoolArray
) -> tuple[bool, bool, IntArray, IntArray]:
    """The batch's decks joined (``a`` to ``end``, each one's first byte in ``starts``) in one pass: whether
    every byte is one of ``allowed`` (or a separator) with one ``[`` and one ``]`` a deck, whether a number has
    more than six digits, each number's value and each deck's count of numbers (the NumPy reader's rules,
    ``detect_chunk._decks_numpy``)."""
    value = np.empty(end // 2 + 1, dtype=np.int64)
    count = np.zeros(len(starts), dtype=np.int64)
    plain, too_long, n = _read_decks(a, end, starts, allowed, value, count)
    return plain, too_long, value[:n], count


def read_events(
    a: U8, end: int, starts: IntArray, width: int
) -> tuple[IntArray, IntArray, U8, IntArray, IntArray, U8, BoolArray, BoolArray]:
    """The batch's joined events ``a`` (bytes to ``end``, then padding) read in one pass: per deal its round,
    position and owner (padded with NULs to ``width``), per decision its round, seat, name (padded) and whether
    the player took it, and which rounds must be read as JSON (their rows here are to be dropped)."""
    # at most one row per event of the engine's layout (each read event's text its own, a deal's at least 77
    # bytes, an action's 53; a row past these would send its round to JSON)
    deals, actions = end // 64 + 1, end // 48 + 1
    deal_round = np.empty(deals, dtype=np.int64)
    deal_position = np.empty(deals, dtype=np.int64)
    deal_owner = np.zeros((deals, width), dtype=np.uint8)
    act_round = np.empty(actions, dtype=np.int64)
    act_seat = np.empty(actions, dtype=np.int64)
    act_name = np.zeros((actions, width), dtype=np.uint8)
    act_player = np.zeros(actions, dtype=np.bool_)
    bad = np.zeros(len(starts), dtype=np.bool_)
    nd, na = _read(
        a,
        end,
        starts,
        width,
        deal_round,
        deal_position,
        deal_owner,
        act_round,
        act_seat,
        act_name,
        act_player,
        bad,
    )
    return (
        deal_round[:nd],
        deal_position[:nd],
        deal_owner[:nd],
        act_round[:na],
        act_seat[:na],
        act_name[:na],
        act_player[:na],
        bad,
    )
