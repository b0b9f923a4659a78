"""Load test of the table server through its public protocol (docs/protocol.md): REST for set-up, one
WebSocket per simulated player for play.

:func:`run_load_test` starts the server itself when no URL is given (``uvicorn`` in a subprocess on
127.0.0.1, a temporary SQLite file or the given database URL), creates the tables with the admin token,
registers the players, buys them in, seats them, and plays real rounds until the duration is over. Every
request that changes something (a wager, a decision) is timed from the moment it is sent to its ``ack``.
Afterwards it checks the money: every account balance equals the sum of its entries, every transaction sums to
zero, the accounts together sum to zero (players + house + jackpot meters + cashier + in-play: money is neither
created nor lost), nothing is left in play, and every player's final balance equals the buy-in plus the nets of
the rounds that player saw settled.

Safety: loopback only (any other host is refused), at most :data:`MAX_CLIENTS` clients, :data:`MAX_TABLES`
tables and :data:`MAX_DURATION` seconds, and it always stops by itself (a hard deadline cancels every client).
"""

from tablegames.loadtest.config import (
    MAX_CLIENTS,
    MAX_DURATION,
    MAX_TABLES,
    LoadConfig,
    LoadReport,
    LoadTestError,
    MoneyCheck,
    Stats,
    check_loopback_database,
    check_loopback_url,
)
from tablegames.loadtest.run import play, run_load_test

__all__ = [
    "MAX_CLIENTS",
    "MAX_DURATION",
    "MAX_TABLES",
    "LoadConfig",
    "LoadReport",
    "LoadTestError",
    "MoneyCheck",
    "Stats",
    "check_loopback_database",
    "check_loopback_url",
    "play",
    "run_load_test",
]
