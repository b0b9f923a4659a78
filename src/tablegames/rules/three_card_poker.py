"""Three Card Poker: Ante/Play with the Ante Bonus, and Pair Plus (RULES.md §4).

Data plus pure functions: the hand ranking on the three-card evaluator the 3-Card Bonus uses
(:func:`~tablegames.rules.poker.three_card_category_of`), the dealer's qualifier, the Ante/Play showdown, the
Ante Bonus and Pair Plus pay tables (named presets or a TOML file), and the published strategy. Every number
and choice of RULES.md §4 is a parameter (``DEFINITION.parameters``, issue 15): the qualifier, the Ante and Play
payouts, the tie rule and every entry of both pay tables; RULES.md's values are the defaults.

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

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum
from pathlib import Path
from typing import Any, ClassVar

from tablegames.rules.common import (
    NO_PAY,
    PayTable,
    RuleError,
    enum_key,
    outcome_of,
    paytables_from_file,
    returned_at_odds,
)
from tablegames.rules.definition import Decision, DecisionContext, GameDefinition, Meter, RuleOption, Wager
from tablegames.rules.flow import DEALER, Action, BaseFlow, CardsView, RoundOps, SeatOps, seat_name
from tablegames.rules.parameters import apply_options, choice, describe_values, integer, paytable, preset
from tablegames.rules.poker import ThreeCardCategory, ranks_and_flush, three_card_category_of
from tablegames.rules.three_card_poker_rulings import RULINGS

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


class Qualifier(Enum):
    """What the dealer needs to qualify (R-TCP-4: queen high or better; ``qualifier=…`` for the others)."""

    QUEEN = "queen-high"
    JACK = "jack-high"
    KING = "king-high"
    ACE = "ace-high"
    PAIR = "pair"
    NONE = "none"  # the dealer always qualifies


QUALIFYING_HAND: Mapping[Qualifier, tuple[list[int], bool] | None] = {
    Qualifier.QUEEN: ([12, 3, 2], False),  # the weakest hand of each qualifier
    Qualifier.JACK: ([11, 3, 2], False),
    Qualifier.KING: ([13, 3, 2], False),
    Qualifier.ACE: ([14, 4, 2], False),  # A-3-2 is a straight
    Qualifier.PAIR: ([2, 2, 3], False),
    Qualifier.NONE: None,
}


def qualifier_strength(qualifier: Qualifier) -> int:
    """The weakest strength that qualifies (0: every hand).

    >>> qualifier_strength(Qualifier.QUEEN) == QUALIFIER, qualifier_strength(Qualifier.NONE)
    (True, 0)
    """
    hand = QUALIFYING_HAND[qualifier]
    return 0 if hand is None else strength_of(*hand)


QUALIFIER = strength_of([12, 3, 2], False)
"""R-TCP-4: the dealer qualifies with Queen high or better (the weakest such hand is Q-3-2); the default of
``qualifier``."""


class Ties(Enum):
    """An equal hand against a qualifying dealer (R-TCP-4: both push)."""

    PUSH = "push"
    DEALER = "dealer-wins"  # both lose


def showdown(player: int, dealer: int) -> int:
    """+1, 0 or -1 for a played hand of strength ``player`` against the dealer's (R-TCP-4)."""
    return (player > dealer) - (player < dealer)


NO_QUALIFY, WIN, TIE, LOSE = range(4)
"""How a played hand ends against the dealer (the rows of :meth:`ThreeCardPokerRules.result_odds`)."""
RESULT_NAMES = ("dealer does not qualify", "win", "push", "lose")


def dealer_qualifies(dealer: int, qualifying: int) -> bool:
    """R-TCP-4: a dealer hand of strength ``dealer`` qualifies from strength ``qualifying`` up."""
    return dealer >= qualifying


def result_of(player: int, dealer: int, qualifies: bool) -> int:
    """R-TCP-4 in integers, written once: how a played hand of strength ``player`` ends against the dealer's
    (:data:`NO_QUALIFY`, :data:`WIN`, :data:`TIE`, :data:`LOSE`), ``qualifies`` from :func:`dealer_qualifies`.
    The flow (through :meth:`ThreeCardPokerRules.result`) calls both; the Numba kernel compiles both.

    >>> q = QUALIFIER
    >>> [RESULT_NAMES[result_of(p, d, dealer_qualifies(d, q))] for p, d in ((q, q - 1), (q + 1, q), (q, q), (q, q + 1))]
    ['dealer does not qualify', 'win', 'push', 'lose']
    """
    if not qualifies:
        return NO_QUALIFY
    if player > dealer:
        return WIN
    if player == dealer:
        return TIE
    return LOSE


