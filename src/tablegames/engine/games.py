"""The round of each game: Let It Ride, One Eyed Flush, Final Count (steps only; the rules are in ``rules``)."""

from __future__ import annotations

from typing import Any

from tablegames.engine.actions import PULL, RIDE, STAND, TURN, Action, discard
from tablegames.engine.base import MeterState, Round, SeatState, WagerSpec
from tablegames.engine.errors import BadWager
from tablegames.engine.events import (
    BURN,
    COMMUNITY,
    DEALER,
    PUBLIC,
    CardDiscarded,
    CardsRevealed,
    EnvyPaid,
    HandResult,
    seat_name,
)
from tablegames.rules import GameRules
from tablegames.rules import final_count as fc
from tablegames.rules import let_it_ride as lir
from tablegames.rules import one_eyed_flush as oef
from tablegames.rules.common import RuleError, cents_for_share, enum_key


def meter_specs(rules: GameRules) -> list[MeterState]:
    """The jackpot meters a table of this game keeps (R-LIR-7, R-OEF-9)."""
    if isinstance(rules, lir.LetItRideRules):
        return [MeterState(m.name, m.reset_cents) for m in rules.progressive.meters]
    if isinstance(rules, oef.OneEyedFlushRules):
        return [MeterState(OEF_METER, rules.jackpot.reset_cents)]
    return []


OEF_METER = "one-eyed-flush"


# --- Let It Ride -----------------------------------------------------------------------------------


class LetItRideRound(Round):
    """R-LIR-1..8. The main wager ``bets`` is the amount of each of the three equal bets "1", "2", "$"."""

    rules: lir.LetItRideRules

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.stage = 1
        self.up: dict[int, set[str]] = {}
        self.community: list[int] = []

    def wager_specs(self) -> tuple[WagerSpec, ...]:
        return (
            WagerSpec("bets", main=True),
            WagerSpec("bonus"),
            WagerSpec("progressive", fixed_cents=self.rules.progressive.wager_cents),
        )

    def wager_cost(self, wager: str, amount: int) -> int:
        return 3 * amount if wager == "bets" else amount

    def contributions(self, seat: SeatState) -> list[tuple[str, int]]:
        if "progressive" not in seat.wagers:
            return []
        stake = seat.wagers["progressive"]
        return [(m.name, cents_for_share(stake, m.share)) for m in self.rules.progressive.meters]

    def _deal_cards(self) -> None:
        for _ in range(3):
            for s in self.active_seats:
                s.cards.append(self._draw(seat_name(s.seat), seat_name(s.seat)))
            self.dealer.append(self._draw(DEALER, ""))
        self.up = {s.seat: {"1", "2", "$"} for s in self.active_seats}

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
                    other.returned += envy
                    if self.table.bankrolls is not None:
                        self.table.bankrolls[other.seat] += envy
                    self._record(EnvyPaid(other.seat, hitter.seat, enum_key(hands[hitter.seat]), envy))

    def _settle_base(self, s: SeatState, hand: lir.LirHand) -> None:
        """R-LIR-4 pay table on every bet still up; R-LIR-5 caps the base-game win."""
        amount = s.wagers["bets"]
        up = self.up[s.seat]
        staked = amount * len(up)
        odds = self.rules.main_paytable.odds(hand)
        label = "bets " + "+".join(b for b in ("1", "2", "$") if b in up)
        if odds is None:
            self.settle(s, "base", staked, 0, "lose", label)
            return
        win = staked * odds
        capped = lir.capped_base_win(win, self.rules.cap_cents)
        detail = label + (f"; capped {win} -> {capped}" if capped < win else "")
        self.settle(s, "base", staked, staked + capped, "win", detail)

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
        paid = self.hit_meter(s, meter) if meter is not None else cfg.fixed_prizes_cents.get(hand, 0)
        self.settle(s, "progressive", stake, paid, "win" if paid else "lose", enum_key(hand))

    def decision_context(self, seat: int) -> dict[str, Any]:
        s = self.seats[seat]
        return {"game": lir.GAME, "stage": self.stage, "cards": [*s.cards, *self.community]}

    def _extra_view(self, cards: Any) -> dict[str, Any]:
        bets_up = {str(seat): [b for b in ("1", "2", "$") if b in up] for seat, up in self.up.items()}
        return {"community": cards(self.community), "stage": self.stage, "bets_up": bets_up}


# --- One Eyed Flush --------------------------------------------------------------------------------


class OneEyedFlushRound(Round):
    """R-OEF-4..10."""

    rules: oef.OneEyedFlushRules

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.flip_card = -1
        self.drew: set[int] = set()

    def wager_specs(self) -> tuple[WagerSpec, ...]:
        return (
            WagerSpec("main", main=True),
            WagerSpec("jackpot", fixed_cents=self.rules.jackpot.wager_cents),
            WagerSpec("flip", needs_option=True),
        )

    def check_option(self, wager: str, option: str | None) -> None:
        if option is None:
            raise BadWager("the flip wager needs an outcome: a value 1-9, 'ten-value' or 'one-eyed'")
        try:
            oef.FlipBet.parse(option)
        except RuleError as exc:
            raise BadWager(str(exc)) from None

    def contributions(self, seat: SeatState) -> list[tuple[str, int]]:
        if "jackpot" not in seat.wagers:
            return []
        return [(OEF_METER, cents_for_share(seat.wagers["jackpot"], self.rules.jackpot.share))]

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
            self.settle(state, "main", state.wagers["main"], 0, "bust", str(hand), seat_name(state.seat))

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
        if first.category == oef.Category.ONE_EYED_FLUSH:
            paid = self.hit_meter(s, OEF_METER)
        else:
            paid = self.rules.jackpot.fixed_prizes_cents.get(first.category, 0)
        self.settle(s, "jackpot", stake, paid, "win" if paid else "lose", str(first))

    def decision_context(self, seat: int) -> dict[str, Any]:
        return {"game": oef.GAME, "cards": list(self.seats[seat].cards), "flip_card": self.flip_card}

    def _extra_view(self, cards: Any) -> dict[str, Any]:
        return {"flip_card": cards([self.flip_card])[0] if self.flip_card >= 0 else None}


# --- Final Count -----------------------------------------------------------------------------------


class FinalCountRound(Round):
    """R-FC-1..5."""

    rules: fc.FinalCountRules

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.final: dict[int, int | None] = {}

    def wager_specs(self) -> tuple[WagerSpec, ...]:
        return (WagerSpec("main", main=True),)

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

    def decision_context(self, seat: int) -> dict[str, Any]:
        s = self.seats[seat]
        return {
            "game": fc.GAME,
            "player_up": list(s.cards[:2]),
            "dealer_up": list(self.dealer[:2]),
            "total": self._two(s),
            "dealer_total": self.rules.total(self.dealer[:2]),
        }


ROUND_CLASSES: dict[str, type[Round]] = {
    lir.GAME: LetItRideRound,
    oef.GAME: OneEyedFlushRound,
    fc.GAME: FinalCountRound,
}
