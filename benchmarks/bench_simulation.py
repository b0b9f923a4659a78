"""Simulation speed and memory.

1. Rounds per CPU second of the kernels (one process = one core, measured with ``time.process_time`` so that
   other jobs on the shared machine do not count; heads-up, main wager, optimal strategy) against
   the round engine played round by round (``Table.new_round`` + ``Bot``, rule-of-thumb strategy: the engine's
   fastest path) in the same run; the ratio and the per-core targets (Let It Ride 5M/s, One Eyed Flush 2M/s,
   Final Count 5M/s). Also a full table (7 seats, every side bet) and two worker processes.
2. Peak memory (max RSS of a fresh process) of 10^7 and 10^8 rounds: flat, since rounds are played in chunks.
   The 10^8 runs also give a long accuracy check of the main wager against the exact figure.

``python -m benchmarks simulation`` or ``python benchmarks/bench_simulation.py [--quick]``
(``--quick``: 10^6 / 10^7 rounds instead of 10^7 / 10^8).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

TARGETS = {"let-it-ride": 5e6, "one-eyed-flush": 2e6, "final-count": 5e6}
FULL_TABLE = {
    "let-it-ride": ["bonus", "progressive"],
    "one-eyed-flush": ["jackpot", "flip=one-eyed"],
    "final-count": [],
}
EXACT = {"let-it-ride": 0.035057, "one-eyed-flush": None, "final-count": None}


def engine_rate(game: str, seconds: float = 1.5) -> float:
    """Rounds per second of the round engine, heads-up, main wager only, played round by round with a Bot."""
    from tablegames.engine import Bot, Table
    from tablegames.randomness import SeededRandom
    from tablegames.rules import make_rules

    table = Table(make_rules(game), seats=1, source=SeededRandom(1))
    bot = Bot()
    wager = table.definition.main_wager.name
    n, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        rnd = table.new_round()
        rnd.place_wager(1, wager, 500)
        rnd.deal()
        while not rnd.is_over:
            seat = rnd.to_act
            assert seat is not None
            rnd.act(seat, bot.choose(rnd, seat))
        n += 1
    return n / (time.process_time() - start)


def kernel_rate(
    game: str, rounds: int, seats: int = 1, side: list[str] | None = None, workers: int = 1
) -> float:
    from tablegames.rules import make_rules
    from tablegames.simulation import make_job, parse_side_bets, run_job

    rules = make_rules(game)
    wagers = parse_side_bets(game, side or [], rules, 500)
    warm = make_job(rules, 100_000, seats=seats, wagers=wagers, strategy="optimal", seed=1)
    run_job(warm)  # compile / load the kernels, build the tables
    job = make_job(rules, rounds, seats=seats, wagers=wagers, strategy="optimal", seed=2)
    # One process: CPU seconds of this process (a core's work, whatever else the shared machine runs);
    # workers: wall-clock seconds. Best of three.
    clock = time.process_time if workers == 1 else time.perf_counter
    best = float("inf")
    for _ in range(3):
        start = clock()
        run_job(job, workers=workers)
        best = min(best, clock() - start)
    return rounds / best


CHILD = """
import json, sys, time
import psutil
from tablegames.rules import make_rules
from tablegames.simulation import make_job, run_job
game, rounds = sys.argv[1], int(sys.argv[2])
proc = psutil.Process()
rules = make_rules(game)
run_job(make_job(rules, 1000, strategy="optimal", seed=3))  # kernels loaded, tables built
before = proc.memory_info().rss
peak = [before]
def sample(n):
    peak[0] = max(peak[0], proc.memory_info().rss)
job = make_job(rules, rounds, strategy="optimal", seed=3)
t, cpu = time.perf_counter(), time.process_time()
s = run_job(job, progress=sample).summary()
cpu = time.process_time() - cpu
main = "bets" if game == "let-it-ride" else "main"
r = s["results"][main]
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": cpu, "rss_before": before, "rss_peak": peak[0],
                  "house_edge": r["house_edge"], "std_error": r["std_error"]}))
"""


def child(code: str, *args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (10^6 and 10^7 rounds)")
    args = parser.parse_args(sys.argv[1:])
    speed_rounds = 1_000_000 if args.quick else 10_000_000
    memory_sizes = [10**6, 10**7] if args.quick else [10**7, 10**8]
    from tablegames.analysis import final_count, one_eyed_flush
    from tablegames.rules import make_rules

    EXACT["one-eyed-flush"] = float(one_eyed_flush.analyze(make_rules("one-eyed-flush")).house_edge)
    EXACT["final-count"] = float(final_count.analyze(make_rules("final-count")).house_edge)

    print(
        "1. rounds per CPU second of one process (= per core; heads-up, main wager, optimal strategy; best of 3);"
    )
    print("   2 workers: rounds per wall-clock second")
    print(
        f"{'game':16} {'engine/s':>10} {'kernel/s':>12} {'ratio':>8} {'target/s':>10} {'met':>4}"
        f" {'7 seats+side/s':>15} {'2 workers/s':>12}"
    )
    for game in TARGETS:
        e = engine_rate(game)
        k = kernel_rate(game, speed_rounds)
        full = kernel_rate(game, speed_rounds // 5, seats=7, side=FULL_TABLE[game])
        two = kernel_rate(game, speed_rounds, workers=2)
        ok = "yes" if k >= TARGETS[game] else "NO"
        print(
            f"{game:16} {e:>10,.0f} {k:>12,.0f} {k / e:>7,.0f}x {TARGETS[game]:>10,.0f} {ok:>4}"
            f" {full:>15,.0f} {two:>12,.0f}",
            flush=True,
        )

    print(
        "\n2. memory: RSS of a fresh process before the run (kernels loaded, tables built) and its peak during"
    )
    print("   the run (sampled after every chunk); heads-up, optimal strategy; and a long accuracy run")
    print(
        f"{'game':16} {'rounds':>12} {'seconds':>8} {'CPU rounds/s':>12} {'RSS before MB':>14} {'peak MB':>8}"
        f" {'house edge':>11} {'exact':>9} {'|diff|/SE':>9}"
    )
    mb = 1024 * 1024
    for game in TARGETS:
        for n in memory_sizes:
            r = child(CHILD, game, str(n))
            exact = EXACT[game] or 0.0
            z = abs(r["house_edge"] - exact) / r["std_error"]
            print(
                f"{game:16} {n:>12,} {r['seconds']:>8.1f} {n / r['cpu']:>12,.0f} {r['rss_before'] / mb:>14,.1f}"
                f" {r['rss_peak'] / mb:>8,.1f} {r['house_edge']:>11.5%} {exact:>9.4%} {z:>9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
