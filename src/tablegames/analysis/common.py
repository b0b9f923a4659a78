"""What the three exact analyses share: the result objects, their JSON form and small helpers.

Every probability is an exact :class:`~fractions.Fraction` of integer combination counts; only the standard
deviation (a square root) is a float.

>>> rows = [Outcome("win", 3, Fraction(1)), Outcome("loss", 1, Fraction(-1))]
>>> a = Analysis("demo", {}, 4, rows, average_wager=Fraction(1))
>>> a.expected_value, a.house_edge, a.p_win, a.p_loss
(Fraction(1, 2), Fraction(-1, 2), Fraction(3, 4), Fraction(1, 4))
>>> sum(o.contribution(a.total) for o in a.outcomes) == a.expected_value
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from tablegames.rules import registry

ASSUMPTIONS: tuple[str, ...] = (
    "One player heads-up against the dealer, one full 52-card deck (R-0.1), card removal included.",
    "Every deal is enumerated exactly (no sampling); probabilities are exact fractions of combination counts.",
    "The player follows the strategy of maximum expected value for the main wager; on exactly equal values "
    "the more cautious choice is taken (pull the wager, stand, do not draw, fold).",
    "R-0.5: between discards of exactly equal value, the card of higher point value, then higher rank (K, Q, J, "
    "10), as the One Eyed Flush dealer; suits never decide. The analysis, hints, bots and simulator all do so.",
    "The Flip Card and the up cards are known to the player when deciding; nothing else is.",
    "House edge = expected loss / initial main wager; element of risk = expected loss / average total wager.",
)


@dataclass(frozen=True)
class Outcome:
    """One row of a return table: a final outcome, how many deals end in it and its net result per unit.

    ``combinations`` counts equally likely (ordered) deals; ``payout`` is the net result in units of the
    initial main wager (one of Let It Ride's three wagers).
    """

    name: str
    combinations: int
    payout: Fraction
    wagered: Fraction = Fraction(1)  # total amount wagered in this outcome, in units
    # the engine's settlement outcome of the main wager in this row (win, push, lose, bust, fold...): exactly
    # the labels of ``simulate --format json`` under ``outcomes.<main wager>`` ("": a side bet's row)
    category: str = ""

    def probability(self, total: int) -> Fraction:
        return Fraction(self.combinations, total)

    def contribution(self, total: int) -> Fraction:
        return self.payout * self.probability(total)


class ReturnTable:
    """Exact expectation of a return table: ``outcomes`` over ``total`` equally likely deals."""

    total: int
    outcomes: list[Outcome]

    @property
    def expected_value(self) -> Fraction:
        return sum((o.contribution(self.total) for o in self.outcomes), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_value


@dataclass
class SideBet(ReturnTable):
    """A side wager's exact return: ``return_`` is the expected amount paid back per unit wagered (the wager
    itself included for "to 1" pays), so house edge = 1 - return."""

    name: str
    total: int
    outcomes: list[Outcome]
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def return_(self) -> Fraction:
        return 1 + self.expected_value

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "house_edge": float(self.house_edge),
            "house_edge_exact": str(self.house_edge),
            "return": float(self.return_),
            "total_combinations": self.total,
            "outcomes": [outcome_json(o, self.total) for o in self.outcomes],
            "notes": list(self.notes),
        }
        out.update(self.extra)
        return out


@dataclass
class Analysis(ReturnTable):
    """Exact figures of a game's main wager, its strategy and its side bets."""

    game: str
    rules: Mapping[str, str]
    total: int
    outcomes: list[Outcome]
    average_wager: Fraction
    strategy: dict[str, Any] = field(default_factory=dict)
    strategy_summary: list[str] = field(default_factory=list)
    side_bets: dict[str, SideBet] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unit_cents: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        counted = sum(o.combinations for o in self.outcomes)
        if counted != self.total:
            raise AssertionError(f"{self.game}: outcomes count {counted} deals, expected {self.total}")

    @property
    def element_of_risk(self) -> Fraction:
        return -self.expected_value / self.average_wager

    @property
    def second_moment(self) -> Fraction:
        return sum((o.payout * o.payout * o.probability(self.total) for o in self.outcomes), Fraction(0))

    @property
    def std_dev(self) -> float:
        return math.sqrt(self.second_moment - self.expected_value**2)

    def _p(self, sign: int) -> Fraction:
        n = sum(o.combinations for o in self.outcomes if (o.payout > 0) - (o.payout < 0) == sign)
        return Fraction(n, self.total)

    def categories(self) -> dict[str, Fraction]:
        """The exact probability of each settlement outcome of the main wager (the rows' ``category``), in
        the order first met: what the simulation counts under ``outcomes.<main wager>``."""
        out: dict[str, int] = {}
        for o in self.outcomes:
            out[o.category] = out.get(o.category, 0) + o.combinations
        return {k: Fraction(n, self.total) for k, n in out.items()}

    @property
    def p_win(self) -> Fraction:
        return self._p(1)

    @property
    def p_push(self) -> Fraction:
        return self._p(0)

    @property
    def p_loss(self) -> Fraction:
        return self._p(-1)

    def net_distribution(self) -> dict[Fraction, Fraction]:
        """Net result per round (units) -> exact probability."""
        dist: dict[Fraction, Fraction] = {}
        for o in self.outcomes:
            dist[o.payout] = dist.get(o.payout, Fraction(0)) + o.probability(self.total)
        return dict(sorted(dist.items()))

    def to_json(self, full_strategy: bool = True) -> dict[str, Any]:
        strategy = dict(self.strategy)
        if not full_strategy:
            strategy.pop("table", None)
        return {
            "game": self.game,
            "rules": dict(self.rules),
            "assumptions": list(ASSUMPTIONS),
            "unit_cents": self.unit_cents,
            "house_edge": float(self.house_edge),
            "house_edge_exact": str(self.house_edge),
            "expected_value": float(self.expected_value),
            "element_of_risk": float(self.element_of_risk),
            "average_wager": float(self.average_wager),
            "average_wager_exact": str(self.average_wager),
            "std_dev": self.std_dev,
            "p_win": float(self.p_win),
            "p_push": float(self.p_push),
            "p_loss": float(self.p_loss),
            "p_exact": {"win": str(self.p_win), "push": str(self.p_push), "loss": str(self.p_loss)},
            "total_combinations": self.total,
            "outcomes": [outcome_json(o, self.total) for o in self.outcomes],
            "strategy": {"summary": list(self.strategy_summary), **strategy},
            "side_bets": {name: bet.to_json() for name, bet in self.side_bets.items()},
            "notes": list(self.notes),
            **self.extra,
        }


