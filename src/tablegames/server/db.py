"""Database models (SQLAlchemy 2) and engine set-up for SQLite and PostgreSQL.

Money is integer cents in a double-entry ledger: every :class:`LedgerTransaction` has entries that sum to zero,
and an account's ``balance`` column is a cache of the sum of its entries (checked by tests and by
``ledger.check_ledger``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    create_engine,
    event,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Account kinds
WALLET = "wallet"
HOUSE = "house"
CASHIER = "cashier"
IN_PLAY = "in_play"
JACKPOT = "jackpot"

# Round status
BETTING = "betting"
DECIDING = "deciding"
SETTLED = "settled"
VOID = "void"


def now() -> float:
    return time.time()


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("kind <> 'wallet' OR balance >= 0", name="wallet_not_negative"),
        CheckConstraint("kind <> 'in_play' OR balance >= 0", name="in_play_not_negative"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    balance: Mapped[int] = mapped_column(BigInteger, default=0)


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (Index("players_look_alike_key", "name_key", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)  # as typed (display)
    # The look-alike key of the name (service.name_key): unique, so "ann", "Ann" and "ANN" are one name.
    # Nullable only for databases made before the column existed (the first migration fills it in).
    name_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    created_at: Mapped[float] = mapped_column(Float, default=now)
    # argon2 (issue 25): a player with a password signs in again from any browser (POST /players/login);
    # None: a demo player known by their token alone
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # staff suspended the account (issue 25: PUT /players/{name}/suspension): every request refused, sockets closed
    suspended: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class LedgerTransaction(Base):
    __tablename__ = "ledger_transactions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"), index=True, nullable=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True, nullable=True)
    memo: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[float] = mapped_column(Float, default=now)


class Entry(Base):
    __tablename__ = "ledger_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    transaction_id: Mapped[int] = mapped_column(ForeignKey("ledger_transactions.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)  # signed: + credit to the account, - debit
    kind: Mapped[str] = mapped_column(String(24))  # wager, payout, contribution, hit, seed, envy, ...


class GameTable(Base):
    __tablename__ = "tables"
    __table_args__ = (
        CheckConstraint("seats >= 1 AND seats <= 7", name="seats_1_7"),
        CheckConstraint("min_bet > 0 AND max_bet >= min_bet", name="limits"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(32))
    seats: Mapped[int] = mapped_column(Integer)
    min_bet: Mapped[int] = mapped_column(BigInteger)
    max_bet: Mapped[int] = mapped_column(BigInteger)
    rules: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    paytable: Mapped[str | None] = mapped_column(String(80), nullable=True)
    rule_set: Mapped[str | None] = mapped_column(String(80), nullable=True)  # the rule set's name (issue 15)
    # who opened it although a wager's house edge is below the floor, from where, the edges (issue 20)
    edge_confirmation: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[float] = mapped_column(Float, default=now)
    # open; paused (no new round: the round in play finishes) or closed (the same, for good), by staff
    # (issue 25: POST /tables/{id}/pause|resume|close)
    status: Mapped[str] = mapped_column(String(16), default="open", server_default="open")


class Seating(Base):
    __tablename__ = "seatings"
    __table_args__ = (UniqueConstraint("table_id", "player_id", name="one_seat_per_table"),)

    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))


class RoundRow(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("table_id", "round_no", name="round_no_per_table"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    round_no: Mapped[int] = mapped_column(Integer)
    game: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(12), index=True)
    deck: Mapped[list[int]] = mapped_column(JSON)  # server-side only, never sent before the round ends
    server_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)  # secret until settled
    commitment: Mapped[str | None] = mapped_column(String(64), nullable=True)
    client_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    nonce: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seat_players: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    events: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    recovered: Mapped[bool] = mapped_column(Boolean, default=False)
    started_at: Mapped[float] = mapped_column(Float, default=now)
    settled_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class RoundStep(Base):
    """One input of a round (wager, deal, decision), stored as it happens: enough to rebuild the round."""

    __tablename__ = "round_steps"
    __table_args__ = (UniqueConstraint("round_id", "seq", name="step_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float, default=now)


class RoundPlayer(Base):
    __tablename__ = "round_players"

    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    staked: Mapped[int] = mapped_column(BigInteger)
    returned: Mapped[int] = mapped_column(BigInteger)
    net: Mapped[int] = mapped_column(BigInteger)
    balance_before: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)


class Meter(Base):
    """A linked jackpot meter of a game (shared by every table of the game). Its value is its account balance."""

    __tablename__ = "meters"
    __table_args__ = (UniqueConstraint("game", "name", name="meter_per_game"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(32))
    reset_cents: Mapped[int] = mapped_column(BigInteger)
    share: Mapped[str] = mapped_column(String(24))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))


class MeterHit(Base):
    """One jackpot hit, numbered per meter in the order the hits took the meter (1, 2, ...): regulators of
    linked jackpots require the order of near-simultaneous hits. Written in the settlement that pays it, under
    the meter's lock, so the numbers follow the order of the payments."""

    __tablename__ = "meter_hits"
    __table_args__ = (UniqueConstraint("meter_id", "seq", name="hit_seq_per_meter"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    meter_id: Mapped[int] = mapped_column(ForeignKey("meters.id"))
    seq: Mapped[int] = mapped_column(Integer)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    transaction_id: Mapped[int] = mapped_column(ForeignKey("ledger_transactions.id"), unique=True)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    amount: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[float] = mapped_column(Float, default=now)


class IdempotencyKey(Base):
    __tablename__ = "idempotency_keys"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    request_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float, default=now)


class TableLease(Base):
    """Which server process owns a table (PostgreSQL, several processes: ``server/cluster.py``). Taking the lease
    increments ``generation``; every write of a round step checks it in its own transaction (fencing).
    ``expires_at`` and ``taken_at`` are the database's clock (epoch seconds)."""

    __tablename__ = "table_leases"

    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    node: Mapped[str] = mapped_column(String(120))
    advertise: Mapped[str] = mapped_column(String(300))
    generation: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[float] = mapped_column(Float)
    taken_at: Mapped[float] = mapped_column(Float, default=0.0)


class ClusterNode(Base):
    """A live server process (its heartbeat): the tables are spread over the nodes whose row has not expired."""

    __tablename__ = "cluster_nodes"

    node: Mapped[str] = mapped_column(String(120), primary_key=True)
    advertise: Mapped[str] = mapped_column(String(300))
    expires_at: Mapped[float] = mapped_column(Float)
    pid: Mapped[int | None] = mapped_column(Integer, nullable=True)  # its heartbeat's database session


class StaffAccount(Base):
    """A member of the casino's staff (issue 25): a name, one role, an argon2 password hash; ``failed_logins``
    counts the failures since the last good login (3: locked until an admin unlocks it)."""

    __tablename__ = "staff"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    role: Mapped[str] = mapped_column(String(16))  # supervisor | operator | auditor | admin
    password_hash: Mapped[str] = mapped_column(String(200))
    must_change: Mapped[bool] = mapped_column(Boolean, default=True)  # a one-time password was given
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    failed_logins: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)
    last_login_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class StaffSession(Base):
    """A staff login: the SHA-256 of its bearer token, who, and until when (the server's clock)."""

    __tablename__ = "staff_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    staff_id: Mapped[int] = mapped_column(ForeignKey("staff.id"), index=True)
    created_at: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[float] = mapped_column(Float)
    ended: Mapped[bool] = mapped_column(Boolean, default=False)


