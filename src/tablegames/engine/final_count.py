"""Final Count's round (R-FC-1..5): its steps; the rules and wagers are its definition in ``rules``."""

from __future__ import annotations

from tablegames.engine.actions import STAND, TURN, Action
from tablegames.engine.base import Round, SeatState, Table
from tablegames.engine.events import (
    DEALER,
    PUBLIC,
    CardsRevealed,
    HandResult,
    seat_name,
)
from tablegames.rules import final_count as fc


class FinalCountRound(Round):
    """R-FC-1..5."""

    rules: fc.FinalCountRules

    def __init__(self, table: Table, deck: list[int], round_no: int, source_name: str) -> None:
        super().__init__(table, deck, round_no, source_name)
        self.final: dict[int, int | None] = {}

    def _deal_cards(self) -> None:
        for i in range(3):
            vis_seat = PUBLIC if i < 2 else ""  # R-FC-2: third card face down, unseen by everyone
            for s in self.active_seats:
                s.cards.append(self._draw(seat_name(s.seat), vis_seat))
            self.dealer.append(self._draw(DEALER, vis_seat))

    def _two(self, state: SeatState) -> int:
        return self.rules.total(state.cards[:2])

    def _auto_step(self) -> bool:
        seat = self.to_act
        if seat is None:
            return False
        state = self.seats[seat]
        if fc.must_turn(self._two(state)):
            self._turn(state)  # R-FC-3: the dealer turns the third card, no choice
            return True
        return False

    def _turn(self, state: SeatState) -> None:
        state.decided = True
        self._record(CardsRevealed(seat_name(state.seat), (state.cards[2],)))
        total = fc.player_final_total(self._two(state), self.rules.value(state.cards[2]), turned=True)
        self.final[state.seat] = total
        if total is None:
            state.out = True
            self.settle(
                state, "main", state.wagers["main"], 0, "lose", f"odd total {self.rules.total(state.cards)}"
            )

    def _legal(self, state: SeatState) -> list[Action]:
        return [STAND, TURN]

    def _apply(self, state: SeatState, action: Action) -> None:
        if action == TURN:
            self._turn(state)
        else:
            state.decided = True
            self.final[state.seat] = self._two(state)

    def _dealer_play(self) -> None:
        self._record(CardsRevealed(DEALER, (self.dealer[2],)))
        self._record(HandResult(DEALER, str(self.rules.total(self.dealer))))

    def _settle_all(self) -> None:
        dealer_total = self.rules.total(self.dealer)
        for s in self.active_seats:
            if s.out:
                continue
            total = self.final[s.seat]
            self._record(HandResult(seat_name(s.seat), str(total)))
            result = fc.showdown(total, dealer_total)
            stake = s.wagers["main"]
            outcome = {1: "win", 0: "push", -1: "lose"}[result]
            detail = f"{total} vs dealer {dealer_total}" + (" (dealer busts)" if dealer_total % 2 else "")
            self.settle(s, "main", stake, stake * (1 + result), outcome, detail)

    def decision_context(self, seat: int) -> fc.FcDecision:
        s = self.seats[seat]
        return fc.FcDecision(
            tuple(s.cards[:2]), tuple(self.dealer[:2]), self._two(s), self.rules.total(self.dealer[:2])
        )
