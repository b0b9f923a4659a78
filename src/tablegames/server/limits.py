"""Bounds against floods, oversized input and slow clients: one pure ASGI middleware in front of the app.

``HardeningMiddleware(app, Limits(...))`` (registered with one line in ``create_app``) enforces, without
touching the routes:

HTTP
  * request bodies at most ``max_body_bytes`` (``413`` / code ``too_large``; read before the route runs);
  * JSON nested at most ``max_json_depth`` levels (``422`` / code ``bad_json``; checked before anything
    parses it, so a deeply nested body can never reach a recursive parser);
  * a token bucket per credential: ``http_rate`` requests per second with bursts of ``http_burst``
    (``429`` / code ``rate_limited`` with ``Retry-After``). The credential is the bearer token only when it
    is a token the server has seen valid (``known_token``: an in-memory set kept by the server, no database
    work here); a missing, invented or wrong token is limited by the client address, so a new random token
    per request buys nothing;
  * registration (``POST /players``) has its own, stricter bucket per client address (``register_rate``,
    ``register_burst``), whatever token the request carries.

WebSocket
  * connects count against the same per-credential bucket (a refused connect is closed with ``4429``);
  * a message nested deeper than ``max_json_depth`` is answered with an ``error`` of code ``bad_json``
    and dropped before the app parses it (it changed nothing);
  * every client message at most ``max_ws_message_bytes``: a bigger one gets an ``error`` message with code
    ``too_large`` and the socket is closed (``1009``);
  * a token bucket per socket: ``ws_rate`` messages per second, bursts of ``ws_burst``. A message over the
    limit is dropped *before the app parses it* (so a flood costs the table almost nothing) and answered with
    ``{"type": "error", "code": "rate_limited", "request_id": ...}``: it changed nothing. A socket that keeps
    flooding (``ws_flood_strikes`` dropped messages faster than the bucket refills) is closed (``1008``);
  * slow clients: the app's ``send`` never waits for the network. A message is written at once when nothing is
    ahead of it; behind a send that suspends (the transport's buffer is full) messages wait in a per-socket
    queue of at most ``send_queue_messages``, drained in order by a task; a socket whose queue overflows or
    whose single send takes longer than ``send_timeout`` seconds is dropped (the app sees ``websocket.disconnect``;
    the transport is closed by uvicorn's keep-alive ping once it notices), so one client that never reads can
    never stall a table's broadcast.

Error bodies have the protocol's shape (docs/protocol.md): REST ``{"error": {"code", "message"}}``,
WebSocket ``{"type": "error", "code", "message"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import json
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from tablegames.server.inline import Suspended, run_inline
from tablegames.server.threads import on_any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

RATE_LIMITED = "rate_limited"
TOO_LARGE = "too_large"
BAD_JSON = "bad_json"
CLOSE_TOO_LARGE = 1009
CLOSE_POLICY = 1008
CLOSE_RATE_LIMITED = 4429
# The scope key of a WebSocket's ``send_text(text) -> None``: the app's send of one text message without the
# ASGI chain (no await: written now, or queued behind a slow send, within the same bounds as ``send``).
SEND_TEXT = "tablegames.send_text"


@dataclass(frozen=True)
class Limits:
    """The bounds; every one is a plain number so tests can tighten them."""

    max_body_bytes: int = 64 * 1024
    http_rate: float = 50.0
    http_burst: float = 400.0
    max_ws_message_bytes: int = 16 * 1024
    ws_rate: float = 30.0
    ws_burst: float = 120.0
    ws_flood_strikes: float = 200.0
    send_queue_messages: int = 512
    send_timeout: float = 10.0
    max_tracked_keys: int = 20_000
    register_rate: float = 2.0  # POST /players per second and client address
    register_burst: float = 100.0
    register_paths: tuple[str, ...] = ("/players",)
    max_json_depth: int = 32  # the protocol's messages nest 3 levels; a parser recurses once per level


# Possessive quantifiers and a string that may end at the end of the text: every pass is linear in the text.
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+(?:"|\Z)', re.DOTALL)
_JSON_INNERMOST = re.compile(rb"\[[^\[\]{}]*+\]|\{[^\[\]{}]*+\}")
_JSON_BRACKETS = re.compile(rb"[\[\]{}]")


def json_too_deep(data: bytes | bytearray | str, limit: int) -> bool:
    """Whether JSON text nests arrays / objects deeper than ``limit`` (strings are skipped; text that is not
    JSON may answer either way: the parser refuses it then). Runs in C-speed regex passes, at most ``limit``
    of them, and only when the text has more than ``limit`` opening brackets at all.

    >>> json_too_deep(b'{"a": [1, {"b": "[[[["}]}', 3), json_too_deep(b'[[[1]]]', 2), json_too_deep('[[1]]', 2)
    (False, True, False)
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    text = _JSON_STRING.sub(b'""', raw + b" ")  # (the space pairs with a trailing lone backslash)
    for _ in range(limit):
        text, removed = _JSON_INNERMOST.subn(b"", text)
        if not removed:
            break
    return _JSON_BRACKETS.search(text) is not None


