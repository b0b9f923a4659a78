"""One Eyed Flush: a three-card game where J♥ J♠ K♦ are wild (RULES.md §2).

Data plus pure functions: card values, hand evaluation with wilds, comparison, bust, the dealer's draw
policy, the Jackpot and Flip Card wagers, and a rule-of-thumb player strategy. Every number and choice of
RULES.md §2 is a field of :class:`OneEyedFlushRules` and a parameter (issue 15): the module constants below
are only the defaults; play and math read the rules object (``rules.evaluate``, ``rules.dealer_discard``...).

The cards and hands are in :mod:`tablegames.rules.one_eyed_flush_hands` (imported back here).

>>> from tablegames.cards import parse_cards
>>> r = OneEyedFlushRules.from_options({"wild-cards": "Jh Js Kd 2c", "bust-limit": "16"})
>>> str(r.evaluate(parse_cards("2c 5d 9h"))), r.is_bust(r.evaluate(parse_cards("Ts 4d 2h")), True)
('Pair With Wild (remaining 5)', False)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, Final

from tablegames.cards import CARDS
from tablegames.rules.common import (
    NO_PAY,
    PayTable,
    RuleError,
    enum_key,
    load_toml,
    paytable_from_mapping,
    returned_at_odds,
)
from tablegames.rules.definition import (
    Decision,
    DecisionContext,
    GameDefinition,
    Meter,
    RuleOption,
    Wager,
    WagerOption,
)
from tablegames.rules.flow import DEALER, PUBLIC, Action, BaseFlow, CardsView, RoundOps, SeatOps, seat_name
from tablegames.rules.indexing import CardClasses
from tablegames.rules.one_eyed_flush_hands import BUST_LIMIT as BUST_LIMIT
from tablegames.rules.one_eyed_flush_hands import CLASSES as CLASSES
from tablegames.rules.one_eyed_flush_hands import DEFAULT_WILD as DEFAULT_WILD
from tablegames.rules.one_eyed_flush_hands import NO_PAIR_DRAWS_FROM as NO_PAIR_DRAWS_FROM
from tablegames.rules.one_eyed_flush_hands import PAIR_DRAWS_FROM as PAIR_DRAWS_FROM
from tablegames.rules.one_eyed_flush_hands import WILD_CARDS as WILD_CARDS
from tablegames.rules.one_eyed_flush_hands import BustRule as BustRule
from tablegames.rules.one_eyed_flush_hands import Category as Category
from tablegames.rules.one_eyed_flush_hands import DealerWildDraw as DealerWildDraw
from tablegames.rules.one_eyed_flush_hands import Hand as Hand
from tablegames.rules.one_eyed_flush_hands import Ties as Ties
from tablegames.rules.one_eyed_flush_hands import _discard_order as _discard_order
from tablegames.rules.one_eyed_flush_hands import _rank_key as _rank_key
from tablegames.rules.one_eyed_flush_hands import card_classes as card_classes
from tablegames.rules.one_eyed_flush_hands import compare as compare
from tablegames.rules.one_eyed_flush_hands import dealer_discard as dealer_discard
from tablegames.rules.one_eyed_flush_hands import discard_preference as discard_preference
from tablegames.rules.one_eyed_flush_hands import evaluate as evaluate
from tablegames.rules.one_eyed_flush_hands import holds_wild as holds_wild
from tablegames.rules.one_eyed_flush_hands import is_bust as is_bust
from tablegames.rules.one_eyed_flush_hands import is_wild as is_wild
from tablegames.rules.one_eyed_flush_hands import live_wild as live_wild
from tablegames.rules.one_eyed_flush_hands import main_return as main_return
from tablegames.rules.one_eyed_flush_hands import point_value as point_value
from tablegames.rules.one_eyed_flush_hands import rule_of_thumb_discard as rule_of_thumb_discard
from tablegames.rules.one_eyed_flush_hands import tie_break as tie_break
from tablegames.rules.one_eyed_flush_rulings import RULINGS
from tablegames.rules.parameters import (
    Parameter,
    apply_options,
    choice,
    describe_values,
    fraction,
    integer,
    money,
    paytable,
    preset,
)
from tablegames.rules.parameters import cards as cards_parameter

GAME = "one-eyed-flush"


# --- side wagers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class JackpotConfig:
    """R-OEF-9: fixed wager on the first three cards; the One Eyed Flush takes the meter."""

    wager_cents: int = 100
    reset_cents: int = 500_000
    share: Fraction = Fraction(10, 100)
    #: the category of the first three cards that takes 100% of the meter
    meter_category: Category = Category.ONE_EYED_FLUSH
    #: category -> fixed prize in cents ("$Y": the wager is not returned, R-0.3)
    fixed_prizes_cents: Mapping[Category, int] = field(
        default_factory=lambda: {
            Category.TRIPS_WITH_WILD: 2_000,
            Category.TRIPS: 3_000,
            Category.PAIR_WITH_WILD: 100,
        }
    )

    def __post_init__(self) -> None:
        if self.wager_cents <= 0:
            raise RuleError("rule 'jackpot.wager': the jackpot wager must be a positive number of cents")
        if not 0 <= self.share < 1:
            raise RuleError(
                f"rule 'jackpot.share': {self.share} is out of range; allowed: a fraction in [0, 1)"
            )
        prizes = {c: p for c, p in self.fixed_prizes_cents.items() if p}
        object.__setattr__(self, "fixed_prizes_cents", prizes)  # a zero prize is no prize: one equal form
        if prizes.get(self.meter_category):
            raise RuleError(
                f"rule 'jackpot.{enum_key(self.meter_category)}': the {enum_key(self.meter_category)} hand "
                "takes the meter (jackpot.meter-hand), its fixed prize must be 0"
            )

    def __hash__(self) -> int:  # the dict field is not hashable; rules objects key caches (lru_cache)
        prizes = frozenset(self.fixed_prizes_cents.items())
        return hash((self.wager_cents, self.reset_cents, self.share, self.meter_category, prizes))

    def prize(self, category: Category) -> int:
        return self.fixed_prizes_cents.get(category, 0)


class FlipKind(Enum):
    VALUE = "value"
    TEN_VALUE = "ten-value"
    ONE_EYED = "one-eyed"


FLIP_WORDS = {
    FlipKind.VALUE: "a named point value (1-9)",
    FlipKind.TEN_VALUE: "ten-value (any 10, J, Q or K)",
    FlipKind.ONE_EYED: "one-eyed (J♥, J♠ or K♦)",
}  # R-OEF-10's outcomes in a player's words (the rule card, the lab form)


@dataclass(frozen=True)
class FlipBet:
    """R-OEF-10: the outcome a player names for the dealer's Flip Card.

    >>> FlipBet.parse("7"), FlipBet.parse("ten-value").kind.value
    (FlipBet(kind=<FlipKind.VALUE: 'value'>, value=7), 'ten-value')
    """

    kind: FlipKind
    value: int = 0

    def __post_init__(self) -> None:
        if self.kind == FlipKind.VALUE and not 1 <= self.value <= 9:
            raise RuleError(f"a Flip Card value must be 1-9, got {self.value}")

    @classmethod
    def parse(cls, text: str) -> FlipBet:
        t = text.strip().lower()
        if t.isdigit():
            return cls(FlipKind.VALUE, int(t))
        for kind in (FlipKind.TEN_VALUE, FlipKind.ONE_EYED):
            if t == kind.value:
                return cls(kind)
        raise RuleError(f"unknown Flip Card outcome {text!r}; name a value 1-9, 'ten-value' or 'one-eyed'")

    def __str__(self) -> str:
        return str(self.value) if self.kind == FlipKind.VALUE else self.kind.value


@dataclass(frozen=True)
class FlipOdds:
    """R-OEF-10: "X to 1" of each kind of Flip Card outcome."""

    value: int = 11
    ten_value: int = 2
    one_eyed: int = 15

    def of(self, kind: FlipKind) -> int:
        return {FlipKind.VALUE: self.value, FlipKind.TEN_VALUE: self.ten_value}.get(kind, self.one_eyed)


FLIP_ODDS: Final[Mapping[FlipKind, int]] = {k: FlipOdds().of(k) for k in FlipKind}
"""The default odds (R-OEF-10)."""


def flip_odds(
    bet: FlipBet, flip_card: int, odds: FlipOdds = FlipOdds(), wild: Collection[int] = WILD_CARDS
) -> int | None:
    """``X`` of "X to 1" when the Flip Card matches ``bet``, else None (R-OEF-10)."""
    if bet.kind == FlipKind.ONE_EYED:
        hit = flip_card in wild
    elif bet.kind == FlipKind.TEN_VALUE:
        hit = point_value(flip_card) == 10
    else:
        hit = point_value(flip_card) == bet.value
    return odds.of(bet.kind) if hit else None


ALL_FLIP_BETS: Final[tuple[FlipBet, ...]] = (
    *(FlipBet(FlipKind.VALUE, v) for v in range(1, 10)),
    FlipBet(FlipKind.TEN_VALUE),
    FlipBet(FlipKind.ONE_EYED),
)


# --- rules object ------------------------------------------------------------------------------

EVEN_MONEY = PayTable("even-money", Category, {c: 1 for c in Category})
"""R-OEF-8 default: every main-wager win pays 1 to 1, whatever the winning category."""


@dataclass(frozen=True)
class OneEyedFlushRules:
    """Every number and choice of RULES.md §2 (its value the default); the parameters are in DEFINITION."""

    ties: Ties = Ties.CASINO
    bust: BustRule = BustRule.AFTER_DRAW
    dealer_wild_draw: DealerWildDraw = DealerWildDraw.VS_WILD
    main_paytable: PayTable[Category] = EVEN_MONEY
    jackpot: JackpotConfig = JackpotConfig()
    bust_limit: int = BUST_LIMIT
    dealer_pair_draws_from: int = PAIR_DRAWS_FROM
    dealer_no_pair_draws_from: int = NO_PAIR_DRAWS_FROM
    wild_cards: tuple[int, ...] = DEFAULT_WILD
    flip: FlipOdds = FlipOdds()

    game = GAME

    def __post_init__(self) -> None:
        object.__setattr__(self, "wild_cards", tuple(sorted(int(c) for c in self.wild_cards)))
        for cat in Category:
            odds = self.main_paytable.odds(cat)
            if odds is None or odds < 1:
                raise RuleError(
                    f"rule 'main.{enum_key(cat)}': {'-' if odds is None else odds} is not allowed; "
                    "allowed: a whole number >= 1 (a main-wager win always pays, R-OEF-8)"
                )

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> OneEyedFlushRules:
        rules = cls()
        if paytable is not None and paytable != "even-money":
            data = load_toml(paytable)
            main = data.get("main")
            if not isinstance(main, dict):
                raise RuleError(f"{paytable}: needs a [main] table of winning category = odds")
            table = paytable_from_mapping(str(data.get("name", Path(paytable).stem)), Category, main)
            pays = {c: table.odds(c) or 1 for c in Category}  # a category not listed wins 1 to 1 (R-OEF-8)
            rules = dataclasses.replace(rules, main_paytable=PayTable(table.name, Category, pays))
        return apply_options(DEFINITION.parameters, rules, options)  # type: ignore[no-any-return]

    @property
    def classes(self) -> CardClasses:
        return card_classes(self.wild_cards)

    @property
    def wild(self) -> frozenset[int]:
        return self.classes.wild

    def win_odds(self, category: Category) -> int:
        """Odds paid on a main-wager win with this category (R-OEF-8)."""
        return self.main_paytable.odds(category) or 1

    def evaluate(self, cards: Sequence[int]) -> Hand:
        return evaluate(cards, self.wild)

    def holds_wild(self, cards: Sequence[int]) -> bool:
        return holds_wild(cards, self.wild)

    def is_bust(self, hand: Hand, drew: bool) -> bool:
        return is_bust(hand, drew, self.bust, self.bust_limit)

    def dealer_discard(self, cards: Sequence[int], player_holds_wild: bool) -> int | None:
        return dealer_discard(
            cards,
            player_holds_wild,
            self.dealer_wild_draw,
            pair_from=self.dealer_pair_draws_from,
            no_pair_from=self.dealer_no_pair_draws_from,
            wild=self.wild,
        )

    def flip_odds(self, bet: FlipBet, flip_card: int) -> int | None:
        return flip_odds(bet, flip_card, self.flip, self.wild)

    def describe(self) -> dict[str, str]:
        return describe_values(DEFINITION.parameters, self)


# --- the game, as data --------------------------------------------------------------------------------

METER = "one-eyed-flush"
"""The Jackpot's meter (R-OEF-9): the One Eyed Flush on the first three cards takes it."""


