"""One Eyed Flush: a three-card game where J♥ J♠ K♦ are wild (RULES.md §2).

Data plus pure functions: card values, hand evaluation with wilds, comparison, bust, the dealer's draw
policy, the Jackpot and Flip Card wagers, and a rule-of-thumb player strategy.

>>> from tablegames.cards import parse_cards
>>> h = evaluate(parse_cards("J♥ 5♣ 9♦")); h.category.name, h.key
('PAIR_WITH_WILD', 5)
>>> compare(h, evaluate(parse_cards("8♠ 8♦ 2♣")))
1
>>> compare(evaluate(parse_cards("J♠ K♦ 4♣")), evaluate(parse_cards("J♥ 7♣ 7♦")))
0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, Final

from tablegames.cards import CARDS, Card, Rank, Suit
from tablegames.rules.common import (
    PayTable,
    RuleError,
    check_known_options,
    choose,
    load_toml,
    paytable_from_mapping,
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

GAME = "one-eyed-flush"

WILD_CARDS: Final[frozenset[Card]] = frozenset(
    {Card.of(Rank.JACK, Suit.HEARTS), Card.of(Rank.JACK, Suit.SPADES), Card.of(Rank.KING, Suit.DIAMONDS)}
)
"""R-OEF-1: the one-eyed cards."""

CLASSES: Final = CardClasses(WILD_CARDS)
"""R-OEF-1/2: a card plays by its rank unless it is wild; suits play no other role. The classes the exact
analysis and the simulation both enumerate (13 natural ranks and the wild class)."""


def is_wild(card: int) -> bool:
    return card in WILD_CARDS


def point_value(card: int) -> int:
    """R-OEF-1: A = 1, 2-10 pip value, J/Q/K = 10."""
    r = int(CARDS[card].rank)
    return 1 if r == 14 else min(r, 10)


class Category(IntEnum):
    """R-OEF-2, best last (higher value = better hand)."""

    NO_PAIR = 0
    PAIR = 1
    TRIPS = 2
    PAIR_WITH_WILD = 3
    TRIPS_WITH_WILD = 4
    ONE_EYED_FLUSH = 5


@dataclass(frozen=True, order=True)
class Hand:
    """An evaluated hand: its category and key (remaining card value for pairs, total for No Pair)."""

    category: Category
    key: int = 0

    @property
    def has_pair_or_better(self) -> bool:
        return self.category != Category.NO_PAIR

    def __str__(self) -> str:
        name = self.category.name.replace("_", " ").title()
        if self.category in (Category.PAIR, Category.PAIR_WITH_WILD):
            return f"{name} (remaining {self.key})"
        if self.category == Category.NO_PAIR:
            return f"No Pair ({self.key})"
        return name


def _rank_key(card: int) -> int:
    """Rank used for pairing (R-OEF-1: by rank, not by point value)."""
    return int(CARDS[card].rank)


def evaluate(cards: Sequence[int]) -> Hand:
    """Category and key of three cards; a wild always plays as best it can (R-OEF-2)."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError("One Eyed Flush hands are 3 distinct cards")
    wilds = sum(1 for c in cards if c in WILD_CARDS)
    naturals = [c for c in cards if c not in WILD_CARDS]
    if wilds == 3:
        return Hand(Category.ONE_EYED_FLUSH)
    if wilds == 2:
        return Hand(Category.TRIPS_WITH_WILD)
    if wilds == 1:
        a, b = naturals
        if _rank_key(a) == _rank_key(b):
            return Hand(Category.TRIPS_WITH_WILD)
        # The wild pairs with the higher-valued card; the lower-valued one remains.
        return Hand(Category.PAIR_WITH_WILD, min(point_value(a), point_value(b)))
    ranks = [_rank_key(c) for c in cards]
    distinct = set(ranks)
    if len(distinct) == 1:
        return Hand(Category.TRIPS)
    if len(distinct) == 2:
        odd = next(c for c in cards if ranks.count(_rank_key(c)) == 1)
        return Hand(Category.PAIR, point_value(odd))
    return Hand(Category.NO_PAIR, sum(point_value(c) for c in cards))


class Ties(Enum):
    CASINO = "casino"
    TOURNAMENT = "tournament"


class BustRule(Enum):
    AFTER_DRAW = "after-draw"
    ALWAYS = "always"


