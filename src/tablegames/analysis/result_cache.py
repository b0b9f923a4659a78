"""A disk cache of ``analyze --format json``'s text, so that asking again for the same figures reads a file
instead of solving the game and building its decision table (issue 28: Let It Ride's 3 MB took 1.6-1.8 s).

The text stored is exactly what :func:`analysis_json` computes (``json.dumps`` of ``Analysis.to_json()``),
byte for byte: a reader cannot tell a cached answer from a computed one. It is stored under the SHA-256 of what
it depends on, keyed like :mod:`tablegames.analysis.strategy_cache`: the game, the whole rule set
(``rules.describe()``), the bet size, the meters, whether the full decision table is in, the extra fields (the
game file's rule-set name) and the *code fingerprint*: the strategy cache's (the rules and analysis packages'
source) with the engine's and ``cards.py``'s source and this module's :data:`FORMAT`. After an upgrade the old
files are not found, and are pruned as the least recently used. Library versions (NumPy, Numba) are not in the
key: the figures are exact integer counts and fractions, and Python's ``float`` repr is its own.

A file holds one header line (JSON: the key and the SHA-256 of the body) and the JSON text. A file that is
truncated, damaged or of another key is ignored and the analysis computed again (and stored again); writes are
atomic (a temporary file renamed). Unlike the strategy cache, nothing here is unpickled: a damaged or planted
file can only be ignored or, with a matching checksum, printed as the figures it claims.

The directory: ``$TABLEGAMES_CACHE_DIR/analysis`` (an empty ``TABLEGAMES_CACHE_DIR`` turns the cache off), else
``$XDG_CACHE_HOME/tablegames/analysis``, else ``~/.cache/tablegames/analysis``.

>>> import tempfile
>>> from pathlib import Path
>>> from tablegames.rules import GAMES, make_rules
>>> rules = make_rules(GAMES[-1])
>>> with tempfile.TemporaryDirectory() as d:
...     first = analysis_json(rules, directory=Path(d))  # computed and stored
...     again = analysis_json(rules, directory=Path(d))  # read back
...     (first == again, len(list(Path(d).glob("*" + SUFFIX))))
(True, 1)
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablegames.analysis import strategy_cache

log = logging.getLogger("tablegames.analysis")

FORMAT = 1
"""Bumped when the file layout or the text's form changes."""
MAX_FILES = 32
"""Files kept in the directory; the least recently used beyond it are deleted when one is stored."""
SUFFIX = ".analysis"
ENV = "TABLEGAMES_CACHE_DIR"


def default_directory() -> Path | None:
    """The cache directory of this user (see the module's doc), or None when ``$TABLEGAMES_CACHE_DIR`` is
    set empty (no cache)."""
    env = os.environ.get(ENV)
    if env is not None:
        return Path(env).expanduser() / "analysis" if env.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tablegames" / "analysis"


@functools.cache
def fingerprint() -> str:
    """The SHA-256 of the code the text is computed by: the strategy cache's fingerprint (rules and analysis
    packages), the engine package's and ``cards.py``'s source, and :data:`FORMAT`."""
    import tablegames

    root = Path(str(tablegames.__file__)).parent
    h = hashlib.sha256(f"analysis format {FORMAT}\n{strategy_cache.fingerprint()}\n".encode())
    for path in [root / "cards.py", *sorted((root / "engine").rglob("*.py"))]:
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def key_of(
    rules: Any,
    bet: int | None,
    meters: Mapping[str, int],
    full_strategy: bool,
    extra: Mapping[str, str],
) -> dict[str, Any]:
    """What the text depends on (the header of its file)."""
    return {
        **strategy_cache.key_of(rules, bet),
        "code": fingerprint(),
        "meters": {k: int(v) for k, v in sorted(meters.items())},
        "full_strategy": bool(full_strategy),
        "extra": {k: str(v) for k, v in sorted(extra.items())},
    }


