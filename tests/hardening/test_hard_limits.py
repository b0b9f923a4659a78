"""The hardening middleware on its own (a tiny echo app): body size, HTTP rate limit, WebSocket message size,
WebSocket flood, and a client that never reads."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.testclient import TestClient

from tablegames.server.limits import HardeningMiddleware, KnownTokens, Limits, TokenBucket, json_too_deep


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def echo_app() -> FastAPI:
    app = FastAPI()

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, Any]:
        body = await request.body()
        return {"size": len(body)}

    @app.get("/ping")
    async def ping() -> dict[str, Any]:
        return {"ok": True}

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                text = await websocket.receive_text()
                await websocket.send_text(json.dumps({"type": "echo", "text": text}))
        except WebSocketDisconnect:
            return

    return app


def client(
    limits: Limits,
    clock: FakeClock | None = None,
    known: KnownTokens | None = None,
    address: str = "testclient",
) -> TestClient:
    return TestClient(
        HardeningMiddleware(echo_app(), limits, clock=clock, known_tokens=known), client=(address, 50000)
    )


def test_token_bucket_refills_at_its_rate() -> None:
    b = TokenBucket(rate=2.0, burst=3.0, now=0.0)
    assert [b.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert b.take(0.5) and not b.take(0.5)  # 0.5 s x 2/s = one token


def test_body_over_the_limit_is_refused_with_413() -> None:
    c = client(Limits(max_body_bytes=100))
    ok = c.post("/echo", content=b"x" * 100)
    assert ok.status_code == 200 and ok.json() == {"size": 100}
    big = c.post("/echo", content=b"x" * 101)
    assert big.status_code == 413
    assert big.json()["error"]["code"] == "too_large"


def test_chunked_body_over_the_limit_is_refused() -> None:
    c = client(Limits(max_body_bytes=100))

    def chunks() -> Any:
        for _ in range(5):
            yield b"y" * 40

    r = c.post("/echo", content=chunks())
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"


def test_http_rate_limit_is_per_credential() -> None:
    clock = FakeClock()
    known = KnownTokens()
    known.add("aaa")
    known.add("bbb")
    c = client(Limits(http_rate=1.0, http_burst=3.0), clock, known)
    a = {"Authorization": "Bearer aaa"}
    b = {"Authorization": "Bearer bbb"}
    assert [c.get("/ping", headers=a).status_code for _ in range(3)] == [200, 200, 200]
    refused = c.get("/ping", headers=a)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["retry-after"]) >= 1
    assert c.get("/ping", headers=b).status_code == 200  # another player is not hurt
    clock.t += 1.0
    assert c.get("/ping", headers=a).status_code == 200


def test_websocket_message_too_large_closes_with_1009() -> None:
    c = client(Limits(max_ws_message_bytes=64))
    with c.websocket_connect("/ws") as ws:
        ws.send_text("a" * 64)
        assert ws.receive_json() == {"type": "echo", "text": "a" * 64}
        ws.send_text("b" * 65)
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "too_large"
        closing = ws.receive()
        assert closing["type"] == "websocket.close" and closing["code"] == 1009


def test_websocket_flood_is_dropped_and_answered_then_closed_others_unhurt() -> None:
    clock = FakeClock()
    c = client(Limits(ws_rate=1.0, ws_burst=5.0, ws_flood_strikes=10.0), clock)
    with c.websocket_connect("/ws") as flooder, c.websocket_connect("/ws") as calm:
        for i in range(10):
            flooder.send_text(json.dumps({"type": "ping", "request_id": f"r{i}"}))
        answers = [flooder.receive_json() for _ in range(10)]
        assert [a["type"] for a in answers[:5]] == ["echo"] * 5
        assert [a["code"] for a in answers[5:]] == ["rate_limited"] * 5
        assert [a["request_id"] for a in answers[5:]] == [f"r{i}" for i in range(5, 10)]
        # the other socket still gets every message through
        calm.send_text("hello")
        assert calm.receive_json() == {"type": "echo", "text": "hello"}
        # tokens come back with time
        clock.t += 1.0
        flooder.send_text("again")
        assert flooder.receive_json() == {"type": "echo", "text": "again"}
        # keep flooding: after the strikes run out the socket is closed (1008)
        for i in range(20):
            flooder.send_text(json.dumps({"type": "ping", "request_id": f"f{i}"}))
        seen: list[dict[str, Any]] = []
        while True:
            m = flooder.receive()
            if m["type"] == "websocket.close":
                assert m["code"] == 1008
                break
            seen.append(json.loads(m["text"]))
        assert seen and all(x["code"] == "rate_limited" for x in seen)
        assert len(seen) <= 11


def test_a_client_that_never_reads_never_blocks_the_app() -> None:
    """ASGI level: the transport's send blocks forever after the handshake; the app's sends return at once,
    and the app is told the client is gone after ``send_timeout``."""

    async def scenario() -> tuple[float, dict[str, Any], int]:
        app_sends: list[float] = []
        result: dict[str, Any] = {}

        async def app(scope: Any, receive: Any, send: Any) -> None:
            assert (await receive())["type"] == "websocket.connect"
            await send({"type": "websocket.accept"})
            loop = asyncio.get_running_loop()
            for i in range(50):
                t = loop.time()
                await send({"type": "websocket.send", "text": f"state {i}"})
                app_sends.append(loop.time() - t)
            result.update(await receive())

        mw = HardeningMiddleware(app, Limits(send_timeout=0.05, send_queue_messages=10))
        incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        await incoming.put({"type": "websocket.connect"})
        blocked = asyncio.Event()

        async def receive() -> dict[str, Any]:
            return await incoming.get()

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.accept":
                return
            await blocked.wait()  # never set: the client never reads

        loop = asyncio.get_running_loop()
        t0 = loop.time()
        await asyncio.wait_for(mw({"type": "websocket", "path": "/ws", "headers": []}, receive, send), 5.0)
        return loop.time() - t0, result, len(app_sends)

    elapsed, result, sends = asyncio.run(scenario())
    assert sends == 50
    assert result["type"] == "websocket.disconnect"
    assert elapsed < 2.0


@pytest.mark.parametrize("path", ["/ping"])
def test_ordinary_requests_pass_untouched(path: str) -> None:
    c = client(Limits())
    assert c.get(path).json() == {"ok": True}


def test_invented_tokens_are_limited_by_address_like_no_token() -> None:
    """Issue 11 (defect 4): a new random bearer token per request got a new bucket each time. Only a token the
    server knows valid has a bucket of its own; the rest share their address's."""
    clock = FakeClock()
    known = KnownTokens()
    known.add("real-token")
    mw = HardeningMiddleware(
        echo_app(), Limits(http_rate=1.0, http_burst=5.0), clock=clock, known_tokens=known
    )
    here, there = TestClient(mw, client=("10.0.0.1", 1)), TestClient(mw, client=("10.0.0.2", 1))
    codes = [here.get("/ping", headers={"Authorization": f"Bearer fake-{i}"}).status_code for i in range(10)]
    assert codes == [200] * 5 + [429] * 5
    assert here.get("/ping").status_code == 429  # no token: the same (spent) bucket
    assert here.get("/ping", headers={"Authorization": "Bearer real-token"}).status_code == 200  # its own
    assert (
        there.get("/ping", headers={"Authorization": "Bearer fake-x"}).status_code == 200
    )  # another address
    # a WebSocket connect with an invented ?token= counts against the address too
    with pytest.raises(WebSocketDisconnect) as refused, here.websocket_connect("/ws?token=fake-ws") as ws:
        ws.receive_json()
    assert refused.value.code == 4429


