"""``analyze --format json``'s disk cache (analysis/result_cache.py, issue 28): the text read back is the text
computed, byte for byte, for every game; a damaged file, a file of another key or of other code is never
used; a bad input is never stored; the cache can be turned off."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablegames
from tablegames.analysis import result_cache
from tablegames.analysis.api import analyze_game
from tablegames.cli import app
from tablegames.rules import GAMES, make_rules

runner = CliRunner()


def old_output(game: str, *args: str) -> str:
    """What ``analyze GAME --format json`` printed before the cache: the analysis, ``json.dumps``'d."""
    rules = make_rules(game)
    bet = int(args[args.index("--bet") + 1]) if "--bet" in args else None
    a = analyze_game(rules, bet, {}, full_strategy="--no-full-strategy" not in args)
    return json.dumps(a.to_json()) + "\n"


def run(*args: str) -> str:
    res = runner.invoke(app, ["analyze", *args, "--format", "json"])
    assert res.exit_code == 0, res.output
    return res.stdout


def files(d: Path) -> list[Path]:
    return sorted(d.glob(f"*{result_cache.SUFFIX}"))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(result_cache.ENV, str(tmp_path))
    return tmp_path / "analysis"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_reads_back_the_text_it_computed(game: str, cache: Path) -> None:
    expected = old_output(game)
    first = run(game)  # computed and stored
    assert first == expected and len(files(cache)) == 1
    again = run(game)  # read from the file
    assert again == expected
    assert run(game, "--no-cache") == expected  # and without the cache at all


def test_each_variant_is_its_own_entry(cache: Path) -> None:
    """The bet, the decision table's presence and the rules are in the key: no variant answers for another."""
    game = GAMES[0]
    plain, lean, sized = run(game), run(game, "--no-full-strategy"), run(game, "--bet", "2500")
    assert len(files(cache)) == 3 and len({plain, lean, sized}) == 3
    assert lean == old_output(game, "--no-full-strategy") and sized == old_output(game, "--bet", "2500")
    assert [run(game), run(game, "--no-full-strategy"), run(game, "--bet", "2500")] == [plain, lean, sized]


def _the_file(cache: Path, game: str) -> Path:
    run(game)
    (path,) = files(cache)
    return path


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b.replace(b'"house_edge": ', b'"house_edge": 1', 1),  # a figure changed (checksum)
        lambda b: b"not json\n" + b.split(b"\n", 1)[1],  # header unreadable
        lambda b: b"\xff\xfe" + b,  # not text
        lambda b: b"",  # empty
    ],
    ids=["truncated", "body-changed", "bad-header", "not-utf8", "empty"],
)
def test_a_damaged_file_is_computed_again_and_replaced(
    cache: Path, damage: Callable[[bytes], bytes], caplog: pytest.LogCaptureFixture
) -> None:
    game = GAMES[-1]
    path = _the_file(cache, game)
    good = path.read_bytes()
    path.write_bytes(damage(good))
    with caplog.at_level(logging.WARNING, "tablegames.analysis"):
        assert run(game) == old_output(game)
    assert "computing again" in caplog.text
    assert path.read_bytes() == good  # stored again, sound


def test_a_file_of_another_key_is_not_used(cache: Path) -> None:
    """A sound file (checksum right) whose header names another rule set, put at this key's path."""
    game = GAMES[-1]
    path = _the_file(cache, game)
    header = path.read_bytes().split(b"\n", 1)[0]
    key = json.loads(header)["key"]
    key["bet"] = 12345
    forged = b'{"forged": 1}'
    path.write_bytes(
        json.dumps({"key": key, "sha256": hashlib.sha256(forged).hexdigest()}).encode() + b"\n" + forged
    )
    assert run(game) == old_output(game)


