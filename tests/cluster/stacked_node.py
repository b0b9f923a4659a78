"""A cluster node that deals one stacked deck at every table and holds each settlement paying a jackpot hit for
half a second before its commit (so hits at tables of different nodes overlap): started by the jackpot test with
the options of ``tablegames serve`` it needs. The deck: ``$CLUSTER_DECK`` (cards, comma-separated, deal order)."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from tablegames.cards import CARDS, parse_card
from tablegames.server import ledger
from tablegames.server.app import create_app, run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--advertise", required=True)
    parser.add_argument("--no-demo-tables", action="store_true")
    args = parser.parse_args()
    head = [int(parse_card(c)) for c in os.environ["CLUSTER_DECK"].split(",")]
    deck = head + [int(c) for c in CARDS if int(c) not in head]
    real = ledger.post_all

    def post_all(executor: Any, postings: Any) -> Any:
        out = real(executor, postings)
        if any(p.kind == "hit" for p in postings):
            time.sleep(0.5)
        return out

    ledger.post_all = post_all  # type: ignore[assignment]
    app = create_app(
        args.database,
        admin_token=os.environ["TABLEGAMES_ADMIN_TOKEN"],
        deck_factory=lambda t: deck,
        betting_seconds=30.0,
        turn_seconds=30.0,
        node=args.node,
        advertise=args.advertise,
    )
    run(app, host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
