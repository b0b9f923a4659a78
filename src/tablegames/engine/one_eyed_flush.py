"""One Eyed Flush's round (R-OEF-4..10): its steps; the rules, wagers and meters are its definition in ``rules``."""

from __future__ import annotations

from typing import Any

from tablegames.engine.actions import STAND, Action, discard
from tablegames.engine.base import Round, SeatState, Table
from tablegames.engine.events import (
    DEALER,
    PUBLIC,
    CardDiscarded,
    CardsRevealed,
    HandResult,
    seat_name,
)
from tablegames.rules import one_eyed_flush as oef


class OneEyedFlushRound(Round):
    """R-OEF-4..10."""

    rules: oef.OneEyedFlushRules

    def __init__(self, table: Table, deck: list[int], round_no: int, source_name: str) -> None:
        super().__init__(table, deck, round_no, source_name)
        self.flip_card = -1
        self.drew: set[int] = set()

    def _deal_cards(self) -> None:
        for i in range(3):
            for s in self.active_seats:
                s.cards.append(self._draw(seat_name(s.seat), seat_name(s.seat)))
            # R-OEF-4: the dealer's second card is the Flip Card, face up.
            self.dealer.append(self._draw(DEALER, PUBLIC if i == 1 else ""))
        self.flip_card = self.dealer[1]

    def _legal(self, state: SeatState) -> list[Action]:
        return [STAND, discard(0), discard(1), discard(2)]

    def _apply(self, state: SeatState, action: Action) -> None:
        state.decided = True
        if action.name == "discard":
            assert action.index is not None
            i = action.index
            self._record(CardDiscarded(seat_name(state.seat), state.cards[i], seat_name(state.seat)))
            state.cards[i] = self._draw(seat_name(state.seat), seat_name(state.seat))
            self.drew.add(state.seat)
        hand = oef.evaluate(state.cards)
        if oef.is_bust(hand, state.seat in self.drew, self.rules.bust):
            state.out = True
            # the hand is still face down: its description is the seat's own until the dealer shows it
            self.settle(
                state, "main", state.wagers["main"], 0, "bust", str(hand), visible_to=seat_name(state.seat)
            )

    def _dealer_play(self) -> None:
        self._record(CardsRevealed(DEALER, tuple(self.dealer)))
        wild = any(oef.holds_wild(s.cards) for s in self.active_seats if not s.out)
        idx = oef.dealer_discard(self.dealer, wild, self.rules.dealer_wild_draw)
        if idx is not None:
            self._record(CardDiscarded(DEALER, self.dealer[idx], PUBLIC))
            self.dealer[idx] = self._draw(DEALER, PUBLIC)
        self._record(HandResult(DEALER, str(oef.evaluate(self.dealer))))

    def _settle_all(self) -> None:
        dealer_hand = oef.evaluate(self.dealer)
        for s in self.active_seats:
            self._record(CardsRevealed(seat_name(s.seat), tuple(s.cards)))
            hand = oef.evaluate(s.cards)
            self._record(HandResult(seat_name(s.seat), str(hand)))
            if not s.out:
                stake = s.wagers["main"]
                result = oef.compare(hand, dealer_hand, self.rules.ties)
                if result > 0:
                    self.settle(
                        s, "main", stake, stake * (1 + self.rules.win_odds(hand.category)), "win", str(hand)
                    )
                elif result == 0:
                    self.settle(s, "main", stake, stake, "push", str(hand))
                else:
                    self.settle(s, "main", stake, 0, "lose", str(hand))
            if "jackpot" in s.wagers:
                self._settle_jackpot(s)
            if "flip" in s.wagers:
                bet = oef.FlipBet.parse(s.options["flip"])
                stake = s.wagers["flip"]
                odds = oef.flip_odds(bet, self.flip_card)
                returned = 0 if odds is None else stake * (odds + 1)
                self.settle(s, "flip", stake, returned, "win" if returned else "lose", str(bet))

    def _settle_jackpot(self, s: SeatState) -> None:
        """R-OEF-9 on the first three cards."""
        stake = s.wagers["jackpot"]
        first = oef.evaluate(s.initial_cards)
        if first.category == self.rules.jackpot.meter_category:
            paid = self.hit_meter(s, oef.METER)
            outcome = "win" if paid else "lose"
            self.settle(s, "jackpot", stake, paid, outcome, str(first), meter=oef.METER, meter_cents=paid)
            return
        paid = self.rules.jackpot.fixed_prizes_cents.get(first.category, 0)
        self.settle(s, "jackpot", stake, paid, "win" if paid else "lose", str(first))

    def decision_context(self, seat: int) -> oef.OefDecision:
        return oef.OefDecision(tuple(self.seats[seat].cards), self.flip_card)

    def _extra_view(self, cards: Any) -> dict[str, Any]:
        return {"flip_card": cards([self.flip_card])[0] if self.flip_card >= 0 else None}
