"""Player protection (issue 26; docs/protection.md): deposit and loss limits with a cooling-off for increases,
breaks (time-outs) and self-exclusion, on the server's one clock (``Config.clock``).

- Limits (:data:`LIMIT_KINDS`): deposits and net losses over a rolling day (24 h), week (7 days) and month
  (30 days), in cents, and a session's length in minutes. Every limit that applies is checked, so the lowest
  wins. A decrease (or a first limit) takes effect at once; an increase or a removal only after
  :data:`COOLING_OFF` seconds (``pending``), and a decrease meanwhile cancels it.
- Loss over a window = the stakes placed in it minus the returns paid in it (``player_money``): an open wager
  counts as lost until its round settles. A wager whose whole cost could take the loss over a limit is refused.
- Breaks (:data:`BREAKS`) and self-exclusions (:data:`EXCLUSIONS`): no wager, buy-in, seat or table socket until
  they end; every socket is closed at once; they are never shortened, by anyone (:meth:`ProtectionService.lift`
  refuses, and says so in the audit trail). Cash-out stays open.

:class:`ProtectionService`'s methods block on the database (REST threads, the tables' worker threads).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Final, Protocol

from sqlalchemy import (
    BigInteger,
    Boolean,
    Connection,
    Float,
    bindparam,
    cast,
    func,
    insert,
    null,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from tablegames.server import audit
from tablegames.server.core import PlayerInfo
from tablegames.server.db import Exclusion, Player, PlayerLimit, PlayerMoney
from tablegames.server.errors import ApiError
from tablegames.server.rawsql import insert_rows
from tablegames.server.transactions import Transactions

DAY: Final = 86_400.0
WINDOWS: Final = {"day": DAY, "week": 7 * DAY, "month": 30 * DAY}
MONEY_LIMITS: Final = tuple(f"{what}_{w}" for what in ("deposit", "loss") for w in WINDOWS)
SESSION_LIMIT: Final = "session_minutes"
REALITY: Final = "reality_minutes"  # the reality-check interval: a choice, not a limit (no cooling-off)
LIMIT_KINDS: Final = (*MONEY_LIMITS, SESSION_LIMIT)
KINDS: Final = (*LIMIT_KINDS, REALITY)
COOLING_OFF: Final = DAY
MAX_CENTS: Final = 10**12
MAX_MINUTES: Final = 7 * 24 * 60
BREAKS: Final = {"1d": DAY, "1w": 7 * DAY, "1m": 30 * DAY, "6w": 42 * DAY}
EXCLUSIONS: Final = {"6m": 182 * DAY, "1y": 365 * DAY, "5y": 1826 * DAY}
BREAK, SELF_EXCLUSION = "break", "self_exclusion"
CLOSE_EXCLUDED: Final = 4403  # the close code of a socket closed by a break or self-exclusion


class LimitLike(Protocol):
    """A limit's stored columns (a :class:`PlayerLimit` or a row of :data:`_LIMIT_ROWS`)."""

    @property
    def amount(self) -> int | None: ...
    @property
    def pending(self) -> bool: ...
    @property
    def pending_amount(self) -> int | None: ...
    @property
    def effective_at(self) -> float | None: ...


def effective(row: LimitLike | None, now: float) -> int | None:
    """A limit's amount in force at ``now`` (a pending change counts once its time has come)."""
    if row is None:
        return None
    if row.pending and row.effective_at is not None and now >= row.effective_at:
        return row.pending_amount
    return row.amount


def _check_value(kind: str, value: object) -> int | None:
    if kind not in KINDS:
        raise ApiError("bad_limit", f"unknown limit {kind!r}; limits: {', '.join(KINDS)}")
    if value is None:
        return None
    top = MAX_MINUTES if kind in (SESSION_LIMIT, REALITY) else MAX_CENTS
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
        unit = "minutes" if kind in (SESSION_LIMIT, REALITY) else "cents"
        raise ApiError("bad_limit", f"{kind} must be a whole number of {unit}, 1-{top}, or null (none)")
    return value


_INSERT_MONEY: Final = insert(PlayerMoney)


