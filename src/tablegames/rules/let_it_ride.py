"""Let It Ride with the 3-Card Bonus and the Progressive with Envy Bonus (RULES.md §1).

Data plus pure functions: hand classes, pay tables, the progressive's meters and prizes, the
aggregate payout cap, and the published basic strategy.

>>> from tablegames.cards import parse_cards
>>> lir_hand(parse_cards("Th Tc 2d 5s 9h")).name
'TENS_OR_BETTER'
>>> lir_hand(parse_cards("9h 9c 2d 5s Kh")).name
'NOTHING'
>>> r = LetItRideRules.from_options({"bonus-paytable": "50-40-30-6-4-1"})
>>> r.bonus_paytable.odds(BonusHand.FLUSH)
4
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from tablegames.rules.common import (
    PayTable,
    RuleError,
    check_known_options,
    choose,
    enum_key,
    load_toml,
    paytable_from_mapping,
)
from tablegames.rules.definition import Decision, DecisionContext, GameDefinition, Meter, RuleOption, Wager
from tablegames.rules.flow import (
    BURN,
    COMMUNITY,
    DEALER,
    Action,
    BaseFlow,
    CardsView,
    RoundOps,
    SeatOps,
    seat_name,
)
from tablegames.rules.poker import (
    FiveCardCategory,
    ThreeCardCategory,
    five_card_category_of,
    is_straight,
    pair_rank,
    ranks_and_flush,
    three_card_category_of,
)

GAME = "let-it-ride"


class LirHand(IntEnum):
    """The final five-card hand as the base game pays it (R-LIR-4)."""

    NOTHING = 0
    TENS_OR_BETTER = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


BonusHand = ThreeCardCategory
"""3-Card Bonus hands (R-LIR-6)."""


class Bet(IntEnum):
    """The three equal base wagers (R-LIR-1)."""

    ONE = 1
    TWO = 2
    DOLLAR = 3


_FIVE_TO_LIR = {
    FiveCardCategory.TWO_PAIR: LirHand.TWO_PAIR,
    FiveCardCategory.TRIPS: LirHand.TRIPS,
    FiveCardCategory.STRAIGHT: LirHand.STRAIGHT,
    FiveCardCategory.FLUSH: LirHand.FLUSH,
    FiveCardCategory.FULL_HOUSE: LirHand.FULL_HOUSE,
    FiveCardCategory.QUADS: LirHand.QUADS,
    FiveCardCategory.STRAIGHT_FLUSH: LirHand.STRAIGHT_FLUSH,
    FiveCardCategory.ROYAL_FLUSH: LirHand.ROYAL_FLUSH,
}


def lir_hand_of(ranks: Sequence[int], flush: bool) -> LirHand:
    """Base-game class of five ranks (R-LIR-4): a pair pays only when tens or better."""
    cat = five_card_category_of(ranks, flush)
    if cat == FiveCardCategory.PAIR:
        return LirHand.TENS_OR_BETTER if pair_rank(ranks) >= 10 else LirHand.NOTHING
    return _FIVE_TO_LIR.get(cat, LirHand.NOTHING)


def lir_hand(cards: Sequence[int]) -> LirHand:
    """Base-game class of the player's three cards plus the two community cards."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise ValueError("Let It Ride needs 5 distinct cards")
    return lir_hand_of(*ranks_and_flush(cards))