def outcome_json(o: Outcome, total: int) -> dict[str, Any]:
    return {
        "outcome": o.name,
        **({"category": o.category} if o.category else {}),
        "combinations": o.combinations,
        "probability": float(o.probability(total)),
        "payout": float(o.payout),
        "contribution": float(o.contribution(total)),
        "contribution_exact": str(o.contribution(total)),
    }


# --- combinatorics ------------------------------------------------------------------------------


def combinations_array(n: int, k: int) -> npt.NDArray[np.int8]:
    """All k-subsets of range(n) (n <= 128) as increasing rows of int8, in colexicographic order: row i has
    colex rank i.

    >>> combinations_array(4, 2).tolist()
    [[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]]
    >>> len(combinations_array(52, 5)) == comb(52, 5)
    True
    """
    # Start from the largest element and prepend every smaller one, k-1 times: that is colex order.
    cols = [np.arange(n, dtype=np.int8)]
    for _ in range(k - 1):
        counts = cols[0].astype(np.int64)
        idx = np.repeat(np.arange(len(counts)), counts)
        starts = np.cumsum(counts) - counts
        prepend = (np.arange(int(counts.sum())) - np.repeat(starts, counts)).astype(np.int8)
        cols = [prepend, *(c[idx] for c in cols)]
    return np.stack(cols, axis=1)


def colex_index(sorted_cards: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int64]:
    """Colexicographic rank of each row of strictly increasing cards: sum of C(c_i, i+1).

    >>> colex_index(np.array([[0, 1, 2], [0, 1, 3], [49, 50, 51]])).tolist()
    [0, 1, 22099]
    """
    k = sorted_cards.shape[1]
    table = np.array([[comb(c, i + 1) for c in range(52)] for i in range(k)], dtype=np.int64)
    out = np.zeros(sorted_cards.shape[0], dtype=np.int64)
    for i in range(k):
        out += table[i][sorted_cards[:, i]]
    return out


def colex_of(cards: Iterable[int]) -> int:
    """Colexicographic rank of one set of cards (any order).

    >>> colex_of([2, 1, 0]), colex_of([51, 50, 49])
    (0, 22099)
    """
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(int(c) for c in cards)))


