"""A database outage as the server names it (issue 20): which errors mean the database cannot be reached now
(an outage to wait out and retry, not a fault of the request), and the retryable ``unavailable`` answer a
client gets meanwhile. Used by the leases (``server/cluster.py``), the table steps, the protocol and the app."""

from __future__ import annotations

from typing import Any


def database_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached now (the connection refused or dropped, the server
    shutting down or starting, the pool timed out): an outage to wait out and retry, not a fault of the request
    (a lock timeout or SQLite's "database is locked" are not outages).

    >>> import psycopg
    >>> from sqlalchemy.exc import IntegrityError, OperationalError
    >>> database_unreachable(OperationalError("SELECT 1", {}, psycopg.OperationalError("connection refused")))
    True
    >>> database_unreachable(OperationalError("UPDATE", {}, Exception("database is locked")))
    False
    >>> database_unreachable(IntegrityError("INSERT", {}, Exception("duplicate key")))
    False
    """
    import psycopg
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    if isinstance(exc, PoolTimeout):
        return True
    if isinstance(exc, DBAPIError):
        if exc.connection_invalidated:
            return True
        exc = exc.orig if exc.orig is not None else exc
    if isinstance(exc, psycopg.InterfaceError):
        return True
    if isinstance(exc, psycopg.OperationalError):
        state = exc.sqlstate  # None: no answer from a server at all (refused, dropped)
        return state is None or state.startswith(("08", "57P"))
    return False


def lock_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` is a statement given up after its ``lock_timeout`` (SQLSTATE 55P03)."""
    orig = getattr(exc, "orig", exc)
    return getattr(orig, "sqlstate", None) == "55P03"


#: The ``error`` a client gets when the database cannot be reached: nothing was changed, send it again later.
UNAVAILABLE_MESSAGE = "the database cannot be reached just now; nothing was changed: retry in a moment"


def unavailable(request_id: str | None, message: str = UNAVAILABLE_MESSAGE) -> dict[str, Any]:
    """The WebSocket ``error`` of an outage (docs/protocol.md): retryable, nothing was changed.

    >>> unavailable("w1")["code"]
    'unavailable'
    """
    return {"type": "error", "code": "unavailable", "message": message, "request_id": request_id}
