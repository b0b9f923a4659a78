"""The live detector's alerts as supervisors get them (issue 27): the list, the acknowledgement (audited in its
own transaction) and the push to the back office's open staff sockets.

:class:`AlertHub` lives on the event loop: each staff socket allowed ``detect.read`` has a bounded queue of its
own (:data:`QUEUE_MAX` alerts); at most :data:`MAX_SOCKETS` sockets at once (another is refused); a socket whose
queue is full is closed (the page reconnects and re-reads the list: nothing is lost, nothing grows). Alerts
reach it from the detector's thread (SQLite) or from the ``tablegames_detect`` listener (PostgreSQL: every
process, server/notify.py), always handed to the loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from tablegames.server import audit
from tablegames.server.db import DetectAlert, DetectTest, Player
from tablegames.server.detection import Alert, alert_dict, partner_name, partner_of
from tablegames.server.errors import ApiError
from tablegames.server.transactions import Transactions

MAX_SOCKETS = 32
QUEUE_MAX = 64


class AlertHub:
    """The staff sockets that receive alerts (event-loop side; see the module)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop
        self.queues: set[asyncio.Queue[Alert | None]] = set()
        self.pushed = 0  # alerts handed to sockets (tests)

    def join(self) -> asyncio.Queue[Alert | None] | None:
        """A queue for a new socket (on the loop), or None: :data:`MAX_SOCKETS` are open."""
        if len(self.queues) >= MAX_SOCKETS:
            return None
        queue: asyncio.Queue[Alert | None] = asyncio.Queue(QUEUE_MAX)
        self.queues.add(queue)
        return queue

    def leave(self, queue: asyncio.Queue[Alert | None]) -> None:
        self.queues.discard(queue)

    def publish(self, alerts: list[Alert]) -> None:
        """(On the loop.) Each alert to every socket; a socket that cannot keep up gets None (closed)."""
        for queue in list(self.queues):
            for alert in alerts:
                try:
                    queue.put_nowait(alert)
                    self.pushed += 1
                except asyncio.QueueFull:
                    self.queues.discard(queue)
                    while not queue.empty():
                        queue.get_nowait()
                    queue.put_nowait(None)
                    break

    def from_thread(self, alerts: list[Alert]) -> None:
        """:meth:`publish` from any thread (the detector's)."""
        loop = self.loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # (the loop is closed: shutting down)
            loop.call_soon_threadsafe(self.publish, alerts)

    def from_notify(self, payload: dict[str, Any]) -> None:
        """(On the loop.) A ``tablegames_detect`` payload: ``{"alert": {...}}`` (a resync carries none: the page
        re-reads the list when it reconnects)."""
        alert = payload.get("alert")
        if isinstance(alert, dict):
            self.publish([alert])


def list_alerts(db: Transactions, last: int, pending: bool) -> list[Alert]:
    """The newest alerts first (``pending``: not acknowledged yet), each with its test as it stands now."""
    with db.sessions() as s:
        q = (
            select(DetectAlert, Player.name, DetectTest)
            .join(Player, Player.id == DetectAlert.player_id)
            .outerjoin(
                DetectTest,
                (DetectTest.player_id == DetectAlert.player_id)
                & (DetectTest.game == DetectAlert.game)
                & (DetectTest.scenario == DetectAlert.scenario),
            )
            .order_by(DetectAlert.id.desc())
            .limit(last)
        )
        if pending:
            q = q.where(DetectAlert.acknowledged_at.is_(None))
        found = s.execute(q).all()
        partners = {p for a, _n, _t in found if (p := partner_of(a.scenario)[1]) is not None}
        names = (
            dict(s.execute(select(Player.id, Player.name).where(Player.id.in_(sorted(partners)))).all())
            if partners
            else {}
        )
        return [alert_dict(a, str(name), t, partner_name(names, a.scenario)) for a, name, t in found]


def acknowledge(db: Transactions, clock: Callable[[], float], actor: str, alert_id: int, note: str) -> Alert:
    """A supervisor acknowledges an alert: recorded with the audit entry in one transaction; ``not_found``,
    ``conflict`` (already acknowledged: by whom, when)."""
    with db.tx() as s:
        alert = s.get(DetectAlert, alert_id, with_for_update=True)
        if alert is None:
            raise ApiError("not_found", f"no alert {alert_id}", 404)
        if alert.acknowledged_at is not None:
            raise ApiError(
                "conflict", f"alert {alert_id} was acknowledged already by {alert.acknowledged_by}", 409
            )
        name = str(s.scalar(select(Player.name).where(Player.id == alert.player_id)) or "")
        now = clock()
        alert.acknowledged_by, alert.acknowledged_at = actor, now
        audit.append(
            s,
            lambda: now,  # (the entry's time is the acknowledgement's)
            actor,
            "detect.ack",
            f"player:{name}",
            before={"alert": alert_id, "acknowledged": False},
            after={"alert": alert_id, "acknowledged": True, "game": alert.game, "scenario": alert.scenario},
            reason=note,
        )
        test = s.get(DetectTest, (alert.player_id, alert.game, alert.scenario))
        partner = partner_of(alert.scenario)[1]
        other = None if partner is None else s.scalar(select(Player.name).where(Player.id == partner))
        return alert_dict(alert, name, test, other)