def canonical_key(cards: Sequence[int]) -> tuple[int, ...]:
    """The smallest sorted card tuple among the 24 suit relabellings: one key per strategically equal hand.

    >>> canonical_key([51, 47]) == canonical_key([50, 46])
    True
    """
    from itertools import permutations

    best: tuple[int, ...] | None = None
    for perm in permutations(range(4)):
        key = tuple(sorted((c // 4) * 4 + perm[c % 4] for c in cards))
        if best is None or key < best:
            best = key
    assert best is not None
    return best


class Analyzer:
    """A game's exact analyzer, as every generic caller (``analysis.api``, ``analysis.advice``, the report,
    the simulation's ``optimal`` strategy) uses it. Each analyzer module exposes one as ``ANALYZER``, named by
    its game's definition (``GameDefinition.analyzer``).

    ``bet_sized``: the strategy depends on the main wager's size (a payout cap); ``min_odds``: the lowest
    payout ``tune`` tries; ``chart_axes``: the row and column labels of the strategy chart.
    """

    bet_sized: bool = False
    min_odds: int = 0
    chart_axes: tuple[str, str] = ("", "")
    slow: bool = False  # solving its strategy takes seconds (the terminal says so before the first hint)

    def analyze(
        self, rules: Any, bet_cents: int | None, meters: Mapping[str, int], full_strategy: bool
    ) -> Analysis:
        raise NotImplementedError

    def optimal_strategy(self, rules: Any, bet_cents: int | None = None) -> Any:
        """The cached optimal strategy object (for a bet size when ``bet_sized``)."""
        raise NotImplementedError

    def strategy_bet(self, rules: Any, bet_cents: int | None) -> int | None:
        """The bet size the strategy depends on: None when one strategy serves every bet (the default; a
        ``bet_sized`` game: every bet its payout cap cannot reach)."""
        return None

    def advise(self, strategy: Any, context: Any) -> Mapping[Any, Fraction | float]:
        """The exact EV of every action at the decision ``context`` (the game's typed decision context)."""
        raise NotImplementedError

    def meter_names(self, rules: Any) -> list[str]:
        """The names ``--meter NAME=AMOUNT`` accepts (none: the game has no meter)."""
        return []

    def tunable_hands(self, rules: Any) -> list[str]:
        """The hands whose payout ``tune`` can solve for (none: nothing to tune)."""
        return []

    def edge_function(self, rules: Any, hand: str, bet_cents: int | None) -> tuple[Any, str]:
        """(payout -> house edge, the wager's name) for tuning ``hand``."""
        raise NotImplementedError

    def tie_wagers(self, rules: Any, bet_cents: int) -> tuple[tuple[str, int, str | None], ...]:
        """The wagers (name, amount in cents, option) one seat places in the analysis-engine tie test
        (``deal_value``): the main wager at ``bet_cents`` and every side bet the analysis settles."""
        main = registry.of(rules).main_wager.name
        return ((main, bet_cents, None),)

    def deal_value(
        self,
        rules: Any,
        deck: Sequence[int],
        wagers: Sequence[tuple[str, int, str | None]],
        meters: Mapping[str, int] | None = None,
    ) -> dict[str, int] | None:
        """The analysis' own settlement of one heads-up round dealt from the stacked ``deck`` (deal order,
        R-0.2), the seat placing ``wagers`` and playing the optimal strategy: the net in cents of each wager
        (a multi-bet wager's parts summed), computed from the analysis' tables and strategy, not by the engine;
        ``meters``: the jackpot meters before the round (None: at reset). The generic test
        (tests/analysis/test_analysis_engine_tie_registry.py) and the oracle's (tests/analysis/test_oracle.py)
        play the same deck through the engine and require the same nets. None: not implemented."""
        return None

    def plot_strategy(self, a: Analysis, rules: Any, bet_cents: int | None, path: Any) -> None:
        """Draw the strategy image of the report (default: the decision chart, ``chart_axes``)."""
        from tablegames.analysis.charts import plot_chart

        plot_chart(a, path, *self.chart_axes)

    # --- the math report (``analysis.submission``): optional, per game ---------------------------------

    pace: tuple[float, float] = (30.0, 12.0)
    """The rounds-per-hour model: seconds per round for the dealer (shuffle, deal, reveal, collect) and per
    seated player (decisions, settlement); rounds/hour = 3600 / (fixed + per_seat * players)."""
    pace_source: str = "assumed: 30 s a round plus 12 s a player (no published pace for this game)"

    def rules_summary(self, rules: Any) -> list[str]:
        """The rules in a reviewer's words, one paragraph a line, citing the RULES.md ids."""
        return []

    def pay_schedules(self, rules: Any) -> list[PaySchedule]:
        """Every wager's pay schedule, from the rules data."""
        return []

    def worked_examples(self, rules: Any) -> list[ExampleSpec]:
        """Stacked decks (and wagers) whose rounds the engine plays for the report's worked examples."""
        return []

    def side_bet_stats(self, a: Analysis, rules: Any) -> list[tuple[str, SideBet]]:
        """The side bets of the per-wager table, with their titles (default: every side bet analysed)."""
        return list(a.side_bets.items())

    def seats_interact(self, rules: Any) -> str:
        """Why (and how) one seat's result depends on the other seats; "" when seats are independent (each
        seat's cards are a uniformly random hand whatever the others hold and nothing else links them)."""
        return ""

    def table_size_effects(self, a: Analysis, rules: Any, players: int) -> list[tuple[str, Fraction]]:
        """Named exact figures that depend on the number of players at the table (e.g. a neighbour bonus)."""
        return []

    def meter_sweeps(self, rules: Any) -> list[MeterSweep]:
        """The side bets paid from a meter: their exact edge as a function of the meter, and break-even."""
        return []

    def verify_targets(self, a: Analysis, rules: Any) -> list[VerifyTarget]:
        """Exact figures the verification simulation checks (``analysis.submission``); the default: the main
        wager's house edge against the simulation's first wager row."""
        return [VerifyTarget("main wager house edge", "", a.house_edge)]


def category_targets(a: Analysis, main: str) -> list[VerifyTarget]:
    """Every settlement outcome of the main wager (the return table's ``category``) as a frequency the
    simulation checks under ``outcomes.<main>``: all of them, none picked by hand."""
    return [
        VerifyTarget(f"P({main} wager: {cat})", main, p, figure="frequency", outcomes=(cat,))
        for cat, p in a.categories().items()
        if cat
    ]


@dataclass(frozen=True)
class PaySchedule:
    """One wager's pay schedule: (hand or outcome, what it pays) rows, from the rules."""

    wager: str
    rows: tuple[tuple[str, str], ...]
    note: str = ""


@dataclass(frozen=True)
class ExampleSpec:
    """A worked example: the deck as dealt (deal order), the wagers placed by seat 1 and what it shows.

    ``actions``: the decisions to take (None: the optimal strategy's, as its advisor gives them);
    ``expect``: the outcome of each wager the example is meant to show (checked against the engine's
    settlement, so a wrong example fails to build); ``meters``: the meters' values at the start.
    """

    title: str
    deck: tuple[int, ...]
    wagers: tuple[tuple[str, int, str | None], ...]
    expect: Mapping[str, str] = field(default_factory=dict)
    actions: tuple[str, ...] | None = None
    meters: Mapping[str, int] = field(default_factory=dict)
    seats: int = 1  # every seat places ``wagers``; ``expect`` is about seat 1


def stacked_deck(
    seat: Sequence[int], dealer: Sequence[int], then: Sequence[int] = (), others: Sequence[Sequence[int]] = ()
) -> tuple[int, ...]:
    """Seat 1's cards (and those of seats 2, 3, ... in ``others``) and the dealer's, dealt one at a time in
    seat order (R-0.2), then ``then`` (draws, cards dealt later), then the rest of the deck in order.

    >>> stacked_deck([0, 1], [2, 3], [4])[:6]
    (0, 2, 1, 3, 4, 5)
    >>> stacked_deck([0, 1], [2, 3], others=[[6, 7]])[:6]
    (0, 6, 2, 1, 7, 3)
    """
    hands = [seat, *others, dealer]
    head = [int(c) for cards in zip(*hands, strict=True) for c in cards] + [int(c) for c in then]
    if len(set(head)) != len(head):
        raise ValueError(f"a card is dealt twice: {head}")
    return (*head, *(c for c in range(52) if c not in head))


@dataclass(frozen=True)
class MeterSweep:
    """A meter-paid side bet: ``edge(meter_cents)`` exact (other meters at reset), its reset, and the meter
    value where its edge is exactly 0 (``break_even``, a fraction of a cent)."""

    wager: str
    meter: str
    reset_cents: int
    break_even: Fraction
    edge: Callable[[Fraction], Fraction]


@dataclass(frozen=True)
class VerifyTarget:
    """An exact figure the verification simulation checks: ``row`` names the simulation's result row ("": its
    first, the main wager) and ``figure`` its field (``house_edge``, or ``return`` for a component row such as
    a side bet's fixed prizes); or, with ``figure="frequency"``, ``row`` is an outcome block of the simulation
    and ``outcomes`` the labels whose frequencies add up to the exact probability. ``side_bets``: the wagers
    the simulation must place for it."""

    label: str
    row: str
    exact: Fraction
    side_bets: tuple[str, ...] = ()
    figure: str = "house_edge"
    outcomes: tuple[str, ...] = ()
