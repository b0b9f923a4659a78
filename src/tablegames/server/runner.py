"""One live table: seats, the current round (an engine :class:`~tablegames.engine.Round`), timers, and the
messages to each connected client.

Each table has its own worker thread, and every step of the table runs there, one at a time and in order
(:meth:`TableRunner.call`); the event loop only moves messages and fires timers, so a table that waits for the
database holds up no other table. A step is validated, stored in the database, applied to the engine, and then
every client gets a ``state`` message built from ``Round.view(seat)`` / ``Round.visible_history(seat)`` for
*its* seat (secrecy is the engine's); messages and timers are handed to the event loop's thread.

Order of a step: validate (nothing changed on error) -> write the step (and its money) in one database
transaction -> apply it to the engine (cannot fail now) -> settle if the round is over -> push states.
A crash at any point leaves the database with the steps taken so far; :meth:`TableRunner.recover` replays them.
"""

from __future__ import annotations

from typing import Any

from tablegames.server.client import (
    CLOSE_REPLACED,
    CLOSE_TABLE_FULL,
    MAX_QUEUE,
    MAX_SOCKETS_PER_PLAYER,
    MAX_SOCKETS_PER_PLAYER_TABLE,
    MAX_SOCKETS_PER_TABLE,
    Connection,
)
from tablegames.server.hints import prepare
from tablegames.server.inbox import Live
from tablegames.server.protocol import Protocol
from tablegames.server.push import BETTING_PUSH_SECONDS, METER_PUSH_SECONDS, RETRY_SECONDS
from tablegames.server.recovery import Recovery
from tablegames.server.steps import DEFAULT_ACTIONS


class TableRunner(Protocol, Recovery):
    """One live table. Its parts, each in its module: state and inbox (:mod:`~tablegames.server.inbox`),
    timers and pushes (:mod:`~tablegames.server.push`), settlement (:mod:`~tablegames.server.settle`, postings
    from :mod:`~tablegames.server.settlement`), round steps (:mod:`~tablegames.server.steps`), the protocol's
    handlers (:mod:`~tablegames.server.protocol`) and recovery (:mod:`~tablegames.server.recovery`)."""

    def __init__(self, server: Any, row: Any) -> None:
        super().__init__(server, row)
        if server.config.prepare_hints:  # the first hand's hints exact (issue 24): solved now, off the loop
            prepare(self.rules)


__all__ = [
    "BETTING_PUSH_SECONDS",
    "CLOSE_REPLACED",
    "CLOSE_TABLE_FULL",
    "DEFAULT_ACTIONS",
    "MAX_QUEUE",
    "MAX_SOCKETS_PER_PLAYER",
    "MAX_SOCKETS_PER_PLAYER_TABLE",
    "MAX_SOCKETS_PER_TABLE",
    "METER_PUSH_SECONDS",
    "RETRY_SECONDS",
    "Connection",
    "Live",
    "TableRunner",
]