def bonus_hand(cards: Sequence[int]) -> BonusHand:
    """3-Card Bonus class of the player's first three cards (R-LIR-6)."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError("the 3-Card Bonus needs 3 distinct cards")
    return three_card_category_of(*ranks_and_flush(cards))


# --- pay tables --------------------------------------------------------------------------------

MAIN_PAYTABLE = PayTable(
    "standard",
    LirHand,
    {
        LirHand.ROYAL_FLUSH: 1000,
        LirHand.STRAIGHT_FLUSH: 200,
        LirHand.QUADS: 50,
        LirHand.FULL_HOUSE: 11,
        LirHand.FLUSH: 8,
        LirHand.STRAIGHT: 5,
        LirHand.TRIPS: 3,
        LirHand.TWO_PAIR: 2,
        LirHand.TENS_OR_BETTER: 1,
    },
)
"""R-LIR-4."""


def _bonus(
    name: str, mini: int, sf: int, trips: int, straight: int, flush: int, pair: int
) -> PayTable[BonusHand]:
    return PayTable(
        name,
        BonusHand,
        {
            BonusHand.MINI_ROYAL: mini,
            BonusHand.STRAIGHT_FLUSH: sf,
            BonusHand.TRIPS: trips,
            BonusHand.STRAIGHT: straight,
            BonusHand.FLUSH: flush,
            BonusHand.PAIR: pair,
        },
    )


BONUS_PAYTABLES: Mapping[str, PayTable[BonusHand]] = {
    # R-LIR-6 default: the seed's shifted table, Mini Royal counted as a Straight Flush.
    "seed": _bonus("seed", 50, 50, 40, 6, 3, 1),
    "50-40-30-6-3-1": _bonus("50-40-30-6-3-1", 50, 40, 30, 6, 3, 1),
    "50-40-30-6-4-1": _bonus("50-40-30-6-4-1", 50, 40, 30, 6, 4, 1),
}

AGGREGATE_CAP_CENTS = 5_000_000
"""R-LIR-5: the base-game win of one hand is capped at $50,000."""


def capped_base_win(win_cents: int, cap_cents: int = AGGREGATE_CAP_CENTS) -> int:
    """The base-game win after the aggregate payout limit (R-LIR-5)."""
    return min(win_cents, cap_cents)


# --- progressive (R-LIR-7) and Envy Bonus (R-LIR-8) --------------------------------------------


@dataclass(frozen=True)
class ProgressiveConfig:
    wager_cents: int = 100
    meters: tuple[Meter, ...] = (
        Meter("mega", 5_000_000, Fraction(10, 100), "Mega"),
        Meter("major", 500_000, Fraction(4, 100), "Major"),
        Meter("minor", 50_000, Fraction(2, 100), "Minor"),
    )
    #: hand -> meter name (100% of the meter)
    meter_prizes: Mapping[LirHand, str] = field(
        default_factory=lambda: {
            LirHand.ROYAL_FLUSH: "mega",
            LirHand.STRAIGHT_FLUSH: "major",
            LirHand.QUADS: "minor",
        }
    )
    #: hand -> fixed prize in cents ("$Y": the wager is not returned, R-0.3)
    fixed_prizes_cents: Mapping[LirHand, int] = field(
        default_factory=lambda: {
            LirHand.FULL_HOUSE: 5_000,
            LirHand.FLUSH: 4_000,
            LirHand.STRAIGHT: 3_000,
            LirHand.TRIPS: 900,
        }
    )
    #: R-LIR-8: paid to every *other* progressive player when a player hits this hand
    envy_cents: Mapping[LirHand, int] = field(
        default_factory=lambda: {LirHand.ROYAL_FLUSH: 100_000, LirHand.STRAIGHT_FLUSH: 30_000}
    )

    def __post_init__(self) -> None:
        if self.wager_cents <= 0:
            raise RuleError("progressive wager must be a positive number of cents")
        names = {m.name for m in self.meters}
        for hand, meter in self.meter_prizes.items():
            if meter not in names:
                raise RuleError(f"progressive prize for {hand.name} names unknown meter {meter!r}")

    def __hash__(self) -> int:  # dict fields are not hashable; rules objects key caches (lru_cache)
        return hash(
            (
                self.wager_cents,
                self.meters,
                frozenset(self.meter_prizes.items()),
                frozenset(self.fixed_prizes_cents.items()),
                frozenset(self.envy_cents.items()),
            )
        )

    def meter(self, name: str) -> Meter:
        for m in self.meters:
            if m.name == name:
                return m
        raise KeyError(name)


# --- rules object ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LetItRideRules:
    main_paytable: PayTable[LirHand] = MAIN_PAYTABLE
    bonus_paytable: PayTable[BonusHand] = BONUS_PAYTABLES["seed"]
    progressive: ProgressiveConfig = ProgressiveConfig()
    cap_cents: int = AGGREGATE_CAP_CENTS

    game = GAME

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> LetItRideRules:
        """Rules from ``--rule NAME=VALUE`` options and an optional main ``--paytable`` (preset or TOML)."""
        options = dict(options or {})
        check_known_options(GAME, options, [o.name for o in DEFINITION.rule_options])
        bonus = BONUS_PAYTABLES["seed"]
        if "bonus-paytable" in options:
            bonus = choose("bonus-paytable", options["bonus-paytable"], BONUS_PAYTABLES)
        rules = cls(bonus_paytable=bonus)
        if paytable is not None:
            rules = rules.with_paytable_file(paytable)
        return rules

    def with_paytable_file(self, path: str | Path) -> LetItRideRules:
        """Replace pay tables from a TOML file with ``[main]`` and/or ``[bonus]`` tables of hand = odds."""
        if str(path) in ("standard", "seed"):
            return self
        data = load_toml(path)
        unknown = set(data) - {"main", "bonus", "game", "name"}
        if unknown:
            raise RuleError(f"{path}: unknown sections {sorted(unknown)}; use [main] and/or [bonus]")
        if data.get("game", GAME) != GAME:
            raise RuleError(f"{path}: pay table is for {data.get('game')!r}, not {GAME}")
        name = str(data.get("name", Path(path).stem))
        main, bonus = self.main_paytable, self.bonus_paytable
        if isinstance(data.get("main"), dict):
            main = paytable_from_mapping(name, LirHand, data["main"])  # type: ignore[arg-type]
        if isinstance(data.get("bonus"), dict):
            bonus = paytable_from_mapping(name, BonusHand, data["bonus"])  # type: ignore[arg-type]
        return LetItRideRules(main, bonus, self.progressive, self.cap_cents)

    def describe(self) -> dict[str, str]:
        return {"bonus-paytable": self.bonus_paytable.name, "paytable": self.main_paytable.name}


# --- published basic strategy (Wizard of Odds / Grochowski) -------------------------------------

HIGH = 10  # ten through ace are "high cards" in the strategy


def _sf_draw(ranks: Sequence[int]) -> tuple[int, int] | None:
    """For suited distinct ranks, the (gaps, high cards) of the best straight-flush window, or None."""
    best: tuple[int, int] | None = None
    rs = set(ranks)
    for low in range(1, 11):  # windows A-5 (low=1) .. T-A (low=10)
        window = {14 if r == 1 else r for r in range(low, low + 5)}
        if rs <= window:
            span = sorted(1 if (r == 14 and low == 1) else r for r in rs)
            gaps = span[-1] - span[0] + 1 - len(span)
            highs = sum(1 for r in ranks if r >= HIGH and not (r == 14 and low == 1))
            cand = (gaps, highs)
            if best is None or (cand[0], -cand[1]) < (best[0], -best[1]):
                best = cand
    return best


def ride_first(cards: Sequence[int]) -> bool:
    """Let bet 1 ride on these three cards? (the published strategy)

    Ride with: a paying hand (pair of tens or better, trips); three to a royal flush; three suited in a
    row except 2-3-4 and A-2-3; three to a straight flush with one gap and at least one high card; three to
    a straight flush with two gaps and at least two high cards.

    >>> from tablegames.cards import parse_cards
    >>> [ride_first(parse_cards(h)) for h in ("Th Tc 2d", "9h 9c 2d", "3s 4s 5s", "2s 3s 4s", "9s Js Kd", "9s Js Qs")]
    [True, False, True, False, False, True]
    """
    ranks, flush = ranks_and_flush(cards)
    if pair_rank(ranks) >= 10 or len(set(ranks)) == 1:
        return True
    if not flush or len(set(ranks)) != 3:
        return False
    if min(ranks) >= 10:
        return True  # three to a royal
    if is_straight(ranks):
        return sorted(ranks) not in ([2, 3, 4], [2, 3, 14])
    draw = _sf_draw(ranks)
    if draw is None:
        return False
    gaps, highs = draw
    return (gaps == 1 and highs >= 1) or (gaps == 2 and highs >= 2)


def ride_second(cards: Sequence[int]) -> bool:
    """Let bet 2 ride on the three cards plus the first community card? (the published strategy)

    Ride with: a paying hand; four to a flush; four to an outside straight with at least one high card.
    The published chart also lets it ride on four to an outside straight with no high card and on four to
    an inside straight with four high cards; both are worth exactly zero, so by the cautious tie-break of
    RULES.md ("where two choices have exactly equal value ... pull the wager") they are pulled.

    >>> from tablegames.cards import parse_cards
    >>> [ride_second(parse_cards(h)) for h in ("2h 5h 9h Kh", "8c 9d Th Js", "4c 5d 6h 7s", "Tc Jd Qh As", "2c 2d 5h 9s")]
    [True, True, False, False, False]
    """
    ranks, flush = ranks_and_flush(cards)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if counts[0] >= 3 or counts[:2] == [2, 2] or pair_rank(ranks) >= 10:
        return True
    if flush:
        return True
    if len(set(ranks)) != 4:
        return False
    srt = sorted(ranks)
    outside = srt[-1] - srt[0] == 3 and srt[-1] <= 13  # open-ended: no ace at either end
    return outside and srt[-1] >= HIGH


# --- the game, as data --------------------------------------------------------------------------------

BETS = ("1", "2", "$")
"""The three equal base bets (R-LIR-1), in the order they can be pulled."""


@dataclass(frozen=True)
class LirDecision(DecisionContext):
    """A Let It Ride decision: ``stage`` 1 (bet 1, on the three cards) or 2 (bet 2, with the first
    community card); ``cards`` the seat's cards and the community cards it sees; ``bet1_up``: bet 1 rides."""

    game: ClassVar[str] = GAME
    stage: int
    cards: tuple[int, ...]
    bet1_up: bool = True


