"""Checks of request fields (request ids, amounts) and small helpers shared by the server's parts."""

from __future__ import annotations

import hashlib
import unicodedata
from datetime import UTC, datetime

from tablegames.server.errors import ApiError

REQUEST_ID_MAX = 64
HISTORY_PAGE_MAX = 100  # rounds in one page of GET /history and GET /tables/{id}/history
JACKPOT_PAGE_MAX = 200  # entries in one page of GET /jackpots/history
IDEMPOTENCY_KEY_MAX = 64  # the column (db.IdempotencyKey.request_id)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def check_request_id(value: object, required: bool) -> str | None:
    """A request id: 1-64 characters, no control characters (the same on SQLite and PostgreSQL)."""
    if value is None:
        if required:
            raise ApiError("bad_message", "this request needs a request_id (a string of 1-64 characters)")
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= REQUEST_ID_MAX:
        raise ApiError("bad_message", "request_id must be a string of 1-64 characters")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value):
        raise ApiError("bad_message", "request_id must not contain control characters")
    return value


def idempotency_key(scope: str, request_id: str) -> str:
    """The stored key of a request id (``IdempotencyKey.request_id``, 64 characters): ``scope:id`` when it fits,
    else ``scope#`` and the id's SHA-256 in hex, cut to 64 characters. A scope never holds ``:`` after its last
    character nor ``#``, so the two forms never meet; every id of 1-64 characters fits on every database.

    >>> idempotency_key("buy-in", "b1")
    'buy-in:b1'
    >>> len(idempotency_key("wager:12", "x" * 64)), idempotency_key("wager:12", "x" * 64)[:9]
    (64, 'wager:12#')
    """
    key = f"{scope}:{request_id}"
    if len(key) <= IDEMPOTENCY_KEY_MAX:
        return key
    digest = hashlib.sha256(request_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{scope}#{digest}"[:IDEMPOTENCY_KEY_MAX]


def check_amount(value: object, what: str = "amount") -> int:
    """A positive whole number of cents (``bad_amount`` otherwise; on REST status 422 like every bad field)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float):
            raise ApiError(
                "bad_amount", f"{what} must be a whole number of cents, got {value!r} (no fractions)", 422
            )
        raise ApiError("bad_amount", f"{what} must be a whole number of cents, got {value!r}", 422)
    if value <= 0:
        raise ApiError("bad_amount", f"{what} must be positive, got {value}", 422)
    return value