def test_registration_has_a_stricter_bucket_per_address() -> None:
    clock = FakeClock()
    mw = HardeningMiddleware(echo_app(), Limits(register_rate=0.5, register_burst=3.0), clock=clock)
    mw_app: Any = mw
    here = TestClient(mw_app, client=("10.0.0.1", 1))
    other = TestClient(mw_app, client=("10.0.0.9", 1))

    def register(c: TestClient, i: int) -> int:
        return c.post(
            "/players", json={"name": f"n{i}"}, headers={"Authorization": f"Bearer r{i}"}
        ).status_code

    assert [register(here, i) for i in range(5)] == [404, 404, 404, 429, 429]  # (the echo app has no route)
    assert here.get("/ping").status_code == 200  # other requests keep the ordinary limit
    assert register(other, 9) == 404
    clock.t += 2.0  # 0.5/s: one more after two seconds
    assert [register(here, i) for i in range(2)] == [404, 429]


def test_json_nesting_is_bounded_before_anything_parses_it() -> None:
    assert not json_too_deep(b'{"type": "wager", "wagers": {"main": 500}, "s": "[[[[[[[[[[[[[[[["}', 3)
    assert json_too_deep(b"[" * 4 + b"]" * 4, 3) and not json_too_deep(b"[" * 3 + b"]" * 3, 3)
    assert json_too_deep('{"a": ' * 40 + "1" + "}" * 40, 32)
    c = client(Limits(max_json_depth=8))
    deep = b"[" * 9 + b"]" * 9
    r = c.post("/echo", content=deep, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_json"
    assert c.post("/echo", content=b"[" * 8 + b"]" * 8).json() == {"size": 16}
    with c.websocket_connect("/ws") as ws:
        ws.send_text(deep.decode())
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "bad_json" and "deeper than 8" in err["message"]
        ws.send_text("ok")  # the socket stays open: it was one bad message
        assert ws.receive_json() == {"type": "echo", "text": "ok"}