def rule_of_thumb(ctx: LirDecision) -> str:
    """The published basic strategy: ride or pull at each stage."""
    ride = ride_first(ctx.cards) if ctx.stage == 1 else ride_second(ctx.cards)
    return "ride" if ride else "pull"


def describe_hand(rules: LetItRideRules, cards: Sequence[int | None]) -> str:
    """The three cards as the 3-Card Bonus names them, when all three are seen.

    >>> from tablegames.cards import parse_cards
    >>> describe_hand(LetItRideRules(), parse_cards("Th Tc 2d")), describe_hand(LetItRideRules(), [None] * 3)
    ('pair (3 cards)', '')
    """
    known = [c for c in cards if c is not None]
    if len(known) == 3 and len(cards) == 3:
        return enum_key(bonus_hand(known)).replace("-", " ") + " (3 cards)"
    return ""


PULL = Action("pull")
RIDE = Action("ride")


class LetItRideFlow(BaseFlow):
    """R-LIR-1..8, one round. The main wager ``bets`` is the amount of each of the three equal bets "1", "2",
    "$"; ``up`` the bets still riding per seat, ``community`` the community cards turned so far."""

    def __init__(self, rules: LetItRideRules) -> None:
        self.rules = rules
        self.stage = 1
        self.up: dict[int, set[str]] = {}
        self.community: list[int] = []

    def deal(self, r: RoundOps) -> None:
        for _ in range(3):
            for s in r.active_seats:
                s.cards.append(r.draw(seat_name(s.seat), seat_name(s.seat)))
            r.dealer.append(r.draw(DEALER, ""))
        self.up = {s.seat: set(BETS) for s in r.active_seats}

    def legal(self, r: RoundOps, state: SeatOps) -> list[Action]:
        return [PULL, RIDE]

    def apply(self, r: RoundOps, state: SeatOps, action: Action) -> None:
        state.decided = True
        if action == PULL:
            bet = str(self.stage)
            self.up[state.seat].discard(bet)
            amount = state.wagers["bets"]
            r.settle(state, f"bet {bet}", amount, amount, "pulled")

    def auto_step(self, r: RoundOps) -> bool:
        if self.stage == 1 and r.to_act is None:
            # R-LIR-2: burn one dealer card, turn the next: the first community card.
            r.discard(BURN, r.dealer[0], "")
            self.community.append(r.dealer[1])
            r.reveal(COMMUNITY, (r.dealer[1],))
            self.stage = 2
            for s in r.active_seats:
                s.decided = False
            return True
        return False

    def dealer_play(self, r: RoundOps) -> None:
        # R-LIR-3: the last dealer card becomes the second community card.
        self.community.append(r.dealer[2])
        r.reveal(COMMUNITY, (r.dealer[2],))

    def final_hand(self, state: SeatOps) -> LirHand:
        return lir_hand([*state.cards, *self.community])

    def settle_all(self, r: RoundOps) -> None:
        seats = r.active_seats
        hands = {}
        for s in seats:
            r.reveal(seat_name(s.seat), tuple(s.cards))
            hands[s.seat] = self.final_hand(s)
            r.hand_result(seat_name(s.seat), enum_key(hands[s.seat]))
        for s in seats:
            self._settle_base(r, s, hands[s.seat])
            if "bonus" in s.wagers:
                self._settle_bonus(r, s)
        # Progressive in seat order (R-LIR-7), then Envy (R-LIR-8).
        prog = [s for s in seats if "progressive" in s.wagers]
        for s in prog:
            self._settle_progressive(r, s, hands[s.seat])
        for hitter in prog:
            envy = self.rules.progressive.envy_cents.get(hands[hitter.seat])
            if not envy:
                continue
            for other in prog:
                if other.seat != hitter.seat:
                    r.pay_envy(other, hitter.seat, enum_key(hands[hitter.seat]), envy)

    def _settle_base(self, r: RoundOps, s: SeatOps, hand: LirHand) -> None:
        """R-LIR-4 pay table on every bet still up; R-LIR-5 caps the base-game win."""
        amount = s.wagers["bets"]
        up = self.up[s.seat]
        staked = amount * len(up)
        odds = self.rules.main_paytable.odds(hand)
        label = "bets " + "+".join(b for b in BETS if b in up)
        if odds is None:
            r.settle(s, "base", staked, 0, "lose", label)
            return
        win = staked * odds
        capped = capped_base_win(win, self.rules.cap_cents)
        detail = label + (f"; capped {win} -> {capped}" if capped < win else "")
        uncapped = staked + win if capped < win else None
        r.settle(s, "base", staked, staked + capped, "win", detail, capped_from=uncapped)

    def _settle_bonus(self, r: RoundOps, s: SeatOps) -> None:
        """R-LIR-6 on the first three cards."""
        stake = s.wagers["bonus"]
        hand = bonus_hand(s.initial_cards)
        odds = self.rules.bonus_paytable.odds(hand)
        returned = 0 if odds is None else stake * (odds + 1)
        r.settle(s, "bonus", stake, returned, "win" if returned else "lose", enum_key(hand))

    def _settle_progressive(self, r: RoundOps, s: SeatOps, hand: LirHand) -> None:
        """R-LIR-7: meter prizes pay 100% of the meter; fixed prizes pay $Y (wager not returned, R-0.3)."""
        stake = s.wagers["progressive"]
        cfg = self.rules.progressive
        meter = cfg.meter_prizes.get(hand)
        if meter is not None:
            paid = r.hit_meter(s, meter)
            outcome = "win" if paid else "lose"
            r.settle(s, "progressive", stake, paid, outcome, enum_key(hand), meter=meter, meter_cents=paid)
            return
        paid = cfg.fixed_prizes_cents.get(hand, 0)
        r.settle(s, "progressive", stake, paid, "win" if paid else "lose", enum_key(hand))

    def context(self, r: RoundOps, state: SeatOps) -> LirDecision:
        return LirDecision(self.stage, (*state.cards, *self.community), "1" in self.up.get(state.seat, {"1"}))

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        bets_up = {str(seat): [b for b in BETS if b in up] for seat, up in self.up.items()}
        return {"community": cards(self.community), "stage": self.stage, "bets_up": bets_up}


