"""Writing a finished round's settlement: the meters locked, the round replayed at their values, the postings
of :mod:`tablegames.server.settlement` posted, the hits numbered, the round's record and players stored."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from tablegames.engine import Round
from tablegames.engine.events import (
    CardDealt,
    JackpotContribution,
    JackpotHit,
    NeighbourBonusPaid,
)
from tablegames.engine.replay import at_meters
from tablegames.randomness import (
    ServerSeed,
    fairness_record,
)
from tablegames.server import ledger, settlement
from tablegames.server import statements as sql
from tablegames.server.db import (
    HOUSE,
    SETTLED,
)
from tablegames.server.meters import announce
from tablegames.server.protection import record
from tablegames.server.rawsql import execute, insert_rows
from tablegames.server.state import TableState
from tablegames.server.store import StepStore
from tablegames.server.threads import on_worker


class Settler:
    """A finished round's settlement, written once in one transaction at the locked meter values."""

    def __init__(self, state: TableState, store: StepStore) -> None:
        self.state = state
        self.store = store
        self.server = state.server

    @on_worker
    def settle(self) -> None:
        """Write the round's settlement in one transaction, exactly once (status change included)."""
        state = self.state
        live = state.live
        assert live is not None and live.round_id is not None
        rnd = live.rnd
        round_id = live.round_id
        with self.store.write() as c:
            ((status, server_seed, client_seed, nonce, deck, commitment),) = execute(
                c, sql.ROUND_FOR_SETTLEMENT, {"rid": round_id}
            )
            if status == SETTLED:
                live.settled = True
                return
            seat_players = dict(live.seat_players)
            wallets: dict[int, int] = {
                int(pid): int(acc)
                for pid, acc in execute(c, sql.WALLETS, {"players": sorted(set(seat_players.values()))})
            }
            rnd = self._at_locked_meters(c, rnd, wallets.values())  # the engine settles at the meters now

            accounts = settlement.Accounts(
                wallets={seat: wallets[pid] for seat, pid in seat_players.items()},
                players=seat_players,
                house=self.server.system[HOUSE],
                in_play=self.state.in_play,
                meters=self.server.meter_accounts(state.game),
            )
            settled = settlement.settlement(rnd.history, accounts, round_id)
            postings, hit_postings = settled.postings, settled.hits
            results = [r.to_dict() for r in settled.results]
            fairness = None
            if server_seed and client_seed is not None and nonce is not None:
                fairness = fairness_record(
                    game=state.game,
                    round_id=round_id,
                    server_seed=ServerSeed.from_hex(server_seed),
                    client_seed=client_seed,
                    nonce=nonce,
                    deck=deck,
                    dealt=[(e.position, e.to) for e in rnd.history if isinstance(e, CardDealt)],
                    commitment=commitment,
                    client_seeds=live.seed_entries or None,
                )
            execute(
                c,
                sql.FINISH_ROUND,
                {
                    "rid": round_id,
                    "status": SETTLED,
                    "seat_players": {str(k): v for k, v in sorted(seat_players.items())},
                    "events": [e.to_dict() for e in rnd.history],
                    "settled_at": time.time(),
                    "recovered": live.recovered,
                    "result": {"house_net": settled.house_net, "results": results, "fairness": fairness},
                },
            )
            # last: the money (locks the busy house, and the in-play and meter accounts if _at_locked_meters did
            # not, until the commit)
            ids, balances = ledger.post_all(c, postings)
            hit_seqs = self._record_hits(c, round_id, seat_players, [(ids[i], e) for i, e in hit_postings])
            announce(c, self.server, state.game, balances, hit_postings, hit_seqs)  # other processes' meters
            untouched = sorted({accounts.wallets[r.seat] for r in settled.results} - set(balances))
            if untouched:
                balances.update(
                    (int(a), int(b)) for a, b in execute(c, sql.ACCOUNT_BALANCES, {"accounts": untouched})
                )
            paid_at = self.server.config.clock()  # the returns the loss limits and sessions sum (issue 26)
            for r in results:
                if r["returned"] > 0:
                    record(c, r["player_id"], paid_at, "return", r["returned"], round_id)
            insert_rows(
                c,
                sql.INSERT_ROUND_PLAYERS,
                [
                    {
                        "round_id": round_id,
                        **r,
                        "balance_before": balances[accounts.wallets[r["seat"]]] - r["net"],
                        "balance_after": balances[accounts.wallets[r["seat"]]],
                    }
                    for r in results
                ],
            )
        if (
            rnd is not live.rnd
        ):  # the round as the engine settled it at the locked meters replaces the one played
            state.engine.adopt(rnd)
            live.rnd = rnd
        live.settled = True
        names = {p.player_id: p.name for p in state.occupants.values()}
        live.result = {
            "type": "round_result",
            "round_id": live.round_id,
            "seq": len(rnd.history),
            "results": [{**r, "player": names.get(r["player_id"])} for r in results],
            "envy": [e.to_dict() for e in rnd.history if isinstance(e, NeighbourBonusPaid)],
            "jackpot_hits": [
                {**e.to_dict(), "hit_seq": seq} for (_, e), seq in zip(hit_postings, hit_seqs, strict=True)
            ],
            "meters": dict(state.engine.meters),
        }

    @on_worker
    def _at_locked_meters(self, c: Any, rnd: Round, wallets: Iterable[int]) -> Round:
        """(In the settlement's transaction, before it writes.) Lock the linked meters the round contributed to
        or hit, read them as they stand and have the engine settle the round at those values (:func:`at_meters`).

        So the hits of all tables (threads, server processes) are paid one after the other, each the meter as
        the previous one left it: the second hit of the same instant is paid the reset plus its own
        contribution. With the meters, the other accounts of the settlement but the house (the round's wallets,
        the table's in-play account) are locked in the same statement, in the ledger's global order (highest id
        first, as :func:`~tablegames.server.ledger.post_all`); the house, the lowest id, is locked last by the
        postings: no two transactions wait for each other.
        """
        touched = sorted({e.meter for e in rnd.history if isinstance(e, JackpotContribution | JackpotHit)})
        if not touched:
            return rnd
        accounts = self.server.meter_accounts(self.state.game)
        values = ledger.lock_balances(c, [*(accounts[m] for m in touched), *wallets, self.state.in_play])
        return at_meters(rnd, {m: values[accounts[m]] for m in touched})

    @on_worker
    def _record_hits(
        self, c: Any, round_id: int, seat_players: dict[int, int], hits: list[tuple[int, JackpotHit]]
    ) -> list[int]:
        """(In the settlement's transaction, under the meters' locks.) Number the round's hits in each meter's
        order of hits and store them with their ledger transactions; the numbers, in the order of ``hits``."""
        meter_ids = self.server.meter_ids(self.state.game)
        last: dict[str, int] = {}
        seqs = []
        for _, e in hits:
            if e.meter not in last:
                last[e.meter] = int(execute(c, sql.LAST_HIT, {"meter": meter_ids[e.meter]})[0][0] or 0)
            last[e.meter] += 1
            seqs.append(last[e.meter])
        if hits:
            stamp = time.time()
            insert_rows(
                c,
                sql.INSERT_HITS,
                [
                    {
                        "meter_id": meter_ids[e.meter],
                        "seq": seq,
                        "round_id": round_id,
                        "transaction_id": tx_id,
                        "seat": e.seat,
                        "player_id": seat_players[e.seat],
                        "amount": e.amount,
                        "created_at": stamp,
                    }
                    for (tx_id, e), seq in zip(hits, seqs, strict=True)
                ],
            )
        return seqs
