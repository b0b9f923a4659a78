"""How live the Math lab feels (issue 15): for every registered game, the exact analysis

1. cold: the first ``analysis.api.analyze_game(rules)`` of a fresh process (imports done, caches on disk
   allowed, as a server's first request meets it);
2. warm after a pay-table change: one payout parameter (an ``odds`` entry, or a non-structural whole number)
   +1, then +2 and +3 (each a new rule set), after a first solve of the default rules in the same process;
3. after a structural change: the first structural whole number (e.g. ``bust-limit``) +1 and -1, or a
   structural choice changed;

against the issue's targets: warm re-solve under 100 ms for Let It Ride, Final Count and Three Card Poker,
under 1 s for One Eyed Flush, a structural change under 3 s. A game whose definition has no such parameter
yet says so.

``python -m benchmarks lab`` or ``python benchmarks/bench_lab.py [--repeat N] [--game KEY ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

STRUCTURAL_TARGET = 3.0
WARM_TARGET = 0.1  # issue 15: a pay-table re-solve under 100 ms, under 1 s for an analyzer marked slow
SLOW_WARM_TARGET = 1.0

COLD = """
import json, sys, time
from tablegames.analysis.api import analyze_game
from tablegames.rules import make_rules
rules = make_rules(sys.argv[1])
t = time.perf_counter()
analyze_game(rules)
print(json.dumps(time.perf_counter() - t))
"""


def cold(game: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", COLD, game], check=True, capture_output=True, text=True, env=dict(os.environ)
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def _timed(rules: Any) -> float:
    from tablegames.analysis.api import analyze_game

    t = time.perf_counter()
    analyze_game(rules)
    return time.perf_counter() - t


def payout_parameter(definition: Any, rules: Any) -> Any:
    """The first payout a designer would edit: an ``odds`` entry that pays, else a non-structural number."""
    for kinds in (("odds",), ("int", "money")):
        for p in definition.parameters:
            payout = p.kind in kinds and not p.structural and p.get(rules) is not None
            if payout and (p.high is None or p.get(rules) + 3 <= p.high):
                return p
    return None


def structural_changes(definition: Any, rules: Any) -> tuple[str, list[Any]]:
    """(parameter name, two changed rule sets) of the first structural number or choice."""
    for p in definition.parameters:
        if p.kind == "int" and p.structural and p.listed:
            v = p.get(rules)
            moves = [
                w for w in (v + 1, v - 1) if (p.low is None or w >= p.low) and (p.high is None or w <= p.high)
            ]
            if moves:
                return p.name, [p.put(rules, w) for w in moves]
    for p in definition.parameters:
        if p.kind == "choice" and p.structural and p.listed:
            now = p.value(rules)
            others = [c for c in p.choices if c != now]
            if others:
                return p.name, [p.put(rules, c) for c in others[:2]]
    return "", []


def bench(game: str, repeat: int) -> dict[str, Any]:
    from tablegames.rules import registry

    d = registry.get(game)
    rules = d.make_rules()
    out: dict[str, Any] = {"game": game, "cold": min(cold(game) for _ in range(max(1, repeat // 2)))}
    _timed(rules)  # the warm starting point: the default rules solved once in this process
    p = payout_parameter(d, rules)
    if p is not None:
        base = p.get(rules)
        times = [_timed(p.put(rules, base + k)) for k in range(1, 4)]
        out.update(payout=p.name, warm_best=min(times), warm_median=statistics.median(times))
    name, changed = structural_changes(d, rules)
    if changed:
        out.update(structural=name, structural_best=min(_timed(r) for r in changed))
    return out


def _verdict(seconds: float, target: float) -> str:
    return "ok" if seconds < target else "OVER TARGET"


def main() -> None:
    from tablegames.rules import registry

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=2, help="cold runs are best of repeat/2 (at least 1)")
    parser.add_argument("--game", action="append", help="only these games (default: every registered game)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} (2-core machine)", flush=True)
    for game in args.game or list(registry.GAMES):
        r = bench(game, args.repeat)
        slow = registry.get(game).load_analyzer().slow
        warm_target = SLOW_WARM_TARGET if slow else WARM_TARGET
        line = f"{game:17s} cold {r['cold']:6.3f} s"
        if "payout" in r:
            line += (
                f" | pay change ({r['payout']} +1..+3) warm best {1000 * r['warm_best']:7.1f} ms, median "
                f"{1000 * r['warm_median']:7.1f} ms (target < {1000 * warm_target:.0f} ms: "
                f"{_verdict(r['warm_best'], warm_target)})"
            )
        else:
            line += " | pay change: no payout parameter yet"
        if "structural" in r:
            line += (
                f" | structural ({r['structural']}) {r['structural_best']:6.3f} s (target < {STRUCTURAL_TARGET:.0f} s: "
                f"{_verdict(r['structural_best'], STRUCTURAL_TARGET)})"
            )
        else:
            line += " | structural: no structural parameter yet"
        print(line, flush=True)


if __name__ == "__main__":
    main()
