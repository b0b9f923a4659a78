"""``python -m benchmarks [NAME ...]``: run ``main()`` of every ``benchmarks/bench_*.py`` (or those whose
name contains one of the given words)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def main() -> None:
    words = sys.argv[1:]
    names = sorted(p.stem for p in Path(__file__).parent.glob("bench_*.py"))
    for name in names:
        if words and not any(w in name for w in words):
            continue
        print(f"== {name}", flush=True)
        sys.argv = [name]
        importlib.import_module(f"benchmarks.{name}").main()


if __name__ == "__main__":
    main()
