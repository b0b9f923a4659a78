"""A simulated player: one WebSocket, a wager every round (from its game's definition), a random legal action
when it is its turn, every request timed to its acknowledgement.

With several server processes (``cfg.reconnect``) a player follows the cluster's contract (issue 16): a
``{"type": "redirect", "url": ...}`` (close code 4307) sends it to the table's owner, and a dropped connection
(its process died) is opened again on another process (through the proxy, or the next node), which redirects it
to the new owner; it gets its seat back, and a round it was in that was settled meanwhile is counted from the
player's history (``GET /history``), so the money check still holds every round exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tablegames.loadtest.config import BET, SEND_BURST, SEND_RATE, LoadConfig, LoadTestError, Stats
from tablegames.rules import registry


@dataclass
class Player:
    index: int
    name: str
    token: str
    table_id: int
    game: str
    player_id: int = 0
    seat: int | None = None
    expected_balance: int = 0
    rounds_played: int = 0
    base: str = ""  # the REST base of the process the player's socket is on (its table's owner)


def _wagers(game: str, rng: random.Random, side: float) -> tuple[dict[str, int], dict[str, str]]:
    """One round's wagers for ``game``, from its definition: the main wager, and each side bet with chance
    ``side`` (its fixed amount under the default rules, else :data:`BET`; a random choice of its option)."""
    definition = registry.get(game)
    rules = _default_rules(game)
    wagers = {definition.main_wager.name: BET}
    options: dict[str, str] = {}
    for w in definition.side_bets:
        if rng.random() >= side:
            continue
        fixed = w.fixed_cents(rules)
        wagers[w.name] = BET if fixed is None else fixed
        if w.option is not None:
            options[w.name] = rng.choice(w.option.choices)
    return wagers, options


class Dropped(Exception):
    """The socket closed under a waiting client (a redirect, or its process died)."""


@functools.cache
def _default_rules(game: str) -> Any:
    return registry.get(game).make_rules()


class Client:
    """One player on one WebSocket: wagers every round, decides when it is its turn (a random legal action
    after an optional thinking time), and times every request to its acknowledgement.

    A reader task keeps the latest ``state``; the actor decides only on a state that is newer than the answer
    to its previous request, so it never acts on stale information (a refusal is counted as an error).
    """

    def __init__(
        self,
        player: Player,
        ws_url: str,
        stats: Stats,
        cfg: LoadConfig,
        start: asyncio.Event,
        stop_at: list[float],
        fallbacks: Sequence[str] = (),
    ) -> None:
        self.p = player
        self.ws_url = ws_url
        # REST bases to reconnect through when the connection drops (the proxy, or every node in turn)
        self.fallbacks = list(fallbacks)
        self.dropped = False
        self.redirect: str | None = None
        self._orphan_since: float | None = None
        self.stats = stats
        self.cfg = cfg
        self.start = start
        self.stop_at = stop_at
        self.rng = random.Random(cfg.seed * 1_000_003 + player.index)
        self.ws: Any = None
        self.state: dict[str, Any] | None = None
        self.states = 0  # number of state messages received
        self.changed = asyncio.Event()
        self.answers: dict[str, dict[str, Any]] = {}
        self.my_round: int | None = None
        self.results: set[int] = set()
        self.counter = 0
        self._tokens = SEND_BURST
        self._tokens_at = time.monotonic()

    # --- the reader ---------------------------------------------------------------------------------

    async def _reader(self) -> None:
        try:
            async for raw in self.ws:
                self._on_message(raw)
        except Exception:
            pass  # the connection dropped (the process died, or a redirect closed it)
        finally:
            self.dropped = True
            self.changed.set()

    def _on_message(self, raw: str | bytes) -> None:
        self.stats.messages += 1
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "redirect" and isinstance(msg.get("url"), str):
            self.redirect = msg["url"]
        elif kind == "state":
            self.state = msg
            self.states += 1
        elif kind in ("ack", "error"):
            rid = msg.get("request_id")
            if isinstance(rid, str):
                self.answers[rid] = {**msg, "_states": self.states, "_at": time.perf_counter()}
            elif kind == "error":
                self.stats.errors[str(msg.get("code"))] += 1
        elif kind == "round_result":
            self._result(msg)
        elif kind == "welcome":
            self.p.seat = msg.get("seat")
        self.changed.set()

    async def _until(self, test: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``test()`` holds (re-checked after every message); False on timeout."""
        deadline = time.monotonic() + timeout
        while not test():
            if self.dropped:
                raise Dropped
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            if test():
                return True
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                return test()
        return True

    # --- requests -----------------------------------------------------------------------------------

    async def _request(self, kind: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Send one request, wait for its answer and for the state that follows it; the answer (or None)."""
        self.counter += 1
        rid = f"{kind[0]}{self.p.index}-{self.counter}"
        self.stats.requests += 1
        sent = await self._send({"type": kind, "request_id": rid, **payload})
        if not await self._until(lambda: rid in self.answers, self.cfg.grace):
            self.stats.errors[f"no_answer_{kind}"] += 1
            return None
        answer = self.answers.pop(rid)
        if answer["type"] == "error":
            self.stats.errors[str(answer.get("code"))] += 1
            await self._fresh_state()
            return None
        if kind in self.stats.latencies:
            self.stats.latencies[kind].append(answer["_at"] - sent)
            if self.start.is_set() and not self._stopping():
                self.stats.acked_in_window += 1
        if answer.get("duplicate"):
            self.stats.errors["duplicate_ack"] += 1
        # every accepted request is followed by a state push
        if not await self._until(lambda: self.states > answer["_states"], 5.0):
            await self._fresh_state()
        return answer

    async def _send(self, msg: dict[str, Any]) -> float:
        """Send one message, paced to :data:`SEND_RATE` (a token bucket); the time it was sent (latencies are
        measured from then, not from before the pacing)."""
        while True:
            now = time.monotonic()
            self._tokens = min(SEND_BURST, self._tokens + (now - self._tokens_at) * SEND_RATE)
            self._tokens_at = now
            if self._tokens >= 1:
                break
            await asyncio.sleep((1 - self._tokens) / SEND_RATE)
        self._tokens -= 1
        sent = time.perf_counter()
        await self.ws.send(json.dumps(msg))
        return sent

    async def _fresh_state(self) -> None:
        seen = self.states
        await self._send({"type": "state"})
        await self._until(lambda: self.states > seen, self.cfg.grace)

    # --- the player -----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Play until done; with ``cfg.reconnect``, follow redirects and reconnect after a drop."""
        from websockets.asyncio.client import connect

        resuming = False
        out_since: float | None = None  # when the connection was lost (None: connected)
        tried = 0
        hops = 0  # redirects in a row (an owner that never accepts the player is an error, not a loop)
        while True:
            self.dropped, self.redirect = False, None
            try:
                async with connect(self.ws_url, max_size=2**22, open_timeout=self.cfg.connect_timeout) as ws:
                    self.ws = ws
                    out_since = None
                    reader = asyncio.create_task(self._reader())
                    try:
                        if resuming:
                            await self._resume()
                            hops = 0
                        await self._play(resuming)
                        return
                    except Dropped:
                        pass
                    finally:
                        reader.cancel()
                        with contextlib.suppress(asyncio.CancelledError, Exception):
                            await reader
            except (OSError, TimeoutError):  # refused: the process is gone (or not up yet)
                if not self.cfg.reconnect:
                    raise
            except Exception as exc:  # the server closed the socket, or refused the handshake
                if not self.cfg.reconnect or type(exc).__module__.split(".")[0] != "websockets":
                    raise
            if not self.cfg.reconnect:
                raise LoadTestError("the connection was closed")
            resuming = True
            if self.redirect is not None:  # the table's owner is elsewhere: go there at once
                self.stats.redirects += 1
                hops += 1
                if hops > 10:
                    raise LoadTestError(f"redirected {hops} times in a row (last to {self.redirect})")
                self.p.base = self.redirect.rstrip("/")
            else:
                now = time.monotonic()
                if out_since is None:
                    out_since = now
                    self.stats.reconnects += 1
                elif now - out_since > self.cfg.reconnect_seconds:
                    raise LoadTestError(f"could not reconnect within {self.cfg.reconnect_seconds:g} s")
                if self.fallbacks:
                    self.p.base = self.fallbacks[tried % len(self.fallbacks)]
                    tried += 1
                await asyncio.sleep(0.2 + 0.3 * self.rng.random())
            self.ws_url = "ws" + self.p.base[4:] + f"/ws/tables/{self.p.table_id}?token={self.p.token}"

    async def _resume(self) -> None:
        """(After a reconnection.) The seat back, and every round of this player settled while it was away
        counted (from ``GET /history``); a round still being played here is followed as before."""
        if not await self._until(lambda: self.state is not None, self.cfg.connect_timeout):
            raise LoadTestError("no state after reconnecting")
        self.stats.resumed += 1
        if self.p.seat is None:
            answer = await self._request("sit", {})
            if answer is None:
                raise LoadTestError("could not take a seat again")
            self.p.seat = answer.get("seat")
        state = self.state or {}
        rnd = state.get("round")
        if rnd is not None and rnd.get("phase") != "settled":
            mine = next((s for s in rnd["seats"] if s["seat"] == self.p.seat), None)
            if mine is not None and mine["wagers"] and state.get("round_id") is not None:
                self.my_round = int(state["round_id"])  # a wager whose ack was lost with the connection
        deadline = time.monotonic() + self.cfg.grace
        while True:
            await self._settled_elsewhere()
            pending = self.my_round is not None and self.my_round not in self.results
            live = pending and (self.state or {}).get("round_id") == self.my_round
            if not pending or live or time.monotonic() > deadline:
                return
            await asyncio.sleep(0.5)  # the new owner is still completing it

    async def _check_orphan(self) -> None:
        """(Several processes.) The round this player waits for is not the one its table shows (or is over
        there) for 2 s: it was completed where the player was not looking (a takeover, a recovery), so its
        result comes from the history."""
        state = self.state or {}
        rnd = state.get("round") or {}
        orphaned = (
            self.my_round is not None
            and self.my_round not in self.results
            and (state.get("round_id") != self.my_round or rnd.get("phase") == "settled")
        )
        now = time.monotonic()
        if not orphaned:
            self._orphan_since = None
        elif self._orphan_since is None:
            self._orphan_since = now
        elif now - self._orphan_since >= 2.0:
            self._orphan_since = now  # at most every 2 s
            await self._settled_elsewhere()

    async def _settled_elsewhere(self) -> None:
        """Count the rounds of this player at its table that were settled without its seeing the result."""
        import httpx

        try:
            async with httpx.AsyncClient(base_url=self.p.base, timeout=10.0) as http:
                r = await http.get(
                    "/history", params={"last": 20}, headers={"Authorization": f"Bearer {self.p.token}"}
                )
        except httpx.HTTPError:
            return  # asked again later
        if r.status_code != 200:
            return
        for summary in r.json():
            rid = int(summary["round_id"])
            if summary.get("table_id") != self.p.table_id or rid in self.results:
                continue
            for row in summary.get("players", []):
                if row.get("player") == self.p.name:
                    self._count(self.p.table_id, rid, int(row["net"]))
                    self.stats.results_from_history += 1

    async def reconcile(self) -> int:
        """(After the play, faults possible.) Count the rounds of this player at its table that it never saw
        settled (its wager's ack lost with a killed process, the result sent while it was away) from its whole
        history, a page at a time; how many. Rounds it saw are not recounted."""
        import httpx

        found = 0
        before: int | None = None
        async with httpx.AsyncClient(base_url=self.p.base, timeout=30.0) as http:
            for _ in range(1000):  # bounded: at most 100,000 rounds
                params: dict[str, int] = {"last": 100}
                if before is not None:
                    params["before"] = before
                r = await http.get(
                    "/history", params=params, headers={"Authorization": f"Bearer {self.p.token}"}
                )
                if r.status_code != 200:
                    raise LoadTestError(
                        f"the history of {self.p.name} failed: {r.status_code} {r.text[:200]}"
                    )
                page = r.json()
                for summary in page:
                    rid = int(summary["round_id"])
                    if summary.get("table_id") != self.p.table_id or rid in self.results:
                        continue
                    for row in summary.get("players", []):
                        if row.get("player") == self.p.name:
                            self._count(self.p.table_id, rid, int(row["net"]))
                            found += 1
                if len(page) < 100:
                    break
                before = min(int(s["round_id"]) for s in page)
        self.stats.results_reconciled += found
        return found

    async def _play(self, resumed: bool = False) -> None:
        if not await self._until(lambda: self.state is not None, self.cfg.connect_timeout):
            raise LoadTestError("no state after connecting")
        if self.p.seat is None:
            answer = await self._request("sit", {})
            if answer is None:
                raise LoadTestError("could not take a seat")
            self.p.seat = answer.get("seat")
        await self.start.wait()
        if self.cfg.ramp > 0 and not resumed:
            await asyncio.sleep(self.rng.uniform(0, self.cfg.ramp))
        await self._fresh_state()
        while True:
            step = self._next()
            if step == "done":
                return
            if not isinstance(step, tuple):
                if self.cfg.reconnect:
                    await self._check_orphan()
                await self._wait_change()
                continue
            if self.cfg.think > 0:
                # a player's thinking time (uniform 0.5-1.5 x the mean), then decide on the latest state
                await asyncio.sleep(self.cfg.think * (0.5 + self.rng.random()))
                step = self._next()
                if not isinstance(step, tuple):
                    continue
            kind, payload = step
            answer = await self._request(kind, payload)
            if answer is not None and kind == "wager":
                self.my_round = answer.get("round_id")

    async def _wait_change(self) -> None:
        if self.dropped:
            raise Dropped
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), 1.0)

    def _stopping(self) -> bool:
        return time.monotonic() >= self.stop_at[0]

    def _result(self, msg: dict[str, Any]) -> None:
        rid = int(msg["round_id"])
        if rid in self.results:
            return  # seen already (a resent result after a reconnection)
        net = None
        for r in msg.get("results", []):
            if r.get("seat") == self.p.seat and r.get("player_id", self.p.player_id) == self.p.player_id:
                net = (net or 0) + int(r["net"])
        self._count(self.p.table_id, rid, net)

    def _count(self, table_id: int, rid: int, net: int | None) -> None:
        self.results.add(rid)
        key = (table_id, rid)
        self.stats.rounds.add(key)
        if time.monotonic() <= self.stop_at[0]:
            self.stats.rounds_in_window.add(key)
        if net is not None:
            self.p.expected_balance += net
            self.p.rounds_played += 1

    def _next(self) -> tuple[str, dict[str, Any]] | str | None:
        """The next request from the latest state: (kind, payload), None (wait) or "done"."""
        state = self.state
        seat = self.p.seat
        if state is None or seat is None:
            return None
        rnd = state.get("round")
        mine = None
        if rnd is not None:
            mine = next((s for s in rnd["seats"] if s["seat"] == seat), None)
        if self.my_round is not None and self.my_round not in self.results:
            # my round is not settled yet: act when it is my turn, else wait
            if (
                rnd is not None
                and state.get("round_id") == self.my_round
                and rnd["phase"] == "deciding"
                and rnd["to_act"] == seat
                and rnd["legal_actions"]
            ):
                # the act names the decision it answers (a repeated or stale one changes nothing)
                return "act", {
                    "action": self.rng.choice(rnd["legal_actions"]),
                    "decision": state.get("decision"),
                }
            return None
        if not state.get("betting_open"):
            return None
        if mine is not None and mine["wagers"] and rnd is not None and rnd["phase"] == "betting":
            return None  # already in this round (its ack is on the way)
        if self._stopping():
            # never open a new round now; join one that others opened so it is dealt at once
            opened = rnd is not None and rnd["phase"] == "betting" and any(s["wagers"] for s in rnd["seats"])
            if not opened:
                return "done"
        wagers, options = _wagers(self.p.game, self.rng, self.cfg.side_bets)
        payload: dict[str, Any] = {"wagers": wagers}
        if options:
            payload["options"] = options
        return "wager", payload