class DealerWildDraw(Enum):
    VS_WILD = "vs-wild"
    ALWAYS = "always"
    NEVER = "never"


_PUSH_CATEGORIES = frozenset({Category.ONE_EYED_FLUSH, Category.TRIPS_WITH_WILD, Category.TRIPS})


def compare(player: Hand, dealer: Hand, ties: Ties = Ties.CASINO) -> int:
    """+1 player wins, 0 standoff, -1 dealer wins (R-OEF-3)."""
    if player.category != dealer.category:
        return 1 if player.category > dealer.category else -1
    if player.category in _PUSH_CATEGORIES:
        return 0
    if player.key != dealer.key:
        return 1 if player.key < dealer.key else -1  # lower remaining card / lower total wins
    return 0 if ties == Ties.TOURNAMENT else -1  # "player must be lower"


BUST_LIMIT: Final = 14


def is_bust(hand: Hand, drew: bool, rule: BustRule = BustRule.AFTER_DRAW) -> bool:
    """R-OEF-6: a No Pair over 14 busts, after a draw only (or always, by variant)."""
    if hand.category != Category.NO_PAIR or hand.key <= BUST_LIMIT:
        return False
    return drew or rule == BustRule.ALWAYS


def _discard_order(card: int) -> tuple[int, int]:
    """Sort key: higher value first, then higher rank (K, Q, J, 10) on equal value (R-OEF-7)."""
    return (point_value(card), _rank_key(card))


def dealer_discard(
    cards: Sequence[int], player_holds_wild: bool, rule: DealerWildDraw = DealerWildDraw.VS_WILD
) -> int | None:
    """Index of the card the dealer discards before drawing, or None to stand (R-OEF-7).

    ``player_holds_wild``: some player still in the round (not busted) holds a final hand with a wild card.

    >>> from tablegames.cards import parse_cards
    >>> dealer_discard(parse_cards("8s 8d 5c"), False), dealer_discard(parse_cards("8s 8d 4c"), False)
    (2, None)
    >>> dealer_discard(parse_cards("2s Qc Kh"), False)
    2
    >>> dealer_discard(parse_cards("Jh 5c 9d"), False), dealer_discard(parse_cards("Jh 5c 9d"), True)
    (None, 2)
    """
    hand = evaluate(cards)
    naturals = [i for i, c in enumerate(cards) if c not in WILD_CARDS]
    if hand.category == Category.PAIR:
        if hand.key >= 5:
            return next(i for i in naturals if [_rank_key(c) for c in cards].count(_rank_key(cards[i])) == 1)
        return None
    if hand.category == Category.NO_PAIR:
        top = max(naturals, key=lambda i: _discard_order(cards[i]))
        return top if point_value(cards[top]) >= 7 else None
    if hand.category == Category.PAIR_WITH_WILD:
        draw = rule == DealerWildDraw.ALWAYS or (rule == DealerWildDraw.VS_WILD and player_holds_wild)
        return max(naturals, key=lambda i: _discard_order(cards[i])) if draw else None
    return None


def holds_wild(cards: Sequence[int]) -> bool:
    return any(c in WILD_CARDS for c in cards)


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
            raise RuleError("jackpot wager must be a positive number of cents")
        if not 0 <= self.share < 1:
            raise RuleError("jackpot share must be in [0, 1)")

    def __hash__(self) -> int:  # the dict field is not hashable; rules objects key caches (lru_cache)
        prizes = frozenset(self.fixed_prizes_cents.items())
        return hash((self.wager_cents, self.reset_cents, self.share, self.meter_category, prizes))


class FlipKind(Enum):
    VALUE = "value"
    TEN_VALUE = "ten-value"
    ONE_EYED = "one-eyed"


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


FLIP_ODDS: Final[Mapping[FlipKind, int]] = {FlipKind.VALUE: 11, FlipKind.TEN_VALUE: 2, FlipKind.ONE_EYED: 15}


def flip_odds(bet: FlipBet, flip_card: int) -> int | None:
    """``X`` of "X to 1" when the Flip Card matches ``bet``, else None (R-OEF-10)."""
    if bet.kind == FlipKind.ONE_EYED:
        hit = flip_card in WILD_CARDS
    elif bet.kind == FlipKind.TEN_VALUE:
        hit = point_value(flip_card) == 10
    else:
        hit = point_value(flip_card) == bet.value
    return FLIP_ODDS[bet.kind] if hit else None


