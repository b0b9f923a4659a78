"""A table's wagers: what a seat may place (:class:`WagerSpec`, from the game's definition and the table's rules)
and the checks of an amount in cents that every game shares (issue 24: errors in cents)."""

from __future__ import annotations

from dataclasses import dataclass

from tablegames.engine.errors import BadWager

__all__ = ["WagerSpec", "dollars", "validate_cents"]


@dataclass(frozen=True)
class WagerSpec:
    """A wager a seat may place at this table, from the game's definition and the table's rules: its name,
    whether it is the main wager, a fixed amount if any, whether it needs an option (the Flip Card outcome),
    what it costs per unit of amount, and the wager it requires first."""

    name: str
    main: bool = False
    fixed_cents: int | None = None
    needs_option: bool = False
    cost_multiple: int = 1
    requires: str | None = None
    title: str = ""
    options: tuple[str, ...] = ()


def dollars(cents: int) -> str:
    """Cents in an error's words, as dollars (issue 24: errors in cents).

    >>> dollars(96800), dollars(1500000), dollars(1250)
    ('$968', '$15,000', '$12.50')
    """
    whole, rest = divmod(abs(cents), 100)
    return ("-" if cents < 0 else "") + f"${whole:,}" + (f".{rest:02d}" if rest else "")


def validate_cents(amount: object, what: str) -> int:
    """A wager amount must be a positive whole number of cents."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise BadWager(f"{what} must be a whole number of cents, got {amount!r}")
    if amount <= 0:
        raise BadWager(f"{what} must be positive, got {amount}")
    return amount
