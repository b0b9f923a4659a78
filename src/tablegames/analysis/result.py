"""The analysis's results as typed, closed models (issue 23): :class:`AnalysisResult` is ``analyze --format json``
(``Analysis.to_json``; ``schemas/analysis.schema.json`` is made from it: ``tablegames docs --write``), and
:class:`LabFigures` is the Math lab's answer (``POST /lab/analyze``), made by :func:`lab_figures` from the same
analysis. The analysis layer's own models: nothing here imports the server."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tablegames.analysis.charts import order_columns
from tablegames.analysis.common import Analysis, ReturnTable, outcome_json


class Closed(BaseModel):
    """Every field named, no other allowed."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Probability = Annotated[float, Field(ge=0, le=1)]
Exact = Annotated[str, Field(pattern=r"^-?[0-9]+(/[0-9]+)?$", description="an exact fraction, as text")]


class OutcomeRow(Closed):
    """A row of a return table; ``category`` (a main wager's row only) is the engine's settlement outcome of the
    main wager, exactly a label of ``simulate --format json`` under ``outcomes.<main wager>``."""

    outcome: str
    category: str | None = None  # win, push, lose, bust, fold, dealer-does-not-qualify...
    combinations: int = Field(ge=0)
    probability: Probability
    payout: float  # net result in units of the initial main wager
    contribution: float
    contribution_exact: Exact


class SideBetResult(Closed):
    house_edge: float
    house_edge_exact: Exact
    return_: float = Field(alias="return", ge=0)
    total_combinations: int = Field(ge=1)
    outcomes: list[OutcomeRow]
    notes: list[str]
    # a jackpot's (One Eyed Flush): the meter it is figured at and where it breaks even
    meter_cents: int | None = None
    wager_cents: int | None = None
    break_even_meter_cents: float | None = None
    long_run_return_at_reset: float | None = None  # (also Let It Ride's progressive) with the meters' shares
    # Let It Ride's progressive, at its linked meters
    meters_cents: dict[str, int] | None = None
    return_fixed_prizes: float | None = None
    return_at_reset: float | None = None
    return_at_meters: float | None = None
    break_even_mega_cents: float | None = None
    envy_value_per_extra_player: float | None = None
    meter_shares: float | None = None


# --- the full decision tables (``--full-strategy``), one row shape per game -----------------------------


class LirFirstRow(Closed):
    cards: str
    hands: int
    pull: float
    ride: float
    best: Literal["pull", "ride"]


class PullRide(Closed):
    pull: float
    ride: float


class LirSecondRow(Closed):
    cards: str
    sets: int
    bet1_pulled: PullRide
    bet1_up: PullRide
    best: Literal["pull", "ride"]
    best_bet1_up: Literal["pull", "ride"]


class LirTable(Closed):
    bet1: list[LirFirstRow]
    bet2: list[LirSecondRow]


class OefRow(Closed):
    cards: str
    flip: str
    deals: int
    options: dict[str, float]  # action -> EV
    best: str


class FcRow(Closed):
    player_values: list[int]
    dealer_values: list[int]
    combinations: int
    stand: float | None
    turn: float
    best: Literal["stand", "turn"]


class TcpRow(Closed):
    hand: str
    combinations: int
    play: float
    play_min: float
    play_max: float
    fold: float
    best: Literal["play", "fold", "depends"]


class Strategy(Closed):
    """The optimal strategy: its summary in words, the game's own figures and its chart; with
    ``--full-strategy`` every decision (``table``)."""

    summary: list[str]
    chart: dict[str, dict[str, str]] | None = None  # row -> column -> the choice
    table: LirTable | list[OefRow] | list[FcRow] | list[TcpRow] | None = None
    p_ride_bet1: Probability | None = None  # Let It Ride
    p_ride_bet2: Probability | None = None
    ev_bet1: float | None = None
    ev_bet1_when_ridden: float | None = None
    ev_bet2: float | None = None
    differences_from_published: dict[str, int] | None = None
    p_draw: Probability | None = None  # One Eyed Flush
    p_turn_by_choice: Probability | None = None  # Final Count
    p_play: Probability | None = None  # Three Card Poker


class AnteBonus(Closed):
    paytable: str
    expected_value_per_ante: float
    expected_value_per_ante_exact: Exact


class AnalysisResult(Closed):
    """Exact analysis of one game's main wager, optimal strategy and side bets (RULES.md assumptions: heads-up,
    full deck, optimal strategy, cautious ties). Fractions of a unit, never percents."""

    model_config = ConfigDict(title="tablegames analyze --format json")

    game: str
    rules: dict[str, str]
    rule_set: str | None = None  # the game file's rule-set name (only with --game-file)
    assumptions: list[str]
    unit_cents: int | None = Field(ge=1)
    house_edge: float = Field(ge=-1, le=1, description="expected loss / initial main wager, as a fraction")
    house_edge_exact: Exact
    expected_value: float
    element_of_risk: float = Field(ge=-1, le=1)
    average_wager: float = Field(ge=1)
    average_wager_exact: Exact
    std_dev: float = Field(ge=0)
    p_win: Probability
    p_push: Probability
    p_loss: Probability
    p_exact: dict[Literal["win", "push", "loss"], Exact]
    total_combinations: int = Field(ge=1)
    outcomes: list[OutcomeRow] = Field(min_length=1)
    strategy: Strategy
    side_bets: dict[str, SideBetResult]
    notes: list[str]
    house_edge_by_bet: dict[str, float] | None = None  # Let It Ride: by wager size in cents (the payout cap)
    ante_bonus: AnteBonus | None = None  # Three Card Poker