def test_other_code_misses(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another code fingerprint: another file (and the old one is never read)."""
    game = GAMES[-1]
    before = _the_file(cache, game)
    monkeypatch.setattr(result_cache, "fingerprint", lambda: "0" * 64)
    key = result_cache.key_of(make_rules(game), None, {}, True, {})
    assert result_cache.load(cache, key) is None
    assert run(game) == old_output(game)
    assert len(files(cache)) == 2 and before in files(cache)


def test_the_fingerprint_follows_the_source() -> None:
    """It hashes the analysis code's source (here: it changes with FORMAT, and is stable)."""
    first = result_cache.fingerprint()
    assert first == result_cache.fingerprint() and len(first) == 64
    result_cache.fingerprint.cache_clear()
    old = result_cache.FORMAT
    try:
        result_cache.FORMAT = old + 1
        assert result_cache.fingerprint() != first
    finally:
        result_cache.FORMAT = old
        result_cache.fingerprint.cache_clear()
    assert result_cache.fingerprint() == first


def test_a_bad_input_is_never_stored(cache: Path) -> None:
    """An unknown meter is refused (exit 2) every time: only computed answers are stored."""
    for _ in range(2):
        res = runner.invoke(app, ["analyze", GAMES[0], "--meter", "nosuch=5", "--format", "json"])
        assert res.exit_code == 2 and "unknown meter" in res.output
    assert files(cache) == []


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(result_cache.ENV, "")
    assert result_cache.default_directory() is None
    monkeypatch.setenv(result_cache.ENV, str(tmp_path))
    run(GAMES[-1], "--no-cache")
    assert not (tmp_path / "analysis").exists()
    monkeypatch.delenv(result_cache.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert result_cache.default_directory() == tmp_path / "xdg" / "tablegames" / "analysis"


def test_an_unwritable_directory_costs_the_cache_not_the_answer(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    rules = make_rules(GAMES[-1])
    text = result_cache.analysis_json(rules, directory=blocker / "analysis")
    assert text + "\n" == old_output(GAMES[-1])


def test_prune_keeps_the_most_recently_used(tmp_path: Path) -> None:
    for i in range(5):
        p = tmp_path / f"x-{i}{result_cache.SUFFIX}"
        p.write_text("x")
        os.utime(p, (1000 + i, 1000 + i))
    gone = result_cache.prune(tmp_path, keep=3)
    assert sorted(p.name for p in gone) == [f"x-{i}{result_cache.SUFFIX}" for i in (0, 1)]
    assert len(files(tmp_path)) == 3


def main_run(cwd: Path, cache_root: Path, *argv: str) -> tuple[str, list[str]]:
    """``tablegames ARGV`` in a fresh process (as the script runs it): its output, and the modules it imported
    of NumPy, Numba, Typer, the rules and the server."""
    probe = (
        "import atexit, json, sys\n"
        "heavy = ('numpy', 'numba', 'typer', 'tablegames.rules', 'tablegames.server')\n"
        "atexit.register(lambda: sys.stderr.write(json.dumps(sorted({m for m in sys.modules "
        "if m.startswith(heavy) and m.count('.') <= 1}))))\n"
        f"sys.argv = ['tablegames', *{list(argv)!r}]\n"
        "from tablegames.cli import main\n"
        "main()\n"
    )
    src = str(Path(tablegames.__file__).resolve().parents[1])  # this tree's, from any working directory
    path = os.pathsep.join([src, *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, result_cache.ENV: str(cache_root), "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True, cwd=cwd
    )
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1])


def test_the_command_line_run_again_imports_nothing_heavy(tmp_path: Path) -> None:
    """Run by the script a second time, the same command line is answered from the cache before Typer, the
    rules or NumPy are imported (issue 28), with the same text."""
    game = GAMES[0]
    args = ("analyze", game, "--format", "json")
    first, loaded = main_run(tmp_path, tmp_path / "c", *args)
    assert first == old_output(game) and "numpy" in loaded and "typer" in loaded
    again, loaded = main_run(tmp_path, tmp_path / "c", *args)
    assert again == first and loaded == []
    _, loaded = main_run(tmp_path, tmp_path / "c", *args, "--no-cache")
    assert "numpy" in loaded  # --no-cache: computed


def test_a_changed_game_file_is_not_answered_from_the_note(tmp_path: Path) -> None:
    """The note of a command line holds the content of the files it names: the same words on an edited game
    file are a new request (parsed, analysed: the new rules' figures)."""
    from tablegames.rules.gamefile import GameFile, dumps

    game = GAMES[-1]
    default = make_rules(game)
    name, value = next((k, str(v)) for k, v in default.describe().items() if str(v).isdigit())
    other = make_rules(game, {name: str(int(value) + 1)})
    path = tmp_path / "g.toml"
    args = ("analyze", "--game-file", "g.toml", "--format", "json")
    outputs = []
    for rules in (default, other, default):
        path.write_text(dumps(GameFile(game, "mine", rules)))
        text, _ = main_run(tmp_path, tmp_path / "c", *args)
        outputs.append(json.loads(text))
    assert outputs[0]["rules"][name] == value and outputs[1]["rules"][name] == str(int(value) + 1)
    assert outputs[1]["house_edge_exact"] != outputs[0]["house_edge_exact"]
    assert outputs[2] == outputs[0]  # (answered from the note of the first run)


def test_a_note_whose_answer_is_damaged_falls_back(tmp_path: Path) -> None:
    game = GAMES[-1]
    args = ("analyze", game, "--format", "json")
    first, _ = main_run(tmp_path, tmp_path / "c", *args)
    (answer,) = files(tmp_path / "c" / "analysis")
    answer.write_bytes(answer.read_bytes()[:-10])
    again, loaded = main_run(tmp_path, tmp_path / "c", *args)
    assert again == first and "typer" in loaded  # parsed and read (or computed) again
    notes = list((tmp_path / "c" / "analysis" / result_cache.REQUESTS).glob("*.json"))
    assert len(notes) == 1
    notes[0].write_text("{not json")
    assert main_run(tmp_path, tmp_path / "c", *args)[0] == first


def test_the_test_runner_notes_no_command_line(cache: Path) -> None:
    """Invoked other than by ``main`` (a test's runner), the command has no command line to note."""
    run(GAMES[-1])
    assert not (cache / result_cache.REQUESTS).exists()


def test_a_request_names_only_the_files_its_words_name(tmp_path: Path) -> None:
    """A word (or the part after its ``=``) naming a file brings the file's content into the request; a word
    too long to be a path, or with a NUL byte, is just a word."""
    (tmp_path / "p.toml").write_text("x")
    words = ["analyze", "--paytable=p.toml", "x" * 5000, "a\0b", "--format", "json"]
    request = result_cache.request_of(words, tmp_path)
    assert request["files"] == {"p.toml": hashlib.sha256(b"x").hexdigest()}
    (tmp_path / "p.toml").write_text("y")
    assert result_cache.request_of(words, tmp_path) != request
    assert result_cache.recall(tmp_path / "c", words, tmp_path) is None  # no note: no answer