def record(
    c: Connection | Session, player_id: int, at: float, kind: str, amount: int, round_id: int | None = None
) -> None:
    """One deposit, stake or return, in the caller's transaction (a Core connection's: on the driver's cursor)."""
    row = {"player_id": player_id, "at": at, "kind": kind, "amount": amount, "round_id": round_id}
    if isinstance(c, Connection):
        insert_rows(c, _INSERT_MONEY, row)
    else:
        c.execute(_INSERT_MONEY, [row])


def money_sums(
    s: Session | Connection, player_id: int, since: float, until: float | None = None
) -> dict[str, int]:
    """The player's deposits, stakes and returns from ``since`` (exclusive) to ``until`` (inclusive; None: now)."""
    q = select(PlayerMoney.kind, func.coalesce(func.sum(PlayerMoney.amount), 0)).where(
        PlayerMoney.player_id == player_id, PlayerMoney.at > since
    )
    if until is not None:
        q = q.where(PlayerMoney.at <= until)
    sums = {str(k): int(v) for k, v in s.execute(q.group_by(PlayerMoney.kind))}
    return {k: sums.get(k, 0) for k in ("deposit", "stake", "return")}


_LIMIT_ROWS: Final = select(
    PlayerLimit.kind,
    PlayerLimit.amount,
    PlayerLimit.pending,
    PlayerLimit.pending_amount,
    PlayerLimit.effective_at,
).where(PlayerLimit.player_id == bindparam("player"))


# A guard in one statement: the limits (ends_at null), then the breaks and exclusions not over at ``now`` (those
# over stay over while the clock goes on).
_GUARD_ROWS: Final = union_all(
    _LIMIT_ROWS.add_columns(cast(null(), Float).label("started_at"), cast(null(), Float).label("ends_at")),
    select(
        Exclusion.kind,
        cast(null(), BigInteger),
        cast(null(), Boolean),
        cast(null(), BigInteger),
        cast(null(), Float),
        Exclusion.started_at,
        Exclusion.ends_at,
    ).where(Exclusion.player_id == bindparam("player"), Exclusion.ends_at > bindparam("now")),
)
GUARDS_KEPT: Final = 50_000  # players whose guard this process keeps


@dataclass(frozen=True)
class Guard:
    """What a wager's, a buy-in's or a seat's check reads of a player: their limits as stored and their breaks
    and exclusions not over at ``read_at`` (the server's clock); the clock applies both at each check."""

    limits: tuple[Any, ...]  # rows of _LIMIT_ROWS (LimitLike, with .kind)
    exclusions: tuple[Any, ...]  # exclusion rows of _GUARD_ROWS (.kind, .started_at, .ends_at)
    read_at: float

    def limits_at(self, now: float) -> dict[str, int]:
        """The limits in force at ``now`` (kind -> amount; kinds without one left out)."""
        out = {}
        for row in self.limits:
            value = effective(row, now)
            if value is not None:
                out[str(row.kind)] = value
        return out

    def active(self, now: float) -> Any | None:
        """The break or exclusion in force at ``now`` (the one ending last), if any."""
        found = [e for e in self.exclusions if e.started_at <= now < e.ends_at]
        return max(found, key=lambda e: e.ends_at) if found else None


def _in_force(now: float) -> tuple[Any, Any]:
    """The conditions on ``exclusions`` of a break or exclusion in force at ``now`` (:meth:`Guard.active`'s)."""
    return Exclusion.started_at <= now, Exclusion.ends_at > now


def read_guard(c: Connection, player_id: int, now: float) -> Guard:
    """A player's :class:`Guard` as the database has it (on ``c``: in its transaction, if any)."""
    rows = list(c.execute(_GUARD_ROWS, {"player": player_id, "now": now}))
    return Guard(
        tuple(r for r in rows if r.ends_at is None), tuple(r for r in rows if r.ends_at is not None), now
    )


