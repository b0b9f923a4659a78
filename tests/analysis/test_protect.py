"""Game protection (issue 14): the exposure scenarios' exact EVs, the published anchor, nothing exposed = the
fair analysis, and each exact scenario cross-checked by the engine with an informed bot on seeded decks."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tablegames.analysis.api import analyze_game, analyzer
from tablegames.analysis.protect import ProtectionResult, game_protection, protect, scenarios
from tablegames.cli import app
from tablegames.engine import Bot, Table
from tablegames.randomness import SeededRandom
from tablegames.rules import make_rules
from tablegames.rules.common import RuleError
from tablegames.rules.definition import GameDefinition
from tablegames.rules.registry import DEFINITIONS

runner = CliRunner()

COMMUNITY_2 = Fraction(66142, 270725)  # Let It Ride, the second community card hole-carded: +24.43%


def test_let_it_ride_community_2_is_jacobsons_plus_24_43_percent() -> None:
    r = protect(make_rules("let-it-ride"), "community-2")
    print(f"Let It Ride community-2: player EV {r.player_ev} = {float(r.player_ev):+.6%}")
    assert r.exact and r.ci is None and r.rounds_simulated == 0
    assert f"{float(r.player_ev):+.2%}" == "+24.43%"  # E. Jacobson's published figure, to its digits
    assert r.player_ev == COMMUNITY_2
    assert r.edge == -COMMUNITY_2
    assert r.change == COMMUNITY_2 - analyze_game(make_rules("let-it-ride")).expected_value


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.key)
def test_share_1_exposes_nothing_and_is_the_fair_analysis_exactly(definition: GameDefinition) -> None:
    rules = make_rules(definition.key)
    r = protect(rules, "share=1")
    fair = analyze_game(rules).expected_value
    assert r.exact and r.player_ev == fair and r.fair_player_ev == fair
    assert r.change == 0 and r.decisions_changed == [] and r.change_frequency == 0
    assert r.cost_per_hour_cents == 0


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.key)
def test_every_game_lists_its_scenarios_and_share(definition: GameDefinition) -> None:
    rules = make_rules(definition.key)
    names = [s.name for s in scenarios(rules)]
    assert names[-2:] == ["share=2", "share=7"] and len(names) >= 4
    assert [s.name for s in scenarios(rules, template=True)] == [*names, "share=K"]
    assert all(protect(rules, name, sim_rounds=200).scenario == name for name in names[-2:])
    with pytest.raises(RuleError, match=r"unknown scenario 'nope'.*share=K \(K = 1 to 7\)"):
        protect(rules, "nope")
    with pytest.raises(RuleError, match="share=K needs K from 1 to 7"):
        protect(rules, "share=8")


EXPECTED = {  # exact player EVs per initial unit (measured; the engine cross-checks below tie them down)
    ("let-it-ride", "community-1"): Fraction(7027, 83300),
    ("let-it-ride", "both-community"): Fraction(87557, 216580),
    ("final-count", "peek-own"): Fraction(-49813, 7634445),
    ("final-count", "dealer-hole"): Fraction(-78706, 5453175),
    ("final-count", "share=2"): Fraction(-8741008961, 79016505750),
    ("one-eyed-flush", "dealer-hole-1"): Fraction(-9511374623, 84284272800),
    ("one-eyed-flush", "dealer-hole-both"): Fraction(-9964664093, 105355341000),
    ("one-eyed-flush", "next-card"): Fraction(353063929, 6078192750),
}


@pytest.mark.parametrize(
    "game, scenario",
    [
        ("let-it-ride", "community-1"),
        ("let-it-ride", "community-2"),
        ("let-it-ride", "both-community"),
        ("final-count", "peek-own"),
        ("final-count", "dealer-hole"),
        ("final-count", "share=2"),
        ("one-eyed-flush", "dealer-hole-1"),
        ("one-eyed-flush", "dealer-hole-both"),
        ("one-eyed-flush", "next-card"),
    ],
)
def test_exact_scenarios_gain_and_add_up(game: str, scenario: str) -> None:
    rules = make_rules(game)
    r = protect(rules, scenario, avg_bet_cents=1000, rounds_per_hour=50, seats=2)
    assert r.exact and isinstance(r.player_ev, Fraction)
    if (game, scenario) in EXPECTED:
        assert r.player_ev == EXPECTED[(game, scenario)]
    assert r.player_ev > r.fair_player_ev  # knowing more never hurts an optimal player; here it helps
    assert r.change == r.player_ev - r.fair_player_ev and r.edge == -r.player_ev
    assert math.isclose(r.cost_per_hour_cents, float(r.change) * 1000 * 50 * 2)
    assert r.decisions_changed and 0 < r.change_frequency <= 1
    assert all(c.fair != c.informed and 0 < c.frequency <= r.change_frequency for c in r.decisions_changed)
    data = json.loads(json.dumps(r.to_dict()))
    assert Fraction(data["player_ev_exact"]) == r.player_ev and data["exact"] is True


def test_let_it_ride_knowledge_is_ordered() -> None:
    rules = make_rules("let-it-ride")
    ev = {s: protect(rules, s).player_ev for s in ("community-1", "community-2", "both-community")}
    assert ev["community-1"] < ev["community-2"] < ev["both-community"]
    # both community cards known: ride both wagers exactly on a paying hand
    assert protect(rules, "both-community").decisions_changed[0].informed == "ride"


def test_share_k_is_simulated_with_its_interval_and_reproducible() -> None:
    rules = make_rules("let-it-ride")
    a = protect(rules, "share=3", sim_rounds=2_000, seed=5)
    b = protect(rules, "share=3", sim_rounds=2_000, seed=5)
    assert not a.exact and a.rounds_simulated == 2_000 and a.ci is not None
    assert a.ci[0] <= a.player_ev <= a.ci[1]
    assert a.player_ev == b.player_ev
    assert a.player_ev > float(a.fair_player_ev)  # the card removal is worth something
    assert a.to_dict()["player_ev_exact"] is None
    assert all(c["frequency_exact"] is None for c in a.to_dict()["decisions_changed"])  # sampled, not exact


# --- the engine with an informed bot ------------------------------------------------------------------


def engine_mean(game: str, scenario: str, rounds: int, seats: int = 1, seed: int = 14) -> tuple[float, float]:
    """Mean and standard error of seat 1's net per initial unit over seeded engine rounds, seat 1 played by
    the scenario's informed bot (the others by the fair optimal strategy)."""
    rules = make_rules(game)
    informed = game_protection(rules).informed_action(rules, scenario)
    found = analyzer(rules)
    strategy = found.optimal_strategy(rules)
    fair = Bot(lambda context: found.advise(strategy, context))
    table = Table(rules, seats=seats, source=SeededRandom(seed))
    total = total_sq = 0.0
    unit = 100
    for _ in range(rounds):
        rnd = table.new_round()
        for seat in range(1, seats + 1):
            rnd.place_wager(seat, rnd.main_wager(), unit)
        rnd.deal()
        while not rnd.is_over:
            seat = rnd.to_act
            action = informed(rnd, seat) if seat == 1 else fair.choose(rnd, seat)
            rnd.act(seat, action)
        s = rnd.seats[1]
        x = (s.returned - s.staked) / unit
        total += x
        total_sq += x * x
    mean = total / rounds
    return mean, math.sqrt((total_sq / rounds - mean * mean) / rounds)