@dataclass(frozen=True)
class OefDecision(DecisionContext):
    """A One Eyed Flush decision: the seat's three cards and the dealer's Flip Card."""

    game: ClassVar[str] = GAME
    cards: tuple[int, ...]
    flip_card: int
    wild: tuple[int, ...] = DEFAULT_WILD  # the table's wild cards (R-OEF-1)
    bust_limit: int = BUST_LIMIT  # the table's bust limit (R-OEF-6)


def rule_of_thumb(ctx: OefDecision) -> str:
    i = rule_of_thumb_discard(ctx.cards, ctx.flip_card, frozenset(ctx.wild), ctx.bust_limit)
    return "stand" if i is None else f"discard {i}"


def describe_hand(rules: OneEyedFlushRules, cards: Sequence[int | None]) -> str:
    """The evaluated hand, when its three cards are seen.

    >>> from tablegames.cards import parse_cards
    >>> describe_hand(OneEyedFlushRules(), parse_cards("J♥ 5♣ 9♦"))
    'Pair With Wild (remaining 5)'
    """
    known = [c for c in cards if c is not None]
    return str(rules.evaluate(known)) if len(known) == 3 else ""


def meters(rules: OneEyedFlushRules) -> tuple[Meter, ...]:
    jp = rules.jackpot
    return (Meter(METER, jp.reset_cents, jp.share, "One Eyed Flush jackpot", big=True),)


