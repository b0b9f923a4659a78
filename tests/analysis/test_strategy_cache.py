"""The disk cache of solved strategies (issue 24: the first hint exact at once after a restart): a stored
strategy advises exactly as the solved one at every decision tried, it is found only for its own rules, bet and
code, and a damaged file is solved again, never trusted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tablegames.analysis import strategy_cache
from tablegames.analysis.advice import advisor, optimal_strategy
from tablegames.engine import Bot, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules, registry
from tablegames.rules.definition import GameDefinition


def decisions(definition: GameDefinition, n: int = 6) -> list[tuple[object, int]]:
    """``n`` dealt rounds of the game waiting for seat 1's first decision."""
    rules = definition.make_rules()
    out: list[tuple[object, int]] = []
    for seed in range(200):
        r = Table(rules, source=SeededRandom(seed)).new_round()
        r.place_wager(1, r.main_wager(), 100)
        r.deal()
        if r.to_act == 1:
            out.append((r, 1))
            if len(out) == n:
                return out
    raise AssertionError(f"{definition.key}: no decision in 200 rounds")


@pytest.mark.parametrize("definition", registry.DEFINITIONS, ids=lambda d: d.key)
def test_a_stored_strategy_advises_exactly_as_the_solved_one(
    tmp_path: Path, definition: GameDefinition
) -> None:
    rules = definition.make_rules()
    solved = strategy_cache.solve_cached(rules, None, tmp_path)
    files = list(tmp_path.glob("*.strategy"))
    assert len(files) == 1 and files[0].name.startswith(definition.key)
    loaded = strategy_cache.load(tmp_path, rules, None)
    assert loaded is not None and loaded is not solved and type(loaded) is type(solved)
    for rnd, seat in decisions(definition):
        fresh = Bot(advisor(rnd, seat, solved)).hint(rnd, seat)  # type: ignore[arg-type]
        again = Bot(advisor(rnd, seat, loaded)).hint(rnd, seat)  # type: ignore[arg-type]
        assert fresh.values is not None and again.values == fresh.values and again.best == fresh.best


def test_found_only_for_its_own_rules_bet_and_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    definition = registry.DEFINITIONS[-1]
    rules = definition.make_rules()
    strategy_cache.store(tmp_path, rules, None, optimal_strategy(rules))
    assert strategy_cache.load(tmp_path, rules, None) is not None
    assert strategy_cache.load(tmp_path, rules, 500) is None  # another bet size
    other = next(
        make_rules(definition.key, {p.name: v})
        for p in definition.parameters
        for v in ("1", "2", "3", "5")
        if _differs(definition.key, p.name, v)
    )
    assert other != rules and strategy_cache.load(tmp_path, other, None) is None
    # the code the strategy was solved by changed: the file is not found
    monkeypatch.setattr(strategy_cache, "fingerprint", lambda: "another build")
    assert strategy_cache.load(tmp_path, rules, None) is None


def _differs(game: str, name: str, value: str) -> bool:
    try:
        return make_rules(game, {name: value}) != make_rules(game)
    except Exception:
        return False


@pytest.mark.parametrize("damage", ["truncated", "flipped", "header", "garbage"])
def test_a_damaged_file_is_solved_again_and_rewritten(tmp_path: Path, damage: str) -> None:
    rules = registry.DEFINITIONS[-1].make_rules()
    path = strategy_cache.store(tmp_path, rules, None, optimal_strategy(rules))
    data = path.read_bytes()
    header, body = data.split(b"\n", 1)
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":  # one byte of the pickle changed: the checksum catches it
        path.write_bytes(header + b"\n" + body[:100] + bytes([body[100] ^ 1]) + body[101:])
    elif damage == "header":  # another key in the header
        path.write_bytes(header.replace(b'"bet": null', b'"bet": 1') + b"\n" + body)
    else:
        path.write_bytes(b"\x00\xff not a strategy")
    assert strategy_cache.load(tmp_path, rules, None) is None
    strategy_cache.solve_cached(rules, None, tmp_path)
    assert path.read_bytes() == data  # solved again and stored whole
    assert strategy_cache.load(tmp_path, rules, None) is not None


def test_the_directory_keeps_the_most_recently_used(tmp_path: Path) -> None:
    for i in range(5):
        f = tmp_path / f"g-{i}.strategy"
        f.write_bytes(b"x")
        os.utime(f, (1_000 + i, 1_000 + i))
    gone = strategy_cache.prune(tmp_path, keep=3)
    assert sorted(p.name for p in gone) == ["g-0.strategy", "g-1.strategy"]
    assert sorted(p.name for p in tmp_path.glob("*.strategy")) == [
        "g-2.strategy",
        "g-3.strategy",
        "g-4.strategy",
    ]


def test_a_read_only_directory_costs_the_cache_not_the_strategy(tmp_path: Path) -> None:
    rules = registry.DEFINITIONS[-1].make_rules()
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert strategy_cache.solve_cached(rules, None, blocked / "sub") is not None


def test_the_server_hints_load_from_the_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` keeps its strategies on disk: a strategy the hints solved is a file, and after the memory is
    cleared (a restart) it is read back, not solved (the solver fails here if it is called)."""
    from tablegames.analysis import advice
    from tablegames.server import hints

    rules = registry.DEFINITIONS[-1].make_rules()
    hints.use_disk_cache(tmp_path)
    try:
        with hints._LOCK:
            hints._READY.clear()
        first = hints.strategy_for(rules, wait=True)
        assert first is not None and len(list(tmp_path.glob("*.strategy"))) == 1
        with hints._LOCK:
            hints._READY.clear()

        def no_solving(*_: object) -> object:
            raise AssertionError("solved again")

        monkeypatch.setattr(advice, "optimal_strategy", no_solving)
        again = hints.strategy_for(rules, wait=True)
        assert again is not None and again is not first and type(again) is type(first)
    finally:
        hints.use_disk_cache(None)
        with hints._LOCK:
            hints._READY.clear()
