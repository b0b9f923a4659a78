"""A disk cache of solved strategies, so that a server's first hint of a table is exact at once after a restart
(issue 24). Measured on the 2-core CI machine (each standard strategy solved, pickled, loaded): One Eyed Flush
17.3 s from cold (its Numba kernels compiled first), 0.5 s with compiled kernels cached, 16.7 MB on disk;
Let It Ride 0.9-1.3 s, 9.6 MB; Final Count and Three Card Poker under 0.2 s; loading any of them ~0.01 s.

A strategy is stored under the SHA-256 of what it depends on: the game, the whole rule set
(``rules.describe()``), the bet size where a payout cap reaches it, and the *code fingerprint*: the SHA-256 of
the source of the rules and analysis packages with this module's format number. A strategy solved by other code
is never loaded: after an upgrade the old files are simply not found (and pruned as the least recently used).

The file holds one header line (JSON: the key's parts and the SHA-256 of the body) and the pickled strategy.
A file that is truncated, corrupt or for another key is ignored (and solved again); writes are atomic (a
temporary file renamed). The directory is the server's own, as trusted as its database file: pickle runs code
when it loads, so never point the cache at a directory others can write.

>>> import tempfile
>>> from pathlib import Path
>>> from tablegames.rules import GAMES, make_rules
>>> rules = make_rules(GAMES[-1])
>>> with tempfile.TemporaryDirectory() as d:
...     first = solve_cached(rules, None, Path(d))  # solved and stored
...     again = load(Path(d), rules, None)  # read back: equal advice
...     (first is not again, type(again) is type(first), len(list(Path(d).glob("*.strategy"))))
(True, True, 1)
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger("tablegames.analysis")

FORMAT = 1
"""Bumped when the file layout changes."""
MAX_FILES = 32
"""Files kept in a cache directory; the least recently used beyond it are deleted when one is stored."""
SUFFIX = ".strategy"


@functools.cache
def fingerprint() -> str:
    """The SHA-256 of the code a strategy is solved by (the rules and analysis packages' source, in path
    order) and :data:`FORMAT`."""
    import tablegames.analysis
    import tablegames.rules

    h = hashlib.sha256(f"format {FORMAT}\n".encode())
    for package in (tablegames.rules, tablegames.analysis):
        root = Path(str(package.__file__)).parent
        for path in sorted(root.rglob("*.py")):
            h.update(path.relative_to(root.parent).as_posix().encode() + b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


def key_of(rules: Any, bet: int | None) -> dict[str, Any]:
    """What a strategy depends on (the header of its file)."""
    return {
        "game": rules.game,
        "rules": {k: str(v) for k, v in sorted(dict(rules.describe()).items())},
        "bet": bet,
        "code": fingerprint(),
    }


def path_of(directory: Path, rules: Any, bet: int | None) -> Path:
    digest = hashlib.sha256(json.dumps(key_of(rules, bet), sort_keys=True).encode()).hexdigest()
    return directory / f"{rules.game}-{digest[:32]}{SUFFIX}"


def load(directory: Path, rules: Any, bet: int | None) -> Any | None:
    """The stored strategy for these rules and bet, or None (none stored, or the file is not sound)."""
    path = path_of(directory, rules, bet)
    try:
        with path.open("rb") as f:
            header = json.loads(f.readline())
            body = f.read()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("strategy cache: %s unreadable (%s); solving again", path.name, exc)
        return None
    if header.get("key") != key_of(rules, bet) or header.get("sha256") != hashlib.sha256(body).hexdigest():
        log.warning("strategy cache: %s does not match its key or its checksum; solving again", path.name)
        return None
    try:
        strategy = pickle.loads(body)  # the server's own directory: see the module's doc
    except Exception as exc:
        log.warning("strategy cache: %s does not load (%s); solving again", path.name, exc)
        return None
    os.utime(path)  # recently used
    return strategy


def store(directory: Path, rules: Any, bet: int | None, strategy: Any) -> Path:
    """Write the strategy (atomically) and prune the directory to :data:`MAX_FILES`; the file's path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = path_of(directory, rules, bet)
    body = pickle.dumps(strategy, protocol=pickle.HIGHEST_PROTOCOL)
    header = json.dumps(
        {"key": key_of(rules, bet), "sha256": hashlib.sha256(body).hexdigest()}, sort_keys=True
    )
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(header.encode() + b"\n")
            f.write(body)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    prune(directory)
    return path


def prune(directory: Path, keep: int = MAX_FILES) -> list[Path]:
    """Delete the least recently used strategy files beyond ``keep``; the deleted ones."""
    files = sorted(directory.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[keep:]:
        old.unlink(missing_ok=True)
    return files[keep:]


def solve_cached(rules: Any, bet: int | None, directory: Path | None) -> Any:
    """The optimal strategy: loaded from ``directory`` when stored there, else solved (and stored). Without a
    directory, solved."""
    from tablegames.analysis.advice import optimal_strategy

    if directory is not None:
        found = load(directory, rules, bet)
        if found is not None:
            return found
    strategy = optimal_strategy(rules, bet)
    if directory is not None:
        try:
            store(directory, rules, bet, strategy)
        except OSError as exc:  # a full or read-only disk costs the cache, never the hint
            log.warning("strategy cache: could not store in %s (%s)", directory, exc)
    return strategy