STAND = Action("stand")


def discard(index: int) -> Action:
    """Discard card ``index`` (0-2) and draw."""
    return Action("discard", index)


class OneEyedFlushFlow(BaseFlow):
    """R-OEF-4..10, one round: the dealer's Flip Card and the seats that drew."""

    def __init__(self, rules: OneEyedFlushRules) -> None:
        self.rules = rules
        self.flip_card = -1
        self.drew: set[int] = set()

    def deal(self, r: RoundOps) -> None:
        for i in range(3):
            for s in r.active_seats:
                s.cards.append(r.draw(seat_name(s.seat), seat_name(s.seat)))
            # R-OEF-4: the dealer's second card is the Flip Card, face up.
            r.dealer.append(r.draw(DEALER, PUBLIC if i == 1 else ""))
        self.flip_card = r.dealer[1]

    def legal(self, r: RoundOps, state: SeatOps) -> list[Action]:
        return [STAND, discard(0), discard(1), discard(2)]

    def apply(self, r: RoundOps, state: SeatOps, action: Action) -> None:
        state.decided = True
        if action.name == "discard":
            assert action.index is not None
            i = action.index
            r.discard(seat_name(state.seat), state.cards[i], seat_name(state.seat))
            state.cards[i] = r.draw(seat_name(state.seat), seat_name(state.seat))
            self.drew.add(state.seat)
        hand = self.rules.evaluate(state.cards)
        if self.rules.is_bust(hand, state.seat in self.drew):
            state.out = True
            # the hand is still face down: its description is the seat's own until the dealer shows it
            r.settle(
                state, "main", state.wagers["main"], 0, "bust", str(hand), visible_to=seat_name(state.seat)
            )

    def dealer_play(self, r: RoundOps) -> None:
        r.reveal(DEALER, tuple(r.dealer))
        wild = any(live_wild(int(s.out), int(self.rules.holds_wild(s.cards))) for s in r.active_seats)
        idx = self.rules.dealer_discard(r.dealer, wild)
        if idx is not None:
            r.discard(DEALER, r.dealer[idx], PUBLIC)
            r.dealer[idx] = r.draw(DEALER, PUBLIC)
        r.hand_result(DEALER, str(self.rules.evaluate(r.dealer)))

    def settle_all(self, r: RoundOps) -> None:
        dealer_hand = self.rules.evaluate(r.dealer)
        for s in r.active_seats:
            r.reveal(seat_name(s.seat), tuple(s.cards))
            hand = self.rules.evaluate(s.cards)
            r.hand_result(seat_name(s.seat), str(hand))
            if not s.out:
                stake = s.wagers["main"]
                result = compare(hand, dealer_hand, self.rules.ties)  # R-OEF-3, then R-OEF-8
                returned = main_return(result, stake, self.rules.win_odds(hand.category))
                r.settle(s, "main", stake, returned, ("lose", "push", "win")[result + 1], str(hand))
            if "jackpot" in s.wagers:
                self._settle_jackpot(r, s)
            if "flip" in s.wagers:
                bet = FlipBet.parse(s.options["flip"])
                stake = s.wagers["flip"]
                odds = self.rules.flip_odds(bet, self.flip_card)
                returned = returned_at_odds(stake, NO_PAY if odds is None else odds)  # R-OEF-10, R-0.3
                r.settle(s, "flip", stake, returned, "win" if returned else "lose", str(bet))

    def _settle_jackpot(self, r: RoundOps, s: SeatOps) -> None:
        """R-OEF-9 on the first three cards."""
        stake = s.wagers["jackpot"]
        first = self.rules.evaluate(s.initial_cards)
        if first.category == self.rules.jackpot.meter_category:
            paid = r.hit_meter(s, METER)
            outcome = "win" if paid else "lose"
            r.settle(s, "jackpot", stake, paid, outcome, str(first), meter=METER, meter_cents=paid)
            return
        paid = self.rules.jackpot.prize(first.category)
        r.settle(s, "jackpot", stake, paid, "win" if paid else "lose", str(first))

    def context(self, r: RoundOps, state: SeatOps) -> OefDecision:
        return OefDecision(tuple(state.cards), self.flip_card, self.rules.wild_cards, self.rules.bust_limit)

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        return {
            "flip_card": cards([self.flip_card])[0] if self.flip_card >= 0 else None,
            # the table's wild cards (R-OEF-1), which the page and the terminal draw marked
            "wild_cards": [str(CARDS[c]) for c in self.rules.wild_cards],
        }


