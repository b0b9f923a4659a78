"""``tablegames detect --database`` over stored rounds: a SQLite database of ``ROUNDS`` Three Card Poker rounds at
full seven-seat tables (the engine's events and deck, as the server stores them; seat 1 reads the dealer's first
card), then the offline scoring timed: the fast path (``detect_database``) against the first one kept as the
reference (``detect_database_reference``), in one process, the reports compared (docs/detection.md).

``python -m benchmarks detect`` (``BENCH_DETECT_ROUNDS``, default 20,000; ``BENCH_DETECT_DB``: a file to keep the
database in, reused when it exists). Above ``BENCH_DETECT_DISTINCT`` rounds (default :data:`REFERENCE_MAX`), the
database is that many distinct rounds (kept beside it, ``<name>.distinct.sqlite3``) stored again under new ids: the
comparison with the reference runs on the distinct rounds, then the fast path alone on the whole database, in one
process and in two. Timed: the player tests and the collusion pair tests (``detect_both``, one scan, as the CLI
runs them) against both references."""

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


def _same(a: object, b: object) -> bool:
    """Two reports equal but for their ``seconds`` (the pair reports' flags compared as dicts)."""

    def plain(r: object) -> dict[str, object]:
        out = {k: v for k, v in r.__dict__.items() if k != "seconds" and not k.startswith("pair_")}
        return out | {k: [f.to_dict() for f in v] for k, v in out.items() if k in ("flagged", "pairs")}

    return plain(a) == plain(b)


def main() -> None:
    from tablegames.analysis import detect_scan
    from tablegames.analysis.detect_db import detect_database_reference
    from tablegames.analysis.detect_pairs_db import detect_both, detect_pairs_database_reference

    rounds = int(os.environ.get("BENCH_DETECT_ROUNDS", "20000"))
    distinct = int(os.environ.get("BENCH_DETECT_DISTINCT", str(min(rounds, REFERENCE_MAX))))
    keep = os.environ.get("BENCH_DETECT_DB")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(keep) if keep else Path(tmp) / "rounds.sqlite3"
        base = path if rounds <= distinct else path.with_name(f"{path.stem}.distinct{path.suffix}")
        t0 = time.perf_counter()
        base_url = f"sqlite:///{base}" if base.exists() else build(base, min(rounds, distinct))
        built = time.perf_counter() - t0
        url = base_url
        if base != path:
            url = f"sqlite:///{path}" if path.exists() else replicate(base, path, rounds)
        copied = time.perf_counter() - t0 - built
        # in one process: the fast path cold (its tables built), the references (the player tests, then the
        # pair tests), the fast path again (the tables built, the decisions' answers cached afresh), and in two
        # processes (forked: the same state); the fast path runs the player and pair tests in one scan
        cold = detect_both(base_url)
        t1 = time.perf_counter()
        reference = (detect_database_reference(base_url), detect_pairs_database_reference(base_url))
        ref_seconds = time.perf_counter() - t1
        detect_scan.forget()
        report = detect_both(base_url)
        detect_scan.forget()
        two = detect_both(base_url, workers=2, chunk=max(report[0].rounds // 8, 1))
        runs = [("fast, cold", cold), ("fast, warm", report), ("2 processes", two)]
        same = all(_same(r[0], reference[0]) and _same(r[1], reference[1]) for _, r in runs)
        print(
            f"detect --database (player and pair tests): {report[0].rounds:,} rounds, {report[0].decisions:,} "
            f"decisions, {report[0].tests} + {report[1].tests} tests; flagged "
            f"{[(f.name, f.scenario, f.flagged_at_hand) for f in report[0].flagged]}, pairs "
            f"{[(f.player, f.partner) for f in report[1].pairs]} (built in {built:.0f} s)"
        )
        print(
            f"  {'reference':11s}: {ref_seconds:7.2f} s ({reference[0].seconds:.2f} s the player tests, "
            f"{reference[1].seconds:.2f} s the pair tests), {reference[0].rounds / ref_seconds:8,.0f} rounds/s"
        )
        for name, r in runs:
            sec = r[0].seconds
            print(
                f"  {name:11s}: {sec:7.2f} s, {r[0].rounds / sec:8,.0f} rounds/s -> {ref_seconds / sec:5.2f}x the "
                "reference"
            )
        print(f"  same reports: {same}")
        if not same:
            raise SystemExit("the fast path's reports differ from the reference's")
        if base == path:
            rate = report[0].rounds / report[0].seconds
            print(
                f"  10^6 rounds ~ {1e6 / rate:.0f} s at the fast path's rate in one process, "
                f"~ {1e6 * two[0].seconds / two[0].rounds:.0f} s in two"
            )
            return
        # the whole database: the fast path alone, in one process and in two (a fresh pool: forked warm)
        detect_scan.forget()
        big = detect_both(url, workers=1)
        detect_scan.forget()
        big2 = detect_both(url, workers=2)
        per_round = ref_seconds / reference[0].rounds
        print(
            f"  {big[0].rounds:,} rounds ({big[0].rounds // reference[0].rounds} copies, stored in {copied:.0f} s), "
            f"{big[0].decisions:,} decisions; the reference extrapolated from its rate: "
            f"{per_round * big[0].rounds:.0f} s"
        )
        for name, r in (("1 process", big), ("2 processes", big2)):
            sec = r[0].seconds
            print(
                f"  {name:11s}: {sec:7.2f} s, {r[0].rounds / sec:8,.0f} rounds/s "
                f"-> {per_round * r[0].rounds / sec:5.2f}x the reference's rate"
            )
        if not (_same(big[0], big2[0]) and _same(big[1], big2[1])):
            raise SystemExit("one process and two report differently")


if __name__ == "__main__":
    main()