ALL_FLIP_BETS: Final[tuple[FlipBet, ...]] = (
    *(FlipBet(FlipKind.VALUE, v) for v in range(1, 10)),
    FlipBet(FlipKind.TEN_VALUE),
    FlipBet(FlipKind.ONE_EYED),
)


# --- rules object ------------------------------------------------------------------------------

_TIES = {t.value: t for t in Ties}
_BUST = {b.value: b for b in BustRule}
_DWD = {d.value: d for d in DealerWildDraw}

EVEN_MONEY = PayTable("even-money", Category, {c: 1 for c in Category})
"""R-OEF-8 default: every main-wager win pays 1 to 1, whatever the winning category."""


@dataclass(frozen=True)
class OneEyedFlushRules:
    ties: Ties = Ties.CASINO
    bust: BustRule = BustRule.AFTER_DRAW
    dealer_wild_draw: DealerWildDraw = DealerWildDraw.VS_WILD
    main_paytable: PayTable[Category] = EVEN_MONEY
    jackpot: JackpotConfig = JackpotConfig()

    game = GAME

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> OneEyedFlushRules:
        options = dict(options or {})
        check_known_options(GAME, options, [o.name for o in DEFINITION.rule_options])
        rules = cls(
            ties=choose("ties", options.get("ties", "casino"), _TIES),
            bust=choose("bust", options.get("bust", "after-draw"), _BUST),
            dealer_wild_draw=choose("dealer-wild-draw", options.get("dealer-wild-draw", "vs-wild"), _DWD),
        )
        if paytable is not None and paytable != "even-money":
            data = load_toml(paytable)
            main = data.get("main")
            if not isinstance(main, dict):
                raise RuleError(f"{paytable}: needs a [main] table of winning category = odds")
            table = paytable_from_mapping(str(data.get("name", Path(paytable).stem)), Category, main)
            rules = cls(rules.ties, rules.bust, rules.dealer_wild_draw, table, rules.jackpot)
        return rules

    def win_odds(self, category: Category) -> int:
        """Odds paid on a main-wager win with this category (R-OEF-8)."""
        return self.main_paytable.odds(category) or 1

    def describe(self) -> dict[str, str]:
        return {
            "ties": self.ties.value,
            "bust": self.bust.value,
            "dealer-wild-draw": self.dealer_wild_draw.value,
            "paytable": self.main_paytable.name,
        }


# --- rule-of-thumb player strategy (replaced by the exact optimal one where available) ---------


def rule_of_thumb_discard(cards: Sequence[int], flip_card: int) -> int | None:
    """A simple documented strategy: index to discard, or None to stand.

    Keep any hand with a wild card, trips, and pairs whose remaining card is 4 or less; otherwise draw to a
    pair by throwing the remaining card; with No Pair, stand on 14 or less and throw the highest card otherwise.

    >>> from tablegames.cards import parse_cards
    >>> rule_of_thumb_discard(parse_cards("5c 5d 9h"), 0), rule_of_thumb_discard(parse_cards("Ac 2d 3h"), 0)
    (2, None)
    >>> rule_of_thumb_discard(parse_cards("9c Qd 8h"), 0)
    1
    """
    hand = evaluate(cards)
    if hand.category == Category.PAIR:
        if hand.key <= 4:
            return None
        return next(
            i
            for i, c in enumerate(cards)
            if point_value(c) == hand.key and [_rank_key(x) for x in cards].count(_rank_key(c)) == 1
        )
    if hand.category == Category.NO_PAIR:
        if hand.key <= BUST_LIMIT:
            return None
        return max(range(3), key=lambda i: _discard_order(cards[i]))
    return None


# --- the game, as data --------------------------------------------------------------------------------

METER = "one-eyed-flush"
"""The Jackpot's meter (R-OEF-9): the One Eyed Flush on the first three cards takes it."""


@dataclass(frozen=True)
class OefDecision(DecisionContext):
    """A One Eyed Flush decision: the seat's three cards and the dealer's Flip Card."""

    game: ClassVar[str] = GAME
    cards: tuple[int, ...]
    flip_card: int


