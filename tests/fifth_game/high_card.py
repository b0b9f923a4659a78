"""High Card: a fifth game that lives only in the tests (issue 21), to show that a game is one definition and
that the generic layers (round engine, engine-backed simulation kernel, exact oracle) take it as it is, with no
analyzer and no Numba kernel. Its registration is ``conftest.py`` beside it.

Rules: one card to each seat (seen by that seat) and one to the dealer, face down. A seat plays or folds. A
fold gives back half the wager (rounded down); playing shows the cards: the higher rank wins 1 to 1, equal ranks
push, a lower rank loses. Suits never count.

>>> showdown(12, 0), showdown(3, 3), showdown(0, 5)
(1, 0, -1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from tablegames.cards import CARDS
from tablegames.rules.common import RuleError
from tablegames.rules.definition import Decision, DecisionContext, GameDefinition, Meter, Wager
from tablegames.rules.flow import DEALER, Action, BaseFlow, RoundOps, SeatOps, seat_name

GAME = "high-card"
MAIN = "main"
PLAY = Action("play")
FOLD = Action("fold")
PLAY_FROM = 4  # the rule of thumb plays a 6 or better (rank index 4); the exact oracle says 5 (index 3)


@dataclass(frozen=True)
class HighCardRules:
    game = GAME

    @classmethod
    def from_options(
        cls, options: Mapping[str, str] | None = None, paytable: str | None = None
    ) -> HighCardRules:
        if options or paytable is not None:
            raise RuleError(f"{GAME} has no options")
        return cls()

    def describe(self) -> dict[str, str]:
        return {}


@dataclass(frozen=True)
class HcDecision(DecisionContext):
    game: ClassVar[str] = GAME
    card: int


def showdown(player_rank: int, dealer_rank: int) -> int:
    """+1, 0 or -1 unit: the higher rank wins (the one written rule, shared by the flow and the tests)."""
    return (player_rank > dealer_rank) - (player_rank < dealer_rank)


def fold_return(stake: int) -> int:
    """What a fold gives back: half the wager, rounded down to the cent."""
    return stake // 2


def rule_of_thumb(ctx: HcDecision) -> str:
    return "play" if ctx.card >> 2 >= PLAY_FROM else "fold"


def describe_hand(rules: HighCardRules, cards: Sequence[int | None]) -> str:
    return " ".join(str(CARDS[c]) for c in cards if c is not None)


def meters(rules: HighCardRules) -> tuple[Meter, ...]:
    return ()


class HighCardFlow(BaseFlow):
    def __init__(self, rules: HighCardRules) -> None:
        self.rules = rules

    def deal(self, r: RoundOps) -> None:
        for s in r.active_seats:
            s.cards.append(r.draw(seat_name(s.seat), seat_name(s.seat)))
        r.dealer.append(r.draw(DEALER, ""))

    def legal(self, r: RoundOps, state: SeatOps) -> list[Action]:
        return [PLAY, FOLD]

    def apply(self, r: RoundOps, state: SeatOps, action: Action) -> None:
        state.decided = True
        if action == FOLD:
            state.out = True
            stake = state.wagers[MAIN]
            r.settle(state, MAIN, stake, fold_return(stake), "fold", "folded")

    def dealer_play(self, r: RoundOps) -> None:
        r.reveal(DEALER, tuple(r.dealer))

    def settle_all(self, r: RoundOps) -> None:
        for s in r.active_seats:
            if s.out:
                continue
            r.reveal(seat_name(s.seat), tuple(s.cards))
            net = showdown(s.cards[0] >> 2, r.dealer[0] >> 2)
            stake = s.wagers[MAIN]
            outcome = "win" if net > 0 else "push" if net == 0 else "lose"
            r.settle(s, MAIN, stake, stake * (1 + net), outcome)

    def context(self, r: RoundOps, state: SeatOps) -> HcDecision:
        return HcDecision(state.cards[0])

    def extra_view(self, r: RoundOps, cards: Any) -> dict[str, Any]:
        return {}


DEFINITION = GameDefinition(
    key=GAME,
    title="High Card",
    tagline="Higher card wins · fold for half",
    rules_type=HighCardRules,
    rule_options=(),
    paytables=(),
    wagers=(Wager(MAIN, "main", main=True),),
    meters=meters,
    decisions=(
        Decision("play", "plays", prompt="[p]lay"),
        Decision("fold", "folds", prompt="[f]old", cautious=True),
    ),
    default_action="fold",
    context_type=HcDecision,
    rule_of_thumb=rule_of_thumb,
    describe_hand=describe_hand,
    flow=HighCardFlow,
)