class AuditEntry(Base):
    """One entry of the audit trail (issue 25): who did what to what, when (the server's clock), the state before
    and after, why; ``hash`` is the SHA-256 of the entry's canonical JSON with ``prev_hash``, the previous
    entry's hash (server/audit.py). Written in the same transaction as the change it records."""

    __tablename__ = "audit_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[float] = mapped_column(Float)
    actor: Mapped[str] = mapped_column(String(80))  # "staff:ann", "token:admin", "player:bob", "system"
    action: Mapped[str] = mapped_column(String(40))
    subject: Mapped[str] = mapped_column(String(120))
    before: Mapped[Any] = mapped_column(JSON, nullable=True)
    after: Mapped[Any] = mapped_column(JSON, nullable=True)
    reason: Mapped[str] = mapped_column(String(500), default="")
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64), unique=True)


class Adjustment(Base):
    """A staff adjustment of a player's balance (issue 25): applied at once up to the dual-control threshold,
    above it ``pending`` until a second staff member approves (or rejects) it; its ledger transaction once
    applied. Idempotent by (who asked, request id)."""

    __tablename__ = "adjustments"
    __table_args__ = (UniqueConstraint("requested_by", "request_id", name="adjustments_request"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)  # signed cents: + credit to the wallet, - debit
    reason: Mapped[str] = mapped_column(String(500))
    request_id: Mapped[str] = mapped_column(String(64))
    requested_by: Mapped[str] = mapped_column(
        String(80)
    )  # the audit trail's name: "staff:ann", "token:admin"
    requested_at: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), index=True)  # pending, applied, rejected
    decided_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    decided_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    decision_reason: Mapped[str] = mapped_column(String(500), default="")
    transaction_id: Mapped[int | None] = mapped_column(ForeignKey("ledger_transactions.id"), nullable=True)


class PlayerLimit(Base):
    """A player's limit of one kind (issue 26, server/protection.py): deposits or losses over a day, a week or a
    month (cents), a session's length or the reality-check interval (minutes). ``amount`` None: no limit. An
    increase (or a removal) waits ``pending_*`` until ``effective_at`` (the cooling-off, the server's clock)."""

    __tablename__ = "player_limits"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(24), primary_key=True)
    amount: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    pending: Mapped[bool] = mapped_column(Boolean, default=False)  # an increase or removal is waiting
    pending_amount: Mapped[int | None] = mapped_column(
        BigInteger, nullable=True
    )  # None with pending: removal
    effective_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    updated_at: Mapped[float] = mapped_column(Float)