def meters(rules: LetItRideRules) -> tuple[Meter, ...]:
    """R-LIR-7: the progressive's meters."""
    return rules.progressive.meters


DEFINITION = GameDefinition(
    key=GAME,
    title="Let It Ride",
    tagline="Tens or better pays · Royal flush 1000 to 1",
    rules_type=LetItRideRules,
    rule_options=(RuleOption("bonus-paytable", tuple(BONUS_PAYTABLES), "3-Card Bonus pay table (R-LIR-6)"),),
    paytables=("standard", "seed"),
    wagers=(
        Wager("bets", "bets", main=True, cost_multiple=len(BETS), unit="each of bets 1, 2 and $", parts=BETS),
        Wager("bonus", "3-Card Bonus", requires="bets", short="Bonus"),
        Wager(
            "progressive",
            "Progressive",
            fixed=lambda rules: rules.progressive.wager_cents,
            requires="bets",
            feeds=True,
        ),
    ),
    meters=meters,
    decisions=(
        Decision("ride", "lets it ride", prompt="[r]ide"),
        Decision("pull", "pulls the bet", prompt="[p]ull", cautious=True),
    ),
    default_action="pull",
    context_type=LirDecision,
    rule_of_thumb=rule_of_thumb,
    describe_hand=describe_hand,
    flow=LetItRideFlow,
    analyzer="tablegames.analysis.let_it_ride:ANALYZER",
    kernel="tablegames.simulation.let_it_ride:KERNEL",
    felt="felt/let-it-ride.js",
    terminal="tablegames.cli.felts.let_it_ride:FELT",
)
