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

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from tablegames.rules.common import (
    NO_PAY,
    PayTable,
    RuleError,
    dollars,
    enum_key,
    paytables_from_file,
    returned_at_odds,
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
from tablegames.rules.let_it_ride_hands import BonusHand as BonusHand
from tablegames.rules.let_it_ride_hands import LirHand as LirHand
from tablegames.rules.let_it_ride_hands import Qualifier as Qualifier
from tablegames.rules.let_it_ride_hands import bonus_hand as bonus_hand
from tablegames.rules.let_it_ride_hands import lir_hand as lir_hand
from tablegames.rules.let_it_ride_hands import lir_hand_of as lir_hand_of
from tablegames.rules.let_it_ride_hands import ride_first as ride_first
from tablegames.rules.let_it_ride_hands import ride_second as ride_second
from tablegames.rules.let_it_ride_rulings import RULINGS
from tablegames.rules.parameters import (
    MONEY_MAX,
    Parameter,
    apply_options,
    choice,
    describe_values,
    fraction,
    money,
    paytable,
    preset,
    read_cents,
)

GAME = "let-it-ride"


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


def pulled_return(bet_cents: int) -> int:
    """R-LIR-2, R-LIR-3: a bet pulled back returns its whole stake (it is never at risk)."""
    return bet_cents


def bets_up_return(up: int, bet_cents: int, odds: int, cap_cents: int) -> int:
    """R-LIR-4, R-LIR-5: what the ``up`` bets of ``bet_cents`` still riding at the showdown return together: the
    stakes and the win "``odds`` to 1" (R-0.3) capped by :func:`capped_base_win`; nothing when the final hand
    does not pay (``odds`` :data:`~tablegames.rules.common.NO_PAY`). Pure integers, with
    :func:`pulled_return` written once: the flow settles with them, the Numba kernel compiles them and the
    solver's win table is built from them (issue 21).

    >>> bets_up_return(3, 2_500_000, 1000, AGGREGATE_CAP_CENTS), bets_up_return(2, 100, 1, 500)  # capped Royal
    (12500000, 400)
    """
    if odds < 0:
        return 0
    staked = up * bet_cents
    return staked + capped_base_win(staked * odds, cap_cents)


# --- progressive (R-LIR-7) and Envy Bonus (R-LIR-8) --------------------------------------------


@dataclass(frozen=True)
class ProgressiveConfig:
    wager_cents: int = 100
    meters: tuple[Meter, ...] = (
        Meter("mega", 5_000_000, Fraction(10, 100), "Mega", big=True),
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
    """Every number and choice of RULES.md §1 (each a parameter of :data:`DEFINITION`, RULES.md's value the
    default): the qualifying pair, the pay tables, the cap, the Progressive's wager, prizes, meters and Envy."""

    main_paytable: PayTable[LirHand] = MAIN_PAYTABLE
    bonus_paytable: PayTable[BonusHand] = BONUS_PAYTABLES["seed"]
    progressive: ProgressiveConfig = ProgressiveConfig()
    cap_cents: int = AGGREGATE_CAP_CENTS
    qualifier: Qualifier = Qualifier.TENS

    game = GAME

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> LetItRideRules:
        """Rules from an optional main ``--paytable`` (preset or TOML), then ``--rule NAME=VALUE`` options."""
        rules = cls() if paytable is None else cls().with_paytable_file(paytable)
        return apply_options(DEFINITION.parameters, rules, options)  # type: ignore[no-any-return]

    @property
    def qualifier_rank(self) -> int:
        """The rank of the lowest paying pair (10: tens, R-LIR-4)."""
        return self.qualifier.rank

    def hand(self, cards: Sequence[int]) -> LirHand:
        """The base-game class of five cards under these rules (the qualifying pair, R-LIR-4)."""
        return lir_hand(cards, self.qualifier_rank)

    def with_paytable_file(self, path: str | Path) -> LetItRideRules:
        """Replace pay tables from a TOML file with ``[main]`` and/or ``[bonus]`` tables of hand = odds."""
        if str(path) in ("standard", "seed"):
            return self
        found = paytables_from_file(path, GAME, {"main": LirHand, "bonus": BonusHand})
        main = found.get("main", self.main_paytable)
        bonus = found.get("bonus", self.bonus_paytable)
        return dataclasses.replace(self, main_paytable=main, bonus_paytable=bonus)

    def describe(self) -> dict[str, str]:
        return describe_values(DEFINITION.parameters, self)


# --- the game, as data --------------------------------------------------------------------------------

BETS = ("1", "2", "$")
"""The three equal base bets (R-LIR-1), in the order they can be pulled: the parts of the main wager."""

MAIN = "bets"
"""The main wager's one name (placed, settled, simulated): its amount is each of the three bets."""


@dataclass(frozen=True)
class LirDecision(DecisionContext):
    """A Let It Ride decision: ``stage`` 1 (bet 1, on the three cards) or 2 (bet 2, with the first
    community card); ``cards`` the seat's cards and the community cards it sees; ``bet1_up``: bet 1 rides;
    ``qualifier``: the rank of the lowest paying pair (the table's rules, R-LIR-4)."""

    game: ClassVar[str] = GAME
    stage: int
    cards: tuple[int, ...]
    bet1_up: bool = True
    qualifier: int = 10


def rule_of_thumb(ctx: LirDecision) -> str:
    """The published basic strategy: ride or pull at each stage."""
    q = ctx.qualifier
    ride = ride_first(ctx.cards, q) if ctx.stage == 1 else ride_second(ctx.cards, q)
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
    "$" (its parts: a pulled bet is settled as ``bets`` part ``1`` or ``2``, the bets still up at the showdown
    together, e.g. part ``1 2 $``); ``up`` the bets still riding per seat, ``community`` the community cards
    turned so far."""

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
            amount = state.wagers[MAIN]
            r.settle(state, MAIN, amount, pulled_return(amount), "pulled", part=bet)

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
        return self.rules.hand([*state.cards, *self.community])

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
                    r.pay_neighbour_bonus(other, hitter.seat, enum_key(hands[hitter.seat]), envy)

    def _settle_base(self, r: RoundOps, s: SeatOps, hand: LirHand) -> None:
        """R-LIR-4 pay table on every bet still up; R-LIR-5 caps the base-game win."""
        amount = s.wagers[MAIN]
        parts = [b for b in BETS if b in self.up[s.seat]]
        staked = amount * len(parts)
        odds = self.rules.main_paytable.odds(hand)
        returned = bets_up_return(len(parts), amount, NO_PAY if odds is None else odds, self.rules.cap_cents)
        if odds is None:
            r.settle(s, MAIN, staked, returned, "lose", part=" ".join(parts))
            return
        win, capped = staked * odds, returned - staked
        detail = f"win {dollars(win)} capped at {dollars(capped)} (R-LIR-5)" if capped < win else ""
        uncapped = staked + win if capped < win else None
        r.settle(s, MAIN, staked, returned, "win", detail, capped_from=uncapped, part=" ".join(parts))

    def _settle_bonus(self, r: RoundOps, s: SeatOps) -> None:
        """R-LIR-6 on the first three cards."""
        stake = s.wagers["bonus"]
        hand = bonus_hand(s.initial_cards)
        odds = self.rules.bonus_paytable.odds(hand)
        returned = returned_at_odds(stake, NO_PAY if odds is None else odds)
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
        up1 = "1" in self.up.get(state.seat, {"1"})
        return LirDecision(self.stage, (*state.cards, *self.community), up1, self.rules.qualifier_rank)

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        bets_up = {str(seat): [b for b in BETS if b in up] for seat, up in self.up.items()}
        # parts_up: the generic name of what a page draws (the parts of a multi-bet wager still up)
        return {
            "community": cards(self.community),
            "stage": self.stage,
            "bets_up": bets_up,
            "parts_up": bets_up,
        }


def meters(rules: LetItRideRules) -> tuple[Meter, ...]:
    """R-LIR-7: the progressive's meters."""
    return rules.progressive.meters


# --- every number and choice of RULES.md §1, as parameters (issue 15) ----------------------------------

PAYING = tuple(h for h in LirHand if h != LirHand.NOTHING)
"""The hands a pay table, a Progressive prize or an Envy Bonus may name, lowest first."""


def _prog(r: LetItRideRules, **changes: Any) -> LetItRideRules:
    return dataclasses.replace(r, progressive=dataclasses.replace(r.progressive, **changes))


def _without(mapping: Mapping[LirHand, Any], hand: LirHand, value: Any = None) -> dict[LirHand, Any]:
    out = {h: v for h, v in mapping.items() if h != hand}
    return out if not value else {**out, hand: value}


def _dollars(cents: int) -> str:
    return f"${cents // 100}" if cents % 100 == 0 else f"${cents / 100:.2f}"


def _prize(hand: LirHand) -> Parameter:
    """R-LIR-7: what the Progressive pays on ``hand``: a meter's name (100% of it), an amount, or ``-``."""
    names = tuple(m.name for m in ProgressiveConfig().meters)

    def get(r: LetItRideRules) -> str | int:
        cfg = r.progressive
        return cfg.meter_prizes.get(hand) or cfg.fixed_prizes_cents.get(hand, 0)

    def put(r: LetItRideRules, v: str | int) -> LetItRideRules:
        cfg = r.progressive
        meter = v if isinstance(v, str) else None
        fixed = 0 if isinstance(v, str) else v
        return _prog(
            r,
            meter_prizes=_without(cfg.meter_prizes, hand, meter),
            fixed_prizes_cents=_without(cfg.fixed_prizes_cents, hand, fixed),
        )

    def read(text: str) -> str | int:
        if text in names:
            return text
        cents = 0 if text == "-" else read_cents(text)
        if cents is None or not 0 <= cents <= MONEY_MAX:  # (bounded as text first: issue 20)
            raise RuleError(f"{text!r} is neither a meter nor an amount")
        return cents

    return Parameter(
        f"progressive.{enum_key(hand)}",
        f"Progressive prize for {enum_key(hand)}: {', '.join(names)} (100% of that meter), an amount "
        "($50 or 5000 cents, for 1) or - (nothing)",
        "text",
        get,
        put,
        read=read,
        show=lambda v: v if isinstance(v, str) else (_dollars(v) if v else "-"),
        group="progressive",
        structural=False,
        ruling="R-LIR-7",
    )


def _envy(hand: LirHand) -> Parameter:
    """R-LIR-8: what every other Progressive player is paid when a player makes ``hand`` (0: nothing)."""
    return Parameter(
        f"envy.{enum_key(hand)}",
        f"Envy Bonus to every other Progressive player on {enum_key(hand)} (cents, 0: none)",
        "money",
        lambda r: r.progressive.envy_cents.get(hand, 0),
        lambda r, v: _prog(r, envy_cents=_without(r.progressive.envy_cents, hand, v)),
        0,
        MONEY_MAX,
        group="envy",
        structural=False,
        ruling="R-LIR-8",
    )


def _meter(name: str, what: str) -> Parameter:
    """R-LIR-7: a meter's reset value or its share of every Progressive wager."""

    def put(r: LetItRideRules, v: Any) -> LetItRideRules:
        meters = tuple(
            dataclasses.replace(m, **{what: v}) if m.name == name else m for m in r.progressive.meters
        )
        return _prog(r, meters=meters)

    if what == "reset_cents":
        base = money(f"meter.{name}.reset", "", f"the {name} meter's reset value", ruling="R-LIR-7")
    else:
        base = fraction(
            f"meter.{name}.share", "", f"the {name} meter's share of every wager", high=Fraction(99, 100)
        )
    return dataclasses.replace(
        base,
        get=lambda r: getattr(r.progressive.meter(name), what),
        put=put,
        group="meters",
        structural=False,
        ruling="R-LIR-7",
    )


def _unstructural(p: Parameter) -> Parameter:
    return dataclasses.replace(p, structural=False)


PARAMETERS: tuple[Parameter, ...] = (
    choice("qualifier", "qualifier", Qualifier, "the lowest pair the base game pays", ruling="R-LIR-4"),
    *paytable("main", "main_paytable", PAYING, "base-game pay table", ruling="R-LIR-4", group="main"),
    _unstructural(money("cap", "cap_cents", "the aggregate cap on a hand's base-game win", ruling="R-LIR-5")),
    preset("bonus-paytable", "bonus_paytable", BONUS_PAYTABLES, "3-Card Bonus pay table", group="bonus"),
    *paytable(
        "bonus",
        "bonus_paytable",
        tuple(h for h in BonusHand if h != BonusHand.HIGH_CARD),
        "3-Card Bonus pay table",
        ruling="R-LIR-6",
        group="bonus",
    ),
    _unstructural(
        money(
            "progressive.wager",
            "progressive.wager_cents",
            "the fixed Progressive wager",
            low=1,
            ruling="R-LIR-7",
        )
    ),
    *(_prize(h) for h in PAYING),
    *(_meter(m.name, what) for m in ProgressiveConfig().meters for what in ("reset_cents", "share")),
    *(_envy(h) for h in PAYING),
)


DEFINITION = GameDefinition(
    key=GAME,
    title="Let It Ride",
    tagline="Tens or better pays · Royal flush 1000 to 1",
    rules_type=LetItRideRules,
    rule_options=(
        RuleOption("bonus-paytable", tuple(BONUS_PAYTABLES), "3-Card Bonus pay table (R-LIR-6)"),
        RuleOption("qualifier", tuple(q.value for q in Qualifier)[8:], "the lowest paying pair (R-LIR-4)"),
    ),
    paytables=("standard", "seed"),
    wagers=(
        Wager(MAIN, "bets", main=True, cost_multiple=len(BETS), unit="each of bets 1, 2 and $", parts=BETS),
        Wager("bonus", "3-Card Bonus", requires=MAIN, short="Bonus"),
        Wager(
            "progressive",
            "Progressive",
            fixed=lambda rules: rules.progressive.wager_cents,
            requires=MAIN,
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
    protection="tablegames.analysis.protect_let_it_ride:PROTECTION",
    kernel="tablegames.simulation.let_it_ride:KERNEL",
    felt="felt/let-it-ride.js",
    terminal="tablegames.cli.felts.let_it_ride:FELT",
    parameters=PARAMETERS,
    rulings=RULINGS,
    neighbour_bonus="Envy Bonus",  # R-LIR-8: a Progressive player's Royal or Straight Flush pays the others
)
