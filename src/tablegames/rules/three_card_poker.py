"""Three Card Poker: Ante/Play with the Ante Bonus, and Pair Plus (RULES.md §4).

Data plus pure functions: the hand ranking on the three-card evaluator the 3-Card Bonus uses
(:func:`~tablegames.rules.poker.three_card_category_of`), the dealer's qualifier, the Ante/Play showdown, the
Ante Bonus and Pair Plus pay tables (named presets or a TOML file), and the published strategy.

>>> from tablegames.cards import parse_cards
>>> tcp_hand(parse_cards("Qs Ks As")).name, tcp_hand(parse_cards("Ah 2d 3c")).name
('STRAIGHT_FLUSH', 'STRAIGHT')
>>> strength(parse_cards("Ah 2d 3c")) < strength(parse_cards("2h 3d 4c"))  # A-2-3 is the lowest straight
True
>>> qualifies(parse_cards("Qh 4d 2c")), qualifies(parse_cards("Jh Td 8c"))
(True, False)
>>> r = ThreeCardPokerRules.from_options({"pair-plus": "40-30-6-3-1"})
>>> r.pair_plus.odds(TcpHand.FLUSH), r.ante_bonus.odds(TcpHand.STRAIGHT)
(3, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
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
from tablegames.rules.flow import DEALER, Action, BaseFlow, CardsView, RoundOps, SeatOps, seat_name
from tablegames.rules.poker import ThreeCardCategory, ranks_and_flush, three_card_category_of

GAME = "three-card-poker"


class TcpHand(IntEnum):
    """Three-card hands, best last (R-TCP-3): a straight outranks a flush, trips a straight."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    TRIPS = 4
    STRAIGHT_FLUSH = 5


_FROM_CATEGORY = {
    ThreeCardCategory.HIGH_CARD: TcpHand.HIGH_CARD,
    ThreeCardCategory.PAIR: TcpHand.PAIR,
    ThreeCardCategory.FLUSH: TcpHand.FLUSH,
    ThreeCardCategory.STRAIGHT: TcpHand.STRAIGHT,
    ThreeCardCategory.TRIPS: TcpHand.TRIPS,
    ThreeCardCategory.STRAIGHT_FLUSH: TcpHand.STRAIGHT_FLUSH,
    ThreeCardCategory.MINI_ROYAL: TcpHand.STRAIGHT_FLUSH,  # A-K-Q suited is the best straight flush
}


def tcp_hand_of(ranks: Sequence[int], flush: bool) -> TcpHand:
    """The hand of three ranks (2..14) and whether they share a suit (R-TCP-3)."""
    return _FROM_CATEGORY[three_card_category_of(ranks, flush)]


def tcp_hand(cards: Sequence[int]) -> TcpHand:
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError("a Three Card Poker hand needs 3 distinct cards")
    return tcp_hand_of(*ranks_and_flush(cards))


def strength_of(ranks: Sequence[int], flush: bool) -> int:
    """A number that orders hands as R-TCP-3 does: the category, then a pair's rank and its kicker, otherwise
    the three ranks high to low (A-2-3 counts its 3 high). Suits never break ties: equal numbers push.

    >>> strength_of([14, 14, 2], False) > strength_of([13, 13, 14], False)
    True
    """
    hand = tcp_hand_of(ranks, flush)
    rs = sorted(ranks, reverse=True)
    if hand in (TcpHand.STRAIGHT, TcpHand.STRAIGHT_FLUSH) and rs == [14, 3, 2]:
        rs = [3, 2, 1]
    elif hand == TcpHand.PAIR:
        pair = rs[1]  # the middle rank of three with one pair is the pair's
        kicker = rs[0] if rs[0] != pair else rs[2]
        rs = [pair, pair, kicker]
    return ((int(hand) * 16 + rs[0]) * 16 + rs[1]) * 16 + rs[2]


def strength(cards: Sequence[int]) -> int:
    return strength_of(*ranks_and_flush(cards))


QUALIFIER = strength_of([12, 3, 2], False)
"""R-TCP-4: the dealer qualifies with Queen high or better (the weakest such hand is Q-3-2)."""


