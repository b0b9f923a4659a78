"""Typed errors for illegal actions. Raising one never changes the round or table."""

from __future__ import annotations


class IllegalAction(Exception):
    """Base of every refused action; the message says what was wrong."""

    code = "illegal_action"


class WrongPhase(IllegalAction):
    code = "wrong_phase"


class WrongSeat(IllegalAction):
    code = "wrong_seat"


class UnknownAction(IllegalAction):
    code = "unknown_action"


class BadIndex(IllegalAction):
    code = "bad_index"


class BadWager(IllegalAction):
    code = "bad_wager"


class SideBetWithoutMain(IllegalAction):
    code = "side_bet_without_main"


class InsufficientFunds(IllegalAction):
    code = "insufficient_funds"
