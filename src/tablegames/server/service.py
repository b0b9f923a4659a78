"""The server's state outside the WebSocket: players and tokens, wallets, tables, jackpot meters, game recall.

:class:`Server` owns the database engine, the worker threads and one :class:`~tablegames.server.runner.TableRunner`
per table. Every money movement is a ledger transaction (:meth:`Server.tx` on an ORM session, :meth:`Server.write`
on a Core connection); a table's steps run on the worker threads, its own one at a time.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, load_only, sessionmaker

from tablegames.engine.games import meter_specs
from tablegames.randomness import RandomSource
from tablegames.rules import GAMES, RuleError, make_rules, registry
from tablegames.server import ledger
from tablegames.server.db import (
    CASHIER,
    HOUSE,
    IN_PLAY,
    JACKPOT,
    SETTLED,
    VOID,
    WALLET,
    Account,
    Entry,
    GameTable,
    IdempotencyKey,
    LedgerTransaction,
    Meter,
    MeterHit,
    Player,
    RoundPlayer,
    RoundRow,
    Seating,
    create_schema,
    make_engine,
)
from tablegames.server.errors import ApiError
from tablegames.server.limits import KnownTokens
from tablegames.server.names import NAME_RULE, display_name, name_key

log = logging.getLogger("tablegames.server")

REQUEST_ID_MAX = 64
HISTORY_PAGE_MAX = 100  # rounds in one page of GET /history and GET /tables/{id}/history
JACKPOT_PAGE_MAX = 200  # entries in one page of GET /jackpots/history
IDEMPOTENCY_KEY_MAX = 64  # the column (db.IdempotencyKey.request_id)
DEMO_TABLES = tuple((d.title, d.key) for d in registry.DEFINITIONS)  # one demo table of every game


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


@dataclass(frozen=True)
class PlayerInfo:
    player_id: int
    name: str
    account_id: int


MAX_TABLE_THREADS = 64


@dataclass
class Config:
    betting_seconds: float = 15.0
    turn_seconds: float = 30.0
    # tests only: seeded decks instead of live ones / table id -> the deck of the next round
    source_factory: Callable[[], RandomSource] | None = None
    deck_factory: Callable[[int], Sequence[int]] | None = None
    max_message_bytes: int = 65536
    # Worker threads for the tables' steps (each table's steps still run one at a time, in order). A few are
    # enough to go on while some wait for the database; more only fight over the interpreter lock.
    table_threads: int = 2  # 1 .. MAX_TABLE_THREADS


def table_info(row: GameTable, occupants: dict[int, str] | None = None) -> dict[str, Any]:
    return {
        "table_id": row.id,
        "name": row.name,
        "game": row.game,
        "seats": row.seats,
        "min_bet": row.min_bet,
        "max_bet": row.max_bet,
        "rules": dict(make_rules(row.game, row.rules, row.paytable).describe()),
        "paytable": row.paytable,
        "occupied": {str(k): v for k, v in sorted((occupants or {}).items())},
    }


class Server:
    """Database, players, wallets, tables and their runners."""

    def __init__(
        self, database_url: str, config: Config | None = None, admin_token: str | None = None
    ) -> None:
        self.database_url = database_url
        self.config = config or Config()
        self.admin_token = admin_token or secrets.token_urlsafe(18)
        self.engine = make_engine(database_url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.reads = self.engine.execution_options(isolation_level="AUTOCOMMIT")  # one round trip a query
        self.runners: dict[int, Any] = {}  # table id -> TableRunner (replaced, not changed, once started)
        self._tables_lock = threading.Lock()
        # Tokens seen valid (registration, authentication): the rate limiter gives only these their own bucket.
        self.known_tokens = KnownTokens()
        self.system: dict[str, int] = {}
        self.started = False
        # account id -> committed balance. This process is the only writer of balances (one server per
        # database), and every committed transaction stores the balances it set (tx(), write()).
        self._balances: dict[int, int] = {}
        self._meter_accounts: dict[str, dict[str, int]] = {}
        self._meter_ids: dict[str, dict[str, int]] = {}
        self._sqlite = self.engine.dialect.name == "sqlite"
        self.workers = ThreadPoolExecutor(max_workers=self.config.table_threads, thread_name_prefix="tables")
        self._write_lock = threading.RLock()
        self._commit_lock = threading.Lock()
        # The event loop the server runs on (set by start() when it runs inside one): the tables' worker
        # threads hand messages and timers to it. None when driven synchronously (tests, tools).
        self.loop: asyncio.AbstractEventLoop | None = None

    # --- lifecycle --------------------------------------------------------------------------------

    @contextmanager
    def _one_writer(self) -> Iterator[None]:
        """SQLite: one write transaction at a time in this process (the tables' threads take turns here rather
        than in SQLite's busy handler, which sleeps for up to 100 ms). PostgreSQL: no limit (row locks)."""
        if self._sqlite:
            with self._write_lock:
                yield
        else:
            yield

    @contextmanager
    def _transaction(self, handle: Session | Connection) -> Iterator[None]:
        """Begin on ``handle``; on success commit holding the commit lock and keep the balances the transaction
        set (the cache gets them in commit order); roll back on any error, a failed commit included."""
        locked = False
        try:
            with handle.begin():
                yield
                self._commit_lock.acquire()  # held through the commit (the end of this block) and the update
                locked = True
            self._balances.update(handle.info.get("new_balances", {}))
        finally:
            if locked:
                self._commit_lock.release()
            # (a Connection's info dict lives as long as the pooled connection)
            handle.info.pop("new_balances", None)

    @contextmanager
    def tx(self) -> Iterator[Session]:
        """One database transaction on an ORM session (committed on success, rolled back on any error)."""
        with self._one_writer(), self.sessions() as session, self._transaction(session):
            yield session

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One transaction on a Core connection: the table hot paths (wagers, steps, settlements) use prebuilt
        statements on it instead of the ORM. Committed on success, rolled back on any error."""
        with self._one_writer(), self.engine.connect() as conn, self._transaction(conn):
            if self._sqlite:
                # The database's write lock first, not at the first write: what this transaction reads stays as
                # read until it commits, whatever other processes do (a settlement reads the jackpot meters).
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            yield conn

    def meter_accounts(self, game: str) -> dict[str, int]:
        """Meter name -> its jackpot account id (fixed once the meters exist; cached)."""
        cached = self._meter_accounts.get(game)
        if cached is None:
            with self.sessions() as s:
                cached = self._meter_accounts[game] = meter_accounts(s, game)
        return cached

    def meter_ids(self, game: str) -> dict[str, int]:
        """Meter name -> its row id in ``meters`` (fixed once the meters exist; cached)."""
        cached = self._meter_ids.get(game)
        if cached is None:
            with self.sessions() as s:
                rows = s.execute(select(Meter.name, Meter.id).where(Meter.game == game))
                cached = self._meter_ids[game] = {n: int(i) for n, i in rows}
        return cached

    def meter_values(self, game: str) -> dict[str, int]:
        """The linked meters of a game as committed (meter name -> cents), from the balance cache."""
        accounts = self.meter_accounts(game)
        balances = self.balances(accounts.values())
        return {name: balances[acc] for name, acc in accounts.items()}

    def balances(self, account_ids: Iterable[int]) -> dict[int, int]:
        """Committed balances of several accounts: from the cache (every committed ledger transaction updates
        it), the rest in one query."""
        out: dict[int, int] = {}
        missing = []
        for a in set(account_ids):
            cached = self._balances.get(a)
            if cached is None:
                missing.append(a)
            else:
                out[a] = cached
        if missing:
            with self.reads.connect() as conn:
                for a, b in conn.execute(select(Account.id, Account.balance).where(Account.id.in_(missing))):
                    out[int(a)] = self._balances[int(a)] = int(b)
        return out

    def start(self, demo_tables: bool = False) -> None:
        """Create the schema, system accounts and meters, demo tables; rebuild and settle unfinished rounds."""
        from tablegames.server.runner import TableRunner

        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        create_schema(self.engine)
        with self.tx() as s:
            for kind in (HOUSE, CASHIER, IN_PLAY):
                self.system[kind] = ledger.system_account(s, kind)
        ensure_meters(self)
        with self.tx() as s:
            if demo_tables and s.scalar(select(func.count(GameTable.id))) == 0:
                for name, game in DEMO_TABLES:
                    s.add(GameTable(name=name, game=game, seats=5, min_bet=100, max_bet=10_000, rules={}))
            rows = list(s.scalars(select(GameTable).order_by(GameTable.id)))
        for row in rows:
            self.runners[row.id] = TableRunner(self, row)
        for runner in self.runners.values():
            runner.recover()
        self.started = True

    def stop(self) -> None:
        for runner in self.runners.values():
            runner.stop()
        self.workers.shutdown(wait=True)  # the steps in progress finish
        self.workers = ThreadPoolExecutor(max_workers=self.config.table_threads, thread_name_prefix="tables")
        self.engine.dispose()

    # --- players ----------------------------------------------------------------------------------

    def register(self, name: object) -> tuple[PlayerInfo, str]:
        """A new player (names: ``tablegames.server.names``; a name whose look-alike key is registered already
        is ``name_taken``, whatever its case or look-alike characters)."""
        shown = display_name(name)
        if shown is None:
            raise ApiError("bad_name", NAME_RULE)
        key = name_key(shown)
        taken = ApiError("name_taken", f"the name {shown!r} is taken (or one that looks the same)", 409)
        token = secrets.token_urlsafe(32)
        try:
            with self.tx() as s:
                if s.scalar(select(Player.id).where(Player.name_key == key)) is not None:
                    raise taken
                acc = Account(name=f"wallet:{shown}", kind=WALLET, balance=0)
                s.add(acc)
                s.flush()
                p = Player(name=shown, name_key=key, token_hash=hash_token(token), account_id=acc.id)
                s.add(p)
                s.flush()
                info = PlayerInfo(p.id, p.name, acc.id)
        except IntegrityError:  # the same key raced in (the unique index), or an old account name
            raise taken from None
        self.known_tokens.add(token)
        return info, token

    def authenticate(self, token: str | None) -> PlayerInfo:
        """The player of ``token`` or ``unauthorized`` (checked on every request)."""
        if not token or not isinstance(token, str) or len(token) > 200:
            raise ApiError(
                "unauthorized", "missing token: register with POST /players and send the token", 401
            )
        with self.sessions() as s:
            p = s.scalar(select(Player).where(Player.token_hash == hash_token(token)))
            if p is None:
                raise ApiError("unauthorized", "unknown token", 401)
            self.known_tokens.add(token)
            return PlayerInfo(p.id, p.name, p.account_id)

    def check_admin(self, token: str | None) -> None:
        if not self.is_admin(token):
            raise ApiError("forbidden", "this operator action needs the admin token (X-Admin-Token)", 403)

    def is_admin(self, token: str | None) -> bool:
        return bool(token) and secrets.compare_digest(str(token).encode(), self.admin_token.encode())

    def balance(self, player: PlayerInfo) -> int:
        """The committed balance of the player's wallet (see :meth:`balances`)."""
        return self.balances([player.account_id])[player.account_id]

    def me(self, player: PlayerInfo) -> dict[str, Any]:
        with self.sessions() as s:
            seats = s.execute(
                select(Seating.table_id, Seating.seat).where(Seating.player_id == player.player_id)
            )
            return {
                "player_id": player.player_id,
                "name": player.name,
                "balance": ledger.balance(s, player.account_id),
                "seats": [{"table_id": t, "seat": n} for t, n in seats],
            }

    # --- wallet -----------------------------------------------------------------------------------

    def cashier(self, player: PlayerInfo, kind: str, amount: object, request_id: object) -> dict[str, Any]:
        """Buy-in (cashier -> wallet) or cash-out (wallet -> cashier), idempotent by request id."""
        rid = check_request_id(request_id, required=True)
        assert rid is not None
        key = idempotency_key(kind, rid)
        with self.sessions() as s:
            old = s.get(IdempotencyKey, (player.player_id, key))
            if old is not None:
                return {**old.response, "duplicate": True}
        cents = check_amount(amount)
        if cents > 10**12:
            raise ApiError("over_limit", "amount too large")
        try:
            with self.tx() as s:
                src, dst = (
                    (self.system[CASHIER], player.account_id)
                    if kind == "buy-in"
                    else (player.account_id, self.system[CASHIER])
                )
                tx_id = ledger.transfer(s, kind, src, dst, cents, player_id=player.player_id)
                response = {"balance": ledger.balance(s, player.account_id), "transaction_id": tx_id}
                s.add(IdempotencyKey(player_id=player.player_id, request_id=key, response=response))
        except ledger.NotEnoughMoney:
            raise ApiError(
                "insufficient_funds", f"cannot cash out {cents} cents: the balance is {self.balance(player)}"
            ) from None
        except IntegrityError:  # the same request id raced in: answer as the first one did
            with self.sessions() as s:
                old = s.get(IdempotencyKey, (player.player_id, key))
                assert old is not None
                return {**old.response, "duplicate": True}
        return {**response, "duplicate": False}

    def wallet(self, player: PlayerInfo, last: int = 20) -> dict[str, Any]:
        with self.sessions() as s:
            rows = s.execute(
                select(
                    Entry.transaction_id,
                    Entry.kind,
                    Entry.amount,
                    LedgerTransaction.round_id,
                    LedgerTransaction.created_at,
                )
                .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
                .where(Entry.account_id == player.account_id)
                .order_by(Entry.id.desc())
                .limit(max(1, min(last, 500)))
            ).all()
            return {
                "balance": ledger.balance(s, player.account_id),
                "entries": [
                    {"transaction_id": t, "kind": k, "amount": a, "round_id": r, "time": iso(c)}
                    for t, k, a, r, c in rows
                ],
            }

    # --- tables -----------------------------------------------------------------------------------

    def create_table(
        self,
        game: object,
        name: object,
        seats: object = 5,
        min_bet: object = 100,
        max_bet: object = 10_000,
        rules: object = None,
        paytable: object = None,
    ) -> dict[str, Any]:
        from tablegames.server.runner import TableRunner

        row = new_table_row(game, name, seats, min_bet, max_bet, rules, paytable)
        with self._tables_lock:  # (REST threads) one runner per table, even if sync_tables runs meanwhile
            with self.tx() as s:
                s.add(row)
                s.flush()
            self.runners = {**self.runners, row.id: TableRunner(self, row)}  # copy-on-write: readers iterate
        return table_info(row)

    def set_limits(self, table_id: int, min_bet: object, max_bet: object) -> dict[str, Any]:
        """Change a table's limits (operator); wagers already placed stay as they are."""
        runner = self.runner(table_id)
        lo = runner.row.min_bet if min_bet is None else check_amount(min_bet, "min_bet")
        hi = runner.row.max_bet if max_bet is None else check_amount(max_bet, "max_bet")
        if hi < lo:
            raise ApiError("bad_message", f"max_bet {hi} is below min_bet {lo}")
        with self.tx() as s:
            row = s.get(GameTable, table_id)
            assert row is not None
            row.min_bet, row.max_bet = lo, hi
        runner.row.min_bet, runner.row.max_bet = lo, hi
        return runner.info()  # type: ignore[no-any-return]

    def list_tables(self) -> list[dict[str, Any]]:
        self.sync_tables()
        return [r.info() for r in list(self.runners.values())]

    def runner(self, table_id: int) -> Any:
        r = self.runners.get(table_id)
        if r is None:
            self.sync_tables()
            r = self.runners.get(table_id)
        if r is None:
            raise ApiError("not_found", f"no table {table_id}", 404)
        return r

    def sync_tables(self) -> None:
        """Open tables created meanwhile by ``tablegames tables create`` (another process)."""
        from tablegames.server.runner import TableRunner

        with self._tables_lock:  # (REST threads) two requests for a new table must not open it twice
            with self.sessions() as s:
                rows = list(
                    s.scalars(select(GameTable).where(GameTable.id.not_in(list(self.runners) or [0])))
                )
            if rows:
                self.runners = {**self.runners, **{row.id: TableRunner(self, row) for row in rows}}


def new_table_row(
    game: object,
    name: object,
    seats: object,
    min_bet: object,
    max_bet: object,
    rules: object,
    paytable: object,
) -> GameTable:
    """Validate a table's settings (``bad_rules`` / ``bad_message``) and build its row."""
    if not isinstance(game, str) or game not in GAMES:
        raise ApiError("bad_rules", f"unknown game {game!r}; choose {', '.join(GAMES)}")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise ApiError("bad_message", "a table name is 1-80 characters")
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 7:
        raise ApiError("bad_message", f"a table has 1-7 seats, got {seats!r}")
    lo = check_amount(min_bet, "min_bet")
    hi = check_amount(max_bet, "max_bet")
    if hi < lo:
        raise ApiError("bad_message", f"max_bet {hi} is below min_bet {lo}")
    opts = rules or {}
    if not isinstance(opts, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in opts.items()
    ):
        raise ApiError("bad_rules", "rules must be an object of NAME: VALUE strings")
    if paytable is not None and (
        not isinstance(paytable, str) or "/" in paytable or paytable.endswith(".toml")
    ):
        raise ApiError("bad_rules", "paytable must be the name of a preset")
    try:
        make_rules(game, opts, paytable)
    except RuleError as exc:
        raise ApiError("bad_rules", str(exc)) from None
    return GameTable(
        name=name.strip(), game=game, seats=seats, min_bet=lo, max_bet=hi, rules=dict(opts), paytable=paytable
    )


def ensure_meters(server: Server) -> None:
    """One linked meter per game and meter name, seeded from the house at its reset value."""
    for game in GAMES:
        rules = make_rules(game)
        for spec in meter_specs(rules):
            with server.tx() as s:
                if s.scalar(select(Meter.id).where(Meter.game == game, Meter.name == spec.name)) is not None:
                    continue
                acc = Account(name=f"jackpot:{game}:{spec.name}", kind=JACKPOT, balance=0)
                s.add(acc)
                s.flush()
                s.add(
                    Meter(
                        game=game,
                        name=spec.name,
                        reset_cents=spec.reset_cents,
                        share=str(spec.share),
                        account_id=acc.id,
                    )
                )
                ledger.transfer(
                    s, "seed", server.system[HOUSE], acc.id, spec.reset_cents, memo=f"{game} {spec.name}"
                )


def meter_accounts(session: Session, game: str) -> dict[str, int]:
    return {
        n: int(a) for n, a in session.execute(select(Meter.name, Meter.account_id).where(Meter.game == game))
    }


def jackpots(session: Session) -> list[dict[str, Any]]:
    rows = session.execute(
        select(Meter.game, Meter.name, Account.balance, Meter.reset_cents, Meter.share)
        .join(Account, Account.id == Meter.account_id)
        .order_by(Meter.id)
    ).all()
    return [{"game": g, "meter": n, "value": int(b), "reset": int(r), "share": sh} for g, n, b, r, sh in rows]


def jackpot_history(
    session: Session, game: str | None, meter: str | None, last: int, before: int | None = None
) -> list[dict[str, Any]]:
    """Meter entries, newest first; ``before``: only entries with an ``entry_id`` below it (the next page)."""
    q = (
        select(
            Entry.id,
            Meter.game,
            Meter.name,
            Entry.kind,
            Entry.amount,
            LedgerTransaction.round_id,
            LedgerTransaction.created_at,
            Player.name,
            MeterHit.seq,
        )
        .join(Entry, Entry.account_id == Meter.account_id)
        .join(LedgerTransaction, LedgerTransaction.id == Entry.transaction_id)
        .outerjoin(Player, Player.id == LedgerTransaction.player_id)
        .outerjoin(
            MeterHit, (MeterHit.transaction_id == LedgerTransaction.id) & (MeterHit.meter_id == Meter.id)
        )
        .order_by(Entry.id.desc())
        .limit(max(1, min(last, 1000)))
    )
    if game:
        q = q.where(Meter.game == game)
    if meter:
        q = q.where(Meter.name == meter)
    if before is not None:
        q = q.where(Entry.id < before)
    return [
        {
            "entry_id": i,
            "game": g,
            "meter": n,
            "kind": k,
            "amount": int(a),
            "round_id": r,
            "time": iso(c),
            "player": p,
            "hit_seq": seq,  # a hit's place in the meter's order of hits (1, 2, ...); None for other entries
        }
        for i, g, n, k, a, r, c, p, seq in session.execute(q).all()
    ]


ALL_BALANCES = (
    -1
)  # show_balances: every player's balances (an operator); a player id: only theirs; None: none


def _players_of(
    session: Session, round_ids: list[int], show_balances: int | None = ALL_BALANCES
) -> dict[int, list[dict[str, Any]]]:
    """Each round's players; ``balance_before`` / ``balance_after`` only where ``show_balances`` allows."""
    out: dict[int, list[dict[str, Any]]] = {i: [] for i in round_ids}
    if not round_ids:
        return out
    rows = session.execute(
        select(RoundPlayer, Player.name)
        .join(Player, Player.id == RoundPlayer.player_id)
        .where(RoundPlayer.round_id.in_(round_ids))
        .order_by(RoundPlayer.round_id, RoundPlayer.seat)
    ).all()
    for rp, name in rows:
        entry = {"seat": rp.seat, "player": name, "staked": rp.staked, "returned": rp.returned, "net": rp.net}
        if show_balances == ALL_BALANCES or rp.player_id == show_balances:
            entry.update(balance_before=rp.balance_before, balance_after=rp.balance_after)
        out[rp.round_id].append(entry)
    return out


def _summary(row: RoundRow, table_name: str, players: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "round_id": row.id,
        "table_id": row.table_id,
        "table": table_name,
        "game": row.game,
        "round_no": row.round_no,
        "rules": row.rules,
        "status": row.status,
        "started": iso(row.started_at),
        "settled_at": iso(row.settled_at),
        "recovered": row.recovered,
        "players": players,
        "house_net": (row.result or {}).get("house_net"),
    }


def player_id_of(session: Session, name: str) -> int:
    """The id of the player called ``name`` (exactly, else by its look-alike key), or ``not_found``."""
    pid = session.scalar(select(Player.id).where(Player.name == name))
    if pid is None:
        shown = display_name(name)
        if shown is not None:
            pid = session.scalar(select(Player.id).where(Player.name_key == name_key(shown)))
    if pid is None:
        raise ApiError("not_found", f"no player {name!r}", 404)
    return int(pid)


_SUMMARY_COLUMNS = load_only(
    RoundRow.id,
    RoundRow.table_id,
    RoundRow.game,
    RoundRow.round_no,
    RoundRow.rules,
    RoundRow.status,
    RoundRow.started_at,
    RoundRow.settled_at,
    RoundRow.recovered,
    RoundRow.result,
)  # not the deck nor the events: a page of summaries reads what it shows


def history(
    session: Session,
    player: str | int | None,
    last: int,
    before: int | None = None,
    *,
    table_id: int | None = None,
    show_balances: int | None = ALL_BALANCES,
) -> list[dict[str, Any]]:
    """Summaries of finished rounds, newest first: only those ``player`` (a name or a player id) played, only
    those of ``table_id``, only rounds with an id below ``before`` (the next page). Balances per
    ``show_balances`` (:data:`ALL_BALANCES`, a player id, or None)."""
    q = (
        select(RoundRow, GameTable.name)
        .options(_SUMMARY_COLUMNS)
        .join(GameTable, GameTable.id == RoundRow.table_id)
        .where(RoundRow.status == SETTLED)
        .order_by(RoundRow.id.desc())
        .limit(max(1, min(last, 1000)))
    )
    if player is not None and player != "":
        pid = player if isinstance(player, int) else player_id_of(session, player)
        q = q.where(RoundRow.id.in_(select(RoundPlayer.round_id).where(RoundPlayer.player_id == pid)))
    if table_id is not None:
        q = q.where(RoundRow.table_id == table_id)
    if before is not None:
        q = q.where(RoundRow.id < before)
    rows = session.execute(q).all()
    players = _players_of(session, [r.id for r, _ in rows], show_balances)
    return [_summary(r, t, players[r.id]) for r, t in rows]


def round_recall(session: Session, round_id: int, show_balances: int | None = ALL_BALANCES) -> dict[str, Any]:
    row = session.get(RoundRow, round_id)
    if row is None:
        raise ApiError("not_found", f"no round {round_id}", 404)
    if row.status == VOID:
        raise ApiError("not_found", f"round {round_id} was never dealt (no wagers)", 404)
    if row.status != SETTLED:
        raise ApiError("round_in_progress", f"round {round_id} is not finished yet ({row.status})", 409)
    table = session.get(GameTable, row.table_id)
    out = _summary(row, table.name if table else "", _players_of(session, [row.id], show_balances)[row.id])
    seated = sorted({int(v) for v in (row.seat_players or {}).values()})
    names = (
        dict(session.execute(select(Player.id, Player.name).where(Player.id.in_(seated))).all())
        if seated
        else {}
    )
    seat_names = {int(k): names.get(v) for k, v in row.seat_players.items()}
    jackpot = []
    for e in row.events or []:
        if e["type"] in ("jackpot_contribution", "jackpot_hit"):
            jackpot.append(
                {
                    "kind": "contribution" if e["type"] == "jackpot_contribution" else "hit",
                    "meter": e["meter"],
                    "amount": e["amount"],
                    "seat": e["seat"],
                    "player": seat_names.get(e["seat"]),
                }
            )
    out.update(
        {
            "events": row.events or [],
            "jackpot": jackpot,
            "fairness": (row.result or {}).get("fairness"),
        }
    )
    return out


def clear_seat(session: Session, table_id: int, player_id: int) -> None:
    session.execute(delete(Seating).where(Seating.table_id == table_id, Seating.player_id == player_id))
