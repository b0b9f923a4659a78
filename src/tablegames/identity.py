"""What program produced a result: the package version, the git commit, and SHA-256 digests of the installed
source and of a rule set (issue 22: a math report a test lab can tie to the program that made it).

Standard library only (a module beside ``cards``: every layer may use it).

The source digest is over every file of the installed package directory (``tablegames/``), except
``__pycache__`` folders and ``*.pyc`` files, in the order of their relative POSIX paths compared as UTF-8
bytes; it is the SHA-256 of the manifest ``sha256sum`` would print for them (``<hex digest>  <path>\\n`` a
file). So a reviewer reproduces it from the package folder with::

    find . -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -printf '%P\\n' | LC_ALL=C sort \\
        | xargs sha256sum | sha256sum

>>> manifest_digest([("a.py", b"x"), ("b/c.py", b"")]) == manifest_digest([("b/c.py", b""), ("a.py", b"x")])
True
>>> canonical_rule_set("demo", {"b": "2", "a": "1"})
'{"game":"demo","rules":{"a":"1","b":"2"}}'
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGE = "tablegames"
PACKAGE_DIR = Path(__file__).resolve().parent


def version() -> str:
    """The installed distribution's version (``importlib.metadata``), or ``0+unknown`` when the package runs
    without being installed."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(PACKAGE_DIR), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit checked out when the package runs from a git checkout (an editable install), else None."""
    return _git("rev-parse", "HEAD")


@lru_cache(maxsize=1)
def git_dirty() -> bool | None:
    """Whether the checkout's package source differs from its commit (None outside a checkout)."""
    if git_commit() is None:
        return None
    status = _git("status", "--porcelain", "--", ".")
    return None if status is None else bool(status)


def source_files(root: Path = PACKAGE_DIR) -> list[tuple[str, Path]]:
    """The package's source files as (relative POSIX path, path), in the canonical (byte) order."""
    found = [
        (p.relative_to(root).as_posix(), p)
        for p in root.rglob("*")
        if p.is_file() and p.suffix != ".pyc" and "__pycache__" not in p.relative_to(root).parts
    ]
    return sorted(found, key=lambda item: item[0].encode("utf-8"))


def manifest_digest(files: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 of the ``sha256sum`` manifest of ``files`` (relative path, content), sorted by path bytes."""
    lines = [
        f"{hashlib.sha256(data).hexdigest()}  {name}\n"
        for name, data in sorted(files, key=lambda item: item[0].encode("utf-8"))
    ]
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def source_sha256() -> str:
    """The digest of the installed package's source (the module docstring says how to reproduce it)."""
    return manifest_digest((name, path.read_bytes()) for name, path in source_files())


def canonical_rule_set(game: str, values: Mapping[str, str]) -> str:
    """A rule set as canonical text: compact JSON of the game's key and every parameter's value as text,
    keys sorted."""
    return json.dumps({"game": game, "rules": dict(values)}, sort_keys=True, separators=(",", ":"))


def rules_sha256(game: str, values: Mapping[str, str]) -> str:
    """SHA-256 of :func:`canonical_rule_set` (UTF-8): the same rules give the same digest, whatever file
    or options they came from."""
    return hashlib.sha256(canonical_rule_set(game, values).encode("utf-8")).hexdigest()


def software(game: str, values: Mapping[str, str], game_file: str | Path | None = None) -> dict[str, Any]:
    """The ``software`` block of a report: version, commit (None outside a checkout), whether the checkout
    has uncommitted changes, the source digest, the rule set's digest, and the game file's own digest."""
    return {
        "package": PACKAGE,
        "version": version(),
        "commit": git_commit(),
        "dirty": git_dirty(),
        "source_sha256": source_sha256(),
        "source_sha256_method": "sha256 of the sha256sum manifest of the package's files (no __pycache__, "
        "no .pyc), sorted by relative path bytes",
        "rules_sha256": rules_sha256(game, values),
        "rules_sha256_method": "sha256 of compact JSON {game, rules: every parameter as text}, keys sorted",
        "game_file": None if game_file is None else str(game_file),
        "game_file_sha256": None
        if game_file is None
        else hashlib.sha256(Path(game_file).read_bytes()).hexdigest(),
    }