class Exclusion(Base):
    """The register of breaks (time-outs) and self-exclusions (issue 26): while ``started_at <= now < ends_at``
    (the server's clock) the player may not wager, buy in nor open a table's socket. Never shortened."""

    __tablename__ = "exclusions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # break | self_exclusion
    period: Mapped[str] = mapped_column(String(8))  # 1d 1w 1m 6w | 6m 1y 5y
    started_at: Mapped[float] = mapped_column(Float)
    ends_at: Mapped[float] = mapped_column(Float, index=True)


class PlayerSession(Base):
    """A player's session (issue 26, GLI-19 2.13): from the first request after none was open until a logout, the
    inactivity time-out, the session limit, a break or exclusion, a new login or a restart (``reason``)."""

    __tablename__ = "player_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    started_at: Mapped[float] = mapped_column(Float, index=True)
    last_seen_at: Mapped[float] = mapped_column(Float)
    ended_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    reason: Mapped[str | None] = mapped_column(String(24), nullable=True)
    next_check_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # the next reality check


class PlayerMoney(Base):
    """A player's deposits, stakes and returns on the server's clock (issue 26): the sums the deposit and loss
    limits and the session report read (``kind``: deposit | stake | return; cents, positive)."""

    __tablename__ = "player_money"
    __table_args__ = (Index("player_money_by_time", "player_id", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    at: Mapped[float] = mapped_column(Float)
    kind: Mapped[str] = mapped_column(String(8))
    amount: Mapped[int] = mapped_column(BigInteger)
    round_id: Mapped[int | None] = mapped_column(Integer, nullable=True)


class DetectTest(Base):
    """The live test of one player under one scenario of a game (issue 27, server/detection.py): the state of
    :class:`~tablegames.analysis.detect.SequentialTest` (``logs``: log of each martingale, one per lambda), the
    rounds of the supported mistakes (``evidence``, at most 50: ``capped`` when more were supported)."""

    __tablename__ = "detect_tests"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    scenario: Mapped[str] = mapped_column(String(32), primary_key=True)
    logs: Mapped[list[float]] = mapped_column(JSON)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    mistakes: Mapped[int] = mapped_column(Integer, default=0)
    supported: Mapped[int] = mapped_column(Integer, default=0)
    flagged_at: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the hand at which it crossed
    evidence: Mapped[list[int]] = mapped_column(JSON)  # round ids
    capped: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[float] = mapped_column(Float)


class DetectRound(Base):
    """A settled round the live detector has scored (once: the primary key), and when (the server's clock)."""

    __tablename__ = "detect_rounds"

    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    scored_at: Mapped[float] = mapped_column(Float)


class DetectMark(Base):
    """The live detector's watermark (one row): every round below ``below`` is final and, if covered, scored."""

    __tablename__ = "detect_mark"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    below: Mapped[int] = mapped_column(Integer, default=0)


class DetectAlert(Base):
    """A player flagged by the live detector (issue 27): the test, the round at which it crossed, log10 M and the
    threshold then; a supervisor's acknowledgement (audited)."""

    __tablename__ = "detect_alerts"
    __table_args__ = (UniqueConstraint("player_id", "game", "scenario", name="detect_alert_per_test"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    game: Mapped[str] = mapped_column(String(32))
    scenario: Mapped[str] = mapped_column(String(32))
    round_id: Mapped[int] = mapped_column(Integer)
    hand: Mapped[int] = mapped_column(Integer)
    log10_evidence: Mapped[float] = mapped_column(Float)
    threshold: Mapped[float] = mapped_column(Float)  # scenarios / alpha: flagged at M >= threshold
    created_at: Mapped[float] = mapped_column(Float, index=True)
    acknowledged_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    acknowledged_at: Mapped[float | None] = mapped_column(Float, nullable=True)


def normalize_url(url: str) -> str:
    """``postgresql://`` -> ``postgresql+psycopg://`` (psycopg 3); a bare path -> a SQLite URL."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if "://" not in url:
        return f"sqlite:///{Path(url).resolve()}"
    return url


def make_engine(url: str) -> Engine:
    """A SQLAlchemy engine; SQLite gets WAL, foreign keys and a busy timeout, its directory is created."""
    url = normalize_url(url)
    if url.startswith("sqlite"):
        path = url.split(":///", 1)[1] if ":///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            if path and path != ":memory:":
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    # No pre-ping: it costs a round trip on every checkout. After a database restart the first statement on a
    # stale connection fails (the request is refused with nothing changed), and SQLAlchemy then replaces the
    # whole pool.
    # One connection per busy table thread, kept open: opening a PostgreSQL connection (a new backend process)
    # in the middle of play costs far more than holding it.
    return create_engine(url, pool_size=30, max_overflow=30)


def create_schema(engine: Engine) -> None:
    """Bring the database to the newest schema revision (Alembic: ``server/migrate.py``, ``tablegames db upgrade``):
    a new database is created, an older one upgraded, its data kept."""
    from tablegames.server.migrate import upgrade

    upgrade(engine)
