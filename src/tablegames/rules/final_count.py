"""Final Count: the patented odd/even three-card game (RULES.md §3).

Every number and choice of §3 is a parameter (issue 15), RULES.md's value the default: the value of each
rank (``value.A`` ... ``value.K``, R-FC-1; ``face-value=0`` is the preset for J/Q/K = 0), what a tie does
(``tie``), and the odds of the two wins (``win-pays``, ``dealer-bust-pays``, R-FC-5; "X to 1", R-0.3).

>>> from tablegames.cards import parse_cards
>>> r = FinalCountRules()
>>> r.total(parse_cards("Kc 4d")), r.total(parse_cards("Kc 4d")) % 2 == 0
(14, True)
>>> FinalCountRules.from_options({"face-value": "0"}).total(parse_cards("Kc 4d"))
4
>>> showdown(12, 14), showdown(None, 14), showdown(8, 15)
(-1, -1, 1)
>>> r2 = FinalCountRules.from_options({"dealer-bust-pays": "2", "tie": "lose"})
>>> r2.net(8, 15), r2.net(12, 12), r2.net(14, 12), r2.net(None, 15)
(2, -1, 1, -1)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from tablegames.rules.common import RuleError
from tablegames.rules.definition import Decision, DecisionContext, GameDefinition, Meter, RuleOption, Wager
from tablegames.rules.final_count_rulings import RULINGS
from tablegames.rules.flow import DEALER, PUBLIC, Action, BaseFlow, RoundOps, SeatOps, seat_name
from tablegames.rules.parameters import Parameter, apply_options, choice, describe_values, integer

GAME = "final-count"

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""The ranks by index ``card >> 2`` (``rank - 2``), as the ``value.RANK`` parameters name them."""
DEFAULT_VALUES = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1)
"""R-FC-1: A = 1, 2-10 pip value, J/Q/K = 10 (by rank index)."""
MAX_VALUE = 13  # a rank counts 0..13 (J/Q/K = 11/12/13 is the largest sensible reading)
MAX_PAYS = 100  # the largest "X to 1" of a win

# The five ways a seat still holding a wager ends (R-FC-5; "player odd" is R-FC-3/4's loss at once).
DEALER_ODD, HIGHER, TIE, LOWER, PLAYER_ODD = range(5)
CATEGORIES = ("dealer odd", "higher total", "tie", "lower total", "player odd")


class FaceValue(Enum):
    """The ``face-value`` preset: J, Q and K count 10 (R-FC-1) or 0 (its variant)."""

    TEN = "10"
    ZERO = "0"


class Tie(Enum):
    """R-FC-5: equal even totals push (the default); variants: the player wins them (at ``win-pays``) or
    loses them."""

    PUSH = "push"
    WIN = "win"
    LOSE = "lose"


@dataclass(frozen=True)
class FinalCountRules:
    values: tuple[int, ...] = DEFAULT_VALUES  # by rank index (``card >> 2``), R-FC-1
    tie: Tie = Tie.PUSH  # R-FC-5
    win_pays: int = 1  # a higher even total wins X to 1 (R-FC-5)
    dealer_bust_pays: int = 1  # an odd dealer total pays every player still in X to 1 (R-FC-5)

    game = GAME

    def __post_init__(self) -> None:
        if len(self.values) != 13 or any(not 0 <= v <= MAX_VALUE for v in self.values):
            raise RuleError(f"card values: 13 whole numbers from 0 to {MAX_VALUE}, got {self.values!r}")

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> FinalCountRules:
        if paytable is not None:
            raise RuleError(f"{GAME} has no pay table (its pays are win-pays and dealer-bust-pays)")
        return apply_options(DEFINITION.parameters, cls(), options)  # type: ignore[no-any-return]

    def value(self, card: int) -> int:
        """R-FC-1: the card's value by its rank (A = 1, 2-10 pip value, J/Q/K = 10 by default)."""
        return self.values[int(card) >> 2]

    def total(self, cards: Sequence[int]) -> int:
        return sum(self.value(c) for c in cards)

    @property
    def max_value(self) -> int:
        return max(self.values)

    def category(self, player_total: int | None, dealer_total: int) -> int:
        """How a seat ends against the dealer's three-card total: an index into :data:`CATEGORIES`
        (``player_total`` None: the seat's odd total already lost, R-FC-3/4); :func:`category_of`."""
        return category_of(player_total is None, player_total or 0, dealer_total)

    @property
    def pays(self) -> tuple[int, int, int, int, int]:
        """The net of one unit by category (R-FC-5 and its parameters; R-0.3 "X to 1")."""
        tie = {Tie.PUSH: 0, Tie.WIN: self.win_pays, Tie.LOSE: -1}[self.tie]
        return (self.dealer_bust_pays, self.win_pays, tie, -1, -1)

    def net(self, player_total: int | None, dealer_total: int) -> int:
        """The net of one unit wagered (R-FC-5 with this table's pays and tie rule)."""
        return self.pays[self.category(player_total, dealer_total)]

    def describe(self) -> dict[str, str]:
        return describe_values(DEFINITION.parameters, self)