class Guards:
    """The players' guards kept in memory. SQLite: this process is the database's only writer, and every limit,
    break or exclusion is written through :class:`ProtectionService`, which calls :meth:`changing` around its
    transaction. PostgreSQL: the same, and every change any process commits is announced by the database
    (server/caches.py: :meth:`forget` on its notice; :meth:`reset` when the listener's connection is lost and
    again once it listens, nothing being kept in between: ``live`` False). A guard read while a change of its
    player is under way, or read before a change or a reset that ended meanwhile, is not kept; a kept guard is
    used only at or after the time it was read (the clock applies it)."""

    def __init__(self, live: bool = True) -> None:
        self._kept: dict[int, Guard] = {}
        self._version: dict[int, int] = {}  # player -> changes ended (a guard read before one is stale)
        self._changing: dict[int, int] = {}  # player -> changes under way (their guard is read, not kept)
        self._lock = threading.Lock()
        self._epoch = 0  # resets (a guard read before one is stale)
        self.live = live

    def get(self, player_id: int, now: float) -> tuple[Guard | None, tuple[int, int, int] | None]:
        """(The kept guard usable at ``now``, or None; the token to :meth:`keep` a guard read now, or None.)"""
        with self._lock:
            if self._changing.get(player_id) or not self.live:
                return None, None
            g = self._kept.get(player_id)
            if g is not None and now >= g.read_at:
                return g, None
            return None, (player_id, self._version.get(player_id, 0), self._epoch)

    def keep(self, token: tuple[int, int, int] | None, guard: Guard) -> None:
        """Keep ``guard`` (read after :meth:`get` gave ``token``) unless a change or a reset began or ended since."""
        if token is None:
            return
        player_id, version, epoch = token
        with self._lock:
            if (
                self._changing.get(player_id)
                or self._version.get(player_id, 0) != version
                or self._epoch != epoch
                or not self.live
            ):
                return
            if len(self._kept) >= GUARDS_KEPT:
                self._kept.clear()
            self._kept[player_id] = guard

    def forget(self, player_id: int) -> None:
        """A change of the player's guard was committed (another process's, or any, announced by PostgreSQL)."""
        with self._lock:
            self._kept.pop(player_id, None)
            self._version[player_id] = self._version.get(player_id, 0) + 1

    def reset(self, live: bool) -> None:
        """Drop every kept guard (reads under way are not kept); ``live``: whether guards may be kept from now."""
        with self._lock:
            self._kept.clear()
            self._version.clear()
            self._epoch += 1
            self.live = live

    @contextmanager
    def changing(self, player_id: int) -> Iterator[None]:
        """Around a transaction that changes the player's limits, breaks or exclusions (to its commit or
        rollback): meanwhile their guard is read from the database each time, and afterwards read again."""
        with self._lock:
            self._changing[player_id] = self._changing.get(player_id, 0) + 1
            self._kept.pop(player_id, None)
        try:
            yield
        finally:
            with self._lock:
                self._kept.pop(player_id, None)
                self._version[player_id] = self._version.get(player_id, 0) + 1
                left = self._changing[player_id] - 1
                if left:
                    self._changing[player_id] = left
                else:
                    del self._changing[player_id]