class KnownTokens:
    """Hashes of tokens the server has seen valid (at registration or a successful authentication), so the
    rate limiter may give such a token its own bucket. LRU-bounded: a token that fell out is limited by its
    address until its next successful authentication puts it back.

    >>> known = KnownTokens(max_tokens=2)
    >>> known.add("a"); known.add("b"); known.add("c")
    >>> [t in known for t in ("a", "b", "c", "forged")]
    [False, True, True, False]
    """

    def __init__(self, max_tokens: int = 200_000) -> None:
        self.max_tokens = max_tokens
        self._hashes: OrderedDict[bytes, None] = OrderedDict()
        self._lock = threading.Lock()  # adds come from the REST threads; lookups (the event loop) need none

    @staticmethod
    def _key(token: str) -> bytes:
        return hashlib.sha256(token.encode()).digest()[:16]

    @on_any
    def add(self, token: str) -> None:
        key = self._key(token)
        with self._lock:
            self._hashes[key] = None
            self._hashes.move_to_end(key)
            while len(self._hashes) > self.max_tokens:
                self._hashes.popitem(last=False)

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and self._key(token) in self._hashes


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; :meth:`take` spends one if there is one.

    >>> b = TokenBucket(rate=1.0, burst=2.0, now=0.0)
    >>> [b.take(0.0), b.take(0.0), b.take(0.0), b.take(1.0)]
    [True, True, False, True]
    """

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait_time(self) -> float:
        """Seconds until the next token."""
        return max(0.0, (1.0 - self.tokens) / self.rate) if self.rate > 0 else 60.0


class KeyedLimiter:
    """One token bucket per key (LRU-bounded so a stream of new keys cannot grow memory)."""

    def __init__(self, rate: float, burst: float, max_keys: int, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.clock = clock
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str) -> tuple[bool, float]:
        """(allowed, seconds to wait when not)."""
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst, now)
            while len(self.buckets) > self.max_keys:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        ok = bucket.take(now)
        return ok, (0.0 if ok else bucket.wait_time())


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def presented_token(scope: Scope) -> str | None:
    """The bearer token (REST) or ``?token=`` (WebSocket) a request presents, if any."""
    auth = _header(scope, b"authorization")
    if auth and auth.lower().startswith("bearer "):
        return auth[7:].strip()[:200]
    query = scope.get("query_string") or b""
    for part in bytes(query).split(b"&"):
        if part.startswith(b"token="):
            return part[6:206].decode("latin-1")
    return None


def address_key(scope: Scope) -> str:
    """The client address of a request (IPv6: its /64, which one client usually holds whole).

    >>> address_key({"client": ("2001:db8::1", 5)}) == address_key({"client": ("2001:db8::2", 6)})
    True
    """
    client = scope.get("client")
    host = str(client[0]) if client else "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return "addr:" + host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return "addr:" + str(ip.ipv4_mapped)
        return "addr:" + str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return "addr:" + str(ip)


def credential_key(scope: Scope, known: KnownTokens | None = None) -> str:
    """The rate-limit key of a request: its token when the server knows it valid, else the client address."""
    token = presented_token(scope)
    if token and known is not None and token in known:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return address_key(scope)


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


async def _http_error(
    send: Send, status: int, code: str, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = _error_body(code, message)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _request_id(text: str) -> str | None:
    """The ``request_id`` of a (small) client message, to echo it in the refusal."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    rid = data.get("request_id") if isinstance(data, dict) else None
    return rid if isinstance(rid, str) and 1 <= len(rid) <= 64 else None


