"""``python -m benchmarks [NAME ...] [--OPTION ...]``: run ``main()`` of every ``benchmarks/bench_*.py`` (or those
whose name contains one of the given words), each with the options (``python -m benchmarks simulation --quick``)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def main() -> None:
    words = [w for w in sys.argv[1:] if not w.startswith("-")]
    options = [w for w in sys.argv[1:] if w.startswith("-")]
    names = sorted(p.stem for p in Path(__file__).parent.glob("bench_*.py"))
    for name in names:
        if words and not any(w in name for w in words):
            continue
        print(f"== {name}", flush=True)
        sys.argv = [name, *options]
        importlib.import_module(f"benchmarks.{name}").main()


if __name__ == "__main__":
    main()
