"""``analysis.sweep`` and ``tablegames sweep`` (issue 15): the figures over one or two parameters, every point
solved exactly, as a table, JSON and a PNG plot."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablegames.analysis.api import analyze_game
from tablegames.analysis.figures import Figures
from tablegames.analysis.sweep import figure, parse_vary, plot, sweep
from tablegames.cli import app
from tablegames.rules import RuleError, make_rules, registry
from tablegames.rules.parameters import Parameter, integer, money

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Toy:
    limit: int = 14
    pays: int = 1
    prize: int = 500
    game = "toy"


PARAMS: tuple[Parameter, ...] = (
    integer("limit", "limit", 3, 27, "the bust limit"),
    integer("pays", "pays", 0, 50, "a win pays X to 1", structural=False),
    money("prize", "prize", "a prize"),
)


def toy(r: Toy) -> Figures:
    if r.limit == 13:
        raise RuleError("limit 13 is unlucky")
    edge = Fraction(r.limit, 100) - Fraction(r.pays, 50)
    return Figures(edge, edge / 2, Fraction(1, r.limit), float(r.pays), "main")


def test_parse_vary_ranges_lists_and_choices() -> None:
    assert parse_vary("limit=10..16:3", PARAMS).values == (10, 13, 16)
    assert parse_vary("limit=25..27", PARAMS).labels == ("25", "26", "27")
    assert parse_vary("limit=4,9", PARAMS).values == (4, 9)
    assert parse_vary("prize=$5..$6:50", PARAMS).values == (500, 550, 600)
    fc = registry.get("final-count").parameters
    assert parse_vary("face-value", fc).labels == ("10", "0")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "limit=20..30",
            r"rule 'limit' \(the bust limit\): 30 is out of range; allowed: a whole number from 3",
        ),
        ("limit=9..5", "the range is empty"),
        ("limit=3..9:0", "the step must be a positive"),
        ("limit=3..9:x", "the step 'x' is not a whole number"),
        ("limit", "give values"),
        ("limt=3..4", "unknown rule 'limt'; known rules: limit, pays, prize"),
        ("pays=0..50000:1", "out of range"),
    ],
)
def test_parse_vary_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        parse_vary(text, PARAMS)


def test_two_parameters_make_a_grid_of_exact_points() -> None:
    result = sweep(Toy(), ["limit=12..14", "pays=0..2"], parameters=PARAMS, evaluate=toy)
    assert result.names == ("limit", "pays")
    assert [p.labels for p in result.points] == [(str(a), str(b)) for a in (12, 13, 14) for b in (0, 1, 2)]
    for pt in result.points:
        limit, pays = (int(x) for x in pt.labels)
        if limit == 13:
            assert pt.figures is None and "unlucky" in pt.error
        else:
            assert pt.figures == toy(Toy(limit, pays))
    data = result.to_json()
    assert data["points"][0] == {"values": {"limit": "12", "pays": "0"}, **toy(Toy(12, 0)).to_json()}
    assert data["points"][3]["error"] == "limit 13 is unlucky"
    with pytest.raises(RuleError, match="names limit twice"):
        sweep(Toy(), ["limit=3..4", "limit=5..6"], parameters=PARAMS, evaluate=toy)
    with pytest.raises(RuleError, match="one or two parameters"):
        sweep(Toy(), ["limit=3", "pays=1", "prize=5"], parameters=PARAMS, evaluate=toy)


def test_plots_are_pngs(tmp_path: Path) -> None:
    import matplotlib.image

    one = sweep(Toy(), ["pays=0..10"], parameters=PARAMS, evaluate=toy)
    two = sweep(Toy(), ["limit=10..16", "pays=0..5"], parameters=PARAMS, evaluate=toy)
    for name, result in (("one.png", one), ("two.png", two)):
        plot(result, tmp_path / name, "toy")
        assert (tmp_path / name).read_bytes()[:8] == PNG
        image = matplotlib.image.imread(tmp_path / name)
        assert image.shape[0] > 300 and image.shape[1] > 500
        assert image[..., :3].std() > 0.05, f"{name} is blank"


def test_a_line_equal_to_the_house_edge_says_so_and_the_std_dev_axis_starts_at_zero() -> None:
    """One Eyed Flush's element of risk is its house edge: the two lines coincide, so the legend says so (the
    dashed hollow markers show through); the standard deviation's axis starts at 0, so a flat one looks flat."""

    def even(r: Toy) -> Figures:
        edge = Fraction(r.limit, 100) - Fraction(r.pays, 50)
        return Figures(edge, edge, Fraction(1, 3), 0.99 + r.pays / 1000, "main")

    for evaluate, expected in ((even, "element of risk (= house edge)"), (toy, "element of risk")):
        fig = figure(sweep(Toy(), ["pays=0..4"], parameters=PARAMS, evaluate=evaluate), "toy")
        left, right = fig.axes
        labels = [t.get_text() for t in left.get_legend().get_texts()]
        assert labels == ["house edge", expected, "hit frequency", "std dev"]
        assert right.get_ylim()[0] == 0 and right.get_ylim()[1] > 0.994


def test_final_count_face_value_sweep_is_the_exact_analysis() -> None:
    rules = make_rules("final-count")
    result = sweep(rules, ["face-value"])
    assert [p.figures.house_edge for p in result.points if p.figures] == [
        analyze_game(rules).house_edge,
        analyze_game(make_rules("final-count", {"face-value": "0"})).house_edge,
    ]
    first = result.points[0].figures
    assert first is not None and first.hit_frequency == analyze_game(rules).p_win


def test_sweep_command_table_json_and_plot(tmp_path: Path) -> None:
    out_png = tmp_path / "fc.png"
    res = runner.invoke(
        app, ["sweep", "final-count", "--vary", "face-value", "--format", "json", "--plot", str(out_png)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["vary"] == ["face-value"] and [p["values"]["face-value"] for p in data["points"]] == [
        "10",
        "0",
    ]
    assert data["points"][1]["house_edge_exact"] == "60647/1347255"
    assert out_png.read_bytes()[:8] == PNG
    res = runner.invoke(app, ["sweep", "final-count", "--vary", "face-value"])
    assert res.exit_code == 0
    for text in ("house edge", "element of risk", "hit frequency", "std dev", "11.1259%", "4.5015%"):
        assert text in res.output
    res = runner.invoke(
        app, ["sweep", "final-count", "--vary", "face-value", "--plot", str(tmp_path / "x.jpg")]
    )
    assert res.exit_code == 2 and "PNG" in res.output and not (tmp_path / "x.jpg").exists()


def test_sweep_command_heat_map_of_two_parameters(tmp_path: Path) -> None:
    known = {p.name for p in registry.get("final-count").parameters}
    if not {"value.K", "tie"} <= known:
        pytest.skip("final-count has no parameters 'value.K' and 'tie' yet (the game's branch adds them)")
    res = runner.invoke(
        app,
        [
            "sweep",
            "final-count",
            "--vary",
            "value.K=0..10:5",
            "--vary",
            "tie",
            "--plot",
            str(tmp_path / "h.png"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "h.png").read_bytes()[:8] == PNG
