"""The table server: multi-seat tables over the web (FastAPI + WebSocket), wallets in a double-entry ledger,
linked jackpot meters, game recall and crash recovery. See docs/protocol.md and :func:`create_app`."""

from __future__ import annotations

from typing import Any


def create_app(database_url: str, **kwargs: Any) -> Any:
    """The FastAPI app (imported lazily so ``import tablegames.server`` stays light)."""
    from tablegames.server.app import create_app as _create_app

    return _create_app(database_url, **kwargs)


__all__ = ["create_app"]