def path_of(directory: Path, key: Mapping[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return directory / f"{key['game']}-{digest[:32]}{SUFFIX}"


def load(directory: Path, key: Mapping[str, Any]) -> str | None:
    """The stored text for ``key``, or None (none stored, or the file is not sound)."""
    path = path_of(directory, key)
    try:
        with path.open("rb") as f:
            header = json.loads(f.readline())
            body = f.read()
        text = body.decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
        log.warning("analysis cache: %s unreadable (%s); computing again", path.name, exc)
        return None
    if not isinstance(header, dict) or header.get("key") != key:
        log.warning("analysis cache: %s is not of its key; computing again", path.name)
        return None
    if header.get("sha256") != hashlib.sha256(body).hexdigest():
        log.warning("analysis cache: %s does not match its checksum; computing again", path.name)
        return None
    with contextlib.suppress(OSError):  # (a read-only directory still answers)
        os.utime(path)  # recently used
    return text


def store(directory: Path, key: Mapping[str, Any], text: str) -> Path:
    """Write ``text`` (atomically) and prune the directory to :data:`MAX_FILES`; the file's path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = path_of(directory, key)
    body = text.encode("utf-8")
    header = json.dumps({"key": key, "sha256": hashlib.sha256(body).hexdigest()}, sort_keys=True)
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
    """Delete the least recently used files beyond ``keep``; the deleted ones."""
    files = []
    for p in directory.glob(f"*{SUFFIX}"):
        try:
            files.append((p.stat().st_mtime, p))
        except OSError:  # pruned by another process meanwhile
            continue
    files.sort(reverse=True)
    for _, old in files[keep:]:
        old.unlink(missing_ok=True)
    return [p for _, p in files[keep:]]


def compute_json(
    rules: Any,
    bet: int | None = None,
    meters: Mapping[str, int] | None = None,
    full_strategy: bool = True,
    extra: Mapping[str, str] | None = None,
) -> str:
    """The JSON text of the analysis (``Analysis.to_json()`` with ``extra``'s fields), computed: a RuleError
    for bad rules, a bad bet or an unknown meter (``analysis.api.analyze_game``)."""
    from tablegames.analysis.api import analyze_game

    a = analyze_game(rules, bet, meters, full_strategy=full_strategy)
    a.extra.update(extra or {})
    return json.dumps(a.to_json())


def analysis_json(
    rules: Any,
    bet: int | None = None,
    meters: Mapping[str, int] | None = None,
    full_strategy: bool = True,
    extra: Mapping[str, str] | None = None,
    directory: Path | None = None,
) -> str:
    """The JSON text of the analysis of ``rules`` (:func:`compute_json`): read from ``directory`` when stored
    there, else computed (and stored). Without a directory, computed. Only a computed answer is stored, so a
    bad input (a RuleError) is never found in the cache: it is raised again."""
    meters = dict(meters or {})
    extra = dict(extra or {})
    if directory is None:
        return compute_json(rules, bet, meters, full_strategy, extra)
    key = key_of(rules, bet, meters, full_strategy, extra)
    found = load(directory, key)
    if found is not None:
        return found
    text = compute_json(rules, bet, meters, full_strategy, extra)
    try:
        store(directory, key, text)
    except OSError as exc:  # a full or read-only disk costs the cache, never the answer
        log.warning("analysis cache: could not store in %s (%s)", directory, exc)
    return text


# --- the command line's shortcut: a request answered before Typer, the rules or NumPy are imported ------------

REQUESTS = "requests"
"""The subdirectory of the shortcut files: a command line -> the key of its answer."""


@functools.cache
def code_fingerprint() -> str:
    """The SHA-256 of the whole ``tablegames`` package's source (the command line's parsing included) and of
    where and when Typer was installed: what turns a command line into rules."""
    import importlib.util

    import tablegames

    root = Path(str(tablegames.__file__)).parent
    h = hashlib.sha256(f"request format {FORMAT}\n".encode())
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    spec = importlib.util.find_spec("typer")
    origin = Path(spec.origin) if spec is not None and spec.origin else None
    h.update(f"typer {origin} {origin.stat().st_mtime_ns if origin else 0}".encode())
    return h.hexdigest()


def request_of(argv: list[str], cwd: Path) -> dict[str, Any]:
    """What a command line's answer depends on besides the code: its words, the working directory and the
    content of every file a word (or the part after a word's ``=``) names, a game file or a pay table."""
    named: dict[str, str] = {}
    for word in argv:
        for text in {word, word.partition("=")[2]} - {""}:
            path = cwd / text
            try:
                is_file = path.is_file()
            except (OSError, ValueError):  # a word too long or with a NUL byte names no file
                continue
            if is_file:  # (a file that cannot be read: OSError, the caller's to handle)
                named[text] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"argv": list(argv), "cwd": str(cwd), "files": named, "code": code_fingerprint()}


def _request_path(directory: Path, request: Mapping[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
    return directory / REQUESTS / f"{digest[:32]}.json"


def remember(directory: Path, request: Mapping[str, Any], key: Mapping[str, Any]) -> None:
    """Note that ``request`` (:func:`request_of`) is answered by the text stored under ``key``."""
    path = _request_path(directory, request)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"request": request, "key": key}, f, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    files = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[MAX_FILES * 4 :]:
        old.unlink(missing_ok=True)


def recall(directory: Path, argv: list[str], cwd: Path) -> str | None:
    """The stored text answering this command line, or None: no note of it, or its answer is gone or not
    sound (:func:`load` checks the answer's key and checksum)."""
    try:
        request = request_of(argv, cwd)
        with _request_path(directory, request).open(encoding="utf-8") as f:
            note = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict) or note.get("request") != request or not isinstance(note.get("key"), dict):
        return None
    return load(directory, note["key"])