class ProtectionService:
    """Limits and exclusions over the server's unit of work; ``clock``: the server's one clock; ``sockets``: a
    player's open table sockets (to close them); ``on_excluded``: called with the player id once a break or
    exclusion is stored (the sessions end theirs)."""

    def __init__(
        self,
        db: Transactions,
        clock: Callable[[], float],
        sockets: Callable[[int], Iterable[Any]],
        on_excluded: Callable[[int, str], None] | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.sockets = sockets
        self.on_excluded = on_excluded
        self.on_limits: Callable[[int], None] | None = (
            None  # the player's limits changed (their session reads them)
        )
        # The players' guards kept in memory. SQLite: this process writes them all. PostgreSQL: kept between the
        # changes the database announces (server/caches.py), and only a wager's check uses them: its
        # transaction reads the guard again (recheck_loss); every other check reads it.
        self.guards = Guards(live=db.sqlite)
        if not db.sqlite:
            db.on_players.append(self.guards.forget)
            db.on_reset.append(self.guards.reset)

    def _changing(self, player_id: int) -> AbstractContextManager[None]:
        return self.guards.changing(player_id)

    def guard(self, player_id: int, now: float, c: Connection | None = None, exact: bool = True) -> Guard:
        """The player's :class:`Guard` at ``now``: the one kept, else read (on ``c``, or alone). On PostgreSQL the
        kept one may lag another process's change by its notice's delay: it is used only when not ``exact`` (a
        wager's first check, which its transaction's :meth:`recheck_loss` repeats on the database)."""
        kept, token = self.guards.get(player_id, now)
        if kept is not None and (self.db.sqlite or not exact):
            return kept
        if c is not None:
            g = read_guard(c, player_id, now)
        else:
            with self.db.reads.connect() as rc:
                g = read_guard(rc, player_id, now)
        self.guards.keep(token, g)
        return g

    # --- limits ---------------------------------------------------------------------------------------

    def _rows(self, s: Session, player_id: int) -> dict[str, PlayerLimit]:
        return {r.kind: r for r in s.scalars(select(PlayerLimit).where(PlayerLimit.player_id == player_id))}

    def set_limits(
        self, player: PlayerInfo, changes: Mapping[str, object], initial: bool = False
    ) -> dict[str, Any]:
        """Set some of the player's limits (``None``: remove). A decrease is at once; an increase or removal
        waits :data:`COOLING_OFF` seconds (``initial``, at registration: every limit at once)."""
        checked = {kind: _check_value(kind, value) for kind, value in changes.items()}
        now = self.clock()
        with self._changing(player.player_id), self.db.tx() as s:
            rows = self._rows(s, player.player_id)
            for kind, new in checked.items():
                row = rows.get(kind)
                if row is None:
                    row = PlayerLimit(
                        player_id=player.player_id, kind=kind, amount=None, pending=False, updated_at=now
                    )
                    s.add(row)
                current = effective(row, now)
                row.amount, row.pending, row.pending_amount, row.effective_at = current, False, None, None
                tighter = new is not None and (current is None or new <= current)
                if initial or kind == REALITY or tighter:
                    row.amount = new
                elif new != current:  # an increase or a removal: after the cooling-off
                    row.pending, row.pending_amount, row.effective_at = True, new, now + COOLING_OFF
                row.updated_at = now
        if self.on_limits is not None:
            self.on_limits(player.player_id)
        return self.status(player)

    def limits(self, s: Session, player_id: int, now: float) -> dict[str, int]:
        """The limits in force (kind -> amount; kinds without one left out)."""
        out = {}
        for kind, row in self._rows(s, player_id).items():
            value = effective(row, now)
            if value is not None:
                out[kind] = value
        return out

    def status(self, player: PlayerInfo) -> dict[str, Any]:
        """The player's limits (in force and pending), what each window has used, and their break or exclusion."""
        now = self.clock()
        with self.db.sessions() as s:
            rows = self._rows(s, player.player_id)
            limits = {}
            for kind in KINDS:
                row = rows.get(kind)
                due = (
                    row is not None
                    and row.pending
                    and row.effective_at is not None
                    and now < row.effective_at
                )
                limits[kind] = {
                    "amount": effective(row, now),
                    "pending": bool(due),
                    "pending_amount": row.pending_amount if due and row is not None else None,
                    "effective_at": row.effective_at if due and row is not None else None,
                }
            used = {}
            for w, seconds in WINDOWS.items():
                sums = money_sums(s, player.player_id, now - seconds, now)
                used[f"deposit_{w}"] = sums["deposit"]
                used[f"loss_{w}"] = sums["stake"] - sums["return"]
            ex = self.active(s, player.player_id, now)
        return {"limits": limits, "used": used, "exclusion": None if ex is None else _exclusion(ex, now)}

    def _refuse_excluded(self, g: Guard, now: float, doing: str) -> None:
        ex = g.active(now)
        if ex is None:
            return
        if ex.kind == BREAK:
            raise ApiError(
                "on_break", f"you are taking a break until {_when(ex.ends_at)}: no {doing} until then", 403
            )
        raise ApiError(
            "excluded", f"you excluded yourself until {_when(ex.ends_at)}: no {doing} until then", 403
        )

    def _refuse_over(
        self,
        c: Connection | None,
        player_id: int,
        limits: Mapping[str, int],
        now: float,
        what: str,
        cents: int,
    ) -> None:
        """Refuse ``cents`` more of ``what`` (deposit | loss) when any window's limit (of ``limits``, those in
        force) would be passed; the sums read on ``c`` (None: alone, in autocommit)."""
        if not any(f"{what}_{w}" in limits for w in WINDOWS):
            return
        if c is None:
            with self.db.reads.connect() as rc:
                self._refuse_over(rc, player_id, limits, now, what, cents)
            return
        for w, seconds in WINDOWS.items():
            limit = limits.get(f"{what}_{w}")
            if limit is None:
                continue
            sums = money_sums(c, player_id, now - seconds, now)
            used = sums["deposit"] if what == "deposit" else sums["stake"] - sums["return"]
            if used + cents > limit:
                left = max(0, limit - used)
                noun = "deposits" if what == "deposit" else "losses"
                raise ApiError(
                    f"{what}_limit",
                    f"your {w}'s {noun} limit is {limit} cents and {left} cents of it are left; "
                    f"{cents} cents is over it (nothing was changed)",
                    409,
                )

    def check_deposit(self, player: PlayerInfo, cents: int) -> float:
        """Refuse a buy-in over a deposit limit, or during a break or exclusion; the clock's time of the check."""
        now = self.clock()
        g = self.guard(player.player_id, now)
        self._refuse_excluded(g, now, "deposits")
        self._refuse_over(None, player.player_id, g.limits_at(now), now, "deposit", cents)
        return now

    def check_wager(self, player: PlayerInfo, cost: int, session_over: bool = False) -> float:
        """Refuse a wager of ``cost`` cents over a loss limit, during a break or exclusion, or past the session
        limit (``session_over``); the clock's time of the check. (On PostgreSQL with the guard kept: the
        transaction's :meth:`recheck_loss` decides on the database's.)"""
        now = self.clock()
        g = self.guard(player.player_id, now, exact=False)
        self._refuse_excluded(g, now, "wagers")
        if session_over:
            raise ApiError(
                "session_limit", "your session has reached its time limit: sign in again later", 409
            )
        self._refuse_over(None, player.player_id, g.limits_at(now), now, "loss", cost)
        return now

    def recheck_loss(self, c: Connection, player_id: int, now: float) -> None:
        """(In the wager's transaction, its stake recorded and the player's wallet locked by its posting.) The
        loss limits again, over what is committed now: two wagers of one player at two tables at once are
        serialized by the wallet's lock, so the second sees the first and is refused if the two pass a limit
        (the check before the transaction read without the lock). SQLite: the limits are the kept ones (this
        process's one writer lock orders every change of them with this transaction). PostgreSQL: the whole
        guard is read on ``c`` (one statement): a break or exclusion another process committed refuses the wager
        here even when the check before used a guard kept from before its notice arrived."""
        if self.db.sqlite:
            limits = self.guard(player_id, now, c).limits_at(now)
        else:
            g = self.guard(player_id, now, c, exact=True)
            self._refuse_excluded(g, now, "wagers")
            limits = g.limits_at(now)
        self._refuse_over(c, player_id, limits, now, "loss", 0)

    def check_play(self, player: PlayerInfo) -> None:
        """Refuse a seat or a table's socket during a break or exclusion."""
        if player.spectator:
            return
        now = self.clock()
        self._refuse_excluded(self.guard(player.player_id, now), now, "play")

    # --- breaks and self-exclusion --------------------------------------------------------------------

    def active(self, s: Session, player_id: int, now: float) -> Exclusion | None:
        """The break or exclusion in force (the one ending last), if any."""
        return s.scalars(
            select(Exclusion)
            .where(Exclusion.player_id == player_id, *_in_force(now))
            .order_by(Exclusion.ends_at.desc())
            .limit(1)
        ).first()

    def exclude(self, player: PlayerInfo, kind: str, period: object) -> dict[str, Any]:
        """Start a break (``kind`` :data:`BREAK`) or a self-exclusion: stored and audited, then every socket of
        the player is told and closed and their session ended. One already in force is never shortened."""
        periods = BREAKS if kind == BREAK else EXCLUSIONS
        if not isinstance(period, str) or period not in periods:
            raise ApiError("bad_period", f"the period must be one of {', '.join(periods)}")
        now = self.clock()
        with self._changing(player.player_id), self.db.tx() as s:
            old = self.active(s, player.player_id, now)
            ends = now + periods[period]
            if old is not None and old.ends_at >= ends and (old.kind == SELF_EXCLUSION or kind == BREAK):
                raise ApiError("already_excluded", f"you are already away until {_when(old.ends_at)}", 409)
            row = Exclusion(
                player_id=player.player_id, kind=kind, period=period, started_at=now, ends_at=ends
            )
            s.add(row)
            s.flush()
            audit.append(s, self.clock, f"player:{player.name}", kind, f"player:{player.name}", None,
                         {"period": period, "ends_at": ends})  # fmt: skip
            out = _exclusion(row, now)
        self.tell_away(player.player_id, kind, ends)
        if self.on_excluded is not None:
            self.on_excluded(player.player_id, kind)
        return out

    def away(self, player_ids: Iterable[int]) -> dict[int, tuple[str, float]]:
        """Of ``player_ids``, those in a break or exclusion now (read from the database): player id -> its kind and
        end (the one ending last)."""
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        now = self.clock()
        with self.db.sessions() as s:
            rows = s.execute(
                select(Exclusion.player_id, Exclusion.kind, Exclusion.ends_at)
                .where(Exclusion.player_id.in_(ids), *_in_force(now))
                .order_by(Exclusion.ends_at)
            ).all()
        return {int(p): (str(kind), float(ends)) for p, kind, ends in rows}  # (the last one ending wins)

    def tell_away(self, player_id: int, kind: str, ends: float) -> int:
        """Every open table socket of the player is told of the break or exclusion (to ``ends``) and closed."""
        return self.close_sockets(player_id, "excluded" if kind == SELF_EXCLUSION else "on_break",
                                  f"{'self-excluded' if kind == SELF_EXCLUSION else 'on a break'} until {_when(ends)}")  # fmt: skip

    def close_sockets(self, player_id: int, code: str, message: str, close_code: int = CLOSE_EXCLUDED) -> int:
        """Tell every open table socket of the player why, and close it; how many."""
        n = 0
        for conn in list(self.sockets(player_id)):
            conn.send({"type": "error", "code": code, "message": message, "request_id": None})
            conn.close(close_code)
            n += 1
        return n

    def register(self, active_only: bool = True) -> list[dict[str, Any]]:
        """The register of breaks and self-exclusions (staff), newest first."""
        now = self.clock()
        with self.db.sessions() as s:
            q = select(Exclusion, Player.name).join(Player, Player.id == Exclusion.player_id)
            if active_only:
                q = q.where(Exclusion.ends_at > now)
            rows = s.execute(q.order_by(Exclusion.started_at.desc(), Exclusion.id.desc())).all()
            return [{"player": name, "player_id": e.player_id, **_exclusion(e, now)} for e, name in rows]

    def lift(self, actor: str, player_name: str, reason: str = "") -> None:
        """Staff may not end a break or self-exclusion early: refused (``exclusion_locked``), and the attempt is
        in the audit trail."""
        now = self.clock()
        with self.db.tx() as s:
            pid = s.scalar(select(Player.id).where(Player.name == player_name))
            if pid is None:
                raise ApiError("not_found", f"no player {player_name!r}", 404)
            ex = self.active(s, pid, now)
            if ex is None:
                raise ApiError("not_excluded", f"{player_name} has no break or exclusion in force", 409)
            audit.append(
                s,
                self.clock,
                actor,
                "lift_refused",
                f"player:{player_name}",
                _exclusion(ex, now),
                None,
                reason,
            )
            ends = ex.ends_at
        raise ApiError(
            "exclusion_locked",
            f"{player_name}'s {'break' if ex.kind == BREAK else 'self-exclusion'} ends {_when(ends)}; "
            "nobody can end it early",
            403,
        )


def _when(ts: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _exclusion(e: Exclusion, now: float) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "period": e.period,
        "started_at": e.started_at,
        "ends_at": e.ends_at,
        "active": e.started_at <= now < e.ends_at,
    }