def qualifies(cards: Sequence[int]) -> bool:
    return strength(cards) >= QUALIFIER


def showdown(player: int, dealer: int) -> int:
    """+1, 0 or -1 for a played hand of strength ``player`` against the dealer's (R-TCP-4)."""
    return (player > dealer) - (player < dealer)


def ante_play_returns(player: int, dealer: int, ante: int, play: int) -> tuple[int, int, str]:
    """What the Ante and the Play wagers return (stake included) when the player plays, and the outcome:
    the dealer not qualifying pays the Ante 1 to 1 and pushes the Play; otherwise the better hand wins both
    1 to 1 and an equal hand pushes both (R-TCP-4). The Ante Bonus is paid apart (R-TCP-5).

    >>> ante_play_returns(strength_of([2, 3, 5], False), strength_of([11, 9, 8], False), 100, 100)
    (200, 100, 'dealer does not qualify')
    >>> ante_play_returns(strength_of([12, 5, 4], False), strength_of([12, 6, 4], False), 100, 100)
    (0, 0, 'lose')
    """
    if dealer < QUALIFIER:
        return 2 * ante, play, "dealer does not qualify"
    r = showdown(player, dealer)
    if r > 0:
        return 2 * ante, 2 * play, "win"
    if r == 0:
        return ante, play, "push"
    return 0, 0, "lose"


# --- pay tables --------------------------------------------------------------------------------


def _pair_plus(name: str, sf: int, trips: int, straight: int, flush: int, pair: int) -> PayTable[TcpHand]:
    pays = {
        TcpHand.STRAIGHT_FLUSH: sf,
        TcpHand.TRIPS: trips,
        TcpHand.STRAIGHT: straight,
        TcpHand.FLUSH: flush,
        TcpHand.PAIR: pair,
    }
    return PayTable(name, TcpHand, pays)


PAIR_PLUS_PAYTABLES: Mapping[str, PayTable[TcpHand]] = {
    "40-30-6-4-1": _pair_plus("40-30-6-4-1", 40, 30, 6, 4, 1),  # R-TCP-6 default
    "40-30-6-3-1": _pair_plus("40-30-6-3-1", 40, 30, 6, 3, 1),
}

ANTE_BONUS_PAYTABLES: Mapping[str, PayTable[TcpHand]] = {
    "5-4-1": PayTable("5-4-1", TcpHand, {TcpHand.STRAIGHT_FLUSH: 5, TcpHand.TRIPS: 4, TcpHand.STRAIGHT: 1}),
}
"""R-TCP-5."""


@dataclass(frozen=True)
class ThreeCardPokerRules:
    pair_plus: PayTable[TcpHand] = PAIR_PLUS_PAYTABLES["40-30-6-4-1"]
    ante_bonus: PayTable[TcpHand] = ANTE_BONUS_PAYTABLES["5-4-1"]

    game = GAME

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> ThreeCardPokerRules:
        """Rules from ``--rule pair-plus=…`` / ``ante-bonus=…`` and an optional ``--paytable`` TOML file."""
        options = dict(options or {})
        check_known_options(GAME, options, list(RULE_OPTIONS))
        rules = cls(
            pair_plus=choose("pair-plus", options.get("pair-plus", "40-30-6-4-1"), PAIR_PLUS_PAYTABLES),
            ante_bonus=choose("ante-bonus", options.get("ante-bonus", "5-4-1"), ANTE_BONUS_PAYTABLES),
        )
        if paytable is not None:
            rules = rules.with_paytable_file(paytable)
        return rules

    def with_paytable_file(self, path: str | Path) -> ThreeCardPokerRules:
        """Replace pay tables from a TOML file with ``[pair-plus]`` and/or ``[ante-bonus]`` tables of hand = odds.

        >>> import pathlib, tempfile
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "pp.toml"
        >>> _ = f.write_text('game = "three-card-poker"\\n[pair-plus]\\nstraight-flush = 40\\ntrips = 30\\n'
        ...                  'straight = 5\\nflush = 4\\npair = 1\\n')
        >>> ThreeCardPokerRules().with_paytable_file(f).pair_plus.odds(TcpHand.STRAIGHT)
        5
        """
        data = load_toml(path)
        unknown = set(data) - {"pair-plus", "ante-bonus", "game", "name"}
        if unknown:
            raise RuleError(
                f"{path}: unknown sections {sorted(unknown)}; use [pair-plus] and/or [ante-bonus]"
            )
        if data.get("game", GAME) != GAME:
            raise RuleError(f"{path}: pay table is for {data.get('game')!r}, not {GAME}")
        name = str(data.get("name", Path(path).stem))
        pair_plus, ante_bonus = self.pair_plus, self.ante_bonus
        if isinstance(data.get("pair-plus"), dict):
            pair_plus = paytable_from_mapping(name, TcpHand, data["pair-plus"])  # type: ignore[arg-type]
        if isinstance(data.get("ante-bonus"), dict):
            ante_bonus = paytable_from_mapping(name, TcpHand, data["ante-bonus"])  # type: ignore[arg-type]
        return ThreeCardPokerRules(pair_plus, ante_bonus)

    def describe(self) -> dict[str, str]:
        return {"pair-plus": self.pair_plus.name, "ante-bonus": self.ante_bonus.name}