@pytest.mark.parametrize(
    "game, scenario, rounds",
    [
        ("let-it-ride", "community-2", 30_000),
        ("let-it-ride", "community-1", 30_000),
        ("let-it-ride", "both-community", 30_000),
        ("final-count", "peek-own", 30_000),
        ("final-count", "dealer-hole", 30_000),
        ("one-eyed-flush", "dealer-hole-1", 8_000),
        ("one-eyed-flush", "dealer-hole-both", 8_000),
        ("one-eyed-flush", "next-card", 8_000),
    ],
)
def test_engine_with_an_informed_bot_agrees_within_4_se(game: str, scenario: str, rounds: int) -> None:
    r: ProtectionResult = protect(make_rules(game), scenario)
    mean, se = engine_mean(game, scenario, rounds)
    assert abs(mean - float(r.player_ev)) < 4 * se, (mean, se, float(r.player_ev))
    # and the bot really plays the informed strategy: fair play would be far off where the gain is large
    if float(r.change) > 8 * se:
        assert abs(mean - float(r.fair_player_ev)) > 4 * se


def test_final_count_share_2_engine_two_seats() -> None:
    r = protect(make_rules("final-count"), "share=2")
    mean, se = engine_mean("final-count", "share=2", 20_000, seats=2)
    assert abs(mean - float(r.player_ev)) < 4 * se


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, scenario",
    [("let-it-ride", "community-2"), ("final-count", "peek-own"), ("one-eyed-flush", "next-card")],
)
def test_engine_informed_bot_long(game: str, scenario: str) -> None:
    r = protect(make_rules(game), scenario)
    mean, se = engine_mean(game, scenario, 200_000 if game != "one-eyed-flush" else 60_000, seed=99)
    assert abs(mean - float(r.player_ev)) < 4 * se