def rule_of_thumb(ctx: OefDecision) -> str:
    i = rule_of_thumb_discard(ctx.cards, ctx.flip_card)
    return "stand" if i is None else f"discard {i}"


def describe_hand(rules: OneEyedFlushRules, cards: Sequence[int | None]) -> str:
    """The evaluated hand, when its three cards are seen.

    >>> from tablegames.cards import parse_cards
    >>> describe_hand(OneEyedFlushRules(), parse_cards("J♥ 5♣ 9♦"))
    'Pair With Wild (remaining 5)'
    """
    known = [c for c in cards if c is not None]
    return str(evaluate(known)) if len(known) == 3 else ""


def meters(rules: OneEyedFlushRules) -> tuple[Meter, ...]:
    jp = rules.jackpot
    return (Meter(METER, jp.reset_cents, jp.share, "One Eyed Flush jackpot"),)


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
        hand = evaluate(state.cards)
        if is_bust(hand, state.seat in self.drew, self.rules.bust):
            state.out = True
            # the hand is still face down: its description is the seat's own until the dealer shows it
            r.settle(
                state, "main", state.wagers["main"], 0, "bust", str(hand), visible_to=seat_name(state.seat)
            )

    def dealer_play(self, r: RoundOps) -> None:
        r.reveal(DEALER, tuple(r.dealer))
        wild = any(holds_wild(s.cards) for s in r.active_seats if not s.out)
        idx = dealer_discard(r.dealer, wild, self.rules.dealer_wild_draw)
        if idx is not None:
            r.discard(DEALER, r.dealer[idx], PUBLIC)
            r.dealer[idx] = r.draw(DEALER, PUBLIC)
        r.hand_result(DEALER, str(evaluate(r.dealer)))

    def settle_all(self, r: RoundOps) -> None:
        dealer_hand = evaluate(r.dealer)
        for s in r.active_seats:
            r.reveal(seat_name(s.seat), tuple(s.cards))
            hand = evaluate(s.cards)
            r.hand_result(seat_name(s.seat), str(hand))
            if not s.out:
                stake = s.wagers["main"]
                result = compare(hand, dealer_hand, self.rules.ties)
                if result > 0:
                    r.settle(
                        s, "main", stake, stake * (1 + self.rules.win_odds(hand.category)), "win", str(hand)
                    )
                elif result == 0:
                    r.settle(s, "main", stake, stake, "push", str(hand))
                else:
                    r.settle(s, "main", stake, 0, "lose", str(hand))
            if "jackpot" in s.wagers:
                self._settle_jackpot(r, s)
            if "flip" in s.wagers:
                bet = FlipBet.parse(s.options["flip"])
                stake = s.wagers["flip"]
                odds = flip_odds(bet, self.flip_card)
                returned = 0 if odds is None else stake * (odds + 1)
                r.settle(s, "flip", stake, returned, "win" if returned else "lose", str(bet))

    def _settle_jackpot(self, r: RoundOps, s: SeatOps) -> None:
        """R-OEF-9 on the first three cards."""
        stake = s.wagers["jackpot"]
        first = evaluate(s.initial_cards)
        if first.category == self.rules.jackpot.meter_category:
            paid = r.hit_meter(s, METER)
            outcome = "win" if paid else "lose"
            r.settle(s, "jackpot", stake, paid, outcome, str(first), meter=METER, meter_cents=paid)
            return
        paid = self.rules.jackpot.fixed_prizes_cents.get(first.category, 0)
        r.settle(s, "jackpot", stake, paid, "win" if paid else "lose", str(first))

    def context(self, r: RoundOps, state: SeatOps) -> OefDecision:
        return OefDecision(tuple(state.cards), self.flip_card)

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        return {"flip_card": cards([self.flip_card])[0] if self.flip_card >= 0 else None}


def _flip_option(text: str) -> str:
    return str(FlipBet.parse(text))


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
    describe_hand=describe_hand,
    flow=OneEyedFlushFlow,
    analyzer="tablegames.analysis.one_eyed_flush:ANALYZER",
    kernel="tablegames.simulation.one_eyed_flush:KERNEL",
    felt="felt/one-eyed-flush.js",
    terminal="tablegames.cli.felts.one_eyed_flush:FELT",
)
