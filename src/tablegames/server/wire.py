"""The WebSocket's JSON on the hot path (issue 28): messages encoded with ``orjson`` on the table's thread, once
per message (a ``state`` push is encoded once per table and shared by the sockets that receive the same one),
and client messages parsed with it.

The text is JSON-equivalent to :func:`json.dumps`'s: the same values, compact (no spaces), non-ASCII characters
as UTF-8 rather than ``\\uXXXX`` escapes. Where ``orjson`` refuses a value the standard library accepts (an
integer over 64 bits, ``NaN`` in a client's message, a lone surrogate), the standard library decides, so what is
accepted or refused is exactly as before (and an integer over 64 bits stays an integer: orjson would read it
as a float).

>>> encode({"type": "ack", "request_id": "r1", "seat": 2})
'{"type":"ack","request_id":"r1","seat":2}'
>>> decode('{"type": "ping", "n": 1e400}')["n"]
inf
>>> decode('{"amount": 12345678901234567890123}')["amount"]
12345678901234567890123
>>> splice(b'{"type":"state","seq":3}', {"seat": 1})
'{"type":"state","seq":3,"seat":1}'
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # as json.dumps: integer keys become strings
# orjson reads an integer over 64 bits as a float: a message with a run of 19 digits or more (anywhere, strings
# too) is parsed by the standard library, which keeps it an int
_LONG_DIGITS = re.compile(rb"[0-9]{19}")
_LONG_DIGITS_TEXT = re.compile(r"[0-9]{19}")


def encode_bytes(message: Any) -> bytes:
    """``message`` as compact JSON (UTF-8 bytes)."""
    try:
        return orjson.dumps(message, option=_OPTIONS)
    except TypeError:  # (orjson.JSONEncodeError) a value orjson does not take: the standard library's rules
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def encode(message: Any) -> str:
    """``message`` as compact JSON text, ready for ``send_text``."""
    return encode_bytes(message).decode()


def decode(text: str | bytes) -> Any:
    """A client's message parsed (``ValueError`` or ``UnicodeDecodeError`` when it is not JSON, as
    :func:`json.loads`)."""
    long = _LONG_DIGITS_TEXT.search(text) if isinstance(text, str) else _LONG_DIGITS.search(text)
    if long is not None:
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN, big integers, surrogates...: as the standard library decides
        return json.loads(text)


def splice(head: bytes, fields: dict[str, Any]) -> str:
    """The JSON object ``head`` (encoded once, shared) with ``fields`` added: one socket's message built from
    a table's common part without encoding that part again. ``fields`` must not repeat a key of ``head``."""
    if not fields:
        return head.decode()
    tail = encode_bytes(fields)
    if head == b"{}":
        return tail.decode()
    return (head[:-1] + b"," + tail[1:]).decode()


def encode_strict(value: Any) -> bytes:
    """``value`` as compact JSON bytes by ``orjson`` alone: ``TypeError`` where :func:`encode_bytes` would hand
    it to the standard library (a part encoded once and spliced into several messages: the caller then encodes
    the whole message as before, so its text is :func:`encode_bytes`'s)."""
    return orjson.dumps(value, option=_OPTIONS)


def splice_encoded(head: bytes, fields: dict[str, Any], encoded: dict[str, bytes]) -> str:
    """:func:`splice` with more fields whose values are encoded already (JSON, e.g. shared by several
    messages), after ``fields``: the text is ``splice(head, fields | those values)``'s, encoded by ``orjson``
    (``TypeError`` where :func:`encode_strict` gives it).

    >>> splice_encoded(b'{"type":"state"}', {"seat": 1}, {"round": b'{"a":[1]}'})
    '{"type":"state","seat":1,"round":{"a":[1]}}'
    """
    tail = encode_strict({**fields, **{k: orjson.Fragment(v) for k, v in encoded.items()}})
    if len(tail) == 2:
        return head.decode()
    if len(head) == 2:
        return tail.decode()
    return (head[:-1] + b"," + tail[1:]).decode()
