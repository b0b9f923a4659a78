"""The messages a client sends on a table's WebSocket (docs/protocol.md, "Client → server"), told apart by
``type``. The server reads them with its own checks (``server/protocol.py``: each refusal its error code); these
models are the contract those checks keep, and what the AsyncAPI document (``GET /asyncapi.json``) publishes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from tablegames.server.contract.base import Closed

RequestId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        pattern=r"^[^\x00-\x1f\x7f-\x9f]+$",
        description="names one request of a player (1-64 characters, no control characters); echoed by the answer",
    ),
]


class SitRequest(Closed):
    """Take a seat (``seat`` omitted or null: the lowest free one)."""

    type: Literal["sit"]
    request_id: RequestId | None = None
    seat: int | None = Field(None, ge=1, le=7)


class LeaveRequest(Closed):
    """Free your seat."""

    type: Literal["leave"]
    request_id: RequestId | None = None


class WagerRequest(Closed):
    """Place one or more wagers of the current round, all or none."""

    type: Literal["wager"]
    request_id: RequestId
    wagers: dict[str, Annotated[int, Field(ge=1)]] = Field(min_length=1, max_length=8)
    options: dict[str, str] | None = None  # a wager's option (One Eyed Flush's Flip Card outcome)


class ActRequest(Closed):
    """A decision: ``action`` (the state's ``legal_actions``), naming the state's ``decision``."""

    type: Literal["act"]
    request_id: RequestId | None = None
    action: str
    decision: str = Field(min_length=1, max_length=64)
    seat: int | None = None  # must be yours


class ClientSeedRequest(Closed):
    """Commit to (``seed_hash``) or reveal (``seed``) a client seed: exactly one of the two."""

    type: Literal["client_seed"]
    request_id: RequestId | None = None
    seed_hash: str | None = Field(None, pattern="^[0-9a-f]{64}$")
    seed: str | None = Field(None, min_length=1, max_length=64)
    commitment: str  # the state's next_commitment


class HintsRequest(Closed):
    """Strategy hints on or off for this socket."""

    type: Literal["hints"]
    request_id: RequestId | None = None
    on: bool


class StateRequest(Closed):
    """Send the state again (with the round's events from the start)."""

    type: Literal["state"]
    request_id: RequestId | None = None


class PingRequest(Closed):
    """Answered by ``pong``."""

    type: Literal["ping"]
    request_id: RequestId | None = None


CLIENT_MESSAGES: tuple[type[Closed], ...] = (
    SitRequest,
    LeaveRequest,
    WagerRequest,
    ActRequest,
    ClientSeedRequest,
    HintsRequest,
    StateRequest,
    PingRequest,
)

ClientMessage = Annotated[
    SitRequest
    | LeaveRequest
    | WagerRequest
    | ActRequest
    | ClientSeedRequest
    | HintsRequest
    | StateRequest
    | PingRequest,
    Field(discriminator="type"),
]
"""Any message a client sends."""