def _value_parameter(index: int) -> Parameter:
    name = RANK_NAMES[index]

    def put(r: FinalCountRules, v: int) -> FinalCountRules:
        values = list(r.values)
        values[index] = v
        return dataclasses.replace(r, values=tuple(values))

    return Parameter(
        f"value.{name}",
        f"the value of {'an' if name in ('A', '8') else 'a'} {name}",
        "int",
        lambda r: r.values[index],
        put,
        0,
        MAX_VALUE,
        group="card values",
        ruling="R-FC-1",
    )


def _face_value(r: FinalCountRules, v: str) -> FinalCountRules:
    face = int(FaceValue(v).value)
    return dataclasses.replace(r, values=(*r.values[:9], face, face, face, r.values[12]))


def _parameters() -> tuple[Parameter, ...]:
    order = (12, *range(12))  # A, 2 ... K, as players count
    return (
        Parameter(
            "face-value",
            "J/Q/K count 10 or 0 (writes value.J, value.Q, value.K)",
            "preset",
            lambda r: r.values[11],  # a preset is not read back: value.J, value.Q and value.K are
            _face_value,
            choices=tuple(f.value for f in FaceValue),
            listed=False,
            group="card values",
            ruling="R-FC-1",
        ),
        *(_value_parameter(i) for i in order),
        dataclasses.replace(
            choice("tie", "tie", Tie, "what equal even totals do", ruling="R-FC-5", group="pays"),
            structural=False,
        ),
        integer(
            "win-pays",
            "win_pays",
            0,
            MAX_PAYS,
            "a higher even total than the dealer's wins X to 1",
            ruling="R-FC-5",
            group="pays",
            structural=False,
        ),
        integer(
            "dealer-bust-pays",
            "dealer_bust_pays",
            0,
            MAX_PAYS,
            "an odd dealer total pays every player still in X to 1 (1 = even money)",
            ruling="R-FC-5",
            group="pays",
            structural=False,
        ),
    )


def category_of(odd_total: int, player_total: int, dealer_total: int) -> int:
    """R-FC-3..5 in integers, written once: how a seat ends (an index into :data:`CATEGORIES`) when its turned
    total was odd (``odd_total`` nonzero: lost at once) or against the dealer's three-card total. The flow (through
    :meth:`FinalCountRules.category`), the Numba kernel (``njit`` of this very function) and the solver's
    tables all call it.

    >>> [CATEGORIES[category_of(False, p, d)] for p, d in ((12, 15), (14, 12), (12, 12), (8, 12))]
    ['dealer odd', 'higher total', 'tie', 'lower total']
    >>> CATEGORIES[category_of(True, 0, 15)]
    'player odd'
    """
    if odd_total:
        return PLAYER_ODD
    if dealer_total % 2 == 1:
        return DEALER_ODD
    if player_total == dealer_total:
        return TIE
    if player_total > dealer_total:
        return HIGHER
    return LOWER


def must_turn(two_card_total: int) -> bool:
    """R-FC-3: an odd two-card total has its third card turned by the dealer; no choice."""
    return two_card_total % 2 == 1


def player_final_total(two_card_total: int, third_value: int, turned: bool) -> int | None:
    """The player's final total, or None when the turned third card makes it odd (R-FC-3, R-FC-4)."""
    if not turned:
        if two_card_total % 2:
            raise ValueError("an odd two-card total must be turned (R-FC-3)")
        return two_card_total
    total = two_card_total + third_value
    return None if total % 2 else total


def showdown(player_total: int | None, dealer_total: int) -> int:
    """+1 win, 0 push, -1 loss for a player against the dealer's three-card total (R-FC-5 as RULES.md
    deals it; a table's own pays and tie rule: :meth:`FinalCountRules.net`).

    ``player_total`` is None when the player already lost (odd total).
    """
    return (1, 1, 0, -1, -1)[category_of(player_total is None, player_total or 0, dealer_total)]


def rule_of_thumb_turn(two_card_total: int, dealer_up_total: int) -> bool:
    """A simple documented strategy for an even two-card total: stand, unless the two-card total is 4 or less
    and the dealer already shows 16 or more (turning risks losing at once half the time, while a standing
    player still wins whenever the dealer busts).

    >>> rule_of_thumb_turn(4, 16), rule_of_thumb_turn(18, 4), rule_of_thumb_turn(8, 20)
    (True, False, False)
    """
    return two_card_total <= 4 and dealer_up_total >= 16


# --- the game, as data --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FcDecision(DecisionContext):
    """A Final Count decision on an even two-card total: the two face-up cards of the seat and of the
    dealer, and their totals by the table's card values (R-FC-1, ``face-value`` included)."""

    game: ClassVar[str] = GAME
    player_up: tuple[int, ...]
    dealer_up: tuple[int, ...]
    total: int
    dealer_total: int


def rule_of_thumb(ctx: FcDecision) -> str:
    return "turn" if rule_of_thumb_turn(ctx.total, ctx.dealer_total) else "stand"


