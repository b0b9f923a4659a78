"""The AsyncAPI 3 document of a table's WebSocket (``GET /asyncapi.json``), generated from the contract's models:
one channel (``/ws/tables/{table_id}``), the operations the server receives (client messages) and sends
(server messages), and every message with its payload's JSON Schema (``components.schemas``)."""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from tablegames.server.contract.base import Closed
from tablegames.server.contract.client import CLIENT_MESSAGES
from tablegames.server.contract.server import SERVER_MESSAGES

ASYNCAPI_VERSION = "3.0.0"
CHANNEL = "table"


def message_name(model: type[BaseModel]) -> str:
    """A message's name: its ``type`` (an ack's: ``ack.<for>``).

    >>> from tablegames.server.contract.server import SitAck, WelcomeMessage
    >>> message_name(WelcomeMessage), message_name(SitAck)
    ('welcome', 'ack.sit')
    """
    fields = model.model_fields
    name = str(fields["type"].annotation.__args__[0])  # type: ignore[union-attr]
    if "for_" in fields:
        name += "." + str(fields["for_"].annotation.__args__[0])  # type: ignore[union-attr]
    return name


def _asyncapi_schema(node: Any) -> Any:
    """pydantic's JSON Schema as an AsyncAPI Schema Object: its ``discriminator`` is a property's name (OpenAPI's
    object form is not), so it is left out (every branch of a union names its ``type`` with a ``const``)."""
    if isinstance(node, dict):
        return {k: _asyncapi_schema(v) for k, v in node.items() if k != "discriminator"}
    if isinstance(node, list):
        return [_asyncapi_schema(v) for v in node]
    return node


def _messages(models: tuple[type[Closed], ...]) -> dict[str, dict[str, Any]]:
    return {
        m.__name__: {
            "name": message_name(m),
            "title": message_name(m),
            "summary": (m.__doc__ or message_name(m)).strip().splitlines()[0],
            "contentType": "application/json",
            "payload": {"$ref": f"#/components/schemas/{m.__name__}"},
        }
        for m in models
    }


@functools.cache
def asyncapi_document() -> dict[str, Any]:
    """The document (made once: the models do not change while the server runs)."""
    _, top = models_json_schema(
        [(m, "validation") for m in (*CLIENT_MESSAGES, *SERVER_MESSAGES)],
        ref_template="#/components/schemas/{model}",
        by_alias=True,
    )
    schemas = _asyncapi_schema(top["$defs"])
    received, sent = _messages(CLIENT_MESSAGES), _messages(SERVER_MESSAGES)
    channel_ref = {"$ref": f"#/channels/{CHANNEL}"}

    def refs(messages: dict[str, Any]) -> list[dict[str, str]]:
        return [{"$ref": f"#/channels/{CHANNEL}/messages/{k}"} for k in messages]

    return {
        "asyncapi": ASYNCAPI_VERSION,
        "info": {
            "title": "tablegames table protocol",
            "version": "1",
            "description": "One WebSocket per table and player (docs/protocol.md). Messages are JSON objects (text "
            "frames) told apart by `type`; an `ack` answers a request (`for`: its type), an `error` refuses it.",
        },
        "defaultContentType": "application/json",
        "channels": {
            CHANNEL: {
                "address": "/ws/tables/{table_id}",
                "title": "a table",
                "description": "Open with `?token=<token>` (POST /players), or `?watch=1` to watch as a spectator "
                "(public cards only; only `ping` is accepted). The first message is `welcome`.",
                "parameters": {"table_id": {"description": "the table's id (GET /tables)"}},
                "messages": {k: {"$ref": f"#/components/messages/{k}"} for k in (*received, *sent)},
                "bindings": {
                    "ws": {
                        "query": {
                            "type": "object",
                            "properties": {
                                "token": {"type": "string", "description": "the player's token"},
                                "watch": {
                                    "type": "boolean",
                                    "description": "watch without a token: a spectator",
                                },
                            },
                        },
                        "bindingVersion": "0.1.0",
                    }
                },
            }
        },
        "operations": {
            "receiveClientMessage": {
                "action": "receive",
                "channel": channel_ref,
                "title": "a client's request",
                "messages": refs(received),
            },
            "sendServerMessage": {
                "action": "send",
                "channel": channel_ref,
                "title": "the server's answers, states, hints and results",
                "messages": refs(sent),
            },
        },
        "components": {"schemas": schemas, "messages": {**received, **sent}},
    }


@functools.cache
def asyncapi_bytes() -> bytes:
    """The document as ``GET /asyncapi.json`` serves it."""
    return json.dumps(asyncapi_document(), separators=(",", ":")).encode()
