"""Players' sessions (issue 26; GLI-19 2.13): reality checks, the session-time limit, the inactivity time-out and
the previous login, on the server's one clock (``Config.clock``).

A session begins with a player's first request (REST or a table's socket) when none is open, or with a login
(which ends the one before: ``new_login``); it ends with ``logout`` (the player stopped, e.g. from a reality
check), ``inactivity`` (no request for ``Config.inactivity_seconds``), ``session_limit``, ``break`` or
``self_exclusion``, or ``restart`` (the server stopped: it ends at its last request). :meth:`Sessions.sweep`
(every second, off the event loop) ends the idle and over-long sessions, closing their sockets, and sends the
``reality_check`` messages that are due. The open sessions are kept in memory and written on change (the last
request at most every :data:`SEEN_WRITE_SECONDS`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from tablegames.server.core import PlayerInfo
from tablegames.server.db import PlayerLimit, PlayerMoney, PlayerSession
from tablegames.server.protection import REALITY, SESSION_LIMIT, effective, money_sums
from tablegames.server.transactions import Transactions

SEEN_WRITE_SECONDS: Final = 30.0
CLOSE_SESSION_ENDED: Final = 4440  # the close code of a socket whose session ended (time-out, limit, logout)


@dataclass
class Open:
    session_id: int
    started_at: float
    last_seen: float
    written: float  # last_seen as stored
    # the player's session limit and reality-check interval (seconds), as read at ``read_at``
    limit: float | None = None
    every: float | None = None
    next_check: float | None = None
    read_at: float = float("-inf")


LIMITS_READ_SECONDS: Final = (
    60.0  # the sweep reads a session's limits again after this (changes here: at once)
)


class Sessions:
    """The players' open sessions (this process's)."""

    def __init__(
        self,
        db: Transactions,
        clock: Callable[[], float],
        inactivity_seconds: float,
        close_sockets: Callable[[int, str, str, int], int],
        sockets: Callable[[int], Iterable[Any]],
    ) -> None:
        self.db = db
        self.clock = clock
        self.inactivity = inactivity_seconds
        self.close_sockets = close_sockets
        self.sockets = sockets
        self.open: dict[int, Open] = {}
        self.lock = threading.RLock()

    def recover(self) -> None:
        """(Start-up.) Sessions left open by a stopped server end at their last request (``restart``)."""
        with self.db.tx() as s:
            s.execute(
                update(PlayerSession)
                .where(PlayerSession.ended_at.is_(None))
                .values(ended_at=PlayerSession.last_seen_at, reason="restart")
            )

    def _interval(self, s: Session, player_id: int, kind: str, now: float) -> float | None:
        row = s.get(PlayerLimit, (player_id, kind))
        minutes = effective(row, now)
        return None if minutes is None else minutes * 60.0

    def _read_limits(self, player_id: int, o: Open, now: float, force: bool = False) -> None:
        """The session's limit and reality-check interval, read again when older than :data:`LIMITS_READ_SECONDS`
        (so a sweep of many sessions costs no query each; a cooling-off ending meanwhile counts within that)."""
        if not force and now - o.read_at < LIMITS_READ_SECONDS:
            return
        with self.db.sessions() as s:
            o.limit = self._interval(s, player_id, SESSION_LIMIT, now)
            every = self._interval(s, player_id, REALITY, now)
        if every != o.every:
            o.every = every
            o.next_check = None if every is None else max(now, o.started_at) + every
        o.read_at = now

    def limits_changed(self, player_id: int) -> None:
        """The player changed their limits here: their open session reads them at once."""
        with self.lock:
            o = self.open.get(player_id)
            if o is not None:
                self._read_limits(player_id, o, self.clock(), force=True)

    def touch(self, player: PlayerInfo) -> Open | None:
        """A request of the player: their session goes on, or (none open, or idle too long) a new one begins."""
        if player.spectator:
            return None
        now = self.clock()
        with self.lock:
            o = self.open.get(player.player_id)
            if o is not None and now - o.last_seen >= self.inactivity:
                self.end(player.player_id, "inactivity", at=o.last_seen + self.inactivity)
                o = None
            if o is None:
                return self.begin(player.player_id, now)
            o.last_seen = now
            if now - o.written >= SEEN_WRITE_SECONDS:
                with self.db.tx() as s:
                    s.execute(
                        update(PlayerSession).where(PlayerSession.id == o.session_id).values(last_seen_at=now)
                    )
                o.written = now
            return o

    def begin(self, player_id: int, now: float) -> Open:
        with self.lock, self.db.tx() as s:
            every = self._interval(s, player_id, REALITY, now)
            row = PlayerSession(
                player_id=player_id,
                started_at=now,
                last_seen_at=now,
                next_check_at=None if every is None else now + every,
            )
            s.add(row)
            s.flush()
            o = self.open[player_id] = Open(
                row.id, now, now, now, limit=self._interval(s, player_id, SESSION_LIMIT, now), every=every,
                next_check=row.next_check_at, read_at=now,
            )  # fmt: skip
            return o

    def login(self, player: PlayerInfo) -> float | None:
        """A sign-in: the session before ends (``new_login``), a new one begins; the previous login's time (the
        start of the player's latest session before this one), None for a first."""
        now = self.clock()
        with self.lock:
            previous = self.previous_login(player.player_id, include_open=True)
            if player.player_id in self.open:
                self.end(player.player_id, "new_login")
            self.begin(player.player_id, now)
        return previous

    def previous_login(self, player_id: int, include_open: bool = False) -> float | None:
        """The start of the player's latest session (but the open one, unless ``include_open``)."""
        with self.db.sessions() as s:
            q = select(func.max(PlayerSession.started_at)).where(PlayerSession.player_id == player_id)
            o = self.open.get(player_id)
            if o is not None and not include_open:
                q = q.where(PlayerSession.id != o.session_id)
            value = s.scalar(q)
            return None if value is None else float(value)

    def end(self, player_id: int, reason: str, at: float | None = None, close: bool = True) -> bool:
        """End the player's open session (``reason``); their sockets are closed (``close``). False: none open."""
        with self.lock:
            o = self.open.pop(player_id, None)
            if o is None:
                return False
            ended = self.clock() if at is None else at
            with self.db.tx() as s:
                s.execute(
                    update(PlayerSession)
                    .where(PlayerSession.id == o.session_id)
                    .values(
                        ended_at=ended, reason=reason, last_seen_at=max(o.last_seen, min(ended, self.clock()))
                    )
                )
        if close and reason not in ("new_login",):
            self.close_sockets(player_id, "session_ended", f"your session ended ({reason.replace('_', ' ')})",
                               CLOSE_SESSION_ENDED)  # fmt: skip
        return True

    def over_limit(self, player_id: int) -> bool:
        """True when the player's open session has reached their session limit."""
        o = self.open.get(player_id)
        if o is None:
            return False
        now = self.clock()
        self._read_limits(player_id, o, now)
        return o.limit is not None and now - o.started_at >= o.limit

    def summary(self, player_id: int) -> dict[str, Any] | None:
        """The open session: when it began, how long it has lasted, what was wagered and won (cents)."""
        o = self.open.get(player_id)
        if o is None:
            return None
        now = self.clock()
        with self.db.sessions() as s:
            sums = money_sums(s, player_id, o.started_at - 1e-6, now)
            games = s.scalar(
                select(func.count(func.distinct(PlayerMoney.round_id))).where(
                    PlayerMoney.player_id == player_id,
                    PlayerMoney.kind == "stake",
                    PlayerMoney.at >= o.started_at,
                    PlayerMoney.at <= now,
                )
            )
        return {
            "started_at": o.started_at,
            "played_seconds": int(now - o.started_at),
            "wagered": sums["stake"],
            "won": sums["return"],
            "net": sums["return"] - sums["stake"],
            "games": int(games or 0),
        }

    def sweep(self) -> None:
        """End idle and over-long sessions and send the reality checks that are due (every second)."""
        now = self.clock()
        with self.lock:  # (one sweep at a time: a reality check is sent once)
            for pid in list(self.open):
                o = self.open.get(pid)
                if o is None:
                    continue
                if now - o.last_seen >= self.inactivity:
                    self.end(pid, "inactivity", at=o.last_seen + self.inactivity)
                elif self.over_limit(pid):
                    self.end(pid, "session_limit")
                else:
                    self._reality_check(pid, o, now)

    def _reality_check(self, pid: int, o: Open, now: float) -> None:
        self._read_limits(pid, o, now)
        if o.every is None or o.next_check is None or now < o.next_check:
            return
        while o.next_check <= now:
            o.next_check += o.every
        with self.db.tx() as s:
            s.execute(
                update(PlayerSession)
                .where(PlayerSession.id == o.session_id)
                .values(next_check_at=o.next_check)
            )
        summary = self.summary(pid)
        if summary is None:
            return
        message = {"type": "reality_check", "interval_minutes": int(o.every // 60), **summary}
        for conn in list(self.sockets(pid)):
            conn.send(message)


def session_report(s: Session, since: float, until: float) -> list[dict[str, Any]]:
    """GLI-19 2.13's session record of the sessions that began in ``[since, until)`` (the server's clock), in
    order of their start: player, start, end (None: still open), duration (seconds, to the last request while
    open), wagered, won, net (won - wagered; cents), games played (rounds wagered on) and the reason it ended."""
    from tablegames.server.db import Player

    rows = s.execute(
        select(PlayerSession, Player.name)
        .join(Player, Player.id == PlayerSession.player_id)
        .where(PlayerSession.started_at >= since, PlayerSession.started_at < until)
        .order_by(PlayerSession.started_at, PlayerSession.id)
    ).all()
    out = []
    for row, name in rows:
        end = row.ended_at if row.ended_at is not None else row.last_seen_at
        sums = money_sums(s, row.player_id, row.started_at - 1e-6, end)
        games = s.scalar(
            select(func.count(func.distinct(PlayerMoney.round_id))).where(
                PlayerMoney.player_id == row.player_id,
                PlayerMoney.kind == "stake",
                PlayerMoney.at >= row.started_at,
                PlayerMoney.at <= end,
            )
        )
        out.append(
            {
                "player": name,
                "session_start": row.started_at,
                "session_end": row.ended_at,
                "duration_seconds": int(end - row.started_at),
                "wagered": sums["stake"],
                "won": sums["return"],
                "net": sums["return"] - sums["stake"],
                "games_played": int(games or 0),
                "reason_ended": row.reason or "open",
            }
        )
    return out