def _flip_option(text: str) -> str:
    return str(FlipBet.parse(text))


def _prize(cat: Category) -> Parameter:
    """``jackpot.<hand>``: the Jackpot's fixed prize in cents for a first-three-card category (R-OEF-9)."""

    def put(r: OneEyedFlushRules, v: int) -> OneEyedFlushRules:
        prizes = {**r.jackpot.fixed_prizes_cents, cat: v}
        return dataclasses.replace(r, jackpot=dataclasses.replace(r.jackpot, fixed_prizes_cents=prizes))

    p = money(f"jackpot.{enum_key(cat)}", "jackpot", f"Jackpot prize for {enum_key(cat)}", ruling=R9)
    return dataclasses.replace(
        p, get=lambda r: r.jackpot.prize(cat), put=put, structural=False, group="jackpot"
    )


def _meter_hand(r: OneEyedFlushRules, v: str | Category) -> OneEyedFlushRules:
    """The meter's hand; its fixed prize goes (a hand takes the meter or a fixed prize, R-OEF-9)."""
    hand = next(c for c in Category if v in (c, enum_key(c)))
    prizes = {c: p for c, p in r.jackpot.fixed_prizes_cents.items() if c != hand}
    jp = dataclasses.replace(r.jackpot, meter_category=hand, fixed_prizes_cents=prizes)
    return dataclasses.replace(r, jackpot=jp)