class _Socket:
    """One WebSocket connection seen by the middleware: bounded outgoing queue, incoming rate limit.

    A message is written at once when nothing is ahead of it (uvicorn frames it and writes it to the transport
    without suspending: no task, no wake-up); a send that suspends (the transport's buffer is full: the client
    reads slowly) is finished by a drainer task under ``send_timeout``, and the messages after it queue behind
    it, in order, at most ``send_queue_messages`` of them."""

    def __init__(self, limits: Limits, send: Send, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.real_send = send
        self.clock = clock
        self.bucket = TokenBucket(limits.ws_rate, limits.ws_burst, clock())
        self.strikes = TokenBucket(limits.ws_rate, limits.ws_flood_strikes, clock())
        self.queue: deque[Message] = deque()  # behind a send that suspended
        self.gone = asyncio.Event()
        self.gone_reason: str | None = None
        self.accepted = False
        self.stopped = False  # nothing more is written (a close was sent, or a send failed / timed out)
        self.drainer: asyncio.Task[None] | None = None  # finishing a suspended send, then the queue
        self.receiving: Suspended[Message] | None = None  # a receive waiting for the client
        self.dropped = 0

    # --- outgoing -----------------------------------------------------------------------------------

    async def send(self, message: Message) -> None:
        if not self.accepted:
            await self.real_send(message)  # the handshake, or a refusal before accepting: straight through
            self.accepted = message.get("type") == "websocket.accept"
            return
        self.send_now(message)

    def send_now(self, message: Message) -> None:
        """The app's send, which never waits (also called directly: :data:`SEND_TEXT`)."""
        if self.gone.is_set():
            return  # the client is gone (or dropped as too slow): nothing more is sent to it
        if len(self.queue) >= self.limits.send_queue_messages:
            self._drop("slow: outgoing queue full")
            return
        self._write(message)

    def send_text(self, text: str) -> None:
        """One text message, from the app's side (see :data:`SEND_TEXT`)."""
        self.send_now({"type": "websocket.send", "text": text})

    def _enqueue_direct(self, message: Message) -> None:
        """Send a message of the middleware itself (ignores the queue bound only for one final close)."""
        if not self.gone.is_set() or message.get("type") == "websocket.close":
            self._write(message)

    def _write(self, message: Message) -> None:
        if self.stopped:
            return
        if self.drainer is not None:  # a send is suspended: this one waits its turn
            self.queue.append(message)
            return
        try:
            sent = run_inline(self.real_send(message))
        except Exception:  # the transport is gone (ClientDisconnected, OSError, ...)
            self._stop("disconnected")
            return
        if isinstance(sent, Suspended):
            self.drainer = asyncio.get_running_loop().create_task(self._drain(sent, message))
        elif message.get("type") == "websocket.close":
            self._stop("closed")

    async def _drain(self, sending: Suspended[None] | None, message: Message) -> None:
        """Finish the suspended send, then send the queue in order; each send may take ``send_timeout``."""
        try:
            while True:
                if sending is not None:
                    async with asyncio.timeout(self.limits.send_timeout):
                        await sending
                if message.get("type") == "websocket.close":
                    self._stop("closed")
                    return
                if not self.queue:
                    return
                message = self.queue.popleft()
                sent = run_inline(self.real_send(message))
                sending = sent if isinstance(sent, Suspended) else None
        except TimeoutError:
            self._stop("slow: a send timed out")
        except Exception:  # the transport is gone (ClientDisconnected, OSError, ...)
            self._stop("disconnected")
        finally:
            self.drainer = None

    def _stop(self, reason: str) -> None:
        self.stopped = True
        self.queue.clear()
        self._drop(reason)

    def _drop(self, reason: str) -> None:
        if not self.gone.is_set():
            self.gone_reason = reason
            self.gone.set()
            if reason.startswith("slow"):
                self.queue.clear()
            if self.receiving is not None:
                self.receiving.interrupt()  # the app's receive returns a disconnect now

    async def finish(self) -> None:
        """After the app returned: flush what is queued (bounded by the send timeout), then stop."""
        drainer = self.drainer
        if drainer is not None:
            await asyncio.wait({drainer}, timeout=self.limits.send_timeout)
            if not drainer.done():
                drainer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await drainer

    # --- incoming -----------------------------------------------------------------------------------

    async def _next(self, receive: Receive) -> Message:
        """The next real message, or a disconnect as soon as the socket was dropped."""
        if self.gone.is_set():
            return {"type": "websocket.disconnect", "code": CLOSE_POLICY}
        got = run_inline(receive())
        if not isinstance(got, Suspended):
            return got
        self.receiving = got
        try:
            message = await got
        finally:
            self.receiving = None
        return message if message is not None else {"type": "websocket.disconnect", "code": CLOSE_POLICY}

    def _refuse(self, code: str, message: str, text: str | None) -> None:
        error: dict[str, Any] = {"type": "error", "code": code, "message": message}
        rid = (
            _request_id(text) if text is not None and len(text) <= self.limits.max_ws_message_bytes else None
        )
        if rid is not None:
            error["request_id"] = rid
        self._enqueue_direct({"type": "websocket.send", "text": json.dumps(error)})

    def _close(self, code: int, reason: str) -> Message:
        self._enqueue_direct({"type": "websocket.close", "code": code, "reason": reason})
        self._drop(reason)
        return {"type": "websocket.disconnect", "code": code}

    async def receive(self, receive: Receive) -> Message:
        limits = self.limits
        while True:
            message = await self._next(receive)
            if message.get("type") != "websocket.receive":
                return message
            text = message.get("text")
            data = message.get("bytes")
            size = len(text.encode()) if text is not None else len(data or b"")
            if size > limits.max_ws_message_bytes:
                self._refuse(
                    TOO_LARGE,
                    f"a message is at most {limits.max_ws_message_bytes} bytes (got {size}); closing",
                    None,
                )
                return self._close(CLOSE_TOO_LARGE, "message too large")
            now = self.clock()
            if self.bucket.take(now):
                if json_too_deep(text if text is not None else data or b"", limits.max_json_depth):
                    self._refuse(
                        BAD_JSON,
                        f"the message's JSON nests deeper than {limits.max_json_depth} levels: ignored",
                        None,
                    )
                    continue
                return message
            self.dropped += 1
            if not self.strikes.take(now):
                self._refuse(RATE_LIMITED, "too many messages: closing the connection", text)
                return self._close(CLOSE_POLICY, "rate limit exceeded")
            self._refuse(
                RATE_LIMITED,
                f"too many messages (at most {limits.ws_rate:g}/s, bursts of {limits.ws_burst:g}): "
                "this one was ignored, nothing changed",
                text,
            )


class HardeningMiddleware:
    """Pure ASGI middleware enforcing :class:`Limits` (see the module doc)."""

    def __init__(
        self,
        app: ASGIApp,
        limits: Limits | None = None,
        clock: Callable[[], float] | None = None,
        known_tokens: KnownTokens | None = None,
    ) -> None:
        self.app = app
        self.limits = limits or Limits()
        self.clock = clock or time.monotonic
        self.known_tokens = known_tokens
        self.http_limiter = KeyedLimiter(
            self.limits.http_rate, self.limits.http_burst, self.limits.max_tracked_keys, self.clock
        )
        self.register_limiter = KeyedLimiter(
            self.limits.register_rate, self.limits.register_burst, self.limits.max_tracked_keys, self.clock
        )
        self.sockets_dropped: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        ok, wait = self.http_limiter.take(credential_key(scope, self.known_tokens))
        if ok and scope.get("method") == "POST" and scope.get("path") in self.limits.register_paths:
            ok, wait = self.register_limiter.take(address_key(scope))
        if not ok:
            retry = str(max(1, round(wait + 0.5))).encode()
            await _http_error(
                send, 429, RATE_LIMITED, "too many requests: slow down", [(b"retry-after", retry)]
            )
            return
        limit = self.limits.max_body_bytes
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > limit
            except ValueError:
                too_big = False
            if too_big:
                await _http_error(send, 413, TOO_LARGE, f"a request body is at most {limit} bytes")
                return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message.get("type") != "http.request":
                return  # the client went away
            body.extend(message.get("body") or b"")
            more = bool(message.get("more_body"))
            if len(body) > limit:
                await _http_error(send, 413, TOO_LARGE, f"a request body is at most {limit} bytes")
                return
        if json_too_deep(body, self.limits.max_json_depth):
            depth = self.limits.max_json_depth
            await _http_error(send, 422, BAD_JSON, f"the body's JSON nests deeper than {depth} levels")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        ok, _ = self.http_limiter.take(credential_key(scope, self.known_tokens))
        if not ok:
            message = await receive()  # websocket.connect
            if message.get("type") == "websocket.connect":
                await send({"type": "websocket.close", "code": CLOSE_RATE_LIMITED, "reason": "rate limited"})
            return
        sock = _Socket(self.limits, send, self.clock)
        scope[SEND_TEXT] = sock.send_text

        async def wrapped_receive() -> Message:
            return await sock.receive(receive)

        try:
            await self.app(scope, wrapped_receive, sock.send)
        finally:
            await sock.finish()
            if sock.gone_reason is not None and sock.gone_reason not in ("closed", "disconnected"):
                self.sockets_dropped[sock.gone_reason] = self.sockets_dropped.get(sock.gone_reason, 0) + 1