NOT_QUALIFIED = "dealer-does-not-qualify"
"""R-TCP-4: the Ante's settlement outcome (its category) when the player plays and the dealer does not qualify,
whatever that returns (1 to 1 by default, a push at ``no-qualify-ante=0``; the Ante Bonus beside it, R-TCP-5):
one name across the engine, the analysis (``category``), the simulation and the report."""


def ante_outcome(result: int, ante: int, returned: int) -> str:
    """The Ante's settlement outcome of a played hand whose showdown ended in ``result`` (:func:`result_of`),
    ``returned`` its return with the Ante Bonus: :data:`NOT_QUALIFIED` when the dealer does not qualify
    (R-TCP-4), else a win, a push or a loss by what it returns against its stake (a straight that loses the
    showdown, its Ante Bonus 1 to 1, pushes: R-TCP-5).

    >>> ante_outcome(NO_QUALIFY, 100, 200), ante_outcome(LOSE, 100, 100), ante_outcome(WIN, 100, 200)
    ('dealer-does-not-qualify', 'push', 'win')
    """
    return NOT_QUALIFIED if result == NO_QUALIFY else outcome_of(ante, returned)


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

PAID_HANDS = (TcpHand.PAIR, TcpHand.FLUSH, TcpHand.STRAIGHT, TcpHand.TRIPS, TcpHand.STRAIGHT_FLUSH)
"""The hands a pay table entry names, lowest first (a high card never pays)."""

MAX_ODDS = 100_000