def _pays(p: Parameter, group: str, **changes: Any) -> Parameter:
    """A payout parameter: its change re-solves without rebuilding the analysis' tables."""
    return dataclasses.replace(p, structural=False, group=group, **changes)


R1, R3, R6, R7, R8, R9, R10 = (f"R-OEF-{n}" for n in (1, 3, 6, 7, 8, 9, 10))
_DRAWS = "the dealer's {} draws when its {} card is worth this or more (11: never)"
PARAMETERS: Final[tuple[Parameter, ...]] = (
    choice("ties", "ties", Ties, "equal remaining cards or values: dealer wins or a standoff", ruling=R3),
    choice(
        "bust", "bust", BustRule, "a No Pair over the bust limit busts after a draw, or always", ruling=R6
    ),
    integer("bust-limit", "bust_limit", 5, 30, "a No Pair worth more than this busts", ruling=R6),
    integer(
        "dealer-pair-draws-from",
        "dealer_pair_draws_from",
        1,
        11,
        _DRAWS.format("Pair", "remaining"),
        ruling=R7,
    ),
    integer(
        "dealer-no-pair-draws-from",
        "dealer_no_pair_draws_from",
        1,
        11,
        _DRAWS.format("No Pair", "highest"),
        ruling=R7,
    ),
    choice("dealer-wild-draw", "dealer_wild_draw", DealerWildDraw, "the dealer's Pair With Wild", ruling=R7),
    cards_parameter("wild-cards", "wild_cards", "the wild cards", ruling=R1),
    preset(
        "main-paytable", "main_paytable", {"even-money": EVEN_MONEY}, "main wager pay table", group="main"
    ),
    *(_pays(p, "main", low=1) for p in paytable("main", "main_paytable", list(Category), "main", ruling=R8)),
    _pays(
        money("jackpot.wager", "jackpot.wager_cents", "the fixed Jackpot wager", low=1, ruling=R9), "jackpot"
    ),
    _pays(money("jackpot.reset", "jackpot.reset_cents", "the Jackpot meter's reset", ruling=R9), "jackpot"),
    _pays(
        fraction("jackpot.share", "jackpot.share", "share of a Jackpot wager to the meter", ruling=R9),
        "jackpot",
    ),
    Parameter(
        "jackpot.meter-hand",
        "the first three cards' hand that takes 100% of the Jackpot meter",
        "choice",
        lambda r: r.jackpot.meter_category,
        _meter_hand,
        choices=tuple(enum_key(c) for c in sorted(Category, reverse=True)),
        show=enum_key,
        group="jackpot",
        structural=False,
        ruling=R9,
    ),
    *(_prize(c) for c in sorted(Category, reverse=True)),  # after the meter hand: its prize must be 0
    *(
        _pays(
            integer(
                f"flip.{k.value}",
                f"flip.{k.name.lower()}",
                0,
                1000,
                f"{FLIP_WORDS[k]} pays X to 1",
                ruling=R10,
            ),
            "flip",
        )
        for k in FlipKind
    ),
)
"""Every number and choice of RULES.md §2 (issue 15), RULES.md's value the default."""