# --- the command ----------------------------------------------------------------------------------------


def test_cli_table_and_json() -> None:
    res = runner.invoke(app, ["protect", "let-it-ride", "--scenario", "community-2", "--bet", "$10"])
    assert res.exit_code == 0, res.output
    assert "+24.4314%" in res.output and "66142/270725" in res.output and "wager 1" in res.output
    res = runner.invoke(app, ["protect", "final-count", "-s", "dealer-hole", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["game"] == "final-count" and data["scenario"] == "dealer-hole" and data["exact"] is True
    assert Fraction(data["player_ev_exact"]) == protect(make_rules("final-count"), "dealer-hole").player_ev
    assert math.isclose(data["player_ev"], float(Fraction(data["player_ev_exact"])))
    assert data["fair_player_ev"] == float(analyze_game(make_rules("final-count")).expected_value)
    res = runner.invoke(app, ["protect", "final-count", "-s", "share=3", "-f", "json", "--rounds", "500"])
    data = json.loads(res.output)
    assert data["exact"] is False and data["rounds_simulated"] == 500 and len(data["ci95"]) == 2


def test_cli_list() -> None:
    res = runner.invoke(app, ["protect", "one-eyed-flush", "--list", "--format", "json"])
    assert res.exit_code == 0, res.output
    names = [s["name"] for s in json.loads(res.output)["scenarios"]]
    assert names == ["dealer-hole-1", "dealer-hole-both", "next-card", "share=2", "share=7", "share=K"]
    res = runner.invoke(app, ["protect", "let-it-ride", "--list"])
    assert res.exit_code == 0 and "community-2" in res.output
    # without a game: every game with scenarios, each listed as it is alone
    res = runner.invoke(app, ["protect", "--list", "--format", "json"])
    assert res.exit_code == 0, res.output
    games = json.loads(res.output)["games"]
    assert [g["game"] for g in games] == [d.key for d in DEFINITIONS if d.protection is not None]
    assert len(games) == 4
    for g in games:
        alone = runner.invoke(app, ["protect", g["game"], "--list", "--format", "json"])
        assert json.loads(alone.output)["scenarios"] == g["scenarios"]
    res = runner.invoke(app, ["protect", "--list"], env={"COLUMNS": "120"})
    assert res.exit_code == 0 and all(f"{d.key}: exposure scenarios" in res.output for d in DEFINITIONS)


@pytest.mark.parametrize(
    "args, message",
    [
        (["protect", "poker", "--scenario", "dealer-1"], "unknown game 'poker'"),
        (["protect", "let-it-ride", "--scenario", "peek-own"], "unknown scenario 'peek-own'"),
        (["protect", "let-it-ride", "--scenario", "share=0"], "share=K needs K"),
        (["protect", "let-it-ride"], "name a --scenario"),
        (["protect", "let-it-ride", "-s", "community-2", "--bet", "ten"], "not an amount"),
    ],
)
def test_cli_errors_exit_2(args: list[str], message: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    if "unknown scenario" in message:
        assert "community-1" in res.output and "share=K" in res.output  # the known ones are listed


def test_let_it_ride_share_solves_each_sampled_deal_exactly() -> None:
    """The share=K sampler's per-deal sums equal a plain loop over the remaining community cards calling the
    rules' ``lir_hand`` (informed: best of both decisions; fair: the fair strategy's decisions)."""
    import numpy as np

    from tablegames.analysis import let_it_ride as lir
    from tablegames.analysis.common import colex_of
    from tablegames.analysis.protect_let_it_ride import _share_batch, hand5
    from tablegames.rules.let_it_ride import lir_hand

    sol = lir._solve(make_rules("let-it-ride"), None)
    win = sol.win
    rng = np.random.default_rng(3)
    for m in (3, 6):
        perm = np.argsort(rng.random((3, 52)), axis=1)
        player = np.sort(perm[:, :3], axis=1)
        inf, fair, *_ = _share_batch(sol, hand5(), player, perm[:, 3 : 3 + m])
        for i in range(3):
            p = player[i].tolist()
            deck = [c for c in range(52) if c not in perm[i, : 3 + m].tolist()]

            def sums(s: int, c1: int, p: list[int] = p, deck: list[int] = deck) -> list[int]:
                hands = [int(lir_hand([*p, c1, c2])) for c2 in deck if c2 != c1]
                return [sum(int(win[s + k, h]) for h in hands) for k in (1, 2)]

            best = max(sum(max(sums(s, c1)) for c1 in deck) for s in (0, 1))
            s_fair = int(sol.ride1[colex_of(p)])
            fair_sum = sum(sums(s_fair, c1)[int(sol.ride2[s_fair, colex_of([*p, c1])])] for c1 in deck)
            assert (int(inf[i]), int(fair[i])) == (best, fair_sum)


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.key)
def test_a_zero_card_exposure_through_each_games_machinery_is_the_fair_analysis_exactly(
    definition: GameDefinition,
) -> None:
    """The scenario ``none`` (nothing seen) runs the game's own exposure enumeration (Let It Ride's ordered
    deals, One Eyed Flush's Numba kernel, Final Count's value classes): it must give the fair EV exactly."""
    rules = make_rules(definition.key)
    exposure = game_protection(rules).solve(rules, "none", sim_rounds=1, seed=1)
    assert exposure.exact and exposure.player_ev == analyze_game(rules).expected_value
    assert exposure.decisions_changed == () and exposure.change_frequency in (None, 0)


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(52)))
def test_one_eyed_flush_informed_options_average_to_the_analyzers_options(deck: list[int]) -> None:
    """Law of total expectation, option by option: the informed kernel's value of standing and of each discard,
    averaged over the seen card (a dealer's face-down card, both, or the next card), is exactly the exact
    analyzer's value of that option; with nothing seen it is that value itself."""
    import numpy as np

    from tablegames.analysis import one_eyed_flush as oefa
    from tablegames.analysis import one_eyed_flush_kernel as kern
    from tablegames.analysis.protect_one_eyed_flush import _kernels

    rules = make_rules("one-eyed-flush")
    sol = oefa._solve(rules)
    t = sol.tables
    options = _kernels()["options"]
    cards, flip = deck[:3], deck[3]
    key = sorted(oefa.card_class(c) for c in cards)
    f = oefa.card_class(flip)
    base = t.counts.copy()
    for x in (*key, f):
        base[x] -= 1
    fair = sol.ev[(*key, f)]  # over D = 48 * 47 * 46 * 45

    def run(mode: int, g: int, h: int, y: int, rem: np.ndarray) -> tuple[np.ndarray, int]:
        ev = np.zeros(4, dtype=np.int64)
        n = options(mode, *key, f, g, h, y, rem.copy(), *kern.table_args(t), sol.pay, ev)
        return ev, n

    ev, n = run(3, -1, -1, -1, base)
    assert n == oefa.D and (ev == fair).all()
    for mode in (0, 2):  # one card seen: a face-down dealer card, or the next card
        total = np.zeros(4, dtype=np.int64)
        for k in range(oefa.NC):
            if base[k]:
                rem = base.copy()
                rem[k] -= 1
                ev, n = run(mode, k if mode == 0 else -1, -1, k if mode == 2 else -1, rem)
                assert n == 47 * 46 * 45
                total += base[k] * ev
        assert (total == fair).all(), mode
    total = np.zeros(4, dtype=np.int64)
    for g in range(oefa.NC):
        for h in range(oefa.NC):
            rem = base.copy()
            wg = rem[g]
            rem[g] -= 1
            wh = rem[h] if wg > 0 else 0
            if wh <= 0:
                continue
            rem[h] -= 1
            ev, n = run(1, g, h, -1, rem)
            total += wg * wh * ev
    assert (total == fair).all()


@pytest.mark.parametrize("options", [{}, {"face-value": "0"}], ids=["default", "face-value=0"])
def test_final_count_seen_card_values_add_up_to_the_analyzers_options(options: dict[str, str]) -> None:
    """Over every situation of the exact analyzer: peek-own's and dealer-hole's values of standing and of
    turning, summed over the seen card, are the analyzer's values of those options exactly."""
    import numpy as np

    from tablegames.analysis import final_count as fca
    from tablegames.analysis.protect_final_count import seen_values

    rules = make_rules("final-count", options)
    sol = fca._solve(rules)
    checked = 0
    for sit, (_w, stand, turn, _turns) in sol.table.items():
        if stand is None:
            continue
        r = sol.counts.copy()
        for v in (*sit.player, *sit.dealer):
            r[v] -= 1
        for scenario in ("peek-own", "dealer-hole", "none"):
            s_val, t_val = seen_values(sit.player, sit.dealer, r, scenario)
            assert (int(np.sum(s_val)), int(np.sum(t_val))) == (stand, turn)
        checked += 1
    assert checked > 1000
