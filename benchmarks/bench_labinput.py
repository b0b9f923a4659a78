"""What a hostile Math lab request costs (issue 20, defects 1 and 4): the CPU time of ``POST /lab/game-file``
(the rule set read and written back, no solve) with each hostile value of the issue, against the same request
with a normal value, as a ratio, in one process. On main, ``"$1e10000000"`` alone took 10.5 s of the event
loop; every number is now bounded as text before it is built, so each ratio stays near 1.

``python -m benchmarks labinput`` or ``python benchmarks/bench_labinput.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from typing import Any

from fastapi.testclient import TestClient

from tablegames.rules import registry
from tablegames.server.app import create_app
from tablegames.server.limits import Limits

DEPTH = 20_000


def _requests() -> tuple[str, list[tuple[str, str]]]:
    """The normal request's body and the hostile ones (a label, a body), over the registry's parameters."""
    defs = [d for d in registry.DEFINITIONS if d.parameters]

    def first(kind: str) -> tuple[str, str]:
        d = next(d for d in defs if any(p.kind == kind for p in d.parameters))
        return d.key, next(p.name for p in d.parameters if p.kind == kind)

    game, whole = first("int")
    default = registry.get(game).parameter(whole).value(registry.get(game).make_rules())
    mgame, money = first("money")
    fgame, share = first("fraction")
    normal = json.dumps({"game": game, "rules": {whole: default}})
    head = f'game = "{game}"\n[rules]\n'
    hostile = [
        ("money $1e10000000", json.dumps({"game": mgame, "rules": {money: "$1e10000000"}})),
        ("fraction 1e-10000000", json.dumps({"game": fgame, "rules": {share: "1e-10000000"}})),
        ("fraction 1e-5000", json.dumps({"game": fgame, "rules": {share: "1e-5000"}})),
        ("whole '²'", json.dumps({"game": game, "rules": {whole: "²"}})),
        ("5,000 digits", json.dumps({"game": game, "rules": {whole: "9" * 5000}})),
        ("4,000-digit JSON int", json.dumps({"game": game, "rules": {whole: 7}}).replace("7", "9" * 4000)),
        ("TOML arrays 20,000 deep", json.dumps({"game_file": head + "x = " + "[" * DEPTH + "]" * DEPTH})),
        ("TOML dotted key 20,000 deep", json.dumps({"game_file": head + "a." * DEPTH + "b = 1"})),
        ("bet_cents 10**18", json.dumps({"game": mgame, "bet_cents": 10**18})),
    ]
    return normal, hostile


def _cpu(client: TestClient, body: str, repeat: int) -> tuple[float, int]:
    """The median CPU seconds of one request (every thread of this process) and its status."""
    times, status = [], 0
    for _ in range(repeat):
        started = time.process_time()
        res = client.post(
            "/lab/game-file", content=body.encode(), headers={"content-type": "application/json"}
        )
        times.append(time.process_time() - started)
        status = res.status_code
    return statistics.median(times), status


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    logging.getLogger("tablegames.server").setLevel(logging.ERROR)  # (each refusal's one line: not here)
    normal, hostile = _requests()
    with tempfile.TemporaryDirectory() as tmp:
        app: Any = create_app(f"sqlite:///{tmp}/bench.sqlite3", limits=Limits(http_rate=1e6, http_burst=1e6))
        with TestClient(app, raise_server_exceptions=False) as client:
            _cpu(client, normal, 3)  # (warm: imports, the first request)
            base, status = _cpu(client, normal, args.repeat)
            print(f"normal request ({status}): {base * 1e3:.2f} ms CPU (median of {args.repeat})")
            print(f"{'hostile request':32} {'status':>6} {'CPU ms':>9} {'ratio':>7}")
            worst = 0.0
            for label, body in hostile:
                cpu, status = _cpu(client, body, args.repeat)
                worst = max(worst, cpu / base)
                print(f"{label:32} {status:>6} {cpu * 1e3:>9.2f} {cpu / base:>7.2f}")
            print(f"worst ratio: {worst:.2f} (hostile / normal CPU time)")


if __name__ == "__main__":
    main()