@dataclass(frozen=True)
class ThreeCardPokerRules:
    """Every number and choice of RULES.md §4 (its values the defaults; ``DEFINITION.parameters`` names them).

    ``result_odds`` (R-TCP-4) says what a played Ante and Play pay, X to 1 (-1: the wager loses), by how the
    hand ends; the Ante Bonus (R-TCP-5) is paid on top, Pair Plus (R-TCP-6) apart.

    >>> ThreeCardPokerRules().result_odds
    ((1, 0), (1, 1), (0, 0), (-1, -1))
    >>> ThreeCardPokerRules(ties=Ties.DEALER, no_qualify_ante=0).result_odds
    ((0, 0), (1, 1), (-1, -1), (-1, -1))
    """

    pair_plus: PayTable[TcpHand] = PAIR_PLUS_PAYTABLES["40-30-6-4-1"]
    ante_bonus: PayTable[TcpHand] = ANTE_BONUS_PAYTABLES["5-4-1"]
    qualifier: Qualifier = Qualifier.QUEEN  # R-TCP-4
    ante_pays: int = 1  # R-TCP-4: against a qualifying dealer, a higher hand wins Ante and Play 1 to 1
    play_pays: int = 1
    no_qualify_ante: int = 1  # R-TCP-4: the dealer not qualifying pays the Ante 1 to 1 (0: a push)
    no_qualify_play: int = 0  # ... and pushes the Play
    ties: Ties = Ties.PUSH  # R-TCP-4: an equal hand pushes both

    game = GAME

    def __post_init__(self) -> None:
        for name in ("ante_pays", "play_pays", "no_qualify_ante", "no_qualify_play"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ODDS:
                raise RuleError(f"{name.replace('_', '-')} must be a whole number from 0 to {MAX_ODDS}")

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> ThreeCardPokerRules:
        """Rules from ``--rule NAME=VALUE`` (every parameter of ``DEFINITION``; ``pair-plus=…`` and
        ``ante-bonus=…`` name a preset table) on top of an optional ``--paytable`` TOML file."""
        rules = cls() if paytable is None else cls().with_paytable_file(paytable)
        return apply_options(DEFINITION.parameters, rules, options)  # type: ignore[no-any-return]

    def with_paytable_file(self, path: str | Path) -> ThreeCardPokerRules:
        """Replace pay tables from a TOML file with ``[pair-plus]`` and/or ``[ante-bonus]`` tables of hand = odds.

        >>> import pathlib, tempfile
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "pp.toml"
        >>> _ = f.write_text('game = "three-card-poker"\\n[pair-plus]\\nstraight-flush = 40\\ntrips = 30\\n'
        ...                  'straight = 5\\nflush = 4\\npair = 1\\n')
        >>> ThreeCardPokerRules().with_paytable_file(f).pair_plus.odds(TcpHand.STRAIGHT)
        5
        """
        found = paytables_from_file(path, GAME, {"pair-plus": TcpHand, "ante-bonus": TcpHand})
        pair_plus = found.get("pair-plus", self.pair_plus)
        ante_bonus = found.get("ante-bonus", self.ante_bonus)
        return dataclasses.replace(self, pair_plus=pair_plus, ante_bonus=ante_bonus)

    def describe(self) -> dict[str, str]:
        return describe_values(DEFINITION.parameters, self)

    @property
    def qualifying_strength(self) -> int:
        """The weakest dealer hand's strength that qualifies (R-TCP-4, ``qualifier``)."""
        return qualifier_strength(self.qualifier)

    def qualifies(self, cards: Sequence[int]) -> bool:
        return dealer_qualifies(strength(cards), self.qualifying_strength)

    @property
    def result_odds(self) -> tuple[tuple[int, int], ...]:
        """(Ante, Play) "X to 1" (-1: loses) for a played hand, by :data:`NO_QUALIFY`, :data:`WIN`,
        :data:`TIE`, :data:`LOSE` (R-TCP-4, with ``ante-pays``, ``play-pays``, ``no-qualify-*``, ``ties``)."""
        tie = (0, 0) if self.ties == Ties.PUSH else (-1, -1)
        return (self.no_qualify_ante, self.no_qualify_play), (self.ante_pays, self.play_pays), tie, (-1, -1)

    def result(self, player: int, dealer: int) -> int:
        """How a played hand of strength ``player`` ends against the dealer's (R-TCP-4, :func:`result_of`)."""
        return result_of(player, dealer, dealer_qualifies(dealer, self.qualifying_strength))

    def result_name(self, result: int) -> str:
        if result == TIE and self.ties == Ties.DEALER:
            return "tie (the dealer wins ties)"
        return RESULT_NAMES[result]

    def ante_play_returns(self, player: int, dealer: int, ante: int, play: int) -> tuple[int, int, str]:
        """What the Ante and the Play return (stake included) when the player plays, and the outcome (R-TCP-4;
        by default: the dealer not qualifying pays the Ante 1 to 1 and pushes the Play, otherwise the better
        hand wins both 1 to 1 and an equal hand pushes both). The Ante Bonus is paid apart (R-TCP-5)."""
        res = self.result(player, dealer)
        a, p = self.result_odds[res]
        return ante * (1 + a), play * (1 + p), "lose" if res == LOSE else self.result_name(res)


def qualifies(cards: Sequence[int], rules: ThreeCardPokerRules | None = None) -> bool:
    """Does the dealer qualify with these cards (R-TCP-4: queen high or better, or the rules' ``qualifier``)?"""
    return (rules or ThreeCardPokerRules()).qualifies(cards)


def ante_play_returns(
    player: int, dealer: int, ante: int, play: int, rules: ThreeCardPokerRules | None = None
) -> tuple[int, int, str]:
    """:meth:`ThreeCardPokerRules.ante_play_returns` (RULES.md's rules unless ``rules`` is given).

    >>> ante_play_returns(strength_of([2, 3, 5], False), strength_of([11, 9, 8], False), 100, 100)
    (200, 100, 'dealer does not qualify')
    >>> ante_play_returns(strength_of([12, 5, 4], False), strength_of([12, 6, 4], False), 100, 100)
    (0, 0, 'lose')
    >>> king = ThreeCardPokerRules(qualifier=Qualifier.KING)
    >>> ante_play_returns(strength_of([2, 3, 5], False), strength_of([12, 9, 8], False), 100, 100, king)
    (200, 100, 'dealer does not qualify')
    """
    return (rules or ThreeCardPokerRules()).ante_play_returns(player, dealer, ante, play)


def _payout(name: str, path: str, help: str) -> Any:
    return integer(name, path, 0, MAX_ODDS, help, ruling="R-TCP-4", group="ante and play", structural=False)


PARAMETERS = (
    choice("qualifier", "qualifier", Qualifier, "what the dealer needs to qualify", ruling="R-TCP-4"),
    _payout("ante-pays", "ante_pays", "a higher hand than a qualifying dealer's: the Ante pays X to 1"),
    _payout("play-pays", "play_pays", "a higher hand than a qualifying dealer's: the Play pays X to 1"),
    _payout(
        "no-qualify-ante", "no_qualify_ante", "the dealer does not qualify: the Ante pays X to 1 (0: push)"
    ),
    _payout(
        "no-qualify-play", "no_qualify_play", "the dealer does not qualify: the Play pays X to 1 (0: push)"
    ),
    dataclasses.replace(
        choice("ties", "ties", Ties, "an equal hand against a qualifying dealer", ruling="R-TCP-4"),
        group="ante and play",
        structural=False,
    ),
    preset(
        "ante-bonus", "ante_bonus", ANTE_BONUS_PAYTABLES, "Ante Bonus pay table (R-TCP-5)", group="Ante Bonus"
    ),
    *paytable("ante-bonus", "ante_bonus", PAID_HANDS, "Ante Bonus", ruling="R-TCP-5", high=MAX_ODDS),
    preset("pair-plus", "pair_plus", PAIR_PLUS_PAYTABLES, "Pair Plus pay table (R-TCP-6)", group="Pair Plus"),
    *paytable("pair-plus", "pair_plus", PAID_HANDS, "Pair Plus", ruling="R-TCP-6", high=MAX_ODDS),
)
"""Every number and choice of RULES.md §4 (issue 15): the qualifier is structural (the analysis recounts the
dealer hands against each player hand), the rest are payouts re-solved from the same counts."""

RULE_OPTIONS = {
    "pair-plus": "Pair Plus pay table (R-TCP-6)",
    "ante-bonus": "Ante Bonus pay table (R-TCP-5)",
    "qualifier": "what the dealer needs to qualify (R-TCP-4)",
    "ties": "an equal hand against a qualifying dealer: both push, or the dealer wins (R-TCP-4)",
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
            DEALER,
            describe_hand(self.rules, r.dealer) + ("" if self.rules.qualifies(r.dealer) else ", no qualify"),
        )

    def settle_all(self, r: RoundOps) -> None:
        dealer = strength(r.dealer)
        for s in r.active_seats:
            r.reveal(seat_name(s.seat), tuple(s.cards))
            hand = tcp_hand(s.cards)
            r.hand_result(seat_name(s.seat), enum_key(hand))
            if ANTE in s.wagers and not s.out:
                ante = s.wagers[ANTE]
                ante_ret, play_ret, outcome = self.rules.ante_play_returns(
                    strength(s.cards), dealer, ante, ante
                )
                bonus = self.rules.ante_bonus.odds(hand) or 0  # R-TCP-5: whatever the dealer holds
                detail = outcome + (f"; ante bonus {enum_key(hand)} {bonus} to 1" if bonus else "")
                res = self.rules.result(strength(s.cards), dealer)
                returned = ante_ret + ante * bonus
                r.settle(s, ANTE, ante, returned, ante_outcome(res, ante, returned), detail)
                play_outcome = "win" if play_ret > ante else ("push" if play_ret == ante else "lose")
                r.settle(s, PLAY_WAGER, ante, play_ret, play_outcome, outcome)
            if PAIR_PLUS in s.wagers:  # R-TCP-6: whatever the dealer holds, played or folded
                stake = s.wagers[PAIR_PLUS]
                odds = self.rules.pair_plus.odds(hand)
                returned = returned_at_odds(stake, NO_PAY if odds is None else odds)
                r.settle(s, PAIR_PLUS, stake, returned, "win" if returned else "lose", enum_key(hand))

    def context(self, r: RoundOps, state: SeatOps) -> TcpDecision:
        return TcpDecision(tuple(state.cards))

    def extra_view(self, r: RoundOps, cards: CardsView) -> dict[str, Any]:
        # parts_up: the parts of the Ante a page draws with chips (the Play once the seat played, R-TCP-2)
        up = {str(s.seat): [ANTE, PLAY_WAGER] if s.seat in self.played else [ANTE] for s in r.active_seats}
        return {"played": list(self.played), "parts_up": up}


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
        RuleOption("qualifier", tuple(q.value for q in Qualifier), RULE_OPTIONS["qualifier"]),
        RuleOption("ties", tuple(t.value for t in Ties), RULE_OPTIONS["ties"]),
    ),
    paytables=(),
    wagers=(
        Wager(
            ANTE,
            "Ante",
            main=True,
            cost_multiple=2,
            unit="the Ante; the Play, equal to it, is set aside until you play or fold",
            companions=((PLAY_WAGER, "Play"),),  # R-TCP-2: the Play, settled under its own name
        ),
        Wager(PAIR_PLUS, "Pair Plus"),  # R-TCP-1: may be played alone
    ),
    meters=meters,
    decisions=(
        Decision("play", "plays", prompt="[p]lay"),
        Decision("fold", "folds", prompt="[f]old", cautious=True),  # an exact tie folds
    ),
    default_action="fold",  # R-TCP-2: the server's timeout folds
    context_type=TcpDecision,
    rule_of_thumb=rule_of_thumb,
    describe_hand=describe_hand,
    flow=ThreeCardPokerFlow,
    analyzer="tablegames.analysis.three_card_poker:ANALYZER",
    protection="tablegames.analysis.protect_three_card_poker:PROTECTION",
    kernel="tablegames.simulation.three_card_poker:KERNEL",
    felt="felt/three-card-poker.js",
    terminal="tablegames.cli.felts.three_card_poker:FELT",
    parameters=PARAMETERS,
    rulings=RULINGS,
)