RULE_OPTIONS = {
    "pair-plus": "Pair Plus pay table (R-TCP-6)",
    "ante-bonus": "Ante Bonus pay table (R-TCP-5)",
}


# --- the published strategy -----------------------------------------------------------------------

PLAY_FROM = strength_of([12, 6, 4], False)
"""The published optimal strategy: play Q-6-4 or better, fold the rest."""


def plays(cards: Sequence[int]) -> bool:
    """Play (rather than fold) these three cards? Q-6-4 or better (the published strategy).

    >>> from tablegames.cards import parse_cards
    >>> plays(parse_cards("Qh 6d 4c")), plays(parse_cards("Qh 6d 3c")), plays(parse_cards("2h 2d 3c"))
    (True, False, True)
    """
    return strength(cards) >= PLAY_FROM


@dataclass(frozen=True)
class TcpDecision(DecisionContext):
    """A Three Card Poker decision: the seat's three cards (nothing else is seen, R-TCP-2)."""

    game: ClassVar[str] = GAME
    cards: tuple[int, ...]


def rule_of_thumb(ctx: TcpDecision) -> str:
    return "play" if plays(ctx.cards) else "fold"


def describe_hand(rules: ThreeCardPokerRules, cards: Sequence[int | None]) -> str:
    """The hand's name when all three cards are seen.

    >>> from tablegames.cards import parse_cards
    >>> describe_hand(ThreeCardPokerRules(), parse_cards("Th Tc 2d")), describe_hand(ThreeCardPokerRules(), [None] * 3)
    ('pair', '')
    """
    known = [c for c in cards if c is not None]
    if len(known) == 3 and len(cards) == 3:
        return enum_key(tcp_hand(known)).replace("-", " ")
    return ""


# --- the game, as data --------------------------------------------------------------------------------

PLAY = Action("play")
FOLD = Action("fold")
ANTE, PLAY_WAGER, PAIR_PLUS = "ante", "play", "pair-plus"


