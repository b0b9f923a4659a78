"""``tablegames detect --database`` over stored rounds: a SQLite database of ``ROUNDS`` Three Card Poker rounds at
full seven-seat tables (the engine's events and deck, as the server stores them; seat 1 reads the dealer's first
card), then the offline scoring timed: the fast path (``detect_database``) against the first one kept as the
reference (``detect_database_reference``), in one process, the reports compared (docs/detection.md).

``python -m benchmarks detect`` (``BENCH_DETECT_ROUNDS``, default 20,000; ``BENCH_DETECT_DB``: a file to keep the
database in, reused when it exists). Above :data:`REFERENCE_MAX` rounds, the database is that many distinct rounds
(kept beside it, ``<name>.distinct.sqlite3``) stored again under new ids: the comparison with the reference runs
on the distinct rounds, then the fast path alone on the whole database, in one process and in two."""

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


REFERENCE_MAX = 100_000
"""Rounds the reference is timed on at most (about a minute at its rate): a larger database is that many
distinct rounds stored again under new ids, the reference timed on the distinct ones (its time extrapolated)."""


def replicate(source: Path, path: Path, rounds: int) -> str:
    """A database of ``rounds`` rounds: the rounds of ``source`` stored again (new ids and round numbers) until
    there are as many (each copy the same decisions: the scan's work per round is the same, its caches no more
    use than over the distinct rounds)."""
    import shutil
    import sqlite3

    from tablegames.server.db import RoundRow

    shutil.copyfile(source, path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    try:
        n = int(con.execute("SELECT max(id) FROM rounds").fetchone()[0])
        columns = [c.name for c in RoundRow.__table__.columns]
        shifted = ", ".join(f"{c} + :off" if c in ("id", "round_no") else c for c in columns)
        for off in range(n, rounds, n):
            con.execute(
                f"INSERT INTO rounds ({', '.join(columns)}) SELECT {shifted} FROM rounds WHERE id <= :last",
                {"off": off, "last": min(n, rounds - off)},
            )
            con.commit()
    finally:
        con.close()
    return f"sqlite:///{path}"


def main() -> None:
    from tablegames.analysis import detect_scan
    from tablegames.analysis.detect_db import detect_database, detect_database_reference

    rounds = int(os.environ.get("BENCH_DETECT_ROUNDS", "20000"))
    keep = os.environ.get("BENCH_DETECT_DB")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(keep) if keep else Path(tmp) / "rounds.sqlite3"
        base = path if rounds <= REFERENCE_MAX else path.with_name(f"{path.stem}.distinct{path.suffix}")
        t0 = time.perf_counter()
        base_url = f"sqlite:///{base}" if base.exists() else build(base, min(rounds, REFERENCE_MAX))
        built = time.perf_counter() - t0
        url = base_url
        if base != path:
            url = f"sqlite:///{path}" if path.exists() else replicate(base, path, rounds)
        copied = time.perf_counter() - t0 - built
        # in one process: the fast path cold (its tables built), the reference, the fast path again (the tables
        # built, the decisions' answers cached afresh), and in two processes (forked: the same state)
        cold = detect_database(base_url)
        reference = detect_database_reference(base_url)
        detect_scan.forget()
        report = detect_database(base_url)
        detect_scan.forget()
        two = detect_database(base_url, workers=2, chunk=max(report.rounds // 8, 1))
        runs = [("reference", reference), ("fast, cold", cold), ("fast, warm", report), ("2 processes", two)]
        same = all({**r.to_dict(), "seconds": 0} == {**reference.to_dict(), "seconds": 0} for _, r in runs)
        print(
            f"detect --database: {report.rounds:,} rounds, {report.decisions:,} decisions, {report.tests} tests; "
            f"flagged {[(f.name, f.scenario, f.flagged_at_hand) for f in report.flagged]} (built in {built:.0f} s)"
        )
        for name, r in runs:
            print(
                f"  {name:11s}: {r.seconds:7.2f} s, {r.rounds / r.seconds:8,.0f} rounds/s "
                f"-> {reference.seconds / r.seconds:5.2f}x the reference"
            )
        print(f"  same report: {same}")
        if not same:
            raise SystemExit("the fast path's report differs from the reference's")
        if base == path:
            rate = report.rounds / report.seconds
            print(
                f"  10^6 rounds ~ {1e6 / rate:.0f} s at the fast path's rate in one process, "
                f"~ {1e6 * two.seconds / two.rounds:.0f} s in two"
            )
            return
        # the whole database: the fast path alone, in one process and in two (a fresh pool: forked warm)
        detect_scan.forget()
        big = detect_database(url, workers=1)
        detect_scan.forget()
        big2 = detect_database(url, workers=2)
        per_round = reference.seconds / reference.rounds
        print(
            f"  {big.rounds:,} rounds ({big.rounds // reference.rounds} copies, stored in {copied:.0f} s), "
            f"{big.decisions:,} decisions; the reference extrapolated from its rate: "
            f"{per_round * big.rounds:.0f} s"
        )
        for name, r in (("1 process", big), ("2 processes", big2)):
            print(
                f"  {name:11s}: {r.seconds:7.2f} s, {r.rounds / r.seconds:8,.0f} rounds/s "
                f"-> {per_round * r.rounds / r.seconds:5.2f}x the reference's rate"
            )
        if {**big.to_dict(), "seconds": 0} != {**big2.to_dict(), "seconds": 0}:
            raise SystemExit("one process and two report differently")


if __name__ == "__main__":
    main()
