"""``tablegames detect --database`` over stored rounds: a SQLite database of ``ROUNDS`` Three Card Poker rounds at
full seven-seat tables (the engine's events and deck, as the server stores them; seat 1 reads the dealer's first
card), then the offline scoring timed: the fast path (``detect_database``) against the first one kept as the
reference (``detect_database_reference``), in one process, the reports compared (docs/detection.md).

``python -m benchmarks detect`` (``BENCH_DETECT_ROUNDS``, default 20,000; ``BENCH_DETECT_DB``: a file to keep the
database in, reused when it exists)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path


def build(path: Path, rounds: int) -> str:
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    from tablegames.analysis.detect import scorer
    from tablegames.engine import Table
    from tablegames.randomness import SeededRandom
    from tablegames.rules import make_rules
    from tablegames.server.db import SETTLED, Account, Base, GameTable, Player, RoundRow

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    rules = make_rules("three-card-poker")
    sc = scorer(rules, "dealer-1")
    with Session(engine) as s:
        s.add_all([Account(id=i, name=f"a{i}", kind="wallet", balance=0) for i in range(1, 8)])
        s.add_all([Player(id=i, name=f"p{i}", token_hash=f"t{i}", account_id=i) for i in range(1, 8)])
        s.add(GameTable(id=1, name="t", game="three-card-poker", seats=7, min_bet=100, max_bet=1000))
        s.flush()
        table = Table(rules, seats=7, source=SeededRandom("bench-detect"))
        seats = {str(i): i for i in range(1, 8)}
        for n in range(rounds):
            rnd = table.new_round()
            for seat in range(1, 8):
                rnd.place_wager(seat, rnd.main_wager(), 100)
            rnd.deal()
            while not rnd.is_over:
                to_act = rnd.to_act
                assert to_act is not None
                score = sc.score(rnd, to_act, rnd.legal_actions(to_act)[0])
                rnd.act(to_act, score.informed_best if to_act == 1 else score.legal_best)
            s.add(
                RoundRow(
                    id=n + 1,
                    table_id=1,
                    round_no=rnd.round_no,
                    game=rules.game,
                    rules=table.described_rules(),
                    status=SETTLED,
                    deck=[int(c) for c in rnd.deck],
                    seat_players=seats,
                    events=[e.to_dict() for e in rnd.history],
                    settled_at=time.time(),
                )
            )
            if n % 5_000 == 4_999:
                s.flush()
        s.commit()
    engine.dispose()
    return url


def main() -> None:
    from tablegames.analysis import detect_scan
    from tablegames.analysis.detect_db import detect_database, detect_database_reference

    rounds = int(os.environ.get("BENCH_DETECT_ROUNDS", "20000"))
    keep = os.environ.get("BENCH_DETECT_DB")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(keep) if keep else Path(tmp) / "rounds.sqlite3"
        t0 = time.perf_counter()
        url = f"sqlite:///{path}" if path.exists() else build(path, rounds)
        built = time.perf_counter() - t0
        # in one process: the fast path cold (its tables built), the reference, the fast path again (the tables
        # built, the decisions' answers cached afresh), and in two processes (forked: the same state)
        cold = detect_database(url)
        reference = detect_database_reference(url)
        detect_scan.forget()
        report = detect_database(url)
        detect_scan.forget()
        two = detect_database(url, workers=2, chunk=max(report.rounds // 8, 1))
        runs = (("reference", reference), ("fast, cold", cold), ("fast, warm", report), ("2 processes", two))
        same = all({**r.to_dict(), "seconds": 0} == {**reference.to_dict(), "seconds": 0} for _, r in runs)
        rate = report.rounds / report.seconds
        print(
            f"detect --database: {report.rounds:,} rounds, {report.decisions:,} decisions, {report.tests} tests; "
            f"flagged {[(f.name, f.scenario, f.flagged_at_hand) for f in report.flagged]} (built in {built:.0f} s)"
        )
        for name, r in runs:
            print(
                f"  {name:11s}: {r.seconds:6.2f} s, {r.rounds / r.seconds:8,.0f} rounds/s "
                f"-> {reference.seconds / r.seconds:5.2f}x the reference"
            )
        print(
            f"  10^6 rounds ~ {1e6 / rate:.0f} s at the fast path's rate in one process, "
            f"~ {1e6 * two.seconds / two.rounds:.0f} s in two; same report: {same}"
        )
        if not same:
            raise SystemExit("the fast path's report differs from the reference's")


if __name__ == "__main__":
    main()