class ThreeCardPokerFlow(BaseFlow):
    """R-TCP-1..6, one round.

    The main wager ``ante`` is placed with the Play wager beside it, equal to it, set aside from the balance
    (``cost_multiple`` 2, like Let It Ride's three bets): playing puts it in action, folding gives it back
    and loses the Ante at once (R-TCP-2). A seat with only Pair Plus is dealt in and takes no decision.
    """

    def __init__(self, rules: ThreeCardPokerRules) -> None:
        self.rules = rules
        self.played: list[int] = []  # seats that played, in order (public: the Play wager is on the felt)

    def deal(self, r: RoundOps) -> None:
        # R-TCP-1: three cards each, face down; one at a time, seats in order, then the dealer.
        for _ in range(3):
            for s in r.active_seats:
                s.cards.append(r.draw(seat_name(s.seat), seat_name(s.seat)))
            r.dealer.append(r.draw(DEALER, ""))

    def legal(self, r: RoundOps, state: SeatOps) -> list[Action]:
        return [PLAY, FOLD]

    def apply(self, r: RoundOps, state: SeatOps, action: Action) -> None:
        state.decided = True
        if action == PLAY:
            self.played.append(state.seat)
        if action == FOLD:
            ante = state.wagers[ANTE]
            state.out = True  # a folded hand stays settled
            r.settle(state, ANTE, ante, 0, "fold", "folded")
            r.settle(state, PLAY_WAGER, ante, ante, "returned", "not played")

    def dealer_play(self, r: RoundOps) -> None:
        r.reveal(DEALER, tuple(r.dealer))
        r.hand_result(
            DEALER, describe_hand(self.rules, r.dealer) + ("" if qualifies(r.dealer) else ", no qualify")
        )

    def settle_all(self, r: RoundOps) -> None:
        dealer = strength(r.dealer)
        for s in r.active_seats:
            r.reveal(seat_name(s.seat), tuple(s.cards))
            hand = tcp_hand(s.cards)
            r.hand_result(seat_name(s.seat), enum_key(hand))
            if ANTE in s.wagers and not s.out:
                ante = s.wagers[ANTE]
                ante_ret, play_ret, outcome = ante_play_returns(strength(s.cards), dealer, ante, ante)
                bonus = self.rules.ante_bonus.odds(hand) or 0  # R-TCP-5: whatever the dealer holds
                detail = outcome + (f"; ante bonus {enum_key(hand)} {bonus} to 1" if bonus else "")
                ante_outcome = (
                    "win" if ante_ret + ante * bonus > ante else ("push" if ante_ret == ante else "lose")
                )
                r.settle(s, ANTE, ante, ante_ret + ante * bonus, ante_outcome, detail)
                play_outcome = {2 * ante: "win", ante: "push", 0: "lose"}[play_ret]
                r.settle(s, PLAY_WAGER, ante, play_ret, play_outcome, outcome)
            if PAIR_PLUS in s.wagers:  # R-TCP-6: whatever the dealer holds, played or folded
                stake = s.wagers[PAIR_PLUS]
                odds = self.rules.pair_plus.odds(hand)
                returned = 0 if odds is None else stake * (odds + 1)
                r.settle(s, PAIR_PLUS, stake, returned, "win" if returned else "lose", enum_key(hand))

    def context(self, r: RoundOps, state: SeatOps) -> TcpDecision:
        return TcpDecision(tuple(state.cards))

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        return {"played": list(self.played)}


def meters(rules: ThreeCardPokerRules) -> tuple[Meter, ...]:
    return ()


DEFINITION = GameDefinition(
    key=GAME,
    title="Three Card Poker",
    tagline="Play Q-6-4 or better · Pair Plus pays 40 to 1",
    rules_type=ThreeCardPokerRules,
    rule_options=(
        RuleOption("pair-plus", tuple(PAIR_PLUS_PAYTABLES), RULE_OPTIONS["pair-plus"]),
        RuleOption("ante-bonus", tuple(ANTE_BONUS_PAYTABLES), RULE_OPTIONS["ante-bonus"]),
    ),
    paytables=(),
    wagers=(
        Wager(
            ANTE,
            "Ante",
            main=True,
            cost_multiple=2,
            unit="the Ante; the Play, equal to it, is set aside until you play or fold",
        ),
        Wager(PAIR_PLUS, "Pair Plus"),  # R-TCP-1: may be played alone
    ),
    meters=meters,
    decisions=(
        Decision("play", "plays", prompt="[p]lay"),
        Decision("fold", "folds", prompt="[f]old"),
    ),
    default_action="fold",  # R-TCP-2: the server's timeout folds
    context_type=TcpDecision,
    rule_of_thumb=rule_of_thumb,
    describe_hand=describe_hand,
    flow=ThreeCardPokerFlow,
    analyzer="tablegames.analysis.three_card_poker:ANALYZER",
    kernel="tablegames.simulation.three_card_poker:KERNEL",
    felt="felt/three-card-poker.js",
    terminal="tablegames.cli.felts.three_card_poker:FELT",
)