def analysis_schema() -> dict[str, Any]:
    """``schemas/analysis.schema.json``: the JSON Schema of :class:`AnalysisResult`."""
    schema = AnalysisResult.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tablegames.example/schemas/analysis.schema.json",
        **schema,
    }


def analysis_schema_text() -> str:
    """The schema as the file holds it: one line per top-level key, per property and per definition."""

    def block(items: Mapping[str, Any], indent: str) -> str:
        lines = [f"{indent}{json.dumps(k)}: {json.dumps(v)}" for k, v in items.items()]
        return "{\n" + ",\n".join(lines) + "\n" + indent[:-2] + "}"

    top = [
        f"  {json.dumps(k)}: " + (block(v, "    ") if k in ("properties", "$defs") else json.dumps(v))
        for k, v in analysis_schema().items()
    ]
    return "{\n" + ",\n".join(top) + "\n}\n"


# --- the Math lab's answer --------------------------------------------------------------------------------


class LabSideBet(Closed):
    name: str
    house_edge: float
    house_edge_exact: Exact
    return_: float = Field(alias="return")
    hit_frequency: Probability
    hit_frequency_exact: Exact
    std_dev: float
    outcomes: list[OutcomeRow]


class ChartRow(Closed):
    label: str
    cells: list[str]  # one per column ("" where the chart has no entry)


class Chart(Closed):
    row_label: str
    column_label: str
    columns: list[str]
    rows: list[ChartRow]


class LabStrategy(Closed):
    summary: list[str]
    chart: Chart | None


class LabFigures(Closed):
    """A rule set's exact figures as the Math lab draws them (``POST /lab/analyze``)."""

    game: str
    name: str | None = None  # the rule set's name (the request's)
    rules: dict[str, str]  # the complete rule set analysed
    changed: dict[str, str]  # the values that differ from RULES.md's
    house_edge: float
    house_edge_exact: Exact
    element_of_risk: float
    element_of_risk_exact: Exact
    hit_frequency: Probability  # the main wager wins
    hit_frequency_exact: Exact
    std_dev: float  # of the net result per initial wager
    expected_value: float
    average_wager: float
    p_win: Probability
    p_push: Probability
    p_loss: Probability
    total_combinations: int
    outcomes: list[OutcomeRow]  # the return table
    side_bets: list[LabSideBet]
    strategy: LabStrategy
    notes: list[str]
    seconds: float  # the solve's time (0: answered from the cache)
    cached: bool


def _rows(table: ReturnTable) -> list[OutcomeRow]:
    return [OutcomeRow.model_validate(outcome_json(o, table.total)) for o in table.outcomes]


def _std_dev(table: ReturnTable) -> float:
    mean = table.expected_value
    second = sum((o.payout * o.payout * o.probability(table.total) for o in table.outcomes), Fraction(0))
    return math.sqrt(second - mean * mean)


def _chart(a: Analysis, axes: tuple[str, str]) -> Chart | None:
    chart = a.strategy.get("chart")
    if not isinstance(chart, dict) or not chart:
        return None
    columns = order_columns({str(c) for row in chart.values() for c in row})
    rows = [ChartRow(label=str(k), cells=[str(row.get(c, "")) for c in columns]) for k, row in chart.items()]
    return Chart(row_label=axes[0], column_label=axes[1], columns=columns, rows=rows)


def lab_figures(
    a: Analysis,
    rule_set: Mapping[str, str],
    changed: Mapping[str, str],
    axes: tuple[str, str],
    seconds: float,
) -> LabFigures:
    """The lab's figures of analysis ``a`` of the rule set ``rule_set`` (``changed``: its values that differ
    from RULES.md's; ``axes``: its strategy chart's row and column labels)."""
    side = []
    for name, bet in a.side_bets.items():
        hits = Fraction(sum(o.combinations for o in bet.outcomes if o.payout > -1), bet.total)
        side.append(
            LabSideBet.model_validate(
                {
                    "name": name,
                    "house_edge": float(bet.house_edge),
                    "house_edge_exact": str(bet.house_edge),
                    "return": float(bet.return_),
                    "hit_frequency": float(hits),
                    "hit_frequency_exact": str(hits),
                    "std_dev": _std_dev(bet),
                    "outcomes": _rows(bet),
                }
            )
        )
    return LabFigures(
        game=a.game,
        rules=dict(rule_set),
        changed=dict(changed),
        house_edge=float(a.house_edge),
        house_edge_exact=str(a.house_edge),
        element_of_risk=float(a.element_of_risk),
        element_of_risk_exact=str(a.element_of_risk),
        hit_frequency=float(a.p_win),
        hit_frequency_exact=str(a.p_win),
        std_dev=a.std_dev,
        expected_value=float(a.expected_value),
        average_wager=float(a.average_wager),
        p_win=float(a.p_win),
        p_push=float(a.p_push),
        p_loss=float(a.p_loss),
        total_combinations=a.total,
        outcomes=_rows(a),
        side_bets=side,
        strategy=LabStrategy(summary=list(a.strategy_summary), chart=_chart(a, axes)),
        notes=list(a.notes),
        seconds=round(seconds, 4),
        cached=False,
    )
