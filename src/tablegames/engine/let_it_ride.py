"""Let It Ride's round (R-LIR-1..8): its steps; the rules, wagers and meters are its definition in ``rules``."""

from __future__ import annotations

from typing import Any

from tablegames.engine.actions import PULL, RIDE, Action
from tablegames.engine.base import Round, SeatState, Table
from tablegames.engine.events import (
    BURN,
    COMMUNITY,
    DEALER,
    CardDiscarded,
    CardsRevealed,
    HandResult,
    seat_name,
)
from tablegames.rules import let_it_ride as lir
from tablegames.rules.common import enum_key


class LetItRideRound(Round):
    """R-LIR-1..8. The main wager ``bets`` is the amount of each of the three equal bets "1", "2", "$"."""

    rules: lir.LetItRideRules

    def __init__(self, table: Table, deck: list[int], round_no: int, source_name: str) -> None:
        super().__init__(table, deck, round_no, source_name)
        self.stage = 1
        self.up: dict[int, set[str]] = {}
        self.community: list[int] = []

    def _deal_cards(self) -> None:
        for _ in range(3):
            for s in self.active_seats:
                s.cards.append(self._draw(seat_name(s.seat), seat_name(s.seat)))
            self.dealer.append(self._draw(DEALER, ""))
        self.up = {s.seat: set(lir.BETS) for s in self.active_seats}

    def _legal(self, state: SeatState) -> list[Action]:
        return [PULL, RIDE]

    def _apply(self, state: SeatState, action: Action) -> None:
        state.decided = True
        if action == PULL:
            bet = str(self.stage)
            self.up[state.seat].discard(bet)
            amount = state.wagers["bets"]
            self.settle(state, f"bet {bet}", amount, amount, "pulled")

    def _auto_step(self) -> bool:
        if self.stage == 1 and self.to_act is None:
            # R-LIR-2: burn one dealer card, turn the next: the first community card.
            self._record(CardDiscarded(BURN, self.dealer[0], ""))
            self.community.append(self.dealer[1])
            self._record(CardsRevealed(COMMUNITY, (self.dealer[1],)))
            self.stage = 2
            for s in self.active_seats:
                s.decided = False
            return True
        return False

    def _dealer_play(self) -> None:
        # R-LIR-3: the last dealer card becomes the second community card.
        self.community.append(self.dealer[2])
        self._record(CardsRevealed(COMMUNITY, (self.dealer[2],)))

    def final_hand(self, state: SeatState) -> lir.LirHand:
        return lir.lir_hand([*state.cards, *self.community])

    def _settle_all(self) -> None:
        seats = self.active_seats
        hands = {}
        for s in seats:
            self._record(CardsRevealed(seat_name(s.seat), tuple(s.cards)))
            hands[s.seat] = self.final_hand(s)
            self._record(HandResult(seat_name(s.seat), enum_key(hands[s.seat])))
        for s in seats:
            self._settle_base(s, hands[s.seat])
            if "bonus" in s.wagers:
                self._settle_bonus(s)
        # Progressive in seat order (R-LIR-7), then Envy (R-LIR-8).
        prog = [s for s in seats if "progressive" in s.wagers]
        for s in prog:
            self._settle_progressive(s, hands[s.seat])
        for hitter in prog:
            envy = self.rules.progressive.envy_cents.get(hands[hitter.seat])
            if not envy:
                continue
            for other in prog:
                if other.seat != hitter.seat:
                    self.pay_envy(other, hitter.seat, enum_key(hands[hitter.seat]), envy)

    def _settle_base(self, s: SeatState, hand: lir.LirHand) -> None:
        """R-LIR-4 pay table on every bet still up; R-LIR-5 caps the base-game win."""
        amount = s.wagers["bets"]
        up = self.up[s.seat]
        staked = amount * len(up)
        odds = self.rules.main_paytable.odds(hand)
        label = "bets " + "+".join(b for b in lir.BETS if b in up)
        if odds is None:
            self.settle(s, "base", staked, 0, "lose", label)
            return
        win = staked * odds
        capped = lir.capped_base_win(win, self.rules.cap_cents)
        detail = label + (f"; capped {win} -> {capped}" if capped < win else "")
        uncapped = staked + win if capped < win else None
        self.settle(s, "base", staked, staked + capped, "win", detail, capped_from=uncapped)

    def _settle_bonus(self, s: SeatState) -> None:
        """R-LIR-6 on the first three cards."""
        stake = s.wagers["bonus"]
        hand = lir.bonus_hand(s.initial_cards)
        odds = self.rules.bonus_paytable.odds(hand)
        returned = 0 if odds is None else stake * (odds + 1)
        self.settle(s, "bonus", stake, returned, "win" if returned else "lose", enum_key(hand))

    def _settle_progressive(self, s: SeatState, hand: lir.LirHand) -> None:
        """R-LIR-7: meter prizes pay 100% of the meter; fixed prizes pay $Y (wager not returned, R-0.3)."""
        stake = s.wagers["progressive"]
        cfg = self.rules.progressive
        meter = cfg.meter_prizes.get(hand)
        if meter is not None:
            paid = self.hit_meter(s, meter)
            outcome = "win" if paid else "lose"
            self.settle(s, "progressive", stake, paid, outcome, enum_key(hand), meter=meter, meter_cents=paid)
            return
        paid = cfg.fixed_prizes_cents.get(hand, 0)
        self.settle(s, "progressive", stake, paid, "win" if paid else "lose", enum_key(hand))

    def decision_context(self, seat: int) -> lir.LirDecision:
        s = self.seats[seat]
        return lir.LirDecision(self.stage, (*s.cards, *self.community), "1" in self.up.get(seat, {"1"}))

    def _extra_view(self, cards: Any) -> dict[str, Any]:
        bets_up = {str(seat): [b for b in lir.BETS if b in up] for seat, up in self.up.items()}
        return {"community": cards(self.community), "stage": self.stage, "bets_up": bets_up}