DEFINITION = GameDefinition(
    key=GAME,
    title="One Eyed Flush",
    tagline="J♥ J♠ K♦ are wild · Player must be lower",
    rules_type=OneEyedFlushRules,
    rule_options=(
        RuleOption(
            "ties", tuple(t.value for t in Ties), "equal hands: the dealer wins, or a standoff (R-OEF-3)"
        ),
        RuleOption(
            "bust", tuple(b.value for b in BustRule), "a No Pair over 14 busts after a draw or always"
        ),
        RuleOption("dealer-wild-draw", tuple(d.value for d in DealerWildDraw), "the dealer's Pair With Wild"),
    ),
    paytables=("even-money",),
    wagers=(
        Wager("main", "main", main=True),
        Wager(
            "jackpot", "Jackpot", fixed=lambda rules: rules.jackpot.wager_cents, requires="main", feeds=True
        ),
        Wager(
            "flip",
            "Flip Card",
            option=WagerOption(
                "outcome",
                tuple(str(b) for b in ALL_FLIP_BETS),
                _flip_option,
                "a value 1-9, 'ten-value' or 'one-eyed'",
                default="ten-value",
                prompt="1-9, t = ten-value, o = one-eyed",
                aliases=(("t", "ten-value"), ("ten", "ten-value"), ("o", "one-eyed"), ("one", "one-eyed")),
            ),
            requires="main",
        ),
    ),
    meters=meters,
    decisions=(
        Decision("stand", "stands", prompt="[s]tand", cautious=True),
        Decision("discard", "discards card {n} and draws", indexed=True, prompt="discard [1-{n}]"),
    ),
    default_action="stand",
    context_type=OefDecision,
    rule_of_thumb=rule_of_thumb,
    tie_break=tie_break,
    describe_hand=describe_hand,
    flow=OneEyedFlushFlow,
    analyzer="tablegames.analysis.one_eyed_flush:ANALYZER",
    protection="tablegames.analysis.protect_one_eyed_flush:PROTECTION",
    kernel="tablegames.simulation.one_eyed_flush:KERNEL",
    felt="felt/one-eyed-flush.js",
    terminal="tablegames.cli.felts.one_eyed_flush:FELT",
    parameters=PARAMETERS,
    rulings=RULINGS,
)
