"""What the engine's tests share: a game's wagers, from its definition."""

from __future__ import annotations

from tablegames.rules import registry


def every_wager(
    definition: registry.GameDefinition, rules: object, main: int
) -> list[tuple[str, int, str | None]]:
    """The main wager and every side bet of a game, from its definition."""
    out: list[tuple[str, int, str | None]] = []
    for w in definition.wagers:
        fixed = w.fixed_cents(rules)
        amount = main if w.main else fixed if fixed is not None else 200
        out.append((w.name, amount, w.option.default if w.option is not None else None))
    return out
