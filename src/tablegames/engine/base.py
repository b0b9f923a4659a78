"""The one round of every game: a table of 1-7 seats, wagers, the deal, decisions in seat order, the dealer's
play and settlement in integer cents. A game's own steps are its flow (``GameDefinition.flow``, written in its
rules module against :class:`tablegames.rules.flow.RoundOps`, which :class:`Round` implements).

Every applied action returns an immutable event and appends it (and the automatic steps it triggers) to the
round's ``history``. An illegal action raises an :class:`~tablegames.engine.errors.IllegalAction` subclass
before anything is changed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from tablegames.cards import CARDS, check_distinct
from tablegames.engine.actions import Action
from tablegames.engine.errors import (
    BadWager,
    IllegalAction,
    InsufficientFunds,
    SideBetWithoutMain,
    UnknownAction,
    WrongPhase,
    WrongSeat,
)
from tablegames.engine.events import (
    PUBLIC,
    ActionTaken,
    CardDealt,
    CardDiscarded,
    CardsRevealed,
    Event,
    HandResult,
    JackpotContribution,
    JackpotHit,
    NeighbourBonusPaid,
    RoundEnded,
    RoundStarted,
    Settled,
    WagerPlaced,
)
from tablegames.engine.wagers import WagerSpec, dollars, validate_cents
from tablegames.randomness import LiveRandom, RandomSource, SeededRandom, shuffle_deck
from tablegames.rules import GameRules, registry
from tablegames.rules.common import RuleError
from tablegames.rules.definition import DecisionContext, GameDefinition, Meter
from tablegames.rules.flow import GameFlow, SeatOps

MAX_SEATS = 7


class Phase(Enum):
    BETTING = "betting"
    DECIDING = "deciding"
    SETTLED = "settled"


@dataclass
class SeatState:
    seat: int
    wagers: dict[str, int] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)
    cards: list[int] = field(default_factory=list)
    initial_cards: tuple[int, ...] = ()
    decided: bool = False
    out: bool = False  # busted or lost early: settled, nothing later changes it
    staked: int = 0
    returned: int = 0
    settled: set[str] = field(default_factory=set)  # wagers settled whole, and "<wager> <part>" by part

    @property
    def playing(self) -> bool:
        return bool(self.wagers)


class Table:
    """Seats, the rules, the random source and the jackpot meters that persist across rounds.

    ``source`` defaults to the OS cryptographic source (:class:`LiveRandom`); pass a ``SeededRandom`` for
    simulation, replay and tests. ``bankrolls`` (optional) are seat balances in cents: wagers are refused beyond them and settlements
    are credited to them.
    """

    def __init__(
        self,
        rules: GameRules,
        seats: int = 1,
        source: RandomSource | None = None,
        bankrolls: Mapping[int, int] | None = None,
        meters: Mapping[str, int] | None = None,
    ) -> None:
        if not 1 <= seats <= MAX_SEATS:
            raise ValueError(f"a table has 1-{MAX_SEATS} seats, got {seats}")
        self.rules = rules
        self.seats = seats
        self.source: RandomSource = source if source is not None else LiveRandom()
        self.bankrolls: dict[int, int] | None = dict(bankrolls) if bankrolls is not None else None
        self.definition: GameDefinition = registry.of(rules)
        self.meter_specs: dict[str, Meter] = {m.name: m for m in self.definition.meters(rules)}
        self._wager_specs: tuple[WagerSpec, ...] | None = None
        self._described: dict[str, str] | None = None  # the rules' text, recorded by every round
        self.meters: dict[str, int] = {name: m.reset_cents for name, m in self.meter_specs.items()}
        if meters:
            for name, value in meters.items():
                if name not in self.meters:
                    raise ValueError(f"unknown meter {name!r}")
                self.meters[name] = value
        self.round_no = 0
        self.house_net = 0
        self.current: Round | None = None
        self._replaced: tuple[Round | None, int] | None = None  # before open_round (withdraw)

    @property
    def game(self) -> str:
        return self.rules.game

    def wager_specs(self) -> tuple[WagerSpec, ...]:
        """The wagers a seat may place at this table, from the game's definition and the table's rules."""
        if self._wager_specs is None:
            self._wager_specs = tuple(
                WagerSpec(
                    w.name,
                    main=w.main,
                    fixed_cents=w.fixed_cents(self.rules),
                    needs_option=w.option is not None,
                    cost_multiple=w.cost_multiple,
                    requires=w.requires,
                    title=w.title,
                    options=w.option.choices if w.option is not None else (),
                )
                for w in self.definition.wagers
            )
        return self._wager_specs

    def described_rules(self) -> dict[str, str]:
        """The rules as ``--rule`` text (each round records a copy); computed once per table."""
        if self._described is None:
            self._described = dict(self.rules.describe())
        return dict(self._described)

    def _round_source(self) -> RandomSource:
        if isinstance(self.source, SeededRandom):
            return self.source.child(self.round_no)
        return self.source

    def new_round(self, deck: Sequence[int] | None = None) -> Round:
        """Start the next round. ``deck`` (52 distinct cards) overrides the shuffle, for replays and tests."""
        if self.current is not None and self.current.phase != Phase.SETTLED:
            raise WrongPhase(f"round {self.current.round_no} is not finished")
        self.round_no += 1
        if deck is None:
            source = self._round_source()
            order: list[int] = list(shuffle_deck(source))
            source_name = repr(source)
        else:
            if len(deck) != 52 or any(not 0 <= int(c) < 52 for c in deck):
                raise ValueError("a deck needs 52 cards")
            order = [CARDS[int(c)] for c in deck]
            check_distinct(order)
            source_name = "given deck"
        rnd = Round(self, order, self.round_no, source_name)
        self.current = rnd
        return rnd

    # --- a server's table: its rounds stored, its meters shared ------------------------------------------

    def count_from(self, round_no: int) -> None:
        """Number the next round after ``round_no`` (a server's stored count); it never goes back."""
        self.round_no = max(self.round_no, round_no)

    def open_round(self, no: int, deck: Sequence[int]) -> Round:
        """Open round ``no`` on ``deck``, whatever round is current: the next round of a stored count, or an
        interrupted round rebuilt at its stored number (recovery and takeover replay its steps on it). Until
        something is played on it, :meth:`withdraw` puts the table back as it was."""
        self._replaced = (self.current, self.round_no)
        self.current = None
        self.round_no = no - 1
        return self.new_round(deck=deck)

    def withdraw(self, rnd: Round) -> None:
        """Take back ``rnd``, opened by :meth:`open_round` but refused (its first wager was): the table is as
        before it opened."""
        if self.current is rnd and self._replaced is not None:
            self.current, self.round_no = self._replaced
        self._replaced = None

    def link_meters(self, values: Mapping[str, int]) -> None:
        """Linked meters (shared by every table of the game, R-OEF-9 and R-LIR-7): each meter named in
        ``values`` now stands at that committed value plus the current round's own contributions, not committed
        before it settles. The round's ``meters_before`` moves with it, so its house net stays its own."""
        rnd = self.current
        own: dict[str, int] = dict.fromkeys(self.meters, 0)
        if rnd is not None:
            for e in rnd.history:
                if isinstance(e, JackpotContribution):
                    own[e.meter] += e.amount
        for name in self.meters:
            if name not in values:
                continue
            new = values[name] + own[name]
            diff = new - self.meters[name]
            self.meters[name] = new
            if rnd is not None:
                rnd.meters_before[name] = rnd.meters_before.get(name, 0) + diff

    def adopt(self, rnd: Round) -> None:
        """Make ``rnd``, a round of this game built on another table, this table's current round: the same
        round replayed at the meters locked for its settlement (:func:`~tablegames.engine.replay.at_meters`),
        or a round rebuilt from its stored history (:func:`~tablegames.engine.replay.replay`). The meters it
        left become this table's, and the house net counts its result instead of the round it replaces (the
        one of the same number: same events but for the meter amounts, so what was shown stays valid)."""
        if rnd.table is self:
            self.current = rnd
            return
        played = self.current
        self.meters.update(rnd.table.meters)
        ended = rnd.history[-1]
        if isinstance(ended, RoundEnded):
            was = played.history[-1] if played is not None and played.round_no == rnd.round_no else None
            self.house_net += ended.house_net - (was.house_net if isinstance(was, RoundEnded) else 0)
        rnd.table = self
        self.current = rnd
        self.count_from(rnd.round_no)


class Round:
    """One round of a game at a table: the generic steps; the game's own are its ``flow`` (one per round,
    holding the game's state of the round: Let It Ride's community cards, One Eyed Flush's Flip Card...)."""

    def __init__(self, table: Table, deck: list[int], round_no: int, source_name: str) -> None:
        self.table = table
        self.rules: Any = table.rules
        self.definition = table.definition
        self.deck = deck
        self.next_card = 0
        self.round_no = round_no
        self.phase = Phase.BETTING
        self.seats: dict[int, SeatState] = {s: SeatState(s) for s in range(1, table.seats + 1)}
        self.dealer: list[int] = []
        self.history: list[Event] = []
        self.meters_before = dict(table.meters)
        self.flow: GameFlow = self.definition.new_flow(self.rules)
        self._record(
            RoundStarted(table.game, round_no, table.described_rules(), tuple(self.seats), source_name)
        )

    # --- helpers ---------------------------------------------------------------------------------

    def _record(self, event: Event) -> Event:
        self.history.append(event)
        return event

    # --- what a flow may do (rules.flow.RoundOps) ---------------------------------------------------

    def draw(self, to: str, visible_to: str) -> int:
        """Deal the next card of the deck to place ``to``, seen by ``visible_to``; returns it."""
        card = self.deck[self.next_card]
        self._record(CardDealt(to, self.next_card, card, visible_to))
        self.next_card += 1
        return card

    def reveal(self, place: str, cards: Sequence[int]) -> None:
        """Turn ``cards`` of ``place`` face up for everyone."""
        self._record(CardsRevealed(place, tuple(cards)))

    def discard(self, place: str, card: int, visible_to: str) -> None:
        """``card`` leaves ``place`` (a discard or a burn), seen by ``visible_to``."""
        self._record(CardDiscarded(place, card, visible_to))

    def hand_result(self, place: str, description: str) -> None:
        """Record what the hand at ``place`` is, for everyone."""
        self._record(HandResult(place, description))

    def wager_specs(self) -> tuple[WagerSpec, ...]:
        """The wagers a seat may place in this game (the main one first), from the game's definition."""
        return self.table.wager_specs()

    def _spec(self, wager: str) -> WagerSpec:
        for spec in self.wager_specs():
            if spec.name == wager:
                return spec
        names = ", ".join(s.name for s in self.wager_specs())
        raise BadWager(f"unknown wager {wager!r} for {self.table.game}; wagers: {names}")

    def _seat(self, seat: object) -> SeatState:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in self.seats:
            raise WrongSeat(f"no seat {seat!r} at this table (seats 1-{self.table.seats})")
        return self.seats[seat]

    @property
    def active_seats(self) -> list[SeatState]:
        """The seats with a wager, in seat order (they are dealt cards)."""
        return [s for s in self.seats.values() if s.playing]

    @property
    def deciding_seats(self) -> list[SeatState]:
        """The seats with the main wager, in seat order: they take the decisions. A seat with only side
        wagers that need no main wager (``requires=None``) takes none and is settled with the others."""
        main = self.main_wager()
        return [s for s in self.seats.values() if main in s.wagers]

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.SETTLED

    # --- wagers ----------------------------------------------------------------------------------

    def main_wager(self) -> str:
        return next(s.name for s in self.wager_specs() if s.main)

    def wager_cost(self, wager: str, amount: int) -> int:
        """Cents the wager takes from the player's balance (its amount times the wager's cost multiple)."""
        spec = self.definition.wager(wager)
        return amount if spec is None else spec.cost(amount)

    def check_wagers(self, seat: int, wagers: Sequence[tuple[str, object, str | None]]) -> int:
        """Validate wagers placed together, in order, without placing any; returns their total cost.

        A side bet may come with its main wager in the same list. Raises an IllegalAction subclass.
        """
        placing: set[str] = set()
        cost = 0
        for wager, amount, option in wagers:
            cents = self.check_wager(seat, wager, amount, option, _placing=placing, _cost=cost)
            placing.add(wager)
            cost += self.wager_cost(wager, cents)
        return cost

    def check_wager(
        self,
        seat: int,
        wager: str,
        amount: object,
        option: str | None = None,
        *,
        _placing: Collection[str] = (),
        _cost: int = 0,
    ) -> int:
        """Validate a wager without placing it; returns the amount. Raises an IllegalAction subclass.

        (``_placing``/``_cost``: wagers checked before it in the same :meth:`check_wagers` call, and their cost.)
        """
        if self.phase != Phase.BETTING:
            raise WrongPhase(f"wagers are closed: the round is {self.phase.value}")
        state = self._seat(seat)
        spec = self._spec(wager)
        cents = validate_cents(amount, f"the {wager} wager")
        if wager in state.wagers or wager in _placing:
            raise BadWager(f"seat {seat} already placed the {wager} wager")
        need = spec.requires
        if need is not None and need not in state.wagers and need not in _placing:
            raise SideBetWithoutMain(f"the {wager} side bet needs the {need} wager first")
        if spec.fixed_cents is not None and cents != spec.fixed_cents:
            raise BadWager(f"the {wager} wager is fixed at {dollars(spec.fixed_cents)}, got {dollars(cents)}")
        if spec.needs_option:
            self.check_option(wager, option)
        elif option is not None:
            raise BadWager(f"the {wager} wager takes no option")
        bank = self.table.bankrolls
        if bank is not None and bank.get(seat, 0) - _cost < self.wager_cost(wager, cents):
            raise InsufficientFunds(
                f"seat {seat} has {dollars(bank.get(seat, 0))}; the {wager} wager needs "
                f"{dollars(self.wager_cost(wager, cents))}"
            )
        return cents

    def check_option(self, wager: str, option: str | None) -> str:
        """The canonical text of ``option`` for ``wager``; BadWager when it is missing or not a choice."""
        spec = self.definition.wager(wager)
        if spec is None or spec.option is None:
            raise BadWager(f"the {wager} wager takes no option")
        if option is None:
            raise BadWager(f"the {wager} wager needs an {spec.option.name}: {spec.option.help}")
        try:
            return spec.option.parse(option)
        except RuleError as exc:
            raise BadWager(str(exc)) from None

    def place_wager(self, seat: int, wager: str, amount: int, option: str | None = None) -> WagerPlaced:
        cents = self.check_wager(seat, wager, amount, option)
        state = self.seats[seat]
        cost = self.wager_cost(wager, cents)
        state.wagers[wager] = cents
        if option is not None:
            state.options[wager] = option
        state.staked += cost
        if self.table.bankrolls is not None:
            self.table.bankrolls[seat] -= cost
        event = WagerPlaced(seat, wager, cents, option)
        self._record(event)
        return event

    # --- the deal and decisions ------------------------------------------------------------------

    def deal(self) -> list[Event]:
        """Close wagers and deal (R-0.2: seat 1..N then dealer, one card at a time)."""
        if self.phase != Phase.BETTING:
            raise WrongPhase(f"cannot deal: the round is {self.phase.value}")
        if not self.active_seats:
            raise BadWager("no seat has placed a wager")
        start = len(self.history)
        self.phase = Phase.DECIDING
        self._contribute()
        self.flow.deal(self)
        for s in self.active_seats:
            s.initial_cards = tuple(s.cards)
        self._advance()
        return self.history[start:]

    def _contribute(self) -> None:
        """Add jackpot contributions for every side wager that feeds a meter."""
        for seat in self.active_seats:
            for meter, amount in self.contributions(seat):
                self.table.meters[meter] += amount
                self._record(JackpotContribution(seat.seat, meter, amount, self.table.meters[meter]))

    def contributions(self, seat: SeatState) -> list[tuple[str, int]]:
        """(meter, cents) that ``seat``'s feeding wagers add to the meters (R-LIR-7, R-OEF-9)."""
        out: list[tuple[str, int]] = []
        for w in self.definition.wagers:
            if w.feeds and w.name in seat.wagers:
                out += [
                    (m.name, m.contribution(seat.wagers[w.name])) for m in self.table.meter_specs.values()
                ]
        return out

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is awaited, or None."""
        if self.phase != Phase.DECIDING:
            return None
        for s in self.deciding_seats:
            if not s.decided and not s.out:
                return s.seat
        return None

    def legal_actions(self, seat: int) -> list[Action]:
        """The actions ``seat`` may take now (empty when it is not that seat's turn)."""
        if seat not in self.seats or self.to_act != seat:
            return []
        return self.flow.legal(self, self.seats[seat])

    def verify_act(self, seat: int, action: Action | str) -> Action:
        """The action ``seat`` may take now, parsed; raises an IllegalAction subclass saying why not.

        Changes nothing (the check :meth:`act` makes before applying a decision).
        """
        if self.phase != Phase.DECIDING:
            raise WrongPhase(f"no decisions now: the round is {self.phase.value}")
        state = self._seat(seat)
        if self.to_act != seat:
            raise WrongSeat(f"it is not seat {seat}'s turn (waiting for seat {self.to_act})")
        if isinstance(action, str):
            try:
                action = Action.parse(action)
            except ValueError as exc:
                raise UnknownAction(str(exc)) from None
        legal = self.flow.legal(self, state)
        if action not in legal:
            self._explain_illegal(state, action, legal)
        return action

    def can_act(self, seat: int, action: Action | str) -> bool:
        """Whether :meth:`act` would accept this decision now."""
        try:
            self.verify_act(seat, action)
        except IllegalAction:
            return False
        return True

    def act(self, seat: int, action: Action | str, by: str = "player") -> ActionTaken:
        """Apply one decision. Raises (changing nothing) when it is not legal now."""
        action = self.verify_act(seat, action)
        state = self.seats[seat]
        event = ActionTaken(seat, str(action), by)
        self._record(event)
        self.flow.apply(self, state, action)
        self._advance()
        return event

    def _explain_illegal(self, state: SeatState, action: Action, legal: list[Action]) -> None:
        names = {a.name for a in legal}
        listing = ", ".join(str(a) for a in legal)
        if action.name in names:
            from tablegames.engine.errors import BadIndex

            raise BadIndex(f"{action} is out of range; legal now: {listing}")
        raise UnknownAction(f"{action} is not a legal action now; legal: {listing}")

    def _advance(self) -> None:
        """Run automatic steps until a seat must decide or the round is settled."""
        while self.phase == Phase.DECIDING:
            if self.flow.auto_step(self):
                continue
            if self.to_act is None:
                self._finish()
                return
            return

    def _finish(self) -> None:
        self.flow.dealer_play(self)
        self.flow.settle_all(self)
        self.phase = Phase.SETTLED
        net = {s.seat: s.returned - s.staked for s in self.active_seats}
        delta_meters = sum(self.table.meters.values()) - sum(self.meters_before.values())
        house = -sum(net.values()) - delta_meters
        self.table.house_net += house
        self._record(RoundEnded(net, house, dict(self.table.meters)))

    # --- settlement helpers ----------------------------------------------------------------------

    # Every cent a seat gets back goes through _credit, and is recorded by one event: Settled (a wager's
    # result, with the part a meter paid and the win before a cap) or NeighbourBonusPaid. Meters move only by
    # JackpotContribution (at the deal) and JackpotHit. engine.postings turns these events into postings.

    def _credit(self, state: SeatOps, cents: int) -> None:
        self.seats[state.seat].returned += cents
        if self.table.bankrolls is not None:
            self.table.bankrolls[state.seat] += cents

    def settle(
        self,
        state: SeatOps,
        wager: str,
        staked: int,
        returned: int,
        outcome: str,
        detail: str = "",
        *,
        meter: str | None = None,
        meter_cents: int = 0,
        capped_from: int | None = None,
        visible_to: str = PUBLIC,
        part: str = "",
    ) -> None:
        """Settle one wager (or, with ``part``, some of the equal bets it is made of, space-separated):
        ``returned`` cents back to the seat (``meter_cents`` of them from ``meter``; ``capped_from``: what it
        would have returned without the payout cap). Each (wager, part) is settled once."""
        seat = self.seats[state.seat]
        keys = {f"{wager} {p}" for p in part.split()} or {wager}
        parts_done = any(k.startswith(f"{wager} ") for k in seat.settled)
        if wager in seat.settled or keys & seat.settled or (not part and parts_done):
            raise AssertionError(f"{' '.join(sorted(keys))} of seat {state.seat} settled twice")
        seat.settled |= keys
        self._credit(seat, returned)
        self._record(
            Settled(
                state.seat,
                wager,
                staked,
                returned,
                outcome,
                detail,
                meter,
                meter_cents,
                capped_from,
                visible_to,
                part,
            )
        )

    def pay_neighbour_bonus(self, state: SeatOps, from_seat: int, hand: str, cents: int) -> None:
        """R-LIR-8: a fixed bonus to ``state`` because ``from_seat`` made ``hand`` (no wager of its own)."""
        self._credit(state, cents)
        self._record(NeighbourBonusPaid(state.seat, from_seat, hand, cents))

    def hit_meter(self, state: SeatOps, meter: str) -> int:
        """Take 100% of ``meter`` for ``state`` and reset it; returns the amount, which the wager's
        :meth:`settle` then pays (``meter=``, ``meter_cents=``)."""
        amount = self.table.meters[meter]
        reset = self.table.meter_specs[meter].reset_cents
        self.table.meters[meter] = reset
        self._record(JackpotHit(state.seat, meter, amount, reset))
        return amount

    # --- views -----------------------------------------------------------------------------------

    def visible_history(self, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
        """The history from event ``start`` on, as ``seat`` may see it now (hidden cards as ``None``; all of
        it once the round is settled). What a seat sees of an event: ``engine.view.seen_whole``."""
        from tablegames.engine.view import seen_whole

        shown = seen_whole(self, seat, start)
        return [e.to_dict() if w else e.redacted() for e, w in zip(self.history[start:], shown, strict=True)]

    def card_visible(self, event: CardDealt, seat: int | None) -> bool:
        return self.phase == Phase.SETTLED or event.visible(seat)

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may see now, as a JSON-ready dict: never a card it may not see (``engine.view``)."""
        from tablegames.engine.view import round_view

        return round_view(self, seat)

    def decision_context(self, seat: int) -> DecisionContext:
        """What a bot or hint needs for ``seat``'s decision (only what that seat may see), as the game's
        typed context (``GameDefinition.context_type``)."""
        return self.flow.context(self, self.seats[seat])
