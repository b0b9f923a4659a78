"""One typed contract for everything that leaves the engine and the server (issue 23): pydantic models of the
round view, every event, every WebSocket message both ways and the provably fair record. They are checked
against real traffic by the tests and published as the AsyncAPI document ``GET /asyncapi.json``
(:mod:`~tablegames.server.contract.asyncapi`); the REST answers use them through their response models."""

from __future__ import annotations

from tablegames.server.contract.client import CLIENT_MESSAGES, ClientMessage
from tablegames.server.contract.events import EVENT_MODELS, Event
from tablegames.server.contract.fairness import FairnessRecord
from tablegames.server.contract.server import SERVER_MESSAGES, ServerMessage, TableInfo
from tablegames.server.contract.view import RoundView

__all__ = [
    "CLIENT_MESSAGES",
    "EVENT_MODELS",
    "SERVER_MESSAGES",
    "ClientMessage",
    "Event",
    "FairnessRecord",
    "RoundView",
    "ServerMessage",
    "TableInfo",
]
