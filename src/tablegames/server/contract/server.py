"""The messages the server sends on a table's WebSocket (docs/protocol.md, "Server → client"), told apart by
``type`` (an ``ack`` further by ``for``). The server builds them as plain dicts (no validation on its event loop);
the tests check real traffic against these models, and ``GET /asyncapi.json`` publishes them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from tablegames.server.contract.base import Cents, Closed
from tablegames.server.contract.events import ActionEvent, EnvyPaidEvent, Event
from tablegames.server.contract.view import RoundView


class TableInfo(Closed):
    """A table as ``GET /tables`` lists it."""

    table_id: int
    name: str
    game: str
    seats: int
    min_bet: Cents
    max_bet: Cents
    rules: dict[str, str]  # the complete rule set
    paytable: str | None
    rule_set: str | None = None  # the rule set's name (a game file's, or given at creation)
    rule_summary: str  # "standard rules", or the changes from them in a player's words (issue 24)
    occupied: dict[str, str]  # seat -> player name
    # open; paused (no new round: the round in play finishes) or closed, by staff (issue 25)
    status: Literal["open", "paused", "closed"] = "open"


class PlayerRef(Closed):
    player_id: int
    name: str


class WelcomeMessage(Closed):
    """The first message after connecting (a ``state`` follows)."""

    type: Literal["welcome"]
    player: PlayerRef
    table: TableInfo
    seat: int | None  # your seat if you already sit here
    balance: Cents
    betting_seconds: float
    turn_seconds: float


class ClientSeedView(Closed):
    seed_hash: str
    seed: str | None  # null until revealed


class Commitment(Closed):
    seat: int
    seed_hash: str
    revealed: bool


class SeedsView(Closed):
    closed: bool
    committed: list[Commitment]


class StateMessage(Closed):
    """The table after every change, as this socket's player may see it."""

    type: Literal["state"]
    table_id: int
    round_id: int | None
    seq: int
    seat: int | None
    balance: Cents
    occupants: dict[str, str]
    betting_open: bool  # false while the cards are played, and while staff have the table paused or closed
    table_status: Literal["open", "paused", "closed"] = "open"
    deadline: float | None
    seconds_left: float | None
    meters: dict[str, Cents]
    commitment: str | None
    next_commitment: str | None
    client_seed: ClientSeedView | None
    seeds: SeedsView | None
    decision: str | None
    bots: list[int]  # the seats practice bots sit at (the server plays them: docs/server.md, "Practice bots")
    may_seat_bots: bool  # this socket's player may seat or remove bots (a practice server, a seated player)
    round: RoundView | None
    events: list[Event]


class HintAction(Closed):
    action: str
    ev: float | None
    cost: float | None


class HintMessage(Closed):
    type: Literal["hint"]
    round_id: int | None
    decision: str | None
    seat: int
    best: str
    source: Literal["exact", "rule-of-thumb"]
    actions: list[HintAction]


class SeatResultEntry(Closed):
    seat: int
    player_id: int
    player: str | None
    staked: Cents
    returned: Cents
    net: Cents


class JackpotHitEntry(Closed):
    type: Literal["jackpot_hit"]
    seat: int
    meter: str
    amount: Cents
    reset_to: Cents
    hit_seq: int


class RoundResultMessage(Closed):
    """After the settlement: everything in it is public then."""

    type: Literal["round_result"]
    round_id: int | None
    seq: int
    results: list[SeatResultEntry]
    envy: list[EnvyPaidEvent]
    jackpot_hits: list[JackpotHitEntry]
    meters: dict[str, Cents]
    balance: Cents


class _Ack(Closed):
    type: Literal["ack"]
    request_id: str | None


class SitAck(_Ack):
    for_: Literal["sit"] = Field(alias="for")
    seat: int
    duplicate: bool


class LeaveAck(_Ack):
    for_: Literal["leave"] = Field(alias="for")
    seat: int
    duplicate: bool


class WagerAck(_Ack):
    for_: Literal["wager"] = Field(alias="for")
    round_id: int
    seat: int
    wagers: dict[str, Cents]
    balance: Cents
    duplicate: bool


class ActAck(_Ack):
    for_: Literal["act"] = Field(alias="for")
    decision: str
    event: ActionEvent
    duplicate: bool


class ClientSeedAck(_Ack):
    for_: Literal["client_seed"] = Field(alias="for")
    seed_hash: str
    seed: str | None
    position: int
    commitment: str
    round_no: int
    duplicate: bool


class HintsAck(_Ack):
    for_: Literal["hints"] = Field(alias="for")
    on: bool


AckMessage = Annotated[
    SitAck | LeaveAck | WagerAck | ActAck | ClientSeedAck | HintsAck, Field(discriminator="for_")
]
"""The answer to an accepted request (``for``: the request's type)."""


class ErrorMessage(Closed):
    """A refusal (nothing changed), or a notice to the whole table (``request_id`` null)."""

    type: Literal["error"]
    code: str
    message: str
    request_id: str | None = None
    field: str | None = None


class PongMessage(Closed):
    type: Literal["pong"]
    request_id: str | None


class RedirectMessage(Closed):
    """Another process serves this table: reconnect there (close code 4307 follows)."""

    type: Literal["redirect"]
    url: str
    table_id: int


class RealityCheckMessage(Closed):
    """At the interval the player chose (issue 26, server/sessions.py): how long this session has lasted and what
    it has wagered and won; the page offers to stop (``POST /protection/stop``)."""

    type: Literal["reality_check"]
    interval_minutes: int
    started_at: float  # the session's start (the server's clock, epoch seconds)
    played_seconds: int
    wagered: Cents
    won: Cents
    net: int  # won - wagered (cents; negative: a loss)
    games: int  # rounds wagered on


SERVER_MESSAGES: tuple[type[Closed], ...] = (
    WelcomeMessage,
    StateMessage,
    HintMessage,
    RoundResultMessage,
    SitAck,
    LeaveAck,
    WagerAck,
    ActAck,
    ClientSeedAck,
    HintsAck,
    ErrorMessage,
    PongMessage,
    RedirectMessage,
    RealityCheckMessage,
)

ServerMessage = Annotated[
    WelcomeMessage
    | StateMessage
    | HintMessage
    | RoundResultMessage
    | AckMessage
    | ErrorMessage
    | PongMessage
    | RedirectMessage
    | RealityCheckMessage,
    Field(discriminator="type"),
]
"""Any message the server sends."""