def describe_hand(rules: FinalCountRules, cards: Sequence[int | None]) -> str:
    """The total of the cards seen, and whether it is odd.

    >>> from tablegames.cards import parse_cards
    >>> describe_hand(FinalCountRules(), [*parse_cards("Kc 5d"), None])
    'showing 15 (odd)'
    """
    known = [c for c in cards if c is not None]
    if not known:
        return ""
    total = rules.total(known)
    return f"{'total' if len(known) == 3 else 'showing'} {total} ({'odd' if total % 2 else 'even'})"


STAND = Action("stand")
TURN = Action("turn")


class FinalCountFlow(BaseFlow):
    """R-FC-1..5, one round: each seat's final total (None: an odd total, lost at once)."""

    def __init__(self, rules: FinalCountRules) -> None:
        self.rules = rules
        self.final: dict[int, int | None] = {}

    def deal(self, r: RoundOps) -> None:
        for i in range(3):
            vis_seat = PUBLIC if i < 2 else ""  # R-FC-2: third card face down, unseen by everyone
            for s in r.active_seats:
                s.cards.append(r.draw(seat_name(s.seat), vis_seat))
            r.dealer.append(r.draw(DEALER, vis_seat))

    def _two(self, state: SeatOps) -> int:
        return self.rules.total(state.cards[:2])

    def auto_step(self, r: RoundOps) -> bool:
        seat = r.to_act
        if seat is None:
            return False
        state = r.seats[seat]
        if must_turn(self._two(state)):
            self._turn(r, state)  # R-FC-3: the dealer turns the third card, no choice
            return True
        return False

    def _turn(self, r: RoundOps, state: SeatOps) -> None:
        state.decided = True
        r.reveal(seat_name(state.seat), (state.cards[2],))
        total = player_final_total(self._two(state), self.rules.value(state.cards[2]), turned=True)
        self.final[state.seat] = total
        if total is None:
            state.out = True
            r.settle(
                state, "main", state.wagers["main"], 0, "lose", f"odd total {self.rules.total(state.cards)}"
            )

    def legal(self, r: RoundOps, state: SeatOps) -> list[Action]:
        return [STAND, TURN]

    def apply(self, r: RoundOps, state: SeatOps, action: Action) -> None:
        if action == TURN:
            self._turn(r, state)
        else:
            state.decided = True
            self.final[state.seat] = self._two(state)

    def dealer_play(self, r: RoundOps) -> None:
        r.reveal(DEALER, (r.dealer[2],))
        r.hand_result(DEALER, str(self.rules.total(r.dealer)))

    def settle_all(self, r: RoundOps) -> None:
        dealer_total = self.rules.total(r.dealer)
        for s in r.active_seats:
            if s.out:
                continue
            total = self.final[s.seat]
            r.hand_result(seat_name(s.seat), str(total))
            net = self.rules.net(total, dealer_total)  # R-FC-5, this table's pays and tie rule
            stake = s.wagers["main"]
            outcome = "win" if net > 0 else "push" if net == 0 else "lose"
            detail = f"{total} vs dealer {dealer_total}" + (" (dealer busts)" if dealer_total % 2 else "")
            r.settle(s, "main", stake, stake * (1 + net), outcome, detail)

    def context(self, r: RoundOps, state: SeatOps) -> FcDecision:
        return FcDecision(
            tuple(state.cards[:2]), tuple(r.dealer[:2]), self._two(state), self.rules.total(r.dealer[:2])
        )


def hand_total(rules: FinalCountRules, cards: Sequence[int | None]) -> int | None:
    """The count of the cards seen (R-FC-1, by the table's card values); None when none is seen.

    >>> from tablegames.cards import parse_cards
    >>> hand_total(FinalCountRules(), [*parse_cards("Kc 5d"), None]), hand_total(FinalCountRules(), [None])
    (15, None)
    """
    known = [c for c in cards if c is not None]
    return rules.total(known) if known else None


def meters(rules: FinalCountRules) -> tuple[Meter, ...]:
    return ()


DEFINITION = GameDefinition(
    key=GAME,
    title="Final Count",
    tagline="Odd total loses · Higher even total wins",
    rules_type=FinalCountRules,
    # the choice parameters (face-value is a preset now: value.J, value.Q and value.K are the rule set's)
    rule_options=(
        RuleOption("tie", tuple(t.value for t in Tie), "equal even totals push, win or lose (R-FC-5)"),
    ),
    paytables=(),
    wagers=(Wager("main", "main", main=True),),
    meters=meters,
    decisions=(
        Decision("stand", "stands", prompt="[s]tand", cautious=True),
        Decision("turn", "turns the third card", prompt="[t]urn the third card"),
    ),
    default_action="stand",
    context_type=FcDecision,
    rule_of_thumb=rule_of_thumb,
    describe_hand=describe_hand,
    flow=FinalCountFlow,
    hand_total=hand_total,
    analyzer="tablegames.analysis.final_count:ANALYZER",
    protection="tablegames.analysis.protect_final_count:PROTECTION",
    kernel="tablegames.simulation.final_count:KERNEL",
    felt="felt/final-count.js",
    terminal="tablegames.cli.felts.final_count:FELT",
    parameters=_parameters(),
    rulings=RULINGS,
)
